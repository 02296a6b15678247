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
 * 0.51 of the total, bench/sim_vs_kernel_cpu.sh "balance"). Allowed CPUs are the
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
 * stays but leaves its parent's list (it would add exact zeros). s->cpu_full forces
 * the recompute from scratch (src/sim/test_sim_cpu_incr.c runs the shipped and
 * randomized scenarios both ways and compares every rate after every recompute).
 * When only a CPU timer fired since the last recompute, the runnable tasks are not
 * gathered again, and quotas and shares are read again only after a control-file
 * write. What stays per event: settling the time of the tasks whose rate changed,
 * a look at each group with a quota for the earliest CFS event, the balancer's
 * look at the root loads, and the water-filling of every CPU whose tree changed —
 * when a quota throttles a group, each of its CPUs, where every entity's rate
 * changes (bench_sim_events cpu_quota: ~4.4 CPUs of ~13 entities each per recompute,
 * ~50 tasks' rates changed). The balancer looks at a CPU's tasks only when what its
 * runqueues hold changed since it last did, or their least h_load leaves room for a
 * move.
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
#include "sim/cpu_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

void sim_cpu_init(struct sim *s)
{
	s->cpu_ev.fire = sim_cpu_bw_fire;
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
 * weigh, and where it sits in its parent's runqueue on that CPU. Runqueues live from
 * the first time their group has something on that CPU until the next reset (an empty
 * one adds exact zeros to every sum, so keeping it changes no figure). */
struct rq {
	struct sim_cg *cg;   /* NULL: the root when no hierarchy has the cpu controller */
	int cpu;
	int slot;            /* its group's slot: cgroup id + 1, 0 the hierarchy-less root */
	int parent;          /* the parent group's rq on this CPU while linked, else -1 */
	int next_of_cg;      /* the group's rq on its next higher CPU */
	int first_child, next_sib; /* linked child groups' rqs here, descending id */
	int first_task;      /* runnable tasks queued here, ascending task index */
	int next_reached;    /* in its CPU's list of rqs the last share reached */
	bool dirty;          /* load and d to be summed again */
	bool up;             /* d changed: the parent's sums must be redone */
	double load;         /* Σ entity loads: tasks 1024·want, groups w·min(1, d) */
	double d;            /* CPUs its tasks want here */
	double w;            /* its group entity's weight on this CPU */
	double u;            /* min(1, d) */
	double a;            /* CPUs its entity got in the last share of this CPU, else 0 */
	uint32_t hgen;       /* == its CPU's hgen: hval is task_h_load's answer for a */
	double hwant, hval;  /* task of demand hwant queued here */
};

/* The tasks one CPU's last share gave a rate, with their indexes.
 * Every task with a rate is in its CPU's list: a task that leaves a CPU loses its
 * rate, and a share starts by taking the rates of the tasks in the list. */
struct cpu_run {
	struct sim_task **t;
	int *k;
	size_t n, cap;
};

struct went {
	double w, d, a;
	int rq;              /* child group's rq, or -1 for a task */
	int task;            /* task index */
};

struct wkey;

#define G_DIRTY 1u       /* group: some rq, its weight or its link to be redone */
#define G_ALLOC 2u       /* group: its alloc to be summed again */
#define G_THR 4u         /* group: throttled when last processed */

/* The model's state, kept from one recompute to the next. Tasks are named by their
 * index in s->tasks (creation order, which is tid order), groups by their slot. A
 * recompute touches only what changed since the last: the tasks whose runnability,
 * group, demand or CPU changed and the runqueues they leave or join ("dirty"); the
 * groups above a dirty runqueue, bottom-up, whose sums, weights or links changed; the
 * CPUs where anything in the tree changed, which are shared again; the groups whose
 * per-CPU grants changed, whose alloc is summed again. Every sum is formed in one
 * fixed order whatever was recomputed (a runqueue: its tasks by index, then its
 * children by descending id; a group: its runqueues by CPU), so an incremental
 * recompute gives the bits a full one gives. s->cpu_full resets the state at every
 * recompute, which makes every one a full one. */
struct cpu_state {
	struct rq *rq;
	size_t nrq, crq;
	int *slot;           /* (group slot, CPU) -> its rq, -1; NULL when too large */
	size_t cslot, slot_nslots;
	unsigned slot_ncpu;
	/* per group slot (cgroup id + 1, 0: the hierarchy-less root) */
	int *g_first;        /* its rqs, ascending CPU */
	unsigned char *g_flags;
	unsigned *g_shares;  /* the cpu.shares its weights were computed with */
	size_t nslots, cslots;
	int gmax_dirty;      /* highest slot with G_DIRTY, -1 none */
	int *alloc_list;     /* slots with G_ALLOC */
	size_t nalloc;
	/* per task index */
	int *tq;             /* the rq it is queued on, -1 */
	int *tnext;          /* next task on the same rq */
	int *cnext;          /* next task on the same CPU */
	double *want;
	uint64_t *mask;      /* allowed CPUs (bits) ... */
	bool *any;           /* ... or any CPU */
	uint32_t *moved;     /* == stamp: moved in this balancing round */
	unsigned char *tflag; /* in touched */
	int *touched;        /* tasks whose rate was written in this recompute */
	size_t ntouched;
	size_t ntk, ctk;
	uint32_t stamp;
	int *rt;             /* runnable tasks, ascending index */
	size_t nrt;
	int *moves;          /* tasks moved in this balancing round */
	/* per CPU */
	int *cpu_root;       /* the root's rq, -1 */
	int *chead;          /* runnable tasks queued on it, ascending index */
	int *reached;        /* rqs the last share reached */
	bool *reshare;
	int *order;
	double *cpu_load;    /* the root runqueue's load */
	/* A CPU's hgen changes whenever a runqueue on it changes its sums, weight or
	 * link (what task_h_load reads): the h_loads kept in its rqs, and minh (the
	 * least h_load > 0 of its tasks, 0: none) while minh_gen is hgen, still hold. */
	uint32_t *hgen, *minh_gen;
	double *minh;
	uint32_t hgen_ctr;
	size_t ccpu;
	unsigned ncpu;       /* the CPU count the state was built for */
	struct sim_hier *hi; /* the cpu hierarchy it was built for */
	bool valid;          /* else reset before use */
	bool full_alloc;     /* sum every group's alloc (after a reset) */
	bool run_err;        /* a cpu_run could not grow */
	struct went *wf;     /* water-filling scratch: entities ... */
	struct wkey *wk;     /* ... and their order */
	size_t cwf;
	struct cpu_run *runs; /* per CPU: its tasks with a rate, for sim_cpu_settle */
	size_t nrun;         /* how many in all */
	uint64_t q_cfg;      /* the config writes, group count and hierarchy quotas, */
	size_t q_ncgs;       /* shares and throttling were last read in full at */
	struct sim_hier *q_hi;
	struct cpu_bw bw;    /* the CFS bandwidth timers' (cpu_bw.c) */
	struct sim_task **pl; /* tasks with cpuacct_pend, to flush */
	size_t npl, cpl;
	sim_time settled_at; /* every task's time was settled at this instant, or -1 */
	/* The runnable set (rt, want, mask, any) of the last gather is reused when the
	 * only event since was a CPU timer (throttling changed, nothing else could
	 * have): then the tasks, their cgroups, cpusets, freezer states and affinities
	 * are those the last gather read. */
	bool gathered;       /* rt.. hold the last recompute's runnable set */
	uint64_t upd_nevents; /* s->nevents when the last recompute ran */
	uint64_t bw_nevents; /* s->nevents after the timer that alone dirtied, or 0 */
	uint64_t g_memb, g_cfg; /* the epochs, counts and hierarchy of that gather */
	size_t g_ntasks, g_ncgs, g_nhier;
	unsigned g_ncpus;
	struct sim_hier *g_hi;
};

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
	ucg_free(st->rq);
	ucg_free(st->slot);
	ucg_free(st->g_first);
	ucg_free(st->g_flags);
	ucg_free(st->g_shares);
	ucg_free(st->alloc_list);
	ucg_free(st->tq);
	ucg_free(st->tnext);
	ucg_free(st->cnext);
	ucg_free(st->want);
	ucg_free(st->mask);
	ucg_free(st->any);
	ucg_free(st->moved);
	ucg_free(st->tflag);
	ucg_free(st->touched);
	ucg_free(st->rt);
	ucg_free(st->moves);
	ucg_free(st->cpu_root);
	ucg_free(st->chead);
	ucg_free(st->reached);
	ucg_free(st->reshare);
	ucg_free(st->order);
	ucg_free(st->cpu_load);
	ucg_free(st->hgen);
	ucg_free(st->minh_gen);
	ucg_free(st->minh);
	for (i = 0; st->runs && i < st->ccpu; i++) {
		ucg_free(st->runs[i].t);
		ucg_free(st->runs[i].k);
	}
	ucg_free(st->runs);
	ucg_free(st->wf);
	ucg_free(st->wk);
	sim_cpu_bw_fini(&st->bw);
	ucg_free(st->pl);
	ucg_free(st);
	s->cpu_state = NULL;
}

/* Reallocates each array of arr[] (element sizes sz[]) to n elements. */
static int resize_all(void ***arr, const size_t *sz, size_t k, size_t n)
{
	size_t i;

	for (i = 0; i < k; i++) {
		void *v = ucg_realloc(*arr[i], n * sz[i]);

		if (!v)
			return -ENOMEM;
		*arr[i] = v;
	}
	return 0;
}

/* Sizes the state for ntasks tasks, nslots group slots and ncpu CPUs; new tasks are
 * on no runqueue, new slots have none. */
static int state_reserve(struct cpu_state *st, size_t ntasks, size_t nslots, size_t ncpu)
{
	size_t i;

	if (ntasks > st->ctk) {
		size_t n = ntasks + ntasks / 2 + 16;
		void **arr[] = { (void **)&st->tq, (void **)&st->tnext, (void **)&st->cnext,
				 (void **)&st->want, (void **)&st->mask, (void **)&st->any,
				 (void **)&st->moved, (void **)&st->rt, (void **)&st->moves,
				 (void **)&st->tflag, (void **)&st->touched };
		size_t sz[] = { sizeof(int), sizeof(int), sizeof(int), sizeof(double),
				sizeof(uint64_t), sizeof(bool), sizeof(uint32_t), sizeof(int),
				sizeof(int), 1, sizeof(int) };

		if (resize_all(arr, sz, sizeof(sz) / sizeof(sz[0]), n) < 0)
			return -ENOMEM;
		st->ctk = n;
	}
	for (i = st->ntk; i < ntasks; i++) {
		st->tq[i] = -1;
		st->moved[i] = 0;
		st->want[i] = 0;
		st->tflag[i] = 0;
	}
	if (ntasks > st->ntk)
		st->ntk = ntasks;
	if (nslots > st->cslots) {
		size_t n = nslots + nslots / 2 + 16;
		void **arr[] = { (void **)&st->g_first, (void **)&st->g_flags,
				 (void **)&st->g_shares, (void **)&st->alloc_list };
		size_t sz[] = { sizeof(int), 1, sizeof(unsigned), sizeof(int) };

		if (resize_all(arr, sz, 4, n) < 0)
			return -ENOMEM;
		st->cslots = n;
	}
	for (i = st->nslots; i < nslots; i++) {
		st->g_first[i] = -1;
		st->g_flags[i] = 0;
		st->g_shares[i] = 0;
	}
	if (nslots > st->nslots)
		st->nslots = nslots;
	if (ncpu > st->ccpu) {
		void **arr[] = { (void **)&st->cpu_root, (void **)&st->chead,
				 (void **)&st->reached, (void **)&st->reshare,
				 (void **)&st->order, (void **)&st->cpu_load,
				 (void **)&st->hgen, (void **)&st->minh_gen, (void **)&st->minh };
		size_t sz[] = { sizeof(int), sizeof(int), sizeof(int), sizeof(bool),
				sizeof(int), sizeof(double), sizeof(uint32_t), sizeof(uint32_t),
				sizeof(double) };

		struct cpu_run *runs;

		if (resize_all(arr, sz, 9, ncpu) < 0)
			return -ENOMEM;
		for (i = st->ccpu; i < ncpu; i++)
			st->hgen[i] = st->minh_gen[i] = 0; /* 0: nothing kept (gens start at 1) */
		runs = ucg_realloc(st->runs, ncpu * sizeof(*runs));
		if (!runs)
			return -ENOMEM;
		memset(runs + st->ccpu, 0, (ncpu - st->ccpu) * sizeof(*runs));
		st->runs = runs;
		st->ccpu = ncpu;
	}
	/* a dense (slot, CPU) index while it stays small (4M entries); else rq_get
	 * scans the group's rqs. Slot-major, so new slots only append. */
	if (nslots * ncpu <= ((size_t)1 << 22)) {
		size_t need = nslots * ncpu;

		if (st->slot && st->slot_ncpu != ncpu) {
			ucg_free(st->slot);
			st->slot = NULL;
			st->cslot = st->slot_nslots = 0;
		}
		if (need > st->cslot) {
			size_t n = need + need / 2;
			int *v = ucg_realloc(st->slot, n * sizeof(int));

			if (!v)
				return -ENOMEM;
			if (!st->slot) {
				/* index the rqs there are */
				for (i = 0; i < n; i++)
					v[i] = -1;
				for (i = 0; i < st->nrq; i++)
					if ((size_t)st->rq[i].cpu < ncpu) /* others: reset next */
						v[(size_t)st->rq[i].slot * ncpu + (size_t)st->rq[i].cpu] = (int)i;
			} else {
				for (i = st->slot_nslots * ncpu; i < n; i++)
					v[i] = -1;
			}
			st->slot = v;
			st->cslot = n;
			st->slot_ncpu = (unsigned)ncpu;
			st->slot_nslots = n / ncpu;
		}
	} else if (st->slot) {
		ucg_free(st->slot);
		st->slot = NULL;
		st->cslot = st->slot_nslots = 0;
	}
	return 0;
}

static inline void mark_group(struct cpu_state *st, int slot)
{
	st->g_flags[slot] |= G_DIRTY;
	if (slot > st->gmax_dirty)
		st->gmax_dirty = slot;
}

/* What task_h_load reads changed on cpu: the h_loads kept there are stale. */
static void h_stale(struct cpu_state *st, int cpu)
{
	size_t i;

	if (++st->hgen_ctr == 0) {
		/* wrapped: nothing kept anywhere may look current */
		for (i = 0; i < st->nrq; i++)
			st->rq[i].hgen = 0;
		for (i = 0; i < st->ccpu; i++)
			st->minh_gen[i] = 0;
		st->hgen_ctr = 1;
	}
	st->hgen[cpu] = st->hgen_ctr;
}

/* q's sums must be formed again, and its CPU shared again */
static inline void mark_dirty(struct cpu_state *st, int q)
{
	st->rq[q].dirty = true;
	st->reshare[st->rq[q].cpu] = true;
	mark_group(st, st->rq[q].slot);
}

static inline void mark_alloc(struct cpu_state *st, int slot)
{
	if (!(st->g_flags[slot] & G_ALLOC)) {
		st->g_flags[slot] |= G_ALLOC;
		st->alloc_list[st->nalloc++] = slot;
	}
}

/* Every write of a task's rate goes through here: the tasks whose rate changed are
 * listed, and at the end of the recompute those whose rate or CPU really changed
 * have their time settled (settle_touched). */
static inline void rate_set(struct cpu_state *st, int k, struct sim_task *t, double v)
{
	if (v == t->rate)
		return;
	if (!st->tflag[k]) {
		st->tflag[k] = 1;
		st->touched[st->ntouched++] = k;
	}
	t->rate = v;
}

/* The rq of the group in slot idx on cpu, made (empty, dirty) if it has none yet;
 * -1 when out of memory. */
static int rq_get(struct cpu_state *st, int idx, struct sim_cg *cg, int cpu)
{
	struct rq *q;
	int i, *pp;

	if (st->slot) {
		i = st->slot[(size_t)idx * st->slot_ncpu + (size_t)cpu];
		if (i >= 0)
			return i;
	} else {
		for (i = st->g_first[idx]; i >= 0; i = st->rq[i].next_of_cg)
			if (st->rq[i].cpu == cpu)
				return i;
	}
	if (sim_cpu_grow((void **)&st->rq, &st->crq, st->nrq + 1, sizeof(*st->rq)) < 0)
		return -1;
	i = (int)st->nrq++;
	q = &st->rq[i];
	memset(q, 0, sizeof(*q));
	q->cg = cg;
	q->cpu = cpu;
	q->slot = idx;
	q->parent = q->first_child = q->next_sib = q->first_task = q->next_reached = -1;
	/* the group's rqs stay in CPU order: its sums run in CPU order */
	for (pp = &st->g_first[idx]; *pp >= 0 && st->rq[*pp].cpu < cpu; pp = &st->rq[*pp].next_of_cg)
		;
	q->next_of_cg = *pp;
	*pp = i;
	if (st->slot)
		st->slot[(size_t)idx * st->slot_ncpu + (size_t)cpu] = i;
	mark_dirty(st, i);
	return i;
}

/* Drops every runqueue and placement: the next recompute builds all from scratch. */
static void state_reset(struct sim *s, struct cpu_state *st, struct sim_hier *hi)
{
	size_t i;

	if (st->slot)
		for (i = 0; i < st->nrq; i++)
			if ((unsigned)st->rq[i].cpu < st->slot_ncpu) /* `cpus` may have cut */
				st->slot[(size_t)st->rq[i].slot * st->slot_ncpu +
					 (size_t)st->rq[i].cpu] = -1;
	st->nrq = 0;
	for (i = 0; i < st->nslots; i++) {
		st->g_first[i] = -1;
		st->g_flags[i] = 0;
		st->g_shares[i] = 0;
	}
	st->gmax_dirty = -1;
	st->nalloc = 0;
	for (i = 0; i < st->ntk; i++)
		st->tq[i] = -1;
	for (i = 0; i < st->ccpu; i++) {
		size_t j;

		for (j = 0; j < st->runs[i].n; j++)
			rate_set(st, st->runs[i].k[j], st->runs[i].t[j], 0);
		st->runs[i].n = 0;
		st->cpu_root[i] = st->chead[i] = st->reached[i] = -1;
		st->reshare[i] = false;
		h_stale(st, (int)i);
	}
	/* groups with no rq are on no CPU */
	for (i = 0; hi && i < s->ncgs; i++)
		if (s->cgs[i]->hier == hi)
			s->cgs[i]->nr_active = 0;
	st->ncpu = s->nr_cpus;
	st->hi = hi;
	st->gathered = false;
	st->full_alloc = true;
	st->q_ncgs = SIZE_MAX; /* every group's shares and throttling read again */
	st->bw.nflip = 0;
	st->valid = true;
}

/* Unlinks q from its parent's list of children (its parent's sums are redone). */
static void rq_unlink(struct cpu_state *st, int q)
{
	int p = st->rq[q].parent, *pp;

	for (pp = &st->rq[p].first_child; *pp != q; pp = &st->rq[*pp].next_sib)
		;
	*pp = st->rq[q].next_sib;
	st->rq[q].parent = st->rq[q].next_sib = -1;
	h_stale(st, st->rq[q].cpu);
	mark_dirty(st, p);
}

/* Links q into the rq p of its parent group on the same CPU, by descending id. */
static void rq_link(struct cpu_state *st, int q, int p)
{
	int *pp;

	for (pp = &st->rq[p].first_child; *pp >= 0 && st->rq[*pp].slot > st->rq[q].slot;
	     pp = &st->rq[*pp].next_sib)
		;
	st->rq[q].next_sib = *pp;
	*pp = q;
	st->rq[q].parent = p;
	h_stale(st, st->rq[q].cpu);
	mark_dirty(st, p);
}

/* Takes task k off its rq and its CPU. */
static void task_dequeue(struct sim *s, struct cpu_state *st, int k)
{
	int q = st->tq[k], *pp;

	for (pp = &st->rq[q].first_task; *pp != k; pp = &st->tnext[*pp])
		;
	*pp = st->tnext[k];
	for (pp = &st->chead[st->rq[q].cpu]; *pp != k; pp = &st->cnext[*pp])
		;
	*pp = st->cnext[k];
	st->tq[k] = -1;
	rate_set(st, k, s->tasks[k], 0); /* a rate is its CPU's to give */
	mark_dirty(st, q);
}

/* Queues task k on the rq of slot idx (group cg) on cpu; -ENOMEM. */
static int task_enqueue(struct cpu_state *st, int k, int idx, struct sim_cg *cg, int cpu)
{
	int q = rq_get(st, idx, cg, cpu), *pp;

	if (q < 0)
		return -ENOMEM;
	for (pp = &st->rq[q].first_task; *pp >= 0 && *pp < k; pp = &st->tnext[*pp])
		;
	st->tnext[k] = *pp;
	*pp = k;
	for (pp = &st->chead[cpu]; *pp >= 0 && *pp < k; pp = &st->cnext[*pp])
		;
	st->cnext[k] = *pp;
	*pp = k;
	st->tq[k] = q;
	mark_dirty(st, q);
	return 0;
}

/* Sums q's load and demand again: its tasks by index, then its children by
 * descending id (the order a full rebuild adds them in). */
static void rq_sum(struct cpu_state *st, int q)
{
	struct rq *r = &st->rq[q];
	double load = 0, d = 0;
	int k, c;

	for (k = r->first_task; k >= 0; k = st->tnext[k]) {
		load += NICE0 * st->want[k];
		d += st->want[k];
	}
	for (c = r->first_child; c >= 0; c = st->rq[c].next_sib) {
		load += st->rq[c].w * st->rq[c].u;
		d += st->rq[c].d;
	}
	if (d != r->d)
		r->up = true;
	r->load = load;
	r->d = d;
	r->dirty = false;
	h_stale(st, r->cpu);
}

/* Redoes a dirty group: its dirty rqs' sums, its CPU count, and each rq's weight
 * shares·L_c/ΣL (at least 2, the way CFS spreads a group's shares over the CPUs its
 * tasks run on) and link into its parent's rq there; a throttled group is unlinked
 * on every CPU. A change the parent's sums see marks the parent's rq dirty. */
static int group_redo(struct sim *s, struct cpu_state *st, int idx)
{
	struct sim_cg *g = idx ? s->cgs[idx - 1] : NULL;
	double total = 0;
	unsigned active = 0;
	int q;

	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
		if (st->rq[q].dirty)
			rq_sum(st, q);
		total += st->rq[q].load;
		if (st->rq[q].d > 0)
			active++;
	}
	if (g)
		g->nr_active = active;
	if (!g || !g->parent) {
		for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
			if (st->cpu_root[st->rq[q].cpu] != q)
				h_stale(st, st->rq[q].cpu);
			st->cpu_root[st->rq[q].cpu] = q;
			st->rq[q].up = false;
		}
		return 0;
	}
	if (g->throttled) {
		/* dequeued from its parent on every CPU */
		for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
			if (st->rq[q].parent >= 0)
				rq_unlink(st, q);
			st->rq[q].up = false;
		}
		return 0;
	}
	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
		struct rq *r = &st->rq[q];
		double w = total > 0 ? (double)g->shares * r->load / total : g->shares;
		double u = r->d < 1 ? r->d : 1;

		if (w < MIN_SHARES)
			w = MIN_SHARES;
		if (r->first_task < 0 && r->first_child < 0) {
			/* empty: its load and d are exact zeros, which its parent's sums
			 * need not see; off the parent's list, as in a full rebuild */
			if (r->parent >= 0)
				rq_unlink(st, q);
		} else if (r->parent < 0) {
			int cpu = r->cpu;
			int p = rq_get(st, g->parent->id + 1, g->parent, cpu);

			if (p < 0)
				return -ENOMEM;
			r = &st->rq[q]; /* rq_get may have moved the array */
			r->w = w;
			r->u = u;
			rq_link(st, q, p);
		} else if (w != r->w || u != r->u || r->up) {
			r->w = w;
			r->u = u;
			h_stale(st, r->cpu);
			mark_dirty(st, r->parent);
		}
		st->rq[q].up = false;
	}
	return 0;
}

/* Redoes every dirty group, children before parents (a child's id is above its
 * parent's), then reads the CPUs' root loads. */
static int groups_redo(struct sim *s, struct cpu_state *st)
{
	unsigned c;
	int idx;

	for (idx = st->gmax_dirty; idx >= 0; idx--) {
		if (!(st->g_flags[idx] & G_DIRTY))
			continue;
		st->g_flags[idx] &= (unsigned char)~G_DIRTY;
		if (group_redo(s, st, idx) < 0)
			return -ENOMEM;
	}
	st->gmax_dirty = -1;
	for (c = 0; c < s->nr_cpus; c++)
		st->cpu_load[c] = st->cpu_root[c] >= 0 ? st->rq[st->cpu_root[c]].load : 0;
	return 0;
}

/* What task k adds to its CPU's root load (the kernel's h_load): its own load scaled
 * by each group's weight over the load of the runqueue it sits in; 0 when a throttled
 * group holds it. */
static double task_h_load(struct cpu_state *st, int k)
{
	int q0 = st->tq[k], q = q0;
	double h = NICE0 * st->want[k];
	struct rq *r0 = &st->rq[q0];

	/* while nothing it reads changed on its CPU, the answer for a task of the same
	 * demand on the same rq is the same, bit for bit */
	if (r0->hgen == st->hgen[r0->cpu] && r0->hwant == st->want[k])
		return r0->hval;
	while (st->rq[q].parent >= 0) {
		int p = st->rq[q].parent;

		if (st->rq[q].load <= 0 || st->rq[p].load <= 0) {
			h = 0;
			break;
		}
		h *= st->rq[q].w * st->rq[q].u / st->rq[q].load;
		q = p;
	}
	if (st->rq[q].parent < 0 && st->cpu_root[st->rq[q].cpu] != q)
		h = 0;
	r0 = &st->rq[q0];
	r0->hgen = st->hgen[r0->cpu];
	r0->hwant = st->want[k];
	r0->hval = h;
	return h;
}

static bool allowed(const struct cpu_state *st, int k, unsigned cpu)
{
	return st->any[k] || (cpu < 64 && (st->mask[k] >> cpu & 1));
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

/* Newly runnable tasks (and tasks whose CPU became forbidden) go, in tid order, to the
 * allowed CPU with the least runnable demand (lowest number on ties). */
static void place_new(struct sim *s, struct cpu_state *st)
{
	size_t i;
	unsigned c;

	for (c = 0; c < s->nr_cpus; c++)
		st->cpu_load[c] = 0;
	for (i = 0; i < st->nrt; i++) {
		int k = st->rt[i];
		struct sim_task *t = s->tasks[k];

		if (t->cpu >= 0 && (unsigned)t->cpu < s->nr_cpus && allowed(st, k, (unsigned)t->cpu))
			st->cpu_load[t->cpu] += st->want[k];
		else
			t->cpu = -1;
	}
	for (i = 0; i < st->nrt; i++) {
		int k = st->rt[i];
		struct sim_task *t = s->tasks[k];
		int best = -1;

		if (t->cpu >= 0)
			continue;
		for (c = 0; c < s->nr_cpus; c++)
			if (allowed(st, k, c) && (best < 0 || st->cpu_load[c] < st->cpu_load[best]))
				best = (int)c;
		t->cpu = best < 0 ? 0 : best;
		st->cpu_load[t->cpu] += st->want[k];
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
 * the kernel's estimate; the runqueues are not (the caller moves the tasks after the
 * round). -1 when no move helps, else the task moved. */
static int balance_move(struct sim *s, struct cpu_state *st)
{
	unsigned n = s->nr_cpus, k, c;
	int gmin = 0;

	for (c = 0; c < n; c++) {
		st->order[c] = (int)c;
		if (st->cpu_load[c] < st->cpu_load[gmin])
			gmin = (int)c;
	}
	if (n > 32) {
		qsort_r(st->order, n, sizeof(int), cmp_load_desc, st->cpu_load);
	} else {
		/* the order is total: insertion sort gives qsort's sequence, cheaper */
		for (c = 1; c < n; c++) {
			int x = st->order[c];
			unsigned j = c;

			for (; j > 0 && cmp_load_desc(&x, &st->order[j - 1], st->cpu_load) < 0; j--)
				st->order[j] = st->order[j - 1];
			st->order[j] = x;
		}
	}
	for (k = 0; k < n; k++) {
		int src = st->order[k], best = -1, bdst = -1;
		double lsrc = st->cpu_load[src], bgain = BALANCE_EPS, bh = 0;
		int i;

		double minh = 0;

		if (lsrc <= st->cpu_load[gmin] + BALANCE_EPS)
			break; /* the rest are as balanced */
		/* A move to a CPU of load l gains 2·min(h, lsrc-l-h) at most: more than
		 * BALANCE_EPS only if h < lsrc - l - BALANCE_EPS/2, and l is at least the
		 * least load. When every task here has a larger h_load (by a margin far
		 * above the rounding), no task here can move. */
		if (st->minh_gen[src] == st->hgen[src] && st->minh[src] > 0 &&
		    st->minh[src] >= lsrc - st->cpu_load[gmin] - BALANCE_EPS / 2 + 1)
			continue;
		for (i = st->chead[src]; i >= 0; i = st->cnext[i]) {
			int dst = -1;
			double h, gain;

			h = task_h_load(st, i);
			if (h > 0 && (minh <= 0 || h < minh))
				minh = h;
			if (st->moved[i] == st->stamp)
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
		st->minh[src] = minh;
		st->minh_gen[src] = st->hgen[src];
		if (best >= 0) {
			s->tasks[best]->cpu = bdst;
			st->moved[best] = st->stamp;
			st->cpu_load[src] -= bh;
			st->cpu_load[bdst] += bh;
			return best;
		}
	}
	return -1;
}

/* The task's rq slot: its cpu cgroup (the root when it has none), or the
 * hierarchy-less root */
static inline int task_slot(struct sim_cg *cg)
{
	return cg ? cg->id + 1 : 0;
}

/* Queues task k where its group and t->cpu say, if it is not there yet. */
static int task_place(struct sim *s, struct cpu_state *st, int k, struct sim_cg *cg)
{
	int q = st->tq[k], cpu = s->tasks[k]->cpu;

	if (q >= 0 && st->rq[q].cpu == cpu && st->rq[q].slot == task_slot(cg))
		return 0;
	if (q >= 0)
		task_dequeue(s, st, k);
	return task_enqueue(st, k, task_slot(cg), cg, cpu);
}

/* Brings the runqueues up to date, moving tasks between CPUs while that evens out the
 * root loads (a few rounds of moves on estimated loads, each followed by a redo). */
static int balance(struct sim *s, struct cpu_state *st)
{
	int round;

	for (round = 0;; round++) {
		size_t i, moves = 0;
		int k;

		if (groups_redo(s, st) < 0)
			return -ENOMEM;
		if (round == BALANCE_ROUNDS || s->nr_cpus == 1)
			return 0;
		if (++st->stamp == 0) {
			/* the stamps wrapped: no task may look moved */
			for (i = 0; i < st->ntk; i++)
				st->moved[i] = 0;
			st->stamp = 1;
		}
		while (moves < s->nr_cpus && (k = balance_move(s, st)) >= 0)
			st->moves[moves++] = k;
		if (!moves)
			return 0;
		for (i = 0; i < moves; i++) {
			int m = st->moves[i];

			if (task_place(s, st, m, st->rq[st->tq[m]].cg) < 0)
				return -ENOMEM;
		}
	}
}

/* An entity's place in the water-filling order: by d/w, ties by creation (cgroups
 * by id, tasks by tid, cgroups first); i its index in the entity array. */
struct wkey {
	double r;
	uint32_t tie;        /* key, plus 1 << 31 for a task */
	uint32_t i;
};

static inline bool wkey_before(const struct wkey *a, const struct wkey *b)
{
	return a->r < b->r || (a->r == b->r && a->tie < b->tie);
}

static int wkey_cmp(const void *pa, const void *pb)
{
	const struct wkey *a = pa, *b = pb;

	return wkey_before(a, b) ? -1 : wkey_before(b, a) ? 1 : 0;
}

/* Water-fills cap over v[0..n) by weight, capped at demand, in the order of k[0..n)
 * (sorted here). */
static void waterfill(double cap, struct went *v, struct wkey *k, size_t n)
{
	double W = 0, ratio;
	size_t i;

	if (n == 1) {
		/* alone: its demand or the whole capacity */
		v[0].a = v[0].d < cap ? v[0].d : cap;
		if (v[0].a < 0)
			v[0].a = 0;
		return;
	}
	if (n > 16) {
		qsort(k, n, sizeof(*k), wkey_cmp);
	} else {
		/* the order is total, so any sort gives the same sequence; insertion sort
		 * is the cheap one for the few entities of a runqueue */
		for (i = 1; i < n; i++) {
			struct wkey x = k[i];
			size_t j = i;

			for (; j > 0 && wkey_before(&x, &k[j - 1]); j--)
				k[j] = k[j - 1];
			k[j] = x;
		}
	}
	for (i = 0; i < n; i++)
		W += v[k[i].i].w;
	/* the entities whose demand is below their fair share get it, in order */
	for (i = 0; i < n; i++) {
		struct went *e = &v[k[i].i];
		double fair = W > 0 ? cap * e->w / W : 0;

		if (!(e->d < fair))
			break;
		e->a = e->d > 0 ? e->d : 0;
		cap -= e->a;
		W -= e->w;
	}
	/* the rest want at least their fair share (they come by ascending d/w, and
	 * giving one its fair share leaves cap/W as it was): each gets its weight
	 * times what is left per unit of weight, one division for all */
	ratio = W > 0 && cap > 0 ? cap / W : 0;
	for (; i < n; i++)
		v[k[i].i].a = v[k[i].i].w * ratio;
}

/* Lists task k (t) with a rate on cpu; a task left out for want of memory is charged
 * no time (the run fails: st->run_err). */
static bool run_grow(struct cpu_state *st, struct cpu_run *r)
{
	size_t n = r->cap ? r->cap * 2 : 16;
	void *v;

	v = ucg_realloc(r->t, n * sizeof(*r->t));
	if (v)
		r->t = v;
	v = v ? ucg_realloc(r->k, n * sizeof(*r->k)) : NULL;
	if (!v) {
		st->run_err = true;
		return false;
	}
	r->k = v;
	r->cap = n;
	return true;
}

static inline void run_add(struct cpu_state *st, int cpu, int k, struct sim_task *t)
{
	struct cpu_run *r = &st->runs[cpu];

	if (r->n == r->cap && !run_grow(st, r))
		return;
	r->t[r->n] = t;
	r->k[r->n++] = k;
}

/* Shares cap CPUs of one runqueue among its entities (wf[top..) is free scratch);
 * each group entity's grant is noted in its rq, which joins its CPU's reached list. */
static void share_rq(struct sim *s, struct cpu_state *st, int q, double cap, size_t top)
{
	struct went *v = st->wf + top;
	struct wkey *key = st->wk + top;
	size_t n = 0, i;
	int c, k;

	for (c = st->rq[q].first_child; c >= 0; c = st->rq[c].next_sib)
		if (st->rq[c].d > 0) {
			v[n].w = st->rq[c].w;
			v[n].d = st->rq[c].d;
			v[n].rq = c;
			key[n].r = v[n].d / v[n].w;
			key[n].tie = (uint32_t)st->rq[c].slot; /* id + 1: the same order */
			key[n].i = (uint32_t)n;
			n++;
		}
	/* children come by descending id: reversed, ties (equal d/w) are already in
	 * the sort's order, and the insertion sort has little to do */
	for (i = 0; i < n / 2; i++) {
		struct wkey x = key[i];

		key[i] = key[n - 1 - i];
		key[n - 1 - i] = x;
	}
	for (k = st->rq[q].first_task; k >= 0; k = st->tnext[k])
		if (st->want[k] > 0) {
			v[n].w = NICE0;
			v[n].d = st->want[k];
			v[n].rq = -1;
			v[n].task = k;
			key[n].r = v[n].d / v[n].w;
			key[n].tie = (uint32_t)s->tasks[k]->tid | 1u << 31;
			key[n].i = (uint32_t)n;
			n++;
		}
	waterfill(cap, v, key, n);
	for (i = 0; i < n; i++) {
		if (v[i].rq < 0) {
			rate_set(st, v[i].task, s->tasks[v[i].task], v[i].a);
			if (v[i].a > 0)
				run_add(st, st->rq[q].cpu, v[i].task, s->tasks[v[i].task]);
		} else {
			struct rq *r = &st->rq[v[i].rq];
			int t = r->first_task;

			r->a = v[i].a;
			r->next_reached = st->reached[r->cpu];
			st->reached[r->cpu] = v[i].rq;
			mark_alloc(st, r->slot);
			if (r->first_child < 0 && t >= 0 && st->tnext[t] < 0) {
				/* one task alone (the common leaf): what share_rq would
				 * give it, min(demand, grant), without the call */
				double a = st->want[t] < v[i].a ? st->want[t] : v[i].a;

				if (a < 0)
					a = 0;
				rate_set(st, t, s->tasks[t], a);
				if (a > 0)
					run_add(st, r->cpu, t, s->tasks[t]);
			} else {
				share_rq(s, st, v[i].rq, v[i].a, top + n);
			}
		}
	}
}

/* Shares CPU c again: its tasks lose their rates and its groups their grants, then
 * the root's capacity of 1 is water-filled down its tree. */
static void share_cpu(struct sim *s, struct cpu_state *st, unsigned c)
{
	struct cpu_run *r = &st->runs[c];
	size_t i;
	int q;

	/* the tasks it gave a rate and still holds (one that left lost its rate then,
	 * and may have its new CPU's already; by now a queued task's t->cpu is its
	 * rq's CPU, and one not queued has -1) */
	for (i = 0; i < r->n; i++)
		if (r->t[i]->cpu == (int)c)
			rate_set(st, r->k[i], r->t[i], 0);
	r->n = 0;
	for (q = st->reached[c]; q >= 0; q = st->rq[q].next_reached) {
		st->rq[q].a = 0;
		mark_alloc(st, st->rq[q].slot);
	}
	st->reached[c] = -1;
	if (st->cpu_root[c] >= 0)
		share_rq(s, st, st->cpu_root[c], 1.0, 0);
	st->reshare[c] = false;
}

/* A group's alloc (and rate): its grants summed in CPU order. */
static void alloc_sum(struct sim *s, struct cpu_state *st, struct sim_cg *cg)
{
	double a = 0;
	int q;

	for (q = st->g_first[cg->id + 1]; q >= 0; q = st->rq[q].next_of_cg)
		a += st->rq[q].a;
	cg->alloc = a;
	sim_cpu_bw_rate(s, cg, a);
}

static void alloc_tree(struct sim *s, struct cpu_state *st, struct sim_cg *cg)
{
	size_t i;

	alloc_sum(s, st, cg);
	for (i = 0; i < cg->nchildren; i++)
		alloc_tree(s, st, cg->children[i]);
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
		ucg_cpuacct_charge(sim_task_ucg(s, t, UCG_SS_cpuacct), (unsigned)t->pend_cpu,
				   (uint64_t)t->cpuacct_pend, 0);
	t->cpuacct_pend = 0;
}

/* Adds the time t ran since acc_since, at acc_rate on acc_cpu, rounded to whole ns:
 * to the task, its cgroups in every hierarchy (as it is now: whatever moves a task
 * settles every task first) and cpuacct's pending charge; idle_ns loses it. */
static void task_settle(struct sim *s, struct cpu_state *st, struct sim_task *t)
{
	sim_time dt = s->now - t->acc_since;
	int64_t ns;
	size_t h;

	t->acc_since = s->now;
	if (dt <= 0 || t->acc_rate <= 0 || !t->alive)
		return;
	ns = (int64_t)(t->acc_rate * (double)dt + 0.5);
	if (ns <= 0)
		return;
	t->cpu_ns += ns;
	s->idle_ns -= ns;
	for (h = 0; h < s->nhier; h++)
		SIM_CG_UP(t->cg[h], cpu_ns, ns);
	/* cpuacct through the controller, on the task's CPU, all of it user time:
	 * gathered here and charged by sim_cpu_flush (before a command runs, a task
	 * exits, and at the end); time run on another CPU is charged there first */
	if (t->cpuacct_pend && t->pend_cpu != t->acc_cpu)
		flush_task(s, t);
	if (!t->cpuacct_pend)
		t->pend_cpu = t->acc_cpu > 0 ? t->acc_cpu : 0;
	t->cpuacct_pend += ns;
	if (!t->pend_listed) {
		if (sim_cpu_grow((void **)&st->pl, &st->cpl, st->npl + 1, sizeof(*st->pl)) < 0) {
			flush_task(s, t); /* no room to wait: charge now */
		} else {
			st->pl[st->npl++] = t;
			t->pend_listed = true;
		}
	}
}

/* The end of a recompute: each task whose rate or CPU changed settles the time it
 * ran at the old ones; from now on it accrues at the new. */
static void settle_touched(struct sim *s, struct cpu_state *st)
{
	size_t i;

	for (i = 0; i < st->ntouched; i++) {
		int k = st->touched[i];
		struct sim_task *t = s->tasks[k];

		st->tflag[k] = 0;
		if (t->rate != t->acc_rate || (t->rate > 0 && t->cpu != t->acc_cpu)) {
			task_settle(s, st, t);
			t->acc_rate = t->rate;
			t->acc_cpu = t->cpu;
		}
	}
	st->ntouched = 0;
}

void sim_cpu_settle(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t c, i;

	/* a task that starts accruing later in this instant starts from now */
	if (!st || st->settled_at == s->now)
		return;
	st->settled_at = s->now;
	/* every task with a rate is in its CPU's list (maybe in an older one too:
	 * settling twice adds nothing) */
	for (c = 0; c < st->ccpu; c++)
		for (i = 0; i < st->runs[c].n; i++)
			task_settle(s, st, st->runs[c].t[i]);
}

void sim_cpu_flush(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t i;

	sim_cpu_settle(s);
	for (i = 0; st && i < st->npl; i++) {
		flush_task(s, st->pl[i]);
		st->pl[i]->pend_listed = false;
	}
	if (st)
		st->npl = 0;
}

void sim_cpu_advance(struct sim *s, sim_time now)
{
	sim_time dt = now - s->cpu_last;

	if (dt <= 0)
		return;
	s->cpu_last = now;
	s->idle_ns += (int64_t)s->nr_cpus * dt; /* less what the tasks ran, as settled */
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
			mark_group(st, idx);
	}
}

/* Gathers the runnable tasks in tid order; the others leave their CPU. Tasks whose
 * group or demand changed are requeued, new ones placed. */
static int gather(struct sim *s, struct cpu_state *st, struct sim_hier *hi)
{
	int ifrz = hier_index(s, SIM_SS_FREEZER), icpu = hier_index(s, SIM_SS_CPU);
	int ics = hier_index(s, SIM_SS_CPUSET);
	bool place = false;
	size_t i;

	st->nrt = 0;
	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];
		int k = (int)i;
		double want;

		if (!t->alive || t->cpu_demand <= 0 || task_frozen(s, t, ifrz)) {
			t->cpu = -1;
			rate_set(st, k, t, 0);
			if (st->tq[k] >= 0)
				task_dequeue(s, st, k);
			continue;
		}
		st->rt[st->nrt++] = k;
		want = t->cpu_demand > 1 ? 1 : t->cpu_demand;
		if (want != st->want[k]) {
			st->want[k] = want;
			if (st->tq[k] >= 0)
				mark_dirty(st, st->tq[k]);
		}
		task_mask(s, st, k, ics);
		if (t->cpu < 0 || (unsigned)t->cpu >= s->nr_cpus || !allowed(st, k, (unsigned)t->cpu))
			place = true;
	}
	if (place)
		place_new(s, st);
	for (i = 0; i < st->nrt; i++) {
		int k = st->rt[i];
		struct sim_cg *cg = NULL;

		if (hi) {
			cg = task_cg_at(s, s->tasks[k], icpu);
			if (!cg)
				cg = hi->root;
		}
		if (task_place(s, st, k, cg) < 0)
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
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		digest_double(s, s->tasks[i]->rate);
		digest_u64(s, (uint64_t)(int64_t)s->tasks[i]->cpu);
	}
	for (i = 0; i < s->ncgs; i++) {
		digest_double(s, s->cgs[i]->rate);
		digest_u64(s, s->cgs[i]->nr_active);
	}
}

void sim_cpu_update(struct sim *s)
{
	struct sim_hier *hi = sim_hier_of(s, SIM_SS_CPU);
	struct cpu_state *st = s->cpu_state;
	size_t i;
	int r = -ENOMEM;

	s->cpu_dirty = false;
	if (!st) {
		st = ucg_calloc(1, sizeof(*st));
		if (!st)
			goto out;
		s->cpu_state = st;
	}
	st->nrun = 0;
	if (state_reserve(st, s->ntasks, s->ncgs + 1, s->nr_cpus) < 0)
		goto out;
	if (!st->valid || s->cpu_full || st->ncpu != s->nr_cpus || st->hi != hi)
		state_reset(s, st, hi);
	if (s->cpu_full || st->q_cfg != s->cfg_writes || st->q_ncgs != s->ncgs ||
	    st->q_hi != hi || st->bw.flip_lost) {
		/* the configuration may have changed: quotas and shares read again,
		 * every group checked */
		st->bw.flip_lost = false;
		if (sim_cpu_bw_refresh(s, &st->bw, hi) < 0)
			goto out;
		for (i = 0; hi && i < s->ncgs; i++)
			if (s->cgs[i]->hier == hi)
				group_check(st, s->cgs[i]);
		st->q_cfg = s->cfg_writes;
		st->q_ncgs = s->ncgs;
		st->q_hi = hi;
	} else {
		/* only timers changed throttling since */
		for (i = 0; i < st->bw.nflip; i++)
			group_check(st, s->cgs[st->bw.flip[i] - 1]);
	}
	st->bw.nflip = 0;
	if (st->gathered && st->bw_nevents && st->bw_nevents == s->nevents &&
	    st->g_memb == s->memb_epoch && st->g_cfg == s->cfg_epoch &&
	    st->g_ntasks == s->ntasks && st->g_ncgs == s->ncgs && st->g_nhier == s->nhier &&
	    st->g_ncpus == s->nr_cpus && st->g_hi == hi) {
		/* only throttling changed: the same runnable tasks on the same CPUs
		 * (place_new would keep every one where it is) */
		s->cpu_shortcuts++;
	} else {
		if (gather(s, st, hi) < 0)
			goto out;
		st->gathered = !s->cpu_full;
		st->g_memb = s->memb_epoch;
		st->g_cfg = s->cfg_epoch;
		st->g_ntasks = s->ntasks;
		st->g_ncgs = s->ncgs;
		st->g_nhier = s->nhier;
		st->g_ncpus = s->nr_cpus;
		st->g_hi = hi;
	}
	st->bw_nevents = 0;
	st->upd_nevents = s->nevents;
	r = balance(s, st);
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
	for (i = 0; i < s->nr_cpus; i++)
		if (st->reshare[i])
			share_cpu(s, st, (unsigned)i);
	if (st->full_alloc) {
		if (hi)
			alloc_tree(s, st, hi->root);
		st->full_alloc = false;
	} else {
		for (i = 0; i < st->nalloc; i++)
			if (st->alloc_list[i])
				alloc_sum(s, st, s->cgs[st->alloc_list[i] - 1]);
	}
	for (i = 0; i < st->nalloc; i++)
		st->g_flags[st->alloc_list[i]] &= (unsigned char)~G_ALLOC;
	st->nalloc = 0;
	for (i = 0; i < s->nr_cpus; i++)
		st->nrun += st->runs[i].n;
	if (st->run_err) {
		st->run_err = false;
		r = -ENOMEM;
		goto out;
	}
	if (s->cpu_digesting)
		digest(s);
	if (hi)
		r = sim_cpu_bw_schedule(s, &st->bw);
out:
	if (st)
		settle_touched(s, st);
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
	struct cpu_state *st = s->cpu_state;

	/* the first event since the last recompute, and the only one if the
	 * recompute follows it: the runnable set still holds */
	if (st && !s->cpu_dirty && s->nevents == st->upd_nevents)
		st->bw_nevents = s->nevents + 1;
	s->cpu_dirty = true;
}
