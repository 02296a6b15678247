/* fs/cached_content.c — cache mode: what each mount's kernel was told of each file
 * (fs/fcache.h), and the check of those files after every engine change.
 */
#include "fs/daemon_impl.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/fcache.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

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

/* Read permission for everyone: owner, group and others all have r. */
static int all_read(uint32_t mode)
{
	return (mode & 0444) == 0444;
}

/* The whole content of path read with cred and open flags (under d->lock). */
int ucgfs_read_content(struct mnt *m, const char *path, int flags, const struct ucg_cred *cred,
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
	int r = ucgfs_read_content(m, path, O_RDONLY, &root, out);

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

/* The kernel's description of e is out of date: a new version (its pages go when it
 * next takes new attributes) and the attributes invalidated. The pages are not
 * dropped here: a reader whose GETATTR crossed a later change has its answer
 * discarded by the kernel and reads with the size it had; with the pages it had, it
 * reads a whole older value, without them a newer one cut or padded to that size. */
void ucgfs_make_stale(struct mnt *m, struct ucgfs_fcache_ent *e)
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
static struct ucgfs_fcache_ent *describe(struct mnt *m, uint64_t ino, const struct ucg_buf *content,
					 int readable)
{
	struct ucgfs_fcache_ent *e = ucgfs_fcache_get(&m->files, ino);
	uint64_t hash = ucgfs_fcache_hash(content->data, content->len);

	if (!e)
		return NULL;
	if (e->hash != hash || e->len != content->len)
		e->ver++;
	e->hash = hash;
	ucgfs_fcache_set_snap(e, content->data, content->len);
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
void ucgfs_tell_file(struct mnt *m, const char *path, const struct ucg_stat *s, int for_read,
		     struct file_view *fv)
{
	struct ucg_buf content;
	struct ucgfs_fcache_ent *e;
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

static void check_file(struct ucgfs_fcache_ent *e, void *arg)
{
	struct check_ctx *c = arg;
	struct ucg_stat s;

	if (!e->told)
		return;
	if (ucgfs_node_stat(c->m, e->ino, &c->path, &s) < 0) {
		e->gone = 1; /* its cgroup was removed: reads now fail with ENODEV */
		ucgfs_make_stale(c->m, e);
		return;
	}
	root_content(c->m, c->path.data, &c->content);
	if (c->content.len != e->len ||
	    ucgfs_fcache_hash(c->content.data, c->content.len) != e->hash ||
	    s.mode != e->st.mode || s.uid != e->st.uid || s.gid != e->st.gid)
		ucgfs_make_stale(c->m, e);
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
			ucgfs_fcache_each(&c.m->files, check_file, &c);
	}
	ucg_buf_fini(&c.path);
	ucg_buf_fini(&c.content);
}

/* Every critical section that may have changed the engine ends here: nothing is
 * answered from a new state before the kernels were told. */
void ucgfs_unlock_checked(struct daemon *d)
{
	if (d->content_dirty && d->cache)
		cache_check(d);
	else
		d->content_dirty = 0; /* exact mode: no kernel holds content */
	pthread_mutex_unlock(&d->lock);
}
