/* fs/ll_dir.c — directory listings: taken at opendir (with the opener's
 * credentials) and again at each rewind, served by offset.
 */
#include "fs/daemon_impl.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/ucg.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

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
	r = ucgfs_node_path(m, ino, &path);
	if (r == 0)
		r = ucg_fs_readdir(m->d->e, m->h, path.data, cred ? cred : &root, dir_fill, &dc);
	ucgfs_unlock_checked(m->d);
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

void ucgfs_ll_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mnt *m = req_mnt(req);
	struct caller c;
	const struct ucg_cred *cred = ucgfs_get_caller(req, m->d, &c);
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

void ucgfs_ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
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

void ucgfs_ll_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	dirh_free((struct dirh *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}
