/* engine/cgroup.c — the cgroup tree (docs/kernel/core.md §3, §4, §5 minus permissions).
 *
 * Each cgroup keeps its children twice: a list in creation order (readdir, teardown)
 * and a hash table by name, so a path resolves in O(depth). A removed cgroup leaves the
 * tree at once (its name is reusable immediately, as on the kernel) but its memory
 * lives on while open files or a queued release notification still reference it;
 * I/O on such files then fails with ENODEV.
 */
#include "engine/cgroup.h"
#include "base/alloc.h"
#include "engine/hierarchy.h"
#include "engine/event.h"
#include "engine/observer.h"
#include "engine/release.h"

#include <errno.h>
#include <string.h>

static uint64_t name_hash(const char *name, size_t len)
{
	return ucg_hash_bytes(name, len, 0x9e3779b97f4a7c15ull);
}

/* The serial itself: serials are handed out in order, so a run of mkdirs fills
 * consecutive slots of h->by_serial (and a run of rmdirs empties them) instead of one
 * random cache line and page each; consecutive serials never share a home slot. The
 * price: cgroups kept alive at serials a table size apart share one run of slots;
 * keeping k of them alive takes some k * 2k mkdirs, and the run is a sequential scan.
 * ucg_fs_ino_path looks up with the same hash. */
uint64_t ucg_cgroup_serial_hash(uint64_t serial)
{
	return serial;
}

struct name_key {
	const char *name;
	size_t len;
};

static int name_match(const void *member, const void *key)
{
	const struct ucg_cgroup *cg = member;
	const struct name_key *k = key;

	return cg->name_len == k->len && !memcmp(cg->name, k->name, k->len);
}

struct ucg_cgroup *ucg_cgroup_find_child(const struct ucg_cgroup *cg, const char *name,
					 size_t len)
{
	struct name_key k = { name, len };

	if (!cg->child_names.count) /* a leaf: most file lookups end in one; skip the hash */
		return NULL;
	return ucg_otable_find(&cg->child_names, name_hash(name, len), name_match, &k);
}

int ucg_cgroup_is_root(const struct ucg_cgroup *cg)
{
	return cg->parent == NULL;
}

int ucg_cgroup_populated(const struct ucg_cgroup *cg)
{
	return cg->nr_populated_csets > 0;
}

const struct ucg_dirfile *ucg_cgroup_files(const struct ucg_cgroup *cg, int *ret_n)
{
	if (!cg->parent) {
		*ret_n = cg->h->nr_root_files;
		return cg->h->root_files;
	}
	*ret_n = cg->h->nr_child_files;
	return cg->h->child_files;
}

int ucg_cgroup_find_file(const struct ucg_cgroup *cg, const char *name, size_t len)
{
	int n, lo = 0, hi;
	const struct ucg_dirfile *f = ucg_cgroup_files(cg, &n);

	/* The table is sorted by name: binary search, no strcmp chains. */
	hi = n - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		size_t fl = f[mid].name_len;
		int c = memcmp(f[mid].name, name, fl < len ? fl : len);

		if (!c)
			c = fl < len ? -1 : fl > len ? 1 : 0;
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

struct ucg_file_attr ucg_cgroup_file_attr(const struct ucg_cgroup *cg, int idx)
{
	struct ucg_file_attr a;

	if (cg->file_attrs)
		return cg->file_attrs[idx];
	a.mode = ucg_cgroup_files(cg, &(int){ 0 })[idx].cft->mode;
	a.uid = cg->file_uid;
	a.gid = cg->file_gid;
	return a;
}

struct ucg_file_attr *ucg_cgroup_file_attr_mut(struct ucg_cgroup *cg, int idx)
{
	int n, i;
	const struct ucg_dirfile *f;
	struct ucg_file_attr *a;

	if (cg->file_attrs)
		return &cg->file_attrs[idx];
	f = ucg_cgroup_files(cg, &n);
	a = ucg_calloc((size_t)n, sizeof(*a));
	if (!a)
		return NULL;
	for (i = 0; i < n; i++) {
		a[i].mode = f[i].cft->mode;
		a[i].uid = cg->file_uid;
		a[i].gid = cg->file_gid;
	}
	cg->file_attrs = a;
	return &a[idx];
}

/* The css row of a child of a controller-less hierarchy: never written (see types.h). */
static struct ucg_css *const no_css[UCG_SUBSYS_COUNT];

void ucg_cgroup_css_destroy(struct ucg_cgroup *cg, uint32_t mask)
{
	int i;

	if (cg->css == (struct ucg_css **)no_css) /* nothing to destroy, nor to write */
		return;
	for (i = UCG_SUBSYS_COUNT - 1; i >= 0; i--) {
		struct ucg_css *css = cg->css[i];

		if (!(mask & (1u << i)) || !css)
			continue;
		if (css->online && css->ss->css_offline)
			css->ss->css_offline(css);
		css->online = 0;
		if (css->ss->css_free)
			css->ss->css_free(css);
		ucg_slab_free(&cg->h->e->slab, css, css->ss->css_size);
		cg->css[i] = NULL;
	}
}

int ucg_cgroup_css_create(struct ucg_cgroup *cg, uint32_t mask)
{
	int i, r = 0;

	if (!mask) /* a controller-less hierarchy: two walks of every slot for nothing */
		return 0;
	for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
		const struct ucg_subsys *ss = ucg_subsys_table[i];
		struct ucg_css *css;

		if (!(mask & (1u << i)))
			continue;
		css = ucg_slab_zalloc(&cg->h->e->slab, ss->css_size);
		if (!css) {
			r = -ENOMEM;
			goto unwind;
		}
		css->ss = ss;
		css->cgroup = cg;
		if (ss->css_alloc) {
			r = ss->css_alloc(css, cg->parent ? cg->parent->css[i] : NULL);
			if (r < 0) {
				ucg_slab_free(&cg->h->e->slab, css, ss->css_size);
				goto unwind;
			}
		}
		cg->css[i] = css;
	}
	for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
		struct ucg_css *css = cg->css[i];

		if (!(mask & (1u << i)) || !css)
			continue;
		if (css->ss->css_online) {
			r = css->ss->css_online(css);
			if (r < 0)
				goto unwind;
		}
		css->online = 1;
	}
	return 0;
unwind:
	ucg_cgroup_css_destroy(cg, mask);
	return r;
}

/* One block: the cgroup, its css row when it needs one, then its name. A million
 * cgroups are a million blocks, so what is not in the block is an allocation and a
 * page touched per mkdir (bench_engine's scale.* figures). The block comes from the
 * engine's slab: consecutive mkdirs fill consecutive memory. */
static struct ucg_cgroup *cgroup_alloc(struct ucg_hierarchy *h, const char *name, size_t len,
				       int is_root)
{
	size_t row = is_root || h->ss_mask ? sizeof(struct ucg_css *) * UCG_SUBSYS_COUNT : 0;
	size_t size = sizeof(struct ucg_cgroup) + row + len + 1;
	struct ucg_cgroup *cg = ucg_slab_zalloc(&h->e->slab, size);

	if (!cg)
		return NULL;
	/* 0 stands for "larger than any slab class" (a long name): ucg_slab_free then
	 * hands it back to malloc as it came. */
	cg->block_size = size <= UCG_SLAB_MAX ? (unsigned)size : 0;
	cg->css = row ? (struct ucg_css **)(cg + 1) : (struct ucg_css **)no_css;
	cg->name = (char *)(cg + 1) + row;
	memcpy(cg->name, name, len);
	cg->name_inline = 1;
	cg->name_len = (uint32_t)len;
	cg->h = h;
	cg->serial = ++h->e->serial;
	ucg_list_init(&cg->children);
	ucg_list_init(&cg->sibling);
	ucg_list_init(&cg->cset_links);
	ucg_otable_init(&cg->child_names);
	cg->refcnt = 1;
	h->refcnt++;
	return cg;
}

static void cgroup_free(struct ucg_cgroup *cg)
{
	struct ucg_hierarchy *h = cg->h;
	struct ucg_cgroup *parent = cg->pins_parent ? cg->parent : NULL;

	ucg_event_cgroup_removed(cg); /* a root at hierarchy teardown */
	ucg_observer_cgroup_fini(cg);
	/* Every css it has: the hierarchy's mask may have changed since (a remount). */
	ucg_cgroup_css_destroy(cg, (1u << UCG_SUBSYS_COUNT) - 1);
	ucg_otable_fini(&cg->child_names);
	ucg_free(cg->file_attrs);
	if (!cg->name_inline)
		ucg_free(cg->name);
	ucg_slab_free(&h->e->slab, cg, cg->block_size ? cg->block_size : (size_t)-1);
	if (parent)
		ucg_cgroup_put(parent);
	ucg_hierarchy_put(h);
}

int ucg_cgroup_new_root(struct ucg_hierarchy *h, struct ucg_cgroup **ret)
{
	struct ucg_cgroup *cg = cgroup_alloc(h, "", 0, 1);
	int r;

	if (!cg)
		return -ENOMEM;
	cg->mode = 0555;
	r = ucg_cgroup_css_create(cg, h->ss_mask);
	if (r < 0)
		goto fail;
	*ret = cg;
	return 0;
fail:
	cgroup_free(cg);
	return r;
}

void ucg_cgroup_free_root(struct ucg_cgroup *root)
{
	cgroup_free(root);
}

int ucg_cgroup_create(struct ucg_cgroup *parent, const char *name, size_t len, uint32_t mode,
		      uint32_t uid, uint32_t gid, struct ucg_cgroup **ret)
{
	struct ucg_hierarchy *h = parent->h;
	struct ucg_cgroup *cg;
	int r;

	cg = cgroup_alloc(h, name, len, 0);
	if (!cg)
		return -ENOMEM;
	cg->parent = parent;
	cg->mode = mode & 07777;
	cg->uid = uid;
	cg->gid = gid;
	/* Copied once, at creation (docs/kernel/core.md §3.3). */
	cg->notify_on_release = parent->notify_on_release;
	cg->clone_children = parent->clone_children;
	cg->file_uid = uid;
	cg->file_gid = gid;
	r = ucg_otable_reserve(&parent->child_names);
	if (r == 0)
		r = ucg_otable_reserve(&h->by_serial);
	if (r < 0)
		goto fail;
	r = ucg_cgroup_css_create(cg, h->ss_mask);
	if (r < 0)
		goto fail;
	ucg_otable_insert(&parent->child_names, cg, name_hash(name, len));
	ucg_otable_insert(&h->by_serial, cg, ucg_cgroup_serial_hash(cg->serial));
	/* A removed child kept alive (open file, zombie) may still reach its parent's
	 * controller state (pids uncharges a reaped zombie up the tree), so it pins a
	 * non-root parent; the root is freed with its hierarchy and never reached. */
	if (parent->parent) {
		ucg_cgroup_get(parent);
		cg->pins_parent = 1;
	}
	ucg_list_add_tail(&parent->children, &cg->sibling);
	parent->nr_children++;
	h->nr_cgroups++;
	UCG_OBSERVE(h->e, cgroup_created, cg);
	*ret = cg;
	return 0;
fail:
	cg->parent = NULL;
	cgroup_free(cg);
	return r;
}

int ucg_cgroup_remove(struct ucg_cgroup *cg)
{
	struct ucg_cgroup *parent = cg->parent;

	if (!parent)
		return -EBUSY;
	if (ucg_cgroup_populated(cg) || cg->nr_children)
		return -EBUSY;
	UCG_OBSERVE(cg->h->e, cgroup_removed, cg);
	ucg_otable_remove(&parent->child_names, cg, name_hash(cg->name, cg->name_len));
	ucg_otable_remove(&cg->h->by_serial, cg, ucg_cgroup_serial_hash(cg->serial));
	ucg_dircache_invalidate(&cg->h->dircache); /* its path no longer resolves */
	ucg_list_del(&cg->sibling);
	parent->nr_children--;
	cg->h->nr_cgroups--;
	cg->removed = 1;
	ucg_event_cgroup_removed(cg); /* the kernel's memcg_event_remove() at offline */
	{
		int i;

		/* Offline now: the controllers see the cgroup go at rmdir, as in the kernel;
		 * the memory is freed with the last reference. */
		for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
			struct ucg_css *css = cg->css[i];

			if (css && css->online) {
				if (css->ss->css_offline)
					css->ss->css_offline(css);
				css->online = 0;
			}
		}
	}
	/* A parent that just lost its last child may now be releasable (docs/kernel/core.md §10.1 b). */
	ucg_release_check(parent);
	ucg_cgroup_put(cg);
	return 0;
}

int ucg_cgroup_rename(struct ucg_cgroup *cg, const char *name, size_t len)
{
	struct ucg_cgroup *parent = cg->parent, *other;
	char *copy, *old;
	int r;

	other = ucg_cgroup_find_child(parent, name, len);
	if (other == cg)
		return 0;
	if (other || ucg_cgroup_find_file(parent, name, len) >= 0)
		return -EEXIST;
	copy = ucg_strndup(name, len);
	if (!copy)
		return -ENOMEM;
	ucg_otable_remove(&parent->child_names, cg, name_hash(cg->name, cg->name_len));
	ucg_dircache_invalidate(&cg->h->dircache); /* paths through the old name */
	/* Cannot fail: the entry we just removed left room. */
	r = ucg_otable_insert(&parent->child_names, cg, name_hash(name, len));
	(void)r;
	old = cg->name;
	cg->name = copy;
	cg->name_len = (uint32_t)len;
	UCG_OBSERVE(cg->h->e, cgroup_renamed, cg, old);
	if (!cg->name_inline)
		ucg_free(old);
	cg->name_inline = 0;
	return 0;
}

void ucg_cgroup_get(struct ucg_cgroup *cg)
{
	cg->refcnt++;
}

void ucg_cgroup_put(struct ucg_cgroup *cg)
{
	if (--cg->refcnt == 0)
		cgroup_free(cg);
}

/* Found through the hierarchy's dircache when the same path was looked up before (a
 * model charging a cgroup by path each period asks again and again). */
int ucg_cgroup_lookup(struct ucg_hierarchy *h, const char *path, struct ucg_cgroup **ret)
{
	struct ucg_cgroup *cg = h->root;
	const char *p = path, *s;
	size_t len;

	if (!path || path[0] != '/')
		return -EINVAL;
	len = strlen(path);
	if (len > 1 && (cg = ucg_dircache_find(&h->dircache, path, len))) {
		*ret = cg;
		return 0;
	}
	cg = h->root;
	while (*p) {
		struct ucg_cgroup *child;

		while (*p == '/')
			p++;
		s = p;
		while (*p && *p != '/')
			p++;
		if (p == s)
			break;
		child = ucg_cgroup_find_child(cg, s, (size_t)(p - s));
		if (!child)
			return ucg_cgroup_find_file(cg, s, (size_t)(p - s)) >= 0 ? -ENOTDIR : -ENOENT;
		cg = child;
	}
	if (len > 1)
		ucg_dircache_store(&h->dircache, path, len, cg);
	*ret = cg;
	return 0;
}

static int path_rec(const struct ucg_cgroup *cg, struct ucg_buf *out)
{
	if (!cg->parent)
		return 0;
	path_rec(cg->parent, out);
	ucg_buf_putc(out, '/');
	ucg_buf_puts(out, cg->name);
	return 0;
}

int ucg_cgroup_path(const struct ucg_cgroup *cg, struct ucg_buf *out)
{
	if (!cg->parent)
		ucg_buf_putc(out, '/');
	else
		path_rec(cg, out);
	return ucg_buf_error(out);
}

/* ---- public handle accessors (engine/ucg.h) ---------------------------------------- */

struct ucg_hierarchy *ucg_cgroup_hierarchy(const struct ucg_cgroup *cg)
{
	return cg->h;
}

struct ucg_cgroup *ucg_cgroup_parent(const struct ucg_cgroup *cg)
{
	return cg->parent;
}

const char *ucg_cgroup_name(const struct ucg_cgroup *cg)
{
	return cg->name;
}

uint64_t ucg_cgroup_serial(const struct ucg_cgroup *cg)
{
	return cg->serial;
}

struct ucg_cgroup *ucg_cgroup_next_child(const struct ucg_cgroup *cg,
					 const struct ucg_cgroup *prev)
{
	const struct ucg_list *next = prev ? prev->sibling.next : cg->children.next;

	return next == &cg->children ? NULL : ucg_container_of(next, struct ucg_cgroup, sibling);
}
