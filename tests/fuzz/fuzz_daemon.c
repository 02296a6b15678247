/* tests/fuzz/fuzz_daemon.c — the in-process daemon of fuzz_daemon.h. */
#include "fuzz_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/alloc.h"
#include "engine/ucg.h"
#include "fs/fcache.h"

/* The request being served on this thread, whose reply writev captures. */
static __thread struct capture {
	uint64_t unique;
	struct ucg_fuzzd_reply *rep;
} * cur;

/* libfuse says "bad error value" when a handler replies with a positive errno or one
 * past 999 (it sends ERANGE instead): a handler's bug, so an invariant. */
static void log_check(enum fuse_log_level level, const char *fmt, va_list ap)
{
	if (strstr(fmt, "bad error value")) {
		vfprintf(stderr, fmt, ap);
		abort();
	}
}

static ssize_t cap_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	struct fuse_out_header out;
	size_t total = 0, off = 0;
	int i;

	for (i = 0; i < count; i++)
		total += iov[i].iov_len;
	if (iov[0].iov_len < sizeof(out))
		abort(); /* libfuse puts the header alone in iov[0] */
	memcpy(&out, iov[0].iov_base, sizeof(out));
	if (out.len != total)
		abort();
	if (out.unique == 0)
		return (ssize_t)total; /* a notification (the notifier threads') */
	if (!cur || out.unique != cur->unique || cur->rep->replied)
		abort(); /* a reply to no request, or a second one */
	if (out.error > 0 || out.error <= -1000)
		abort();
	cur->rep->replied = 1;
	cur->rep->error = out.error;
	cur->rep->len = total - sizeof(out);
	for (i = 0; i < count; i++) {
		const char *p = iov[i].iov_base;
		size_t l = iov[i].iov_len, skip = i == 0 ? sizeof(out) : 0;

		p += skip;
		l -= skip;
		if (off + l > sizeof(cur->rep->data))
			l = sizeof(cur->rep->data) - off;
		memcpy(cur->rep->data + off, p, l);
		off += l;
	}
	if (cur->rep->lose) {
		errno = ENOENT;
		return -1;
	}
	return (ssize_t)total;
}

static ssize_t cap_read(int fd, void *buf, size_t len, void *userdata)
{
	return 0; /* never called: requests come through process_buf */
}

void ucg_fuzzd_request(struct ucg_fuzzd *z, int i, const void *req, size_t len,
		       struct ucg_fuzzd_reply *rep)
{
	struct fuse_in_header in;
	struct fuse_buf buf = { .size = len, .mem = (void *)req };
	struct capture c = { 0, rep };

	memcpy(&in, req, sizeof(in));
	c.unique = in.unique;
	rep->replied = 0;
	rep->len = 0;
	cur = &c;
	fuse_session_process_buf(z->m[i]->se, &buf);
	cur = NULL;
}

static void init_session(struct ucg_fuzzd *z, int i)
{
	struct {
		struct fuse_in_header in;
		struct fuse_init_in init;
	} req;
	static struct ucg_fuzzd_reply rep;

	memset(&req, 0, sizeof(req));
	req.in.len = sizeof(req);
	req.in.opcode = FUSE_INIT;
	req.in.unique = 1;
	req.init.major = FUSE_KERNEL_VERSION;
	req.init.minor = FUSE_KERNEL_MINOR_VERSION;
	req.init.max_readahead = 128 * 1024;
	req.init.flags = FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES | FUSE_DONT_MASK |
			 FUSE_AUTO_INVAL_DATA | FUSE_DO_READDIRPLUS | FUSE_MAX_PAGES |
			 FUSE_CACHE_SYMLINKS | FUSE_INIT_EXT;
	ucg_fuzzd_request(z, i, &req, sizeof(req), &rep);
	if (!rep.replied || rep.error)
		abort();
}

/* A mount's session and notifier, made once for the process; its hierarchy is each
 * run's (ucg_fuzzd_start). */
static struct mnt *add_mount(struct ucg_fuzzd *z, const char *dir)
{
	static const struct fuse_custom_io io = { .writev = cap_writev, .read = cap_read };
	struct daemon *d = &z->d;
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct mnt *m = ucg_calloc(1, sizeof(*m));
	int fd;

	if (!m)
		abort();
	m->d = d;
	m->name = ucg_strdup("cgroup");
	m->dir = ucg_strdup(dir);
	clock_gettime(CLOCK_REALTIME, &m->time);
	if (fuse_opt_add_arg(&args, "ucg"))
		abort();
	m->se = fuse_session_new(&args, &ucgfs_ll_ops, sizeof(ucgfs_ll_ops), m);
	fuse_opt_free_args(&args);
	/* libfuse would close the fd at destroy; nothing is written to it */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (!m->se || fd < 0 || fuse_session_custom_io(m->se, &io, fd) < 0)
		abort();
	m->notes_tail = &m->notes;
	pthread_cond_init(&m->note_cond, NULL);
	if (pthread_create(&m->notifier, NULL, ucgfs_notifier_thread, m))
		abort();
	m->next = d->mounts;
	d->mounts = m;
	return m;
}

/* The daemon, its sessions and threads live as long as the process: made per run,
 * they cost more than the run (thread stacks under ASan); the engine and everything
 * in it are each run's own. */
static struct ucg_fuzzd fixture;

struct ucg_fuzzd *ucg_fuzzd_start(int cache)
{
	static const char *const opts[UCG_FUZZD_MOUNTS] = { "cpu,cpuacct", "cpu,cpuacct",
							    "cpuset,memory,pids,freezer" };
	static const char *const dirs[UCG_FUZZD_MOUNTS] = { "/fuzz/cpu", "/fuzz/cpu2",
							    "/fuzz/memory" };
	struct ucg_engine_config cfg = { .nr_cpus = 4, .nr_mems = 1 };
	struct ucg_task_info t = { .tid = UCG_FUZZD_TID_ROOT, .tgid = UCG_FUZZD_TID_ROOT };
	struct ucg_cred root = ucg_cred_root();
	struct ucg_fuzzd *z = &fixture;
	struct daemon *d = &z->d;
	int i, first = !d->sandbox;

	if (first) {
		fuse_set_log_func(log_check);
		d->sandbox = 1;
		d->listen_fd = d->sig_fd = d->wake_fd = d->guard_fd = -1;
		/* no journal: a sandbox's changes are written nowhere (fs/journal.c) */
		d->journal.fd = d->journal.child_fd = -1;
		pthread_mutex_init(&d->lock, NULL);
		pthread_cond_init(&d->note_sent, NULL);
		for (i = 0; i < UCG_FUZZD_MOUNTS; i++)
			z->m[i] = add_mount(z, dirs[i]);
	}
	d->cache = cache;
	d->stop = d->reset = d->content_dirty = 0;
	if (ucg_engine_new(&cfg, &d->e) < 0 || ucg_observer_add(d->e, &ucgfs_observer_ops, d) < 0)
		abort();
	/* Fake tasks: a root process with two threads, a user's process. */
	if (ucg_task_add(d->e, &t) < 0)
		abort();
	t.tid = UCG_FUZZD_TID_ROOT + 1;
	if (ucg_task_add(d->e, &t) < 0)
		abort();
	t.tid = t.tgid = UCG_FUZZD_TID_USER;
	t.ruid = t.euid = t.suid = t.fsuid = 1000;
	t.rgid = t.egid = t.sgid = t.fsgid = 1000;
	if (ucg_task_add(d->e, &t) < 0)
		abort();
	for (i = 0; i < UCG_FUZZD_MOUNTS; i++) {
		struct mnt *m = z->m[i];
		struct ucg_stat rs;

		if (ucg_mount(d->e, opts[i], &m->h, NULL) < 0 ||
		    ucg_fs_getattr(d->e, m->h, "/", &root, &rs) < 0)
			abort();
		m->root_ino = rs.ino;
		ucgfs_fcache_init(&m->files);
	}
	if (first)
		for (i = 0; i < UCG_FUZZD_MOUNTS; i++)
			init_session(z, i);
	return z;
}

/* Whether a notifier still has notes of this run to send (under d->lock). */
static int notes_left(struct ucg_fuzzd *z)
{
	int i;

	for (i = 0; i < UCG_FUZZD_MOUNTS; i++)
		if (z->m[i]->notes)
			return 1;
	return 0;
}

void ucg_fuzzd_stop(struct ucg_fuzzd *z)
{
	struct daemon *d = &z->d;
	int i;

	/* The notes refer to this run's nodes: sent before the engine goes. */
	pthread_mutex_lock(&d->lock);
	while (notes_left(z)) {
		pthread_mutex_unlock(&d->lock);
		sched_yield();
		pthread_mutex_lock(&d->lock);
	}
	for (i = 0; i < UCG_FUZZD_MOUNTS; i++) {
		struct mnt *m = z->m[i];

		ucgfs_fcache_fini(&m->files);
		ucg_umount(d->e, m->h);
		m->h = NULL;
	}
	pthread_mutex_unlock(&d->lock);
	ucg_engine_free(d->e);
	d->e = NULL;
}
