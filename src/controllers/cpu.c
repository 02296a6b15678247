/* controllers/cpu.c — the cpu controller: CFS weight and bandwidth, RT bandwidth
 * (docs/kernel/controllers.md §2).
 *
 * Model. Each cgroup is a task group with
 *   shares          CFS weight, clamped into 2..262144 (idle groups weigh 3)
 *   quota, period   CFS bandwidth in µs: quota -1 is unlimited; period 1000..1000000;
 *                   quota 1000..2^44-1; burst <= quota and burst + quota <= 2^44-1
 *   idle            0/1; idle=1 shows shares 3 and refuses shares writes (EINVAL);
 *                   idle=0 sets shares back to 1024 (verified on 6.18)
 *   rt runtime, rt period   RT bandwidth in µs, runtime -1 unlimited
 * and the figures of cpu.stat, which a scheduler model reports per period
 * (ucg_cpu_account_period). The root's CFS knobs refuse every write (EINVAL).
 *
 * Bandwidth is checked on the whole tree, as the kernel does, on a trial where only
 * the written group carries its new values; nothing is stored unless it passes:
 *
 *   ratio(q, p) = floor((q·1000 << 20) / (p·1000))   (ns, 20-bit fixed point)
 *   CFS (v1): a group with quota -1 takes its parent's effective ratio; a group with
 *        a quota must not exceed its parent's effective ratio (when limited). EINVAL.
 *   RT:  for every group, runtime <= period (unless unlimited), ratio <= the global
 *        ratio (950000/1000000; an unlimited runtime counts as 1 << 20, so it is
 *        refused under the default global setting), and the children's ratios sum
 *        to at most the group's own. EINVAL. A group with RT tasks may not go to
 *        runtime 0 (EBUSY), and RT tasks (UCG_TASK_RT) cannot be attached to a group
 *        whose runtime is 0 (EINVAL).
 *
 * Limits: the scheduler itself (throttling, weights) belongs to the simulator; this
 * file stores what it needs (ucg_cpu_bandwidth_get) and shows what it reports.
 * There is no sysctl to change the global RT setting. Scheduling policies are known
 * through UCG_TASK_RT, given at add/fork time and updated by ucg_task_set_cred (the
 * host front end reads sched_getscheduler() when it learns a task or its creds).
 */
#include "controllers/charge.h"
#include "engine/cgroup.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>

#define NSEC_PER_USEC 1000ull
#define RUNTIME_INF UINT64_MAX
#define BW_SHIFT 20
#define BW_UNIT (1ull << BW_SHIFT)
#define MAX_BW_US ((1ull << 44) - 1) /* max quota/burst in µs */
#define MIN_SHARES 2ull
#define MAX_SHARES 262144ull
#define IDLE_SHARES 3ull
#define DEF_SHARES 1024ull
#define DEF_CFS_PERIOD_US 100000ull
#define MIN_CFS_PERIOD_US 1000ull
#define MAX_CFS_PERIOD_US 1000000ull
#define GLOBAL_RT_PERIOD_US 1000000ull
#define GLOBAL_RT_RUNTIME_US 950000ull

struct cpu_css {
	struct ucg_css css;
	/* Settings: owned by this file's write handlers, changed only after the tree
	 * check passed. Times in ns (RUNTIME_INF: unlimited). */
	uint64_t shares;
	int idle;
	uint64_t quota_ns, period_ns, burst_ns;
	uint64_t rt_runtime_ns, rt_period_ns;
	/* cpu.stat, reported by the scheduler model. */
	uint64_t nr_periods, nr_throttled, throttled_ns, nr_bursts, burst_time_ns;
	uint64_t local_throttled_ns; /* cpu.stat.local */
};

static struct cpu_css *cpu_of(struct ucg_css *css)
{
	return (struct cpu_css *)css;
}

static struct cpu_css *cpu_child(struct ucg_list *pos)
{
	return cpu_of(ucg_container_of(pos, struct ucg_cgroup, sibling)->css[UCG_SS_cpu]);
}

static int is_root(const struct cpu_css *c)
{
	return c->css.cgroup->parent == NULL;
}

static uint64_t to_ratio(uint64_t period, uint64_t runtime)
{
	if (runtime == RUNTIME_INF)
		return BW_UNIT;
	if (period == 0)
		return 0;
	/* runtime <= 2^44 µs * 1000 < 2^54, so the shift cannot overflow. */
	return (runtime << BW_SHIFT) / period;
}

/* ---- the CFS tree check (tg_cfs_schedulable_down) ---------------------------------- */

struct trial {
	const struct cpu_css *tg; /* the group whose values are replaced */
	uint64_t quota, period, burst, rt_runtime, rt_period;
};

static int cfs_check(const struct cpu_css *c, uint64_t parent_q, const struct trial *d)
{
	uint64_t quota, period, q;
	struct ucg_list *pos;
	int r;

	if (is_root(c)) {
		q = RUNTIME_INF;
	} else {
		quota = c == d->tg ? d->quota : c->quota_ns;
		period = c == d->tg ? d->period : c->period_ns;
		q = quota == RUNTIME_INF ? RUNTIME_INF : to_ratio(period, quota);
		if (q == RUNTIME_INF)
			q = parent_q;
		else if (parent_q != RUNTIME_INF && q > parent_q)
			return -EINVAL;
	}
	ucg_list_for_each(pos, &c->css.cgroup->children) {
		r = cfs_check(cpu_child(pos), q, d);
		if (r < 0)
			return r;
	}
	return 0;
}

static struct cpu_css *root_of(struct cpu_css *c)
{
	return cpu_of(c->css.cgroup->h->root->css[UCG_SS_cpu]);
}

/* tg_set_cfs_bandwidth: the checks, then the tree walk, then the commit. */
static int set_cfs_bandwidth(struct cpu_css *c, uint64_t period, uint64_t quota, uint64_t burst)
{
	const uint64_t max_rt = MAX_BW_US * NSEC_PER_USEC;
	struct trial d = { c, quota, period, burst, 0, 0 };
	int r;

	if (is_root(c))
		return -EINVAL;
	if ((quota != RUNTIME_INF && quota < MIN_CFS_PERIOD_US * NSEC_PER_USEC) ||
	    period < MIN_CFS_PERIOD_US * NSEC_PER_USEC)
		return -EINVAL;
	if (period > MAX_CFS_PERIOD_US * NSEC_PER_USEC)
		return -EINVAL;
	if (quota != RUNTIME_INF && quota > max_rt)
		return -EINVAL;
	if (quota != RUNTIME_INF && (burst > quota || burst + quota > max_rt))
		return -EINVAL;
	r = cfs_check(root_of(c), RUNTIME_INF, &d);
	if (r < 0)
		return r;
	c->period_ns = period;
	c->quota_ns = quota;
	c->burst_ns = burst;
	return 0;
}

/* ---- the RT tree check (tg_rt_schedulable) ------------------------------------------ */

static int has_rt_tasks(const struct cpu_css *c)
{
	struct ucg_list *lp, *tp;

	ucg_list_for_each(lp, &c->css.cgroup->cset_links) {
		struct ucg_cset_link *l = ucg_container_of(lp, struct ucg_cset_link, cg_node);

		ucg_list_for_each(tp, &l->cset->tasks)
			if (ucg_container_of(tp, struct ucg_task, cset_node)->info.flags & UCG_TASK_RT)
				return 1;
	}
	return 0;
}

static int rt_check(const struct cpu_css *c, const struct trial *d)
{
	uint64_t period = c == d->tg ? d->rt_period : c->rt_period_ns;
	uint64_t runtime = c == d->tg ? d->rt_runtime : c->rt_runtime_ns;
	uint64_t total, sum = 0;
	struct ucg_list *pos;
	int r;

	if (runtime > period && runtime != RUNTIME_INF)
		return -EINVAL;
	if (!runtime && c->rt_runtime_ns && c->css.cgroup->parent && has_rt_tasks(c))
		return -EBUSY;
	total = to_ratio(period, runtime);
	if (total > to_ratio(GLOBAL_RT_PERIOD_US * NSEC_PER_USEC,
			     GLOBAL_RT_RUNTIME_US * NSEC_PER_USEC))
		return -EINVAL;
	ucg_list_for_each(pos, &c->css.cgroup->children) {
		const struct cpu_css *ch = cpu_child(pos);

		sum += to_ratio(ch == d->tg ? d->rt_period : ch->rt_period_ns,
				ch == d->tg ? d->rt_runtime : ch->rt_runtime_ns);
	}
	if (sum > total)
		return -EINVAL;
	ucg_list_for_each(pos, &c->css.cgroup->children) {
		r = rt_check(cpu_child(pos), d);
		if (r < 0)
			return r;
	}
	return 0;
}

static int set_rt_bandwidth(struct cpu_css *c, uint64_t period, uint64_t runtime)
{
	struct trial d = { c, 0, 0, 0, runtime, period };
	int r;

	if (is_root(c) && runtime == 0)
		return -EINVAL;
	if (period == 0)
		return -EINVAL;
	if (runtime != RUNTIME_INF && runtime > MAX_BW_US * NSEC_PER_USEC)
		return -EINVAL;
	r = rt_check(root_of(c), &d);
	if (r < 0)
		return r;
	c->rt_period_ns = period;
	c->rt_runtime_ns = runtime;
	return 0;
}

/* ---- life cycle and hooks ------------------------------------------------------------ */

static int cpu_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	struct cpu_css *c = cpu_of(css);

	c->shares = DEF_SHARES;
	c->quota_ns = RUNTIME_INF;
	c->period_ns = DEF_CFS_PERIOD_US * NSEC_PER_USEC;
	c->rt_period_ns = GLOBAL_RT_PERIOD_US * NSEC_PER_USEC;
	/* The root has the global RT budget; a child starts with none (not inherited). */
	c->rt_runtime_ns = parent ? 0 : GLOBAL_RT_RUNTIME_US * NSEC_PER_USEC;
	return 0;
}

static int cpu_can_attach(const struct ucg_taskset *ts, struct ucg_css *dst)
{
	size_t i;

	for (i = 0; i < ts->nr_tasks; i++)
		if ((ts->tasks[i]->info.flags & UCG_TASK_RT) && cpu_of(dst)->rt_runtime_ns == 0)
			return -EINVAL;
	return 0;
}

/* ---- files ----------------------------------------------------------------------------- */

static uint64_t shares_read(struct ucg_of *of)
{
	struct cpu_css *c = cpu_of(of->css);

	return c->idle ? IDLE_SHARES : c->shares;
}

static int shares_write(struct ucg_of *of, uint64_t v)
{
	struct cpu_css *c = cpu_of(of->css);

	if (is_root(c) || c->idle)
		return -EINVAL;
	c->shares = v < MIN_SHARES ? MIN_SHARES : v > MAX_SHARES ? MAX_SHARES : v;
	return 0;
}

static int64_t idle_read(struct ucg_of *of)
{
	return cpu_of(of->css)->idle;
}

static int idle_write(struct ucg_of *of, int64_t v)
{
	struct cpu_css *c = cpu_of(of->css);

	if (is_root(c) || (v != 0 && v != 1))
		return -EINVAL;
	if (c->idle == (int)v)
		return 0;
	c->idle = (int)v;
	if (!v)
		c->shares = DEF_SHARES; /* leaving idle restores the default weight */
	return 0;
}

static int64_t quota_read(struct ucg_of *of)
{
	struct cpu_css *c = cpu_of(of->css);

	return c->quota_ns == RUNTIME_INF ? -1 : (int64_t)(c->quota_ns / NSEC_PER_USEC);
}

static int quota_write(struct ucg_of *of, int64_t v)
{
	struct cpu_css *c = cpu_of(of->css);
	uint64_t quota;

	if (v < 0)
		quota = RUNTIME_INF;
	else if ((uint64_t)v <= UINT64_MAX / NSEC_PER_USEC)
		quota = (uint64_t)v * NSEC_PER_USEC;
	else
		return -EINVAL;
	return set_cfs_bandwidth(c, c->period_ns, quota, c->burst_ns);
}

static uint64_t period_read(struct ucg_of *of)
{
	return cpu_of(of->css)->period_ns / NSEC_PER_USEC;
}

static int period_write(struct ucg_of *of, uint64_t v)
{
	struct cpu_css *c = cpu_of(of->css);

	if (v > UINT64_MAX / NSEC_PER_USEC)
		return -EINVAL;
	return set_cfs_bandwidth(c, v * NSEC_PER_USEC, c->quota_ns, c->burst_ns);
}

static uint64_t burst_read(struct ucg_of *of)
{
	return cpu_of(of->css)->burst_ns / NSEC_PER_USEC;
}

static int burst_write(struct ucg_of *of, uint64_t v)
{
	struct cpu_css *c = cpu_of(of->css);

	if (v > UINT64_MAX / NSEC_PER_USEC)
		return -EINVAL;
	return set_cfs_bandwidth(c, c->period_ns, c->quota_ns, v * NSEC_PER_USEC);
}

static int64_t rt_runtime_read(struct ucg_of *of)
{
	struct cpu_css *c = cpu_of(of->css);

	return c->rt_runtime_ns == RUNTIME_INF ? -1 : (int64_t)(c->rt_runtime_ns / NSEC_PER_USEC);
}

static int rt_runtime_write(struct ucg_of *of, int64_t v)
{
	struct cpu_css *c = cpu_of(of->css);
	uint64_t runtime;

	if (v < 0)
		runtime = RUNTIME_INF;
	else if ((uint64_t)v <= UINT64_MAX / NSEC_PER_USEC)
		runtime = (uint64_t)v * NSEC_PER_USEC;
	else
		return -EINVAL;
	return set_rt_bandwidth(c, c->rt_period_ns, runtime);
}

static uint64_t rt_period_read(struct ucg_of *of)
{
	return cpu_of(of->css)->rt_period_ns / NSEC_PER_USEC;
}

static int rt_period_write(struct ucg_of *of, uint64_t v)
{
	struct cpu_css *c = cpu_of(of->css);

	if (v > UINT64_MAX / NSEC_PER_USEC)
		return -EINVAL;
	return set_rt_bandwidth(c, v * NSEC_PER_USEC, c->rt_runtime_ns);
}

static int stat_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct cpu_css *c = cpu_of(of->css);

	ucg_buf_printf(out, "nr_periods %llu\nnr_throttled %llu\nthrottled_time %llu\n"
			    "nr_bursts %llu\nburst_time %llu\n",
		       (unsigned long long)c->nr_periods, (unsigned long long)c->nr_throttled,
		       (unsigned long long)c->throttled_ns, (unsigned long long)c->nr_bursts,
		       (unsigned long long)c->burst_time_ns);
	return 0;
}

static int stat_local_show(struct ucg_of *of, struct ucg_buf *out)
{
	/* Time this group's own runqueues were throttled, by its quota or an
	 * ancestor's, as a scheduler model reports it (ucg_cpu_account_local). */
	ucg_buf_printf(out, "throttled_time %llu\n",
		       (unsigned long long)cpu_of(of->css)->local_throttled_ns);
	return 0;
}

/* ---- public calls (charge.h) ------------------------------------------------------ */

/* What ucg_cpu_bandwidth_get reports of c (NULL: cpu bound nowhere, the defaults). */
static void bandwidth_of(const struct cpu_css *c, struct ucg_cpu_bandwidth *ret)
{
	const struct cpu_css *it;
	uint64_t ratio = UINT64_MAX;

	if (!c) {
		ret->shares = DEF_SHARES;
		ret->quota_us = -1;
		ret->period_us = DEF_CFS_PERIOD_US;
		ret->burst_us = 0;
		ret->ratio = UINT64_MAX;
		return;
	}
	/* The nearest limited group (v1: an unlimited group inherits its parent's). */
	for (it = c; it && !is_root(it); it = cpu_of(it->css.cgroup->parent->css[UCG_SS_cpu]))
		if (it->quota_ns != RUNTIME_INF) {
			ratio = to_ratio(it->period_ns, it->quota_ns);
			break;
		}
	ret->shares = c->idle ? IDLE_SHARES : c->shares;
	ret->quota_us = c->quota_ns == RUNTIME_INF ? -1 : (int64_t)(c->quota_ns / NSEC_PER_USEC);
	ret->period_us = c->period_ns / NSEC_PER_USEC;
	ret->burst_us = c->burst_ns / NSEC_PER_USEC;
	ret->ratio = ratio;
}

int ucg_cpu_bandwidth_get(const struct ucg_cgroup *cg, struct ucg_cpu_bandwidth *ret)
{
	if (!cg->css[UCG_SS_cpu])
		return -EINVAL;
	bandwidth_of(cpu_of(cg->css[UCG_SS_cpu]), ret);
	return 0;
}

/* The cpu group of cg: 0 and *ret (NULL for a NULL cg: cpu bound nowhere), or -EINVAL
 * if cg is not of the hierarchy cpu is bound to. */
static int cg_cpu(struct ucg_cgroup *cg, struct cpu_css **ret)
{
	if (!cg) {
		*ret = NULL;
		return 0;
	}
	if (!cg->css[UCG_SS_cpu])
		return -EINVAL;
	*ret = cpu_of(cg->css[UCG_SS_cpu]);
	return 0;
}

int ucg_cpu_account_period(struct ucg_cgroup *cg, int throttled, uint64_t throttled_ns,
			   uint64_t burst_ns)
{
	struct cpu_css *c;
	int r = cg_cpu(cg, &c);

	if (r < 0 || !c)
		return r;
	c->nr_periods++;
	if (throttled) {
		c->nr_throttled++;
		c->throttled_ns += throttled_ns;
	}
	if (burst_ns) {
		c->nr_bursts++;
		c->burst_time_ns += burst_ns;
	}
	return 0;
}

int ucg_cpu_account_local(struct ucg_cgroup *cg, uint64_t throttled_ns)
{
	struct cpu_css *c;
	int r = cg_cpu(cg, &c);

	if (r < 0 || !c)
		return r;
	c->local_throttled_ns += throttled_ns;
	return 0;
}

static const struct ucg_cftype cpu_files[] = {
	{ .name = "shares", .mode = 0644, .read_u64 = shares_read, .write_u64 = shares_write },
	{ .name = "idle", .mode = 0644, .read_s64 = idle_read, .write_s64 = idle_write },
	{ .name = "cfs_quota_us", .mode = 0644, .read_s64 = quota_read, .write_s64 = quota_write },
	{ .name = "cfs_period_us", .mode = 0644, .read_u64 = period_read,
	  .write_u64 = period_write },
	{ .name = "cfs_burst_us", .mode = 0644, .read_u64 = burst_read, .write_u64 = burst_write },
	{ .name = "stat", .mode = 0444, .show = stat_show },
	{ .name = "stat.local", .mode = 0444, .show = stat_local_show },
	{ .name = "rt_runtime_us", .mode = 0644, .read_s64 = rt_runtime_read,
	  .write_s64 = rt_runtime_write },
	{ .name = "rt_period_us", .mode = 0644, .read_u64 = rt_period_read,
	  .write_u64 = rt_period_write },
	{ 0 },
};

const struct ucg_subsys ucg_cpu_subsys = {
	.name = "cpu",
	.id = UCG_SS_cpu,
	.css_size = sizeof(struct cpu_css),
	.css_alloc = cpu_css_alloc,
	.can_attach = cpu_can_attach,
	.files = cpu_files,
};
