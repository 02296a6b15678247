/* host/enforce.h — enforcement on real processes where userspace can be exact.
 *
 *   freezer: SIGSTOP/SIGCONT. A freeze is reported to the engine as done only once
 *            /proc shows the task stopped; a frozen task continued from outside is
 *            reported running and stopped again.
 *   cpuset:  sched_setaffinity(tid, the cpuset's effective cpus).
 *
 * A task is signalled only if it is still the one the engine knows (same start
 * time), so a reused pid is never hit. Not thread-safe: call with the engine lock.
 */
#ifndef UCG_HOST_ENFORCE_H
#define UCG_HOST_ENFORCE_H

#include <stddef.h>

#include "engine/ucg.h"

struct ucg_enforce;

int ucg_enforce_new(struct ucg_enforce **ret);
void ucg_enforce_free(struct ucg_enforce *f);
/* The engine's freeze_task op: stop (1) or continue (0) tid. */
void ucg_enforce_freeze(struct ucg_enforce *f, struct ucg_engine *e, int tid, int freeze);
/* Checks the tasks being frozen: reports stops, re-stops continued ones, forgets
 * exited ones. Returns 1 while some stop is still unconfirmed (poll again soon). */
int ucg_enforce_poll(struct ucg_enforce *f, struct ucg_engine *e);
/* The engine's cpus_changed op. */
void ucg_enforce_cpus(struct ucg_engine *e, int tid, const unsigned char *mask, size_t nbytes);

#endif
