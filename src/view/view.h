/* view/view.h — a mount namespace where ucg's hierarchies are the system's cgroup v1.
 *
 * view_collect asks the daemon which hierarchies it serves; view_enter (in the process
 * that will run the command, before the filter goes on) makes a private mount
 * namespace: every kernel cgroup/cgroup2 mount and every ucg FUSE mount detached, a
 * tmpfs on /sys/fs/cgroup, each hierarchy bound at /sys/fs/cgroup/<name> (controllers
 * joined by ",", or the name= of a named one) with a symlink per controller of a
 * hierarchy holding several (cpu -> cpu,cpuacct as systemd makes them), and the tmpfs
 * made read-only as systemd leaves it. Nothing propagates out (the namespace is
 * rprivate from its first step). view_answer gives the files the supervisor hands out
 * (view/notify.h), asked from the daemon at each open.
 */
#ifndef UCG_VIEW_VIEW_H
#define UCG_VIEW_VIEW_H

#include <stddef.h>

#include "base/buf.h"
#include "view/mtab.h"
#include "view/path.h"

#define VIEW_ROOT "/sys/fs/cgroup"
#define VIEW_MAX_HIER 64

struct view {
	struct view_hier hs[VIEW_MAX_HIER];
	size_t n;
	int host_ns, view_ns;         /* mount namespaces (view_enter), -1 before */
	int made;                     /* mounts made for the view so far (names them) */
	unsigned long long made_mask; /* hs[i] made by view_mount: view_release undoes */
};

/* Fills v with the daemon's hierarchies (one per device: a hierarchy mounted twice
 * counts once). -errno of the daemon request (-ECONNREFUSED, -ENOENT: no daemon). */
int view_collect(struct view *v);

/* The hierarchy holding controller ctrl ("cpu", "name=systemd"), or NULL. */
const struct view_hier *view_find(const struct view *v, const char *ctrl);

/* Where hierarchy h is reachable from this process: its daemon directory outside a
 * view, /sys/fs/cgroup/<name> inside one (the one holding cgroup.procs). */
int view_hier_dir(const struct view_hier *h, char *out, size_t size);

/* Unshares the mount namespace of the calling process and builds the view. On failure
 * *ret_step names the step that failed; the namespace is then unusable. */
int view_enter(struct view *v, const char **ret_step);

/* The supervisor's questions (view/notify.h), ctx being the struct view. */
int view_answer(void *ctx, const struct view_target *t, struct ucg_buf *out);
int view_is_hier_dev(void *ctx, unsigned major, unsigned minor);
int view_mount(void *ctx, int pid, const char *target, unsigned long flags, const char *data);

/* Undoes the mounts view_mount made (the view's clones, then the daemon's). */
void view_release(struct view *v);

#endif
