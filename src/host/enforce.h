/* host/enforce.h — enforcement on real processes where userspace can be exact.
 *
 *   freezer: SIGSTOP/SIGCONT. A freeze is reported to the engine as done only once
 *            /proc shows the task stopped; a frozen task continued from outside is
 *            reported running and stopped again.
 *   cpuset:  sched_setaffinity(tid, the cpuset's effective cpus); with memory_migrate,
 *            migrate_pages(tid, old mems, new mems) where the kernel moves pages.
 *            mems_allowed itself cannot be set from outside: not enforced.
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
/* The engine's mems_migrate op: migrate_pages(2). 0 or -errno. With UCG_ENFORCE_LOG set
 * to a file, each call and its result is appended there (tests). */
int ucg_enforce_migrate(struct ucg_engine *e, int tid, const unsigned char *from,
			const unsigned char *to, size_t nbytes);
/* The machine's memory nodes for ucg_engine_config.nr_mems: the highest node with
 * memory plus one (UCG_NR_MEMS overrides it, for tests). */
int ucg_enforce_nr_mems(void);

#endif
