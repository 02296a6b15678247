/* fs/daemon.c — the filesystem daemon (see daemon.h).
 *
 * Threads: the main thread polls the control socket, the process-events connector,
 * an eventfd rung by the engine when a release notification is queued, and a
 * signalfd (SIGTERM/SIGINT to stop, SIGCHLD to reap release agents). Each mount has
 * one thread running its FUSE session, and one notifier thread tells the kernel about
 * changes it cannot see (below). Every engine call is made with d->lock held; the
 * engine's sync callback drains the connector under that same lock, so a task forked
 * just before a write to cgroup.procs is known when the write is resolved.
 *
 * The FUSE layer is libfuse's low-level API. A FUSE node id is the engine's inode
 * number (ucg_stat.ino; FUSE_ROOT_ID stands for the root's), and ucg_fs_ino_path turns
 * it back into the path the engine's file API takes, so a renamed or removed cgroup is
 * seen as such whichever mount changed it, and the daemon keeps no table of nodes.
 *
 * Latency (docs/filesystem.md): each FUSE round trip costs about as much as the
 * kernel's whole operation, so the design removes round trips.
 *  - Entries and attributes are cached by the kernel (CACHE_TIMEOUT_S). Not mounted
 *    with default_permissions (the kernel would then drop and re-ask a directory's
 *    attributes after every change in it, one more round trip per mkdir, rmdir and
 *    rename): the engine checks every walk with the caller's credentials, and an
 *    entry is cached only in a directory that everyone may search, where no walk
 *    could be refused (entry_timeout). Negative entries are never cached.
 *  - A change made through one mount updates that mount's cache as on any filesystem;
 *    the other mounts of the same hierarchy are told explicitly (inval_entry, delete,
 *    inval_inode) before the change is answered, so they never show the old tree.
 *  - Files are served in one of two modes, chosen when the daemon starts:
 *     - exact (the default): every open asks the engine, which checks it with the
 *       opener's credentials and flags as the kernel does; files are direct_io
 *       without keep_cache (every read asks the engine: content is always whole and
 *       current) and noflush (close(2) sends only the RELEASE, answered without
 *       waiting for it); st_size is 0 as in the kernel. Two round trips per
 *       open+read+close.
 *     - cache (UCG_FUSE_CACHE=1 or `ucg daemon --cache`): files are opened without a
 *       round trip (open answers ENOSYS: the kernel's no-open mode, which keeps file
 *       content in its page cache, sends no RELEASE, and with no flush operation no
 *       FLUSH): a read of unchanged content makes no round trip at all. The
 *       permission check of open moves to the first read or write, made by the
 *       engine with that request's credentials. What each mount's kernel was told of
 *       a file is kept (fs/fcache.h); every engine change is followed, before d->lock
 *       is released, by a check of those files in every mount, and the attributes of
 *       each one whose content changed are invalidated at once (see "cached file
 *       content"). Reads that overlap a change may be stale, cut or padded
 *       (docs/filesystem.md, "Known deviations"): hence not the default.
 */
#define FUSE_USE_VERSION 35

#include "fs/daemon.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/ctl.h"
#include "fs/events.h"
#include "fs/fcache.h"
#include "fs/state.h"
#include "fs/uring.h"
#include "host/enforce.h"
#include "host/host.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
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

/* How long the kernel may keep entries and attributes without asking. Every change is
 * either made through the mount that caches it or sent to it as an invalidation, so
 * this bounds only the damage of a change the daemon failed to announce. */
#define CACHE_TIMEOUT_S 30.0

/* How long a request waits for the other mounts to be told of its change before it is
 * answered anyway: a notification blocks while the other mount is inside an operation
 * on the same directory, and that operation may itself be waiting for a notification
 * (two mounts changing one directory at once); the wait breaks such a cycle. */
#define NOTIFY_WAIT_MS 100

struct daemon;

/* One mount point. Owned by d->mounts (under d->lock) until its thread ends. */
struct mnt {
	struct mnt *next;
	struct daemon *d;
	struct ucg_hierarchy *h;
	char *name, *dir;
	struct fuse_session *se;
	struct ucg_uring *uring; /* NULL: requests come through /dev/fuse only */
	pthread_t thread;
	struct timespec time; /* shown as every file's atime/mtime/ctime */
	uint64_t root_ino;    /* the engine's inode number of the root (FUSE_ROOT_ID) */
	/* Notes for this mount's kernel (changes made through other mounts), sent in
	 * order by this mount's notifier thread. Under d->lock. */
	struct note *notes, **notes_tail;
	pthread_cond_t note_cond;
	pthread_t notifier;
	int note_stop;
	int waiting; /* this mount's thread waits for its notes to other mounts */
	struct ucg_fcache files; /* what this mount's kernel was told of files (d->lock) */
	int ended; /* its session loop ended: send the kernel nothing more (d->lock) */
	uint32_t unkept_ver; /* versions of files not in files (ENOMEM) */
};

/* A change the kernel must be told about on one mount (see queue_note). */
enum note_kind { NOTE_ENTRY, NOTE_DELETE, NOTE_INODE, NOTE_PAGES };

/* The notes of one request, which may wait until they are all sent. */
struct batch {
	int pending; /* notes not sent yet */
	int refs;    /* the request's, and one per note */
};

struct note {
	struct note *next;
	enum note_kind kind;
	uint64_t parent, child; /* FUSE node ids */
	struct batch *batch;    /* NULL: nobody waits */
	char name[];
};

struct daemon {
	pthread_mutex_t lock; /* protects e, host, mounts, dirty, the note queues */
	struct ucg_engine *e;
	struct ucg_host *host;
	struct ucg_enforce *enforce;
	struct mnt *mounts;
	int listen_fd, sig_fd, wake_fd;
	int stop;
	int dirty; /* the tree changed since the state file was written */
	int restoring;
	pthread_cond_t note_sent; /* some batch's pending count dropped */
	pid_t writer; /* the process of the write being served (cgroup.event_control) */
	int content_dirty; /* the engine may show other file content: check the mounts */
	int cache; /* cache mode: file content kept by the kernel (header comment) */
};

static int drain(struct daemon *d);
static void unlock_checked(struct daemon *d);

/* ---- callers ----------------------------------------------------------------------- */

struct caller {
	struct ucg_cred cred;
	uint32_t groups[MAX_GROUPS];
};

static const struct ucg_cred *get_caller(fuse_req_t req, struct daemon *d, struct caller *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	int r;

	/* Apply queued uid/gid/exec events first: they invalidate cached callers. */
	pthread_mutex_lock(&d->lock);
	drain(d);
	r = ucg_host_caller_cred(d->host, ctx->pid, &c->cred, c->groups);
	unlock_checked(d);
	if (r < 0) {
		/* The caller is gone already: FUSE's fsuid/fsgid, no capabilities. */
		c->cred = ucg_cred_user(ctx->uid, ctx->gid);
		c->cred.tid = c->cred.tgid = ctx->pid;
	}
	return &c->cred;
}

/* ---- nodes and paths ----------------------------------------------------------------- */

static uint64_t to_fuse(const struct mnt *m, uint64_t ino)
{
	return ino == m->root_ino ? FUSE_ROOT_ID : ino;
}

/* The engine path of node id (under d->lock). */
static int node_path(struct mnt *m, fuse_ino_t id, struct ucg_buf *out)
{
	ucg_buf_reset(out);
	if (id == FUSE_ROOT_ID) {
		ucg_buf_putc(out, '/');
		return ucg_buf_error(out);
	}
	return ucg_fs_ino_path(m->h, id, out);
}

/* The engine path of name in directory parent (under d->lock). */
static int child_path(struct mnt *m, fuse_ino_t parent, const char *name, struct ucg_buf *out)
{
	int r = node_path(m, parent, out);

	if (r < 0)
		return r;
	if (out->data[out->len - 1] != '/')
		ucg_buf_putc(out, '/');
	ucg_buf_puts(out, name);
	return ucg_buf_error(out);
}

/* What a regular file's attributes say of its content (see tell_file). */
struct file_view {
	uint64_t size;  /* the content's length: a cached read ends at i_size */
	uint32_t ver;   /* the content version, in mtime's nanoseconds */
	double timeout; /* how long the kernel may keep the attributes */
};

/* fv: NULL for a directory. */
static void fill_stat(const struct mnt *m, const struct ucg_stat *s, const struct file_view *fv,
		      struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = s->ino;
	st->st_mode = s->mode;
	st->st_nlink = s->nlink;
	st->st_uid = s->uid;
	st->st_gid = s->gid;
	st->st_blksize = 4096;
	st->st_atim = st->st_mtim = st->st_ctim = m->time;
	if (fv) {
		st->st_size = (off_t)fv->size;
		st->st_mtim.tv_nsec = (long)(((uint64_t)m->time.tv_nsec + fv->ver) % 1000000000u);
	}
}

/* The view to describe a node with: only a regular file's, only in cache mode (in
 * exact mode a file shows size 0 as in the kernel, and its attributes stay valid). */
static const struct file_view *view_of(const struct mnt *m, const struct ucg_stat *s,
				       const struct file_view *fv)
{
	return m->d->cache && S_ISREG(s->mode) ? fv : NULL;
}

static double attr_timeout(const struct file_view *fv)
{
	return fv ? fv->timeout : CACHE_TIMEOUT_S;
}

static void fill_entry(const struct mnt *m, const struct ucg_stat *s, const struct file_view *fv,
		       double timeout, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = to_fuse(m, s->ino);
	e->attr_timeout = attr_timeout(fv);
	e->entry_timeout = timeout;
	fill_stat(m, s, fv, &e->attr);
}

/* Search permission for everyone: owner, group and others all have x. */
static int all_search(uint32_t mode)
{
	return (mode & 0111) == 0111;
}

/* ---- telling other mounts ------------------------------------------------------------ */

/* Why notes are sent by a thread of the receiving mount and why a request waits
 * only sometimes: telling a mount's kernel that an entry changed locks the directory
 * there, and the lock may be held by a process inside an operation on that mount,
 * waiting for its answer. That mount's own thread must therefore never wait for a
 * note to be sent, else two mounts changing one directory at once would each wait for
 * the other. So each mount's notes have their own sender, and among the mounts of one
 * hierarchy at most one request waits for its notes at a time (the others answer at
 * once and their notes follow within microseconds): the sender it waits for can
 * always proceed, as the mount it is blocked on has a thread that waits for nothing.
 * A change made when nothing else changes the hierarchy concurrently is therefore seen
 * through every mount the moment it is answered. */

/* A batch for the notes of one request on m, or NULL when there is nobody to tell
 * (under d->lock). */
static struct batch *begin_notes(struct mnt *m)
{
	struct batch *b;

	if (ucg_hierarchy_mount_count(m->h) < 2)
		return NULL;
	b = ucg_calloc(1, sizeof(*b));
	if (b)
		b->refs = 1;
	return b; /* on ENOMEM the notes go unwaited */
}

static void put_batch(struct batch *b)
{
	if (b && --b->refs == 0)
		ucg_free(b);
}

static void enqueue(struct mnt *o, struct note *n)
{
	n->next = NULL;
	*o->notes_tail = n;
	o->notes_tail = &n->next;
	pthread_cond_signal(&o->note_cond);
}

/* Queues a note for every other live mount of m's hierarchy (under d->lock). */
static void queue_note(struct mnt *m, struct batch *b, enum note_kind kind, uint64_t parent,
		       uint64_t child, const char *name)
{
	struct mnt *o;
	size_t len = name ? strlen(name) : 0;

	if (ucg_hierarchy_mount_count(m->h) < 2)
		return;
	for (o = m->d->mounts; o; o = o->next) {
		struct note *n;

		if (o == m || o->h != m->h || o->note_stop)
			continue;
		n = ucg_calloc(1, sizeof(*n) + len + 1);
		if (!n)
			continue; /* the cache timeout bounds the staleness */
		n->kind = kind;
		n->parent = parent;
		n->child = child;
		if (name)
			memcpy(n->name, name, len + 1);
		if (b) {
			n->batch = b;
			b->pending++;
			b->refs++;
		}
		enqueue(o, n);
	}
}

/* Waits until the notes of b were sent, if no other mount of the hierarchy waits
 * already (see above), then drops the request's reference. */
static void finish_notes(struct mnt *m, struct batch *b)
{
	struct daemon *d = m->d;
	struct timespec until;
	struct mnt *o;
	int other = 0;

	if (!b)
		return;
	pthread_mutex_lock(&d->lock);
	for (o = d->mounts; o; o = o->next)
		if (o != m && o->h == m->h && o->waiting)
			other = 1;
	if (!other && b->pending) {
		/* A safety net only: the wait above cannot form a cycle. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 2;
		m->waiting = 1;
		while (b->pending)
			if (pthread_cond_timedwait(&d->note_sent, &d->lock, &until) != 0)
				break;
		m->waiting = 0;
	}
	put_batch(b);
	pthread_mutex_unlock(&d->lock);
}

static void send_note(struct fuse_session *se, struct note *n)
{
	size_t len = strlen(n->name);

	/* Errors are expected: ENOENT when that mount has nothing cached for it. */
	switch (n->kind) {
	case NOTE_ENTRY:
		fuse_lowlevel_notify_inval_entry(se, n->parent, n->name, len);
		break;
	case NOTE_DELETE:
		if (fuse_lowlevel_notify_delete(se, n->parent, n->child, n->name, len) < 0)
			fuse_lowlevel_notify_inval_entry(se, n->parent, n->name, len);
		break;
	case NOTE_INODE:
		fuse_lowlevel_notify_inval_inode(se, n->child, -1, 0);
		break;
	case NOTE_PAGES:
		fuse_lowlevel_notify_inval_inode(se, n->child, 0, 0);
		break;
	}
}

/* One per mount: sends the notes queued for it, in order, until the mount ends (its
 * remaining notes are dropped then: the kernel side is gone). */
static void *notifier_thread(void *arg)
{
	struct mnt *m = arg;
	struct daemon *d = m->d;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct note *n;

		while (!m->notes && !m->note_stop)
			pthread_cond_wait(&m->note_cond, &d->lock);
		if (!m->notes)
			break;
		n = m->notes;
		m->notes = n->next;
		if (!m->notes)
			m->notes_tail = &m->notes;
		if (!m->note_stop) {
			/* Sent without d->lock: the kernel may wait for an operation of this
			 * mount, which needs d->lock to finish. */
			pthread_mutex_unlock(&d->lock);
			send_note(m->se, n);
			pthread_mutex_lock(&d->lock);
		}
		if (n->batch) {
			n->batch->pending--;
			put_batch(n->batch);
			pthread_cond_broadcast(&d->note_sent);
		}
		ucg_free(n);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* Names and inode numbers of a directory's entries, "INO NAME\n" each (under d->lock). */
static int collect_name(void *ctx, const char *name, const struct ucg_stat *st)
{
	if (strcmp(name, ".") && strcmp(name, ".."))
		ucg_buf_printf(ctx, "%llu %s\n", (unsigned long long)st->ino, name);
	return 0;
}

static void dir_listing(struct daemon *d, struct ucg_hierarchy *h, const char *path,
			struct ucg_buf *out)
{
	struct ucg_cred root = ucg_cred_root();

	ucg_fs_readdir(d->e, h, path, &root, collect_name, out);
}

/* Every mount of h forgets the entries of directory dir named in the listings a and b
 * (b may be NULL). Notes to origin's own mount go unwaited: its kernel holds dir's
 * lock until origin's request is answered (under d->lock). */
static void queue_dir_entries(struct daemon *d, struct ucg_hierarchy *h, fuse_ino_t dir,
			      const struct ucg_buf *a, const struct ucg_buf *b, struct mnt *origin,
			      struct batch *batch)
{
	const struct ucg_buf *lists[2] = { a, b };
	struct mnt *o;
	int i;

	for (o = d->mounts; o; o = o->next) {
		if (o->h != h || o->note_stop)
			continue;
		for (i = 0; i < 2; i++) {
			const char *p = lists[i] ? lists[i]->data : NULL;
			const char *end = p ? p + lists[i]->len : NULL;

			while (p && p < end) {
				const char *name = strchr(p, ' ') + 1, *nl = strchr(name, '\n');
				size_t len = (size_t)(nl - name);
				struct note *n = ucg_calloc(1, sizeof(*n) + len + 1);

				if (n) {
					n->kind = NOTE_ENTRY;
					n->parent = dir;
					memcpy(n->name, name, len);
					if (batch && o != origin) {
						n->batch = batch;
						batch->pending++;
						batch->refs++;
					}
					enqueue(o, n);
				}
				p = nl + 1;
			}
		}
	}
}

/* ---- cached file content ------------------------------------------------------------ */

/* How a read of unchanged content makes no round trip and a changed one is never
 * missed (docs/filesystem.md, "Latency"). Files are opened in the kernel's no-open
 * mode, so their pages stay cached between opens; with auto_inval_data every read
 * first checks that the attributes are valid (free while they are) and, when it must
 * ask for them, drops the pages if mtime or size changed. So the daemon:
 *  - gives a file's attributes with the true size of its content and a content
 *    version in mtime's nanoseconds, and remembers per mount what it described
 *    (m->files: length, hash, version);
 *  - after every engine change (a write, mkdir, rmdir, rename, chmod, chown, host
 *    events drained, CPU sampled, a freezer state confirmed...), before d->lock is
 *    released, compares each described file of every mount with the engine's
 *    content now, and for each one that differs bumps the version and invalidates its
 *    attributes in that mount's kernel. Attributes only (offset -1): that takes no
 *    lock a waiting read could hold (a page invalidation locks the page, which a read
 *    waiting for d->lock may hold), so it is sent right there, synchronously, and the
 *    change is answered only after every mount's kernel knows;
 *  - lets the kernel keep the attributes of a file only if everyone may read it: the
 *    pages of any other file are dropped at every read (attributes never valid, a new
 *    version each time), so its reads reach the engine with the reader's credentials.
 * The cost of the checks is bounded by what the kernels were told: a file is checked
 * while its description is valid there, once invalidated it is not checked again
 * until it is described again. */

static int node_stat(struct mnt *m, fuse_ino_t id, struct ucg_buf *path, struct ucg_stat *s);

/* Read permission for everyone: owner, group and others all have r. */
static int all_read(uint32_t mode)
{
	return (mode & 0444) == 0444;
}

/* Under d->lock: host events change membership, so the files showing it. The
 * counters, not the return value: exits taskstats reported early are not counted
 * there. */
static int drain(struct daemon *d)
{
	struct ucg_host_stats before, after;
	int r;

	ucg_host_get_stats(d->host, &before);
	r = ucg_host_drain(d->host, d->e);
	ucg_host_get_stats(d->host, &after);
	if (r != 0 || memcmp(&before, &after, sizeof(before)))
		d->content_dirty = 1;
	return r;
}

/* The whole content of path read with cred and open flags (under d->lock). */
static int read_content(struct mnt *m, const char *path, int flags, const struct ucg_cred *cred,
			struct ucg_buf *out)
{
	ucg_buf_reset(out);
	return ucg_fs_read_all_flags(m->d->e, m->h, path, flags, cred, out);
}

/* What root reads in path: the content any cached page would hold; a file root cannot
 * read (write-only) has none (under d->lock). */
static int root_content(struct mnt *m, const char *path, struct ucg_buf *out)
{
	struct ucg_cred root = ucg_cred_root();
	int r = read_content(m, path, O_RDONLY, &root, out);

	if (r < 0)
		ucg_buf_reset(out);
	return r;
}

/* Tells m's kernel to drop the attributes of file ino (under d->lock, see above). */
static void forget_attrs(struct mnt *m, uint64_t ino)
{
	if (!m->ended)
		fuse_lowlevel_notify_inval_inode(m->se, ino, -1, 0);
}

/* Has m's notifier drop the cached pages of file ino (under d->lock); returns a
 * batch to wait for with wait_pages, or NULL. Not sent by a request thread: dropping
 * a page waits for its lock, which a read in progress on this mount may hold until
 * this mount's thread answers it. */
static struct batch *drop_pages(struct mnt *m, uint64_t ino, int wait)
{
	struct note *n = m->note_stop ? NULL : ucg_calloc(1, sizeof(*n) + 1);
	struct batch *b = n && wait ? ucg_calloc(1, sizeof(*b)) : NULL;

	if (!n)
		return NULL;
	n->kind = NOTE_PAGES;
	n->child = ino;
	if (b) {
		b->refs = 2;
		b->pending = 1;
		n->batch = b;
	}
	enqueue(m, n);
	return b;
}

/* Waits for the pages of b to be dropped, NOTIFY_WAIT_MS at most: the wait is
 * almost always one system call of the notifier; only a page whose read is queued
 * behind this thread's request (the page was evicted and is being read again) can
 * hold it up, and then that read brings the engine's content anyway. */
static void wait_pages(struct daemon *d, struct batch *b)
{
	struct timespec until;

	if (!b)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += NOTIFY_WAIT_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&d->lock);
	while (b->pending)
		if (pthread_cond_timedwait(&d->note_sent, &d->lock, &until) != 0)
			break;
	put_batch(b);
	pthread_mutex_unlock(&d->lock);
}

/* The kernel's description of e is out of date: a new version (its pages go when it
 * next takes new attributes) and the attributes invalidated. The pages are not
 * dropped here: a reader whose GETATTR crossed a later change has its answer
 * discarded by the kernel and reads with the size it had; with the pages it had, it
 * reads a whole older value, without them a newer one cut or padded to that size. */
static void make_stale(struct mnt *m, struct ucg_fcache_ent *e)
{
	e->ver++;
	if (e->told)
		forget_attrs(m, e->ino);
	e->told = 0;
}

/* Records content as what m's kernel is now told of file ino (under d->lock): a new
 * version if it differs from what was described last, and the snapshot later reads
 * are answered from (none for a file root cannot read: each read then asks the
 * engine, and fails). */
static struct ucg_fcache_ent *describe(struct mnt *m, uint64_t ino, const struct ucg_buf *content,
				       int readable)
{
	struct ucg_fcache_ent *e = ucg_fcache_get(&m->files, ino);
	uint64_t hash = ucg_fcache_hash(content->data, content->len);

	if (!e)
		return NULL;
	if (e->hash != hash || e->len != content->len)
		e->ver++;
	e->hash = hash;
	ucg_fcache_set_snap(e, content->data, content->len);
	if (!readable) {
		ucg_free(e->snap);
		e->snap = NULL;
		e->has_snap = 0;
	}
	e->told = 1;
	e->gone = 0;
	return e;
}

/* cgroup.procs and tasks: a process leader reaped by its parent leaves them when the
 * daemon next looks at /proc (no event says so), so every read of them must reach
 * the daemon, which looks then, as before a read of any file (docs/filesystem.md). */
static int lists_tasks(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "cgroup.procs") || !strcmp(base, "tasks");
}

/* The attributes of regular file s at path for m's kernel (under d->lock). for_read:
 * asked before a read (ll_getattr). A file nobody can read (write-only) shows size 0,
 * as in the kernel, except before a read: then a size that makes the kernel send the
 * READ, which fails with the engine's errno for that reader. */
static void tell_file(struct mnt *m, const char *path, const struct ucg_stat *s, int for_read,
		      struct file_view *fv)
{
	struct ucg_buf content;
	struct ucg_fcache_ent *e;
	int unreadable;

	ucg_buf_init(&content);
	unreadable = root_content(m, path, &content) < 0;
	e = describe(m, s->ino, &content, !unreadable);
	fv->size = unreadable && for_read ? 4096 : content.len;
	fv->timeout = CACHE_TIMEOUT_S;
	if (!e || !all_read(s->mode) || unreadable || lists_tasks(path)) {
		/* never valid, and never the same version twice: every read asks, and
		 * finds its pages dropped (on ENOMEM too: nothing remembered to check) */
		fv->timeout = 0;
		if (e)
			e->ver++;
	}
	if (e)
		e->st = *s;
	fv->ver = e ? e->ver : ++m->unkept_ver;
	ucg_buf_fini(&content);
}

struct check_ctx {
	struct mnt *m;
	struct ucg_buf path, content;
};

static void check_file(struct ucg_fcache_ent *e, void *arg)
{
	struct check_ctx *c = arg;
	struct ucg_stat s;

	if (!e->told)
		return;
	if (node_stat(c->m, e->ino, &c->path, &s) < 0) {
		e->gone = 1; /* its cgroup was removed: reads now fail with ENODEV */
		make_stale(c->m, e);
		return;
	}
	root_content(c->m, c->path.data, &c->content);
	if (c->content.len != e->len || ucg_fcache_hash(c->content.data, c->content.len) != e->hash ||
	    s.mode != e->st.mode || s.uid != e->st.uid || s.gid != e->st.gid)
		make_stale(c->m, e);
}

/* Every mount forgets the files that no longer show what its kernel was told (under
 * d->lock). Reading a file may drain host events, which may change others: repeat
 * while that happens, a few times at most (the next check catches the rest). */
static void cache_check(struct daemon *d)
{
	struct check_ctx c;
	int round;

	ucg_buf_init(&c.path);
	ucg_buf_init(&c.content);
	for (round = 0; round < 4 && d->content_dirty; round++) {
		d->content_dirty = 0;
		for (c.m = d->mounts; c.m; c.m = c.m->next)
			ucg_fcache_each(&c.m->files, check_file, &c);
	}
	ucg_buf_fini(&c.path);
	ucg_buf_fini(&c.content);
}

/* Every critical section that may have changed the engine ends here: nothing is
 * answered from a new state before the kernels were told. */
static void unlock_checked(struct daemon *d)
{
	if (d->content_dirty && d->cache)
		cache_check(d);
	else
		d->content_dirty = 0; /* exact mode: no kernel holds content */
	pthread_mutex_unlock(&d->lock);
}

/* ---- the operation table ------------------------------------------------------------ */

static struct mnt *req_mnt(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void mark_dirty(struct daemon *d)
{
	d->dirty = 1;
}

static void ll_init(void *userdata, struct fuse_conn_info *conn)
{
	struct mnt *m = userdata;

	/* No FUSE_CAP_DONT_MASK: mkdir's mode arrives with the umask applied. */
	conn->want &= ~(unsigned)FUSE_CAP_DONT_MASK;
	/* Directory listings are always read from the engine. */
	conn->want &= ~(unsigned)FUSE_CAP_READDIRPLUS;
	if (!m->d->cache) {
		/* Exact mode: open(O_TRUNC) reaches the engine's open as is. */
		if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
			conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
		return;
	}
	/* No atomic O_TRUNC: with it the kernel sets a file's size to 0 at every
	 * open(O_TRUNC), and a concurrent read of its cached content would find it
	 * empty. Without, it asks (SETATTR) and gets the content's size back. */
	conn->want &= ~(unsigned)FUSE_CAP_ATOMIC_O_TRUNC;
	/* Cached file pages are dropped when a file's mtime or size changes (see "cached
	 * file content"), and reads are sent as readahead, answered in the daemon's
	 * write of the reply. */
	if (!(conn->capable & FUSE_CAP_AUTO_INVAL_DATA))
		fprintf(stderr, "ucg: the kernel lacks auto_inval_data: file reads may be stale\n");
	conn->want |= conn->capable & (FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_ASYNC_READ);
	conn->want &= ~(unsigned)FUSE_CAP_EXPLICIT_INVAL_DATA;
}

/* How long the kernel may keep an entry of directory dir (under d->lock). The kernel
 * walks a cached entry without asking us, so without search permission for everyone
 * on dir it must ask each time: then the engine checks the whole walk with the
 * caller's credentials. The directories above dir are covered by their own entries. */
static double entry_timeout(struct mnt *m, fuse_ino_t dir)
{
	struct ucg_buf path;
	struct ucg_stat s;
	int r;

	ucg_buf_init(&path);
	r = node_stat(m, dir, &path, &s);
	ucg_buf_fini(&path);
	return r == 0 && all_search(s.mode) ? CACHE_TIMEOUT_S : 0;
}

/* Negative entries are never cached: a name's absence is not a fact about the walk
 * to it, and a cached one would answer ENOENT where a chmod since wants EACCES. */
static void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mnt *m = req_mnt(req);
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, m->d, &c);
	struct fuse_entry_param e;
	struct file_view fv;
	struct ucg_buf path;
	struct ucg_stat s;
	double timeout = 0;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = child_path(m, parent, name, &path);
	if (r == 0)
		r = ucg_fs_getattr(m->d->e, m->h, path.data, cred, &s);
	if (r == 0) {
		timeout = entry_timeout(m, parent);
		if (S_ISREG(s.mode) && m->d->cache) {
			struct ucg_fcache_ent *fe;

			tell_file(m, path.data, &s, 0, &fv);
			fe = ucg_fcache_find(&m->files, s.ino);
			if (fe)
				fe->nlookup++;
		}
	}
	unlock_checked(m->d);
	ucg_buf_fini(&path);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fill_entry(m, &s, view_of(m, &s, &fv), timeout, &e);
	fuse_reply_entry(req, &e);
}

/* Nodes are the engine's; a file's description goes when the kernel forgot every
 * lookup of it (it holds nothing of the inode then). Counted, not dropped at the
 * first FORGET: the kernel may have looked the file up again, as a new inode, before
 * the old one's FORGET arrives, and that one's changes must still be announced. */
static void forget_file(struct mnt *m, uint64_t ino, uint64_t nlookup)
{
	struct ucg_fcache_ent *e = ucg_fcache_find(&m->files, ino);

	if (!e)
		return;
	e->nlookup -= nlookup < e->nlookup ? nlookup : e->nlookup;
	if (!e->nlookup)
		ucg_fcache_del(&m->files, ino);
}

static void ll_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct mnt *m = req_mnt(req);

	pthread_mutex_lock(&m->d->lock);
	forget_file(m, ino, nlookup);
	unlock_checked(m->d);
	fuse_reply_none(req);
}

static void ll_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct mnt *m = req_mnt(req);
	size_t i;

	pthread_mutex_lock(&m->d->lock);
	for (i = 0; i < count; i++)
		forget_file(m, forgets[i].ino, forgets[i].nlookup);
	unlock_checked(m->d);
	fuse_reply_none(req);
}

/* The attributes of node id for m's kernel (under d->lock). A file whose cgroup was
 * removed keeps its last attributes while the kernel holds it (fstat of an open file,
 * core.md §3.5). fv is filled for a regular file. */
static int node_attrs(struct mnt *m, fuse_ino_t id, struct ucg_buf *path, struct ucg_stat *s,
		      int for_read, struct file_view *fv)
{
	struct ucg_fcache_ent *e;
	int r = node_stat(m, id, path, s);

	if (!m->d->cache)
		return r;
	if (r == 0 && S_ISREG(s->mode)) {
		tell_file(m, path->data, s, for_read, fv);
	} else if (r == -ENOENT && (e = ucg_fcache_find(&m->files, id)) && e->gone) {
		*s = e->st;
		fv->size = e->len;
		fv->ver = e->ver;
		fv->timeout = 0;
		r = 0;
	}
	return r;
}

/* Attributes of node id, without permission checks (under d->lock). */
static int node_stat(struct mnt *m, fuse_ino_t id, struct ucg_buf *path, struct ucg_stat *s)
{
	struct ucg_cred root = ucg_cred_root();
	int r = node_path(m, id, path);

	return r < 0 ? r : ucg_fs_getattr(m->d->e, m->h, path->data, &root, s);
}

struct fh;
static int open_file_stat(const struct fuse_file_info *fi, struct ucg_stat *s);

/* fi is set when the kernel asks on behalf of an open file: in cache mode before a
 * read (auto inval_data), never for stat(2) or fstat(2); in exact mode for fstat(2),
 * which a file whose cgroup was removed still answers (core.md §3.5). */
static void ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct file_view fv;
	struct ucg_buf path;
	struct ucg_stat s;
	struct stat st;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = node_attrs(m, ino, &path, &s, fi != NULL, &fv);
	if (r == 0 && fi && m->d->cache && node_stat(m, ino, &path, &s) == -ENOENT)
		r = -ENODEV; /* a read of a removed cgroup's file asks first (core.md §3.5) */
	unlock_checked(m->d);
	ucg_buf_fini(&path);
	if (r == -ENOENT && open_file_stat(fi, &s) == 0)
		r = 0;
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fill_stat(m, &s, view_of(m, &s, &fv), &st);
	fuse_reply_attr(req, &st, attr_timeout(view_of(m, &s, &fv)));
}

/* chmod, chown; truncate and utimens succeed on existing entries and change nothing
 * (core.md §3.4). A chmod that takes search permission away from someone makes every
 * mount forget the directory's entries (see entry_timeout). */
static void ll_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = NULL;
	struct ucg_buf path;
	struct ucg_stat s, before = { 0 };
	struct file_view fv;
	struct stat st;
	struct batch *b = NULL;
	int r;

	if (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))
		cred = get_caller(req, d, &c);
	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	r = node_stat(m, ino, &path, &before);
	if (r == 0 && (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
		r = ucg_fs_chown(d->e, m->h, path.data,
				 (to_set & FUSE_SET_ATTR_UID) ? (uint32_t)attr->st_uid : (uint32_t)-1,
				 (to_set & FUSE_SET_ATTR_GID) ? (uint32_t)attr->st_gid : (uint32_t)-1,
				 cred);
	if (r == 0 && (to_set & FUSE_SET_ATTR_MODE))
		r = ucg_fs_chmod(d->e, m->h, path.data, attr->st_mode & 07777, cred);
	if (cred && r == 0) {
		mark_dirty(d);
		b = begin_notes(m);
		queue_note(m, b, NOTE_INODE, 0, ino, NULL);
		if (S_ISDIR(before.mode) && all_search(before.mode) &&
		    !all_search(attr->st_mode) && (to_set & FUSE_SET_ATTR_MODE)) {
			struct ucg_buf names;

			ucg_buf_init(&names);
			dir_listing(d, m->h, path.data, &names);
			queue_dir_entries(d, m->h, ino, &names, NULL, m, b);
			ucg_buf_fini(&names);
		}
	}
	if (cred && r == 0)
		d->content_dirty = 1; /* other mounts may cache a file whose mode changed */
	if (r == 0 || (r == -ENOENT && !cred))
		r = node_attrs(m, ino, &path, &s, 0, &fv);
	unlock_checked(d);
	ucg_buf_fini(&path);
	if (r == -ENOENT && !cred && open_file_stat(fi, &s) == 0)
		r = 0;
	finish_notes(m, b);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fill_stat(m, &s, view_of(m, &s, &fv), &st);
	fuse_reply_attr(req, &st, attr_timeout(view_of(m, &s, &fv)));
}

static void ll_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, d, &c);
	struct fuse_entry_param e;
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf path;
	struct ucg_stat s;
	struct batch *b = NULL;
	double timeout = 0;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	r = child_path(m, parent, name, &path);
	if (r == 0)
		r = ucg_fs_mkdir(d->e, m->h, path.data, mode & 07777, cred);
	if (r == 0) {
		mark_dirty(d);
		/* No other mount caches the name (no negative entries): only the
		 * parent's link count changed there. */
		b = begin_notes(m);
		queue_note(m, b, NOTE_INODE, 0, parent, NULL);
		r = ucg_fs_getattr(d->e, m->h, path.data, &root, &s);
		timeout = entry_timeout(m, parent);
		d->content_dirty = 1; /* e.g. the parent's files listing children */
	}
	unlock_checked(d);
	ucg_buf_fini(&path);
	finish_notes(m, b);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fill_entry(m, &s, NULL, timeout, &e);
	fuse_reply_entry(req, &e);
}

static void ll_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, d, &c);
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf path;
	struct ucg_stat s = { 0 };
	struct batch *b = NULL;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	r = child_path(m, parent, name, &path);
	if (r == 0) {
		if (ucg_fs_getattr(d->e, m->h, path.data, &root, &s) < 0)
			s.ino = 0;
		r = ucg_fs_rmdir(d->e, m->h, path.data, cred);
	}
	if (r == 0) {
		mark_dirty(d);
		b = begin_notes(m);
		queue_note(m, b, NOTE_DELETE, parent, s.ino, name);
		queue_note(m, b, NOTE_INODE, 0, parent, NULL);
		d->content_dirty = 1; /* its files now fail with ENODEV */
	}
	unlock_checked(d);
	ucg_buf_fini(&path);
	finish_notes(m, b);
	fuse_reply_err(req, -r);
}

static void ll_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		      const char *newname, unsigned int flags)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred;
	struct ucg_buf from, to;
	struct batch *b = NULL;
	int r;

	if (flags & RENAME_EXCHANGE) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	cred = get_caller(req, d, &c);
	ucg_buf_init(&from);
	ucg_buf_init(&to);
	pthread_mutex_lock(&d->lock);
	r = child_path(m, parent, name, &from);
	if (r == 0)
		r = child_path(m, newparent, newname, &to);
	if (r == 0)
		r = ucg_fs_rename(d->e, m->h, from.data, to.data, cred);
	if (r == 0) {
		mark_dirty(d);
		b = begin_notes(m);
		queue_note(m, b, NOTE_ENTRY, parent, 0, name);
		queue_note(m, b, NOTE_ENTRY, newparent, 0, newname);
		d->content_dirty = 1; /* release notification paths, for one */
	}
	unlock_checked(d);
	ucg_buf_fini(&from);
	ucg_buf_fini(&to);
	finish_notes(m, b);
	fuse_reply_err(req, -r);
}

/* mknod/symlink/link: what the cgroup filesystem answers. */
static void ll_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	fuse_reply_err(req, EPERM);
}

static void ll_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, EPERM);
}

static void ll_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	fuse_reply_err(req, EPERM);
}

/* create and unlink go through the engine for its errno; neither ever succeeds, and
 * fallback is what the caller gets should the engine not refuse. */
static void refused_child_op(fuse_req_t req, fuse_ino_t parent, const char *name,
			     int (*op)(struct ucg_engine *, struct ucg_hierarchy *, const char *,
				       const struct ucg_cred *),
			     int fallback)
{
	struct mnt *m = req_mnt(req);
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, m->d, &c);
	struct ucg_buf path;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = child_path(m, parent, name, &path);
	if (r == 0)
		r = op(m->d->e, m->h, path.data, cred);
	unlock_checked(m->d);
	ucg_buf_fini(&path);
	fuse_reply_err(req, r < 0 ? -r : fallback);
}

static void ll_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	refused_child_op(req, parent, name, ucg_fs_create, EACCES);
}

static void ll_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	refused_child_op(req, parent, name, ucg_fs_unlink, EPERM);
}

/* No-open (see the header comment): the kernel then opens every file of this mount
 * without asking, keeps its pages between opens and sends no RELEASE. Whether the
 * opener may read or write is decided at the first read or write, by the engine with
 * that request's credentials (docs/filesystem.md lists what differs from the kernel). */
static void ll_open_cached(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, ENOSYS);
}

/* ---- exact mode: opened files ---------------------------------------------------------- */

/* An open file in exact mode: the engine's handle and the attributes it had when
 * opened (fstat of a file whose cgroup was removed still works, core.md §3.5). */
struct fh {
	struct ucg_file *f;
	struct ucg_stat st;
};

static struct fh *fh_of(const struct fuse_file_info *fi)
{
	return fi ? (struct fh *)(uintptr_t)fi->fh : NULL;
}

/* The attributes an open file had when it was opened (exact mode), or -ENOENT. */
static int open_file_stat(const struct fuse_file_info *fi, struct ucg_stat *s)
{
	struct fh *h = fh_of(fi);

	if (!h)
		return -ENOENT;
	*s = h->st;
	return 0;
}

/* The engine checks the open with the opener's credentials and flags, as the kernel
 * does; every read and write then goes to the engine through the handle. */
static void ll_open_exact(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, d, &c);
	struct ucg_cred root = ucg_cred_root();
	struct fh *h = ucg_calloc(1, sizeof(*h));
	int flags = fi->flags & (O_ACCMODE | O_TRUNC | O_APPEND | O_CREAT | O_EXCL);
	struct ucg_buf path;
	int r;

	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	r = node_path(m, ino, &path);
	if (r == 0)
		r = ucg_fs_open(d->e, m->h, path.data, flags, cred, &h->f);
	if (r == 0 && ucg_fs_getattr(d->e, m->h, path.data, &root, &h->st) < 0)
		memset(&h->st, 0, sizeof(h->st));
	unlock_checked(d);
	ucg_buf_fini(&path);
	if (r < 0) {
		ucg_free(h);
		fuse_reply_err(req, -r);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fi->noflush = 1;
	if (fuse_reply_open(req, fi) < 0) {
		/* the opener was interrupted: the kernel will send no release */
		pthread_mutex_lock(&d->lock);
		ucg_fs_release(h->f);
		pthread_mutex_unlock(&d->lock);
		ucg_free(h);
	}
}

static void ll_read_exact(fuse_req_t req, struct mnt *m, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	struct ucg_file *f = fh_of(fi)->f;
	char stack[4096], *buf = size <= sizeof(stack) ? stack : malloc(size);
	ssize_t n;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&m->d->lock);
	n = ucg_fs_read(f, buf, size, off);
	unlock_checked(m->d);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	if (buf != stack)
		free(buf);
}

static void ll_write_exact(fuse_req_t req, struct mnt *m, const char *buf, size_t size,
			   struct fuse_file_info *fi)
{
	struct ucg_file *f = fh_of(fi)->f;
	ssize_t n;

	pthread_mutex_lock(&m->d->lock);
	m->d->writer = fuse_req_ctx(req)->pid;
	n = ucg_fs_write(f, buf, size);
	if (n >= 0)
		mark_dirty(m->d);
	unlock_checked(m->d);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

/* Only exact mode's opens send it (no-open sends none). */
static void ll_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct fh *h = fh_of(fi);

	if (h) {
		pthread_mutex_lock(&m->d->lock);
		ucg_fs_release(h->f);
		pthread_mutex_unlock(&m->d->lock);
		ucg_free(h);
	}
	fuse_reply_err(req, 0);
}

static void ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (req_mnt(req)->d->cache)
		ll_open_cached(req, ino, fi);
	else
		ll_open_exact(req, ino, fi);
}

/* ---- cache mode: reads and writes without an open -------------------------------------- */

/* The open flags the engine checks a read or write against: the file's access mode. */
static int io_flags(const struct fuse_file_info *fi)
{
	return fi->flags & (O_ACCMODE | O_APPEND);
}

/* Path of a file being read or written (under d->lock): a file whose cgroup was
 * removed while it was open answers ENODEV (core.md §3.5). */
static int io_path(struct mnt *m, fuse_ino_t ino, struct ucg_buf *path)
{
	int r = node_path(m, ino, path);

	return r == -ENOENT ? -ENODEV : r;
}

/* The reader's permission is checked as its open would have been; the answer is the
 * snapshot whose length the kernel was given as the size (see struct
 * ucg_fcache_ent): a change made since was announced, and the kernel asks again
 * before it trusts these pages once it knows. Without a snapshot, the engine's
 * content now. */
static void ll_read_cached(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, d, &c);
	struct ucg_fcache_ent *e;
	struct ucg_buf path, content;
	struct ucg_file *f;
	int r;

	ucg_buf_init(&path);
	ucg_buf_init(&content);
	pthread_mutex_lock(&d->lock);
	r = io_path(m, ino, &path);
	e = r == 0 ? ucg_fcache_find(&m->files, ino) : NULL;
	if (e)
		e->pages = 1;
	if (e && e->has_snap) {
		r = ucg_fs_open(d->e, m->h, path.data, io_flags(fi), cred, &f);
		if (r == 0) {
			ucg_fs_release(f);
			ucg_buf_append(&content, e->snap, e->len);
			r = ucg_buf_error(&content);
		}
	} else if (r == 0) {
		r = read_content(m, path.data, io_flags(fi), cred, &content);
	}
	unlock_checked(d);
	if (r < 0)
		fuse_reply_err(req, -r);
	else if (off < 0 || (size_t)off >= content.len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, content.data + off,
			       size < content.len - (size_t)off ? size : content.len - (size_t)off);
	ucg_buf_fini(&path);
	ucg_buf_fini(&content);
}

/* Whether the kernel may hold an up-to-date page the write copied its bytes into:
 * one a READ filled, or one the write covered whole. Any other page the write
 * touched is not up to date, so no read uses it, and it stays locked until this
 * write is answered: dropping it would wait for this very request. */
static int written_page_cached(const struct ucg_fcache_ent *e, size_t size)
{
	return (e && e->pages) || size >= (size_t)getpagesize();
}

/* The kernel copied the written bytes into its cached page before asking: whatever
 * the engine shows now, that page must go (a new version, and the page dropped at
 * once by the notifier), here and wherever the change shows (the check before the
 * lock is released). */
static void ll_write_cached(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
			    struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, d, &c);
	struct ucg_fcache_ent *e;
	struct ucg_file *f = NULL;
	struct ucg_buf path;
	struct batch *pages;
	int cached;
	ssize_t n;

	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	d->writer = fuse_req_ctx(req)->pid;
	n = io_path(m, ino, &path);
	if (n == 0)
		n = ucg_fs_open(d->e, m->h, path.data, io_flags(fi), cred, &f);
	if (n == 0) {
		n = ucg_fs_write(f, buf, size);
		ucg_fs_release(f);
	}
	if (n >= 0) {
		mark_dirty(d);
		d->content_dirty = 1;
	}
	e = ucg_fcache_find(&m->files, ino);
	cached = written_page_cached(e, size);
	if (e) {
		e->pages = 0; /* dropped below, waited for */
		make_stale(m, e);
	}
	pages = cached ? drop_pages(m, ino, 1) : NULL;
	unlock_checked(d);
	ucg_buf_fini(&path);
	wait_pages(d, pages);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

/* A file opened in exact mode has its handle; one opened without (cache mode) none. */
static void ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	if (fh_of(fi))
		ll_read_exact(req, req_mnt(req), size, off, fi);
	else
		ll_read_cached(req, ino, size, off, fi);
}

static void ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	if (fh_of(fi))
		ll_write_exact(req, req_mnt(req), buf, size, fi);
	else
		ll_write_cached(req, ino, buf, size, fi);
}

/* An open directory: its listing, taken at opendir and again at each rewind. */
struct dirh {
	char *buf; /* fuse_add_direntry records */
	size_t len, cap;
	size_t *offs; /* offs[i]: end of record i in buf */
	size_t n, ncap;
};

struct dir_ctx {
	struct mnt *m;
	struct dirh *dh;
	int err;
};

static int dir_fill(void *ctx, const char *name, const struct ucg_stat *s)
{
	struct dir_ctx *dc = ctx;
	struct dirh *dh = dc->dh;
	struct stat st;
	size_t need = fuse_add_direntry(NULL, NULL, 0, name, NULL, 0);

	if (dh->len + need > dh->cap) {
		size_t cap = dh->cap ? dh->cap * 2 : 4096;
		char *b;

		while (cap < dh->len + need)
			cap *= 2;
		b = ucg_realloc(dh->buf, cap);
		if (!b)
			goto nomem;
		dh->buf = b;
		dh->cap = cap;
	}
	if (dh->n == dh->ncap) {
		size_t ncap = dh->ncap ? dh->ncap * 2 : 64;
		size_t *o = ucg_realloc(dh->offs, ncap * sizeof(*o));

		if (!o)
			goto nomem;
		dh->offs = o;
		dh->ncap = ncap;
	}
	memset(&st, 0, sizeof(st));
	st.st_ino = s->ino;
	st.st_mode = s->mode;
	dh->len += fuse_add_direntry(NULL, dh->buf + dh->len, need, name, &st,
				     (off_t)(dh->n + 1));
	dh->offs[dh->n++] = dh->len;
	return 0;
nomem:
	dc->err = -ENOMEM;
	return 1;
}

/* cred NULL: a rewind of a directory opened already. */
static int dir_load(struct mnt *m, fuse_ino_t ino, const struct ucg_cred *cred, struct dirh *dh)
{
	struct ucg_cred root = ucg_cred_root();
	struct dir_ctx dc = { m, dh, 0 };
	struct ucg_buf path;
	int r;

	dh->len = dh->n = 0;
	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = node_path(m, ino, &path);
	if (r == 0)
		r = ucg_fs_readdir(m->d->e, m->h, path.data, cred ? cred : &root, dir_fill, &dc);
	unlock_checked(m->d);
	ucg_buf_fini(&path);
	return r < 0 ? r : dc.err;
}

static void dirh_free(struct dirh *dh)
{
	if (dh) {
		ucg_free(dh->buf);
		ucg_free(dh->offs);
		ucg_free(dh);
	}
}

static void ll_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, m->d, &c);
	struct dirh *dh = ucg_calloc(1, sizeof(*dh));
	int r = dh ? dir_load(m, ino, cred, dh) : -ENOMEM;

	if (r < 0) {
		dirh_free(dh);
		fuse_reply_err(req, -r);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)dh;
	fi->cache_readdir = 0;
	fi->keep_cache = 0;
	if (fuse_reply_open(req, fi) < 0)
		dirh_free(dh);
}

static void ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct dirh *dh = (struct dirh *)(uintptr_t)fi->fh;
	size_t start, end, i;

	if (off == 0 && dh->n) {
		int r = dir_load(req_mnt(req), ino, NULL, dh); /* rewinddir: a fresh listing */

		if (r < 0) {
			fuse_reply_err(req, -r);
			return;
		}
	}
	if (off < 0 || (size_t)off >= dh->n) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	start = off ? dh->offs[off - 1] : 0;
	for (i = (size_t)off, end = start; i < dh->n && dh->offs[i] - start <= size; i++)
		end = dh->offs[i];
	fuse_reply_buf(req, dh->buf + start, end - start);
}

static void ll_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	dirh_free((struct dirh *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* access(2) and chdir: the VFS's generic permission rule on the engine's modes, after
 * the engine's walk with the caller's credentials. */
static void ll_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct mnt *m = req_mnt(req);
	struct caller c;
	const struct ucg_cred *cred = get_caller(req, m->d, &c);
	struct ucg_buf path;
	struct ucg_stat st;
	unsigned bits;
	size_t i;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = node_path(m, ino, &path);
	if (r == 0)
		r = ucg_fs_getattr(m->d->e, m->h, path.data, cred, &st);
	unlock_checked(m->d);
	ucg_buf_fini(&path);
	if (r < 0 || mask == F_OK) {
		fuse_reply_err(req, -r);
		return;
	}
	if (cred->fsuid == 0 || (cred->caps & UCG_CAP_DAC_OVERRIDE)) {
		r = (mask & X_OK) && !S_ISDIR(st.mode) && !(st.mode & 0111) ? EACCES : 0;
		fuse_reply_err(req, r);
		return;
	}
	if (st.uid == cred->fsuid) {
		bits = (st.mode >> 6) & 7;
	} else {
		int in_group = st.gid == cred->fsgid;

		for (i = 0; i < cred->ngroups && !in_group; i++)
			in_group = cred->groups[i] == st.gid;
		bits = in_group ? (st.mode >> 3) & 7 : st.mode & 7;
	}
	fuse_reply_err(req, ((unsigned)mask & ~bits) ? EACCES : 0);
}

static const struct fuse_lowlevel_ops ll_ops = {
	.access = ll_access,
	.init = ll_init,
	.lookup = ll_lookup,
	.forget = ll_forget,
	.forget_multi = ll_forget_multi,
	.getattr = ll_getattr,
	.setattr = ll_setattr,
	.mknod = ll_mknod,
	.mkdir = ll_mkdir,
	.unlink = ll_unlink,
	.rmdir = ll_rmdir,
	.symlink = ll_symlink,
	.rename = ll_rename,
	.link = ll_link,
	.open = ll_open,
	.read = ll_read,
	.write = ll_write,
	.release = ll_release,
	.opendir = ll_opendir,
	.readdir = ll_readdir,
	.releasedir = ll_releasedir,
	.create = ll_create,
};

/* ---- mounts ------------------------------------------------------------------------- */

/* Under d->lock; the caller joins m->notifier without it. */
static void stop_notifier(struct mnt *m)
{
	m->note_stop = 1;
	pthread_cond_signal(&m->note_cond);
}

static void *mnt_thread(void *arg)
{
	struct mnt *m = arg, **pp;
	struct daemon *d = m->d;

	/* Returns when the connection ends, its ring threads joined: no request is
	 * served on m after this. */
	ucg_uring_loop(m->uring, m->se);
	pthread_mutex_lock(&d->lock);
	m->ended = 1; /* the session's fd is closed below */
	pthread_mutex_unlock(&d->lock);
	fuse_session_unmount(m->se);
	pthread_mutex_lock(&d->lock);
	for (pp = &d->mounts; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	ucg_umount(d->e, m->h);
	d->dirty = 1;
	stop_notifier(m);
	pthread_mutex_unlock(&d->lock);
	pthread_join(m->notifier, NULL); /* it may be sending to this session */
	pthread_cond_destroy(&m->note_cond);
	ucg_uring_free(m->uring);
	fuse_session_destroy(m->se);
	ucg_fcache_fini(&m->files);
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
	ucg_fcache_init(&m->files);
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
	m->se = fuse_session_new(&args, &ll_ops, sizeof(ll_ops), m);
	fuse_opt_free_args(&args);
	if (!m->se) {
		r = -EINVAL;
		goto fail;
	}
	errno = 0;
	if (fuse_session_mount(m->se, dir) != 0) {
		r = errno ? -errno : -EIO;
		fuse_session_destroy(m->se);
		goto fail;
	}
	m->notes_tail = &m->notes;
	pthread_cond_init(&m->note_cond, NULL);
	/* Mount threads take no signals: the main thread's signalfd gets them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* FUSE over io_uring when the kernel offers it (docs/filesystem.md, "Latency"). */
	ucg_uring_new(m->se, dir, &m->uring);
	r = pthread_create(&m->notifier, NULL, notifier_thread, m);
	if (r == 0) {
		pthread_mutex_lock(&d->lock);
		m->next = d->mounts;
		d->mounts = m;
		d->dirty = 1;
		pthread_mutex_unlock(&d->lock);
		r = pthread_create(&m->thread, NULL, mnt_thread, m);
		if (r != 0) {
			pthread_mutex_lock(&d->lock);
			d->mounts = m->next;
			stop_notifier(m);
			pthread_mutex_unlock(&d->lock);
			pthread_join(m->notifier, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		/* Nobody serves it: take it down the way the thread would. */
		umount2(dir, MNT_DETACH);
		pthread_cond_destroy(&m->note_cond);
		ucg_uring_free(m->uring);
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
		dir_listing(d, m->h, "/", &before);
		r = ucg_remount(d->e, m->h, opts, &err);
		if (r < 0) {
			ucg_buf_puts(out, err.msg);
		} else {
			d->dirty = 1;
			dir_listing(d, m->h, "/", &after);
			if (before.len != after.len ||
			    (before.len && memcmp(before.data, after.data, before.len)))
				queue_dir_entries(d, m->h, FUSE_ROOT_ID, &before, &after, NULL, NULL);
			d->content_dirty = 1; /* the root's files were renumbered */
		}
	}
	unlock_checked(d);
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
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
	d->content_dirty = 1;
	unlock_checked(d);
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
	drain(ctx);
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

static void prov_mems_migrate(void *ctx, struct ucg_engine *e, int tid, const unsigned char *from,
			      const unsigned char *to, size_t nbytes)
{
	ucg_enforce_migrate(e, tid, from, to, nbytes);
}

/* cgroup.event_control (fs/events.c): the mount an absolute path is under. */
static struct ucg_hierarchy *events_find(void *ctx, const char *abs, const char **ret_rel)
{
	struct daemon *d = ctx;
	struct mnt *m;

	for (m = d->mounts; m; m = m->next) {
		size_t n = strlen(m->dir);

		if (!strncmp(abs, m->dir, n) && (abs[n] == '/' || !abs[n])) {
			*ret_rel = abs[n] ? abs + n : "/";
			return m->h;
		}
	}
	return NULL;
}

static int prov_event_fds(void *ctx, struct ucg_engine *e, unsigned efd, unsigned cfd,
			  struct ucg_event_target *ret)
{
	static char path[4096]; /* used under d->lock only */
	struct daemon *d = ctx;

	return ucg_fs_events_fds(d->writer, efd, cfd, events_find, d, path, sizeof(path), ret);
}

static void prov_event_put(void *ctx, struct ucg_engine *e, uint64_t handle)
{
	ucg_fs_events_put(handle);
}

static const struct ucg_provider_ops prov_ops = {
	.event_fds = prov_event_fds,
	.event_put = prov_event_put,
	.event_queued = prov_release_queued, /* wakes the main loop */
	.sync = prov_sync,
	.release_queued = prov_release_queued,
	.cpus_changed = prov_cpus_changed,
	.mems_migrate = prov_mems_migrate,
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
		drain(d);
		r = ucg_proc_cgroup(d->e, atoi(argv[1]), argc > 2 ? atoi(argv[2]) : 0, &out);
		unlock_checked(d);
	} else if (!strcmp(argv[0], "cgroups")) {
		pthread_mutex_lock(&d->lock);
		r = ucg_proc_cgroups(d->e, &out);
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(argv[0], "mounts")) {
		list_mounts(d, &out);
		r = 0;
	} else if (!strcmp(argv[0], "stats")) {
		struct ucg_host_stats s;
		struct mnt *m;
		int rings = 0;

		pthread_mutex_lock(&d->lock);
		for (m = d->mounts; m; m = m->next)
			rings += ucg_uring_active(m->uring);
		drain(d);
		ucg_host_get_stats(d->host, &s);
		ucg_buf_printf(&out, "forks %llu\nexits %llu\nevents %llu\nresyncs %llu\ntasks %zu\n",
			       (unsigned long long)s.forks, (unsigned long long)s.exits,
			       (unsigned long long)s.events, (unsigned long long)s.resyncs,
			       ucg_task_count(d->e));
		/* The FUSE transport: mounts served through io_uring, requests answered
		 * through a ring. */
		ucg_buf_printf(&out, "uring_mounts %d\nuring_requests %llu\n", rings,
			       ucg_uring_requests_total());
		/* How files are served: exact (direct_io) or cache (UCG_FUSE_CACHE=1). */
		ucg_buf_printf(&out, "file_mode %s\n", d->cache ? "cache" : "exact");
		unlock_checked(d);
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

/* The file-serving mode (header comment): cache mode only when UCG_FUSE_CACHE says
 * so (1, on, yes); exact otherwise. */
static int cache_mode_wanted(void)
{
	const char *env = getenv("UCG_FUSE_CACHE");

	return env && (!strcmp(env, "1") || !strcmp(env, "on") || !strcmp(env, "yes"));
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
	d.cache = cache_mode_wanted();
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.note_sent, NULL);
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
	cfg.nr_mems = (unsigned)ucg_enforce_nr_mems();
	r = ucg_engine_new(&cfg, &d.e);
	if (r < 0)
		goto out;
	r = ucg_host_populate(d.host, d.e);
	if (r < 0)
		goto out;
	r = listen_socket(&d.listen_fd);
	if (r < 0)
		goto out;
	fprintf(stderr, "ucg: files served %s\n",
		d.cache ? "from the kernel's cache (UCG_FUSE_CACHE=1: reads overlapping a change may "
			  "be stale, cut or padded)"
			: "exact (direct_io, open checked; UCG_FUSE_CACHE=1 for cached content)");
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
		/* exits from taskstats too: a cached cgroup.procs must lose a reaped
		 * child before its parent reads it (the connector tells only later) */
		struct pollfd pfd[5] = {
			{ d.listen_fd, POLLIN, 0 },
			{ d.sig_fd, POLLIN, 0 },
			{ d.wake_fd, POLLIN, 0 },
			{ ucg_host_fd(d.host), POLLIN, 0 },
			{ ucg_host_exit_fd(d.host), POLLIN, 0 },
		};
		int n = poll(pfd, 5, freezing ? 10 : 100);

		if (n < 0 && errno != EINTR)
			break;
		if (pfd[3].revents || pfd[4].revents) {
			pthread_mutex_lock(&d.lock);
			drain(&d);
			unlock_checked(&d);
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
		pthread_mutex_lock(&d.lock);
		ucg_fs_events_deliver(d.e);
		pthread_mutex_unlock(&d.lock);
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
		d.content_dirty = 1; /* freezer states confirmed, tasks found continued */
		unlock_checked(&d);
		if (now.tv_sec * 1000 + now.tv_nsec / 1000000 >= next_cpu_ms) {
			pthread_mutex_lock(&d.lock);
			ucg_host_sample_cpu(d.host, d.e);
			d.content_dirty = 1; /* cpuacct's figures moved */
			unlock_checked(&d);
			next_cpu_ms = now.tv_sec * 1000 + now.tv_nsec / 1000000 + 1000;
		}
		if (now.tv_sec * 1000 + now.tv_nsec / 1000000 >= next_reap_ms) {
			pthread_mutex_lock(&d.lock);
			ucg_host_reap_check(d.host, d.e);
			d.content_dirty = 1; /* exited leaders leave cgroup.procs */
			unlock_checked(&d);
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
