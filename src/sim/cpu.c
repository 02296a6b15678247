/* sim/cpu.c — the CPU model: N CPUs shared by hierarchical proportional share, capped
 * by CFS bandwidth quotas, placed by cpusets, stopped by the freezer.
 *
 * Model. CPU is a fluid: between two events every runnable task i runs at a constant
 * rate r_i (CPUs, 0..1), and the model recomputes the rates whenever demand or
 * configuration changes (a task starts or stops wanting CPU, an echo, an attach, a
 * quota running out or being refilled). This is the limit of CFS as the scheduling
 * slice goes to zero: CFS gives each runnable entity vruntime-proportional time, so
 * over any interval long against the slice (a few ms) the shares below hold.
 *
 * Proportional share (hierarchical water-filling). At a cgroup with capacity C (CPUs)
 * the entities are its child cgroups (weight = cpu.shares, default 1024) and its own
 * tasks (weight 1024, nice 0). Entity j wants D_j (a task: its demand, at most 1 CPU;
 * a cgroup: the sum of what its subtree wants, 0 when throttled). Sorted by D_j/w_j
 * ascending, entity j gets
 *         a_j = min(D_j, C_left * w_j / W_left),  then C_left -= a_j, W_left -= w_j,
 * the max-min fair allocation weighted by w: nobody gets more than it wants and the
 * surplus of the satisfied is shared by the others in proportion to their weights.
 * The root's capacity is N (the `cpus` of the scenario). Without a cpu hierarchy all
 * tasks are entities of one root. Example: 1 CPU, A (1024) and B (512) both busy:
 * A = 2/3, B = 1/3.
 *
 * CFS bandwidth. A cgroup with quota q per period p (cpu.cfs_quota_us,
 * cpu.cfs_period_us) has runtime_left = q at each period boundary (periods start at
 * the moment the quota is first seen and repeat every p; unused runtime is not carried
 * over). Every ns a task runs is taken from the runtime of each ancestor that has a
 * quota (the v1 hierarchical rule: a child can never run longer than any ancestor's
 * quota allows). When runtime_left reaches 0 the cgroup is throttled: its demand
 * counts as 0 until the next boundary. nr_periods, nr_throttled and throttled_time
 * count as cpu.stat does. With quota 50 ms / 100 ms a busy task on an idle machine
 * gets 0.5 CPU: it runs at 1 CPU for 50 ms and sits throttled for 50 ms.
 *
 * Cpuset placement. A task whose cpuset has k CPUs (cpuset.effective_cpus) cannot
 * use more than k CPUs together with the other tasks of that cpuset. The model
 * allocates once without placement, scales each over-full cpuset's tasks down to k,
 * freezes those tasks' demand at the result and allocates again, so the capacity they
 * could not use goes to everyone else.
 *
 * Freezer. A task whose freezer cgroup (or any ancestor) is not THAWED is not
 * runnable.
 *
 * Accounting. Each ns a task runs is added to the task and to its cgroup and every
 * ancestor in every hierarchy (cpuacct.usage is hierarchical; the simulator reports
 * CPU per cgroup in every hierarchy). Rates are doubles; the time added for an
 * interval is rounded to whole ns, the same way on every machine (IEEE arithmetic in
 * a fixed order).
 *
 * Limits. No per-CPU runqueues, migration, wake-up latency or slice granularity: two
 * busy tasks on 2 CPUs in a 1-CPU cpuset share it perfectly. Sharing is globally
 * fair, while CFS shares per CPU: a group's weight is split over the CPUs its tasks
 * run on, so with 2 CPUs, group A (2 busy tasks) against group B (1 busy task) at
 * equal shares the kernel gives A 4/3 and B 2/3 of a CPU (B's task meets half of A on
 * its CPU with its full weight, A's other task runs alone), where this model gives
 * 1 and 1. bench/sim_vs_kernel_cpu.sh measures both: shares on one CPU and quotas
 * agree within 1-2%, this case differs by 0.17 of the fraction. Placement is per leaf
 * cpuset (nested cpusets are not intersected) and exclusive sets are not modelled.
 * Nice values, RT classes, cpu.idle and cfs_burst_us are not modelled. The kernel's
 * 5 ms bandwidth slices (a cgroup can overrun its quota by up to one slice per CPU)
 * are not modelled: the quota is exact. CPU time is charged to the cpuacct
 * controller (ucg_cpuacct_charge, all user time, spread over CPUs by task index) and
 * each ended bandwidth period to the cpu controller's cpu.stat
 * (ucg_cpu_account_period, through a runnable member of the cgroup: a cgroup whose
 * tasks all sit in its children does not get its periods reported there, only in
 * the simulator's table).
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

#define RUNTIME_EPS 1000 /* ns: below this a quota counts as used up */

static void cpu_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);

void sim_cpu_init(struct sim *s)
{
	s->cpu_ev.fire = cpu_fire;
	s->cpu_last = 0;
}

static bool task_frozen(struct sim *s, struct sim_task *t)
{
	struct sim_cg *cg = sim_task_cg(s, t, SIM_SS_FREEZER);

	for (; cg; cg = cg->parent) {
		sim_cg_refresh(s, cg);
		if (cg->frozen)
			return true;
	}
	return false;
}

void sim_cpu_advance(struct sim *s, sim_time now)
{
	sim_time dt = now - s->cpu_last;
	int64_t used = 0;
	size_t i, h;

	if (dt <= 0)
		return;
	s->cpu_last = now;
	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];
		struct sim_cg *cg;
		int64_t ns;

		if (!t->alive || t->rate <= 0)
			continue;
		ns = (int64_t)(t->rate * (double)dt + 0.5);
		if (ns <= 0)
			continue;
		t->cpu_ns += ns;
		used += ns;
		/* cpuacct through the controller; the model has no per-CPU placement, so a
		 * task's time goes to CPU (its index mod N), all of it as user time */
		ucg_cpuacct_charge(s->e, t->tid, (unsigned)(i % s->nr_cpus), (uint64_t)ns, 0);
		for (h = 0; h < s->nhier; h++)
			SIM_CG_UP(t->cg[h], cpu_ns, ns);
		cg = sim_task_cg(s, t, SIM_SS_CPU);
		for (; cg; cg = cg->parent)
			if (cg->quota_ns > 0)
				cg->runtime_left -= ns;
	}
	s->idle_ns += (int64_t)s->nr_cpus * dt - used;
}

struct ent {
	double w, d, a;
	struct sim_cg *cg;   /* child cgroup, or NULL for a task */
	struct sim_task *t;
};

static int ent_cmp(const void *pa, const void *pb)
{
	const struct ent *a = pa, *b = pb;
	double ra = a->d / a->w, rb = b->d / b->w;

	if (ra < rb)
		return -1;
	if (ra > rb)
		return 1;
	/* ties keep creation order: cgroups by id, tasks by tid */
	if (a->cg && b->cg)
		return a->cg->id - b->cg->id;
	if (a->t && b->t)
		return a->t->tid - b->t->tid;
	return a->cg ? -1 : 1;
}

/* Water-fills cap over v[0..n) by weight, capped at demand. */
static void waterfill(double cap, struct ent *v, size_t n)
{
	double W = 0;
	size_t i;

	qsort(v, n, sizeof(*v), ent_cmp);
	for (i = 0; i < n; i++)
		W += v[i].w;
	for (i = 0; i < n; i++) {
		double fair = W > 0 ? cap * v[i].w / W : 0;

		v[i].a = v[i].d < fair ? v[i].d : fair;
		if (v[i].a < 0)
			v[i].a = 0;
		cap -= v[i].a;
		W -= v[i].w;
	}
}

struct cpu_ctx {
	struct sim *s;
	int *head;    /* per cgroup id: first runnable task index, -1 */
	int *next;    /* per task index */
	double *want; /* per task index: demand this pass */
	struct sim_task **rt; /* runnable tasks */
	size_t nrt;
	int root_head; /* tasks without a cpu cgroup */
};

static double node_demand(struct cpu_ctx *c, struct sim_cg *cg)
{
	double d = 0;
	size_t i;
	int k;

	if (cg) {
		for (i = 0; i < cg->nchildren; i++)
			d += node_demand(c, cg->children[i]);
		for (k = c->head[cg->id]; k >= 0; k = c->next[k])
			d += c->want[k];
		if (cg->throttled)
			d = 0;
		cg->demand = d;
		cg->alloc = 0;
	} else {
		for (k = c->root_head; k >= 0; k = c->next[k])
			d += c->want[k];
	}
	return d;
}

static int node_alloc(struct cpu_ctx *c, struct sim_cg *cg, double cap)
{
	struct ent *v;
	size_t n = 0, m = 0, i;
	int k, first = cg ? c->head[cg->id] : c->root_head;
	int r = 0;

	if (cg)
		for (i = 0; i < cg->nchildren; i++)
			if (cg->children[i]->demand > 0)
				n++;
	for (k = first; k >= 0; k = c->next[k])
		if (c->want[k] > 0)
			n++;
	if (n == 0)
		return 0;
	v = ucg_calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (cg)
		for (i = 0; i < cg->nchildren; i++) {
			struct sim_cg *ch = cg->children[i];

			if (ch->demand <= 0)
				continue;
			v[m].w = ch->shares;
			v[m].d = ch->demand;
			v[m++].cg = ch;
		}
	for (k = first; k >= 0; k = c->next[k])
		if (c->want[k] > 0) {
			v[m].w = 1024;
			v[m].d = c->want[k];
			v[m++].t = c->rt[k];
		}
	waterfill(cap, v, m);
	for (i = 0; i < m && r == 0; i++) {
		if (v[i].t) {
			v[i].t->rate = v[i].a;
		} else {
			v[i].cg->alloc = v[i].a;
			r = node_alloc(c, v[i].cg, v[i].a);
		}
	}
	ucg_free(v);
	return r;
}

static int allocate(struct cpu_ctx *c, struct sim_hier *hi)
{
	size_t i;

	for (i = 0; i < c->nrt; i++)
		c->rt[i]->rate = 0;
	if (hi) {
		node_demand(c, hi->root);
		if (hi->root->demand <= 0)
			return 0;
		return node_alloc(c, hi->root, (double)c->s->nr_cpus);
	}
	node_demand(c, NULL);
	return node_alloc(c, NULL, (double)c->s->nr_cpus);
}

/* Cpuset placement: scales over-full cpusets; true when anything changed. */
static bool place(struct cpu_ctx *c)
{
	struct sim *s = c->s;
	struct sim_hier *cs = sim_hier_of(s, SIM_SS_CPUSET);
	bool changed = false;
	size_t i, j;

	if (!cs)
		return false;
	for (i = 0; i < c->nrt; i++) {
		struct sim_cg *g = sim_task_cg(s, c->rt[i], SIM_SS_CPUSET);
		double sum = 0, k;

		if (!g)
			continue;
		sim_cg_refresh(s, g);
		if (g->ncpus == 0 || g->ncpus >= s->nr_cpus)
			continue;
		/* visit each cpuset once: only from its first runnable task */
		for (j = 0; j < i; j++)
			if (sim_task_cg(s, c->rt[j], SIM_SS_CPUSET) == g)
				break;
		if (j < i)
			continue;
		for (j = i; j < c->nrt; j++)
			if (sim_task_cg(s, c->rt[j], SIM_SS_CPUSET) == g)
				sum += c->rt[j]->rate;
		k = (double)g->ncpus;
		if (sum <= k + 1e-12)
			continue;
		for (j = i; j < c->nrt; j++)
			if (sim_task_cg(s, c->rt[j], SIM_SS_CPUSET) == g) {
				c->want[j] = c->rt[j]->rate * k / sum;
				changed = true;
			}
	}
	return changed;
}

static void refresh_quota(struct sim *s, struct sim_cg *cg)
{
	size_t i;

	sim_cg_refresh(s, cg);
	if (cg->quota_ns != cg->q_seen || cg->period_ns != cg->p_seen) {
		cg->q_seen = cg->quota_ns;
		cg->p_seen = cg->period_ns;
		if (cg->quota_ns > 0) {
			/* a new or changed quota starts a fresh period now */
			cg->period_start = s->now;
			cg->runtime_left = cg->quota_ns;
			cg->nr_periods++;
		}
		if (cg->throttled && cg->quota_ns <= 0) {
			cg->throttled = false;
			cg->throttled_ns += s->now - cg->throttled_since;
		}
	}
	for (i = 0; i < cg->nchildren; i++)
		refresh_quota(s, cg->children[i]);
}

static sim_time next_change(struct sim *s, struct sim_cg *cg, sim_time best)
{
	size_t i;

	if (cg->quota_ns > 0) {
		sim_time pend = cg->period_start + cg->period_ns;

		if (pend < best)
			best = pend;
		if (!cg->throttled && cg->rate > 0) {
			double left = (double)(cg->runtime_left > 0 ? cg->runtime_left : 0);
			sim_time d = (sim_time)(left / cg->rate), t;

			if ((double)d * cg->rate < left)
				d++; /* round up: the quota is used up at, not before, t */
			t = s->now + d;

			if (t < best)
				best = t;
		}
	}
	for (i = 0; i < cg->nchildren; i++)
		best = next_change(s, cg->children[i], best);
	return best;
}

static double sum_rates(struct sim_cg *cg)
{
	double r = cg->alloc;
	size_t i;

	cg->rate = r;
	for (i = 0; i < cg->nchildren; i++)
		sum_rates(cg->children[i]);
	return r;
}

void sim_cpu_update(struct sim *s)
{
	struct sim_hier *hi = sim_hier_of(s, SIM_SS_CPU);
	struct cpu_ctx c;
	size_t i;
	int r = -ENOMEM;

	s->cpu_dirty = false;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.root_head = -1;
	if (hi) {
		refresh_quota(s, hi->root);
	}
	c.head = ucg_malloc((s->ncgs + 1) * sizeof(int));
	c.next = ucg_malloc((s->ntasks + 1) * sizeof(int));
	c.want = ucg_malloc((s->ntasks + 1) * sizeof(double));
	c.rt = ucg_malloc((s->ntasks + 1) * sizeof(*c.rt));
	if (!c.head || !c.next || !c.want || !c.rt)
		goto out;
	for (i = 0; i < s->ncgs; i++)
		c.head[i] = -1;
	/* runnable tasks, linked to their cpu cgroup in reverse so lists keep tid order */
	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];

		t->rate = 0;
		if (!t->alive || t->cpu_demand <= 0 || task_frozen(s, t))
			continue;
		c.rt[c.nrt] = t;
		c.want[c.nrt] = t->cpu_demand > 1 ? 1 : t->cpu_demand;
		c.nrt++;
	}
	for (i = c.nrt; i-- > 0;) {
		struct sim_cg *cg = hi ? sim_task_cg(s, c.rt[i], SIM_SS_CPU) : NULL;
		int *head = cg ? &c.head[cg->id] : hi ? &c.head[hi->root->id] : &c.root_head;

		c.next[i] = *head;
		*head = (int)i;
		if (cg)
			cg->rep_tid = c.rt[i]->tid;
	}
	r = allocate(&c, hi);
	if (r == 0 && place(&c))
		r = allocate(&c, hi);
	if (r == 0 && hi) {
		sim_time at;

		sum_rates(hi->root);
		at = next_change(s, hi->root, SIM_TIME_MAX);
		if (at != SIM_TIME_MAX)
			r = sim_schedule(s, at, &s->cpu_ev, ++s->cpu_gen);
	}
out:
	if (r < 0)
		sim_fail(s, 0, r, "cpu model");
	ucg_free(c.head);
	ucg_free(c.next);
	ucg_free(c.want);
	ucg_free(c.rt);
}

static void bandwidth_tick(struct sim *s, struct sim_cg *cg)
{
	size_t i;

	if (cg->quota_ns > 0) {
		while (s->now >= cg->period_start + cg->period_ns) {
			int was = cg->throttled;
			int64_t thr = was ? s->now - cg->throttled_since : 0;

			cg->period_start += cg->period_ns;
			cg->nr_periods++;
			cg->runtime_left = cg->quota_ns;
			if (was) {
				cg->throttled = false;
				cg->throttled_ns += thr;
			}
			/* cpu.stat through the controller, via a member of the cgroup */
			if (cg->rep_tid > 0)
				ucg_cpu_account_period(s->e, cg->rep_tid, was, (uint64_t)thr, 0);
		}
		if (!cg->throttled && cg->runtime_left <= RUNTIME_EPS && cg->rate > 0) {
			cg->throttled = true;
			cg->nr_throttled++;
			cg->throttled_since = s->now;
		}
	}
	for (i = 0; i < cg->nchildren; i++)
		bandwidth_tick(s, cg->children[i]);
}

static void cpu_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct sim_hier *hi = sim_hier_of(s, SIM_SS_CPU);

	(void)src;
	if (arg != s->cpu_gen || !hi)
		return;
	bandwidth_tick(s, hi->root);
	s->cpu_dirty = true;
}
