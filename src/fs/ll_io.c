/* fs/ll_io.c — open, read, write and release of control files, in the two modes
 * fs/ll_ops.c describes: exact mode through the engine's handle of each open, cache
 * mode without an open, each read or write checked with its own request's
 * credentials.
 */
#include "fs/daemon_impl.h"
#include "fs/kenforce.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/fcache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* No-open (fs/ll_ops.c): the kernel then opens every file of this mount
 * without asking, keeps its pages between opens and sends no RELEASE. Whether the
 * opener may read or write is decided at the first read or write, by the engine with
 * that request's credentials (docs/filesystem.md lists what differs from the kernel). */
static void ll_open_cached(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, ENOSYS);
}

/* ---- exact mode: opened files ---------------------------------------------------------- */

/* An open file in exact mode: the engine's handle and the attributes it had when
 * opened (fstat of a file whose cgroup was removed still works, docs/kernel/core.md §3.5). */
struct fh {
	struct ucg_file *f;
	struct ucg_stat st;
	struct ucg_buf v2; /* the content from the kernel's v2 files (fs/kenforce.h) */
	int from_v2;
};

static struct fh *fh_of(const struct fuse_file_info *fi)
{
	return fi ? (struct fh *)(uintptr_t)fi->fh : NULL;
}

/* The attributes an open file had when it was opened (exact mode), or -ENOENT. */
int ucgfs_open_file_stat(const struct fuse_file_info *fi, struct ucg_stat *s)
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
	const struct ucg_cred *cred = ucgfs_get_caller(req, d, &c);
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
	r = ucgfs_node_path(m, ino, &path);
	if (r == 0)
		r = ucg_fs_open(d->e, m->h, path.data, flags, cred, &h->f);
	if (r == 0 && ucg_fs_getattr(d->e, m->h, path.data, &root, &h->st) < 0)
		memset(&h->st, 0, sizeof(h->st));
	ucg_buf_init(&h->v2);
	if (r == 0 && (flags & O_ACCMODE) == O_RDONLY)
		h->from_v2 = ucgfs_kenforce_show(d->kenforce, m->h, path.data, &h->v2) == 0;
	ucgfs_unlock_checked(d);
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
		ucg_buf_fini(&h->v2);
		ucg_free(h);
	}
}

static void ll_read_exact(fuse_req_t req, struct mnt *m, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	struct ucg_file *f = fh_of(fi)->f;
	char stack[4096], *buf = size <= sizeof(stack) ? stack : malloc(size);
	struct fh *h = fh_of(fi);
	ssize_t n;

	if (h->from_v2) { /* taken at open from the kernel */
		size_t at = (size_t)off < h->v2.len ? (size_t)off : h->v2.len;

		fuse_reply_buf(req, h->v2.data ? h->v2.data + at : "",
			       h->v2.len - at < size ? h->v2.len - at : size);
		if (buf != stack)
			free(buf);
		return;
	}
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&m->d->lock);
	n = ucg_fs_read(f, buf, size, off);
	ucgfs_unlock_checked(m->d);
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
	n = ucg_fs_write(f, buf, size); /* what it changed: fs/observer.c */
	ucgfs_unlock_checked(m->d);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

/* Only exact mode's opens send it (no-open sends none). */
void ucgfs_ll_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct fh *h = fh_of(fi);

	if (h) {
		pthread_mutex_lock(&m->d->lock);
		ucg_fs_release(h->f);
		pthread_mutex_unlock(&m->d->lock);
		ucg_buf_fini(&h->v2);
		ucg_free(h);
	}
	fuse_reply_err(req, 0);
}

void ucgfs_ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
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
 * removed while it was open answers ENODEV (docs/kernel/core.md §3.5). */
static int io_path(struct mnt *m, fuse_ino_t ino, struct ucg_buf *path)
{
	int r = ucgfs_node_path(m, ino, path);

	return r == -ENOENT ? -ENODEV : r;
}

/* The reader's permission is checked as its open would have been; the answer is the
 * snapshot whose length the kernel was given as the size (see struct
 * ucgfs_fcache_ent): a change made since was announced, and the kernel asks again
 * before it trusts these pages once it knows. Without a snapshot, the engine's
 * content now. */
static void ll_read_cached(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = ucgfs_get_caller(req, d, &c);
	struct ucgfs_fcache_ent *e;
	struct ucg_buf path, content;
	struct ucg_file *f;
	int r;

	ucg_buf_init(&path);
	ucg_buf_init(&content);
	pthread_mutex_lock(&d->lock);
	r = io_path(m, ino, &path);
	e = r == 0 ? ucgfs_fcache_find(&m->files, ino) : NULL;
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
		r = ucgfs_read_content(m, path.data, io_flags(fi), cred, &content);
	}
	ucgfs_unlock_checked(d);
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
static int written_page_cached(const struct ucgfs_fcache_ent *e, size_t size)
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
	const struct ucg_cred *cred = ucgfs_get_caller(req, d, &c);
	struct ucgfs_fcache_ent *e;
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
		n = ucg_fs_write(f, buf, size); /* what it changed: fs/observer.c */
		ucg_fs_release(f);
	}
	e = ucgfs_fcache_find(&m->files, ino);
	cached = written_page_cached(e, size);
	if (e) {
		e->pages = 0; /* dropped below, waited for */
		ucgfs_make_stale(m, e);
	}
	pages = cached ? ucgfs_drop_pages(m, ino, 1) : NULL;
	ucgfs_unlock_checked(d);
	ucg_buf_fini(&path);
	ucgfs_wait_pages(d, pages);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

/* A file opened in exact mode has its handle; one opened without (cache mode) none. */
void ucgfs_ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	if (fh_of(fi))
		ll_read_exact(req, req_mnt(req), size, off, fi);
	else
		ll_read_cached(req, ino, size, off, fi);
}

void ucgfs_ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	if (fh_of(fi))
		ll_write_exact(req, req_mnt(req), buf, size, fi);
	else
		ll_write_cached(req, ino, buf, size, fi);
}
