/* host/cred_cache.c — the credentials of FUSE callers, cached by tid.
 *
 * Direct-mapped by tid (CRED_SLOTS slots), callers with at most CRED_GROUPS groups
 * only. The connector's fork, exit, uid, gid and exec events drop a tid's entry
 * (connector.c); capset(2) sends no event, so an entry also expires after
 * UCG_HOST_CRED_TTL_NS.
 */
#include "host/host_impl.h"

#include <string.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ucg_host_caller_cred(struct ucg_host *h, int tid, struct ucg_cred *ret, uint32_t *groups)
{
	struct cred_slot *s = &h->creds[(unsigned)tid % CRED_SLOTS];
	uint64_t now = mono_ns();
	int r;

	if (tid > 0 && s->tid == tid && now < s->expires_ns) {
		*ret = s->cred;
		memcpy(groups, s->groups, s->cred.ngroups * sizeof(*groups));
		ret->groups = groups;
		return 0;
	}
	r = ucg_host_read_cred(tid, ret, groups, UCG_HOST_MAX_GROUPS);
	if (r < 0 || tid <= 0)
		return r;
	if (ret->ngroups <= CRED_GROUPS) {
		s->tid = tid;
		s->expires_ns = now + UCG_HOST_CRED_TTL_NS;
		s->cred = *ret;
		s->cred.groups = NULL;
		memcpy(s->groups, groups, ret->ngroups * sizeof(*groups));
	}
	return 0;
}

void cred_cache_forget(struct ucg_host *h, int tid)
{
	struct cred_slot *s = &h->creds[(unsigned)tid % CRED_SLOTS];

	if (s->tid == tid)
		s->tid = 0;
}
