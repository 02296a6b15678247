/* host/v2obs.h — the engine observer that enforces v1 settings through cgroup v2.
 *
 * Registered on the daemon's engine with a backend (host/cgv2.h), it keeps the v2
 * subtree in step with the v1 hierarchies:
 *
 *   attach       can_attach computes each moving process's leaf (its v1 paths over
 *                the enforced hierarchies after the move, host/cgv2.h's layout) and
 *                writes it to the leaf's cgroup.procs; the kernel's refusal is the
 *                v1 write's errno and the engine changes nothing. v2 moves whole
 *                processes: a tasks write of one thread moves its process.
 *   limits       can_write translates the write (host/v1v2.h) and writes the v2
 *                files of the cgroup's mirror directory; the kernel's refusal is the
 *                v1 errno. A v2 file of a controller the subtree lacks is skipped
 *                (policy only, logged once per controller).
 *   mkdir/rmdir  the mirror directory is made with the cgroup and removed with it
 *                (kept, logged, while the kernel says it is busy).
 *   freezer      ucg_v2obs_freeze_task replaces SIGSTOP: cgroup.freeze of the task's
 *                leaf, reported stopped once cgroup.events says frozen 1
 *                (ucg_v2obs_poll).
 *
 * Enforced hierarchies, in the layout's priority order: those bound to memory, pids,
 * blkio (io), cpu, cpuset, hugetlb whose v2 controller the subtree has, then freezer
 * (cgroup.freeze needs no controller), devices and net_cls (BPF programs on the
 * leaves, host/bpf_obs.h). Call everything with the engine lock held.
 */
#ifndef UCG_HOST_V2OBS_H
#define UCG_HOST_V2OBS_H

#include "base/buf.h"
#include "engine/ucg.h"
#include "host/cgv2.h"

struct ucg_v2obs;

/* log(ctx, line) receives one line per fallback or refusal (may be NULL). */
typedef void (*ucg_v2obs_log_fn)(void *ctx, const char *line);

/* Registers an observer of e enforcing through b (not owned). 0 or -errno. */
int ucg_v2obs_new(struct ucg_engine *e, struct ucg_cgv2 *b, ucg_v2obs_log_fn log, void *logctx,
		  struct ucg_v2obs **ret);
/* Unregisters and frees (NULL is fine); the subtree stays as it is. */
void ucg_v2obs_free(struct ucg_v2obs *o);
/* The provider's freeze_task through v2. 0 when handled; -ENOENT when tid is not in
 * its leaf (the caller falls back to signals). */
int ucg_v2obs_freeze_task(struct ucg_v2obs *o, int tid, int freeze);
/* The leaf (relative to the subtree) process tid is in, or would be in once moved to
 * cgroup to (NULL: where it is now). 0 or -errno. */
int ucg_v2obs_leaf(struct ucg_v2obs *o, int tid, const struct ucg_cgroup *to, char *out,
		   size_t size);
/* Reports tasks whose leaf is now frozen. Returns 1 while some are still freezing. */
int ucg_v2obs_poll(struct ucg_v2obs *o);
/* After a restart (and the state file's restore): every process found in a leaf of
 * the subtree whose engine cgroups map elsewhere (it was forked while no daemon ran)
 * is attached in the engine to the v1 cgroups its leaf names; nothing is written to
 * v2. Returns the number of processes in the leaves or -errno. */
int ucg_v2obs_restore(struct ucg_v2obs *o);
/* The content of v1 file path ("/a/pids.current") of h computed from the kernel's v2
 * files (host/v2stat.h) into out: only for the outermost enforced hierarchy, whose
 * mirror directories hold exactly the processes of each v1 cgroup. -ENOENT when the
 * engine's own figure is to be served (another hierarchy, a root, a file v2 lacks). */
int ucg_v2obs_show(struct ucg_v2obs *o, struct ucg_hierarchy *h, const char *path,
		   struct ucg_buf *out);
/* The enforced hierarchy of v1 controller ss (UCG_SS_*), or NULL. */
struct ucg_hierarchy *ucg_v2obs_hierarchy(struct ucg_v2obs *o, int ss);
/* The v1 paths of a leaf's processes, decoded from its name ("/a/.ucg.cpu:b/.ucg"):
 * outer, the mirror the leaf sits under ("/a"), and in, their path in the hierarchy
 * of v1 controller ss ("/b"), each of size bytes. 0; -ENOENT when ss's hierarchy is
 * not enforced or is the outer one (its paths are the mirrors': they never diverge);
 * -EINVAL for a name the layout does not make. */
int ucg_v2obs_leaf_paths(struct ucg_v2obs *o, const char *leaf, int ss, char *outer, char *in,
			 size_t size);
/* "enforce: ..." lines for `ucg ctl stats`: controllers, attaches, refusals. */
void ucg_v2obs_describe(const struct ucg_v2obs *o, struct ucg_buf *out);

#endif
