/* engine/fs.c — the file API: what the VFS and kernfs do on a cgroup v1 mount.
 *
 * Paths are resolved one component at a time from the hierarchy root; looking up a
 * name in a directory needs search (x) permission on it, as in the VFS. Each child
 * is found through its parent's name table, so resolution is O(depth). Operations
 * check in the order the kernel does (VFS first, then the cgroup filesystem), since
 * that order decides which errno a caller sees when several things are wrong.
 */
#include "base/alloc.h"
#include "base/bitmap.h"
#include "base/kctype.h"
#include "base/memparse.h"
#include "base/parse.h"
#include "engine/cgroup.h"
#include "engine/observer.h"
#include "engine/perm.h"
#include "engine/types.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

struct ucg_file {
	struct ucg_engine *e;
	struct ucg_cgroup *cg; /* holds a reference */
	const struct ucg_cftype *cft;
	const struct ucg_subsys *ss; /* NULL for core files */
	int flags;
	struct ucg_of of;
	struct ucg_buf snapshot;
	int have_snapshot;
};

/* What a path names: a cgroup directory (file < 0) or one of its control files. */
struct target {
	struct ucg_cgroup *cg;
	int file;
};

static int dir_access(const struct ucg_cred *c, const struct ucg_cgroup *cg, int want)
{
	return ucg_perm_check(c, cg->mode, cg->uid, cg->gid, 1, want);
}

/* Splits off the next component of *p (skipping slashes) before end. 0 when none is
 * left. Short names end within a few bytes of a loop; longer ones go to memchr (a
 * byte loop over them was a lookup's largest own cost, a memchr call per one-letter
 * name costs more than the loop). */
static size_t next_component(const char **p, const char *end, const char **comp)
{
	const char *s = *p, *e, *stop;

	while (s < end && *s == '/')
		s++;
	stop = end - s > 8 ? s + 8 : end;
	for (e = s; e < stop && *e != '/'; e++)
		;
	if (e == stop && e < end) {
		e = memchr(e, '/', (size_t)(end - e));
		if (!e)
			e = end;
	}
	*comp = s;
	*p = e;
	return (size_t)(e - s);
}

/* Search permission on every directory above cg, from the root down: what walking
 * a path to cg checks. */
static int ancestors_access(const struct ucg_cred *cred, const struct ucg_cgroup *cg)
{
	int r;

	if (!cg->parent || ucg_perm_search_always(cred))
		return 0;
	r = ancestors_access(cred, cg->parent);
	return r < 0 ? r : dir_access(cred, cg->parent, UCG_MAY_EXEC);
}

/* Walks path[from..end) from cur, one component at a time. */
static int walk(struct ucg_cgroup *cur, const char *p, const char *end,
		const struct ucg_cred *cred, struct target *ret)
{
	const char *comp;
	size_t len;
	int r, search = ucg_perm_search_always(cred);

	while ((len = next_component(&p, end, &comp))) {
		struct ucg_cgroup *child;
		int idx;

		r = search ? 0 : dir_access(cred, cur, UCG_MAY_EXEC);
		if (r < 0)
			return r;
		child = ucg_cgroup_find_child(cur, comp, len);
		if (child) {
			cur = child;
			continue;
		}
		idx = ucg_cgroup_find_file(cur, comp, len);
		if (idx < 0)
			return -ENOENT;
		while (p < end && *p == '/')
			p++;
		if (p < end)
			return -ENOTDIR; /* a component follows a file */
		ret->cg = cur;
		ret->file = idx;
		return 0;
	}
	ret->cg = cur;
	ret->file = -1;
	return 0;
}

/* Resolves the first plen bytes of path (which starts with '/'). The directory part
 * (up to the last component) goes through the hierarchy's dircache: a hit gives the
 * cgroup the walk would reach, and since the tree has not changed since it was
 * stored, every lookup on the way would succeed, so only the search permissions are
 * left to check, in the walk's order. The last component is looked up as usual. */
static int resolve_n(struct ucg_hierarchy *h, const char *path, size_t plen,
		     const struct ucg_cred *cred, struct target *ret)
{
	const char *end = path + plen, *last = end;
	struct ucg_cgroup *dir;
	size_t dlen;
	int r;

	while (last > path && last[-1] == '/')
		last--;
	if (last > path) { /* back to the slash before the last component */
		const char *slash = memrchr(path, '/', (size_t)(last - path));

		last = slash ? slash + 1 : path;
	}
	dlen = (size_t)(last - path);
	if (dlen <= 1)
		return walk(h->root, path, end, cred, ret);
	dir = ucg_dircache_find(&h->dircache, path, dlen);
	if (dir) {
		r = ancestors_access(cred, dir);
		if (r < 0)
			return r;
	} else {
		r = walk(h->root, path, last, cred, ret);
		if (r < 0)
			return r;
		if (ret->file >= 0) /* a file with a component after it: the walk's answer */
			return walk(h->root, path, end, cred, ret);
		dir = ret->cg;
		ucg_dircache_store(&h->dircache, path, dlen, dir);
	}
	return walk(dir, last, end, cred, ret);
}

static int resolve(struct ucg_hierarchy *h, const char *path, const struct ucg_cred *cred,
		   struct target *ret)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	return resolve_n(h, path, strlen(path), cred, ret);
}

/* Resolves everything but the last component, which must be a plain name. */
static int resolve_parent(struct ucg_hierarchy *h, const char *path, const struct ucg_cred *cred,
			  struct ucg_cgroup **ret_parent, const char **ret_name, size_t *ret_len)
{
	const char *end, *slash, *name;
	struct target t;
	int r;

	if (!path || path[0] != '/')
		return -EINVAL;
	end = path + strlen(path);
	while (end > path + 1 && end[-1] == '/')
		end--;
	slash = end;
	while (slash > path && slash[-1] != '/')
		slash--;
	name = slash;
	if (name == end)
		return -EBUSY; /* the root itself */
	r = resolve_n(h, path, (size_t)(slash - path), cred, &t);
	if (r < 0)
		return r;
	if (t.file >= 0)
		return -ENOTDIR;
	*ret_parent = t.cg;
	*ret_name = name;
	*ret_len = (size_t)(end - name);
	return 0;
}

static uint64_t file_ino(const struct ucg_cgroup *cg, int idx)
{
	return (cg->serial << 8) | (uint64_t)(idx + 1);
}

uint64_t ucg_cgroup_ino(const struct ucg_cgroup *cg)
{
	return file_ino(cg, -1);
}

static void stat_dir(const struct ucg_cgroup *cg, struct ucg_stat *st)
{
	st->ino = file_ino(cg, -1);
	st->mode = S_IFDIR | cg->mode;
	st->uid = cg->uid;
	st->gid = cg->gid;
	st->nlink = 2 + (uint32_t)cg->nr_children;
}

static void stat_file(const struct ucg_cgroup *cg, int idx, struct ucg_stat *st)
{
	struct ucg_file_attr a = ucg_cgroup_file_attr(cg, idx);

	st->ino = file_ino(cg, idx);
	st->mode = S_IFREG | a.mode;
	st->uid = a.uid;
	st->gid = a.gid;
	st->nlink = 1;
}

static int serial_match(const void *member, const void *key)
{
	return ((const struct ucg_cgroup *)member)->serial == *(const uint64_t *)key;
}

int ucg_fs_ino_path(struct ucg_hierarchy *h, uint64_t ino, struct ucg_buf *out)
{
	uint64_t serial = ino >> 8;
	int idx = (int)(ino & 0xff) - 1, n;
	struct ucg_cgroup *cg = ucg_otable_find(&h->by_serial, ucg_cgroup_serial_hash(serial),
						serial_match, &serial);
	const struct ucg_dirfile *files;

	if (!cg)
		return -ENOENT;
	if (idx >= 0) {
		files = ucg_cgroup_files(cg, &n);
		if (idx >= n)
			return -ENOENT;
		if (cg->parent)
			ucg_cgroup_path(cg, out);
		ucg_buf_putc(out, '/');
		ucg_buf_puts(out, files[idx].name);
	} else {
		ucg_cgroup_path(cg, out);
	}
	return ucg_buf_error(out);
}

int ucg_fs_getattr(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		   const struct ucg_cred *cred, struct ucg_stat *ret)
{
	struct target t;
	int r = resolve(h, path, cred, &t);

	if (r < 0)
		return r;
	if (t.file < 0)
		stat_dir(t.cg, ret);
	else
		stat_file(t.cg, t.file, ret);
	return 0;
}

int ucg_fs_readdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		   const struct ucg_cred *cred, ucg_filldir_fn fn, void *ctx)
{
	struct target t;
	struct ucg_stat st;
	const struct ucg_dirfile *files;
	struct ucg_list *pos;
	int r = resolve(h, path, cred, &t), n, i;

	if (r < 0)
		return r;
	if (t.file >= 0)
		return -ENOTDIR;
	r = dir_access(cred, t.cg, UCG_MAY_READ);
	if (r < 0)
		return r;
	stat_dir(t.cg, &st);
	if (fn(ctx, ".", &st))
		return 0;
	if (t.cg->parent)
		stat_dir(t.cg->parent, &st);
	if (fn(ctx, "..", &st))
		return 0;
	files = ucg_cgroup_files(t.cg, &n);
	for (i = 0; i < n; i++) {
		stat_file(t.cg, i, &st);
		if (fn(ctx, files[i].name, &st))
			return 0;
	}
	ucg_list_for_each(pos, &t.cg->children) {
		struct ucg_cgroup *c = ucg_container_of(pos, struct ucg_cgroup, sibling);

		stat_dir(c, &st);
		if (fn(ctx, c->name, &st))
			return 0;
	}
	return 0;
}

/* ucg_fs_open's checks and set-up into a caller's struct (taking the cgroup
 * reference): read_all and write_all keep theirs on the stack, so a whole-file read or
 * write allocates nothing of its own. */
static int open_file(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, int flags,
		     const struct ucg_cred *cred, struct ucg_file *f)
{
	struct target t;
	struct ucg_file_attr a;
	const struct ucg_dirfile *df;
	int r, n, want = 0, acc = flags & O_ACCMODE;

	r = resolve(h, path, cred, &t);
	if (r < 0)
		return r == -ENOENT && (flags & O_CREAT) ? -EACCES : r;
	if (t.file < 0)
		return -EISDIR;
	if ((flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if (acc == O_RDONLY || acc == O_RDWR)
		want |= UCG_MAY_READ;
	if (acc == O_WRONLY || acc == O_RDWR)
		want |= UCG_MAY_WRITE;
	a = ucg_cgroup_file_attr(t.cg, t.file);
	r = ucg_perm_check(cred, a.mode, a.uid, a.gid, 0, want);
	if (r < 0)
		return r;
	df = &ucg_cgroup_files(t.cg, &n)[t.file];
	memset(f, 0, sizeof(*f));
	f->e = e;
	f->cg = t.cg;
	ucg_cgroup_get(t.cg);
	f->cft = df->cft;
	f->ss = df->ss;
	f->flags = flags;
	f->of.e = e;
	f->of.cg = t.cg;
	f->of.cft = df->cft;
	f->of.cred = *cred;
	f->of.cred.groups = NULL; /* not owned; attach rules need only the ids */
	f->of.cred.ngroups = 0;
	ucg_buf_init(&f->snapshot);
	return 0;
}

static void close_file(struct ucg_file *f)
{
	ucg_buf_fini(&f->snapshot);
	ucg_cgroup_put(f->cg);
}

int ucg_fs_open(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, int flags,
		const struct ucg_cred *cred, struct ucg_file **ret)
{
	struct ucg_file tmp, *f;
	int r = open_file(e, h, path, flags, cred, &tmp);

	if (r < 0)
		return r;
	f = ucg_calloc(1, sizeof(*f));
	if (!f) {
		close_file(&tmp);
		return -ENOMEM;
	}
	*f = tmp;
	*ret = f;
	return 0;
}

/* The file's cgroup was removed, or its controller unbound by a remount. */
static int file_gone(const struct ucg_file *f)
{
	return f->cg->removed || f->cg->h->dead ||
	       (f->ss && !(f->cg->h->ss_mask & (1u << f->ss->id)));
}

static void bind_css(struct ucg_file *f)
{
	f->of.css = f->ss ? f->cg->css[f->ss->id] : NULL;
}

/* What every read checks first: the file still there, open for reading, readable. */
static int read_check(const struct ucg_file *f)
{
	if (file_gone(f))
		return -ENODEV;
	if ((f->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (!f->cft->show && !f->cft->read_u64 && !f->cft->read_s64)
		return -EINVAL;
	return 0;
}

/* The checks before a read, then the whole content appended to into. */
static int show_into(struct ucg_file *f, struct ucg_buf *into)
{
	int r = read_check(f);

	if (r < 0)
		return r;
	bind_css(f);
	if (f->cft->show) {
		r = f->cft->show(&f->of, into);
	} else if (f->cft->read_u64) {
		ucg_buf_put_u64(into, f->cft->read_u64(&f->of));
		ucg_buf_putc(into, '\n');
	} else {
		ucg_buf_put_s64(into, f->cft->read_s64(&f->of));
		ucg_buf_putc(into, '\n');
	}
	if (r == 0)
		r = ucg_buf_error(into);
	return r;
}

ssize_t ucg_fs_read(struct ucg_file *f, char *buf, size_t size, off_t off)
{
	size_t avail;
	int r;

	r = read_check(f);
	if (r < 0)
		return r;
	if (off < 0)
		return -EINVAL;
	if (!f->have_snapshot || off == 0) {
		ucg_buf_reset(&f->snapshot);
		r = show_into(f, &f->snapshot);
		if (r < 0)
			return r;
		f->have_snapshot = 1;
	}
	if ((size_t)off >= f->snapshot.len)
		return 0;
	avail = f->snapshot.len - (size_t)off;
	if (size > avail)
		size = avail;
	memcpy(buf, f->snapshot.data + off, size);
	return (ssize_t)size;
}

/* The file's full name in its cgroup's current table ("memory.limit_in_bytes"), for
 * observers; NULL if it is no longer there. */
static const char *file_name(const struct ucg_file *f)
{
	int i, n;
	const struct ucg_dirfile *df = ucg_cgroup_files(f->cg, &n);

	for (i = 0; i < n; i++)
		if (df[i].cft == f->cft && df[i].ss == f->ss)
			return df[i].name;
	return NULL;
}

/* Observers' veto on a write whose text parsed: 0 at once when nobody listens. *asked
 * is the file's name once they all accepted, so that a refusal by the handler cancels
 * it with them. */
static int write_veto(const struct ucg_file *f, const char *buf, size_t len, const char **asked)
{
	const char *name;
	int r;

	if (!f->e->nr_observers)
		return 0;
	name = file_name(f);
	if (!name)
		return 0;
	r = ucg_observe_can_write(f->e, f->cg, name, buf, len);
	if (r == 0)
		*asked = name;
	return r;
}

ssize_t ucg_fs_write(struct ucg_file *f, const char *buf, size_t size)
{
	size_t max = f->cft->max_write_len ? f->cft->max_write_len : UCG_PAGE_SIZE;
	size_t len;
	const char *asked = NULL;
	int r;

	if ((f->flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	if (size == 0)
		return 0;
	if (size > max)
		return -E2BIG;
	if (file_gone(f))
		return -ENODEV;
	bind_css(f);
	len = ucg_text_len(buf, size);
	if (f->cft->write_u64) {
		uint64_t v;

		r = ucg_parse_u64(buf, len, &v);
		if (r == 0)
			r = write_veto(f, buf, len, &asked);
		if (r == 0)
			r = f->cft->write_u64(&f->of, v);
	} else if (f->cft->write_s64) {
		int64_t v;

		r = ucg_parse_s64(buf, len, &v);
		if (r == 0)
			r = write_veto(f, buf, len, &asked);
		if (r == 0)
			r = f->cft->write_s64(&f->of, v);
	} else if (f->cft->write_mem) {
		uint64_t v;

		r = ucg_parse_mem(buf, len, &v, NULL);
		if (r == 0)
			r = write_veto(f, buf, len, &asked);
		if (r == 0)
			r = f->cft->write_mem(&f->of, v);
	} else if (f->cft->write_str || f->cft->write_max) {
		const char *s = buf;
		size_t slen = len;

		ucg_kstrip(&s, &slen);
		if (f->cft->write_str) {
			r = write_veto(f, buf, len, &asked);
			if (r == 0)
				r = f->cft->write_str(&f->of, s, slen);
		} else {
			int64_t v = 0;
			int is_max = slen == 3 && !memcmp(s, "max", 3);

			r = is_max ? 0 : ucg_parse_s64(s, slen, &v);
			if (r == 0)
				r = write_veto(f, buf, len, &asked);
			if (r == 0)
				r = f->cft->write_max(&f->of, v, is_max);
		}
	} else if (f->cft->write_cpulist || f->cft->write_nodelist) {
		struct ucg_bitmap set; /* inline storage, 520 bytes */
		unsigned nbits = f->cft->write_cpulist ? f->e->cfg.nr_cpus : UCG_CFT_MAX_NUMNODES;

		r = ucg_bitmap_parse_list(buf, len, nbits, &set);
		if (r == 0)
			r = write_veto(f, buf, len, &asked);
		if (r == 0)
			r = f->cft->write_cpulist ? f->cft->write_cpulist(&f->of, &set)
						  : f->cft->write_nodelist(&f->of, &set);
	} else if (f->cft->write) {
		r = write_veto(f, buf, len, &asked);
		if (r == 0)
			r = f->cft->write(&f->of, buf, len);
	} else {
		r = -EINVAL; /* no write handler: root got past the mode at open */
	}
	if (r < 0) {
		if (asked)
			ucg_observe_cancel_write(f->e, f->cg, asked);
		return r;
	}
	if (f->e->nr_observers) {
		const char *name = file_name(f);

		if (name)
			UCG_OBSERVE(f->e, file_written, f->cg, name, buf, len);
	}
	return (ssize_t)size;
}

void ucg_fs_release(struct ucg_file *f)
{
	if (!f)
		return;
	close_file(f);
	ucg_free(f);
}

static int has_newline(const char *name, size_t len)
{
	return memchr(name, '\n', len) != NULL;
}

static int is_dot(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

int ucg_fs_mkdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, uint32_t mode,
		 const struct ucg_cred *cred)
{
	struct ucg_cgroup *parent, *cg;
	const char *name;
	size_t len;
	int r;

	r = resolve_parent(h, path, cred, &parent, &name, &len);
	if (r == -EBUSY)
		return -EEXIST; /* mkdir of the root: it exists */
	if (r < 0)
		return r;
	/* VFS order: search permission for the lookup, existence, then write permission;
	 * the cgroup filesystem's own name check comes last. */
	r = dir_access(cred, parent, UCG_MAY_EXEC);
	if (r < 0)
		return r;
	if (is_dot(name, len) || ucg_cgroup_find_child(parent, name, len) ||
	    ucg_cgroup_find_file(parent, name, len) >= 0)
		return -EEXIST;
	r = dir_access(cred, parent, UCG_MAY_WRITE | UCG_MAY_EXEC);
	if (r < 0)
		return r;
	if (has_newline(name, len))
		return -EINVAL;
	if (parent->removed)
		return -ENOENT;
	return ucg_cgroup_create(parent, name, len, mode, cred->fsuid, cred->fsgid, &cg);
}

int ucg_fs_rmdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		 const struct ucg_cred *cred)
{
	struct ucg_cgroup *parent, *cg;
	const char *name;
	size_t len;
	int r, idx;

	r = resolve_parent(h, path, cred, &parent, &name, &len);
	if (r < 0)
		return r;
	r = dir_access(cred, parent, UCG_MAY_EXEC);
	if (r < 0)
		return r;
	if (len == 1 && name[0] == '.')
		return -EINVAL;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return -ENOTEMPTY;
	cg = ucg_cgroup_find_child(parent, name, len);
	if (!cg) {
		idx = ucg_cgroup_find_file(parent, name, len);
		return idx >= 0 ? -ENOTDIR : -ENOENT;
	}
	r = dir_access(cred, parent, UCG_MAY_WRITE | UCG_MAY_EXEC);
	if (r < 0)
		return r;
	r = ucg_perm_sticky(cred, parent->mode, parent->uid, cg->uid);
	if (r < 0)
		return r;
	return ucg_cgroup_remove(cg);
}

static int is_ancestor(const struct ucg_cgroup *a, const struct ucg_cgroup *b)
{
	for (; b; b = b->parent)
		if (a == b)
			return 1;
	return 0;
}

int ucg_fs_rename(struct ucg_engine *e, struct ucg_hierarchy *h, const char *from,
		  const char *to, const struct ucg_cred *cred)
{
	struct ucg_cgroup *fp, *tp, *src, *dst_cg;
	const char *fname, *tname;
	size_t flen, tlen;
	int r, fidx = -1, tidx;

	r = resolve_parent(h, from, cred, &fp, &fname, &flen);
	if (r < 0)
		return r;
	r = resolve_parent(h, to, cred, &tp, &tname, &tlen);
	if (r < 0)
		return r;
	r = dir_access(cred, fp, UCG_MAY_EXEC);
	if (r == 0)
		r = dir_access(cred, tp, UCG_MAY_EXEC);
	if (r < 0)
		return r;
	src = ucg_cgroup_find_child(fp, fname, flen);
	if (!src) {
		fidx = ucg_cgroup_find_file(fp, fname, flen);
		if (fidx < 0)
			return -ENOENT;
	}
	dst_cg = ucg_cgroup_find_child(tp, tname, tlen);
	tidx = dst_cg ? -1 : ucg_cgroup_find_file(tp, tname, tlen);
	/* The VFS: renaming onto itself does nothing; type mismatches; loops. */
	if (fp == tp && flen == tlen && !memcmp(fname, tname, flen))
		return 0;
	if (src && tidx >= 0)
		return -ENOTDIR;
	if (!src && dst_cg)
		return -EISDIR;
	if (src && is_ancestor(src, tp))
		return -EINVAL;
	r = dir_access(cred, fp, UCG_MAY_WRITE | UCG_MAY_EXEC);
	if (r == 0)
		r = dir_access(cred, tp, UCG_MAY_WRITE | UCG_MAY_EXEC);
	if (r < 0)
		return r;
	if (src) {
		r = ucg_perm_sticky(cred, fp->mode, fp->uid, src->uid);
		if (r < 0)
			return r;
	}
	/* The cgroup filesystem (cgroup1_rename). */
	if (has_newline(tname, tlen))
		return -EINVAL;
	if (!src)
		return -ENOTDIR;
	if (fp != tp)
		return -EIO;
	return ucg_cgroup_rename(src, tname, tlen);
}

int ucg_fs_chmod(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, uint32_t mode,
		 const struct ucg_cred *cred)
{
	struct target t;
	uint32_t *m, owner;
	int r = resolve(h, path, cred, &t);

	if (r < 0)
		return r;
	if (t.file < 0) {
		m = &t.cg->mode;
		owner = t.cg->uid;
	} else {
		owner = ucg_cgroup_file_attr(t.cg, t.file).uid;
		m = NULL;
	}
	if (cred->fsuid != owner && !(cred->caps & UCG_CAP_FOWNER))
		return -EPERM;
	if (!m) {
		struct ucg_file_attr *a = ucg_cgroup_file_attr_mut(t.cg, t.file);

		if (!a)
			return -ENOMEM;
		m = &a->mode;
	}
	*m = mode & 07777;
	UCG_OBSERVE(e, cgroup_attr_changed, t.cg, t.file);
	return 0;
}

int ucg_fs_chown(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, uint32_t uid,
		 uint32_t gid, const struct ucg_cred *cred)
{
	struct target t;
	uint32_t *pu, *pg, *pm;
	int r = resolve(h, path, cred, &t);

	if (r < 0)
		return r;
	if (t.file < 0) {
		pu = &t.cg->uid;
		pg = &t.cg->gid;
		pm = &t.cg->mode;
	} else {
		/* Its own table before the checks, so a refusal below changes nothing
		 * anyone can see (the copy holds the same values). */
		struct ucg_file_attr *a = ucg_cgroup_file_attr_mut(t.cg, t.file);

		if (!a)
			return -ENOMEM;
		pu = &a->uid;
		pg = &a->gid;
		pm = &a->mode;
	}
	/* chown_ok / chgrp_ok: a uid change needs CAP_CHOWN; the owner may change the group
	 * to one of its own groups. */
	if (uid != (uint32_t)-1 && uid != *pu && !(cred->caps & UCG_CAP_CHOWN))
		return -EPERM;
	if (gid != (uint32_t)-1 && gid != *pg && !(cred->caps & UCG_CAP_CHOWN) &&
	    !(cred->fsuid == *pu && ucg_cred_in_group(cred, gid)))
		return -EPERM;
	if (uid != (uint32_t)-1)
		*pu = uid;
	if (gid != (uint32_t)-1)
		*pg = gid;
	/* A non-directory loses set-id bits on chown, as on any filesystem. */
	if (t.file >= 0)
		*pm &= ~(uint32_t)(S_ISUID | S_ISGID);
	UCG_OBSERVE(e, cgroup_attr_changed, t.cg, t.file);
	return 0;
}

int ucg_fs_create(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		  const struct ucg_cred *cred)
{
	struct ucg_cgroup *parent;
	const char *name;
	size_t len;
	int r = resolve_parent(h, path, cred, &parent, &name, &len);

	if (r < 0)
		return r == -EBUSY ? -EISDIR : r;
	r = dir_access(cred, parent, UCG_MAY_EXEC);
	if (r < 0)
		return r;
	if (ucg_cgroup_find_child(parent, name, len) || ucg_cgroup_find_file(parent, name, len) >= 0)
		return -EEXIST;
	return -EACCES; /* kernfs directories have no create operation */
}

int ucg_fs_unlink(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		  const struct ucg_cred *cred)
{
	struct ucg_cgroup *parent;
	const char *name;
	size_t len;
	int r = resolve_parent(h, path, cred, &parent, &name, &len);

	if (r < 0)
		return r == -EBUSY ? -EISDIR : r;
	r = dir_access(cred, parent, UCG_MAY_EXEC);
	if (r < 0)
		return r;
	if (ucg_cgroup_find_child(parent, name, len))
		return -EISDIR;
	if (ucg_cgroup_find_file(parent, name, len) < 0)
		return -ENOENT;
	r = dir_access(cred, parent, UCG_MAY_WRITE | UCG_MAY_EXEC);
	if (r < 0)
		return r;
	return -EPERM; /* no unlink operation */
}

int ucg_fs_read_all(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		    const struct ucg_cred *cred, struct ucg_buf *out)
{
	return ucg_fs_read_all_flags(e, h, path, O_RDONLY, cred, out);
}

/* The same result as open, read to the end and release, without the open file's
 * allocations: an empty out receives the content directly (a show handler sees an
 * empty buffer, as at open); a failed or empty read leaves out as it was. */
int ucg_fs_read_all_flags(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
			  int flags, const struct ucg_cred *cred, struct ucg_buf *out)
{
	struct ucg_file f;
	int r = open_file(e, h, path, flags, cred, &f);

	if (r < 0)
		return r;
	if (out->len == 0 && !out->failed) {
		int had_data = out->data != NULL;

		r = show_into(&f, out);
		if (r < 0 || out->len == 0) {
			/* as if nothing had been appended: data stays NULL if it was */
			if (had_data)
				ucg_buf_reset(out);
			else
				ucg_buf_fini(out);
		}
	} else {
		r = show_into(&f, &f.snapshot);
		if (r == 0) {
			ucg_buf_append(out, f.snapshot.data, f.snapshot.len);
			r = ucg_buf_error(out);
		}
	}
	close_file(&f);
	return r;
}

int ucg_fs_write_all(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		     const struct ucg_cred *cred, const char *data, size_t len)
{
	struct ucg_file f;
	ssize_t n;
	int r = open_file(e, h, path, O_WRONLY, cred, &f);

	if (r < 0)
		return r;
	n = ucg_fs_write(&f, data, len);
	close_file(&f);
	return n < 0 ? (int)n : 0;
}
