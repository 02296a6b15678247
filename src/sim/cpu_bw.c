/* sim/cpu_bw.c — the CPU model's CFS bandwidth timers: each group with a quota
 * (cpu.cfs_quota_us / cpu.cfs_period_us) gets its runtime each period, uses it at its
 * rate (Σ of its grants, which cpu_share.c computes), and is throttled when it runs out,
 * until the next period; cpu.stat and cpu.stat.local are told as the kernel counts
 * them. The rules and the rounding are described at the top of cpu.c ("CFS
 * bandwidth", "cpu.stat"). Work per event: a look at each group with a quota (no walk
 * of the whole tree), a division for each group whose rate changed.
 */
#include "sim/cpu_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

#define RUNTIME_EPS 1000 /* ns: below this a quota counts as used up */

/* Takes what cg used since rt_since, at its rate then, off its runtime_left. */
static void runtime_settle(struct sim *s, struct sim_cg *cg)
{
	sim_time dt = s->now - cg->rt_since;

	cg->rt_since = s->now;
	if (dt > 0 && cg->rate > 0)
		cg->runtime_left -= (int64_t)(cg->rate * (double)dt + 0.5);
}

/* cg's next CFS event: its period's end, or the instant its runtime runs out at
 * its rate (rounded up: used up at, not before, that instant). Its inputs change
 * only with its rate, period, runtime or throttling, each of which calls this. */
static void bw_calc(struct sim_cg *cg)
{
	sim_time pend = cg->period_start + cg->period_ns;

	if (cg->brq) {
		cg->bw_stale = true; /* the tick model's: computed when next asked */
		return;
	}
	cg->bw_next = pend;
	if (!cg->throttled && cg->rate > 0) {
		double left = (double)(cg->runtime_left > 0 ? cg->runtime_left : 0);
		sim_time d, room = pend - cg->rt_since;

		/* not before the period's end: skipped without the division (the margin
		 * covers every rounding, so the quotient below would say so too) */
		if (room <= 0 || left >= (double)room * cg->rate * (1 + 1e-9))
			return;
		d = (sim_time)(left / cg->rate);
		if ((double)d * cg->rate < left)
			d++;
		if (cg->rt_since + d < pend)
			cg->bw_next = cg->rt_since + d;
	}
}

/* A group with a quota takes the time used at its old rate off its runtime before
 * the rate changes (rounded then, so only where the rate's value changes: the same
 * instants in an incremental recompute and a full one). */
void sim_cpu_bw_rate(struct sim *s, struct sim_cg *cg, double a)
{
	if (a == cg->rate)
		return;
	if (cg->brq) {
		cg->rate = a; /* the tick model reads the grants per CPU (cpu_tick.c) */
		return;
	}
	if (cg->quota_ns > 0)
		runtime_settle(s, cg);
	cg->rate = a;
	if (cg->quota_ns > 0)
		bw_calc(cg);
}

/* refresh_quota's walk down cg's subtree; false when the list could not grow */
static bool refresh_quota(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg)
{
	size_t i;

	sim_cg_refresh(s, cg);
	if (cg->quota_ns != cg->q_seen || cg->period_ns != cg->p_seen ||
	    sim_cpu_tick_needed(s, cg)) {
		cg->q_seen = cg->quota_ns;
		cg->p_seen = cg->period_ns;
		if (cg->brq || s->cpu_tick)
			sim_cpu_tick_reset(s, bw, cg);
		if (cg->quota_ns > 0) {
			/* a new or changed quota starts a fresh period now; it is counted
			 * when it ends (and only if the group ran in it), as cpu.stat's
			 * nr_periods counts it: the summary's figure must be cpu.stat's */
			cg->period_start = s->now;
			cg->runtime_left = cg->quota_ns;
			cg->rt_since = s->now;
		}
		if (cg->throttled && cg->quota_ns <= 0) {
			cg->throttled = false;
			cg->throttled_ns += s->now - cg->throttled_since;
		}
		if (cg->quota_ns > 0)
			bw_calc(cg);
	}
	if (cg->quota_ns > 0) {
		if (sim_cpu_grow((void **)&bw->qg, &bw->cqg, bw->nqg + 1, sizeof(*bw->qg)) < 0)
			return false;
		bw->qg[bw->nqg++] = cg;
	}
	for (i = 0; i < cg->nchildren; i++)
		if (!refresh_quota(s, bw, cg->children[i]))
			return false;
	return true;
}

int sim_cpu_bw_refresh(struct sim *s, struct cpu_bw *bw, struct sim_hier *hi)
{
	bw->nqg = 0;
	return !hi || refresh_quota(s, bw, hi->root) ? 0 : -ENOMEM;
}

/* The earliest CFS event of the groups with a quota (a removed group has none:
 * it left the tree, and runs nothing) */
static sim_time next_change(struct sim *s, const struct cpu_bw *bw)
{
	sim_time best = SIM_TIME_MAX;
	size_t i;

	for (i = 0; i < bw->nqg; i++) {
		if (bw->qg[i]->bw_stale)
			bw->qg[i]->bw_next = sim_cpu_tick_next(s, bw->qg[i]);
		if (bw->qg[i]->bw_next < best && !bw->qg[i]->removed)
			best = bw->qg[i]->bw_next;
	}
	return best;
}

/* Tells the controller about a throttled interval of dur ns (wall time) from each
 * throttled runqueue's perspective: cg's own cpu.stat.local and its descendants' grow
 * by dur on each CPU where they had runnable tasks. */
static void local_throttled(struct sim *s, struct sim_cg *cg, int64_t dur, unsigned ncpu)
{
	size_t i;

	if (ncpu) {
		cg->local_throttled_ns += dur * ncpu;
		ucg_cpu_account_local(cg->ucg, (uint64_t)(dur * ncpu));
	}
	for (i = 0; i < cg->nchildren; i++)
		local_throttled(s, cg->children[i], dur, cg->children[i]->nr_active);
}

/* sim_cpu_bw_flip without room: the list grows. Without room to grow, the next
 * recompute checks every group. */
void sim_cpu_bw_flip_grow(struct cpu_bw *bw, struct sim_cg *cg)
{
	if (sim_cpu_grow((void **)&bw->flip, &bw->cflip, bw->nflip + 1, sizeof(int)) < 0) {
		bw->flip_lost = true;
		return;
	}
	bw->flip[bw->nflip++] = cg->id + 1;
}

/* Period boundaries and a quota running out, at now, for one group whose next CFS
 * event is due; true when its throttling changed (the rates must be recomputed). */
bool sim_cpu_bw_tick(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg)
{
	bool changed = false;

	runtime_settle(s, cg);
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
			sim_cpu_bw_flip(bw, cg);
			/* throttled_time sums the throttled runqueues, one per CPU */
			cg->throttled_ns += thr * cg->thr_cpus;
			local_throttled(s, cg, thr, cg->thr_cpus);
		}
		if (active) {
			cg->nr_periods++;
			ucg_cpu_account_period(cg->ucg, was, (uint64_t)(thr * cg->thr_cpus), 0);
		}
	}
	if (!cg->throttled && cg->runtime_left <= RUNTIME_EPS && cg->rate > 0) {
		changed = true;
		cg->throttled = true;
		sim_cpu_bw_flip(bw, cg);
		cg->nr_throttled++;
		cg->throttled_since = s->now;
		cg->thr_cpus = cg->nr_active ? cg->nr_active : 1;
	}
	bw_calc(cg);
	return changed;
}

int sim_cpu_bw_schedule(struct sim *s, struct cpu_bw *bw)
{
	const struct cpu_state *st = s->cpu_state;
	sim_time at = next_change(s, bw);

	/* the tick model's lazy weights: their refresh (cpu_rq.c) */
	if (st && st->lz_on && st->lz_stale && st->lz_next < at)
		at = st->lz_next;
	/* and its balancer's next round (cpu_balance.c) */
	if (st && st->lz_on && st->lb_pending && st->lb_next < at)
		at = st->lb_next;
	return at == SIM_TIME_MAX ? 0 : sim_schedule(s, at, &s->cpu_ev, ++s->cpu_gen);
}

void sim_cpu_bw_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct cpu_bw *bw = sim_cpu_bw_of(s);
	const struct cpu_state *st;
	bool changed;

	(void)src;
	if (arg != s->cpu_gen || !bw || !sim_hier_of(s, UCG_SS_cpu))
		return;
	/* only the groups whose next event is due */
	changed = sim_cpu_tick_due(s, bw);
	st = s->cpu_state;
	if (st->lz_on &&
	    ((st->lz_stale && st->lz_next <= s->now) || (st->lb_pending && st->lb_next <= s->now)))
		changed = true; /* the lazy weights' refresh, the balancer's round */
	if (changed) {
		sim_cpu_throttling_changed(s); /* the recompute schedules the next */
		return;
	}
	/* only new periods began: the rates hold, the next change moves */
	if (sim_cpu_bw_schedule(s, bw) < 0)
		sim_fail(s, 0, -ENOMEM, "cpu model");
}

void sim_cpu_bw_fini(struct cpu_bw *bw)
{
	ucg_free(bw->qg);
	ucg_free(bw->flip);
	memset(bw, 0, sizeof(*bw));
}
