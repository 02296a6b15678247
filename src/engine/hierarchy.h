/* engine/hierarchy.h — hierarchies: finding, creating, binding, destroying. */
#ifndef UCG_ENGINE_HIERARCHY_H
#define UCG_ENGINE_HIERARCHY_H

#include "engine/types.h"

void ucg_hierarchy_put(struct ucg_hierarchy *h);
/* The live hierarchy controller id is bound to, or NULL if it is bound nowhere. */
struct ucg_hierarchy *ucg_subsys_hierarchy(struct ucg_engine *e, int id);
/* Destroys every hierarchy (engine teardown), whatever its state. */
void ucg_hierarchy_destroy_all(struct ucg_engine *e);

/* The core files, defined in core_files.c. */
extern const struct ucg_cftype ucg_core_files[];

#endif
