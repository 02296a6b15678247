/* host/host.h — the real-process task provider.
 *
 * Feeds an engine with the host's processes and threads: an initial scan of /proc,
 * then fork/exit/uid/gid events from the kernel's process-events connector
 * (NETLINK_CONNECTOR, CN_IDX_PROC). When the connector drops events (ENOBUFS) the
 * table is resynchronised from /proc, diffing by (tid, start time) so that a reused
 * tid is never taken for its predecessor; on a kernel that sends no process events,
 * every drain is such a resynchronisation. Not thread-safe: the caller serialises
 * every call with the engine's lock.
 */
#ifndef UCG_HOST_HOST_H
#define UCG_HOST_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "engine/ucg.h"

struct ucg_host;

struct ucg_host_stats {
	uint64_t forks, exits, resyncs, events;
	/* The polled mode (no process events): tasks a scan of /proc added, drains that
	 * read only the tids allocated since the last scan, drains that read nothing
	 * there (no tid allocated, no task count changed). */
	uint64_t found, probes, quiet;
};

/* Opens the connector (needs CAP_NET_ADMIN). -errno on failure. */
int ucg_host_new(struct ucg_host **ret);
void ucg_host_free(struct ucg_host *h);
/* The provider ops to put in ucg_engine_config, with the host as provider_ctx. */
const struct ucg_provider_ops *ucg_host_provider_ops(void);
/* Adds every existing task to e. Call once, right after ucg_engine_new. */
int ucg_host_populate(struct ucg_host *h, struct ucg_engine *e);
/* The connector's fd, to poll for POLLIN. */
int ucg_host_fd(const struct ucg_host *h);
/* The taskstats socket (-1 if unavailable), to poll for POLLIN too: exits arrive there
 * before the parent can reap, the connector's only after (drain on either). */
int ucg_host_exit_fd(const struct ucg_host *h);
/* 1 when the kernel sends no process events (UCG_HOST_NO_EVENTS=1 forces it): a drain
 * then reads /proc/loadavg, and /proc itself only when tasks came or went (host.c). */
int ucg_host_polled(const struct ucg_host *h);
/* Applies every queued event; resynchronises if events were lost; reaps zombies whose
 * /proc entry is gone. Returns the number of events applied or -errno. */
int ucg_host_drain(struct ucg_host *h, struct ucg_engine *e);
/* Reaps exited leaders whose /proc entry has disappeared. */
void ucg_host_reap_check(struct ucg_host *h, struct ucg_engine *e);
/* Charges every task's CPU time since the last sample to its cpuacct cgroup (and,
 * from then on, a task's last time at its exit). Call periodically. */
void ucg_host_sample_cpu(struct ucg_host *h, struct ucg_engine *e);
/* Forces a resynchronisation from /proc. */
int ucg_host_resync(struct ucg_host *h, struct ucg_engine *e);
void ucg_host_get_stats(const struct ucg_host *h, struct ucg_host_stats *ret);

/* Reads a task's identity and credentials from /proc/TID/{stat,status}.
 * -ENOENT/-ESRCH if gone. */
int ucg_host_read_task(int tid, struct ucg_task_info *ret);

/* The credentials of a FUSE caller, from a cache kept exact by the connector's
 * uid/gid/exec/exit events (drain first) and refreshed from /proc at least every
 * UCG_HOST_CRED_TTL_NS (capability changes by capset(2) send no event). groups must
 * hold UCG_HOST_MAX_GROUPS entries. */
#define UCG_HOST_MAX_GROUPS 256
#define UCG_HOST_CRED_TTL_NS 1000000000ull
int ucg_host_caller_cred(struct ucg_host *h, int tid, struct ucg_cred *ret, uint32_t *groups);

/* The credentials of the thread tid as the kernel sees them (for a FUSE caller):
 * uids, gids, supplementary groups (up to max_groups into groups), CapEff. */
int ucg_host_read_cred(int tid, struct ucg_cred *ret, uint32_t *groups, size_t max_groups);

#endif
