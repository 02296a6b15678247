/* sim/cpu_balance.c — the CPU model's placement and load balancing: a newly runnable
 * task goes to its allowed CPU with the least runnable demand; then, as the kernel's
 * load balancer, tasks move from the most loaded CPU while a move cuts a pair's
 * difference of root load by more than 1/64 of a nice-0 load, each task's part of its
 * CPU's root load estimated by its h_load; under the tick model the moves are made
 * only at 8-tick boundaries (st->lb_now), and while every CPU is busy at the
 * kernel's busy interval for the CPU count (lb_next_busy). The rules and limits are
 * described at the top of cpu.c ("Placement and balancing").
 */
#include "sim/cpu_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define BALANCE_ROUNDS 8
#define BALANCE_EPS (NICE0 / 64) /* a move must cut an imbalance by 1/64 of a task */

/* What task k, queued on CPU cpu (whose hgen is hg), adds to that CPU's root load
 * (the kernel's h_load): its own load scaled by each group's weight over the load
 * of the runqueue it sits in; 0 when a throttled group holds it. The caller scans
 * one CPU's tasks and passes what is the same for all of them. */
static inline double task_h_load(struct cpu_state *st, int k, int cpu, uint32_t hg)
{
	struct cpu_task *tk = &st->tk[k];
	int q0 = tk->q, q = q0;
	double want = tk->want, h = NICE0 * want;
	struct rq *r0 = &st->rq[q0];

	/* while nothing it reads changed on its CPU, the answer for a task of the same
	 * demand on the same rq is the same, bit for bit */
	if (r0->hgen == hg && r0->hwant == want)
		return r0->hval;
	while (st->rq[q].parent >= 0) {
		int p = st->rq[q].parent;

		if (st->rq[q].load <= 0 || st->rq[p].load <= 0) {
			h = 0;
			break;
		}
		h *= st->rq[q].wu / st->rq[q].load;
		q = p;
	}
	if (st->rq[q].parent < 0 && st->cpu_root[cpu] != q)
		h = 0;
	r0->hgen = hg;
	r0->hwant = want;
	r0->hval = h;
	return h;
}

/* Newly runnable tasks (and tasks whose CPU became forbidden) go, in tid order, to the
 * allowed CPU with the least runnable demand (lowest number on ties). */
void sim_cpu_place_new(struct sim *s, struct cpu_state *st)
{
	size_t i;
	unsigned c;

	st->order_ok = false; /* cpu_load holds demands here */
	for (c = 0; c < s->nr_cpus; c++)
		st->cpu_load[c] = 0;
	for (i = 0; i < st->nrt; i++) {
		int k = st->rt[i];
		struct sim_task *t = s->tasks[k];

		if (t->cpu >= 0 && (unsigned)t->cpu < s->nr_cpus &&
		    cpu_allowed(st, k, (unsigned)t->cpu))
			st->cpu_load[t->cpu] += st->tk[k].want;
		else
			cpu_task_cpu(t, st, k, -1);
	}
	for (i = 0; i < st->nrt; i++) {
		int k = st->rt[i];
		struct sim_task *t = s->tasks[k];
		int best = -1;

		if (t->cpu >= 0)
			continue;
		for (c = 0; c < s->nr_cpus; c++)
			if (cpu_allowed(st, k, c) &&
			    (best < 0 || st->cpu_load[c] < st->cpu_load[best]))
				best = (int)c;
		cpu_task_cpu(t, st, k, best < 0 ? 0 : best);
		st->cpu_load[t->cpu] += st->tk[k].want;
	}
}

/* CPU a before CPU b in the balancer's order: by descending load, ties by number */
static inline bool load_before(const double *load, int a, int b)
{
	return load[a] > load[b] || (load[a] == load[b] && a < b);
}

/* Puts the CPU at order[p], whose load moved, back in its place, the rest being in
 * order. After a move the source's load went down and the destination's (below it:
 * less loaded) up; fixed one after the other, the two come out in order: the source
 * stops above the destination only when it is at least as far up as the
 * destination's new place, and so above everything that was below it. */
static void order_fix(int *order, unsigned n, unsigned p, const double *load)
{
	int x = order[p];

	for (; p > 0 && load_before(load, x, order[p - 1]); p--)
		order[p] = order[p - 1];
	for (; p + 1 < n && load_before(load, order[p + 1], x); p++)
		order[p] = order[p + 1];
	order[p] = x;
}

/* One balancing move: from the most loaded CPU that has a movable task, the task
 * whose move to its least loaded allowed CPU cuts the pair's difference of root load
 * the most (by more than BALANCE_EPS). The loads are updated by the task's h_load,
 * the kernel's estimate; the runqueues are not (the caller moves the tasks after the
 * round). -1 when no move helps, else the task moved. */
static int balance_move(struct sim *s, struct cpu_state *st)
{
	unsigned n = s->nr_cpus, k, c;
	int gmin;

	if (st->order_n != n) {
		for (c = 0; c < n; c++)
			st->order[c] = (int)c;
		st->order_n = n;
		st->order_ok = false;
	}
	/* The order is total, so any sort gives the same sequence. Insertion sort
	 * starting from the last call's order: a recompute changes a few CPUs' loads,
	 * so the order is nearly sorted already and this is about n comparisons
	 * (qsort's n log n, with its allocations, was a fifth of a 64-CPU run:
	 * bench_sim_events sim.hour_64cpu_s). Within a round only the moves change
	 * loads, and each puts its two CPUs back in place itself (order_fix): the
	 * sort runs once a round, not once a move. */
	if (!st->order_ok) {
		for (c = 1; c < n; c++) {
			int x = st->order[c];
			unsigned j = c;

			for (; j > 0 && load_before(st->cpu_load, x, st->order[j - 1]); j--)
				st->order[j] = st->order[j - 1];
			st->order[j] = x;
		}
		st->order_ok = true;
	}
	/* The least loaded CPU, the lowest-numbered of those tied (a move's
	 * destination for a task allowed anywhere): the order ends with them, by
	 * ascending number, so the first of its last run of equal loads (a scan of
	 * every CPU for it at each move was a twentieth of the balancer's own
	 * instructions). */
	for (c = n - 1; c > 0 && st->cpu_load[st->order[c - 1]] == st->cpu_load[st->order[n - 1]];
	     c--)
		;
	gmin = st->order[c];
	for (k = 0; k < n; k++) {
		int src = st->order[k], best = -1, bdst = -1;
		double lsrc = st->cpu_load[src], bgain = BALANCE_EPS, bh = 0;
		size_t j;

		double minh = 0;

		if (lsrc <= st->cpu_load[gmin] + BALANCE_EPS)
			break; /* the rest are as balanced */
		/* A move to a CPU of load l gains 2·min(h, lsrc-l-h) at most: more than
		 * BALANCE_EPS only if BALANCE_EPS/2 < h < lsrc - l - BALANCE_EPS/2, and l
		 * is at least the least load. minh is the least h_load above
		 * BALANCE_EPS/2 - 1 here (0: none): when it is at least the upper bound
		 * (by a margin far above the rounding), or there is none, no task here
		 * can move, and a scan would find none (the small tasks of a busy host
		 * gain at most 2h < BALANCE_EPS and so no longer keep a CPU scanned) */
		if (st->minh_gen[src] == st->hgen[src] &&
		    (st->minh[src] <= 0 ||
		     st->minh[src] >= lsrc - st->cpu_load[gmin] - BALANCE_EPS / 2 + 1))
			continue;
		for (j = 0; j < st->cq[src].n; j++) {
			int i = st->cq[src].k[j], dst = -1;
			double h, gain;

			h = task_h_load(st, i, src, st->hgen[src]);
			/* its move gains 2·min(h, ...) at most, below BALANCE_EPS by
			 * far more than the rounding: no look for a destination (the
			 * small tasks are nine in ten of those looked at on the
			 * hour's host) */
			if (!(h > BALANCE_EPS / 2 - 1))
				continue;
			if (minh <= 0 || h < minh)
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
			cpu_task_cpu(s->tasks[best], st, best, bdst);
			st->moved[best] = st->stamp;
			st->cpu_load[src] -= bh;
			st->cpu_load[bdst] += bh;
			order_fix(st->order, n, k, st->cpu_load);
			/* the destination was less loaded than the source, most often
			 * the least loaded: looked for from the order's end */
			for (c = n - 1; c > 0 && st->order[c] != bdst; c--)
				;
			order_fix(st->order, n, c, st->cpu_load);
			return best;
		}
	}
	return -1;
}

/* The kernel balances a domain from each CPU's tick at the domain's interval
 * (get_sd_balance_interval): its weight in ms (sd_weight, the CPUs it spans) while
 * the CPU is idle; while it is busy, that times busy_factor (16), less one tick. A
 * 64-CPU domain whose CPUs all run something is balanced about once a second, not
 * every 32 ms. The model has one flat domain and one balancer for every CPU: when
 * each CPU had load at this balancing, the next is at the multiple of LB_TICKS
 * nearest the kernel's busy interval, or the next boundary when that is nearer (at
 * 2 and 3 CPUs, 7 and 11 ticks: as before); with a CPU idle, at the next boundary.
 * (An idle CPU of the kernel balances every sd_weight ms, and pulls at once when it
 * goes idle, which the model does not do: cpu.c, "no newidle balance".) */
static void lb_next_busy(struct sim *s, struct cpu_state *st)
{
	int64_t hz = s->hz ? s->hz : 250, ticks, k;
	unsigned c;

	for (c = 0; c < s->nr_cpus; c++)
		if (!(st->cpu_load[c] > 0))
			return;
	/* msecs_to_jiffies(sd_weight * busy_factor) - 1 */
	ticks = ((int64_t)s->nr_cpus * 16 * hz + 999) / 1000 - 1;
	k = (ticks + LB_TICKS / 2) / LB_TICKS;
	if (k > 1)
		st->lb_next += (k - 1) * sim_cpu_lb_period(s);
}

/* The tick model's balancing instants, after a recompute's first redo (the root
 * loads as this instant's events left them, the same in an incremental and a full
 * recompute): a balancing now sets the next by lb_next_busy; between two, a CPU
 * that went idle brings a later one back to the next boundary. */
static void lb_gate(struct sim *s, struct cpu_state *st)
{
	sim_time per = sim_cpu_lb_period(s), nb;
	unsigned c;

	if (st->lb_now) {
		s->cpu_balances++;
		lb_next_busy(s, st);
		return;
	}
	nb = (s->now / per + 1) * per;
	if (st->lb_next <= nb)
		return;
	for (c = 0; c < s->nr_cpus; c++)
		if (!(st->cpu_load[c] > 0)) {
			st->lb_next = nb;
			return;
		}
}

/* Brings the runqueues up to date, moving tasks between CPUs while that evens out the
 * root loads (a few rounds of moves on estimated loads, each followed by a redo). */
int sim_cpu_balance(struct sim *s, struct cpu_state *st)
{
	int round;

	for (round = 0;; round++) {
		size_t i, moves = 0;
		int k;

		if (sim_cpu_groups_redo(s, st) < 0)
			return -ENOMEM;
		if (round == 0 && st->lz_on)
			lb_gate(s, st);
		if (round == BALANCE_ROUNDS || s->nr_cpus == 1 || !st->lb_now)
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

			if (sim_cpu_task_place(s, st, m, st->rq[st->tk[m].q].cg) < 0)
				return -ENOMEM;
		}
	}
}
