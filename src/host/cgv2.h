/* host/cgv2.h — the kernel backend: a cgroup v2 subtree the daemon owns.
 *
 * Where it is. The first cgroup2 mount in /proc/self/mountinfo; in it, UCG_V2_ROOT
 * when set (an absolute directory of that mount, or a path relative to the mount),
 * else a child "ucgroups" of the cgroup the daemon runs in (/proc/self/cgroup's
 * "0::" line; under systemd, a unit with Delegate=yes). v2 lets a cgroup that
 * enables controllers for its children hold no process itself (the no-internal-
 * process rule, root excepted): when the daemon's own cgroup must enable them, the
 * daemon first moves itself into a leaf "ucgroups-daemon" beside the subtree.
 *
 * Layout. Every v1 cgroup path P of the enforced hierarchies has a v2 directory
 * ROOT/P that carries its limits ("mirror" directory); processes never sit there,
 * only in leaves named ".ucg". A process whose v1 paths agree across the enforced
 * hierarchies (Docker's /docker/ID, systemd's slices, kubepods, Slurm's steps) sits
 * in ROOT/P/.ucg, so every hierarchical rule is the kernel's. When they diverge, the
 * first hierarchy in priority order (memory, pids, io, cpu, cpuset, hugetlb,
 * freezer, devices, net_cls) is the outer one, and each later hierarchy whose path differs adds a
 * level ".ucg.NAME:PATH" (PATH's slashes as colons) before the leaf:
 *     memory /a, pids /b, cpu /a   ->  ROOT/a/.ucg.pids:b/.ucg
 * Those levels get a copy of the inner hierarchy's limits (approximate: see
 * docs/enforcement.md). v1 names beginning ".ucg" are the backend's own.
 *
 * Controllers are enabled in cgroup.subtree_control of every directory but the
 * leaves, for those of memory pids io cpu cpuset hugetlb the mount offers. Not
 * thread-safe: call with the engine lock held.
 */
#ifndef UCG_HOST_CGV2_H
#define UCG_HOST_CGV2_H

#include <stddef.h>
#include <sys/types.h>

#include "base/buf.h"

/* v2 controllers the backend enables, as bits of ucg_cgv2_controllers(). */
enum ucg_v2_ctrl {
	UCG_V2_MEMORY,
	UCG_V2_PIDS,
	UCG_V2_IO,
	UCG_V2_CPU,
	UCG_V2_CPUSET,
	UCG_V2_HUGETLB,
	UCG_V2_NR_CTRL
};
/* The v2 name of each ("memory", "pids", "io", "cpu", "cpuset", "hugetlb"). */
extern const char *const ucg_v2_ctrl_name[UCG_V2_NR_CTRL];

/* The name of the leaf directories processes sit in. */
#define UCG_V2_LEAF ".ucg"
/* The daemon's own leaf, beside its subtree, when the cgroup it runs in must enable
 * controllers; a daemon that starts in a cgroup of this name takes its parent as the
 * cgroup it runs in (systemd's DelegateSubgroup=, dist/ucgroups.service). */
#define UCG_V2_DAEMON_LEAF "ucgroups-daemon"

struct ucg_cgv2;

/* Finds the cgroup2 mount and makes (or takes over) the subtree. root: UCG_V2_ROOT's
 * value or NULL. On success *ret is the backend, 0 returned; else -errno and a one-
 * line reason in why (no writable cgroup2 mount, ...). */
int ucg_cgv2_open(const char *root, struct ucg_cgv2 **ret, char *why, size_t whylen);
/* Closes; with remove, removes every empty directory of the subtree, itself last. */
void ucg_cgv2_close(struct ucg_cgv2 *b, int remove);
/* The subtree's directory (absolute). */
const char *ucg_cgv2_root(const struct ucg_cgv2 *b);
/* Bit (1 << UCG_V2_x) for each controller enabled in the subtree's leaves. */
unsigned ucg_cgv2_controllers(const struct ucg_cgv2 *b);
/* A line saying which controllers are enforced and why the others are not. */
const char *ucg_cgv2_describe(const struct ucg_cgv2 *b);

/* The leaf (relative to the subtree, "/a/.ucg") for a process whose v1 path in the
 * n hierarchies named names[] (priority order) is paths[i]; a NULL path: that
 * hierarchy is not enforced. Pure. Returns the length, or -ENAMETOOLONG. */
int ucg_cgv2_leaf_path(const char *const *names, const char *const *paths, size_t n, char *out,
		       size_t outsz);

/* Makes rel (and its parents), enabling the controllers in every directory on the
 * way that is not a leaf. 0 or -errno. */
int ucg_cgv2_mkdir(struct ucg_cgv2 *b, const char *rel);
/* Moves process pid into the leaf rel (made if needed): cgroup.procs. 0 or -errno. */
int ucg_cgv2_attach(struct ucg_cgv2 *b, const char *rel, pid_t pid);
/* Writes value to rel/file. 0 or the kernel's -errno. */
int ucg_cgv2_write(struct ucg_cgv2 *b, const char *rel, const char *file, const char *value);
/* Appends rel/file's content to out. 0 or -errno. */
int ucg_cgv2_read(struct ucg_cgv2 *b, const char *rel, const char *file, struct ucg_buf *out);
/* Removes rel, then its parents up to the subtree while they are empty and the
 * backend's own (".ucg" names). 0 or -errno (-EBUSY: populated). */
int ucg_cgv2_remove(struct ucg_cgv2 *b, const char *rel);
/* Freezes (1) or thaws (0) rel; returns 1 once cgroup.events says frozen, 0 while
 * freezing (or thawed), -errno on error. */
int ucg_cgv2_freeze(struct ucg_cgv2 *b, const char *rel, int freeze);
/* Calls fn(ctx, rel, pid) for every process in every leaf of the subtree (after a
 * restart, to rebuild membership). Returns the number of processes or -errno. */
int ucg_cgv2_scan(struct ucg_cgv2 *b, void (*fn)(void *ctx, const char *rel, pid_t pid), void *ctx);
/* Calls fn(ctx, leaf) for every leaf that holds processes of the v1 cgroup whose
 * mirror is rel ("/a"): rel/.ucg and the leaves of its divergent levels
 * (rel/.ucg.pids:b/.ucg, ...), not those of rel's v1 children. Returns their number
 * or -errno. */
int ucg_cgv2_own_leaves(struct ucg_cgv2 *b, const char *rel,
			void (*fn)(void *ctx, const char *leaf), void *ctx);
/* Calls fn(ctx, leaf) for every leaf of the subtree, whether it holds processes or not.
 * Returns their number or -errno. */
int ucg_cgv2_leaves(struct ucg_cgv2 *b, void (*fn)(void *ctx, const char *leaf), void *ctx);

#endif
