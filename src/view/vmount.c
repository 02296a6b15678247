/* view/vmount.c — `mount -t cgroup` inside the view, served by ucg (view/view.h).
 *
 * A mount(2) of type "cgroup" by a process of the view (in the view's own mount
 * namespace) does not reach the kernel: the daemon mounts the hierarchy the options
 * ask for at a directory of its runtime dir, outside the view, with the kernel's rules
 * (same options reuse the hierarchy, EBUSY for a controller bound elsewhere, named
 * hierarchies); the supervisor clones that mount (open_tree in the daemon's
 * namespace), moves the clone to the requested place in the view and answers the
 * call with 0 or the daemon's errno. The new hierarchy then shows in mountinfo and
 * statfs like the others. Remounts, binds and moves go to the kernel unchanged. When
 * the view ends, view_release detaches the clones and has the daemon unmount the
 * mounts it made for the view.
 */
#include "view/view.h"

#include "fs/ctl.h"
#include "view/mount_api.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A daemon request whose output does not matter. */
static int ctl(int argc, const char *const *argv)
{
	struct ucg_buf out;
	int r;

	ucg_buf_init(&out);
	r = ucgfs_ctl_request(argc, argv, &out);
	ucg_buf_fini(&out);
	return r;
}

/* Whether pid lives in the view's mount namespace (the one this process is in). */
static int in_view_ns(int pid)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	return stat(path, &a) == 0 && stat("/proc/self/ns/mnt", &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* A clone of the daemon's mount at dir, taken in the daemon's namespace. */
static int clone_outside(const struct view *v, const char *dir)
{
	long fd;
	int r = 0;

	if (setns(v->host_ns, CLONE_NEWNS) < 0)
		return -errno;
	fd = syscall(SYS_open_tree, AT_FDCWD, dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0)
		r = -errno;
	if (setns(v->view_ns, CLONE_NEWNS) < 0) {
		/* cannot happen with our own fds; the supervisor would be lost outside */
		_exit(127);
	}
	return r < 0 ? r : (int)fd;
}

/* The options the daemon shows for its mount at dir. */
static void daemon_opts(const char *dir, struct view_hier *h)
{
	struct ucg_buf out;
	const char *p, *end;

	ucg_buf_init(&out);
	if (ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &out) >= 0)
		for (p = out.data, end = out.data + out.len; p && p < end;) {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			struct view_hier t;

			if (!eol)
				eol = end;
			if (view_hier_parse(p, (size_t)(eol - p), &t) == 0 && !strcmp(t.dir, dir))
				memcpy(h->opts, t.opts, sizeof(h->opts));
			p = eol + 1;
		}
	ucg_buf_fini(&out);
}

int view_mount(void *ctx, int pid, const char *target, unsigned long flags, const char *data)
{
	struct view *v = ctx;
	struct view_hier *h;
	char dir[PATH_MAX];
	struct stat st;
	int fd, r;

	if (flags &
	    (MS_REMOUNT | MS_BIND | MS_MOVE | MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE))
		return 1;
	if (v->host_ns < 0 || !in_view_ns(pid))
		return 1;
	if (v->n == VIEW_MAX_HIER)
		return -ENOMEM;
	if (stat(target, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	r = ucgfs_ctl_path(dir, sizeof(dir), "");
	if (r < 0)
		return r;
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "view.%d.%d", (int)getpid(),
		 v->made);
	if (mkdir(dir, 0755) < 0)
		return -errno;
	r = ctl(4, (const char *const[]){ "mount", "cgroup", dir, data ? data : "" });
	if (r < 0) {
		rmdir(dir);
		return r;
	}
	fd = clone_outside(v, dir);
	if (fd < 0 ||
	    syscall(SYS_move_mount, fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		r = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		ctl(2, (const char *const[]){ "umount", dir });
		rmdir(dir);
		return r;
	}
	close(fd);
	/* the per-mount flags the caller asked for */
	mount(NULL, target, NULL,
	      MS_REMOUNT | MS_BIND |
		      (flags & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME |
				MS_NODIRATIME | MS_RELATIME)),
	      NULL);
	h = &v->hs[v->n];
	memset(h, 0, sizeof(*h));
	snprintf(h->dir, sizeof(h->dir), "%s", dir);
	snprintf(h->name, sizeof(h->name), "%s", target); /* where the view has it */
	if (stat(target, &st) == 0) {
		h->major = major(st.st_dev);
		h->minor = minor(st.st_dev);
	}
	daemon_opts(dir, h);
	v->made_mask |= 1ull << v->n;
	v->n++;
	v->made++;
	return 0;
}

void view_release(struct view *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (!(v->made_mask & (1ull << i)))
			continue;
		/* the view's clone first: while it lives the daemon's filesystem does */
		umount2(v->hs[i].name, MNT_DETACH);
		ctl(2, (const char *const[]){ "umount", v->hs[i].dir });
		rmdir(v->hs[i].dir);
	}
	v->made_mask = 0;
}
