/* controllers/pids.c — the pids controller: a hierarchical limit on the number of
 * tasks (threads) (docs/kernel/controllers.md §12).
 *
 * Model. Each non-root cgroup has a counter of tasks (controllers/counter.h) whose
 * usage is the number of live tasks in the cgroup and all its descendants, and whose
 * max is pids.max; the counter of a top-level cgroup has no parent, because the root
 * has no files and no limit, so counting it would change nothing visible (and the
 * engine learns of tasks that existed before the hierarchy without a fork).
 *
 *   fork:    can_fork charges 1 level by level from the forking task's cgroup up;
 *            the first level where usage + 1 > max refuses, the levels below are
 *            rolled back and the fork fails with EAGAIN. The refusal is counted in
 *            pids.events ("max N") of the forking task's cgroup, not of the one whose
 *            limit was hit (6.18, v1). peak is the counter's watermark, which the
 *            rollback does not lower, so a child's peak can exceed an ancestor's max.
 *   forced:  a fork that already happened on the host (ucg_task_forked) is refused
 *            and counted as above, then charged past the limit and accepted: the
 *            filesystem cannot undo a real fork, and must keep it where it was made.
 *   cancel:  another controller refused the fork: uncharge 1.
 *   release: uncharge 1 when the exited task is reaped, from the cgroup it exited in:
 *            as in the kernel (release_task), a zombie still counts in pids.current
 *            until its parent waits for it (verified: 2, then 1 after waitpid).
 *   attach:  the charge moves from the old cgroup to the new one ignoring every limit
 *            (migration is never refused; current may then exceed max).
 *
 * Unlimited is PIDS_MAX = PID_MAX_LIMIT + 1 = 4194305, printed "max". pids.max takes
 * "max" or 0..4194304 (the core's write_max kind: stripped, strtoll base 0).
 *
 * Limits: the kernel logs "cgroup: fork rejected by pids controller in <path>" on the
 * first refusal; the engine never prints, so that message is not produced.
 */
#include "controllers/charge.h"
#include "controllers/counter.h"
#include "engine/cgroup.h"
#include "engine/types.h"

#include <errno.h>

#define PIDS_MAX 4194305ull /* PID_MAX_LIMIT + 1: "max" */

struct pids_css {
	struct ucg_css css;
	/* Tasks here and below; parent is the parent cgroup's counter, NULL for a
	 * top-level cgroup and the root. Changed only through counter.h. */
	struct ucg_counter counter;
	uint64_t events_max; /* forks refused while a task of this cgroup forked */
};

static struct pids_css *pids_of(struct ucg_css *css)
{
	return (struct pids_css *)css;
}

static int is_root(const struct ucg_css *css)
{
	return css->cgroup->parent == NULL;
}

/* ---- charge helpers ----------------------------------------------------------------- */

static int pids_try_charge(struct pids_css *p)
{
	if (is_root(&p->css))
		return 0;
	if (ucg_counter_try_charge(&p->counter, 1, NULL) < 0) {
		p->events_max++;
		return -EAGAIN;
	}
	return 0;
}

static void pids_uncharge(struct pids_css *p)
{
	if (!is_root(&p->css))
		ucg_counter_uncharge(&p->counter, 1);
}

static void pids_charge_forced(struct pids_css *p)
{
	if (!is_root(&p->css))
		ucg_counter_charge(&p->counter, 1);
}

/* ---- life cycle and hooks ----------------------------------------------------------- */

static int pids_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	struct pids_css *p = pids_of(css);
	struct ucg_counter *pc = parent && !is_root(parent) ? &pids_of(parent)->counter : NULL;

	ucg_counter_init(&p->counter, pc, PIDS_MAX);
	return 0;
}

static int pids_can_fork(struct ucg_task *child, struct ucg_css *css)
{
	struct pids_css *p = pids_of(css);
	int r = pids_try_charge(p);

	/* A real fork the kernel allowed (ucg_task_forked): the refusal is counted in
	 * pids.events above, but the task exists, so it is charged past the limit. */
	if (r < 0 && child->fork_forced) {
		pids_charge_forced(p);
		return 0;
	}
	return r;
}

static void pids_cancel_fork(struct ucg_task *child, struct ucg_css *css)
{
	pids_uncharge(pids_of(css));
}

static void pids_release(struct ucg_task *task, struct ucg_css *css)
{
	pids_uncharge(pids_of(css));
}

static void pids_attach(const struct ucg_taskset *ts, struct ucg_css *dst)
{
	size_t i;

	for (i = 0; i < ts->nr_tasks; i++) {
		pids_charge_forced(pids_of(dst));
		pids_uncharge(pids_of(ts->src[i]->css[UCG_SS_pids]));
	}
}

/* ---- files ---------------------------------------------------------------------------- */

int ucg_pids_get(const struct ucg_cgroup *cg, struct ucg_pids_state *ret)
{
	const struct pids_css *p;

	if (!cg->css[UCG_SS_pids])
		return -EINVAL;
	p = pids_of(cg->css[UCG_SS_pids]);
	ret->max = p->counter.max >= PIDS_MAX ? -1 : (int64_t)p->counter.max;
	ret->current = p->counter.usage;
	ret->peak = p->counter.watermark;
	ret->events_max = p->events_max;
	return 0;
}

static int pids_max_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct ucg_pids_state st;

	ucg_pids_get(of->cg, &st);
	if (st.max < 0)
		ucg_buf_puts(out, "max\n");
	else
		ucg_buf_printf(out, "%lld\n", (long long)st.max);
	return 0;
}

static int pids_max_write(struct ucg_of *of, int64_t v, int is_max)
{
	uint64_t max;

	if (is_max)
		max = PIDS_MAX;
	else if (v < 0 || (uint64_t)v >= PIDS_MAX)
		return -EINVAL;
	else
		max = (uint64_t)v;
	/* May be below current: existing tasks stay, new forks fail. */
	ucg_counter_set_max_unchecked(&pids_of(of->css)->counter, max);
	return 0;
}

static uint64_t pids_current_read(struct ucg_of *of)
{
	return pids_of(of->css)->counter.usage;
}

static uint64_t pids_peak_read(struct ucg_of *of)
{
	return pids_of(of->css)->counter.watermark;
}

static int pids_events_show(struct ucg_of *of, struct ucg_buf *out)
{
	ucg_buf_printf(out, "max %llu\n", (unsigned long long)pids_of(of->css)->events_max);
	return 0;
}

static const struct ucg_cftype pids_files[] = {
	{
		.name = "max",
		.flags = UCG_CFT_NOT_ON_ROOT,
		.mode = 0644,
		.show = pids_max_show,
		.write_max = pids_max_write,
	},
	{
		.name = "current",
		.flags = UCG_CFT_NOT_ON_ROOT,
		.mode = 0444,
		.read_u64 = pids_current_read,
	},
	{
		.name = "peak",
		.flags = UCG_CFT_NOT_ON_ROOT,
		.mode = 0444,
		.read_u64 = pids_peak_read,
	},
	{
		.name = "events",
		.flags = UCG_CFT_NOT_ON_ROOT,
		.mode = 0444,
		.show = pids_events_show,
	},
	{ 0 },
};

const struct ucg_subsys ucg_pids_subsys = {
	.name = "pids",
	.id = UCG_SS_pids,
	.css_size = sizeof(struct pids_css),
	.css_alloc = pids_css_alloc,
	.can_fork = pids_can_fork,
	.cancel_fork = pids_cancel_fork,
	.release = pids_release,
	.attach = pids_attach,
	.files = pids_files,
};
