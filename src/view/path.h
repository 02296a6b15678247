/* view/path.h — which /proc file an open names, as the view sees it.
 *
 * The view answers four kinds of /proc files itself: /proc/PID/cgroup (and
 * task/TID/cgroup), /proc/cgroups, /proc/PID/mountinfo and /proc/PID/mounts (with
 * /proc/mounts, a link to self/mounts). An open's path is made absolute against the
 * directory it is relative to, normalised as the VFS would walk it (".", "..", "//"),
 * and "self" and "thread-self" are replaced by the caller's ids. Pure string work: no
 * I/O, so the supervisor's decision can be tested on its own.
 */
#ifndef UCG_VIEW_PATH_H
#define UCG_VIEW_PATH_H

#include <stddef.h>

enum view_kind {
	VIEW_NONE = 0,  /* not ours: the kernel's file */
	VIEW_CGROUP,    /* /proc/PID/cgroup, /proc/PID/task/TID/cgroup */
	VIEW_CGROUPS,   /* /proc/cgroups */
	VIEW_MOUNTINFO, /* /proc/PID/mountinfo, /proc/PID/task/TID/mountinfo */
	VIEW_MOUNTS,    /* /proc/PID/mounts, /proc/mounts */
};

struct view_target {
	enum view_kind kind;
	int pid; /* the process whose file it is (0 for /proc/cgroups) */
	int tid; /* the thread for task/TID/ paths and thread-self, else 0 */
};

/* Joins base (an absolute directory, or NULL for path already absolute) and path into
 * out, normalised: "." and empty components dropped, ".." takes one back (never above
 * "/"). -ENAMETOOLONG if it does not fit, -EINVAL if the result would not be absolute. */
int view_path_join(const char *base, const char *path, char *out, size_t size);

/* Classifies a normalised absolute path opened by thread tid of process tgid. Returns
 * the kind (VIEW_NONE for every other path) and fills *ret for the others. */
enum view_kind view_path_classify(const char *abs, int tgid, int tid, struct view_target *ret);

/* Quick test on a path before any work: could it be one of ours once joined? An
 * absolute path not under /proc never is. */
int view_path_maybe(const char *path);

#endif
