/* controllers/debug.c — the debug controller: the cgroup core's own bookkeeping,
 * for a user who studies what many cgroups cost (docs/kernel/controllers.md §13).
 *
 * Model. The kernel's v1 file set (kernel/cgroup/debug.c in 6.x, read from source:
 * the reference kernel is built without CONFIG_CGROUP_DEBUG, so none of this was
 * observed), with our object model behind it:
 *
 *   taskcount                 RC  live tasks in this cgroup (not descendants)
 *   current_css_set           R   the reader's css_set: "css_set <id> <refcnt>[ +<extra>]"
 *                                 then "%2d: %-4s\t- %lx[%d]" per bound controller
 *   current_css_set_refcount  R   its reference count
 *   current_css_set_cg_links  R   "Root <hierarchy id> group <name>" per hierarchy
 *   cgroup_css_links          RC  per css_set of this cgroup: "css_set <id> <refcnt>
 *                                 [+<extra>]", then "  task <tid>" for at most 26
 *                                 tasks and "  ... (<count - 25>)"; then, if some set
 *                                 has references beyond its tasks, a blank line and
 *                                 "extra references = N"
 *   cgroup_subsys_states      RC  "%2d: %-4s\t- %lx[%d] %d P=%d" per controller of
 *                                 the hierarchy: css, id, online count (itself plus
 *                                 its online children), parent's id
 *   cgroup_masks              RC  v2 subtree masks, always empty on v1
 *   releasable                RC  1 if no live tasks and no children
 *
 * Deviations, all of which only change numbers the kernel itself calls unstable:
 * where the kernel prints a hashed kernel pointer (%pK) we print a stable id — for a
 * css_set its creation number (0 is the all-roots set, the kernel's init_css_set;
 * numbers are not reused), for a css its cgroup's serial number, which also stands for the
 * kernel's per-controller css id. The reader's css_set is that of the opener's tid
 * (the all-roots set if the engine does not know it). The v2 default hierarchy
 * does not exist here, so its "Root 0 group /" link is not listed.
 *
 * Added (not in the kernel): debug.engine_stats (root only), the engine-wide cost
 * counters: hierarchies, cgroups, css_sets, links (one per non-root membership of a
 * set), live and zombie tasks, the largest number of tasks on one css_set, and the
 * bytes held by css_sets, cgroups (with their css and per-file attributes) and tasks.
 */
#include "engine/cgroup.h"
#include "engine/css_set.h"
#include "engine/task.h"
#include "engine/types.h"

#include <string.h>

#define MAX_TASKS_SHOWN_PER_CSS 25

/* ---- helpers ------------------------------------------------------------------------ */

/* Calls fn for every css_set whose cgroup in cg's hierarchy is cg. */
static void for_each_cset(struct ucg_engine *e, struct ucg_cgroup *cg,
			  void (*fn)(struct ucg_css_set *cs, void *ctx), void *ctx)
{
	struct ucg_list *pos;

	if (cg->parent) {
		ucg_list_for_each(pos, &cg->cset_links)
			fn(ucg_container_of(pos, struct ucg_cset_link, cg_node)->cset, ctx);
		return;
	}
	ucg_list_for_each(pos, &e->cset_list) {
		struct ucg_css_set *cs = ucg_container_of(pos, struct ucg_css_set, all);

		if (ucg_css_set_cgroup(cs, cg->h) == cg)
			fn(cs, ctx);
	}
}

static void add_tasks(struct ucg_css_set *cs, void *ctx)
{
	*(uint64_t *)ctx += (uint64_t)cs->nr_tasks;
}

static uint64_t task_count(struct ucg_engine *e, struct ucg_cgroup *cg)
{
	uint64_t n = 0;

	for_each_cset(e, cg, add_tasks, &n);
	return n;
}

static struct ucg_css_set *reader_cset(struct ucg_of *of)
{
	struct ucg_task *t = of->cred.tid > 0 ? ucg_task_find(of->e, of->cred.tid) : NULL;

	return t && t->cset ? t->cset : of->e->empty_cset;
}

static void css_line(struct ucg_buf *out, const struct ucg_css *css)
{
	ucg_buf_printf(out, "%2d: %-4s\t- %llx[%llu]", css->ss->id, css->ss->name,
		       (unsigned long long)css->cgroup->serial,
		       (unsigned long long)css->cgroup->serial);
}

/* ---- files ----------------------------------------------------------------------------- */

static uint64_t taskcount_read(struct ucg_of *of)
{
	return task_count(of->e, of->cg);
}

static int current_css_set_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct ucg_css_set *cs = reader_cset(of);
	struct ucg_hierarchy *h = NULL;
	int i;

	ucg_buf_printf(out, "css_set %ld %d", (long)cs->serial, cs->refcnt);
	if (cs->refcnt > cs->nr_tasks)
		ucg_buf_printf(out, " +%d", cs->refcnt - cs->nr_tasks);
	ucg_buf_putc(out, '\n');
	for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
		while ((h = ucg_hierarchy_next(of->e, h)))
			if (h->ss_mask & (1u << i))
				break;
		if (!h)
			continue;
		css_line(out, ucg_css_set_cgroup(cs, h)->css[i]);
		ucg_buf_putc(out, '\n');
		h = NULL;
	}
	return 0;
}

static uint64_t current_refcount_read(struct ucg_of *of)
{
	return (uint64_t)reader_cset(of)->refcnt;
}

static int current_cg_links_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct ucg_css_set *cs = reader_cset(of);
	struct ucg_hierarchy *h = NULL;

	while ((h = ucg_hierarchy_next(of->e, h))) {
		struct ucg_cgroup *cg = ucg_css_set_cgroup(cs, h);

		ucg_buf_printf(out, "Root %d group %s\n", h->id, cg->parent ? cg->name : "/");
	}
	return 0;
}

struct links_ctx {
	struct ucg_engine *e;
	struct ucg_buf *out;
	int extra_refs;
};

static void css_links_one(struct ucg_css_set *cs, void *ctx)
{
	struct links_ctx *c = ctx;
	struct ucg_list *pos;
	int count = 0;

	ucg_buf_printf(c->out, "css_set %ld %d", (long)cs->serial, cs->refcnt);
	if (cs->refcnt - cs->nr_tasks > 0) {
		int extra = cs->refcnt - cs->nr_tasks;

		ucg_buf_printf(c->out, " +%d", extra);
		if (cs == c->e->empty_cset)
			extra--; /* the engine's own reference, as init_css_set's */
		c->extra_refs += extra;
	}
	ucg_buf_putc(c->out, '\n');
	ucg_list_for_each(pos, &cs->tasks)
		if (count++ <= MAX_TASKS_SHOWN_PER_CSS)
			ucg_buf_printf(c->out, "  task %d\n",
				       ucg_container_of(pos, struct ucg_task, cset_node)->info.tid);
	if (count > MAX_TASKS_SHOWN_PER_CSS)
		ucg_buf_printf(c->out, "  ... (%d)\n", count - MAX_TASKS_SHOWN_PER_CSS);
}

static int css_links_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct links_ctx c = { of->e, out, 0 };

	for_each_cset(of->e, of->cg, css_links_one, &c);
	if (c.extra_refs)
		ucg_buf_printf(out, "\nextra references = %d\n", c.extra_refs);
	return 0;
}

static int subsys_states_show(struct ucg_of *of, struct ucg_buf *out)
{
	int i;

	for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
		const struct ucg_css *css = of->cg->css[i];

		if (!css)
			continue;
		css_line(out, css);
		ucg_buf_printf(out, " %d", css->online + of->cg->nr_children);
		if (of->cg->parent)
			ucg_buf_printf(out, " P=%llu", (unsigned long long)of->cg->parent->serial);
		ucg_buf_putc(out, '\n');
	}
	return 0;
}

static int masks_show(struct ucg_of *of, struct ucg_buf *out)
{
	ucg_buf_printf(out, "%-17s: \n%-17s: \n", "subtree_control", "subtree_ss_mask");
	return 0;
}

static uint64_t releasable_read(struct ucg_of *of)
{
	return task_count(of->e, of->cg) == 0 && of->cg->nr_children == 0;
}

/* ---- engine_stats ------------------------------------------------------------------ */

struct stats {
	uint64_t hierarchies, cgroups, csets, links, tasks, zombies, max_per_cset;
	uint64_t bytes_csets, bytes_cgroups, bytes_tasks;
};

static void count_cgroup(struct stats *s, const struct ucg_cgroup *cg)
{
	const struct ucg_list *pos;
	int n, i;

	s->cgroups++;
	ucg_cgroup_files(cg, &n);
	s->bytes_cgroups += sizeof(*cg) + strlen(cg->name) + 1 +
			    (uint64_t)n * sizeof(struct ucg_file_attr);
	for (i = 0; i < UCG_SUBSYS_COUNT; i++)
		if (cg->css[i])
			s->bytes_cgroups += cg->css[i]->ss->css_size;
	ucg_list_for_each(pos, &cg->children)
		count_cgroup(s, ucg_container_of(pos, struct ucg_cgroup, sibling));
}

static int count_task(struct ucg_hnode *n, void *ctx)
{
	struct stats *s = ctx;
	const struct ucg_task *t = ucg_container_of(n, struct ucg_task, node);

	if (t->exited)
		s->zombies++;
	else
		s->tasks++;
	s->bytes_tasks += sizeof(*t);
	return 0;
}

static int engine_stats_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct ucg_engine *e = of->e;
	struct ucg_hierarchy *h = NULL;
	struct ucg_list *pos;
	struct stats s;

	memset(&s, 0, sizeof(s));
	while ((h = ucg_hierarchy_next(e, h))) {
		s.hierarchies++;
		count_cgroup(&s, h->root);
	}
	ucg_list_for_each(pos, &e->cset_list) {
		const struct ucg_css_set *cs = ucg_container_of(pos, struct ucg_css_set, all);

		s.csets++;
		s.links += (uint64_t)cs->nr_links;
		s.bytes_csets += ucg_css_set_size(cs);
		if ((uint64_t)cs->nr_tasks > s.max_per_cset)
			s.max_per_cset = (uint64_t)cs->nr_tasks;
	}
	ucg_htable_each(&e->tasks, count_task, &s);
	ucg_buf_printf(out,
		       "hierarchies %llu\ncgroups %llu\ncss_sets %llu\ncset_links %llu\n"
		       "tasks %llu\nzombies %llu\nmax_tasks_per_css_set %llu\n"
		       "bytes_css_sets %llu\nbytes_cgroups %llu\nbytes_tasks %llu\n",
		       (unsigned long long)s.hierarchies, (unsigned long long)s.cgroups,
		       (unsigned long long)s.csets, (unsigned long long)s.links,
		       (unsigned long long)s.tasks, (unsigned long long)s.zombies,
		       (unsigned long long)s.max_per_cset, (unsigned long long)s.bytes_csets,
		       (unsigned long long)s.bytes_cgroups, (unsigned long long)s.bytes_tasks);
	return 0;
}

static const struct ucg_cftype debug_files[] = {
	{ .name = "taskcount", .mode = 0444, .read_u64 = taskcount_read },
	{ .name = "current_css_set", .flags = UCG_CFT_ONLY_ON_ROOT, .mode = 0444,
	  .show = current_css_set_show },
	{ .name = "current_css_set_refcount", .flags = UCG_CFT_ONLY_ON_ROOT, .mode = 0444,
	  .read_u64 = current_refcount_read },
	{ .name = "current_css_set_cg_links", .flags = UCG_CFT_ONLY_ON_ROOT, .mode = 0444,
	  .show = current_cg_links_show },
	{ .name = "cgroup_css_links", .mode = 0444, .show = css_links_show },
	{ .name = "cgroup_subsys_states", .mode = 0444, .show = subsys_states_show },
	{ .name = "cgroup_masks", .mode = 0444, .show = masks_show },
	{ .name = "releasable", .mode = 0444, .read_u64 = releasable_read },
	{ .name = "engine_stats", .flags = UCG_CFT_ONLY_ON_ROOT, .mode = 0444,
	  .show = engine_stats_show },
	{ 0 },
};

const struct ucg_subsys ucg_debug_subsys = {
	.name = "debug",
	.id = UCG_SS_debug,
	.css_size = sizeof(struct ucg_css),
	.files = debug_files,
};
