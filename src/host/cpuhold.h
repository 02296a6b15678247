/* host/cpuhold.h — cpuset held on real processes: a member's own sched_setaffinity()
 * outside its cpuset is clamped back within one period.
 *
 * The kernel checks a task's sched_setaffinity() against its cpuset at the call: a
 * request with no CPU of the cpuset is EINVAL (the mask stays), one with some gets the
 * intersection, and the request is kept for later cpuset.cpus changes (6.18). Nothing
 * tells userspace of such a call (the process-events connector has no affinity event),
 * so the tasks of every cpuset that leaves out some online CPU are polled: each
 * thread's mask (sched_getaffinity) is compared with the one we gave it, and a change
 * is taken as the task's request and answered as the kernel would have — request &
 * cpuset, or the mask it had when that is empty. Until the next pass the task runs
 * with what it asked for: the kernel refuses at once, we clamp within a period.
 *
 * Which tasks: those cpus_changed named with a set other than the root's, and the
 * tasks they fork (an engine observer); each pass checks with the engine that the task
 * is still in such a cpuset and forgets it otherwise. A request made while in the root
 * cpuset is not seen (the first attach gives the cpuset's mask).
 *
 * Not for a daemon enforcing through a v2 cpuset controller: the kernel holds it there.
 * Not thread-safe: call with the engine lock.
 */
#ifndef UCG_HOST_CPUHOLD_H
#define UCG_HOST_CPUHOLD_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/ucg.h"

struct ucg_cpuhold;

/* Registers an engine observer (forks, exits). period_ms: the poll period (0: the
 * default, 50 ms; UCG_CPUSET_HOLD_MS overrides it). -ENOMEM, or the observer's -ENOSPC. */
int ucg_cpuhold_new(struct ucg_engine *e, unsigned period_ms, struct ucg_cpuhold **ret);
/* Unregisters; before the engine is freed. NULL is fine. */
void ucg_cpuhold_free(struct ucg_cpuhold *c);
/* The engine's cpus_changed op (ucg.h): applies the 6.18 rule with the request seen
 * while held, and holds tid when mask is not the root's set. */
void ucg_cpuhold_cpus(struct ucg_cpuhold *c, int tid, const unsigned char *mask, size_t nbytes);
/* One pass over the held tasks if one is due at now_ms (CLOCK_MONOTONIC): clamps
 * escapes, forgets tasks that left. Returns the milliseconds until the next pass is
 * due, or -1 when nothing is held. */
long ucg_cpuhold_poll(struct ucg_cpuhold *c, uint64_t now_ms);
/* The tasks held now. */
size_t ucg_cpuhold_count(const struct ucg_cpuhold *c);
struct ucg_cpuhold_stats {
	uint64_t passes, polled, clamped, refused; /* refused: nothing of the cpuset asked */
	uint64_t pass_ns;                          /* total time in passes */
	unsigned period_ms;                        /* the current period */
};
void ucg_cpuhold_get_stats(const struct ucg_cpuhold *c, struct ucg_cpuhold_stats *ret);
/* One `ucg ctl stats` line: "cpuset_hold tasks N period_ms N passes N ns_per_task N
 * clamped N". */
void ucg_cpuhold_describe(const struct ucg_cpuhold *c, struct ucg_buf *out);

#endif
