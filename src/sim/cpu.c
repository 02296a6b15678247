/* sim/cpu.c — the CPU model: N CPUs, each with its own runqueue tree, shared by
 * hierarchical proportional share, capped by CFS bandwidth quotas, placed by cpusets
 * and affinity (`taskset`), balanced by load, stopped by the freezer.
 *
 * Model. CPU is a fluid: between two events every runnable task i runs at a constant
 * rate r_i (CPUs, 0..1), and the model recomputes the rates whenever demand or
 * configuration changes (a task starts or stops wanting CPU, an echo, an attach, a
 * quota running out or being refilled). This is the limit of CFS as the scheduling
 * slice goes to zero: CFS gives each runnable entity vruntime-proportional time, so
 * over any interval long against the slice (a few ms) the shares below hold.
 *
 * Per-CPU runqueues. Each runnable task sits on one CPU (t->cpu). As in CFS, every
 * group has a runqueue on each CPU where it has runnable tasks, and its entity in the
 * parent's runqueue there weighs a part of its cpu.shares S:
 *         w_G(c) = max(2, S · L_G(c) / Σ_c' L_G(c'))
 * where L_G(c), the load of G's runqueue on c, is Σ 1024·want over its tasks there
 * plus Σ w_H(c)·min(1, D_H(c)) over its child groups H queued there (D: the CPUs the
 * subtree wants on c). This is the kernel's calc_group_shares with every entity's
 * load average at its steady value (load = weight × runnable fraction, the fraction
 * taken as the demand). Computed bottom-up (a child's id is above its parent's).
 *
 * Proportional share on one CPU (hierarchical water-filling). At a runqueue with
 * capacity C (1 at the root of each CPU) the entities are the child groups queued
 * there (weight w_H(c), demand D_H(c)) and its tasks (weight 1024, demand want, at
 * most 1). Sorted by D_j/w_j ascending, entity j gets
 *         a_j = min(D_j, C_left * w_j / W_left),  then C_left -= a_j, W_left -= w_j,
 * the max-min fair allocation weighted by w; a group's a_j is the capacity of its own
 * runqueue on that CPU. Example: 1 CPU, A (1024) and B (512) both busy: A = 2/3,
 * B = 1/3. Example: 2 CPUs, A's two busy tasks pinned to CPU 0 and CPU 1, B's one
 * task on CPU 0, equal shares: A weighs 512 on each CPU, so on CPU 0 A gets 1/3 and
 * B 2/3, on CPU 1 A gets 1: A = 4/3, B = 2/3 (the kernel: 0.674 of the total for A,
 * bench/sim_vs_kernel_cpu.sh "nested", where a global fair share would say 1/2).
 *
 * Placement and balancing. A task that becomes runnable (or whose CPU it may no
 * longer use) goes, in tid order, to the allowed CPU with the least runnable demand
 * (the lowest-numbered on ties); a task that stops being runnable leaves its CPU.
 * Then, as the kernel's load balancer, the model evens out the CPUs' root loads
 * L_root(c): it takes the most loaded CPU that has a movable task, and moves the task
 * whose move to its least loaded allowed CPU cuts that pair's difference the most, by
 * more than 1/64 of a nice-0 load, estimating the task's part of the root load by its
 * h_load = 1024·want · Π over its groups (w_G(c)·min(1, D_G(c)) / L_parent(c)) /
 * L_G(c) · ... (its load scaled level by level up to the root); up to N moves a round
 * on the estimates, then the runqueues are rebuilt, at most 8 rounds. Without pinning
 * this ends where each group gets about its global fair share (the example above,
 * unpinned: B's task gets CPU 1, A's two tasks CPU 0: 1 and 1; the kernel gave A
 * 0.51 of the total, bench/sim_vs_kernel_cpu.sh "balance"). Allowed CPUs are the
 * task's cpuset (cpuset.effective_cpus) intersected with its affinity; an empty
 * intersection falls back to the cpuset, then to every CPU.
 *
 * CFS bandwidth. A cgroup with quota q per period p (cpu.cfs_quota_us,
 * cpu.cfs_period_us) has runtime_left = q at each period boundary (periods start at
 * the moment the quota is first seen and repeat every p; unused runtime is not carried
 * over). Every ns a task runs is taken from the runtime of each ancestor that has a
 * quota (the v1 hierarchical rule: a child can never run longer than any ancestor's
 * quota allows). When runtime_left reaches 0 the cgroup is throttled on every CPU: it
 * leaves its parent's runqueues until the next boundary (the global pool is shared by
 * all CPUs). With quota 50 ms / 100 ms a busy task on an idle machine gets 0.5 CPU: it
 * runs at 1 CPU for 50 ms and sits throttled for 50 ms.
 *
 * cpu.stat. Each group with a quota counts its own periods and throttling, whether
 * its tasks are its own or its descendants' (verified on 6.18: a parent whose quota
 * throttles its only busy child shows nr_periods/nr_throttled/throttled_time, the
 * child none). As in the kernel, only periods in which the group ran or was
 * throttled count (the period timer stops when the group is idle), and
 * throttled_time sums the throttled runqueues: a throttled interval of T counts
 * T × (CPUs on which the group had runnable tasks when it was throttled); two busy
 * tasks on two CPUs under a 50 ms quota give 150 ms per 100 ms period (the kernel
 * showed ~160). cpu.stat.local (its runqueues throttled, by its own quota or an
 * ancestor's) grows for the throttled group and for each descendant by T × the CPUs
 * where that descendant had runnable tasks. Both are reported to the cpu controller
 * by path (ucg_cpu_account_period_path, ucg_cpu_account_local_path).
 *
 * Freezer. A task whose freezer cgroup (or any ancestor) is not THAWED is not
 * runnable.
 *
 * Accounting. Each ns a task runs is added to the task and to its cgroup and every
 * ancestor in every hierarchy (cpuacct.usage is hierarchical; the simulator reports
 * CPU per cgroup in every hierarchy), and charged to cpuacct on the task's CPU, all
 * as user time. Rates are doubles; the time added for an interval is rounded to whole
 * ns, the same way on every machine (IEEE arithmetic in a fixed order).
 *
 * Limits. Balancing is a deterministic rule, not the kernel's timing: the kernel's
 * outcome depends on where tasks woke up and when its balancer ran, so with free tasks
 * the two can settle in different, equally balanced, placements. No migration cost,
 * wake-up latency or slice granularity; a task's runnable fraction is taken as its
 * demand (a partly busy task that waits behind others is runnable longer in the
 * kernel, and weighs more there). The kernel's 5 ms bandwidth slices (a cgroup can
 * overrun its quota by up to one slice per CPU, and CPUs throttle one by one as
 * their slices run out) are not modelled: the quota is exact and all CPUs throttle
 * together. Nested throttling (a group and its ancestor throttled at once) adds both
 * to the descendants' cpu.stat.local. Affinity masks cover CPUs 0..63. Nice values,
 * RT classes, cpu.idle and cfs_burst_us are not modelled.
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

#define RUNTIME_EPS 1000 /* ns: below this a quota counts as used up */

static void cpu_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);

bool sim_cpu_no_shortcut;
uint64_t sim_cpu_shortcuts;

void sim_cpu_init(struct sim *s)
{
	s->cpu_ev.fire = cpu_fire;
	s->cpu_last = 0;
}

/* The index in s->hier[] of the hierarchy carrying ss, -1: looked up once per
 * recompute so that the per-task loops read t->cg[] directly (sim_task_cg per task
 * and controller was a good part of a recompute's cost). */
static int hier_index(struct sim *s, enum sim_ss ss)
{
	struct sim_hier *hi = sim_hier_of(s, ss);
	size_t i;

	for (i = 0; hi && i < s->nhier; i++)
		if (s->hier[i] == hi)
			return (int)i;
	return -1;
}

/* sim_task_cg with the hierarchy's index known (t->cg[] refreshed first, as there) */
static inline struct sim_cg *task_cg_at(struct sim *s, struct sim_task *t, int idx)
{
	sim_task_refresh(s, t);
	return idx < 0 ? NULL : t->cg[idx];
}

/* sim_cg_refresh without the call when the group is current */
static inline void cg_refresh(struct sim *s, struct sim_cg *cg)
{
	if (cg->cfg_epoch != s->cfg_epoch)
		sim_cg_refresh(s, cg);
}

static bool task_frozen(struct sim *s, struct sim_task *t, int ifrz)
{
	struct sim_cg *cg = task_cg_at(s, t, ifrz);

	for (; cg; cg = cg->parent) {
		cg_refresh(s, cg);
		if (cg->frozen)
			return true;
	}
	return false;
}

/* ---- per-CPU runqueues ------------------------------------------------------------ */

#define NICE0 1024.0
#define MIN_SHARES 2.0
#define BALANCE_ROUNDS 8
#define BALANCE_EPS (NICE0 / 64) /* a move must cut an imbalance by 1/64 of a task */

/* A group's runqueue on one CPU (the root's too): what its entities there want and
 * weigh, and where it sits in its parent's runqueue on that CPU. */
struct rq {
	struct sim_cg *cg;   /* NULL: the root when no hierarchy has the cpu controller */
	int cpu;
	int parent;          /* the parent group's rq on this CPU, -1: root or throttled */
	int next_of_cg;      /* the group's rq on another CPU */
	int first_child, next_sib; /* child groups' rqs on this CPU */
	int first_task;      /* runnable tasks queued here (index into rt) */
	double load;         /* Σ entity loads: tasks 1024·want, groups w·min(1, d) */
	double d;            /* CPUs its tasks want here */
	double w;            /* its group entity's weight on this CPU */
	double u;            /* min(1, d) */
	int slot;            /* its group's slot (cgroup id, or the hierarchy-less root) */
};

struct went {
	double w, d, a;
	double r;            /* d / w, the sort key, computed once */
	int rq;              /* child group's rq, or -1 for a task */
	int task;            /* index into rt */
	int key;             /* cgroup id or tid, for ties */
};

struct cpu_state {
	struct rq *rq;
	size_t nrq, crq;
	int *cg_first;       /* per cgroup id, + 1 for the hierarchy-less root: first rq */
	size_t ccg;
	struct sim_task **rt; /* runnable tasks, tid order */
	double *want;
	int *task_rq, *task_next, *cpu_tnext;
	uint64_t *mask;      /* allowed CPUs per runnable task (bits) ... */
	bool *any;           /* ... or any CPU */
	bool *moved;
	size_t nrt, crt;
	int *cpu_root;       /* per CPU: the root's rq, -1 */
	int *cpu_head;       /* per CPU: its runnable tasks */
	int *order;
	double *cpu_load;    /* per CPU: the root runqueue's load */
	size_t ccpu;
	struct went *wf;
	size_t cwf;
	struct sim_task **run; /* tasks with a rate, for sim_cpu_advance */
	struct sim_cg **tcg; /* per runnable task: its cpu cgroup */
	struct sim_task **pl; /* tasks with cpuacct_pend, to flush */
	size_t npl, cpl;
	size_t nrun;
	int *slot;           /* (group slot, CPU) -> its rq, -1; NULL when too large */
	size_t cslot, slot_ncpu;
	/* The runnable set (rt, tcg, want, mask, any) of the last recompute is reused
	 * when the only event since was a CPU timer (throttling changed, nothing else
	 * could have): then the tasks, their cgroups, cpusets, freezer states and
	 * affinities are those the last gather read. */
	bool gathered;       /* rt.. hold the last recompute's runnable set */
	uint64_t upd_nevents; /* s->nevents when the last recompute ran */
	uint64_t bw_nevents; /* s->nevents after the timer that alone dirtied, or 0 */
	uint64_t g_memb, g_cfg; /* the epochs, counts and hierarchy of that gather */
	size_t g_ntasks, g_ncgs, g_nhier;
	unsigned g_ncpus;
	struct sim_hier *g_hi;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	void *v;
	size_t n;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	v = ucg_realloc(*p, n * size);
	if (!v)
		return -ENOMEM;
	*p = v;
	*cap = n;
	return 0;
}

void sim_cpu_fini(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;

	if (!st)
		return;
	ucg_free(st->rq);
	ucg_free(st->cg_first);
	ucg_free(st->rt);
	ucg_free(st->want);
	ucg_free(st->task_rq);
	ucg_free(st->task_next);
	ucg_free(st->cpu_tnext);
	ucg_free(st->mask);
	ucg_free(st->any);
	ucg_free(st->moved);
	ucg_free(st->cpu_root);
	ucg_free(st->cpu_head);
	ucg_free(st->order);
	ucg_free(st->cpu_load);
	ucg_free(st->wf);
	ucg_free(st->run);
	ucg_free(st->tcg);
	ucg_free(st->pl);
	ucg_free(st->slot);
	ucg_free(st);
	s->cpu_state = NULL;
}

/* Sizes the scratch for ntasks tasks, ncg cgroups and ncpu CPUs. */
static int state_reserve(struct cpu_state *st, size_t ntasks, size_t ncg, size_t ncpu)
{
	size_t c;

	if (ntasks + 1 > st->crt) {
		size_t n = ntasks + 1 + ntasks / 2;
		void **arr[] = { (void **)&st->rt, (void **)&st->want, (void **)&st->task_rq,
				 (void **)&st->task_next, (void **)&st->cpu_tnext,
				 (void **)&st->mask, (void **)&st->any, (void **)&st->moved,
				 (void **)&st->run, (void **)&st->tcg };
		size_t sz[] = { sizeof(*st->rt), sizeof(*st->want), sizeof(int), sizeof(int),
				sizeof(int), sizeof(uint64_t), sizeof(bool), sizeof(bool),
				sizeof(*st->run), sizeof(*st->tcg) };
		size_t i;

		for (i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
			void *v = ucg_realloc(*arr[i], n * sz[i]);

			if (!v)
				return -ENOMEM;
			*arr[i] = v;
		}
		st->crt = n;
	}
	c = st->ccg;
	if (grow((void **)&st->cg_first, &c, ncg + 1, sizeof(int)) < 0)
		return -ENOMEM;
	st->ccg = c;
	/* a dense (group, CPU) index while it stays small (4M entries); else rq_get
	 * scans the group's rqs */
	if ((ncg + 1) * ncpu <= ((size_t)1 << 22)) {
		size_t need = (ncg + 1) * ncpu, i;

		if (need > st->cslot || st->slot_ncpu != ncpu) {
			int *v = ucg_realloc(st->slot, need * sizeof(int));

			if (!v)
				return -ENOMEM;
			st->slot = v;
			st->cslot = need;
			st->slot_ncpu = ncpu;
			for (i = 0; i < need; i++)
				v[i] = -1;
			st->nrq = 0; /* nothing to clear in the fresh index */
		}
	} else {
		ucg_free(st->slot);
		st->slot = NULL;
		st->cslot = 0;
	}
	if (ncpu > st->ccpu) {
		void **arr[] = { (void **)&st->cpu_root, (void **)&st->cpu_head,
				 (void **)&st->order, (void **)&st->cpu_load };
		size_t sz[] = { sizeof(int), sizeof(int), sizeof(int), sizeof(double) };
		size_t i;

		for (i = 0; i < 4; i++) {
			void *v = ucg_realloc(*arr[i], ncpu * sz[i]);

			if (!v)
				return -ENOMEM;
			*arr[i] = v;
		}
		st->ccpu = ncpu;
	}
	return 0;
}

/* The rq of the group with slot idx (cgroup id, or the hierarchy-less root) on cpu,
 * made empty if it has none yet; -1 when out of memory. */
static int rq_make(struct cpu_state *st, int idx, struct sim_cg *cg, int cpu)
{
	struct rq *q;
	int i;

	if (!st->slot) {
		for (i = st->cg_first[idx]; i >= 0; i = st->rq[i].next_of_cg)
			if (st->rq[i].cpu == cpu)
				return i;
	}
	if (grow((void **)&st->rq, &st->crq, st->nrq + 1, sizeof(*st->rq)) < 0)
		return -1;
	i = (int)st->nrq++;
	q = &st->rq[i];
	memset(q, 0, sizeof(*q));
	q->cg = cg;
	q->cpu = cpu;
	q->parent = q->first_child = q->next_sib = q->first_task = -1;
	q->next_of_cg = st->cg_first[idx];
	q->slot = idx;
	st->cg_first[idx] = i;
	if (st->slot)
		st->slot[(size_t)idx * st->slot_ncpu + (size_t)cpu] = i;
	return i;
}

/* rq_make with its common case, the group's rq found in the dense index, inline */
static inline int rq_get(struct cpu_state *st, int idx, struct sim_cg *cg, int cpu)
{
	if (st->slot) {
		int i = st->slot[(size_t)idx * st->slot_ncpu + (size_t)cpu];

		if (i >= 0)
			return i;
	}
	return rq_make(st, idx, cg, cpu);
}

/* Builds every runqueue from the tasks' CPUs, bottom-up. A group's entity on CPU c
 * weighs shares·L_c/ΣL (its load there over its load on all CPUs, at least 2), the
 * way CFS spreads a group's shares over the CPUs its tasks run on. */
static int build(struct sim *s, struct cpu_state *st, struct sim_hier *hi)
{
	size_t i, ncg = s->ncgs;
	size_t id;

	if (st->slot)
		for (i = 0; i < st->nrq; i++)
			st->slot[(size_t)st->rq[i].slot * st->slot_ncpu + (size_t)st->rq[i].cpu] = -1;
	st->nrq = 0;
	for (i = 0; i <= ncg; i++)
		st->cg_first[i] = -1;
	for (i = 0; i < s->nr_cpus; i++)
		st->cpu_root[i] = -1;
	for (i = 0; i < st->nrt; i++) {
		struct sim_cg *cg = st->tcg[i];
		int q;

		q = rq_get(st, cg ? cg->id : (int)ncg, cg, st->rt[i]->cpu);
		if (q < 0)
			return -ENOMEM;
		st->rq[q].load += NICE0 * st->want[i];
		st->rq[q].d += st->want[i];
		st->task_rq[i] = q;
		st->task_next[i] = st->rq[q].first_task;
		st->rq[q].first_task = (int)i;
	}
	if (!hi) {
		int q;

		for (q = st->cg_first[ncg]; q >= 0; q = st->rq[q].next_of_cg)
			st->cpu_root[st->rq[q].cpu] = q;
		goto loads;
	}
	/* children were made after their parents: decreasing id is bottom-up */
	for (id = ncg; id-- > 0;) {
		struct sim_cg *g = s->cgs[id];
		double total = 0;
		unsigned active = 0;
		int q;

		if (g->hier != hi)
			continue;
		for (q = st->cg_first[id]; q >= 0; q = st->rq[q].next_of_cg) {
			total += st->rq[q].load;
			if (st->rq[q].d > 0)
				active++;
		}
		g->nr_active = active;
		if (!g->parent) {
			for (q = st->cg_first[id]; q >= 0; q = st->rq[q].next_of_cg)
				st->cpu_root[st->rq[q].cpu] = q;
			continue;
		}
		if (g->throttled)
			continue; /* dequeued from its parent on every CPU */
		for (q = st->cg_first[id]; q >= 0; q = st->rq[q].next_of_cg) {
			struct rq *r = &st->rq[q];
			double w = total > 0 ? (double)g->shares * r->load / total : g->shares;
			int pq;

			if (w < MIN_SHARES)
				w = MIN_SHARES;
			r->w = w;
			r->u = r->d < 1 ? r->d : 1;
			pq = rq_get(st, g->parent->id, g->parent, r->cpu);
			if (pq < 0)
				return -ENOMEM;
			r = &st->rq[q]; /* rq_get may have moved the array */
			r->parent = pq;
			r->next_sib = st->rq[pq].first_child;
			st->rq[pq].first_child = q;
			st->rq[pq].load += r->w * r->u;
			st->rq[pq].d += r->d;
		}
	}
loads:
	for (i = 0; i < s->nr_cpus; i++)
		st->cpu_load[i] = st->cpu_root[i] >= 0 ? st->rq[st->cpu_root[i]].load : 0;
	return 0;
}

/* What task i adds to its CPU's root load (the kernel's h_load): its own load scaled
 * by each group's weight over the load of the runqueue it sits in; 0 when a throttled
 * group holds it. */
static double task_h_load(struct cpu_state *st, size_t i)
{
	int q = st->task_rq[i];
	double h = NICE0 * st->want[i];

	while (st->rq[q].parent >= 0) {
		int p = st->rq[q].parent;

		if (st->rq[q].load <= 0 || st->rq[p].load <= 0)
			return 0;
		h *= st->rq[q].w * st->rq[q].u / st->rq[q].load;
		q = p;
	}
	return st->cpu_root[st->rq[q].cpu] == q ? h : 0;
}

static bool allowed(const struct cpu_state *st, size_t i, unsigned cpu)
{
	return st->any[i] || (cpu < 64 && (st->mask[i] >> cpu & 1));
}

/* Where task i may run: its cpuset's CPUs and its affinity among the online ones; an
 * empty intersection falls back to the cpuset, then to every CPU, as the kernel does. */
static void task_mask(struct sim *s, struct cpu_state *st, size_t i, int ics)
{
	struct sim_task *t = st->rt[i];
	struct sim_cg *g = task_cg_at(s, t, ics);
	uint64_t online = s->nr_cpus >= 64 ? UINT64_MAX : (1ull << s->nr_cpus) - 1;
	uint64_t cs = UINT64_MAX, m;

	if (g) {
		cg_refresh(s, g);
		if (g->ncpus && g->cpus_mask)
			cs = g->cpus_mask;
	}
	m = cs & (t->affinity ? t->affinity : UINT64_MAX);
	if (!(m & online))
		m = cs;
	st->any[i] = m == UINT64_MAX || ((m & online) == online && s->nr_cpus <= 64);
	st->mask[i] = m & online;
	if (!st->any[i] && !st->mask[i])
		st->any[i] = true;
}

/* Newly runnable tasks (and tasks whose CPU became forbidden) go, in tid order, to the
 * allowed CPU with the least runnable demand (lowest number on ties). */
static void place_new(struct sim *s, struct cpu_state *st)
{
	size_t i;
	unsigned c;

	for (c = 0; c < s->nr_cpus; c++)
		st->cpu_load[c] = 0;
	for (i = 0; i < st->nrt; i++) {
		struct sim_task *t = st->rt[i];

		if (t->cpu >= 0 && (unsigned)t->cpu < s->nr_cpus && allowed(st, i, (unsigned)t->cpu))
			st->cpu_load[t->cpu] += st->want[i];
		else
			t->cpu = -1;
	}
	for (i = 0; i < st->nrt; i++) {
		struct sim_task *t = st->rt[i];
		int best = -1;

		if (t->cpu >= 0)
			continue;
		for (c = 0; c < s->nr_cpus; c++)
			if (allowed(st, i, c) && (best < 0 || st->cpu_load[c] < st->cpu_load[best]))
				best = (int)c;
		t->cpu = best < 0 ? 0 : best;
		st->cpu_load[t->cpu] += st->want[i];
	}
}

static int cmp_load_desc(const void *pa, const void *pb, void *ctx)
{
	const double *load = ctx;
	int a = *(const int *)pa, b = *(const int *)pb;

	if (load[a] != load[b])
		return load[a] > load[b] ? -1 : 1;
	return a - b;
}

/* One balancing move: from the most loaded CPU that has a movable task, the task
 * whose move to its least loaded allowed CPU cuts the pair's difference of root load
 * the most (by more than BALANCE_EPS). The loads are updated by the task's h_load,
 * the kernel's estimate. false when no move helps. */
static bool balance_move(struct sim *s, struct cpu_state *st)
{
	unsigned n = s->nr_cpus, k, c;
	int gmin = 0;

	for (c = 0; c < n; c++) {
		st->order[c] = (int)c;
		if (st->cpu_load[c] < st->cpu_load[gmin])
			gmin = (int)c;
	}
	qsort_r(st->order, n, sizeof(int), cmp_load_desc, st->cpu_load);
	for (k = 0; k < n; k++) {
		int src = st->order[k], best = -1, bdst = -1;
		double lsrc = st->cpu_load[src], bgain = BALANCE_EPS, bh = 0;
		int i;

		if (lsrc <= st->cpu_load[gmin] + BALANCE_EPS)
			break; /* the rest are as balanced */
		for (i = st->cpu_head[src]; i >= 0; i = st->cpu_tnext[i]) {
			int dst = -1;
			double h, gain;

			if (st->moved[i])
				continue;
			if (st->any[i]) {
				dst = gmin;
			} else {
				for (c = 0; c < n && c < 64; c++)
					if ((st->mask[i] >> c & 1) &&
					    (dst < 0 || st->cpu_load[c] < st->cpu_load[dst]))
						dst = (int)c;
			}
			if (dst < 0 || dst == src || st->cpu_load[dst] >= lsrc)
				continue;
			h = task_h_load(st, (size_t)i);
			if (h <= 0)
				continue;
			gain = (lsrc - st->cpu_load[dst]) -
			       fabs((lsrc - h) - (st->cpu_load[dst] + h));
			if (gain > bgain) {
				bgain = gain;
				best = i;
				bdst = dst;
				bh = h;
			}
		}
		if (best >= 0) {
			st->rt[best]->cpu = bdst;
			st->moved[best] = true;
			st->cpu_load[src] -= bh;
			st->cpu_load[bdst] += bh;
			return true;
		}
	}
	return false;
}

/* Builds the runqueues, moving tasks between CPUs while that evens out the root
 * loads (a few rounds of moves on estimated loads, each followed by a rebuild). */
static int balance(struct sim *s, struct cpu_state *st, struct sim_hier *hi)
{
	int round, r;

	for (round = 0;; round++) {
		size_t i, moves = 0;

		r = build(s, st, hi);
		if (r < 0 || round == BALANCE_ROUNDS || s->nr_cpus == 1)
			return r;
		for (i = 0; i < s->nr_cpus; i++)
			st->cpu_head[i] = -1;
		for (i = st->nrt; i-- > 0;) {
			int c = st->rt[i]->cpu;

			st->cpu_tnext[i] = st->cpu_head[c];
			st->cpu_head[c] = (int)i;
			st->moved[i] = false;
		}
		while (moves < s->nr_cpus && balance_move(s, st))
			moves++;
		if (!moves)
			return 0;
	}
}

static int went_cmp(const void *pa, const void *pb)
{
	const struct went *a = pa, *b = pb;
	double ra = a->r, rb = b->r;

	if (ra < rb)
		return -1;
	if (ra > rb)
		return 1;
	/* ties keep creation order: cgroups by id, tasks by tid, cgroups first */
	if ((a->rq >= 0) != (b->rq >= 0))
		return a->rq >= 0 ? -1 : 1;
	return a->key - b->key;
}

/* Water-fills cap over v[0..n) by weight, capped at demand. */
static void waterfill(double cap, struct went *v, size_t n)
{
	double W = 0;
	size_t i;

	if (n > 16) {
		qsort(v, n, sizeof(*v), went_cmp);
	} else {
		/* went_cmp is a total order, so any sort gives the same sequence; insertion
		 * sort is the cheap one for the few entities of a runqueue */
		for (i = 1; i < n; i++) {
			struct went x = v[i];
			size_t j = i;

			for (; j > 0 && went_cmp(&v[j - 1], &x) > 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	}
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

/* Shares cap CPUs of one runqueue among its entities (wf[top..) is free scratch). */
static void share_rq(struct sim *s, struct cpu_state *st, int q, double cap, size_t top)
{
	struct went *v = st->wf + top;
	size_t n = 0, i;
	int c, k;

	for (c = st->rq[q].first_child; c >= 0; c = st->rq[c].next_sib)
		if (st->rq[c].d > 0) {
			v[n].w = st->rq[c].w;
			v[n].d = st->rq[c].d;
			v[n].r = v[n].d / v[n].w;
			v[n].rq = c;
			v[n].task = -1;
			v[n++].key = st->rq[c].cg->id;
		}
	for (k = st->rq[q].first_task; k >= 0; k = st->task_next[k])
		if (st->want[k] > 0) {
			v[n].w = NICE0;
			v[n].d = st->want[k];
			v[n].r = v[n].d / v[n].w;
			v[n].rq = -1;
			v[n].task = k;
			v[n++].key = st->rt[k]->tid;
		}
	waterfill(cap, v, n);
	for (i = 0; i < n; i++) {
		if (v[i].rq < 0) {
			st->rt[v[i].task]->rate = v[i].a;
		} else {
			st->rq[v[i].rq].cg->alloc += v[i].a;
			share_rq(s, st, v[i].rq, v[i].a, top + n);
		}
	}
}

int sim_cpulist_parse(const char *p, uint64_t *ret)
{
	uint64_t m = 0;

	if (!*p)
		return -EINVAL;
	while (*p) {
		char *end;
		unsigned long a, z;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = z = strtoul(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -EINVAL;
			z = strtoul(end + 1, &end, 10);
		}
		if (a > z || z > 63)
			return -EINVAL;
		for (; a <= z; a++)
			m |= 1ull << a;
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	*ret = m;
	return 0;
}

static void flush_task(struct sim *s, struct sim_task *t)
{
	if (t->cpuacct_pend > 0 && t->alive)
		ucg_cpuacct_charge(s->e, t->tid, (unsigned)t->pend_cpu, (uint64_t)t->cpuacct_pend, 0);
	t->cpuacct_pend = 0;
}

void sim_cpu_flush(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t i;

	for (i = 0; st && i < st->npl; i++) {
		flush_task(s, st->pl[i]);
		st->pl[i]->pend_listed = false;
	}
	if (st)
		st->npl = 0;
}

void sim_cpu_advance(struct sim *s, sim_time now)
{
	struct cpu_state *st = s->cpu_state;
	sim_time dt = now - s->cpu_last;
	int64_t used = 0;
	size_t i, h;
	int icpu;

	if (dt <= 0)
		return;
	s->cpu_last = now;
	/* nothing runs (the bare event loop, idle spells): no lookup either */
	icpu = st && st->nrun ? hier_index(s, SIM_SS_CPU) : -1;
	for (i = 0; st && i < st->nrun; i++) {
		struct sim_task *t = st->run[i];
		struct sim_cg *cg;
		int64_t ns;

		if (!t->alive || t->rate <= 0)
			continue;
		ns = (int64_t)(t->rate * (double)dt + 0.5);
		if (ns <= 0)
			continue;
		t->cpu_ns += ns;
		used += ns;
		/* cpuacct through the controller, on the task's CPU, all of it user time:
		 * gathered here and charged by sim_cpu_flush (before a command runs, a
		 * task exits, the placement changes, and at the end) */
		if (!t->cpuacct_pend)
			t->pend_cpu = t->cpu > 0 ? t->cpu : 0;
		t->cpuacct_pend += ns;
		if (!t->pend_listed) {
			if (grow((void **)&st->pl, &st->cpl, st->npl + 1, sizeof(*st->pl)) < 0) {
				flush_task(s, t); /* no room to wait: charge now */
			} else {
				st->pl[st->npl++] = t;
				t->pend_listed = true;
			}
		}
		for (h = 0; h < s->nhier; h++)
			SIM_CG_UP(t->cg[h], cpu_ns, ns);
		cg = task_cg_at(s, t, icpu);
		for (; cg; cg = cg->parent)
			if (cg->quota_ns > 0)
				cg->runtime_left -= ns;
	}
	s->idle_ns += (int64_t)s->nr_cpus * dt - used;
}

static void refresh_quota(struct sim *s, struct sim_cg *cg)
{
	size_t i;

	sim_cg_refresh(s, cg);
	if (cg->quota_ns != cg->q_seen || cg->period_ns != cg->p_seen) {
		cg->q_seen = cg->quota_ns;
		cg->p_seen = cg->period_ns;
		if (cg->quota_ns > 0) {
			/* a new or changed quota starts a fresh period now; it is counted
			 * when it ends (and only if the group ran in it), as cpu.stat's
			 * nr_periods counts it: the summary's figure must be cpu.stat's */
			cg->period_start = s->now;
			cg->runtime_left = cg->quota_ns;
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

static void clear_alloc(struct sim_cg *cg)
{
	size_t i;

	cg->alloc = 0;
	for (i = 0; i < cg->nchildren; i++)
		clear_alloc(cg->children[i]);
}

static void sum_rates(struct sim_cg *cg)
{
	size_t i;

	cg->rate = cg->alloc;
	for (i = 0; i < cg->nchildren; i++)
		sum_rates(cg->children[i]);
}

void sim_cpu_update(struct sim *s)
{
	struct sim_hier *hi = sim_hier_of(s, SIM_SS_CPU);
	struct cpu_state *st = s->cpu_state;
	size_t i;
	int r = -ENOMEM;
	int ifrz = hier_index(s, SIM_SS_FREEZER), icpu = hier_index(s, SIM_SS_CPU);
	int ics = hier_index(s, SIM_SS_CPUSET);

	s->cpu_dirty = false;
	if (!st) {
		st = ucg_calloc(1, sizeof(*st));
		if (!st)
			goto out;
		s->cpu_state = st;
	}
	st->nrun = 0;
	if (hi)
		refresh_quota(s, hi->root);
	if (state_reserve(st, s->ntasks, s->ncgs, s->nr_cpus) < 0)
		goto out;
	if (st->gathered && st->bw_nevents && st->bw_nevents == s->nevents &&
	    st->g_memb == s->memb_epoch && st->g_cfg == s->cfg_epoch &&
	    st->g_ntasks == s->ntasks && st->g_ncgs == s->ncgs && st->g_nhier == s->nhier &&
	    st->g_ncpus == s->nr_cpus && st->g_hi == hi) {
		/* only throttling changed: the same runnable tasks on the same CPUs
		 * (place_new would keep every one where it is) */
		for (i = 0; i < st->nrt; i++)
			st->rt[i]->rate = 0;
		sim_cpu_shortcuts++;
		goto gathered;
	}
	st->gathered = false;
	/* runnable tasks in tid order; the others leave their CPU */
	st->nrt = 0;
	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];

		t->rate = 0;
		if (!t->alive || t->cpu_demand <= 0 || task_frozen(s, t, ifrz)) {
			t->cpu = -1;
			continue;
		}
		st->rt[st->nrt] = t;
		st->tcg[st->nrt] = hi ? task_cg_at(s, t, icpu) : NULL;
		if (hi && !st->tcg[st->nrt])
			st->tcg[st->nrt] = hi->root;
		st->want[st->nrt] = t->cpu_demand > 1 ? 1 : t->cpu_demand;
		task_mask(s, st, st->nrt, ics);
		st->nrt++;
	}
	place_new(s, st);
	st->gathered = !sim_cpu_no_shortcut;
	st->g_memb = s->memb_epoch;
	st->g_cfg = s->cfg_epoch;
	st->g_ntasks = s->ntasks;
	st->g_ncgs = s->ncgs;
	st->g_nhier = s->nhier;
	st->g_ncpus = s->nr_cpus;
	st->g_hi = hi;
gathered:
	st->bw_nevents = 0;
	st->upd_nevents = s->nevents;
	r = balance(s, st, hi);
	if (r < 0)
		goto out;
	/* time run on a CPU is charged there before the task leaves it */
	for (i = 0; i < st->nrt; i++)
		if (st->rt[i]->cpuacct_pend && st->rt[i]->pend_cpu != st->rt[i]->cpu)
			flush_task(s, st->rt[i]);
	if (hi)
		clear_alloc(hi->root);
	r = grow((void **)&st->wf, &st->cwf, st->nrq + st->nrt + 1, sizeof(*st->wf));
	if (r < 0)
		goto out;
	for (i = 0; i < s->nr_cpus; i++)
		if (st->cpu_root[i] >= 0)
			share_rq(s, st, st->cpu_root[i], 1.0, 0);
	st->nrun = 0;
	for (i = 0; i < st->nrt; i++)
		if (st->rt[i]->rate > 0)
			st->run[st->nrun++] = st->rt[i];
	if (hi) {
		sim_time at;

		sum_rates(hi->root);
		at = next_change(s, hi->root, SIM_TIME_MAX);
		if (at != SIM_TIME_MAX)
			r = sim_schedule(s, at, &s->cpu_ev, ++s->cpu_gen);
	}
out:
	if (r < 0)
		sim_fail(s, 0, r, "cpu model");
}

/* Tells the controller about a throttled interval of dur ns (wall time) from each
 * throttled runqueue's perspective: cg's own cpu.stat.local and its descendants' grow
 * by dur on each CPU where they had runnable tasks. */
static void local_throttled(struct sim *s, struct sim_cg *cg, int64_t dur, unsigned ncpu)
{
	size_t i;

	if (ncpu) {
		cg->local_throttled_ns += dur * ncpu;
		ucg_cpu_account_local_path(s->e, cg->hier->h, cg->path, (uint64_t)(dur * ncpu));
	}
	for (i = 0; i < cg->nchildren; i++)
		local_throttled(s, cg->children[i], dur, cg->children[i]->nr_active);
}

/* Period boundaries and quotas running out, at now; true when a group's throttling
 * changed (the rates must be recomputed). */
static bool bandwidth_tick(struct sim *s, struct sim_cg *cg)
{
	bool changed = false;
	size_t i;

	if (cg->quota_ns > 0) {
		while (s->now >= cg->period_start + cg->period_ns) {
			int was = cg->throttled;
			int64_t thr = was ? s->now - cg->throttled_since : 0;
			/* the kernel's period timer counts only periods the group was active in */
			bool active = was || cg->runtime_left < cg->quota_ns;

			cg->period_start += cg->period_ns;
			cg->runtime_left = cg->quota_ns;
			if (was) {
				changed = true;
				cg->throttled = false;
				/* throttled_time sums the throttled runqueues, one per CPU */
				cg->throttled_ns += thr * cg->thr_cpus;
				local_throttled(s, cg, thr, cg->thr_cpus);
			}
			if (active) {
				cg->nr_periods++;
				ucg_cpu_account_period_path(s->e, cg->hier->h, cg->path, was,
							    (uint64_t)(thr * cg->thr_cpus), 0);
			}
		}
		if (!cg->throttled && cg->runtime_left <= RUNTIME_EPS && cg->rate > 0) {
			changed = true;
			cg->throttled = true;
			cg->nr_throttled++;
			cg->throttled_since = s->now;
			cg->thr_cpus = cg->nr_active ? cg->nr_active : 1;
		}
	}
	for (i = 0; i < cg->nchildren; i++)
		changed |= bandwidth_tick(s, cg->children[i]);
	return changed;
}

static void cpu_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct sim_hier *hi = sim_hier_of(s, SIM_SS_CPU);
	sim_time at;

	(void)src;
	if (arg != s->cpu_gen || !hi)
		return;
	if (bandwidth_tick(s, hi->root)) {
		struct cpu_state *st = s->cpu_state;

		/* the first event since the last recompute, and the only one if the
		 * recompute follows it: the runnable set still holds */
		if (st && !s->cpu_dirty && s->nevents == st->upd_nevents)
			st->bw_nevents = s->nevents + 1;
		s->cpu_dirty = true;
		return;
	}
	/* only new periods began: the rates hold, the next change moves */
	at = next_change(s, hi->root, SIM_TIME_MAX);
	if (at != SIM_TIME_MAX && sim_schedule(s, at, &s->cpu_ev, ++s->cpu_gen) < 0)
		sim_fail(s, 0, -ENOMEM, "cpu model");
}
