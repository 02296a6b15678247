/* engine/hierarchy.c — mount, umount and remount of v1 hierarchies (docs/kernel/core.md §1).
 *
 * A hierarchy is found by comparing the request with every live hierarchy, mounted or
 * not (§1.2); a new one takes the lowest free id above the last one handed out
 * (cyclic, §1.6) and a free slot for css_set links. It lives while mounted, and after
 * its last unmount while its root has children (§1.5). Unlike the kernel we destroy it
 * synchronously: there is no RCU grace period to wait for.
 */
#include "engine/hierarchy.h"
#include "base/alloc.h"
#include "engine/cgroup.h"
#include "engine/mount_opts.h"
#include "engine/observer.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ucg_hierarchy_id(const struct ucg_hierarchy *h)
{
	return h->id;
}

const char *ucg_hierarchy_name(const struct ucg_hierarchy *h)
{
	return h->name;
}

int ucg_hierarchy_mount_count(const struct ucg_hierarchy *h)
{
	return h->mount_count;
}

struct ucg_hierarchy *ucg_hierarchy_next(struct ucg_engine *e, struct ucg_hierarchy *prev)
{
	struct ucg_list *n = prev ? prev->node.next : e->hierarchies.next;

	return n == &e->hierarchies ? NULL : ucg_container_of(n, struct ucg_hierarchy, node);
}

struct ucg_cgroup *ucg_hierarchy_root(const struct ucg_hierarchy *h)
{
	return h->root;
}

uint32_t ucg_hierarchy_subsys_mask(const struct ucg_hierarchy *h)
{
	return h->ss_mask;
}

struct ucg_hierarchy *ucg_hierarchy_find(struct ucg_engine *e, int id)
{
	struct ucg_hierarchy *h = NULL;

	while ((h = ucg_hierarchy_next(e, h)))
		if (h->id == id)
			return h;
	return NULL;
}

struct ucg_hierarchy *ucg_subsys_hierarchy(struct ucg_engine *e, int id)
{
	struct ucg_hierarchy *h = NULL;

	while ((h = ucg_hierarchy_next(e, h)) && !(h->ss_mask & (1u << id)))
		;
	return h;
}

/* ---- file tables ------------------------------------------------------------------ */

/* A table and its names are one allocation (build_files). */
static void free_files(struct ucg_dirfile *f, int n)
{
	(void)n;
	ucg_free(f);
}

static int dirfile_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ucg_dirfile *)a)->name, ((const struct ucg_dirfile *)b)->name);
}

static int want_file(const struct ucg_cftype *cft, int root)
{
	if (root)
		return !(cft->flags & UCG_CFT_NOT_ON_ROOT);
	return !(cft->flags & UCG_CFT_ONLY_ON_ROOT);
}

/* Visits the files of a root (root=1) or of any other cgroup: fn gets each file's
 * controller (NULL: a core file), type and whether its name takes the prefix. */
static void each_file(uint32_t ss_mask, unsigned flags, int root,
		      void (*fn)(void *ctx, const struct ucg_subsys *ss,
				 const struct ucg_cftype *cft, int prefix),
		      void *ctx)
{
	const struct ucg_cftype *cft;
	int i;

	for (i = -1; i < UCG_SUBSYS_COUNT; i++) {
		const struct ucg_subsys *ss = i < 0 ? NULL : ucg_subsys_table[i];

		if (ss && !(ss_mask & (1u << i)))
			continue;
		for (cft = ss ? ss->files : ucg_core_files; cft && cft->name; cft++)
			if (want_file(cft, root))
				fn(ctx, ss, cft,
				   ss && !(flags & UCG_HF_NOPREFIX) && !(cft->flags & UCG_CFT_NO_PREFIX));
	}
}

struct files_acc {
	struct ucg_dirfile *f; /* NULL while counting */
	char *names;           /* where the next name goes */
	int n;
	size_t bytes;          /* names, NULs included */
};

static void add_file(void *ctx, const struct ucg_subsys *ss, const struct ucg_cftype *cft,
		     int prefix)
{
	struct files_acc *a = ctx;
	size_t pl = prefix ? strlen(ss->name) : 0, nl = strlen(cft->name);
	size_t len = (prefix ? pl + 1 : 0) + nl;

	if (a->f) {
		struct ucg_dirfile *d = &a->f[a->n];
		char *p = a->names;

		if (prefix) {
			memcpy(p, ss->name, pl);
			p[pl] = '.';
			p += pl + 1;
		}
		memcpy(p, cft->name, nl + 1);
		d->name = a->names;
		d->name_len = len;
		d->cft = cft;
		d->ss = ss;
		a->names += len + 1;
	}
	a->n++;
	a->bytes += len + 1;
}

/* Builds the sorted file table of a root (root=1) or of any other cgroup: counted
 * first, then the entries and their names made in one allocation (a mount makes two
 * tables of dozens of files; one allocation each instead of one per name). */
static int build_files(uint32_t ss_mask, unsigned flags, int root, struct ucg_dirfile **ret,
		       int *ret_n)
{
	struct files_acc a = { NULL, NULL, 0, 0 };
	size_t table;

	each_file(ss_mask, flags, root, add_file, &a);
	table = (size_t)a.n * sizeof(*a.f);
	a.f = ucg_malloc(table + a.bytes);
	if (!a.f)
		return -ENOMEM;
	a.names = (char *)a.f + table;
	a.n = 0;
	each_file(ss_mask, flags, root, add_file, &a);
	qsort(a.f, (size_t)a.n, sizeof(*a.f), dirfile_cmp);
	*ret = a.f;
	*ret_n = a.n;
	return 0;
}

/* ---- life cycle ------------------------------------------------------------------- */

static int alloc_id(struct ucg_engine *e)
{
	int id = e->last_id, tries;

	/* Cyclic: the lowest free id above the last one handed out, wrapping at INT_MAX. */
	for (tries = 0; tries < INT_MAX; tries++) {
		id = id == INT_MAX ? 1 : id + 1;
		if (!ucg_hierarchy_find(e, id))
			return id;
	}
	return -ENOSPC;
}

static void hierarchy_free(struct ucg_hierarchy *h)
{
	free_files(h->root_files, h->nr_root_files);
	free_files(h->child_files, h->nr_child_files);
	ucg_otable_fini(&h->by_serial);
	ucg_free(h->release_agent);
	ucg_free(h);
}

void ucg_hierarchy_put(struct ucg_hierarchy *h)
{
	if (--h->refcnt == 0)
		hierarchy_free(h);
}

static int hierarchy_create(struct ucg_engine *e, const struct ucg_mount_opts *o,
			    struct ucg_hierarchy **ret)
{
	struct ucg_hierarchy *h;
	int slot, id, r;

	for (slot = 0; slot < UCG_MAX_HIERARCHIES && e->slots[slot]; slot++)
		;
	if (slot == UCG_MAX_HIERARCHIES)
		return -ENOSPC;
	id = alloc_id(e);
	if (id < 0)
		return id;
	h = ucg_calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->e = e;
	h->refcnt = 1;
	h->slot = slot;
	h->ss_mask = o->ss_mask;
	h->flags = o->flags;
	snprintf(h->name, sizeof(h->name), "%s", o->has_name ? o->name : "");
	h->release_agent = ucg_strdup(o->release_agent ? o->release_agent : "");
	if (!h->release_agent) {
		r = -ENOMEM;
		goto fail;
	}
	r = build_files(h->ss_mask, h->flags, 1, &h->root_files, &h->nr_root_files);
	if (r < 0)
		goto fail;
	r = build_files(h->ss_mask, h->flags, 0, &h->child_files, &h->nr_child_files);
	if (r < 0)
		goto fail;
	r = ucg_cgroup_new_root(h, &h->root);
	if (r < 0)
		goto fail;
	r = ucg_otable_insert(&h->by_serial, h->root, ucg_cgroup_serial_hash(h->root->serial));
	if (r < 0) {
		ucg_cgroup_put(h->root);
		h->root = NULL;
		goto fail;
	}
	h->root->clone_children = o->clone_children;
	h->nr_cgroups = 1;
	h->id = id;
	h->seq = ++e->hseq;
	e->last_id = id;
	e->slots[slot] = h;
	e->bound_mask |= h->ss_mask;
	ucg_list_add_tail(&e->hierarchies, &h->node);
	*ret = h;
	return 0;
fail:
	ucg_hierarchy_put(h);
	return r;
}

/* Takes h out of the engine; its memory goes with the last cgroup reference. */
static void hierarchy_destroy(struct ucg_hierarchy *h)
{
	struct ucg_engine *e = h->e;

	ucg_list_del(&h->node);
	e->slots[h->slot] = NULL;
	e->bound_mask &= ~h->ss_mask;
	h->dead = 1;
	ucg_otable_remove(&h->by_serial, h->root, ucg_cgroup_serial_hash(h->root->serial));
	ucg_cgroup_put(h->root);
	ucg_hierarchy_put(h);
}

/* Removes every cgroup below root, deepest first, ignoring tasks (engine teardown). */
static void prune(struct ucg_cgroup *cg)
{
	while (!ucg_list_empty(&cg->children)) {
		struct ucg_cgroup *c = ucg_container_of(cg->children.next, struct ucg_cgroup, sibling);

		prune(c);
		c->nr_populated_csets = 0;
		c->notify_on_release = 0;
		ucg_cgroup_remove(c);
	}
}

void ucg_hierarchy_destroy_all(struct ucg_engine *e)
{
	while (!ucg_list_empty(&e->hierarchies)) {
		struct ucg_hierarchy *h =
			ucg_container_of(e->hierarchies.next, struct ucg_hierarchy, node);

		prune(h->root);
		hierarchy_destroy(h);
	}
}

int ucg_mount(struct ucg_engine *e, const char *opts, struct ucg_hierarchy **ret,
	      struct ucg_err *err)
{
	struct ucg_mount_opts o;
	struct ucg_hierarchy *h = NULL;
	int r;

	if (err)
		err->msg[0] = '\0';
	r = ucg_mount_opts_parse(opts, &o, err);
	if (r < 0)
		return r;
	while ((h = ucg_hierarchy_next(e, h))) {
		if (o.has_name && strcmp(o.name, h->name))
			continue;
		if ((o.ss_mask || o.none) && o.ss_mask != h->ss_mask) {
			if (!o.has_name)
				continue;
			r = -EBUSY;
			goto out;
		}
		/* A match. Differing flags are ignored with a warning; release_agent= and
		 * clone_children are ignored silently (docs/kernel/core.md §1.2). */
		if (err && (o.flags ^ h->flags))
			snprintf(err->msg, sizeof(err->msg),
				 "cgroup: new mount options do not match the existing superblock, will be ignored");
		h->mount_count++;
		UCG_OBSERVE(e, hierarchy_mounted, h, 0);
		*ret = h;
		r = 0;
		goto out;
	}
	if (!o.ss_mask && !o.none) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "cgroup: No subsys list or none specified");
		r = -EINVAL;
		goto out;
	}
	if (o.ss_mask & e->bound_mask) {
		r = -EBUSY;
		goto out;
	}
	r = hierarchy_create(e, &o, &h);
	if (r < 0)
		goto out;
	h->mount_count = 1;
	UCG_OBSERVE(e, hierarchy_mounted, h, 1);
	*ret = h;
out:
	ucg_mount_opts_fini(&o);
	return r;
}

int ucg_umount(struct ucg_engine *e, struct ucg_hierarchy *h)
{
	if (h->mount_count <= 0)
		return -EINVAL;
	int destroying = h->mount_count == 1 && !h->root->nr_children;

	UCG_OBSERVE(e, hierarchy_unmounted, h, destroying);
	if (--h->mount_count == 0 && !h->root->nr_children)
		hierarchy_destroy(h);
	return 0;
}

/* Carries the root's per-file chmod/chown over to a rebuilt table, by name. */
static int carry_root_attrs(struct ucg_cgroup *root, const struct ucg_dirfile *old, int nold,
			    const struct ucg_dirfile *nf, int nnew, struct ucg_file_attr **ret)
{
	struct ucg_file_attr *a = ucg_calloc((size_t)nnew, sizeof(*a));
	int i, j;

	if (!a)
		return -ENOMEM;
	for (i = 0; i < nnew; i++) {
		a[i].mode = nf[i].cft->mode;
		a[i].uid = root->uid;
		a[i].gid = root->gid;
		for (j = 0; j < nold; j++)
			if (!strcmp(old[j].name, nf[i].name))
				a[i] = ucg_cgroup_file_attr(root, j);
	}
	*ret = a;
	return 0;
}

int ucg_remount(struct ucg_engine *e, struct ucg_hierarchy *h, const char *opts,
		struct ucg_err *err)
{
	struct ucg_mount_opts o;
	struct ucg_dirfile *rf = NULL, *cf = NULL;
	struct ucg_file_attr *attrs = NULL;
	int nrf = 0, ncf = 0, r;
	uint32_t added, removed;
	char *agent = NULL;

	if (err)
		err->msg[0] = '\0';
	r = ucg_mount_opts_parse(opts, &o, err);
	if (r < 0)
		return r;
	/* The kernel's order (cgroup1_reconfigure): name/flags, children, binding. */
	if ((o.flags ^ h->flags) || (o.has_name && strcmp(o.name, h->name))) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "cgroup: option or name mismatch");
		r = -EINVAL;
		goto out;
	}
	if (h->root->nr_children) {
		r = -EBUSY;
		goto out;
	}
	added = o.ss_mask & ~h->ss_mask;
	removed = h->ss_mask & ~o.ss_mask;
	if (added & e->bound_mask) {
		r = -EBUSY;
		goto out;
	}
	if (o.release_agent) {
		agent = ucg_strdup(o.release_agent);
		if (!agent) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (added || removed) {
		/* Prepare everything that can fail, then switch. */
		r = build_files(o.ss_mask, h->flags, 1, &rf, &nrf);
		if (r < 0)
			goto out;
		r = build_files(o.ss_mask, h->flags, 0, &cf, &ncf);
		if (r < 0)
			goto out;
		r = carry_root_attrs(h->root, h->root_files, h->nr_root_files, rf, nrf, &attrs);
		if (r < 0)
			goto out;
		r = ucg_cgroup_css_create(h->root, added);
		if (r < 0)
			goto out;
		ucg_cgroup_css_destroy(h->root, removed);
		free_files(h->root_files, h->nr_root_files);
		free_files(h->child_files, h->nr_child_files);
		h->root_files = rf;
		h->nr_root_files = nrf;
		h->child_files = cf;
		h->nr_child_files = ncf;
		rf = cf = NULL;
		ucg_dircache_invalidate(&h->dircache); /* new file tables: start afresh */
		ucg_free(h->root->file_attrs);
		h->root->file_attrs = attrs;
		attrs = NULL;
		e->bound_mask = (e->bound_mask & ~removed) | added;
		h->ss_mask = o.ss_mask;
		if (err)
			snprintf(err->msg, sizeof(err->msg),
				 "cgroup: option changes via remount are deprecated");
	}
	if (agent) {
		ucg_free(h->release_agent);
		h->release_agent = agent;
		agent = NULL;
	}
	UCG_OBSERVE(e, hierarchy_remounted, h);
	r = 0;
out:
	free_files(rf, nrf);
	free_files(cf, ncf);
	ucg_free(attrs);
	ucg_free(agent);
	ucg_mount_opts_fini(&o);
	return r;
}

/* ---- formatting ------------------------------------------------------------------- */

/* mountinfo escapes space, tab, newline, backslash and comma as octal (docs/kernel/core.md §1.4). */
static void put_escaped(struct ucg_buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\' || *s == ',')
			ucg_buf_printf(out, "\\%03o", (unsigned char)*s);
		else
			ucg_buf_putc(out, *s);
	}
}

int ucg_hierarchy_format_options(const struct ucg_hierarchy *h, struct ucg_buf *out)
{
	int i;

	ucg_buf_puts(out, "rw");
	for (i = 0; i < UCG_SUBSYS_COUNT; i++)
		if (h->ss_mask & (1u << i))
			ucg_buf_printf(out, ",%s", ucg_subsys_table[i]->name);
	if (h->flags & UCG_HF_NOPREFIX)
		ucg_buf_puts(out, ",noprefix");
	if (h->flags & UCG_HF_XATTR)
		ucg_buf_puts(out, ",xattr");
	if (h->flags & UCG_HF_CPUSET_V2_MODE)
		ucg_buf_puts(out, ",cpuset_v2_mode");
	if (h->flags & UCG_HF_FAVORDYNMODS)
		ucg_buf_puts(out, ",favordynmods");
	if (h->release_agent[0]) {
		ucg_buf_puts(out, ",release_agent=");
		put_escaped(out, h->release_agent);
	}
	if (h->root->clone_children)
		ucg_buf_puts(out, ",clone_children");
	if (h->name[0]) {
		ucg_buf_puts(out, ",name=");
		put_escaped(out, h->name);
	}
	return ucg_buf_error(out);
}

int ucg_hierarchy_format_controllers(const struct ucg_hierarchy *h, struct ucg_buf *out)
{
	int i, first = 1;

	for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
		if (!(h->ss_mask & (1u << i)))
			continue;
		ucg_buf_printf(out, "%s%s", first ? "" : ",", ucg_subsys_table[i]->name);
		first = 0;
	}
	if (h->name[0])
		ucg_buf_printf(out, "%sname=%s", first ? "" : ",", h->name);
	return ucg_buf_error(out);
}
