/* fs/daemon.c — the filesystem daemon (see daemon.h).
 *
 * Threads: the main thread polls the control socket, the process-events connector,
 * an eventfd rung by the engine when a release notification is queued, and a
 * signalfd (SIGTERM/SIGINT to stop, SIGCHLD to reap release agents). Each mount has
 * one thread running its FUSE session. Every engine call is made with d->lock held;
 * the engine's sync callback drains the connector under that same lock, so a task
 * forked just before a write to cgroup.procs is known when the write is resolved.
 *
 * The FUSE layer is the high-level libfuse API: the engine's file API is path based,
 * so paths map one to one. Mounted with allow_other and without default_permissions:
 * the engine checks permissions with the caller's credentials, read from
 * /proc/TID/status of the thread FUSE names. direct_io and zero cache timeouts, so
 * each read and write(2) reaches the engine and every mount of one hierarchy sees
 * the same live tree.
 */
#define FUSE_USE_VERSION 35

#include "fs/daemon.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/ctl.h"
#include "fs/state.h"
#include "host/enforce.h"
#include "host/host.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS UCG_HOST_MAX_GROUPS

struct daemon;

/* One mount point. Owned by d->mounts (under d->lock) until its thread ends. */
struct mnt {
	struct mnt *next;
	struct daemon *d;
	struct ucg_hierarchy *h;
	char *name, *dir;
	struct fuse *fuse;
	struct fuse_config *cfg; /* the session's config; only its own thread touches it */
	pthread_t thread;
	struct timespec time; /* shown as every file's atime/mtime/ctime */
};

struct daemon {
	pthread_mutex_t lock; /* protects e, host, mounts, dirty */
	struct ucg_engine *e;
	struct ucg_host *host;
	struct ucg_enforce *enforce;
	struct mnt *mounts;
	int listen_fd, sig_fd, wake_fd;
	int stop;
	int dirty; /* the tree changed since the state file was written */
	int restoring;
};

/* ---- callers ----------------------------------------------------------------------- */

struct caller {
	struct ucg_cred cred;
	uint32_t groups[MAX_GROUPS];
};

static struct mnt *cur_mnt(void)
{
	return fuse_get_context()->private_data;
}

static const struct ucg_cred *get_caller(struct caller *c)
{
	struct fuse_context *ctx = fuse_get_context();
	struct daemon *d = ((struct mnt *)ctx->private_data)->d;
	int r;

	/* Apply queued uid/gid/exec events first: they invalidate cached callers. */
	pthread_mutex_lock(&d->lock);
	ucg_host_drain(d->host, d->e);
	r = ucg_host_caller_cred(d->host, ctx->pid, &c->cred, c->groups);
	pthread_mutex_unlock(&d->lock);
	if (r < 0) {
		/* The caller is gone already: FUSE's fsuid/fsgid, no capabilities. */
		c->cred = ucg_cred_user(ctx->uid, ctx->gid);
		c->cred.tid = c->cred.tgid = ctx->pid;
	}
	return &c->cred;
}

#define ENGINE_CALL(m, expr)                                                           \
	({                                                                             \
		int r_;                                                                \
		pthread_mutex_lock(&(m)->d->lock);                                     \
		r_ = (expr);                                                           \
		pthread_mutex_unlock(&(m)->d->lock);                                   \
		r_;                                                                    \
	})

static int mark_dirty(struct mnt *m, int r)
{
	if (r >= 0) {
		pthread_mutex_lock(&m->d->lock);
		m->d->dirty = 1;
		pthread_mutex_unlock(&m->d->lock);
	}
	return r;
}

/* ---- the operation table ------------------------------------------------------------ */

static void fill_stat(const struct mnt *m, const struct ucg_stat *s, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = s->ino;
	st->st_mode = s->mode;
	st->st_nlink = s->nlink;
	st->st_uid = s->uid;
	st->st_gid = s->gid;
	st->st_blksize = 4096;
	st->st_atim = st->st_mtim = st->st_ctim = m->time;
}

/* Kernel caching of entries and attributes. Every change to what a mount shows is
 * made through that mount (the kernel updates its own cache) unless the hierarchy is
 * mounted more than once; then changes through one mount would leave the others'
 * caches stale, so caching is off while a hierarchy has several mounts. Called in
 * the mount's own thread, before a reply that the kernel caches. */
#define CACHE_TIMEOUT_S 1.0

static void tune_cache(struct mnt *m, int mounts)
{
	double t = mounts == 1 ? CACHE_TIMEOUT_S : 0;

	if (m->cfg && m->cfg->entry_timeout != t) {
		m->cfg->entry_timeout = t;
		m->cfg->attr_timeout = t;
	}
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	struct mnt *m = fuse_get_context()->private_data;

	m->cfg = cfg;
	cfg->use_ino = 1;
	cfg->direct_io = 1;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->kernel_cache = 0;
	cfg->nullpath_ok = 1; /* read/write/release/fstat work through the handle */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* No FUSE_CAP_DONT_MASK: mkdir's mode arrives with the umask applied. */
	conn->want &= ~FUSE_CAP_DONT_MASK;
	return fuse_get_context()->private_data;
}

/* An open file: the engine's handle and the attributes it had when opened (fstat of
 * a file whose cgroup was removed still works, core.md §3.5). */
struct fh {
	struct ucg_file *f;
	struct ucg_stat st;
};

static struct fh *fh_of(const struct fuse_file_info *fi)
{
	return (struct fh *)(uintptr_t)fi->fh;
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	struct ucg_stat s;
	const struct ucg_cred *cred;
	int r, mounts;

	if (!path) {
		if (!fi)
			return -ESTALE;
		fill_stat(m, &fh_of(fi)->st, st);
		return 0;
	}
	cred = get_caller(&c);
	pthread_mutex_lock(&m->d->lock);
	r = ucg_fs_getattr(m->d->e, m->h, path, cred, &s);
	mounts = ucg_hierarchy_mount_count(m->h);
	pthread_mutex_unlock(&m->d->lock);
	if (r < 0)
		return r;
	tune_cache(m, mounts);
	fill_stat(m, &s, st);
	return 0;
}

struct dir_ctx {
	struct mnt *m;
	void *buf;
	fuse_fill_dir_t filler;
};

static int dir_fill(void *ctx, const char *name, const struct ucg_stat *s)
{
	struct dir_ctx *dc = ctx;
	struct stat st;

	fill_stat(dc->m, s, &st);
	return dc->filler(dc->buf, name, &st, 0, 0);
}

/* nullpath_ok hands readdir no path: keep the one opendir saw. */
static int op_opendir(const char *path, struct fuse_file_info *fi)
{
	char *p = ucg_strdup(path);

	if (!p)
		return -ENOMEM;
	fi->fh = (uint64_t)(uintptr_t)p;
	return 0;
}

static int op_releasedir(const char *path, struct fuse_file_info *fi)
{
	ucg_free((char *)(uintptr_t)fi->fh);
	return 0;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct mnt *m = cur_mnt();

	if (!path)
		path = (const char *)(uintptr_t)fi->fh;
	struct caller c;
	struct dir_ctx dc = { m, buf, filler };
	const struct ucg_cred *cred = get_caller(&c);

	return ENGINE_CALL(m, ucg_fs_readdir(m->d->e, m->h, path, cred, dir_fill, &dc));
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	struct fh *h = ucg_calloc(1, sizeof(*h));
	const struct ucg_cred *cred = get_caller(&c);
	int flags = fi->flags & (O_ACCMODE | O_TRUNC | O_APPEND | O_CREAT | O_EXCL);
	int r;

	if (!h)
		return -ENOMEM;
	pthread_mutex_lock(&m->d->lock);
	r = ucg_fs_open(m->d->e, m->h, path, flags, cred, &h->f);
	if (r == 0 && ucg_fs_getattr(m->d->e, m->h, path, cred, &h->st) < 0)
		memset(&h->st, 0, sizeof(h->st));
	pthread_mutex_unlock(&m->d->lock);
	if (r < 0) {
		ucg_free(h);
		return r;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int op_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct ucg_file *f = fh_of(fi)->f;

	return ENGINE_CALL(m, (int)ucg_fs_read(f, buf, size, off));
}

static int op_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct ucg_file *f = fh_of(fi)->f;

	return mark_dirty(m, ENGINE_CALL(m, (int)ucg_fs_write(f, buf, size)));
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct fh *h = fh_of(fi);

	pthread_mutex_lock(&m->d->lock);
	ucg_fs_release(h->f);
	pthread_mutex_unlock(&m->d->lock);
	ucg_free(h);
	return 0;
}

static int op_mkdir(const char *path, mode_t mode)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	const struct ucg_cred *cred = get_caller(&c);

	return mark_dirty(m, ENGINE_CALL(m, ucg_fs_mkdir(m->d->e, m->h, path, mode & 07777, cred)));
}

static int op_rmdir(const char *path)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	const struct ucg_cred *cred = get_caller(&c);

	return mark_dirty(m, ENGINE_CALL(m, ucg_fs_rmdir(m->d->e, m->h, path, cred)));
}

static int op_rename(const char *from, const char *to, unsigned int flags)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	const struct ucg_cred *cred = get_caller(&c);

	if (flags & RENAME_EXCHANGE)
		return -EINVAL;
	return mark_dirty(m, ENGINE_CALL(m, ucg_fs_rename(m->d->e, m->h, from, to, cred)));
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	const struct ucg_cred *cred;

	if (!path) /* only with a handle (nullpath_ok); the kernel sends none for fchmod */
		return -ESTALE;
	cred = get_caller(&c);

	return mark_dirty(m, ENGINE_CALL(m, ucg_fs_chmod(m->d->e, m->h, path, mode & 07777, cred)));
}

static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	const struct ucg_cred *cred;

	if (!path)
		return -ESTALE;
	cred = get_caller(&c);

	return mark_dirty(m, ENGINE_CALL(m, ucg_fs_chown(m->d->e, m->h, path, (uint32_t)uid,
							  (uint32_t)gid, cred)));
}

/* truncate and utimens succeed on existing entries and change nothing (core.md §3.4). */
static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct stat st;

	return op_getattr(path, &st, fi);
}

static int op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct stat st;

	return op_getattr(path, &st, fi);
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	const struct ucg_cred *cred = get_caller(&c);

	return ENGINE_CALL(m, ucg_fs_create(m->d->e, m->h, path, cred));
}

static int op_unlink(const char *path)
{
	struct mnt *m = cur_mnt();
	struct caller c;
	const struct ucg_cred *cred = get_caller(&c);

	return ENGINE_CALL(m, ucg_fs_unlink(m->d->e, m->h, path, cred));
}

static int op_mknod(const char *path, mode_t mode, dev_t dev)
{
	return -EPERM;
}

static int op_symlink(const char *target, const char *path)
{
	return -EPERM;
}

static int op_link(const char *from, const char *to)
{
	return -EPERM;
}

/* access(2) and chdir: the VFS's generic permission rule on the engine's modes. */
static int op_access(const char *path, int mask)
{
	struct stat st;
	struct caller c;
	const struct ucg_cred *cred;
	unsigned bits;
	size_t i;
	int r = op_getattr(path, &st, NULL);

	if (r < 0 || mask == F_OK)
		return r;
	cred = get_caller(&c);
	if (cred->fsuid == 0 || (cred->caps & UCG_CAP_DAC_OVERRIDE)) {
		if ((mask & X_OK) && !S_ISDIR(st.st_mode) && !(st.st_mode & 0111))
			return -EACCES;
		return 0;
	}
	if (st.st_uid == cred->fsuid) {
		bits = (st.st_mode >> 6) & 7;
	} else {
		int in_group = st.st_gid == cred->fsgid;

		for (i = 0; i < cred->ngroups && !in_group; i++)
			in_group = cred->groups[i] == st.st_gid;
		bits = in_group ? (st.st_mode >> 3) & 7 : st.st_mode & 7;
	}
	return ((unsigned)mask & ~bits) ? -EACCES : 0;
}

static const struct fuse_operations ops = {
	.init = op_init,
	.getattr = op_getattr,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_releasedir,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.release = op_release,
	.mkdir = op_mkdir,
	.rmdir = op_rmdir,
	.rename = op_rename,
	.chmod = op_chmod,
	.chown = op_chown,
	.truncate = op_truncate,
	.utimens = op_utimens,
	.create = op_create,
	.unlink = op_unlink,
	.mknod = op_mknod,
	.symlink = op_symlink,
	.link = op_link,
	.access = op_access,
};

/* ---- mounts ------------------------------------------------------------------------- */

static void *mnt_thread(void *arg)
{
	struct mnt *m = arg, **pp;
	struct daemon *d = m->d;

	fuse_loop(m->fuse);
	fuse_unmount(m->fuse);
	pthread_mutex_lock(&d->lock);
	for (pp = &d->mounts; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	ucg_umount(d->e, m->h);
	d->dirty = 1;
	pthread_mutex_unlock(&d->lock);
	fuse_destroy(m->fuse);
	ucg_free(m->name);
	ucg_free(m->dir);
	ucg_free(m);
	return NULL;
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
static void clear_stale(const char *dir)
{
	struct statfs sfs;
	int i;

	for (i = 0; i < 64 && statfs(dir, &sfs) < 0 && errno == ENOTCONN; i++)
		if (umount2(dir, MNT_DETACH) < 0)
			break;
}

static int do_mount(struct daemon *d, const char *name, const char *dir, const char *opts,
		    struct ucg_buf *out)
{
	struct ucg_hierarchy *h = NULL;
	struct ucg_err err = { { 0 } };
	struct mnt *m = NULL, *top;
	struct stat st;
	char mopts[512], fsname[128];
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	sigset_t all, old;
	size_t i;
	int r;

	if (dir[0] != '/')
		return -EINVAL;
	clear_stale(dir);
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
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
	m = ucg_calloc(1, sizeof(*m));
	if (!m || !(m->name = ucg_strdup(name)) || !(m->dir = ucg_strdup(dir))) {
		r = -ENOMEM;
		goto fail;
	}
	m->d = d;
	m->h = h;
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
	m->fuse = fuse_new(&args, &ops, sizeof(ops), m);
	fuse_opt_free_args(&args);
	if (!m->fuse) {
		r = -EINVAL;
		goto fail;
	}
	if (fuse_mount(m->fuse, dir) != 0) {
		r = errno ? -errno : -EIO;
		fuse_destroy(m->fuse);
		goto fail;
	}
	pthread_mutex_lock(&d->lock);
	m->next = d->mounts;
	d->mounts = m;
	d->dirty = 1;
	pthread_mutex_unlock(&d->lock);
	/* Mount threads take no signals: the main thread's signalfd gets them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&m->thread, NULL, mnt_thread, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		/* Nobody serves it: take it down the way the thread would. */
		umount2(dir, MNT_DETACH);
		pthread_mutex_lock(&d->lock);
		d->mounts = m->next;
		pthread_mutex_unlock(&d->lock);
		fuse_destroy(m->fuse);
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

static int do_umount(struct daemon *d, const char *dir, int flags)
{
	struct mnt *m;

	pthread_mutex_lock(&d->lock);
	m = find_mnt(d, dir);
	pthread_mutex_unlock(&d->lock);
	if (!m)
		return -EINVAL; /* not one of our mount points, as umount(2) says */
	if (umount2(dir, flags) < 0)
		return -errno;
	return wait_gone(d, m);
}

static int do_remount(struct daemon *d, const char *dir, const char *opts, struct ucg_buf *out)
{
	struct ucg_err err = { { 0 } };
	struct mnt *m;
	int r;

	pthread_mutex_lock(&d->lock);
	m = find_mnt(d, dir);
	if (!m) {
		r = -EINVAL;
	} else {
		r = ucg_remount(d->e, m->h, opts, &err);
		if (r < 0)
			ucg_buf_puts(out, err.msg);
		else
			d->dirty = 1;
	}
	pthread_mutex_unlock(&d->lock);
	return r;
}

static void list_mounts(struct daemon *d, struct ucg_buf *out)
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

/* ---- release agents ----------------------------------------------------------------- */

/* As the kernel runs it: argv [agent, path], cwd /, HOME and PATH only, fds 0-2
 * closed, root's credentials (ours), in a session of its own; not waited for. */
static pid_t spawn_agent(const struct ucg_release *rel)
{
	static char *const envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	char *argv[] = { rel->agent, rel->path, NULL };
	struct sigaction sa;
	sigset_t none;
	pid_t pid;
	int sig;

	if (strlen(rel->path) >= 4096 || !rel->agent[0])
		return -1;
	pid = fork();
	if (pid != 0)
		return pid;
	sigemptyset(&none);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (chdir("/") < 0)
		_exit(127);
	syscall(SYS_close_range, 0u, ~0u, 0u);
	execve(rel->agent, argv, envp);
	_exit(127);
}

/* The kernel starts agents in the root cgroup of every hierarchy; ours would start in
 * the daemon's cgroups. */
static void agent_to_roots(struct daemon *d, pid_t pid)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_hierarchy *h = NULL;
	char s[32];

	snprintf(s, sizeof(s), "%d", (int)pid);
	pthread_mutex_lock(&d->lock);
	while ((h = ucg_hierarchy_next(d->e, h)))
		ucg_fs_write_all(d->e, h, "/cgroup.procs", &root, s, strlen(s));
	pthread_mutex_unlock(&d->lock);
}

static void run_releases(struct daemon *d)
{
	struct ucg_release rel[16];
	int n, i;

	do {
		pthread_mutex_lock(&d->lock);
		for (n = 0; n < 16 && ucg_release_next(d->e, &rel[n]) == 1; n++)
			;
		pthread_mutex_unlock(&d->lock);
		for (i = 0; i < n; i++) {
			pid_t pid = spawn_agent(&rel[i]);

			if (pid > 0)
				agent_to_roots(d, pid);
			ucg_release_fini(&rel[i]);
		}
	} while (n == 16);
}

/* ---- provider glue ------------------------------------------------------------------- */

static void prov_sync(void *ctx, struct ucg_engine *e)
{
	struct daemon *d = ctx;

	ucg_host_drain(d->host, e);
}

static void prov_release_queued(void *ctx, struct ucg_engine *e)
{
	struct daemon *d = ctx;
	uint64_t one = 1;

	if (write(d->wake_fd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: a wake-up is pending anyway */
	}
}

static void prov_freeze_task(void *ctx, struct ucg_engine *e, int tid, int freeze)
{
	struct daemon *d = ctx;

	ucg_enforce_freeze(d->enforce, e, tid, freeze);
	prov_release_queued(ctx, e); /* wake the main loop: it confirms the stop */
}

static void prov_cpus_changed(void *ctx, struct ucg_engine *e, int tid, const unsigned char *mask,
			      size_t nbytes)
{
	ucg_enforce_cpus(e, tid, mask, nbytes);
}

static const struct ucg_provider_ops prov_ops = {
	.sync = prov_sync,
	.release_queued = prov_release_queued,
	.cpus_changed = prov_cpus_changed,
	.freeze_task = prov_freeze_task,
};

/* ---- control requests ------------------------------------------------------------------ */

static void handle_request(struct daemon *d, int fd)
{
	char req[16384], *argv[8], *p;
	size_t len = 0;
	struct ucg_buf out;
	char head[32];
	int argc = 0, r = -EINVAL;
	struct timeval tv = { 2, 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (;;) {
		ssize_t n = read(fd, req + len, sizeof(req) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(req) - 1)
			break;
	}
	req[len] = '\0';
	for (p = req; p < req + len && argc < 8; p += strlen(p) + 1)
		argv[argc++] = p;
	ucg_buf_init(&out);
	if (argc < 1)
		goto reply;
	if (!strcmp(argv[0], "ping")) {
		r = (int)getpid();
	} else if (!strcmp(argv[0], "mount") && argc == 4) {
		r = do_mount(d, argv[1], argv[2], argv[3], &out);
	} else if (!strcmp(argv[0], "remount") && argc == 3) {
		r = do_remount(d, argv[1], argv[2], &out);
	} else if (!strcmp(argv[0], "umount") && argc >= 2) {
		r = do_umount(d, argv[1], argc > 2 ? atoi(argv[2]) : 0);
	} else if (!strcmp(argv[0], "proc") && argc >= 2) {
		pthread_mutex_lock(&d->lock);
		ucg_host_drain(d->host, d->e);
		r = ucg_proc_cgroup(d->e, atoi(argv[1]), argc > 2 ? atoi(argv[2]) : 0, &out);
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(argv[0], "cgroups")) {
		pthread_mutex_lock(&d->lock);
		r = ucg_proc_cgroups(d->e, &out);
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(argv[0], "mounts")) {
		list_mounts(d, &out);
		r = 0;
	} else if (!strcmp(argv[0], "stats")) {
		struct ucg_host_stats s;

		pthread_mutex_lock(&d->lock);
		ucg_host_drain(d->host, d->e);
		ucg_host_get_stats(d->host, &s);
		ucg_buf_printf(&out, "forks %llu\nexits %llu\nevents %llu\nresyncs %llu\ntasks %zu\n",
			       (unsigned long long)s.forks, (unsigned long long)s.exits,
			       (unsigned long long)s.events, (unsigned long long)s.resyncs,
			       ucg_task_count(d->e));
		pthread_mutex_unlock(&d->lock);
		r = 0;
	} else if (!strcmp(argv[0], "stop")) {
		d->stop = 1;
		r = 0;
	}
reply:
	snprintf(head, sizeof(head), "%d\n", r);
	if (write(fd, head, strlen(head)) >= 0 && out.len)
		if (write(fd, out.data, out.len) < 0) {
			/* the client went away */
		}
	ucg_buf_fini(&out);
}

/* ---- setup and the main loop ----------------------------------------------------------- */

static int listen_socket(int *ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	r = ucg_ctl_path(sa.sun_path, sizeof(sa.sun_path), "ctl.sock");
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* One daemon per runtime directory: a live socket means one runs already. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return -EADDRINUSE;
	}
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	chmod(sa.sun_path, 0600);
	*ret = fd;
	return 0;
}

static void unmount_all(struct daemon *d)
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

static void save_state(struct daemon *d)
{
	struct ucg_state_mount ms[256];
	struct mnt *m;
	int n = 0;

	pthread_mutex_lock(&d->lock);
	if (d->dirty && !d->restoring) {
		for (m = d->mounts; m && n < 256; m = m->next, n++) {
			ms[n].name = m->name;
			ms[n].dir = m->dir;
			ms[n].h = m->h;
		}
		ucg_state_save(d->e, ms, n);
		d->dirty = 0;
	}
	pthread_mutex_unlock(&d->lock);
}

static int restore_mount(void *ctx, const char *name, const char *dir, const char *opts)
{
	struct daemon *d = ctx;
	struct ucg_buf out;
	int r;

	ucg_buf_init(&out);
	r = do_mount(d, name, dir, opts, &out);
	ucg_buf_fini(&out);
	return r;
}

int ucg_daemon_run(int ready_fd)
{
	struct ucg_engine_config cfg = { 0 };
	struct daemon d;
	struct timespec now;
	long long next_reap_ms = 0, next_save_ms = 0, next_cpu_ms = 0;
	int freezing = 0;
	sigset_t mask;
	int r;

	memset(&d, 0, sizeof(d));
	pthread_mutex_init(&d.lock, NULL);
	d.listen_fd = d.sig_fd = d.wake_fd = -1;
	mkdir(ucg_ctl_runtime_dir(), 0755);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	d.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	d.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d.sig_fd < 0 || d.wake_fd < 0) {
		r = -errno;
		goto out;
	}
	r = ucg_host_new(&d.host);
	if (r < 0)
		goto out;
	r = ucg_enforce_new(&d.enforce);
	if (r < 0)
		goto out;
	cfg.provider = &prov_ops;
	cfg.provider_ctx = &d;
	cfg.nr_cpus = (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	cfg.nr_mems = 1;
	r = ucg_engine_new(&cfg, &d.e);
	if (r < 0)
		goto out;
	r = ucg_host_populate(d.host, d.e);
	if (r < 0)
		goto out;
	r = listen_socket(&d.listen_fd);
	if (r < 0)
		goto out;
	d.restoring = 1;
	ucg_state_restore(d.e, restore_mount, &d, &d.lock);
	pthread_mutex_lock(&d.lock);
	d.restoring = 0;
	d.dirty = 1;
	pthread_mutex_unlock(&d.lock);
	if (ready_fd >= 0) {
		if (write(ready_fd, "", 1) < 0) {
			/* the starter gave up waiting */
		}
		close(ready_fd);
	}
	while (!d.stop) {
		struct pollfd pfd[4] = {
			{ d.listen_fd, POLLIN, 0 },
			{ d.sig_fd, POLLIN, 0 },
			{ d.wake_fd, POLLIN, 0 },
			{ ucg_host_fd(d.host), POLLIN, 0 },
		};
		int n = poll(pfd, 4, freezing ? 10 : 100);

		if (n < 0 && errno != EINTR)
			break;
		if (pfd[3].revents) {
			pthread_mutex_lock(&d.lock);
			ucg_host_drain(d.host, d.e);
			pthread_mutex_unlock(&d.lock);
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;

			while (read(d.sig_fd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT ||
				    si.ssi_signo == SIGHUP)
					d.stop = 1;
		}
		if (pfd[2].revents) {
			uint64_t v;

			if (read(d.wake_fd, &v, sizeof(v)) < 0) {
				/* nothing pending */
			}
		}
		run_releases(&d);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (pfd[0].revents) {
			int c = accept4(d.listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0) {
				handle_request(&d, c);
				close(c);
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		pthread_mutex_lock(&d.lock);
		freezing = ucg_enforce_poll(d.enforce, d.e);
		pthread_mutex_unlock(&d.lock);
		if (now.tv_sec * 1000 + now.tv_nsec / 1000000 >= next_cpu_ms) {
			pthread_mutex_lock(&d.lock);
			ucg_host_sample_cpu(d.host, d.e);
			pthread_mutex_unlock(&d.lock);
			next_cpu_ms = now.tv_sec * 1000 + now.tv_nsec / 1000000 + 1000;
		}
		if (now.tv_sec * 1000 + now.tv_nsec / 1000000 >= next_reap_ms) {
			pthread_mutex_lock(&d.lock);
			ucg_host_reap_check(d.host, d.e);
			pthread_mutex_unlock(&d.lock);
			next_reap_ms = now.tv_sec * 1000 + now.tv_nsec / 1000000 + 100;
		}
		if (now.tv_sec * 1000 + now.tv_nsec / 1000000 >= next_save_ms) {
			save_state(&d);
			next_save_ms = now.tv_sec * 1000 + now.tv_nsec / 1000000 + 200;
		}
	}
	/* A clean stop keeps the state file as it was with every mount in place. */
	save_state(&d);
	pthread_mutex_lock(&d.lock);
	d.restoring = 1;
	pthread_mutex_unlock(&d.lock);
	unmount_all(&d);
	r = 0;
out:
	if (d.listen_fd >= 0) {
		char path[108];

		if (ucg_ctl_path(path, sizeof(path), "ctl.sock") == 0)
			unlink(path);
		close(d.listen_fd);
	}
	if (d.e)
		ucg_engine_free(d.e);
	ucg_host_free(d.host);
	ucg_enforce_free(d.enforce);
	if (d.sig_fd >= 0)
		close(d.sig_fd);
	if (d.wake_fd >= 0)
		close(d.wake_fd);
	if (ready_fd >= 0 && r < 0) {
		char c = (char)(-r);

		if (write(ready_fd, &c, 1) < 0) {
			/* nobody to tell */
		}
		close(ready_fd);
	}
	return r;
}
