/* sim/cpu_tick.c — the CPU model's tick model of CFS bandwidth (`set cpu_model tick`):
 * a group's quota is a global pool that each CPU's runqueue of the group draws from in
 * slices, and what a runqueue has overrun is noticed only at a scheduler tick, as the
 * kernel does it (kernel/sched/fair.c, 6.x: account_cfs_rq_runtime,
 * __assign_cfs_rq_runtime, do_sched_cfs_period_timer, distribute_cfs_runtime,
 * return_cfs_rq_runtime, do_sched_cfs_slack_timer). The fluid model (cpu_bw.c) stays
 * the default; this one is chosen per scenario and replaces it for every group with a
 * quota. The rates themselves are still the fluid shares of cpu_share.c: what this
 * file decides is on which CPUs a group's runqueue is throttled, and when.
 *
 * Model. Ticks fall at k·T on every CPU, T = 1 s / HZ (`set hz`, default 250: 4 ms).
 * A group G with quota q per period p has a pool (cfs_b->runtime) and, on each CPU c,
 * runtime_remaining R_c, which its runqueue there uses at its grant a_c (the CPUs the
 * water-filling gives G's entity on c; R_c is settled, rounded to whole ns, whenever
 * a_c changes and at each of G's events). The kernel charges R_c in update_curr, and
 * for a busy loop that runs at the tick; so R_c may go below zero between two ticks
 * (the overrun, at most a_c·T) and at the first tick t with R_c(t) <= 0:
 *         need = slice - R_c,   got = min(pool, need),   pool -= got,  R_c += got
 * (slice: `set cfs_slice`, default 5 ms, sched_cfs_bandwidth_slice_us), and the same
 * at once when a runqueue with R_c <= 0 starts running (check_enqueue_throttle: a new
 * quota sets every R_c to 0, so the first CPU to run takes a slice). If R_c is
 * still <= 0 the runqueue is throttled on c alone: it leaves its parent's runqueue
 * there (cpu_rq.c), its tasks there get nothing, the group's other CPUs run on what
 * they hold. A tick at which R_c > 0 does nothing, so the model schedules only the
 * ticks that matter: the first tick at or after R_c runs out at a_c,
 *         t = ceil((since + ceil(R_c / a_c)) / T) · T.
 * Period timer (at each p from the instant the quota was set): while it runs, it
 * counts nr_periods, refills pool = q (unused pool is lost; what runqueues hold is
 * kept, the kernel dropped slice expiry in 5.4), and if runqueues are throttled,
 * counts nr_throttled and hands each, oldest throttled first, -R_c + 1 ns from the
 * pool (its debt: the overrun is paid from the next period) until the pool is empty;
 * one that gets above zero is unthrottled. The timer stops at a period in which no
 * runtime was taken and nothing was throttled, and starts again at the next draw,
 * keeping its phase (start_cfs_bandwidth): a group gone idle counts the period it
 * last drew in and one more, then none. At an instant that is both a period's end and
 * a tick, the period timer goes first.
 * Return: when a runqueue of G loses its last runnable task, it keeps 1 ms
 * (min_cfs_rq_runtime) and gives the rest of R_c back to the pool; if then the pool
 * holds more than a slice and runqueues are throttled, the slack timer hands it out
 * 5 ms later, unless the period ends within 7 ms (2 ms when it fires).
 * cpu.stat: nr_periods and nr_throttled as above, per period; throttled_time sums
 * each runqueue's throttled stretch when it ends (the kernel's throttled_clock), told
 * to the controller with the next throttled period; cpu.stat.local grows by the same
 * stretch for G and for each descendant with runnable tasks on that CPU (for G alone
 * when a quota change ends the stretch).
 * Example (test_sim_cpu_tick.c): q = 2 ms, p = 10 ms, one busy task on one CPU from 0,
 * T = 4 ms, slice 5 ms. At 0 it draws the pool's 2 ms; the 4 ms tick finds R = -2 ms
 * and an empty pool: throttled, having run 4 ms. At 10 ms the refill's 2 ms just pay
 * the debt (R = 0: still throttled; periods 1 and 2 count as throttled); at 20 ms R =
 * 1 ns, unthrottled, it runs to the 24 ms tick and is throttled there with R = -2 ms
 * again: 4 ms every 20 ms, 0.2 CPU on average as the fluid model's 2 ms every 10 ms,
 * but in runs of whole ticks. Two tasks pinned to two CPUs under 5 ms / 100 ms: the
 * first to run draws the whole pool as its slice and runs to the 8 ms tick, the
 * other is throttled at once (the fluid model runs both for 2.5 ms).
 *
 * Limits. The ticks of all CPUs are aligned (the kernel's default, no skew_tick);
 * at one tick the CPUs draw in turn from a CPU that follows the tick's number k as
 * floor(N·frac(k·φ)) (the kernel's CPUs race for the pool's lock; sim_cpu_tick_due
 * says why this sequence).
 * Within a tick a runqueue runs at its fluid grant a_c, not in whole slices of the
 * tasks it shares the CPU with, so a group sharing a CPU uses its runtime at its
 * average rate between ticks. update_curr also runs at wake-ups, sleeps and
 * preemptions; the model notices only at ticks (right for busy loops, late by up to a
 * tick for tasks that sleep often). A throttled runqueue keeps its weight in its
 * group's Σ load (the kernel's PELT average decays over the throttled stretch).
 * Runtime returns only where the runqueue's grant drops to 0 as it empties (one that
 * was getting nothing when it emptied, its parent throttled, gives nothing back).
 * cfs_burst_us is not modelled.
 * Work per event: the slots of the CPUs where the group has a runqueue (a slot's
 * grant, and so its next tick, is 0 and never elsewhere, once a recompute completed;
 * every slot after a reset), at its event and for its next one; every change due at
 * one tick is recomputed together. A runqueue throttled on one CPU changes its
 * parent's load there, so the parent's weights on every CPU (w_G(c) = S·L_G(c)/Σ
 * L_G): the eager model shared nearly every CPU of a busy 64-CPU host again at each
 * tick with a throttle (bench_sim_events sim.hour_64cpu_s: ~59 of 64 CPUs per
 * recompute, ~160 recomputes per virtual second). Under this model the weights are
 * lazy (cpu_rq.c, "Lazy weights"): only the throttled runqueue's CPU takes the
 * parent's new weight at once, the others at their own next change or at the
 * refresh every `set weight_refresh` ticks (16 by default).
 */
#include "sim/cpu_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

#define MIN_CFS_RQ_RUNTIME SIM_MSEC      /* kept at a return (min_cfs_rq_runtime) */
#define SLACK_PERIOD (5 * SIM_MSEC)      /* cfs_bandwidth_slack_period */
#define MIN_BW_EXPIRATION (2 * SIM_MSEC) /* min_bandwidth_expiration */

/* The first tick at or after t */
static sim_time tick_ceil(const struct sim *s, sim_time t)
{
	sim_time T = sim_cpu_tick_ns(s);

	return t <= 0 ? 0 : (t + T - 1) / T * T;
}

/* What b's runqueue used since b->since, at b->a, off R_c (rounded to whole ns). */
static void rq_settle(struct sim *s, struct sim_bw_rq *b)
{
	sim_time dt = s->now - b->since;
	/* nothing unless dt and a are above 0: each is clamped at 0 instead of
	 * tested (selects, not branches), and a product of 0 rounds to 0 ns. The
	 * test went both ways too often to be predicted (0.14 M misses in the
	 * hour's first virtual minute) */
	double a = b->a > 0 ? b->a : 0;

	dt = dt > 0 ? dt : 0;
	b->since = s->now;
	b->rem -= (int64_t)(a * (double)dt + 0.5);
}

/* The tick at which b's runqueue next needs runtime (SIM_TIME_MAX: none). */
static inline __attribute__((always_inline)) sim_time rq_next(const struct sim *s,
							      const struct sim_bw_rq *b)
{
	sim_time te = b->since;

	if (b->thr || b->a <= 0)
		return SIM_TIME_MAX;
	if (b->rem > 0) {
		double left = (double)b->rem;
		sim_time d = (sim_time)(left / b->a);

		if ((double)d * b->a < left)
			d++;
		if (d > SIM_TIME_MAX / 4)
			return SIM_TIME_MAX;
		te += d;
	}
	return tick_ceil(s, te);
}

bool sim_cpu_tick_needed(const struct sim *s, const struct sim_cg *cg)
{
	if (!s->cpu_tick || cg->quota_ns <= 0)
		return cg->brq != NULL;
	return !cg->brq || cg->brq_n != s->nr_cpus;
}

/* cg's cpu.stat.local, and its descendants' with runnable tasks on cpu, grow by dur */
static void local_add(struct sim *s, struct cpu_state *st, struct sim_cg *cg, unsigned cpu,
		      int64_t dur, bool self)
{
	size_t i;

	if (!self) {
		int q = st && cg->id + 1 < (int)st->nslots ? st->g_first[cg->id + 1] : -1;

		for (; q >= 0 && st->rq[q].cpu < (int)cpu; q = st->rq[q].next_of_cg)
			;
		if (q < 0 || st->rq[q].cpu != (int)cpu || !(st->rq[q].d > 0))
			return;
	}
	cg->local_throttled_ns += dur;
	ucg_cpu_account_local(cg->ucg, (uint64_t)dur);
	for (i = 0; i < cg->nchildren; i++)
		local_add(s, st, cg->children[i], cpu, dur, false);
}

/* b's stretch ends: the group's throttled_time and cpu.stat.local grow by it, and
 * with subtree, each descendant's with runnable tasks there (not at a quota change,
 * where the runqueues may just have been dropped for a full recompute) */
static void rq_unthrottle(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg, unsigned c,
			  bool subtree)
{
	struct sim_bw_rq *b = &cg->brq[c];
	int64_t dur = s->now - b->thr_since;

	b->thr = false;
	if (b->thr_prev >= 0)
		cg->brq[b->thr_prev].thr_next = b->thr_next;
	else
		cg->thr_head = b->thr_next;
	if (b->thr_next >= 0)
		cg->brq[b->thr_next].thr_prev = b->thr_prev;
	else
		cg->thr_tail = b->thr_prev;
	cg->nthr--;
	b->since = s->now;
	cg->throttled_ns += dur;
	if (subtree) {
		local_add(s, s->cpu_state, cg, c, dur, true);
	} else {
		cg->local_throttled_ns += dur;
		ucg_cpu_account_local(cg->ucg, (uint64_t)dur);
	}
	cg->tick_flip = true;
	sim_cpu_bw_flip(bw, cg);
	b->next = rq_next(s, b);
	cg->bw_stale = true;
}

/* distribute_cfs_runtime: the throttled runqueues, oldest first, get their debt and
 * 1 ns while the pool lasts; true when one was unthrottled. */
static bool distribute(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg)
{
	bool changed = false;

	/* The oldest is the head of the throttled list: throttling appends with the
	 * next seq (a scan of every runqueue for the least seq, once a runqueue
	 * unthrottled, was most of the distribution's instructions). */
	while (cg->nthr && cg->pool > 0) {
		unsigned best = (unsigned)cg->thr_head;
		struct sim_bw_rq *b = &cg->brq[best];
		int64_t got;

		got = -b->rem + 1;
		if (got > cg->pool)
			got = cg->pool;
		cg->pool -= got;
		b->rem += got;
		if (b->rem <= 0)
			break; /* the pool is empty: it stays throttled */
		rq_unthrottle(s, bw, cg, best, true);
		changed = true;
	}
	return changed;
}

void sim_cpu_tick_reset(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg)
{
	struct cpu_state *st = s->cpu_state;
	unsigned c;

	for (c = 0; cg->brq && c < cg->brq_n; c++)
		if (cg->brq[c].thr)
			rq_unthrottle(s, bw, cg, c, false);
	if (!s->cpu_tick || cg->quota_ns <= 0) {
		ucg_free(cg->brq_mem);
		cg->brq_mem = NULL;
		cg->brq = NULL;
		cg->brq_n = 0;
		sim_cg_bw_note(s, cg);
		return;
	}
	if (cg->brq_n != s->nr_cpus) {
		/* aligned to a cache line (struct sim_bw_rq), so not realloc'd: the
		 * states are cleared below anyway */
		void *mem;
		struct sim_bw_rq *v = ucg_alloc_aligned(s->nr_cpus * sizeof(*v),
							_Alignof(struct sim_bw_rq), 0, &mem);

		if (!v) {
			bw->flip_lost = true; /* tried again at the next recompute */
			return;
		}
		ucg_free(cg->brq_mem);
		cg->brq_mem = mem;
		cg->brq = v;
		cg->brq_n = (uint16_t)s->nr_cpus;
		sim_cg_bw_note(s, cg);
		for (c = 0; c < cg->brq_n; c++)
			memset(&cg->brq[c], 0, sizeof(cg->brq[c]));
	}
	/* tg_set_cfs_bandwidth: every runqueue's runtime to 0, the pool full, the timer
	 * started; the grants are read again by the next alloc sum */
	for (c = 0; c < cg->brq_n; c++) {
		cg->brq[c].rem = 0;
		cg->brq[c].since = s->now;
		cg->brq[c].next = rq_next(s, &cg->brq[c]);
	}
	cg->pool = cg->quota_ns;
	cg->bw_active = true;
	cg->bw_idle = false;
	cg->nthr = 0;
	cg->slack_at = SIM_TIME_MAX;
	cg->slack_on = false;
	cg->bw_stale = true;
	if (st && cg->id + 1 < (int)st->nslots)
		cpu_mark_alloc(st, cg->id + 1);
}

/* return_cfs_rq_runtime: b's runqueue emptied; all but 1 ms goes back to the pool. */
static void rq_return(struct sim *s, struct sim_cg *cg, struct sim_bw_rq *b)
{
	int64_t slack = b->rem - MIN_CFS_RQ_RUNTIME;
	sim_time pend = cg->period_start + cg->period_ns;

	if (slack <= 0)
		return;
	cg->pool += slack;
	b->rem -= slack;
	if (cg->pool > s->cfs_slice && cg->nthr && !cg->slack_on &&
	    pend - s->now >= SLACK_PERIOD + MIN_BW_EXPIRATION) {
		cg->slack_at = s->now + SLACK_PERIOD;
		cg->slack_on = true;
		cg->bw_stale = true;
	}
}

/* cg's runqueue on CPU c got grant a (busy: it has demand there) */
static inline __attribute__((always_inline)) void rq_rate(struct sim *s, struct sim_cg *cg,
							  unsigned c, double a, bool busy)
{
	struct sim_bw_rq *b = &cg->brq[c];

	if (a == b->a)
		return;
	rq_settle(s, b);
	/* it stopped running because it has nothing left to run here: emptied.
		 * Seen only where its grant changes, which an incremental recompute
		 * sees as a full one does (a runqueue that got nothing when it emptied
		 * keeps its runtime) */
	if (b->a > 0 && a == 0 && !busy && !b->thr)
		rq_return(s, cg, b);
	/* enqueued with no runtime (check_enqueue_throttle): it draws now, not
		 * at the next tick */
	b->next = b->a == 0 && a > 0 && b->rem <= 0 && !b->thr ? s->now : SIM_TIME_MAX;
	b->a = a;
	if (b->next == SIM_TIME_MAX)
		b->next = rq_next(s, b);
	cg->bw_stale = true;
}

/* tick_rates' step for cg's runqueue q on CPU c: its grant to its slot, the slot's
 * next tick into *best */
static inline __attribute__((always_inline)) void rates_at(struct sim *s, struct cpu_state *st,
							   struct sim_cg *cg, int q, unsigned c,
							   sim_time *best)
{
	if (c >= cg->brq_n)
		return;
	rq_rate(s, cg, c, st->rq[q].a, st->rq[q].d > 0);
	if (cg->brq[c].next < *best)
		*best = cg->brq[c].next;
}

static inline __attribute__((always_inline)) void rates_rq(struct sim *s, struct cpu_state *st,
							   struct sim_cg *cg, int q, sim_time *best)
{
	rates_at(s, st, cg, q, (unsigned)st->rq[q].cpu, best);
}

void sim_cpu_tick_rates(struct sim *s, struct cpu_state *st, struct sim_cg *cg, bool all)
{
	int q = st->g_first[cg->id + 1];
	unsigned c;

	if (!all) {
		/* a grant is given only where the group has a runqueue, and a runqueue
		 * is dropped only once its grant is 0 and noted here: where it has
		 * none, b->a is 0 already (and so its next tick SIM_TIME_MAX) */
		sim_time best = SIM_TIME_MAX, pend;

		if (st->slot && st->ncpu <= 64 && st->slot_ncpu <= 64) {
			/* Its rqs by the CPUs it has one on (rq_cpus: every CPU, below
			 * 64) and the (slot, CPU) index, in the same CPU order as its
			 * list: not the list's walk, which read each rq's second line
			 * for the next, and waited for it. Their lines and the slots'
			 * asked for at once first. */
			const int *ix = st->slot + (size_t)(cg->id + 1) * st->slot_ncpu;
			uint64_t m;

			for (m = cg->rq_cpus; m; m &= m - 1) {
				c = (unsigned)__builtin_ctzll(m);
				__builtin_prefetch(&st->rq[ix[c]]);
				if (c < cg->brq_n)
					__builtin_prefetch(&cg->brq[c]);
			}
			for (m = cg->rq_cpus; m; m &= m - 1) {
				c = (unsigned)__builtin_ctzll(m);
				rates_at(s, st, cg, ix[c], c, &best);
			}
			q = -1;
		}
		/* the first two runqueues straight, the rest in a loop: nearly every
		 * group with a quota has two (its two busy loops'), and the walk's
		 * exit after a varying body missed at nearly every call (0.30 M in
		 * the hour's first virtual minute); here both tests go one way */
		if (q >= 0) {
			rates_rq(s, st, cg, q, &best);
			q = st->rq[q].next_of_cg;
			if (q >= 0) {
				rates_rq(s, st, cg, q, &best);
				for (q = st->rq[q].next_of_cg; q >= 0; q = st->rq[q].next_of_cg)
					rates_rq(s, st, cg, q, &best);
			}
		}
		/* the group's next event, as sim_cpu_tick_next will find it at the
		 * schedule ending this recompute (nothing of the group changes
		 * before it: the runqueues dropped meanwhile have no next tick),
		 * while its runqueues' lines are in the cache; a return above may
		 * have armed the slack timer */
		pend = cg->period_start + cg->period_ns;
		if (cg->slack_on && cg->slack_at < pend)
			pend = cg->slack_at;
		cg->bw_next = best < pend ? best : pend;
		cg->bw_stale = false;
		return;
	}
	/* after a reset the runqueues are new: every CPU is looked at */
	for (c = 0; c < cg->brq_n; c++) {
		double a = 0;
		bool busy = false;

		for (; q >= 0 && st->rq[q].cpu < (int)c; q = st->rq[q].next_of_cg)
			;
		if (q >= 0 && st->rq[q].cpu == (int)c) {
			a = st->rq[q].a;
			busy = st->rq[q].d > 0;
		}
		rq_rate(s, cg, c, a, busy);
	}
}

/* Whether only the CPUs where cg has a runqueue need a look (its rqs from
 * g_first, their CPUs in cg->rq_cpus), else every CPU. A slot's next tick is finite
 * only while its grant is above 0, and a grant above 0 only where the group has a
 * runqueue (between recomputes, once one completed on the current CPUs: a runqueue
 * is dropped only once its grant is 0 and the slot has been told,
 * sim_cpu_tick_rates). Its hierarchy is not compared with the state's: the
 * timers run only for the groups in st->bw.qg, which sim_cpu_bw_refresh took
 * from the tree of the hierarchy the state was last reset for, in the same
 * recompute (a new hierarchy resets the state and refreshes the list; a recompute
 * that stops between the two leaves the state invalid). cg->hier is on another
 * line than the group's timer fields: 0.6 M of 35 M D1 misses in the hour's
 * first 60 virtual seconds. */
static inline bool state_known(const struct sim *s)
{
	const struct cpu_state *st = s->cpu_state;

	return st && st->valid && st->ncpu == s->nr_cpus && !st->full_alloc;
}

/* the group's part: its slot is in the state */
static inline bool slot_known(const struct cpu_state *st, const struct sim_cg *cg)
{
	return cg->id + 1 < (int)st->nslots;
}

static bool rq_known(const struct sim *s, const struct sim_cg *cg)
{
	return state_known(s) && slot_known(s->cpu_state, cg);
}

sim_time sim_cpu_tick_next(struct sim *s, struct sim_cg *cg)
{
	const struct cpu_state *st = s->cpu_state;
	sim_time best = cg->period_start + cg->period_ns;
	bool known = rq_known(s, cg);
	unsigned c;
	int q;

	if (cg->slack_on && cg->slack_at < best)
		best = cg->slack_at;
	if (known && st->ncpu <= 64) {
		uint64_t m;

		for (m = cg->rq_cpus; m; m &= m - 1) {
			c = (unsigned)__builtin_ctzll(m);
			if (c < cg->brq_n && cg->brq[c].next < best)
				best = cg->brq[c].next;
		}
	} else if (!known) {
		for (c = 0; c < cg->brq_n; c++)
			if (cg->brq[c].next < best)
				best = cg->brq[c].next;
	} else {
		for (q = st->g_first[cg->id + 1]; q >= 0; q = st->rq[q].next_of_cg)
			if ((unsigned)st->rq[q].cpu < cg->brq_n &&
			    cg->brq[st->rq[q].cpu].next < best)
				best = cg->brq[st->rq[q].cpu].next;
	}
	cg->bw_stale = false;
	return best;
}

/* The period timer's expiry (do_sched_cfs_period_timer); true when rates change. */
static bool period_fire(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg)
{
	bool changed = false, throttled = cg->nthr > 0;
	int64_t thr;

	cg->period_start += cg->period_ns;
	cg->pool = cg->quota_ns;
	if (!cg->bw_active)
		return false;
	cg->nr_periods++;
	if (!throttled) {
		if (cg->bw_idle)
			cg->bw_active = false; /* stops; the next draw starts it */
		cg->bw_idle = true;
		ucg_cpu_account_period(cg->ucg, 0, 0, 0);
		return false;
	}
	cg->nr_throttled++;
	changed = distribute(s, bw, cg);
	cg->bw_idle = false;
	thr = cg->throttled_ns - cg->thr_told;
	cg->thr_told = cg->throttled_ns;
	ucg_cpu_account_period(cg->ucg, 1, (uint64_t)thr, 0);
	return changed;
}

/* A tick at which b's runqueue has used up its runtime: it draws a slice and its
 * overrun from the pool, or is throttled. True when throttled. Inline: ~480 k calls
 * in the hour's first virtual minute, from one loop. */
static inline __attribute__((always_inline)) bool rq_tick(struct sim *s, struct cpu_bw *bw,
							  struct sim_cg *cg, unsigned c)
{
	struct sim_bw_rq *b = &cg->brq[c];

	rq_settle(s, b);
	if (b->rem <= 0) {
		int64_t need = s->cfs_slice - b->rem, got = need < cg->pool ? need : cg->pool;

		cg->bw_active = true; /* start_cfs_bandwidth, at its phase */
		if (got > 0) {
			cg->pool -= got;
			b->rem += got;
			cg->bw_idle = false;
		}
	}
	if (b->rem > 0) {
		b->next = rq_next(s, b);
		return false;
	}
	b->thr = true;
	b->seq = ++cg->thr_seq;
	b->thr_next = -1;
	b->thr_prev = cg->nthr ? cg->thr_tail : -1;
	if (cg->nthr)
		cg->brq[cg->thr_tail].thr_next = (int)c;
	else
		cg->thr_head = (int)c;
	cg->thr_tail = (int)c;
	b->thr_since = s->now;
	b->next = SIM_TIME_MAX;
	cg->nthr++;
	cg->tick_flip = true;
	sim_cpu_bw_flip(bw, cg);
	return true;
}

/* tick_event's step for cg's CPU c, in the tick's order: its tick if due, its
 * next into *best; true when its throttling changed */
static inline __attribute__((always_inline)) bool tick_cpu(struct sim *s, struct cpu_bw *bw,
							   struct sim_cg *cg, unsigned c,
							   sim_time *best)
{
	bool changed = false;

	if (c >= cg->brq_n)
		return false;
	if (cg->brq[c].next <= s->now)
		changed = rq_tick(s, bw, cg, c);
	if (cg->brq[c].next < *best)
		*best = cg->brq[c].next;
	return changed;
}

/* cg's event is due: the period timer, the slack timer, the ticks; true when some
 * runqueue's throttling changed. h: the tick's hash, st_known: rq_known's part that
 * is the state's (sim_cpu_tick_due). */
static inline __attribute__((always_inline)) bool tick_event(struct sim *s, struct cpu_bw *bw,
							     struct sim_cg *cg, uint32_t h,
							     bool st_known)
{
	const struct cpu_state *st;
	bool changed = false, known;
	unsigned c, i, c0;

	/* the period timer first: a tick at the same instant draws on the new pool */
	while (s->now >= cg->period_start + cg->period_ns)
		changed |= period_fire(s, bw, cg);
	if (cg->slack_on && cg->slack_at <= s->now) {
		cg->slack_at = SIM_TIME_MAX;
		cg->slack_on = false;
		if (cg->pool > s->cfs_slice &&
		    cg->period_start + cg->period_ns - s->now >= MIN_BW_EXPIRATION)
			changed |= distribute(s, bw, cg);
	}
	/* the CPUs whose tick it is draw in turn, from c0 (sim_cpu_tick_due) */
	c0 = (unsigned)(((uint64_t)h * cg->brq_n) >> 32);
	st = s->cpu_state;
	known = st_known && slot_known(st, cg);
	if (known && st->ncpu <= 64) {
		/* the same order over the CPUs where it has a runqueue (rq_cpus):
		 * those from c0 up, then those below, as the bits of the mask
		 * rotated right by c0 */
		unsigned rot = c0 < 64 ? c0 : 0;
		uint64_t m = cg->rq_cpus;
		sim_time best = cg->period_start + cg->period_ns;

		/* the group's next event too, as sim_cpu_tick_next would find it
		 * now (a runqueue's tick changes no other's next), while the
		 * runqueues' lines are in the cache: the schedule after this event
		 * takes it as it is, unless a recompute in between changes a grant
		 * (sim_cpu_tick_rates computes it again then) */
		if (cg->slack_on && cg->slack_at < best)
			best = cg->slack_at;
		if (rot)
			m = m >> rot | m << (64 - rot);
		/* the first two CPUs straight, the rest in a loop: nearly every
		 * group with a quota has two runqueues, and the loop's exit after
		 * a varying body missed at most events (0.27 M in the hour's first
		 * virtual minute); here both tests go one way */
		if (m) {
			c = ((unsigned)__builtin_ctzll(m) + rot) & 63;
			changed |= tick_cpu(s, bw, cg, c, &best);
			m &= m - 1;
			if (m) {
				c = ((unsigned)__builtin_ctzll(m) + rot) & 63;
				changed |= tick_cpu(s, bw, cg, c, &best);
				for (m &= m - 1; m; m &= m - 1) {
					c = ((unsigned)__builtin_ctzll(m) + rot) & 63;
					changed |= tick_cpu(s, bw, cg, c, &best);
				}
			}
		}
		cg->bw_next = best;
		cg->bw_stale = false;
		return changed;
	} else if (!known) {
		for (i = 0; i < cg->brq_n; i++) {
			c = (c0 + i) % cg->brq_n;
			if (cg->brq[c].next <= s->now)
				changed |= rq_tick(s, bw, cg, c);
		}
	} else {
		/* the same order over the CPUs where it has a runqueue (ascending
		 * CPU): those from c0 up, then those below */
		int pass, q;

		for (pass = 0; pass < 2; pass++)
			for (q = st->g_first[cg->id + 1]; q >= 0; q = st->rq[q].next_of_cg) {
				c = (unsigned)st->rq[q].cpu;
				if (c < cg->brq_n && (c >= c0) == (pass == 0) &&
				    cg->brq[c].next <= s->now)
					changed |= rq_tick(s, bw, cg, c);
			}
	}
	cg->bw_stale = true;
	return changed;
}

bool sim_cpu_tick_due(struct sim *s, struct cpu_bw *bw)
{
	/* the CPUs whose tick it is draw in turn, from a first CPU that follows the
	 * tick's number k as floor(N·frac(k·φ)) (φ the golden ratio; Fibonacci
	 * hashing): in the kernel they race for the pool's lock. A fixed order would
	 * always hand CPU 0 the last slice of a scarce pool; one that moves on one a
	 * tick locks to a period of an even number of ticks (1 s at HZ 250: the same
	 * CPU lost every period's last slice, a 0.196/0.204 split of two siblings the
	 * kernel gives 0.200/0.200); a random one is fair only on average, drifting
	 * by a slice over a few periods. With φ irrational, the first CPU at any fixed
	 * point of a period of P ticks moves on by frac(P·φ) a period, which spreads
	 * the last slices evenly over the CPUs within a few periods, for every P. */
	uint64_t h = (uint64_t)(s->now / sim_cpu_tick_ns(s)) * UINT64_C(0x9E3779B97F4A7C15);
	/* rq_known's part that is the state's: neither it nor the hash changes while
	 * the groups are handled (no event of theirs resets the state or sizes it
	 * again), so both are taken once, not for each of the ~30 groups due at a
	 * tick of the hour's host; and the tick events are inline here, not a call
	 * each (~430 k in its first virtual minute) */
	bool known = state_known(s);
	bool changed = false;
	size_t i, j, n;

	/* Which groups are due, as the bits of a mask per 64 (shifted in from the
	 * last), then those in order: a third are, in no pattern a predictor learns
	 * (the test as a branch missed 0.35 M times in the hour's first virtual
	 * minute, a third of the timers'). The same groups as a test before each: a
	 * group's event writes its own bw_next alone, and no group is removed
	 * meanwhile (a removed one, rare, is skipped by a branch that seldom
	 * goes the other way). */
	for (i = 0; i < bw->nqg; i += 64) {
		const sim_time now = s->now;
		uint64_t m = 0;

		n = bw->nqg - i < 64 ? bw->nqg - i : 64;
		for (j = n; j-- > 0;)
			m = m << 1 | (uint64_t)(bw->qg[i + j]->bw_next <= now);
		for (; m; m &= m - 1) {
			struct sim_cg *cg = bw->qg[i + (unsigned)__builtin_ctzll(m)];

			if (cg->removed)
				continue;
			if (cg->brq)
				changed |= tick_event(s, bw, cg, (uint32_t)(h >> 32), known);
			else
				changed |= sim_cpu_bw_tick(s, bw, cg);
		}
	}
	return changed;
}
