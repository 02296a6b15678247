/* engine/mount_opts.h — the v1 mount-option grammar (docs/kernel/core.md §1.1). */
#ifndef UCG_ENGINE_MOUNT_OPTS_H
#define UCG_ENGINE_MOUNT_OPTS_H

#include <stdint.h>

#include "engine/types.h"

struct ucg_mount_opts {
	uint32_t ss_mask; /* after validation: `all` expanded */
	int all, none;
	int has_name;
	char name[UCG_NAME_MAX + 1];
	unsigned flags; /* UCG_HF_* */
	int clone_children;
	char *release_agent; /* NULL if not given; owned */
};

/* Parses and validates opts (NULL or "" mean `all`) in the kernel's order. On error
 * returns -EINVAL with the kernel log's words in err, and *ret is untouched. */
int ucg_mount_opts_parse(const char *opts, struct ucg_mount_opts *ret, struct ucg_err *err);
void ucg_mount_opts_fini(struct ucg_mount_opts *o);

#endif
