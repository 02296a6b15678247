/* engine/subsys.c — the controller registry, generated from controllers.def. */
#include "engine/subsys.h"

#include <string.h>

#define UCG_SUBSYS(id, name) extern const struct ucg_subsys ucg_##id##_subsys;
#include "controllers/controllers.def"
#undef UCG_SUBSYS

const struct ucg_subsys *const ucg_subsys_table[UCG_SUBSYS_COUNT] = {
#define UCG_SUBSYS(id, name) [UCG_SS_##id] = &ucg_##id##_subsys,
#include "controllers/controllers.def"
#undef UCG_SUBSYS
};

int ucg_subsys_find(const char *name, size_t len)
{
	int i;

	for (i = 0; i < UCG_SUBSYS_COUNT; i++)
		if (strlen(ucg_subsys_table[i]->name) == len &&
		    !memcmp(ucg_subsys_table[i]->name, name, len))
			return i;
	return -1;
}
