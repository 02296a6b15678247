/* engine/task.h — the task table, thread groups and attach (docs/kernel/core.md §6-§8). */
#ifndef UCG_ENGINE_TASK_H
#define UCG_ENGINE_TASK_H

#include "engine/types.h"

/* NULL if the engine knows no task with that tid. */
struct ucg_task *ucg_task_find(struct ucg_engine *e, int tid);
/* NULL if no thread group with that tgid. */
struct ucg_tgroup *ucg_tgroup_find(struct ucg_engine *e, int tgid);
/* The cgroup t is in within h (h's root for a zombie). */
struct ucg_cgroup *ucg_task_cgroup(const struct ucg_task *t, const struct ucg_hierarchy *h);

/* The cgroup live task tid is in, in the hierarchy controller id is bound to: 0 with
 * *ret (NULL when the controller is bound nowhere), or -ESRCH for an unknown or exited
 * task. */
int ucg_task_subsys_cgroup(struct ucg_engine *e, int tid, int id, struct ucg_cgroup **ret);
/* Writes pid to dst's cgroup.procs (threadgroup=1) or tasks (0) on behalf of the
 * opener cred, after the cgroup-removed and parse checks: resolves the task, checks
 * kthreads and credentials, runs the controllers' two-phase attach. */
int ucg_attach_pid(struct ucg_engine *e, struct ucg_cgroup *dst, int pid, int threadgroup,
		   const struct ucg_cred *cred);
/* Moves every live task of `from` into `to` (same hierarchy), as the kernel's
 * cgroup_transfer_tasks does for cpuset's "look upward" fallback: the controllers'
 * can_attach is not consulted (the move is forced), attach is called. Returns the
 * number of tasks moved or -ENOMEM (then nothing moved). */
int ucg_task_transfer(struct ucg_engine *e, struct ucg_cgroup *from, struct ucg_cgroup *to);
/* Moves every task out of the way and frees the table (engine teardown). */
void ucg_task_table_fini(struct ucg_engine *e);

/* Appends the sorted, de-duplicated ids of cg's live members: TIDs, or TGIDs with
 * procs=1. Returns the count or -ENOMEM. */
int ucg_task_list(struct ucg_engine *e, struct ucg_cgroup *cg, int procs, struct ucg_buf *out);

#endif
