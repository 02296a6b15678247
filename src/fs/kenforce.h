/* fs/kenforce.h — the daemon's kernel enforcement: the cgroup v2 backend
 * (host/cgv2.h) and its engine observer (host/v2obs.h), chosen from the environment.
 *
 *   UCG_ENFORCE=0      policy only: nothing goes to the kernel (`ucg daemon --no-enforce`)
 *   UCG_ENFORCE=1      through v2 even with no controller delegated (a hybrid host:
 *                      membership and freezing only)
 *   unset              through v2 when the subtree gets at least one controller
 *   UCG_V2_ROOT=DIR    the v2 directory to own (default: "ucgroups" beside the daemon)
 *
 * Never fatal: whatever fails leaves the daemon policy-only, with one line on stderr
 * saying why and the same reason in `ucg ctl stats`.
 */
#ifndef UCG_FS_KENFORCE_H
#define UCG_FS_KENFORCE_H

#include <stdint.h>

#include "base/buf.h"
#include "engine/ucg.h"

struct ucgfs_kenforce;

/* Always returns a handle (NULL only when out of memory). */
struct ucgfs_kenforce *ucgfs_kenforce_start(struct ucg_engine *e);
/* After the state file's restore: processes forked while no daemon ran are found in
 * their leaves and attached in the engine. */
void ucgfs_kenforce_restore(struct ucgfs_kenforce *k);
/* The provider's sync on a kernel that sends no process events (host/host.h's polled
 * mode): after the rescan of /proc has placed new tasks under their creators, the
 * kernel's v2 leaves say where each process of the subtree really is (a fork
 * inherits its leaf, whoever moved the parent), and the engine follows them. A call
 * from inside itself (its attaches sync again) does nothing. */
void ucgfs_kenforce_sync(struct ucgfs_kenforce *k);
/* The provider's freeze_task: 0 when frozen/thawed through v2, -ENOENT when the
 * caller must use signals (no backend, or tid not in its leaf). */
int ucgfs_kenforce_freeze(struct ucgfs_kenforce *k, int tid, int freeze);
/* 1 when cpuset goes to the kernel's v2 cpuset controller, which then refuses a
 * member's sched_setaffinity() outside it itself (no host/cpuhold.h needed). */
int ucgfs_kenforce_holds_cpus(const struct ucgfs_kenforce *k);
/* Reports confirmed freezes; 1 while some are pending. */
int ucgfs_kenforce_poll(struct ucgfs_kenforce *k);
/* The v1 statistics file path of h computed from the kernel's v2 files (host/v2obs.h),
 * into out; -ENOENT when the engine's figure is served. */
/* Once a second, with the engine lock held: a cpu quota of an inner hierarchy divided
 * over the v2 leaves of a divergent layout (host/v2split.h). now_us: monotonic. */
void ucgfs_kenforce_tick(struct ucgfs_kenforce *k, uint64_t now_us);
int ucgfs_kenforce_show(struct ucgfs_kenforce *k, struct ucg_hierarchy *h, const char *path,
			struct ucg_buf *out);
/* `ucg ctl stats` lines: "enforce CONTROLLERS" or "enforce none: WHY", and counters. */
void ucgfs_kenforce_stats(const struct ucgfs_kenforce *k, struct ucg_buf *out);
/* Unregisters; the subtree stays for the next daemon. NULL is fine. */
void ucgfs_kenforce_stop(struct ucgfs_kenforce *k);

#endif
