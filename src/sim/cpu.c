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
 * (under the tick model computed lazily: "Incremental recompute" below)
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
 * runqueue on that CPU. From the first entity whose demand does not bind on, C_left /
 * W_left stays what it was, so those entities get w_j · (C_left / W_left) from one
 * division (the same allocation; the floats may differ from the step-by-step
 * quotients in the last bits); an entity alone gets min(D_j, C). Example: 1 CPU,
 * A (1024) and B (512) both busy: A = 2/3, B = 1/3. Example: 2 CPUs, A's two busy
 * tasks pinned to CPU 0 and CPU 1, B's one task on CPU 0, equal shares: A weighs 512
 * on each CPU, so on CPU 0 A gets 1/3 and B 2/3, on CPU 1 A gets 1: A = 4/3, B = 2/3
 * (the kernel: 0.674 of the total for A, bench/sim_vs_kernel_cpu.sh "nested", where
 * a global fair share would say 1/2).
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
 * 0.51 of the total, bench/sim_vs_kernel_cpu.sh "balance"). Under the tick model the
 * balancer keeps the kernel's timing too (rebalance_domains runs from the tick, each
 * domain at its balance interval, not at every event): its moves are made only at
 * the first recompute at or after an 8-tick boundary (32 ms at HZ 250; the CPU
 * timer fires then if a recompute since skipped them); placement stays immediate.
 * The host is one flat domain of N CPUs. While every CPU has load at a balancing,
 * the next waits for the kernel's busy interval, N ms times busy_factor 16 less a
 * tick (get_sd_balance_interval), rounded to the nearest 8-tick boundary: 1,024 ms
 * at 64 CPUs, 128 at 8, the next boundary at 2 and 3 (cpu_balance.c). A CPU that
 * goes idle meanwhile brings it back to the next boundary, where the kernel's idle
 * CPU would balance at its own, shorter interval or at once (newidle balance,
 * which the model does not do: a CPU emptied between two boundaries waits).
 * Allowed CPUs are the
 * task's cpuset (cpuset.effective_cpus) intersected with its affinity; an empty
 * intersection falls back to the cpuset, then to every CPU.
 *
 * CFS bandwidth (cpu_bw.c). A cgroup with quota q per period p (cpu.cfs_quota_us,
 * cpu.cfs_period_us) has runtime_left = q at each period boundary (periods start at
 * the moment the quota is first seen and repeat every p; unused runtime is not carried
 * over). Every ns a task runs is taken from the runtime of each ancestor that has a
 * quota (the v1 hierarchical rule: a child can never run longer than any ancestor's
 * quota allows): a group with a quota runs at its rate (Σ of its grants, its whole
 * subtree's), and what it used since its rate last changed is taken off
 * runtime_left, rounded to whole ns, when the rate's value changes and at each of
 * its CFS events (the same instants in an incremental and a full recompute). Its
 * next CFS event (the period's end, or the instant the runtime runs out at the
 * current rate, rounded up) is kept with it, computed again only when its rate,
 * runtime, period or throttling change; the CPU timer fires at the earliest of the
 * groups with a quota, which are kept in a list (no walk of the whole tree).
 * When runtime_left reaches 0 the cgroup is throttled on every CPU: it
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
 * on its engine cgroup (ucg_cpu_account_period, ucg_cpu_account_local).
 *
 * Freezer. A task whose freezer cgroup (or any ancestor) is not THAWED is not
 * runnable.
 *
 * Accounting. Each ns a task runs is added to the task and to its cgroup and every
 * ancestor in every hierarchy (cpuacct.usage is hierarchical; the simulator reports
 * CPU per cgroup in every hierarchy), and charged to cpuacct on the task's CPU, all
 * as user time; idle_ns is the CPUs' time less all of it. Rates are doubles. Time
 * accrues lazily: a task keeps its rate, CPU and the instant it got them, and the
 * time run since is added, rounded to whole ns, when its rate's value or its CPU
 * changes (at the end of the recompute that changed it) and when the time is read:
 * before every command (which may read cpuacct files or move the task), a task's
 * exit, each sample and the end of the run. Rounding rule: one rounding per stretch
 * between two such instants (the model before rounded at every event; the two differ
 * by under 1 ns per event; the shipped goldens came out unchanged, while in bench
 * cpu_quota, whose groups sit at the edge of their quotas, a few groups' throttle
 * counts and throttled times move: ns-level differences tip the balancer one way or
 * the other, and the CPUs a group is throttled on count in throttled_time). The
 * sums are of integers, so the task = Σ-of-its-time, cgroup = Σ-of-its-tasks and
 * idle + Σ tasks = CPUs × time identities hold exactly; the floats are IEEE
 * arithmetic in a fixed order, the same on every machine.
 *
 * Incremental recompute. The runqueues, each task's place on them and each CPU's
 * last share are kept from one recompute to the next, and a recompute redoes only
 * what the events since the last one touched: a task whose runnability, cgroup,
 * demand or CPU changed leaves and joins runqueues (both become dirty); a group with
 * a dirty runqueue, or whose shares or throttling changed, sums that runqueue again,
 * then its weights and links, and marks its parent's runqueue on a CPU dirty only
 * where what the parent sums changed (its weight, min(1, d) or d there); groups go
 * bottom-up; the balancer runs on the root loads as before (a task it moves makes
 * its two runqueues dirty for the next round); only CPUs where a runqueue was dirty
 * are water-filled again, and only groups whose grant on such a CPU changed sum their
 * alloc again. Each sum has one fixed order whatever is redone (a runqueue's tasks by
 * tid, then its children by descending id; a group's runqueues by CPU), so the
 * floats are those of a recompute from scratch, bit for bit; an emptied runqueue
 * leaves its parent's list and, still empty at the recompute's end, is dropped (it
 * would add exact zeros). s->cpu_full forces
 * the recompute from scratch (src/sim/test_sim_cpu_incr.c runs the shipped and
 * randomized scenarios both ways and compares every rate after every recompute).
 * When nothing the gather reads changed since it last ran (only CPU timers dirtied
 * the model; I/O and memory events between them do not count: sim_cpu_changed), the
 * runnable tasks are not gathered again, and quotas and shares are read again only
 * after a control-file write. What stays per event: settling the time of the tasks whose rate changed,
 * a look at each group with a quota for the earliest CFS event, the balancer's
 * look at the root loads, and the water-filling of every CPU whose tree changed —
 * when a quota throttles a group, each of its CPUs, where every entity's rate
 * changes (bench_sim_events cpu_quota: ~4.4 CPUs of ~13 entities each per recompute,
 * ~50 tasks' rates changed). The balancer looks at a CPU's tasks only when what its
 * runqueues hold changed since it last did, or their least h_load above BALANCE_EPS/2
 * leaves room for a move. The gather reads only the tasks that ever wanted CPU
 * (s->cpu_tasks). What does not shrink in the fluid model: a throttle on one CPU
 * changes its group's parent's load there, so the parent's weight on every CPU, and
 * every CPU where the parent runs is shared again with new rates for its tasks — on
 * the 64-CPU host of bench_sim_events sim.hour_64cpu_s, ~59 CPUs and ~1,000 tasks per
 * recompute, ~160 recomputes per virtual second. That is the model (calc_group_shares
 * at steady load averages, applied at once everywhere). The tick model, which follows
 * the kernel's timing, computes the weights lazily as the kernel does (cpu_rq.c,
 * "Lazy weights"): a runqueue whose load changed publishes it and takes its new
 * weight from its group's published total at once; the group's runqueues on other
 * CPUs keep their weights until their own load changes or the refresh, the first
 * recompute at or after the boundary of `set weight_refresh` ticks (16, 64 ms at HZ
 * 250, by default) after one was kept stale. The refresh is the eager model's
 * answer, so a weight lags it by at most that period; the kernel's lags ~20 ms
 * behind a load that comes and ~115 ms behind one that goes (docs/design.md, "Lazy
 * weights beside the kernel").
 * The incremental and full recomputes keep the published loads and weights by (slot,
 * CPU) outside the runqueues, so they still agree bit for bit.
 *
 * Limits. Balancing is a deterministic rule, not the kernel's timing: the kernel's
 * outcome depends on where tasks woke up and when its balancer ran, so with free tasks
 * the two can settle in different, equally balanced, placements. No migration cost,
 * wake-up latency or slice granularity; a task's runnable fraction is taken as its
 * demand (a partly busy task that waits behind others is runnable longer in the
 * kernel, and weighs more there). The kernel's 5 ms bandwidth slices (a cgroup can
 * overrun its quota by up to one slice per CPU, and CPUs throttle one by one as
 * their slices run out) are not modelled here: the quota is exact and all CPUs
 * throttle together. `set cpu_model tick` models them instead (cpu_tick.c: slices per
 * CPU drawn from the pool, exhaustion noticed at HZ ticks, the overrun paid from the
 * next period, runtime returned, cpu.stat per period). Nested throttling (a group and its ancestor throttled at once) adds both
 * to the descendants' cpu.stat.local. Affinity masks cover CPUs 0..63. Nice values,
 * RT classes, cpu.idle and cfs_burst_us are not modelled.
 *
 * Files. This one: the recompute, step by step (gathering the runnable tasks, then
 * the runqueues, balancing, sharing), and the model's state; cpu_rq.c: the per-CPU
 * runqueues and each group's weight on each CPU; cpu_balance.c: placement and load
 * balancing; cpu_share.c: water-filling each CPU and summing each group's grants;
 * cpu_account.c: lazy time accrual and cpuacct charges; cpu_bw.c: the CFS bandwidth
 * timers; cpu_tick.c: the tick model of CFS bandwidth; cpu_impl.h: what they share.
 */
#include "sim/cpu_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

void sim_cpu_init(struct sim *s)
{
	s->cpu_ev.fire = sim_cpu_bw_fire;
	s->cpu_last = 0;
	s->hz = 250;
	s->tick_ns = SIM_SEC / s->hz;
	s->cfs_slice = 5 * SIM_MSEC;
	s->lz_ticks = 16;
}

/* The index in s->hier[] of the hierarchy carrying ss, -1: looked up once per
 * recompute so that the per-task loops read t->cg[] directly (sim_task_cg per task
 * and controller was a good part of a recompute's cost). */
static int hier_index(struct sim *s, int ss)
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

int sim_cpu_grow(void **p, size_t *cap, size_t need, size_t size)
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
	size_t i;

	if (!st)
		return;
	ucg_free(st->rq_mem);
	ucg_free(st->gone);
	ucg_free(st->slot);
	ucg_free(st->g_first);
	ucg_free(st->g_flags);
	ucg_free(st->gdirty);
	ucg_free(st->g_shares);
	ucg_free(st->alloc_list);
	ucg_free(st->gr_mem);
	ucg_free(st->rstale);
	ucg_free(st->oldk);
	ucg_free(st->mask);
	ucg_free(st->any);
	ucg_free(st->moved);
	ucg_free(st->touched);
	ucg_free(st->tid);
	ucg_free(st->tk_mem);
	ucg_free(st->rt);
	ucg_free(st->moves);
	ucg_free(st->cpu_root);
	ucg_free(st->cpu_nrq);
	ucg_free(st->oldr);
	ucg_free(st->reshare);
	ucg_free(st->shallow);
	ucg_free(st->order);
	ucg_free(st->cpu_load);
	ucg_free(st->root_load);
	ucg_free(st->hgen);
	ucg_free(st->minh_gen);
	ucg_free(st->minh);
	for (i = 0; st->runs && i < st->ccpu; i++) {
		ucg_free(st->runs[i].k);
	}
	ucg_free(st->runs);
	for (i = 0; st->reach && i < st->ccpu; i++)
		ucg_free(st->reach[i].q);
	ucg_free(st->reach);
	for (i = 0; st->cq && i < st->ccpu; i++)
		ucg_free(st->cq[i].k);
	ucg_free(st->cq);
	ucg_free(st->wf);
	ucg_free(st->wk);
	ucg_free(st->lz_mem);
	ucg_free(st->lz_bpre);
	ucg_free(st->lz_ld);
	ucg_free(st->lz_gst);
	ucg_free(st->lz_gl);
	sim_cpu_bw_fini(&st->bw);
	ucg_free(st->pk);
	ucg_free(st->pl);
	ucg_free(st->cgl);
	ucg_free(st);
	s->cpu_state = NULL;
}

/* Where task k may run: its cpuset's CPUs and its affinity among the online ones; an
 * empty intersection falls back to the cpuset, then to every CPU, as the kernel does. */
static void task_mask(struct sim *s, struct cpu_state *st, int k, int ics)
{
	struct sim_task *t = s->tasks[k];
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
	st->any[k] = m == UINT64_MAX || ((m & online) == online && s->nr_cpus <= 64);
	st->mask[k] = m & online;
	if (!st->any[k] && !st->mask[k])
		st->any[k] = true;
}

/* A group whose shares or throttling changed redoes its weights and links. */
static void group_check(struct cpu_state *st, struct sim_cg *g)
{
	int idx = g->id + 1;
	unsigned char thr = g->throttled ? G_THR : 0;

	if (g->shares != st->g_shares[idx] || (st->g_flags[idx] & G_THR) != thr) {
		st->g_shares[idx] = g->shares;
		st->g_flags[idx] = (unsigned char)((st->g_flags[idx] & ~G_THR) | thr);
		if (st->g_first[idx] >= 0)
			cpu_mark_relink(st, idx);
	}
}

/* Gathers the runnable tasks in tid order; the others leave their CPU. Tasks whose
 * group or demand changed are requeued, new ones placed. Only the tasks that ever
 * wanted CPU are looked at (s->cpu_tasks): for any other the loop would do nothing
 * (it has no CPU, rate or runqueue). */
static int gather(struct sim *s, struct cpu_state *st, struct sim_hier *hi)
{
	int ifrz = hier_index(s, UCG_SS_freezer), icpu = hier_index(s, UCG_SS_cpu);
	int ics = hier_index(s, UCG_SS_cpuset);
	bool place = false, all = s->cpu_list_lost;
	size_t i, n = all ? s->ntasks : s->ncpu_tasks;

	st->nrt = 0;
	for (i = 0; i < n; i++) {
		int k = all ? (int)i : s->cpu_tasks[i];
		struct sim_task *t = s->tasks[k];
		double want;

		if (!t->alive || t->cpu_demand <= 0 || task_frozen(s, t, ifrz)) {
			cpu_task_cpu(t, st, k, -1);
			cpu_rate_set(st, k, 0);
			if (st->tk[k].q >= 0)
				sim_cpu_task_dequeue(s, st, k);
			continue;
		}
		st->rt[st->nrt++] = k;
		want = t->cpu_demand > 1 ? 1 : t->cpu_demand;
		if (want != st->tk[k].want) {
			st->tk[k].want = want;
			if (st->tk[k].q >= 0)
				cpu_mark_dirty(st, st->tk[k].q);
		}
		task_mask(s, st, k, ics);
		if (t->cpu < 0 || (unsigned)t->cpu >= s->nr_cpus ||
		    !cpu_allowed(st, k, (unsigned)t->cpu))
			place = true;
	}
	if (place)
		sim_cpu_place_new(s, st);
	for (i = 0; i < st->nrt; i++) {
		int k = st->rt[i];
		struct sim_cg *cg = NULL;

		if (hi) {
			cg = task_cg_at(s, s->tasks[k], icpu);
			if (!cg)
				cg = hi->root;
		}
		if (sim_cpu_task_place(s, st, k, cg) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void digest_u64(struct sim *s, uint64_t v)
{
	s->cpu_digest = (s->cpu_digest ^ v) * 0x100000001b3ull;
}

static void digest_double(struct sim *s, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	digest_u64(s, v);
}

/* Tests: folds the outcome of a recompute, bit for bit, into s->cpu_digest */
static void digest(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		digest_double(s, i < st->ntk ? st->tk[i].rate : 0);
		digest_u64(s, (uint64_t)(int64_t)s->tasks[i]->cpu);
	}
	for (i = 0; i < s->ncgs; i++) {
		digest_double(s, s->cgs[i]->rate);
		digest_u64(s, s->cgs[i]->nr_active);
	}
}

/* A group a tick flip named redoes its runqueues: the tick model throttles one
 * CPU's runqueue at a time, which the group's throttled flag does not say. (rq_cpus,
 * on the line just read, says it has an rq without a look at g_first, unless it
 * has none below CPU 64.) */
static inline void tick_flip_relink(struct cpu_state *st, struct sim_cg *g, int idx)
{
	if (g->rq_cpus || st->g_first[idx] >= 0)
		cpu_mark_relink(st, idx);
	g->tick_flip = false;
}

/* Shares CPU c again; the tasks it gave a new rate settle every few shares (those
 * listed before the shares, the first n0, wait for the end). */
static inline void share_one(struct sim *s, struct cpu_state *st, unsigned c, size_t n0)
{
	sim_cpu_share_cpu(s, st, c);
	s->cpu_reshares++;
	if (st->ntouched >= n0 + 24)
		sim_cpu_settle_shared(s, st, n0);
}

void sim_cpu_update(struct sim *s)
{
	struct sim_hier *hi = sim_hier_of(s, UCG_SS_cpu);
	struct cpu_state *st = s->cpu_state;
	size_t i, n0;
	int r = -ENOMEM;
	bool hard;

	s->cpu_dirty = false;
	s->cpu_updates++;
	if (!st) {
		st = ucg_calloc(1, sizeof(*st));
		if (!st)
			goto out;
		st->free_rq = -1;
		s->cpu_state = st;
	}
	if (sim_cpu_state_reserve(st, s->ntasks, s->ncgs + 1, s->nr_cpus) < 0)
		goto out;
	for (; st->ntid < s->ntasks; st->ntid++)
		st->tid[st->ntid] = s->tasks[st->ntid]->tid;
	hard = !st->valid || st->ncpu != s->nr_cpus || st->hi != hi;
	if (hard || s->cpu_full)
		sim_cpu_state_reset(s, st, hi);
	if (s->cpu_full || st->q_cfg != s->cfg_writes || st->q_ncgs != s->ncgs || st->q_hi != hi ||
	    st->bw.flip_lost) {
		/* the configuration may have changed: quotas and shares read again,
		 * every group checked (and every group of the tick model redone when a
		 * flip could not be noted) */
		bool lost = st->bw.flip_lost;

		/* a group may get a quota: every rate as the last recompute left it */
		sim_cpu_rates_fresh(s);
		st->bw.flip_lost = false;
		if (sim_cpu_bw_refresh(s, &st->bw, hi) < 0)
			goto out;
		for (i = 0; hi && i < s->ncgs; i++)
			if (s->cgs[i]->hier == hi) {
				group_check(st, s->cgs[i]);
				if (lost && s->cgs[i]->tick_flip && st->g_first[i + 1] >= 0)
					cpu_mark_relink(st, (int)i + 1);
				if (lost)
					s->cgs[i]->tick_flip = false;
			}
		st->q_cfg = s->cfg_writes;
		st->q_ncgs = s->ncgs;
		st->q_hi = hi;
		/* the tick model throttles one CPU's runqueue at a time, which the
		 * group's throttled flag does not say: each group named redoes its
		 * runqueues */
		for (i = 0; i < st->bw.nflip; i++) {
			int idx = st->bw.flip[i];
			struct sim_cg *g = s->cgs[idx - 1];

			if (g->tick_flip)
				tick_flip_relink(st, g, idx);
		}
	} else {
		/* only timers changed throttling since. A group that a tick flip
		 * names redoes its runqueues, as above: every one relinked, all that
		 * group_check would mark it for (a change of its shares or
		 * fluid throttling, which it therefore need not look at, its noted
		 * values kept: a later look that finds them moved marks a relink
		 * more, which changes nothing a relink of all did not); the fluid
		 * model's flips are checked, unless the group is marked so already
		 * (a group named again: 69 k of them). One pass (the tick model's
		 * 239 k flips in the hour's first virtual minute were two, and a
		 * check each). */
		for (i = 0; i < st->bw.nflip; i++) {
			int idx = st->bw.flip[i];
			struct sim_cg *g = s->cgs[idx - 1];

			if (g->tick_flip) {
				tick_flip_relink(st, g, idx);
			} else if (!(st->g_flags[idx] & G_RELINK)) {
				group_check(st, g);
			}
		}
	}
	st->bw.nflip = 0;
	if (sim_cpu_lz_prepare(s, st, hard) < 0)
		goto out;
	if (st->gathered && st->g_inputs == s->cpu_inputs && st->g_memb == s->memb_epoch &&
	    st->g_cfg == s->cfg_epoch && st->g_ntasks == s->ntasks && st->g_ncgs == s->ncgs &&
	    st->g_nhier == s->nhier && st->g_ncpus == s->nr_cpus && st->g_hi == hi) {
		/* only throttling changed: the same runnable tasks on the same CPUs
		 * (place_new would keep every one where it is) */
		s->cpu_shortcuts++;
	} else {
		if (gather(s, st, hi) < 0)
			goto out;
		st->gathered = !s->cpu_full;
		st->g_inputs = s->cpu_inputs;
		st->g_memb = s->memb_epoch;
		st->g_cfg = s->cfg_epoch;
		st->g_ntasks = s->ntasks;
		st->g_ncgs = s->ncgs;
		st->g_nhier = s->nhier;
		st->g_ncpus = s->nr_cpus;
		st->g_hi = hi;
	}
	r = sim_cpu_balance(s, st);
	if (r < 0)
		goto out;
	if (st->nrq + st->nrt + 1 > st->cwf) {
		size_t n = (st->nrq + st->nrt + 1) * 2;
		void *v = ucg_realloc(st->wf, n * sizeof(*st->wf));

		r = -ENOMEM;
		if (!v)
			goto out;
		st->wf = v;
		v = ucg_realloc(st->wk, n * sizeof(*st->wk));
		if (!v)
			goto out;
		st->wk = v;
		st->cwf = n;
		r = 0;
	}
	/* the tasks the shares give a new rate settle while they are in the cache,
	 * a few shares' worth at a time (~9 a share on the hour's host: a call
	 * after each share was 4 M instructions a virtual minute); those whose rate
	 * was taken before the shares (the first n0 listed), once all are done (the
	 * steps below do not read the tasks' time) */
	n0 = st->ntouched;
	if (s->nr_cpus <= 64) {
		/* the CPUs to share again are among those marked since the last
		 * shares (every reshare mark sets a bit of hmask, which the redos
		 * gather in rsmask): ~14 of 64 a recompute on the hour's host, whose
		 * look at each CPU's flag was 5 M instructions a virtual minute */
		uint64_t m;

		for (m = st->rsmask | st->hmask; m; m &= m - 1) {
			i = (size_t)__builtin_ctzll(m);
			if (st->reshare[i])
				share_one(s, st, (unsigned)i, n0);
		}
		st->rsmask = 0;
	} else {
		for (i = 0; i < s->nr_cpus; i++)
			if (st->reshare[i])
				share_one(s, st, (unsigned)i, n0);
	}
	sim_cpu_settle_touched(s, st);
	if (st->full_alloc) {
		if (hi)
			sim_cpu_alloc_tree(s, st, hi->root);
		st->full_alloc = false;
		for (i = 0; i < st->nalloc; i++)
			st->g_flags[st->alloc_list[i]] &= (unsigned char)~G_ALLOC;
		st->nalloc = 0;
	} else {
		sim_cpu_alloc_list(s, st);
	}
	sim_cpu_rqs_drop(st);
	if (s->cpu_full)
		sim_cpu_lz_sweep(st);
	if (st->run_err) {
		st->run_err = false;
		r = -ENOMEM;
		goto out;
	}
	if (s->cpu_digesting) {
		sim_cpu_rates_fresh(s);
		digest(s);
	}
	if (hi)
		r = sim_cpu_bw_schedule(s, &st->bw);
out:
	if (st) {
		sim_cpu_settle_touched(s, st); /* a recompute stopped before its shares */
		st->lz_refresh = false;
	}
	if (r < 0) {
		if (st)
			st->valid = false; /* half-done: rebuild from scratch next time */
		sim_fail(s, 0, r, "cpu model");
	}
}

struct cpu_bw *sim_cpu_bw_of(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;

	return st ? &st->bw : NULL;
}

void sim_cpu_throttling_changed(struct sim *s)
{
	/* not an input of the gather (s->cpu_inputs stays): the runnable set holds */
	s->cpu_dirty = true;
}
