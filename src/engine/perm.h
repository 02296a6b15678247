/* engine/perm.h — the VFS's permission rules, applied by the engine since a FUSE
 * front end mounts without default_permissions. */
#ifndef UCG_ENGINE_PERM_H
#define UCG_ENGINE_PERM_H

#include <stdint.h>

#include "engine/ucg.h"

#define UCG_MAY_EXEC 1
#define UCG_MAY_WRITE 2
#define UCG_MAY_READ 4

/* generic_permission: owner, group or other bits by fsuid/fsgid/groups, then
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH. 0 or -EACCES. */
int ucg_perm_check(const struct ucg_cred *c, uint32_t mode, uint32_t uid, uint32_t gid,
		   int is_dir, int want);
/* Whether ucg_perm_check grants search (UCG_MAY_EXEC) on every directory to c,
 * whatever its mode: either capability does (see ucg_perm_check), so a path walk
 * can skip the per-directory checks. */
static inline int ucg_perm_search_always(const struct ucg_cred *c)
{
	return (c->caps & (UCG_CAP_DAC_OVERRIDE | UCG_CAP_DAC_READ_SEARCH)) != 0;
}
/* The sticky-directory rule of unlink/rmdir/rename: 0 or -EPERM. */
int ucg_perm_sticky(const struct ucg_cred *c, uint32_t dir_mode, uint32_t dir_uid,
		    uint32_t victim_uid);
int ucg_cred_in_group(const struct ucg_cred *c, uint32_t gid);

#endif
