/* fs/ll_ops.c — the FUSE low-level operation table, the only place requests arrive.
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
 *    could be refused (ucgfs_entry_timeout). Negative entries are never cached.
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
 *       each one whose content changed are invalidated at once
 *       (fs/cached_content.c). Reads that overlap a change may be stale, cut or
 *       padded (docs/filesystem.md, "Known deviations"): hence not the default.
 */
#include "fs/daemon_impl.h"

#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/fcache.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The view to describe a node with: only a regular file's, only in cache mode (in
 * exact mode a file shows size 0 as in the kernel, and its attributes stay valid). */
static const struct file_view *view_of(const struct mnt *m, const struct ucg_stat *s,
				       const struct file_view *fv)
{
	return m->d->cache && S_ISREG(s->mode) ? fv : NULL;
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
	/* Cached file pages are dropped when a file's mtime or size changes
	 * (fs/cached_content.c), and reads are sent as readahead, answered in the
	 * daemon's write of the reply. */
	if (!(conn->capable & FUSE_CAP_AUTO_INVAL_DATA))
		fprintf(stderr, "ucg: the kernel lacks auto_inval_data: file reads may be stale\n");
	conn->want |= conn->capable & (FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_ASYNC_READ);
	conn->want &= ~(unsigned)FUSE_CAP_EXPLICIT_INVAL_DATA;
}

/* Negative entries are never cached: a name's absence is not a fact about the walk
 * to it, and a cached one would answer ENOENT where a chmod since wants EACCES. */
static void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mnt *m = req_mnt(req);
	struct caller c;
	const struct ucg_cred *cred = ucgfs_get_caller(req, m->d, &c);
	struct fuse_entry_param e;
	struct file_view fv;
	struct ucg_buf path;
	struct ucg_stat s;
	double timeout = 0;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = ucgfs_child_path(m, parent, name, &path);
	if (r == 0)
		r = ucg_fs_getattr(m->d->e, m->h, path.data, cred, &s);
	if (r == 0) {
		timeout = ucgfs_entry_timeout(m, parent);
		if (S_ISREG(s.mode) && m->d->cache) {
			struct ucgfs_fcache_ent *fe;

			ucgfs_tell_file(m, path.data, &s, 0, &fv);
			fe = ucgfs_fcache_find(&m->files, s.ino);
			if (fe)
				fe->nlookup++;
		}
	}
	ucgfs_unlock_checked(m->d);
	ucg_buf_fini(&path);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	ucgfs_fill_entry(m, &s, view_of(m, &s, &fv), timeout, &e);
	fuse_reply_entry(req, &e);
}

/* Nodes are the engine's; a file's description goes when the kernel forgot every
 * lookup of it (it holds nothing of the inode then). Counted, not dropped at the
 * first FORGET: the kernel may have looked the file up again, as a new inode, before
 * the old one's FORGET arrives, and that one's changes must still be announced. */
static void forget_file(struct mnt *m, uint64_t ino, uint64_t nlookup)
{
	struct ucgfs_fcache_ent *e = ucgfs_fcache_find(&m->files, ino);

	if (!e)
		return;
	e->nlookup -= nlookup < e->nlookup ? nlookup : e->nlookup;
	if (!e->nlookup)
		ucgfs_fcache_del(&m->files, ino);
}

static void ll_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct mnt *m = req_mnt(req);

	pthread_mutex_lock(&m->d->lock);
	forget_file(m, ino, nlookup);
	ucgfs_unlock_checked(m->d);
	fuse_reply_none(req);
}

static void ll_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct mnt *m = req_mnt(req);
	size_t i;

	pthread_mutex_lock(&m->d->lock);
	for (i = 0; i < count; i++)
		forget_file(m, forgets[i].ino, forgets[i].nlookup);
	ucgfs_unlock_checked(m->d);
	fuse_reply_none(req);
}

/* fi is set when the kernel asks on behalf of an open file: in cache mode before a
 * read (auto inval_data), never for stat(2) or fstat(2); in exact mode for fstat(2),
 * which a file whose cgroup was removed still answers (docs/kernel/core.md §3.5). */
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
	r = ucgfs_node_attrs(m, ino, &path, &s, fi != NULL, &fv);
	if (r == 0 && fi && m->d->cache && ucgfs_node_stat(m, ino, &path, &s) == -ENOENT)
		r = -ENODEV; /* a read of a removed cgroup's file asks first (docs/kernel/core.md §3.5) */
	ucgfs_unlock_checked(m->d);
	ucg_buf_fini(&path);
	if (r == -ENOENT && ucgfs_open_file_stat(fi, &s) == 0)
		r = 0;
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	ucgfs_fill_stat(m, &s, view_of(m, &s, &fv), &st);
	fuse_reply_attr(req, &st, attr_timeout(view_of(m, &s, &fv)));
}

/* chmod, chown; truncate and utimens succeed on existing entries and change nothing
 * (docs/kernel/core.md §3.4). The other mounts forget the node's attributes, and a chmod that
 * takes search permission away from someone makes every mount forget the directory's
 * entries (see ucgfs_entry_timeout): notes queued here, not by the engine's observer,
 * which knows neither the node id of a file nor the mode before. */
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
		cred = ucgfs_get_caller(req, d, &c);
	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	r = ucgfs_node_stat(m, ino, &path, &before);
	if (r == 0 && (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
		r = ucg_fs_chown(d->e, m->h, path.data,
				 (to_set & FUSE_SET_ATTR_UID) ? (uint32_t)attr->st_uid : (uint32_t)-1,
				 (to_set & FUSE_SET_ATTR_GID) ? (uint32_t)attr->st_gid : (uint32_t)-1,
				 cred);
	if (r == 0 && (to_set & FUSE_SET_ATTR_MODE))
		r = ucg_fs_chmod(d->e, m->h, path.data, attr->st_mode & 07777, cred);
	if (cred && r == 0) {
		b = ucgfs_begin_notes(m);
		ucgfs_queue_note(d, m->h, NOTE_INODE, 0, ino, NULL);
		if (S_ISDIR(before.mode) && all_search(before.mode) &&
		    !all_search(attr->st_mode) && (to_set & FUSE_SET_ATTR_MODE)) {
			struct ucg_buf names;

			ucg_buf_init(&names);
			ucgfs_dir_listing(d, m->h, path.data, &names);
			ucgfs_queue_dir_entries(d, m->h, ino, &names, NULL);
			ucg_buf_fini(&names);
		}
		ucgfs_end_notes(d);
	}
	if (r == 0 || (r == -ENOENT && !cred))
		r = ucgfs_node_attrs(m, ino, &path, &s, 0, &fv);
	ucgfs_unlock_checked(d);
	ucg_buf_fini(&path);
	if (r == -ENOENT && !cred && ucgfs_open_file_stat(fi, &s) == 0)
		r = 0;
	ucgfs_finish_notes(m, b);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	ucgfs_fill_stat(m, &s, view_of(m, &s, &fv), &st);
	fuse_reply_attr(req, &st, attr_timeout(view_of(m, &s, &fv)));
}

static void ll_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = ucgfs_get_caller(req, d, &c);
	struct fuse_entry_param e;
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf path;
	struct ucg_stat s;
	struct batch *b = NULL;
	double timeout = 0;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	b = ucgfs_begin_notes(m); /* the other mounts are told by the engine's observer */
	r = ucgfs_child_path(m, parent, name, &path);
	if (r == 0)
		r = ucg_fs_mkdir(d->e, m->h, path.data, mode & 07777, cred);
	ucgfs_end_notes(d);
	if (r == 0) {
		r = ucg_fs_getattr(d->e, m->h, path.data, &root, &s);
		timeout = ucgfs_entry_timeout(m, parent);
	}
	ucgfs_unlock_checked(d);
	ucg_buf_fini(&path);
	ucgfs_finish_notes(m, b);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	ucgfs_fill_entry(m, &s, NULL, timeout, &e);
	fuse_reply_entry(req, &e);
}

static void ll_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mnt *m = req_mnt(req);
	struct daemon *d = m->d;
	struct caller c;
	const struct ucg_cred *cred = ucgfs_get_caller(req, d, &c);
	struct ucg_buf path;
	struct batch *b;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&d->lock);
	b = ucgfs_begin_notes(m); /* the other mounts are told by the engine's observer */
	r = ucgfs_child_path(m, parent, name, &path);
	if (r == 0)
		r = ucg_fs_rmdir(d->e, m->h, path.data, cred);
	ucgfs_end_notes(d);
	ucgfs_unlock_checked(d);
	ucg_buf_fini(&path);
	ucgfs_finish_notes(m, b);
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
	struct batch *b;
	int r;

	if (flags & RENAME_EXCHANGE) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	cred = ucgfs_get_caller(req, d, &c);
	ucg_buf_init(&from);
	ucg_buf_init(&to);
	pthread_mutex_lock(&d->lock);
	b = ucgfs_begin_notes(m); /* the other mounts are told by the engine's observer */
	r = ucgfs_child_path(m, parent, name, &from);
	if (r == 0)
		r = ucgfs_child_path(m, newparent, newname, &to);
	if (r == 0)
		r = ucg_fs_rename(d->e, m->h, from.data, to.data, cred);
	ucgfs_end_notes(d);
	ucgfs_unlock_checked(d);
	ucg_buf_fini(&from);
	ucg_buf_fini(&to);
	ucgfs_finish_notes(m, b);
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
	const struct ucg_cred *cred = ucgfs_get_caller(req, m->d, &c);
	struct ucg_buf path;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = ucgfs_child_path(m, parent, name, &path);
	if (r == 0)
		r = op(m->d->e, m->h, path.data, cred);
	ucgfs_unlock_checked(m->d);
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

/* access(2) and chdir: the VFS's generic permission rule on the engine's modes, after
 * the engine's walk with the caller's credentials. */
static void ll_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct mnt *m = req_mnt(req);
	struct caller c;
	const struct ucg_cred *cred = ucgfs_get_caller(req, m->d, &c);
	struct ucg_buf path;
	struct ucg_stat st;
	unsigned bits;
	size_t i;
	int r;

	ucg_buf_init(&path);
	pthread_mutex_lock(&m->d->lock);
	r = ucgfs_node_path(m, ino, &path);
	if (r == 0)
		r = ucg_fs_getattr(m->d->e, m->h, path.data, cred, &st);
	ucgfs_unlock_checked(m->d);
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

const struct fuse_lowlevel_ops ucgfs_ll_ops = {
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
	.open = ucgfs_ll_open,
	.read = ucgfs_ll_read,
	.write = ucgfs_ll_write,
	.release = ucgfs_ll_release,
	.opendir = ucgfs_ll_opendir,
	.readdir = ucgfs_ll_readdir,
	.releasedir = ucgfs_ll_releasedir,
	.create = ll_create,
};
