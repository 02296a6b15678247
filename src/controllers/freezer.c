/* controllers/freezer.c — the freezer controller: stopping and continuing every task
 * of a subtree (docs/kernel/controllers.md §6).
 *
 * Model. Each non-root cgroup has two bits: self_freezing (FROZEN was written here and
 * not undone by THAWED) and parent_freezing (some ancestor is freezing). It is
 * freezing iff either is set; a write to freezer.state changes self_freezing and
 * recomputes parent_freezing top-down through the subtree, so freezing an ancestor
 * freezes every descendant and thawing it leaves self-frozen descendants frozen.
 *
 * Tasks. A task is asked to stop when its cgroup becomes freezing, when it is forked
 * into or attached to a freezing cgroup; it is continued when its cgroup stops
 * freezing or it is attached to a non-freezing one. The provider hears both through
 * ucg_provider_ops.freeze_task. Stopping is asynchronous, as in the kernel (a task in
 * an uninterruptible sleep does not enter the refrigerator at once): the provider
 * reports with ucg_freezer_task_stopped() when the task is really stopped. The per-task
 * bits live in struct ucg_task (freeze_requested, freeze_stopped) and are owned here.
 *
 *   state = THAWED    if not freezing
 *           FROZEN    if freezing and every task of the subtree is stopped (an empty
 *                     cgroup is FROZEN at once)
 *           FREEZING  otherwise
 *
 * The state is computed on each read (the kernel updates it lazily on read too), in
 * O(tasks + cgroups of the subtree).
 *
 * A provider without freeze_task (the simulator, tests) cannot stop anything and
 * has nothing to wait for: its tasks count as stopped the moment they are asked to
 * stop, so a cgroup goes THAWED -> FROZEN in one write, and the simulator treats a
 * task with freeze_stopped as not runnable. This is the choice that keeps FROZEN
 * reachable without a provider; FREEZING then only appears with a real provider.
 *
 * Deviation: the kernel's FROZEN is sticky until a task is attached (a frozen task
 * cannot run); here a provider may report a stopped task running again
 * (ucg_freezer_task_stopped(.., 0), e.g. someone sent SIGCONT) and the cgroup reads
 * FREEZING until the provider stops it again.
 */
#include "controllers/charge.h"
#include "engine/cgroup.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>
#include <string.h>

struct freezer_css {
	struct ucg_css css;
	unsigned self_freezing : 1;   /* owned by freezer.state writes */
	unsigned parent_freezing : 1; /* derived from the ancestors; kept up to date */
};

static struct freezer_css *fz_of(struct ucg_css *css)
{
	return (struct freezer_css *)css;
}

static int freezing(const struct freezer_css *f)
{
	return f->self_freezing || f->parent_freezing;
}

static struct freezer_css *fz_child(struct ucg_list *pos)
{
	return fz_of(ucg_container_of(pos, struct ucg_cgroup, sibling)->css[UCG_SS_freezer]);
}

/* ---- per-task helpers ------------------------------------------------------------- */

static void task_freeze(struct ucg_engine *e, struct ucg_task *t, int freeze)
{
	const struct ucg_provider_ops *ops = e->cfg.provider;
	int has_op = ops && ops->freeze_task;

	if (freeze == (int)t->freeze_requested)
		return;
	t->freeze_requested = (unsigned)freeze;
	/* Without a provider op the task counts as stopped at once (see the top). */
	t->freeze_stopped = freeze && !has_op;
	if (has_op)
		ops->freeze_task(e->cfg.provider_ctx, e, t->info.tid, freeze);
}

/* Applies the cgroup's freezing state to each of its own tasks. */
static void apply_tasks(struct freezer_css *f)
{
	struct ucg_engine *e = f->css.cgroup->h->e;
	struct ucg_list *lp, *tp, *next;

	ucg_list_for_each(lp, &f->css.cgroup->cset_links) {
		struct ucg_cset_link *l = ucg_container_of(lp, struct ucg_cset_link, cg_node);

		for (tp = l->cset->tasks.next; tp != &l->cset->tasks; tp = next) {
			next = tp->next;
			task_freeze(e, ucg_container_of(tp, struct ucg_task, cset_node), freezing(f));
		}
	}
}

/* Recomputes parent_freezing below f and applies the result to every task. */
static void propagate(struct freezer_css *f)
{
	struct ucg_list *pos;

	apply_tasks(f);
	ucg_list_for_each(pos, &f->css.cgroup->children) {
		struct freezer_css *c = fz_child(pos);

		c->parent_freezing = (unsigned)freezing(f);
		propagate(c);
	}
}

/* Every task of the subtree is stopped. */
static int all_stopped(struct freezer_css *f)
{
	struct ucg_list *lp, *tp, *pos;

	ucg_list_for_each(lp, &f->css.cgroup->cset_links) {
		struct ucg_cset_link *l = ucg_container_of(lp, struct ucg_cset_link, cg_node);

		ucg_list_for_each(tp, &l->cset->tasks)
			if (!ucg_container_of(tp, struct ucg_task, cset_node)->freeze_stopped)
				return 0;
	}
	ucg_list_for_each(pos, &f->css.cgroup->children)
		if (!all_stopped(fz_child(pos)))
			return 0;
	return 1;
}

/* ---- life cycle and hooks ------------------------------------------------------------ */

static int freezer_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	/* mkdir under a freezing parent gives a child that is freezing (and, being
	 * empty, FROZEN). */
	if (parent && parent->cgroup->parent)
		fz_of(css)->parent_freezing = (unsigned)freezing(fz_of(parent));
	return 0;
}

static void freezer_fork(struct ucg_task *child, struct ucg_css *css)
{
	if (freezing(fz_of(css)))
		task_freeze(css->cgroup->h->e, child, 1);
}

static void freezer_exit(struct ucg_task *task, struct ucg_css *css)
{
	task->freeze_requested = 0;
	task->freeze_stopped = 0;
}

static void freezer_attach(const struct ucg_taskset *ts, struct ucg_css *dst)
{
	size_t i;

	for (i = 0; i < ts->nr_tasks; i++)
		task_freeze(ts->e, ts->tasks[i], freezing(fz_of(dst)));
}

/* ---- files ----------------------------------------------------------------------------- */

int ucg_freezer_get(const struct ucg_cgroup *cg, struct ucg_freezer_state *ret)
{
	struct freezer_css *f;

	if (!cg->css[UCG_SS_freezer])
		return -EINVAL;
	f = fz_of(cg->css[UCG_SS_freezer]);
	ret->self_freezing = f->self_freezing;
	ret->parent_freezing = f->parent_freezing;
	ret->state = !freezing(f) ? UCG_FREEZER_THAWED
		     : all_stopped(f) ? UCG_FREEZER_FROZEN
				      : UCG_FREEZER_FREEZING;
	return 0;
}

static int state_show(struct ucg_of *of, struct ucg_buf *out)
{
	static const char *const names[] = {
		[UCG_FREEZER_THAWED] = "THAWED\n",
		[UCG_FREEZER_FREEZING] = "FREEZING\n",
		[UCG_FREEZER_FROZEN] = "FROZEN\n",
	};
	struct ucg_freezer_state st;

	ucg_freezer_get(of->cg, &st);
	ucg_buf_puts(out, names[st.state]);
	return 0;
}

static int state_write(struct ucg_of *of, const char *s, size_t len)
{
	struct freezer_css *f = fz_of(of->css);

	if (len == 6 && !memcmp(s, "FROZEN", 6))
		f->self_freezing = 1;
	else if (len == 6 && !memcmp(s, "THAWED", 6))
		f->self_freezing = 0;
	else
		return -EINVAL;
	propagate(f);
	return 0;
}

static uint64_t self_read(struct ucg_of *of)
{
	return fz_of(of->css)->self_freezing;
}

static uint64_t parent_read(struct ucg_of *of)
{
	return fz_of(of->css)->parent_freezing;
}

/* ---- public calls (ucg.h) ---------------------------------------------------------- */

int ucg_freezer_task_stopped(struct ucg_engine *e, int tid, int stopped)
{
	struct ucg_task *t = ucg_task_find(e, tid);

	if (!t || t->exited)
		return -ESRCH;
	/* Only a stop the freezer asked for counts (a task stopped by SIGSTOP in a
	 * thawed cgroup is not frozen). */
	t->freeze_stopped = stopped && t->freeze_requested;
	return 0;
}

static const struct ucg_cftype freezer_files[] = {
	{ .name = "state", .flags = UCG_CFT_NOT_ON_ROOT, .mode = 0644, .show = state_show,
	  .write_str = state_write },
	{ .name = "self_freezing", .flags = UCG_CFT_NOT_ON_ROOT, .mode = 0444,
	  .read_u64 = self_read },
	{ .name = "parent_freezing", .flags = UCG_CFT_NOT_ON_ROOT, .mode = 0444,
	  .read_u64 = parent_read },
	{ 0 },
};

const struct ucg_subsys ucg_freezer_subsys = {
	.name = "freezer",
	.id = UCG_SS_freezer,
	.css_size = sizeof(struct freezer_css),
	.css_alloc = freezer_css_alloc,
	.fork = freezer_fork,
	.exit = freezer_exit,
	.attach = freezer_attach,
	.files = freezer_files,
};
