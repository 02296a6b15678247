/* view/mtab.h — the mount table as a kernel with v1 cgroups would show it.
 *
 * Inside the view, ucg's hierarchies are FUSE mounts (fstype "fuse.cgroup", source
 * the mount's name, super options "rw,user_id=0,..."). A kernel v1 mount reads
 *   35 25 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,cpu,cpuacct
 * in mountinfo, and "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,...,cpu,cpuacct 0 0"
 * in /proc/mounts. view_mountinfo_rewrite turns the first form into the second for
 * every mount of a known hierarchy (matched by device number), with the hierarchy's
 * options as the daemon reports them at the time; view_mounts_format derives
 * /proc/mounts from mountinfo the way the kernel prints both from one mount (mounts:
 * rw|ro, the superblock flags, the mount flags, then the filesystem's options).
 * Pure string work.
 */
#ifndef UCG_VIEW_MTAB_H
#define UCG_VIEW_MTAB_H

#include <stddef.h>

#include "base/buf.h"

/* One ucg hierarchy in the view. */
struct view_hier {
	unsigned major, minor; /* the FUSE mount's device */
	char dir[1024];        /* where the daemon mounted it (outside the view) */
	char name[256];        /* its directory under /sys/fs/cgroup */
	char opts[1024];       /* super options, "rw,cpu,cpuacct" */
};

/* Splits one line of the daemon's "mounts" reply ("NAME DIR OPTIONS") into dir and
 * opts. -EINVAL for a line without three fields, -ENAMETOOLONG if one does not fit. */
int view_hier_parse(const char *line, size_t len, struct view_hier *ret);

/* The directory name systemd gives a hierarchy: its controllers joined by ",", or
 * for a hierarchy without controllers its name= value. -EINVAL if it has neither. */
int view_hier_name(const char *opts, char *out, size_t size);

/* Whether the hierarchy with these options holds controller ctrl ("cpu", or
 * "name=systemd" for a named hierarchy). */
int view_hier_has(const char *opts, const char *ctrl);

/* Number of controllers in opts (named hierarchies' name= not counted). */
int view_hier_count(const char *opts);

/* Appends to out the mountinfo text in[0..len) with every line whose device is one of
 * hs[0..n) shown as a kernel cgroup mount with that hierarchy's opts. */
void view_mountinfo_rewrite(const char *in, size_t len, const struct view_hier *hs, size_t n,
			    struct ucg_buf *out);

/* Appends to out the /proc/mounts text for the mountinfo text in[0..len). */
void view_mounts_format(const char *in, size_t len, struct ucg_buf *out);

#endif
