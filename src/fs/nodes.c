/* fs/nodes.c — what every FUSE request is translated through. A FUSE node id is the
 * engine's inode number (ucg_stat.ino; FUSE_ROOT_ID stands for the root's), turned
 * back into the engine's path on each request (ucg_fs_ino_path); attributes are
 * filled as the mount's kernel is to see them; a caller's credentials come from the
 * host provider.
 */
#include "fs/daemon_impl.h"

#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/fcache.h"
#include "host/host.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

const struct ucg_cred *ucgfs_get_caller(fuse_req_t req, struct daemon *d, struct caller *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	int r = -ENOENT;

	/* Apply queued uid/gid/exec events first: they invalidate cached callers. */
	pthread_mutex_lock(&d->lock);
	ucgfs_drain(d);
	if (d->host) /* a sandbox has none: FUSE's ids below */
		r = ucg_host_caller_cred(d->host, ctx->pid, &c->cred, c->groups);
	ucgfs_unlock_checked(d);
	if (r < 0 && !d->host && ctx->uid == 0) {
		/* A sandbox's root caller is a root process: every capability. */
		c->cred = ucg_cred_root();
		c->cred.tid = c->cred.tgid = ctx->pid;
	} else if (r < 0) {
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
int ucgfs_node_path(struct mnt *m, fuse_ino_t id, struct ucg_buf *out)
{
	ucg_buf_reset(out);
	if (id == FUSE_ROOT_ID) {
		ucg_buf_putc(out, '/');
		return ucg_buf_error(out);
	}
	return ucg_fs_ino_path(m->h, id, out);
}

/* The engine path of name in directory parent (under d->lock). */
int ucgfs_child_path(struct mnt *m, fuse_ino_t parent, const char *name, struct ucg_buf *out)
{
	int r = ucgfs_node_path(m, parent, out);

	if (r < 0)
		return r;
	if (out->data[out->len - 1] != '/')
		ucg_buf_putc(out, '/');
	ucg_buf_puts(out, name);
	return ucg_buf_error(out);
}

/* fv: NULL for a directory. */
void ucgfs_fill_stat(const struct mnt *m, const struct ucg_stat *s, const struct file_view *fv,
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

void ucgfs_fill_entry(const struct mnt *m, const struct ucg_stat *s, const struct file_view *fv,
		      double timeout, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = to_fuse(m, s->ino);
	e->attr_timeout = attr_timeout(fv);
	e->entry_timeout = timeout;
	ucgfs_fill_stat(m, s, fv, &e->attr);
}

/* How long the kernel may keep an entry of directory dir (under d->lock). The kernel
 * walks a cached entry without asking us, so without search permission for everyone
 * on dir it must ask each time: then the engine checks the whole walk with the
 * caller's credentials. The directories above dir are covered by their own entries. */
double ucgfs_entry_timeout(struct mnt *m, fuse_ino_t dir)
{
	struct ucg_buf path;
	struct ucg_stat s;
	int r;

	ucg_buf_init(&path);
	r = ucgfs_node_stat(m, dir, &path, &s);
	ucg_buf_fini(&path);
	return r == 0 && all_search(s.mode) ? CACHE_TIMEOUT_S : 0;
}

/* The attributes of node id for m's kernel (under d->lock). A file whose cgroup was
 * removed keeps its last attributes while the kernel holds it (fstat of an open file,
 * docs/kernel/core.md §3.5). fv is filled for a regular file. */
int ucgfs_node_attrs(struct mnt *m, fuse_ino_t id, struct ucg_buf *path, struct ucg_stat *s,
		     int for_read, struct file_view *fv)
{
	struct ucgfs_fcache_ent *e;
	int r = ucgfs_node_stat(m, id, path, s);

	if (!m->d->cache)
		return r;
	if (r == 0 && S_ISREG(s->mode)) {
		ucgfs_tell_file(m, path->data, s, for_read, fv);
	} else if (r == -ENOENT && (e = ucgfs_fcache_find(&m->files, id)) && e->gone) {
		*s = e->st;
		fv->size = e->len;
		fv->ver = e->ver;
		fv->timeout = 0;
		r = 0;
	}
	return r;
}

/* Attributes of node id, without permission checks (under d->lock). */
int ucgfs_node_stat(struct mnt *m, fuse_ino_t id, struct ucg_buf *path, struct ucg_stat *s)
{
	struct ucg_cred root = ucg_cred_root();
	int r = ucgfs_node_path(m, id, path);

	return r < 0 ? r : ucg_fs_getattr(m->d->e, m->h, path->data, &root, s);
}
