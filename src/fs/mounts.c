/* fs/mounts.c — the mount table. Each mount point has its FUSE session, served by
 * the mount's own thread, which also takes the mount down when the kernel unmounts
 * it; a remount changes the hierarchy's options and tells the mounts' kernels of the
 * root's entries that changed; `ucg ctl mounts` lists the table.
 */
#include "fs/daemon_impl.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/deadconn.h"
#include "fs/fcache.h"
#include "fs/guard.h"
#include "fs/uring.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

static void *mnt_thread(void *arg)
{
	struct mnt *m = arg, **pp;
	struct daemon *d = m->d;

	/* Returns when the connection ends, its ring threads joined: no request is
	 * served on m after this. */
	ucgfs_uring_loop(m->uring, m->se);
	pthread_mutex_lock(&d->lock);
	m->ended = 1; /* the session's fd is closed below */
	pthread_mutex_unlock(&d->lock);
	fuse_session_unmount(m->se);
	ucgfs_guard_tell(d->guard_fd, m->conn, NULL);
	pthread_mutex_lock(&d->lock);
	for (pp = &d->mounts; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	ucgfs_journal_mount(d, m->h, m->name, m->dir, 'u', 0); /* before its hierarchy's x */
	ucg_umount(d->e, m->h);
	ucgfs_stop_notifier(m);
	pthread_mutex_unlock(&d->lock);
	pthread_join(m->notifier, NULL); /* it may be sending to this session */
	pthread_cond_destroy(&m->note_cond);
	ucgfs_uring_free(m->uring);
	fuse_session_destroy(m->se);
	ucgfs_fcache_fini(&m->files);
	ucg_free(m->name);
	ucg_free(m->dir);
	ucg_free(m);
	return NULL;
}
/* "ucgfs/N" serve connection N (with io_uring, one thread a CPU more), "ucgnote/N"
 * sends its notes: in ps -T, top -H and
 * /proc/PID/task/TID/comm, which thread is stuck on which mount. */
static void name_threads(struct mnt *m)
{
	char name[32];

	if (!m->conn)
		return;
	snprintf(name, sizeof(name), "ucgfs/%u", m->conn);
	name[15] = '\0'; /* the kernel keeps 15 bytes */
	pthread_setname_np(m->thread, name);
	ucgfs_uring_name_threads(m->uring, name); /* they serve it too */
	snprintf(name, sizeof(name), "ucgnote/%u", m->conn);
	name[15] = '\0';
	pthread_setname_np(m->notifier, name);
}
static struct mnt *find_mnt(struct daemon *d, const char *dir)
{
	struct mnt *m, *found = NULL;

	for (m = d->mounts; m; m = m->next)
		if (!strcmp(m->dir, dir))
			found = m; /* the last one mounted there is on top */
	return found;
}

/* Stale FUSE mounts of a dead daemon answer ENOTCONN: detach them. statfs, not stat:
 * the kernel may still answer stat from attributes it cached. */
static int is_stale(const char *dir)
{
	struct statfs sfs;

	return statfs(dir, &sfs) < 0 && errno == ENOTCONN;
}
static void clear_stale(const char *dir)
{
	int i;

	for (i = 0; i < 64 && is_stale(dir); i++)
		if (umount2(dir, MNT_DETACH) < 0)
			break;
}

#ifndef MOVE_MOUNT_BENEATH
#define MOVE_MOUNT_BENEATH 0x00000200 /* Linux 6.5 */
#endif
/* Replaces the dead mount on top of dir by a new FUSE mount without a moment in
 * between: the new one goes beneath the dead one (MOVE_MOUNT_BENEATH, Linux 6.5),
 * then the dead one is detached. Detaching first would show the directory under
 * the mount, empty, until the new mount is made (docs/filesystem.md, "Restart").
 * Returns the new connection's /dev/fuse fd (for libfuse as "/dev/fd/N"), or
 * -errno with nothing changed: the caller then detaches and mounts as usual. */
static int mount_beneath(const char *dir, const char *fsname)
{
	int fd, fsfd = -1, mfd = -1, r;
	char num[32];

	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fsfd = fsopen("fuse", FSOPEN_CLOEXEC);
	if (fsfd < 0)
		goto fail;
	snprintf(num, sizeof(num), "%d", fd);
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "fd", num, 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_SET_STRING, "rootmode", "40000", 0) < 0)
		goto fail;
	snprintf(num, sizeof(num), "%u", (unsigned)getuid());
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "user_id", num, 0) < 0)
		goto fail;
	snprintf(num, sizeof(num), "%u", (unsigned)getgid());
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "group_id", num, 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_SET_FLAG, "allow_other", NULL, 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_SET_STRING, "source", fsname, 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_SET_STRING, "subtype", "cgroup", 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto fail;
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mfd < 0)
		goto fail;
	if (move_mount(mfd, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_BENEATH) < 0)
		goto fail;
	/* the dead mount is on top: take it away; the new one answers from now on (a
	 * request before the daemon reads INIT waits for it) */
	umount2(dir, MNT_DETACH);
	close(mfd);
	close(fsfd);
	return fd;
fail:
	r = -errno;
	if (mfd >= 0)
		close(mfd);
	if (fsfd >= 0)
		close(fsfd);
	close(fd);
	return r;
}

int ucgfs_mount(struct daemon *d, const char *name, const char *dir, const char *opts,
		struct ucg_buf *out)
{
	struct ucg_hierarchy *h = NULL;
	struct ucg_err err = { { 0 } };
	struct mnt *m = NULL, *top;
	struct stat st;
	char mopts[512], fsname[128], devfd[32] = "";
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	sigset_t all, old;
	size_t i;
	int r, stale;

	if (dir[0] != '/')
		return -EINVAL;
	/* a dead daemon's mount there: replaced when the session is mounted */
	stale = !d->sandbox && is_stale(dir);
	if (!d->sandbox && !stale) {
		if (stat(dir, &st) < 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	pthread_mutex_lock(&d->lock);
	r = ucg_mount(d->e, opts, &h, &err);
	if (r < 0) {
		pthread_mutex_unlock(&d->lock);
		ucg_buf_puts(out, err.msg);
		return r;
	}
	top = find_mnt(d, dir);
	pthread_mutex_unlock(&d->lock);
	if (top && top->h == h) {
		r = -EBUSY; /* the same superblock is already the top mount there */
		goto fail;
	}
	if (d->sandbox) {
		r = 0; /* the engine's part only: dropped as a failed mount drops it */
		goto fail;
	}
	m = ucg_calloc(1, sizeof(*m));
	if (!m || !(m->name = ucg_strdup(name)) || !(m->dir = ucg_strdup(dir))) {
		r = -ENOMEM;
		goto fail;
	}
	m->d = d;
	m->h = h;
	ucgfs_fcache_init(&m->files);
	{
		struct ucg_cred root = ucg_cred_root();
		struct ucg_stat rs;

		pthread_mutex_lock(&d->lock);
		r = ucg_fs_getattr(d->e, h, "/", &root, &rs);
		pthread_mutex_unlock(&d->lock);
		if (r < 0)
			goto fail;
		m->root_ino = rs.ino;
	}
	clock_gettime(CLOCK_REALTIME, &m->time);
	snprintf(fsname, sizeof(fsname), "%s", name);
	for (i = 0; fsname[i]; i++)
		if (fsname[i] == ',' || fsname[i] == '\\' || fsname[i] == ' ')
			fsname[i] = '_';
	snprintf(mopts, sizeof(mopts), "allow_other,fsname=%s,subtype=cgroup", fsname);
	if (fuse_opt_add_arg(&args, "ucg") || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, mopts)) {
		r = -ENOMEM;
		goto fail;
	}
	m->se = fuse_session_new(&args, &ucgfs_ll_ops, sizeof(ucgfs_ll_ops), m);
	fuse_opt_free_args(&args);
	if (!m->se) {
		r = -EINVAL;
		goto fail;
	}
	if (stale) {
		int fd = mount_beneath(dir, fsname);

		if (fd >= 0)
			snprintf(devfd, sizeof(devfd), "/dev/fd/%d", fd);
		else
			clear_stale(dir);
	}
	errno = 0;
	if (fuse_session_mount(m->se, devfd[0] ? devfd : dir) != 0) {
		r = errno ? -errno : -EIO;
		fuse_session_destroy(m->se);
		goto fail;
	}
	/* Read from mountinfo, not the mount: nobody serves it yet. */
	m->conn = ucgfs_conn_at(dir);
	m->notes_tail = &m->notes;
	pthread_cond_init(&m->note_cond, NULL);
	/* Mount threads take no signals: the main thread's signalfd gets them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* FUSE over io_uring when the kernel offers it (docs/filesystem.md, "Latency"). */
	ucgfs_uring_new(m->se, dir, &m->uring);
	r = pthread_create(&m->notifier, NULL, ucgfs_notifier_thread, m);
	if (r == 0) {
		pthread_mutex_lock(&d->lock);
		m->next = d->mounts;
		d->mounts = m;
		/* the restore's are in the snapshot already, with the dead connection */
		ucgfs_journal_mount(d, h, name, dir, d->remounting ? 'c' : 'm', m->conn);
		pthread_mutex_unlock(&d->lock);
		ucgfs_guard_tell(d->guard_fd, m->conn, dir);
		r = pthread_create(&m->thread, NULL, mnt_thread, m);
		if (r == 0)
			name_threads(m);
		if (r != 0) {
			pthread_mutex_lock(&d->lock);
			d->mounts = m->next;
			ucgfs_stop_notifier(m);
			pthread_mutex_unlock(&d->lock);
			pthread_join(m->notifier, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		/* Nobody serves it: take it down the way the thread would. */
		umount2(dir, MNT_DETACH);
		ucgfs_guard_tell(d->guard_fd, m->conn, NULL);
		pthread_cond_destroy(&m->note_cond);
		ucgfs_uring_free(m->uring);
		fuse_session_destroy(m->se);
		r = -r;
		goto fail;
	}
	pthread_detach(m->thread);
	return 0;
fail:
	if (m) {
		ucg_free(m->name);
		ucg_free(m->dir);
		ucg_free(m);
	}
	pthread_mutex_lock(&d->lock);
	ucg_umount(d->e, h);
	pthread_mutex_unlock(&d->lock);
	return r;
}

static int mnt_alive(struct daemon *d, struct mnt *target)
{
	struct mnt *m;
	int alive = 0;

	pthread_mutex_lock(&d->lock);
	for (m = d->mounts; m; m = m->next)
		if (m == target)
			alive = 1;
	pthread_mutex_unlock(&d->lock);
	return alive;
}

static int wait_gone(struct daemon *d, struct mnt *m)
{
	int i;

	for (i = 0; i < 10000 && mnt_alive(d, m); i++)
		usleep(500);
	return mnt_alive(d, m) ? -ETIMEDOUT : 0;
}

int ucgfs_umount(struct daemon *d, const char *dir, int flags)
{
	struct mnt *m;

	pthread_mutex_lock(&d->lock);
	m = find_mnt(d, dir);
	pthread_mutex_unlock(&d->lock);
	if (!m)
		return -EINVAL; /* not one of our mount points, as umount(2) says */
	if (d->sandbox)
		return 0;
	if (umount2(dir, flags) < 0)
		return -errno;
	return wait_gone(d, m);
}

int ucgfs_remount(struct daemon *d, const char *dir, const char *opts, struct ucg_buf *out)
{
	struct ucg_err err = { { 0 } };
	struct ucg_buf before, after;
	struct mnt *m;
	int r;

	ucg_buf_init(&before);
	ucg_buf_init(&after);
	pthread_mutex_lock(&d->lock);
	m = find_mnt(d, dir);
	if (!m) {
		r = -EINVAL;
	} else {
		ucgfs_dir_listing(d, m->h, "/", &before);
		r = ucg_remount(d->e, m->h, opts, &err);
		if (r < 0) {
			ucg_buf_puts(out, err.msg);
		} else {
			/* The root's files were renumbered: every mount forgets them. */
			ucgfs_dir_listing(d, m->h, "/", &after);
			if (before.len != after.len ||
			    (before.len && memcmp(before.data, after.data, before.len)))
				ucgfs_queue_dir_entries(d, m->h, FUSE_ROOT_ID, &before, &after);
		}
	}
	ucgfs_unlock_checked(d);
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
	return r;
}

void ucgfs_list_mounts(struct daemon *d, struct ucg_buf *out)
{
	struct mnt *m;

	pthread_mutex_lock(&d->lock);
	for (m = d->mounts; m; m = m->next) {
		ucg_buf_printf(out, "%s %s ", m->name, m->dir);
		ucg_hierarchy_format_options(m->h, out);
		ucg_buf_putc(out, '\n');
	}
	pthread_mutex_unlock(&d->lock);
}

void ucgfs_unmount_all(struct daemon *d)
{
	for (;;) {
		struct mnt *m;
		char dir[4096];

		pthread_mutex_lock(&d->lock);
		m = d->mounts;
		if (m)
			snprintf(dir, sizeof(dir), "%s", m->dir);
		pthread_mutex_unlock(&d->lock);
		if (!m)
			break;
		if (umount2(dir, 0) < 0)
			umount2(dir, MNT_DETACH);
		if (wait_gone(d, m) < 0)
			break;
	}
}
