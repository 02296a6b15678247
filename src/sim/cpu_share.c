/* sim/cpu_share.c — the CPU model's proportional share: each CPU's capacity of 1
 * water-filled down its runqueue tree (max-min fair by weight, capped at demand), the
 * tasks' rates and the groups' per-CPU grants it gives, and each group's alloc, its
 * grants summed in CPU order. The rule is described at the top of cpu.c
 * ("Proportional share on one CPU").
 */
#include "sim/cpu_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static inline bool wkey_before(const struct wkey *a, const struct wkey *b)
{
	return a->r < b->r || (a->r == b->r && a->tie < b->tie);
}

static int wkey_cmp(const void *pa, const void *pb)
{
	const struct wkey *a = pa, *b = pb;

	return wkey_before(a, b) ? -1 : wkey_before(b, a) ? 1 : 0;
}

/* Water-fills cap over the entities k[0..n), in that order (by d/w), by weight,
 * capped at demand; each grant goes to v[k[i].i].a. No clamp at 0: each d
 * is above 0 (the gathers take no other), and a clamp (x < 0 ? 0 : x) returns
 * any other min(d, cap) as it is, -0.0 and NaN too. Inlined, as share_back is,
 * in both of share_rq's paths (out of line, their calls were 27 M instructions
 * in the hour's first virtual minute). */
static inline __attribute__((always_inline)) void waterfill(double cap, const struct wkey *k,
							    struct went *v, size_t n)
{
	double W = 0, ratio;
	size_t i;

	if (n == 1) {
		/* alone: its demand or the whole capacity */
		v[0].a = k[0].d < cap ? k[0].d : cap;
		return;
	}
	if (n == 2) {
		/* the loops below for two, unrolled: the same operations in the
		 * same order */
		W += k[0].w;
		W += k[1].w;
		if (cpu_below_fair(k[0].d, cap, k[0].w, W)) {
			v[k[0].i].a = k[0].d;
			cap -= k[0].d;
			W -= k[0].w;
			if (cpu_below_fair(k[1].d, cap, k[1].w, W)) {
				v[k[1].i].a = k[1].d;
				return;
			}
			v[k[1].i].a = k[1].w * (W > 0 && cap > 0 ? cap / W : 0);
			return;
		}
		ratio = W > 0 && cap > 0 ? cap / W : 0;
		v[k[0].i].a = k[0].w * ratio;
		v[k[1].i].a = k[1].w * ratio;
		return;
	}
	for (i = 0; i < n; i++)
		W += k[i].w;
	/* the entities whose demand is below their fair share get it, in order */
	for (i = 0; i < n; i++) {
		double a;

		if (!cpu_below_fair(k[i].d, cap, k[i].w, W))
			break;
		a = k[i].d;
		v[k[i].i].a = a;
		cap -= a;
		W -= k[i].w;
	}
	/* the rest want at least their fair share (they come by ascending d/w, and
	 * giving one its fair share leaves cap/W as it was): each gets its weight
	 * times what is left per unit of weight, one division for all */
	ratio = W > 0 && cap > 0 ? cap / W : 0;
	for (; i < n; i++)
		v[k[i].i].a = k[i].w * ratio;
}

/* Puts y in its place among k[0..n), sorted: the runqueues' entities are few, and
 * most come in or near their place, children by descending id (an equal d/w goes
 * first), tasks by ascending index (last); past 16 they are appended, for qsort. */
static inline void wkey_insert(struct wkey *k, size_t n, const struct wkey *y)
{
	if (n < 16)
		for (; n > 0 && wkey_before(y, &k[n - 1]); n--)
			k[n] = k[n - 1];
	k[n] = *y;
}

/* Makes room in r for n tasks; false (st->run_err: the run fails) when out of
 * memory. */
static bool run_reserve(struct cpu_state *st, struct cpu_run *r, size_t n)
{
	void *v;

	if (n <= r->cap)
		return true;
	n = n < 16 ? 16 : n + n / 2;
	v = ucg_realloc(r->k, n * sizeof(*r->k));
	if (!v) {
		st->run_err = true;
		return false;
	}
	r->k = v;
	r->cap = n;
	return true;
}

/* Makes room in rc for n rqs; false (st->run_err: the run fails) when out of
 * memory. */
static bool reach_reserve(struct cpu_state *st, struct cpu_reach *rc, size_t n)
{
	if (n <= rc->cap || sim_cpu_grow((void **)&rc->q, &rc->cap, n, sizeof(*rc->q)) == 0)
		return true;
	st->run_err = true;
	return false;
}

/* One CPU's share: what every step of it reads and fills, looked up once. */
struct share_ctx {
	struct cpu_state *st;
	struct sim *s;
	sim_time now;
	int64_t ran; /* ns the tasks it settled ran, which idle_ns loses */
};

/* The ends of the CPU's lists the share fills, passed down and returned back (in
 * two registers, not through memory at each call): the rqs it reached (its
 * cpu_reach's array) and the tasks it gave a rate (its cpu_run's). Each has room
 * for all (the CPU's rqs, its queued tasks: sim_cpu_share_cpu), so no appending
 * checks (one at each rq reached was 21 M of the shares' instructions in the
 * hour's first virtual minute). */
struct ends {
	int *q, *k;
};

/* What share_rq would do for q when neither its capacity nor anything below it
 * changed since the share that last reached it (q not chg): every grant and rate
 * comes out as it is, so only the lists are made again, in share_rq's order (child
 * groups by descending id, each followed by its subtree, then the tasks). Inline in
 * share_rq's own write-back, where nearly all replays are (of the users below a
 * CPU's root: 0.39 M calls in the hour's first virtual minute), a call below. */
static struct ends share_replay(struct share_ctx *x, const struct rq *q, struct ends e);

static inline __attribute__((always_inline)) struct ends share_replay_in(struct share_ctx *x,
									 const struct rq *q,
									 struct ends e)
{
	struct cpu_state *st = x->st;
	struct rq *rqs = st->rq;
	int c, k;

	/* q is 0 or RQ_RANKED, which it stays, with its rank. Each rq's grant is
	 * its a_prev already: every share of a CPU leaves the two equal on each
	 * of its rqs (sim_cpu_share_cpu), nothing else writes them, and a new rq
	 * has both 0. */
	for (c = q->first_child; c >= 0; c = rqs[c].next_sib) {
		struct rq *r = &rqs[c];
		int t = r->first_task;

		if (!(r->d > 0))
			continue;
		*e.q++ = c;
		if ((r->chg & RQ_STATE) == RQ_LEAF1) {
			/* its task's rate, min(d, a), is above 0 when the grant is */
			if (r->a_prev > 0)
				*e.k++ = t;
		} else if (r->first_child < 0 && t >= 0 && st->tk[t].next < 0) {
			if (st->tk[t].rate > 0)
				*e.k++ = t;
		} else {
			e = share_replay(x, r, e);
		}
	}
	for (k = q->first_task; k >= 0; k = st->tk[k].next)
		if (st->tk[k].want > 0 && st->tk[k].rate > 0)
			*e.k++ = k;
	return e;
}

static struct ends share_replay(struct share_ctx *x, const struct rq *q, struct ends e)
{
	return share_replay_in(x, q, e);
}

static struct ends share_rq(struct share_ctx *x, struct rq *p, double cap, struct went *v,
			    struct wkey *key, struct ends e);
static struct ends share_ranked(struct share_ctx *x, const struct rq *p, double cap, struct went *v,
				struct wkey *key, struct ends e);

/* One task alone (the common leaf) whose grant ga changed or whose rq was summed:
 * what share_rq would give it, min(demand, grant), without the call. Its demand
 * is the rq's d (0 + want); while the rq is not summed and its grant the same, so
 * is the rate (share_back lists it without reading the task's line, which mostly
 * left the cache since the last share). Returns the task list's end. */
static inline __attribute__((always_inline)) int *leaf1_set(struct share_ctx *x, const struct rq *r,
							    struct cpu_task *y, int t, double ga,
							    int *ke)
{
	/* not below 0, which share_rq's clamp was for: d > 0 (the rq was gathered),
	 * and no grant is (a weight is at least MIN_SHARES, a capacity at least 0) */
	double a = r->d < ga ? r->d : ga;

	/* cpu_rate_set, and the task settles at once, its line in the cache (its
	 * rate is final: sim_cpu_settle_shared), not through the touched list;
	 * unless it is listed there already (its rate was taken before the
	 * shares), when it settles at the recompute's end */
	double was = y->rate;

	if (a != was) {
		y->rate = a;
		if (!y->touched) {
			/* cpu_task_settle and cpu_task_accrue, their test known
			 * true: an untouched task accrues at its rate, acc_rate
			 * == was (a rate written either settles at once, as
			 * here, or touches the task, cpu_rate_set, until
			 * sim_cpu_settle_shared settles it; a task's state
			 * starts with both 0), and a differs from was. So
			 * acc_rate is was, in a register, and neither it nor
			 * the test is loaded (-1% of the hour's instructions).
			 * The same steps as those two, which a change to them
			 * must follow */
			sim_time dt = x->now - y->acc_since;

			y->acc_since = x->now;
			if (!(dt <= 0 || was <= 0 || y->dead)) {
				int64_t ns = (int64_t)(was * (double)dt + 0.5);

				if (ns > 0) {
					y->pend += ns;
					x->ran += ns;
					if (!y->plisted)
						sim_cpu_task_list(x->s, x->st, t);
				}
			}
			if (y->cpu != y->acc_cpu) {
				if (y->pend)
					sim_cpu_task_pass(x->s, x->st, t);
				y->acc_cpu = y->cpu;
			}
			y->acc_rate = a;
		}
	}
	/* min(d, ga) > 0: d > 0 */
	if (ga > 0)
		*ke++ = t;
	return ke;
}

/* One child group of a runqueue, its grant v->a just water-filled: the grant goes
 * to its rq and down its subtree, unless the subtree needs a water-fill of its
 * own (share_ranked's or share_rq's): then it returns the rq, its state in *chp,
 * for share_back's callers to call the one they inline or the other (top: the
 * replay inline too, in share_rq's own write-back). The lists' ends are values,
 * not fields behind x: the byte stores (a group's flags, an rq's chg) may alias
 * any memory, so the compiler loaded them again after each. The branches follow
 * the cases (a materialised "same grant" flag cost ~9 instructions a child). */
static inline __attribute__((always_inline)) struct rq *back_one(struct share_ctx *x,
								 const struct went *v,
								 struct ends *e, unsigned char *chp,
								 bool top)
{
	struct cpu_state *st = x->st;
	int id = v->id;
	struct rq *r = &st->rq[id];
	struct cpu_task *tk = st->tk;
	double ga = v->a;
	unsigned char ch = r->chg & RQ_STATE;
	int t;

	*e->q++ = id;
	if (ga == r->a_prev) {
		/* its grant is ga already (share_replay) */
		if (ch == RQ_LEAF1) {
			/* its task's rate, min(d, a), is as it was */
			if (ga > 0)
				*e->k++ = r->first_task;
			return NULL;
		}
		if (ch != RQ_CHG) {
			*e = top ? share_replay_in(x, r, *e) : share_replay(x, r, *e);
			return NULL;
		}
	} else {
		/* cpu_mark_alloc (one in five of the grants that change) */
		unsigned char *fl = st->g_flags;
		unsigned char f = fl[r->slot];

		r->a = ga;
		if (!(f & (G_ALLOC | G_RWAIT))) {
			fl[r->slot] = f | G_ALLOC;
			st->alloc_list[st->nalloc++] = r->slot;
		}
		r->a_prev = ga;
	}
	/* its grant or something below it changed */
	t = r->first_task;
	if (ch == RQ_LEAF1) {
		e->k = leaf1_set(x, r, &tk[t], t, ga, e->k);
		return NULL;
	}
	if (ch == RQ_CHG && r->first_child < 0 && t >= 0 && tk[t].next < 0) {
		/* a lone task's now: its rank kept */
		r->chg = (unsigned char)((r->chg & ~RQ_STATE) | RQ_LEAF1);
		e->k = leaf1_set(x, r, &tk[t], t, ga, e->k);
		return NULL;
	}
	*chp = ch;
	return r;
}

/* The grants v[0..nc) of a runqueue's child groups, just water-filled (scratch
 * from vf and kf free), go to their rqs and down their subtrees (back_one). */
static inline __attribute__((always_inline)) struct ends share_back(struct share_ctx *x,
								    const struct went *v, size_t nc,
								    struct went *vf,
								    struct wkey *kf, struct ends e)
{
	const struct went *ve = v + nc;

	for (; v < ve; v++) {
		unsigned char ch;
		struct rq *r = back_one(x, v, &e, &ch, false);

		if (!r)
			continue;
		if (ch == RQ_RANKED)
			e = share_ranked(x, r, v->a, vf, kf, e);
		else
			e = share_rq(x, r, v->a, vf, kf, e);
	}
	return e;
}

/* A runqueue RQ_RANKED at its last share, not summed since: its children and
 * their d and w are those that share water-filled (a sum of it or of anything
 * below it makes it RQ_CHG), so their order is the one it found, noted in each
 * child's chg. Each entity goes to its place at once: no d/w, no compares, no
 * moves (84% of the hour's users' shares: their grant moved with the weights
 * at the root, not what they hold). Its tasks were no entity then (it
 * is RQ_RANKED only when none was), nor are they now. Returns the count. */
static inline size_t gather_ranked(const struct cpu_state *st, const struct rq *p, struct wkey *key,
				   struct went *v)
{
	struct went *vp = v;
	size_t n = 0;
	int c;

	for (c = p->first_child; c >= 0; c = st->rq[c].next_sib) {
		const struct rq *r = &st->rq[c];
		struct wkey *y;

		if (!(r->d > 0))
			continue;
		/* &key[chg >> RQ_RANK_SHIFT]: the rank's bits as they sit in chg,
		 * times the key's size over 1 << RQ_RANK_SHIFT (one shift, not two) */
		y = (struct wkey *)((char *)key +
				    (size_t)(r->chg & ~RQ_STATE) * (sizeof(*key) >> RQ_RANK_SHIFT));
		y->w = r->w;
		y->d = r->d;
		y->i = (uint32_t)n++;
		vp->id = c;
		vp++;
		/* its first task's line, which the write-back reads when the
		 * grant changed (a lone task's settle), asked for now: the
		 * water-fill runs in between (~1% of the hour's time) */
		if (r->first_task >= 0)
			__builtin_prefetch(&st->tk[r->first_task]);
	}
	return n;
}

/* share_rq for a runqueue RQ_RANKED (gather_ranked), which it stays, its
 * children's ranks as they are: its own function, called by the write-back
 * for what the state it read says (share_rq is never called for one; a CPU's
 * root is never RQ_RANKED). Inline in share_rq's own write-back, where nearly
 * all are (the users below a CPU's root), a call below: the calls' saves and
 * restores were a tenth of its instructions. */
static inline __attribute__((always_inline)) struct ends share_ranked_in(struct share_ctx *x,
									 const struct rq *p,
									 double cap, struct went *v,
									 struct wkey *key,
									 struct ends e)
{
	size_t n = gather_ranked(x->st, p, key, v);

	/* one child (0.29 M of the 0.89 M in the hour's first virtual minute):
	 * the water-fill's and the write-back's steps for one, straight, not
	 * their loops, whose exits at a varying n are mispredicted */
	if (n == 1) {
		waterfill(cap, key, v, 1);
		e = share_back(x, v, 1, v + 1, key + 1, e);
	} else if (n) {
		waterfill(cap, key, v, n);
		e = share_back(x, v, n, v + n, key + n, e);
	}
	return e;
}

static struct ends share_ranked(struct share_ctx *x, const struct rq *p, double cap, struct went *v,
				struct wkey *key, struct ends e)
{
	return share_ranked_in(x, p, cap, v, key, e);
}

/* Shares cap CPUs of runqueue p among its entities (v and key: the free part of
 * the scratch, st->wf and st->wk); each group entity's grant is noted in its rq,
 * which joins its CPU's reached list. */
static struct ends share_rq(struct share_ctx *x, struct rq *p, double cap, struct went *v,
			    struct wkey *key, struct ends e)
{
	struct cpu_state *st = x->st;
	struct wkey y;
	const struct went *vi;
	struct went *vp = v;
	size_t n = 0, nc, i;
	int c, k;

	for (c = p->first_child; c >= 0; c = st->rq[c].next_sib) {
		const struct rq *r = &st->rq[c];

		if (!(r->d > 0))
			continue;
		y.w = r->w;
		y.d = r->d;
		y.r = y.d / y.w;
		y.tie = (uint32_t)r->slot; /* id + 1: the same order */
		y.i = (uint32_t)n;
		vp->id = c;
		vp++;
		wkey_insert(key, n++, &y);
	}
	nc = n;
	for (k = p->first_task; k >= 0; k = st->tk[k].next)
		if (st->tk[k].want > 0) {
			y.w = NICE0;
			y.d = st->tk[k].want;
			y.r = y.d / y.w;
			y.tie = (uint32_t)st->tid[k] | 1u << 31;
			y.i = (uint32_t)n;
			v[n].id = k;
			wkey_insert(key, n++, &y);
		}
	/* the order is total, so any sort gives the same sequence */
	if (n > 16)
		qsort(key, n, sizeof(*key), wkey_cmp);
	/* The children's ranks noted for the next share, when it may find it
	 * unsummed: not at a CPU's root (no parent), which every share of the CPU
	 * finds summed (what makes a CPU be shared again sums an rq, and every
	 * sum marks the rqs up to the root). Its own rank, in its parent's
	 * order, stays. */
	if (p->parent >= 0 && n == nc && n <= RQ_RANK_MAX) {
		for (i = 0; i < n; i++) {
			struct rq *r = &st->rq[v[key[i].i].id];

			r->chg = (unsigned char)((r->chg & RQ_STATE) | i << RQ_RANK_SHIFT);
		}
		p->chg = (unsigned char)((p->chg & ~RQ_STATE) | RQ_RANKED);
	} else {
		p->chg &= (unsigned char)~RQ_STATE;
	}
	if (!n)
		return e;
	waterfill(cap, key, v, n);
	/* share_back, with the water-fill of a child RQ_RANKED inline (the users
	 * below a CPU's root, 0.9 M calls in the hour's first virtual minute) */
	for (vi = v; vi < v + nc; vi++) {
		unsigned char ch;
		struct rq *r = back_one(x, vi, &e, &ch, true);

		if (!r)
			continue;
		if (ch == RQ_RANKED)
			e = share_ranked_in(x, r, vi->a, v + n, key + n, e);
		else
			e = share_rq(x, r, vi->a, v + n, key + n, e);
	}
	for (i = nc; i < n; i++) {
		cpu_rate_set(st, v[i].id, v[i].a);
		if (v[i].a > 0)
			*e.k++ = v[i].id;
	}
	return e;
}

/* The lengths of the common head and tail of a[0..na) and b[0..nb), which do not
 * overlap in the shorter (the head na when a is all of b's head). Mostly a share
 * lists what the last did, which memcmp tells with a few instructions per 16
 * entries; else a task or group that came or went made its rqs differ. Inlined
 * in its one caller's two places: as a call, the caller's values kept across it
 * went to the stack and back. */
static inline __attribute__((always_inline)) size_t same_ends(const int *a, size_t na, const int *b,
							      size_t nb, size_t *tail)
{
	size_t h = 0, t = 0, i, m = na < nb ? na : nb;

	*tail = 0;
	if (!na || (na <= nb && memcmp(a, b, na * sizeof(*a)) == 0))
		return na;
	if (!nb)
		return 0;
	/* two entries a compare (the lists run to a few dozen); where a pair
	 * differs, whether its first entry is common is added, not looped on, and
	 * so is the odd entry left at the end: a second loop's exit, at a place
	 * that varies, missed as often as the first's (0.27 M in the hour's first
	 * virtual minute). Where no entry is left, index 0 (both lists have one
	 * now) is read instead and its result masked. */
	for (; h + 2 <= m; h += 2) {
		uint64_t x, y;

		memcpy(&x, a + h, sizeof(x));
		memcpy(&y, b + h, sizeof(y));
		if (x != y)
			break;
	}
	i = h < m ? h : 0;
	h += (size_t)(h < m) & (size_t)(a[i] == b[i]);
	for (; t + 2 <= m - h; t += 2) {
		uint64_t x, y;

		memcpy(&x, a + na - 2 - t, sizeof(x));
		memcpy(&y, b + nb - 2 - t, sizeof(y));
		if (x != y)
			break;
	}
	i = t < m - h ? t : 0;
	t += (size_t)(t < m - h) & (size_t)(a[na - 1 - i] == b[nb - 1 - i]);
	*tail = t;
	return h;
}

/* Whether CPU c's share would change nothing: since its last, only its root's
 * children's weights changed (st->shallow), and its root, with no task of its own,
 * wants under its capacity of 1 by a margin. Then the water-fill gives each child
 * its demand: each d_i < fair_i = cap_i·w_i/W_i, where cap_i is 1 less the demands
 * before it and W_i the weights from it on, for in the water-fill's order (by d/w)
 * d_i/w_i <= D_i/W_i, D_i the demands from it on, and D_i <= cap_i - 1e-6. The
 * rounding in cap_i (at most one ulp of 1 a step) and in W_i (relative to W_i, at
 * most n ulps times W/W_i, n·w_max/w_min: with at most 64 entities and weights
 * from 2 to 2^18, below 1e-7) is far inside the margin. The children's demands
 * did not change since the last share (none was summed), nor did the root's, so
 * that share gave them the same grants, their demands, and so did every replay
 * below: the lists it made stand. */
static bool share_unchanged(const struct cpu_state *st, unsigned c)
{
	int root = st->cpu_root[c];

	return st->shallow[c] && root >= 0 && st->cpu_nrq[c] <= 64 && st->rq[root].first_task < 0 &&
	       st->rq[root].d <= 1.0 - 1e-6;
}

#ifdef UCG_SIM_SHALLOW_CHECK
static void share_cpu_real(struct sim *s, struct cpu_state *st, unsigned c);

/* The debug build's check of share_unchanged: the share, run, changes nothing. */
void sim_cpu_share_cpu(struct sim *s, struct cpu_state *st, unsigned c)
{
	if (share_unchanged(st, c)) {
		size_t nq = st->reach[c].n, nk = st->runs[c].n, na = st->nalloc;
		size_t nt = st->ntouched, i;
		int *q = malloc((nq + 1) * sizeof(int)), *k = malloc((nk + 1) * sizeof(int));
		double *rt = malloc((nk + 1) * sizeof(double));
		int64_t idle = s->idle_ns;

		memcpy(q, st->reach[c].q, nq * sizeof(int));
		memcpy(k, st->runs[c].k, nk * sizeof(int));
		for (i = 0; i < nk; i++)
			rt[i] = st->tk[k[i]].rate;
		share_cpu_real(s, st, c);
		if (st->reach[c].n != nq || st->runs[c].n != nk || st->nalloc != na ||
		    st->ntouched != nt || s->idle_ns != idle ||
		    memcmp(q, st->reach[c].q, nq * sizeof(int)) ||
		    memcmp(k, st->runs[c].k, nk * sizeof(int)))
			abort();
		for (i = 0; i < nk; i++)
			if (rt[i] != st->tk[k[i]].rate)
				abort();
		free(q);
		free(k);
		free(rt);
		return;
	}
	share_cpu_real(s, st, c);
}

/* Shares CPU c again: its tasks lose their rates and its groups their grants, then
 * the root's capacity of 1 is water-filled down its tree. Only the groups whose
 * grant here changed sum their alloc again (the sum of the same grants in the same
 * order is the same): most groups of a busy host get their demand, whatever the
 * weights above them do. */
static void share_cpu_real(struct sim *s, struct cpu_state *st, unsigned c)
#else
void sim_cpu_share_cpu(struct sim *s, struct cpu_state *st, unsigned c)
#endif
{
	struct cpu_run *r = &st->runs[c];
	struct cpu_reach *rc = &st->reach[c];
	size_t i, p, t, nold = rc->n, cold = rc->cap, nk = r->n, ck = r->cap;
	int *old = rc->q, *oldk = r->k;

#ifndef UCG_SIM_SHALLOW_CHECK
	if (share_unchanged(st, c)) {
		/* what the share would leave: its root not summed since */
		st->rq[st->cpu_root[c]].chg &= (unsigned char)~RQ_STATE;
		st->reshare[c] = false;
		s->cpu_share_skips++;
		return;
	}
#endif

	/* the last share's arrays become the scratch, the scratch this share's */
	r->k = st->oldk;
	r->cap = st->coldk;
	r->n = 0;
	st->oldk = oldk;
	st->coldk = ck;
	rc->q = st->oldr;
	rc->cap = st->coldr;
	rc->n = 0;
	st->oldr = old;
	st->coldr = cold;
	/* The rqs the last share reached, mostly those this one reaches again:
	 * their lines asked for at once. The walks below would otherwise miss on
	 * each in turn, down dependent chains (a child's line gives the next
	 * child's index), and few are in the L1 cache: the other CPUs' shares ran
	 * since this one's last. On the hour's host: ~5% of the time. Its tasks'
	 * lines too were slower (some 2%): the walk reaches them late, and the
	 * requests in flight are few. */
	for (i = 0; i < nold; i++)
		__builtin_prefetch(&st->rq[old[i]]);
	if (st->cpu_root[c] >= 0 && run_reserve(st, r, st->cq[c].n) &&
	    reach_reserve(st, rc, st->cpu_nrq[c])) {
		struct share_ctx x = { st, s, s->now, 0 };
		struct ends e = { rc->q, r->k };

		e = share_rq(&x, &st->rq[st->cpu_root[c]], 1.0, st->wf, st->wk, e);
		s->idle_ns -= x.ran;
		rc->n = (size_t)(e.q - rc->q);
		r->n = (size_t)(e.k - r->k);
	}
	/* The tasks the last share gave a rate and this one did not lose it, if still
	 * queued here (one that left lost its rate then, and may have its new CPU's
	 * already): the rates come out as when all were set to 0 first. Mostly the
	 * share lists the same tasks in the same order, and the common head and tail
	 * of the two lists need no look at their tasks. */
	p = same_ends(oldk, nk, r->k, r->n, &t);
	if (p < nk && p + t == r->n) {
		/* none came between the common ends (two in three of the lists that
		 * differ: a task throttled or gone): the old ones between are all
		 * unlisted now, as the stamps below would say, so the generation,
		 * the stamping loop and its test are skipped; the same rates set */
		for (i = p; i < nk - t; i++) {
			int k = oldk[i];

			if (st->tk[k].q >= 0 && st->rq[st->tk[k].q].cpu == (int)c)
				cpu_rate_set(st, k, 0);
		}
	} else if (p < nk) {
		if (++st->share_gen == 0) {
			for (i = 0; i < st->ntk; i++)
				st->tk[i].rgen = 0;
			st->share_gen = 1;
		}
		for (i = p; i < r->n - t; i++)
			st->tk[r->k[i]].rgen = st->share_gen;
		for (i = p; i < nk - t; i++) {
			int k = oldk[i];

			if (st->tk[k].rgen != st->share_gen && st->tk[k].q >= 0 &&
			    st->rq[st->tk[k].q].cpu == (int)c)
				cpu_rate_set(st, k, 0);
		}
	}
	/* The rqs reached before and not now lost their grant here: 0, as when every
	 * grant was taken back first (the share reads no grant, only a_prev, which
	 * every reached rq's grant equals after it). Those between the common head and
	 * tail of the two lists are zeroed and the reached ones given theirs back,
	 * then their changes noted, the latest reached first, as when the rqs were a
	 * list pushed at its head. Zeroing every grant before the share cost a pass
	 * over all of them, and a second store to each rq's line. */
	p = same_ends(old, nold, rc->q, rc->n, &t);
	if (p < nold && p + t == rc->n) {
		/* none came between the common ends (two in three of the lists that
		 * differ: a group's rq throttled or emptied): none is given its
		 * grant back, so each old one is zeroed and its change noted in one
		 * pass, the latest first, the same marks as the passes below */
		for (i = nold - t; i-- > p;) {
			struct rq *o = &st->rq[old[i]];

			o->a = 0;
			if (o->a != o->a_prev) {
				cpu_mark_alloc(st, o->slot);
				o->a_prev = o->a;
			}
		}
	} else if (p < nold) {
		for (i = p; i < nold - t; i++)
			st->rq[old[i]].a = 0;
		for (i = p; i < rc->n - t; i++)
			st->rq[rc->q[i]].a = st->rq[rc->q[i]].a_prev;
		for (i = nold - t; i-- > p;) {
			struct rq *o = &st->rq[old[i]];

			if (o->a != o->a_prev) {
				cpu_mark_alloc(st, o->slot);
				o->a_prev = o->a;
			}
		}
	}
	st->reshare[c] = false;
	/* a run out of memory has failed: the lists may be short */
	st->shallow[c] = !st->run_err;
}

static double grants_sum(const struct cpu_state *st, int idx)
{
	double a = 0;
	int q;

	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg)
		a += st->rq[q].a;
	return a;
}

/* A group's alloc (and rate): its grants summed in CPU order. Only a group with a
 * quota under the fluid model acts on its rate (its runtime); for any other the
 * rate is only read by the tests' digest and the v2 split, so its sum waits for
 * them (sim_cpu_rates_fresh) or for the next reading of the quotas, which may give
 * it one or change its model. The grants do not change in between, so the sum is
 * the one it would have been: on the hour's host the parents, on every CPU, and
 * the groups without a quota were nine in ten of the sums. A group of the tick
 * model (which acts on its grants per CPU) hands them to its tick state at once;
 * its sum waits too, which spares the write of the group's alloc line (0.36 M D1
 * misses in the hour's first virtual minute) and a second walk of its rqs. */
static inline void rate_stale(struct cpu_state *st, int idx, unsigned char wait)
{
	if (!(st->g_flags[idx] & G_RATE)) {
		st->g_flags[idx] |= G_RATE | wait;
		st->rstale[st->nrstale++] = idx;
	}
}

void sim_cpu_alloc_sum(struct sim *s, struct cpu_state *st, struct sim_cg *cg, bool all)
{
	int idx = cg->id + 1;
	double a;

	if (cg->brq)
		sim_cpu_tick_rates(s, st, cg, all);
	if (cg->brq || !(cg->quota_ns > 0)) {
		rate_stale(st, idx, cg->brq ? 0 : G_RWAIT);
		return;
	}
	a = grants_sum(st, idx);
	cg->alloc = a;
	sim_cpu_bw_rate(s, cg, a);
}

void sim_cpu_alloc_list(struct sim *s, struct cpu_state *st)
{
	/* G_ALLOC cleared as each is summed, not in a pass after: no sum marks a
	 * group for one, so the list does not grow here (nor do the arrays move:
	 * kept in locals, which the byte stores would otherwise make the compiler
	 * load again at each step) */
	const int *list = st->alloc_list;
	const unsigned char *bw = s->cg_bw;
	unsigned char *fl = st->g_flags;
	int *rs = st->rstale;
	size_t i, n = st->nalloc, nrs = st->nrstale;

	for (i = 0; i < n; i++) {
		int idx = list[i];
		unsigned char f = fl[idx] & (unsigned char)~G_ALLOC;

		if (idx && bw[idx - 1]) {
			fl[idx] = f;
			st->nrstale = nrs;
			sim_cpu_alloc_sum(s, st, s->cgs[idx - 1], false);
			nrs = st->nrstale;
			continue;
		}
		if (idx && !(f & G_RATE)) {
			/* neither the group's pointer nor its struct read */
			f |= G_RATE | G_RWAIT;
			rs[nrs++] = idx;
		}
		fl[idx] = f;
	}
	st->nrstale = nrs;
	st->nalloc = 0;
}

void sim_cpu_rates_fresh(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t i;

	for (i = 0; st && i < st->nrstale; i++) {
		int idx = st->rstale[i];
		struct sim_cg *cg = s->cgs[idx - 1];

		st->g_flags[idx] &= (unsigned char)~(G_RATE | G_RWAIT);
		/* what sim_cpu_bw_rate did for a group without a quota or tick state */
		cg->alloc = grants_sum(st, idx);
		cg->rate = cg->alloc;
	}
	if (st)
		st->nrstale = 0;
}

void sim_cpu_alloc_tree(struct sim *s, struct cpu_state *st, struct sim_cg *cg)
{
	size_t i;

	sim_cpu_alloc_sum(s, st, cg, true);
	for (i = 0; i < cg->nchildren; i++)
		sim_cpu_alloc_tree(s, st, cg->children[i]);
}
