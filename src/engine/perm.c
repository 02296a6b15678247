/* engine/perm.c — DAC checks as the VFS makes them (fs/namei.c generic_permission). */
#include "engine/perm.h"

#include <errno.h>
#include <sys/stat.h>

int ucg_cred_in_group(const struct ucg_cred *c, uint32_t gid)
{
	size_t i;

	if (c->fsgid == gid)
		return 1;
	for (i = 0; c->groups && i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return 1;
	return 0;
}

int ucg_perm_check(const struct ucg_cred *c, uint32_t mode, uint32_t uid, uint32_t gid,
		   int is_dir, int want)
{
	uint32_t bits;

	/* Only one class applies: the owner's bits even when group bits would allow. */
	if (c->fsuid == uid)
		bits = mode >> 6;
	else if (ucg_cred_in_group(c, gid))
		bits = mode >> 3;
	else
		bits = mode;
	if (((unsigned)bits & (unsigned)want & 7u) == (unsigned)want)
		return 0;
	if (c->caps & UCG_CAP_DAC_OVERRIDE) {
		/* Execute on a regular file still needs some x bit. */
		if (!(want & UCG_MAY_EXEC) || is_dir || (mode & 0111))
			return 0;
	}
	if ((c->caps & UCG_CAP_DAC_READ_SEARCH) && !(want & UCG_MAY_WRITE) &&
	    (want == UCG_MAY_READ || is_dir))
		return 0;
	return -EACCES;
}

int ucg_perm_sticky(const struct ucg_cred *c, uint32_t dir_mode, uint32_t dir_uid,
		    uint32_t victim_uid)
{
	if (!(dir_mode & S_ISVTX))
		return 0;
	if (c->fsuid == victim_uid || c->fsuid == dir_uid || (c->caps & UCG_CAP_FOWNER))
		return 0;
	return -EPERM;
}
