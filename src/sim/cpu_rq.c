/* sim/cpu_rq.c — the CPU model's per-CPU runqueues (the state's tables are sized
 * and reset in cpu_state.c): a group's runqueue on each CPU made when it first has
 * something there, tasks queued and dequeued in index order, each runqueue's sums
 * (load, demand), and each group's weight on each CPU, w_G(c) = max(2, S · L_G(c) /
 * Σ L_G), with its link into its parent's runqueue there (the kernel's
 * calc_group_shares at steady load averages). Only what is marked dirty is summed
 * again. The rules are described at the top of cpu.c ("Per-CPU runqueues",
 * "Incremental recompute").
 */
#include "sim/cpu_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

#define MIN_SHARES 2.0

/* Doubles the rq array, aligned to a cache line as struct rq is (no realloc
 * keeps an alignment); -ENOMEM. */
static int rq_grow(struct cpu_state *st)
{
	size_t n = st->crq ? st->crq * 2 : 16;
	struct rq *v = ucg_realloc_aligned(st->rq, st->nrq * sizeof(*v), n * sizeof(*v),
					   _Alignof(struct rq), &st->rq_mem);

	if (!v)
		return -ENOMEM;
	st->rq = v;
	st->crq = n;
	return 0;
}

/* In the list of group idx's rqs (ascending CPU), the link to its first rq on cpu
 * or a higher CPU: with the (slot, CPU) index, that of its rq on the highest CPU
 * below, a look at a few ints where the walk read the second cache line of every
 * rq before it (a parent has one on each of 64 CPUs). Below 64 CPUs that CPU is
 * the group's (cg, NULL for the hierarchy-less root) highest in rq_cpus below
 * cpu, with no scan of the index's row, whose varying length missed (~110 k rqs
 * made and dropped in the hour's first virtual minute); taken as a hint, as the
 * index is: the test below sends anything else to the walk. */
static int *rq_link_at(struct cpu_state *st, int idx, const struct sim_cg *cg, int cpu)
{
	int *pp = &st->g_first[idx], c;

	if (st->slot && (unsigned)cpu < st->slot_ncpu) {
		const int *ix = st->slot + (size_t)idx * st->slot_ncpu;

		if (cg && (unsigned)cpu < 64) {
			uint64_t m = cg->rq_cpus & ((1ull << cpu) - 1);

			if (m && ix[c = 63 - __builtin_clzll(m)] >= 0)
				pp = &st->rq[ix[c]].next_of_cg;
		} else {
			for (c = cpu; c-- > 0;)
				if (ix[c] >= 0) {
					pp = &st->rq[ix[c]].next_of_cg;
					break;
				}
		}
		if (*pp < 0 || st->rq[*pp].cpu >= cpu)
			return pp;
		pp = &st->g_first[idx]; /* not as the index says: the walk */
	}
	for (; *pp >= 0 && st->rq[*pp].cpu < cpu; pp = &st->rq[*pp].next_of_cg)
		;
	return pp;
}

static int rq_make(struct cpu_state *st, int idx, struct sim_cg *cg, int cpu);

/* A made rq before its group, CPU and slot: zeros, unlinked, no task */
static const struct rq rq_fresh = {
	.parent = -1,
	.first_child = -1,
	.next_sib = -1,
	.first_task = -1,
};

/* The rq of the group in slot idx on cpu, made (empty, dirty) if it has none yet;
 * -1 when out of memory. The index's look inline, the rest out of line. */
static inline int rq_get(struct cpu_state *st, int idx, struct sim_cg *cg, int cpu)
{
	int i;

	if (st->slot) {
		i = st->slot[(size_t)idx * st->slot_ncpu + (size_t)cpu];
		if (i >= 0)
			return i;
	}
	return rq_make(st, idx, cg, cpu);
}

static __attribute__((noinline)) int rq_make(struct cpu_state *st, int idx, struct sim_cg *cg,
					     int cpu)
{
	const struct rq *fresh;
	struct rq *q;
	int i, *pp;

	if (!st->slot) {
		for (i = st->g_first[idx]; i >= 0; i = st->rq[i].next_of_cg)
			if (st->rq[i].cpu == cpu)
				return i;
	}
	if (st->free_rq >= 0) {
		i = st->free_rq;
		st->free_rq = st->rq[i].next_of_cg;
	} else {
		if (st->nrq == st->crq && rq_grow(st) < 0)
			return -1;
		i = (int)st->nrq++;
	}
	st->cpu_nrq[cpu]++;
	q = &st->rq[i];
	/* copied from a template: a memset of the 128 bytes is a rep stos, whose
	 * steps cachegrind counts as a loop's branches (its exit missed at nearly
	 * every one of the ~57 k rqs made in the hour's first virtual minute), and
	 * which a core starts up slowly for so few bytes; the copy is 8 loads and
	 * stores (from a template it cannot look into: knowing it zeros, the
	 * compiler made the copy a rep stos again) */
	fresh = &rq_fresh;
#if defined(__GNUC__)
	__asm__("" : "+r"(fresh));
#endif
	*q = *fresh;
	q->cg = cg;
	q->cpu = cpu;
	q->slot = idx;
	/* the group's rqs stay in CPU order: its sums run in CPU order */
	pp = rq_link_at(st, idx, cg, cpu);
	q->next_of_cg = *pp;
	*pp = i;
	if ((unsigned)cpu < 64 && cg)
		cg->rq_cpus |= 1ull << cpu;
	if (st->slot)
		st->slot[(size_t)idx * st->slot_ncpu + (size_t)cpu] = i;
	cpu_mark_dirty(st, i);
	return i;
}

/* The marks a group's redo leaves on its parent's rqs (~1 M a virtual minute on
 * the hour's host), all of one slot: each rq's dirty flag and its CPU's reshare as
 * they come, the slot's CPU mask, flag and bit once at the redo's end (pmark_flush,
 * before the parent's redo, which comes later: its slot is lower). */
struct pmark {
	uint64_t m; /* CPUs below 64 of the rqs marked */
	int slot;
};

/* p, the parent's rq on cpu, is to be summed again */
static inline void pmark_add(struct cpu_state *st, struct pmark *pk, int p, int cpu)
{
	if ((unsigned)cpu < 64) {
		st->rq[p].dirty = true;
		st->reshare[cpu] = true;
		pk->m |= 1ull << cpu;
		pk->slot = st->rq[p].slot;
	} else {
		cpu_mark_dirty_on(st, p, cpu);
	}
}

static inline void pmark_flush(struct cpu_state *st, struct pmark *pk)
{
	uint64_t m;

	if (pk->m) {
		st->gr[pk->slot].dmask |= pk->m;
		st->hmask |= pk->m;
		cpu_mark_group(st, pk->slot);
		/* marks below a CPU's root: not only its children's weights moved
		 * there (st->shallow; the shares come after every redo) */
		if (pk->slot != st->root_slot)
			for (m = pk->m; m; m &= m - 1)
				st->shallow[__builtin_ctzll(m)] = false;
	}
}

/* Unlinks q, on cpu, from its parent's list of children (its parent's sums are
 * redone). */
static inline __attribute__((always_inline)) void rq_unlink(struct cpu_state *st, int q, int cpu,
							    struct pmark *pk)
{
	int p = st->rq[q].parent, *pp;

	for (pp = &st->rq[p].first_child; *pp != q; pp = &st->rq[*pp].next_sib)
		;
	*pp = st->rq[q].next_sib;
	st->rq[q].parent = st->rq[q].next_sib = -1;
	st->shallow[cpu] = false;
	pmark_add(st, pk, p, cpu);
}

/* Links q into the rq p of its parent group on the same CPU cpu, by descending id. */
static inline __attribute__((always_inline)) void rq_link(struct cpu_state *st, int q, int p,
							  int cpu, struct pmark *pk)
{
	int *pp;

	for (pp = &st->rq[p].first_child; *pp >= 0 && st->rq[*pp].slot > st->rq[q].slot;
	     pp = &st->rq[*pp].next_sib)
		;
	st->rq[q].next_sib = *pp;
	*pp = q;
	st->rq[q].parent = p;
	st->shallow[cpu] = false;
	pmark_add(st, pk, p, cpu);
}

/* Takes task k off its rq and its CPU. */
void sim_cpu_task_dequeue(struct sim *s, struct cpu_state *st, int k)
{
	int q = st->tk[k].q, *pp;
	struct cpu_queue *cq;
	size_t i;

	for (pp = &st->rq[q].first_task; *pp != k; pp = &st->tk[*pp].next)
		;
	*pp = st->tk[k].next;
	cq = &st->cq[st->rq[q].cpu];
	for (i = 0; cq->k[i] != k; i++)
		;
	memmove(cq->k + i, cq->k + i + 1, (cq->n - i - 1) * sizeof(*cq->k));
	cq->n--;
	st->tk[k].q = -1;
	cpu_rate_set(st, k, 0); /* a rate is its CPU's to give */
	cpu_mark_dirty(st, q);
}

/* Queues task k on the rq of slot idx (group cg) on cpu; -ENOMEM. */
static int task_enqueue(struct cpu_state *st, int k, int idx, struct sim_cg *cg, int cpu)
{
	struct cpu_queue *cq = &st->cq[cpu];
	int q, *pp;
	size_t i;

	if (sim_cpu_grow((void **)&cq->k, &cq->cap, cq->n + 1, sizeof(*cq->k)) < 0)
		return -ENOMEM;
	q = rq_get(st, idx, cg, cpu);
	if (q < 0)
		return -ENOMEM;
	for (pp = &st->rq[q].first_task; *pp >= 0 && *pp < k; pp = &st->tk[*pp].next)
		;
	st->tk[k].next = *pp;
	*pp = k;
	for (i = cq->n; i > 0 && cq->k[i - 1] > k; i--)
		cq->k[i] = cq->k[i - 1];
	cq->k[i] = k;
	cq->n++;
	st->tk[k].q = q;
	cpu_mark_dirty(st, q);
	return 0;
}

/* Sums q's load and demand again: its tasks by index, then its children by
 * descending id (the order a full rebuild adds them in). Inline, as rq_link and
 * rq_unlink are: ~470 k sums and ~350 k links and unlinks a virtual minute on the
 * hour's host, whose calls cost as much as a short child list's walk. top: q is a
 * root's rq, never linked (root_redo's: 247 k of the sums), whose walk up is
 * itself alone. */
static inline __attribute__((always_inline)) void rq_sum(struct cpu_state *st, int q, bool top)
{
	struct rq *r = &st->rq[q];
	double load = 0, d = 0;
	int k, c;

	for (k = r->first_task; k >= 0; k = st->tk[k].next) {
		load += NICE0 * st->tk[k].want;
		d += st->tk[k].want;
	}
	for (c = r->first_child; c >= 0; c = st->rq[c].next_sib) {
		load += st->rq[c].wu;
		d += st->rq[c].d;
	}
	if (d != r->d)
		r->up = true;
	r->load = load;
	r->d = d;
	r->dirty = false;
	/* the share may not replay it or any runqueue above it (cpu_share.c); always
	 * up to the root: a flag left set on an rq the share did not reach must not
	 * stop the walk */
	if (top) {
		r->chg = true;
		return;
	}
	for (; q >= 0; q = st->rq[q].parent)
		st->rq[q].chg = true;
}

/* An rq's u, min(1, d), for its entity's w·u. Opaque to the compiler: seeing
 * w·min(1, d) it computes w·d or takes w as it is, by a branch on d < 1 that the
 * users' d (on either side of 1 from one CPU to the next) made miss ~120 k times
 * in the hour's first virtual minute; a value it cannot look into is one minsd,
 * the same bits (d is never a NaN). */
static inline double rq_u(double d)
{
	double u = d < 1 ? d : 1;

#if defined(__SSE2__)
	__asm__("" : "+x"(u));
#elif defined(__GNUC__)
	__asm__("" : "+r"(u));
#endif
	return u;
}

/* Lazy weights (the tick model). In the kernel a group entity's weight on a CPU,
 * calc_group_shares' S·L_c / (tg->load_avg - contrib_c + L_c), is computed on that
 * CPU's own events (enqueue, dequeue, throttle, its tick) from the total the group's
 * runqueues last published (update_tg_load_avg), not on every CPU at once. So here:
 * a runqueue publishes its load P_c = L_c whenever it changes (so Σ P is the eager
 * model's Σ L) and, then or when the group's shares change, computes its weight
 * S·L_c / Σ P (its own contribution being its load, the kernel's formula gives
 * that); the group's other runqueues keep the weight they last computed. The groups
 * that kept a weight while their total moved are listed (st->lz_gst), and their
 * weights computed with another total are computed again at the refresh, the first
 * recompute at or after the boundary of `set weight_refresh` ticks (16, 64 ms at HZ
 * 250, by default) following the recompute that left the first of them stale (the
 * CPU timer fires then, so a quiet machine gets there too); after it every weight is
 * the eager model's. The kernel's remote weights lag a load that arrives by ~20 ms
 * and one that leaves by ~115 ms (its blocked load decays over PELT's 32 ms
 * half-life): 16 ticks, a 32 ms mean lag either way, lies between the two, nearer
 * over both than 8 ticks (16 ms) (docs/kernel/controllers.md §2.3; docs/design.md).
 * The entries live by (slot, CPU) in st->lz, not in the runqueues: a full recompute
 * rebuilds the runqueues but keeps them, so it computes what the incremental one
 * does. */
static inline struct lz_ent *lz_at(struct cpu_state *st, int idx, int cpu)
{
	return &st->lz[(size_t)idx * st->lz_ncpu + (size_t)cpu];
}

/* A weight was kept while its group's total moved: the refresh is due at the
 * next boundary of its period after now. */
static void lz_stale(struct sim *s, struct cpu_state *st, int idx)
{
	sim_time per;

	if (!st->lz_gst[idx]) {
		st->lz_gst[idx] = 1;
		st->lz_gl[st->nlz_gl++] = idx;
	}
	if (st->lz_stale)
		return;
	per = sim_cpu_lz_period(s);
	st->lz_stale = true;
	st->lz_next = (s->now / per + 1) * per;
}

/* q's entity in its parent's rq after a redo: weight w (before the floor of 2),
 * min(1, d) u; unlinked when empty or throttled on its CPU cpu (q's, passed: it is
 * on q's second cache line, which the refresh does not otherwise read), linked
 * when it was not, the parent's rq marked when what it sums changed. A linked rq's
 * u is min(1, d) as of its last relink unless up is set (d changes only in
 * rq_sum, which sets up; up is cleared only after a relink or an unlink), so w
 * and up say whether w·u moved. Inlined in the redos' loops (1.6 M calls a
 * virtual minute on the hour's host, a quarter of whose instructions were the
 * call's entry and exit). */
static inline __attribute__((always_inline)) int rq_relink(struct cpu_state *st, struct sim_cg *g,
							   int q, int cpu, double w, double u,
							   struct pmark *pk)
{
	struct rq *r = &st->rq[q];

	if (w < MIN_SHARES)
		w = MIN_SHARES;
	if ((r->first_task < 0 && r->first_child < 0) || sim_cpu_tick_thr(g, cpu)) {
		/* empty: its load and d are exact zeros, which its parent's sums
		 * need not see; off the parent's list, as in a full rebuild.
		 * Throttled on this CPU alone (the tick model): dequeued there */
		if (r->parent >= 0)
			rq_unlink(st, q, cpu, pk);
		if (r->first_task < 0 && r->first_child < 0 && !r->gone) {
			/* (the call only to grow: ~170 k empty rqs a virtual minute) */
			if (st->ngone < st->cgone ||
			    sim_cpu_grow((void **)&st->gone, &st->cgone, st->ngone + 1,
					 sizeof(int)) == 0) {
				st->rq[q].gone = true; /* dropped at the end if still empty */
				st->gone[st->ngone++] = q;
			} else {
				/* every redo looks at it again: not the dirty rqs alone */
				st->g_flags[r->slot] &= (unsigned char)~G_LZOK;
			}
		}
	} else if (r->parent < 0) {
		int p = rq_get(st, g->parent->id + 1, g->parent, cpu);

		if (p < 0)
			return -ENOMEM;
		r = &st->rq[q]; /* rq_get may have moved the array */
		r->w = w;
		r->wu = w * u;
		rq_link(st, q, p, cpu, pk);
	} else if (w != r->w || r->up) {
		r->w = w;
		r->wu = w * u;
		pmark_add(st, pk, r->parent, cpu);
	}
	return 0;
}

/* group_redo under lazy weights (a group with a parent, not throttled by the fluid
 * model): one walk of its rqs sums the dirty ones and publishes the loads that
 * changed (rq.lzch), forming the total Σ P in CPU order; then only the rqs that
 * published, were summed or are throttled per CPU (a group with a quota) are
 * relinked: any other has the weight, d and link it had. A weight was kept while
 * the total moved when some non-empty rq did not publish and the total differs
 * from the group's last (g_redo.tot; a kept weight's total was the group's total
 * when it was computed, and every later move of it passed through here). */
/* group_redo_lazy's walk over one rq: summed if dirty, its load published if it
 * changed, whether it is to be relinked (rq.lzvis); its ne and act brought up to
 * date in the group's counts when counted is set. row: the group's entries (lz_at
 * at CPU 0), found once per redo, not once per rq. */
static inline __attribute__((always_inline)) void lazy_visit(struct cpu_state *st, int idx,
							     struct lz_ent *row, struct sim_cg *g,
							     int q, bool all, bool counted)
{
	struct rq *r = &st->rq[q];
	struct lz_ent *e = &row[r->cpu];
	bool dirty = r->dirty, ne, act;

	if (dirty)
		rq_sum(st, q, false);
	r->lzch = r->load != e->load || g->shares != e->shares;
	if (r->lzch) {
		e->load = r->load;
		e->shares = g->shares;
		st->lz_ld[(size_t)idx * st->lz_ncpu + (size_t)r->cpu] = r->load;
	}
	ne = r->first_task >= 0 || r->first_child >= 0;
	r->lzvis = r->lzch || dirty || r->up || all || (!ne && !r->gone);
	act = r->d > 0;
	if (counted) {
		st->gr[idx].ne += (int)ne - (int)r->ne;
		st->gr[idx].act += (int)act - (int)r->act;
	}
	r->ne = ne;
	r->act = act;
}

/* Adds the loads of CPUs c (a multiple of 8) to n to *total in CPU order, noting in
 * bpre the sum below each block of 8 on the way. */
static inline void lz_block_sums(const double *ld, double *bpre, unsigned c, unsigned n,
				 double *total)
{
	double t = *total;

	for (; c + 8 <= n; c += 8) {
		const double *e = ld + c;

		bpre[c / 8] = t;
		/* one after the other, as in the loop below */
		t += e[0];
		t += e[1];
		t += e[2];
		t += e[3];
		t += e[4];
		t += e[5];
		t += e[6];
		t += e[7];
	}
	if (c < n)
		bpre[c / 8] = t;
	for (; c < n; c++)
		t += ld[c];
	*total = t;
}

/* A group with many rqs (a parent, on every CPU) whose redo is not a relink of all:
 * only the rqs marked dirty since its last redo can publish or be relinked (any
 * other has its load, weight and link, up is clear and it is not an empty one
 * waiting to be dropped), so only they are walked. The total, Σ P in CPU order, is
 * formed again from the block of 8 CPUs of the first of them on, from the sums
 * kept below each block (st->lz_bpre: over every CPU, those without an rq adding
 * exact zeros, so the same bits as the sum over the group's rqs, and the same
 * additions in the same order as from CPU 0); the counts of non-empty and active
 * rqs are kept (G_LZOK holds them and the sums; cleared when the entries are
 * cleared or the group is redone another way). On the hour's host this walks ~4 of
 * a parent's 64 rqs at each of its redos between two refreshes. At the refresh it
 * also computes again the weights whose total is not the group's: those are among
 * the CPUs of its tmask, and only their entries are read, not the clean rqs (a
 * walk of all a user's 64 rqs, each of whose two lines it read, at every refresh
 * was 0.7 M of the 1.2 M rq visits of the redos in the hour's first minute). */
static int group_redo_dirty(struct sim *s, struct cpu_state *st, int idx, struct sim_cg *g,
			    uint64_t dm, struct pmark *pk)
{
	struct lz_ent *row = lz_at(st, idx, 0);
	double *ld = st->lz_ld + (size_t)idx * st->lz_ncpu;
	const int *ix = st->slot + (size_t)idx * st->slot_ncpu;
	unsigned c, kept, npub = 0;
	struct g_redo *gr = &st->gr[idx];
	double total = gr->tot;
	uint64_t m, tm = gr->tmask;
	bool refresh = st->lz_refresh;
	double sh = g->shares; /* (once: the loops' stores may alias it) */

	for (m = dm; m; m &= m - 1) {
		int q = ix[__builtin_ctzll(m)];

		if (q < 0)
			continue;
		lazy_visit(st, idx, row, g, q, false, true);
		if (st->rq[q].lzch && st->rq[q].ne)
			npub++;
	}
	if (dm) {
		/* from the sum below the first dirty rq's block of 8 CPUs: the same
		 * additions in the same order as from CPU 0; the sums it writes are on
		 * one line (a running sum in every entry made the entries 40 bytes
		 * and wrote to every line of the row from the first dirty one on) */
		double *bpre = st->lz_bpre + (size_t)idx * 8;

		c = (unsigned)__builtin_ctzll(dm) & ~7u;
		total = bpre[c / 8];
		lz_block_sums(ld, bpre, c, st->lz_ncpu, &total);
	}
	g->nr_active = (unsigned)gr->act;
	/* the non-empty rqs that did not publish: all but those that did */
	kept = (unsigned)gr->ne - npub;
	if (kept && !refresh && total != gr->tot)
		lz_stale(s, st, idx);
	if (total != gr->tot)
		tm = g->rq_cpus; /* any entry not written below may differ from it */
	gr->tot = total;
	if (refresh && (tm & ~dm) && !g->brq) {
		/* The refresh of the clean rqs (up clear: set only by a sum), each
		 * weight from the load it published: ~540 k in the hour's first
		 * virtual minute (the 10 users on 64 CPUs at each refresh), nearly
		 * all of them linked and not empty, where rq_relink only stores the
		 * weight and marks the parent. That case runs here on locals (a
		 * relink's byte stores made the compiler load the state's arrays
		 * again at every rq), before the loop below, which takes the dirty
		 * rqs and any other clean one, in CPU order as before: what this
		 * one does to one CPU's rqs is all it does, so the order between
		 * CPUs is not seen. No rq is throttled (no tick state), none made
		 * (its parent's rq exists), the parent's marks all of one slot. */
		struct rq *rqs = st->rq;
		bool *rsh = st->reshare;
		const bool tpos = total > 0;
		uint64_t pm = 0, left = 0;
		int lastp = 0;

		for (m = tm & ~dm; m; m &= m - 1) {
			struct lz_ent *e;
			struct rq *r;
			double w, wm;
			int q;

			c = (unsigned)__builtin_ctzll(m);
			e = &row[c];
			if (e->tot == total || (q = ix[c]) < 0)
				continue;
			r = &rqs[q];
			/* unlinked (parent < 0), or empty (first_task and
			 * first_child < 0): rq_relink's other cases, below; as
			 * one sign test of the three indexes */
			if ((r->parent | (r->first_task & r->first_child)) < 0) {
				left |= 1ull << c;
				continue;
			}
			w = tpos ? sh * e->load / total : sh;
			e->w = w;
			e->tot = total;
			wm = w < MIN_SHARES ? MIN_SHARES : w;
			if (wm != r->w || r->up) {
				r->w = wm;
				r->wu = wm * rq_u(r->d);
				/* pmark_add, its CPU below 64 */
				lastp = r->parent;
				rqs[lastp].dirty = true;
				rsh[c] = true;
				pm |= 1ull << c;
			}
		}
		if (pm) {
			pk->m |= pm;
			pk->slot = rqs[lastp].slot;
		}
		tm = (tm & dm) | left;
	}
	for (m = refresh ? dm | tm : dm; m; m &= m - 1) {
		int q;
		struct rq *r;
		struct lz_ent *e;
		bool vis, fresh;
		double w;

		c = (unsigned)__builtin_ctzll(m);
		e = &row[c];
		if (!(dm >> c & 1)) {
			/* the refresh of a clean rq (up clear: set only by a
			 * sum), its weight from the load it published */
			if (e->tot == total || (q = ix[c]) < 0)
				continue;
			w = total > 0 ? sh * e->load / total : sh;
			e->w = w;
			e->tot = total;
			r = &st->rq[q];
			if (rq_relink(st, g, q, (int)c, w, rq_u(r->d), pk) < 0)
				return -ENOMEM;
			continue;
		}
		q = ix[c];
		if (q < 0)
			continue;
		r = &st->rq[q];
		vis = r->lzvis;
		fresh = (vis && r->lzch) || (refresh && e->tot != total);
		if (!vis && !fresh)
			continue;
		if (fresh) {
			w = total > 0 ? sh * r->load / total : sh;
			e->w = w;
			e->tot = total;
			tm &= ~(1ull << c);
		} else {
			w = e->w;
		}
		if (rq_relink(st, g, q, (int)c, w, rq_u(r->d), pk) < 0)
			return -ENOMEM;
		st->rq[q].up = false;
	}
	/* after the refresh every entry's tot is the total */
	gr->tmask = refresh ? 0 : tm;
	return 0;
}

/* A relink of all (the tick model's flips of a quota group: 166 k redos in the hour's
 * first virtual minute) of a group with no rq marked dirty since its last redo (a
 * bit per CPU: at most 64), its entries in step (G_LZSYNC: all published by its last
 * walk, with one shares, which the first tells) and its shares the same, outside the
 * refresh. A walk of all would publish nothing (a load changes only in a sum, of a
 * dirty rq), form the total it kept (the same loads in the same order, less dropped
 * rqs' zeros), leave no weight stale, compute none, find every ne, act and count as
 * they were (tasks and children mark the rq) and up clear (set by a sum, cleared by
 * the relink after it): only the relinks, with each rq's last weight, are left. */
static int group_relink_clean(struct cpu_state *st, int idx, struct sim_cg *g,
			      const struct lz_ent *row, struct pmark *pk)
{
	int q = st->g_first[idx]; /* >= 0: the caller's test */
	struct rq *r = &st->rq[q];

	/* The first two rqs written out, each test of a next rq a branch of its
	 * own: a quota group has two busy loops, on two CPUs in 142 k of these
	 * 143 k relinks, and a loop's one test of its end, after a relink that
	 * changed one rq or the other, missed about one time in two. */
	if (rq_relink(st, g, q, r->cpu, row[r->cpu].w, rq_u(r->d), pk) < 0)
		return -ENOMEM;
	q = st->rq[q].next_of_cg;
	if (q < 0)
		return 0;
	r = &st->rq[q];
	if (rq_relink(st, g, q, r->cpu, row[r->cpu].w, rq_u(r->d), pk) < 0)
		return -ENOMEM;
	for (q = st->rq[q].next_of_cg; q >= 0; q = st->rq[q].next_of_cg) {
		r = &st->rq[q];
		if (rq_relink(st, g, q, r->cpu, row[r->cpu].w, rq_u(r->d), pk) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int group_redo_lazy(struct sim *s, struct cpu_state *st, int idx, struct sim_cg *g,
			   struct pmark *pk)
{
	struct lz_ent *row = lz_at(st, idx, 0); /* its entries, by CPU */
	double total = 0;
	unsigned active = 0, kept = 0, n = 0, ne = 0;
	unsigned char fl = st->g_flags[idx];
	/* the refresh of a group without G_LZOK relinks every rq, as a relink
	 * of all does */
	bool all = g->brq || (fl & G_RELINK) || ((fl & G_REFR) && !(fl & G_LZOK));
	uint64_t dm = st->gr[idx].dmask, tm = 0;
	int q;

	st->gr[idx].dmask = 0;
	if (!all && (fl & G_LZOK) && st->slot)
		return group_redo_dirty(s, st, idx, g, dm, pk);
	q = st->g_first[idx];
	if (!dm && (fl & G_LZSYNC) && !st->lz_refresh && st->lz_ncpu <= 64 && q >= 0 &&
	    row[st->rq[q].cpu].shares == g->shares)
		return group_relink_clean(st, idx, g, row, pk);
	st->g_flags[idx] &= (unsigned char)~(G_LZOK | G_LZSYNC);
	for (; q >= 0; q = st->rq[q].next_of_cg) {
		struct rq *r = &st->rq[q];

		lazy_visit(st, idx, row, g, q, all, false);
		if (r->ne && !r->lzch)
			kept++;
		total += row[r->cpu].load;
		if (r->act)
			active++;
		ne += r->ne;
		n++;
	}
	g->nr_active = active;
	if (kept && !st->lz_refresh && total != st->gr[idx].tot)
		lz_stale(s, st, idx);
	st->gr[idx].tot = total;
	/* not in a full recompute: its rebuilt rqs are not all those whose entries
	 * hold a load (the entries of the others are swept at its end), and the
	 * sums by block of lz_ld would count those */
	if (!s->cpu_full && n > 8 && st->lz_ncpu <= 64 && st->slot &&
	    st->slot_ncpu == st->lz_ncpu) {
		/* the sums below each block of 8 CPUs, for the redos of its dirty rqs */
		double pre = 0;

		lz_block_sums(st->lz_ld + (size_t)idx * st->lz_ncpu, st->lz_bpre + (size_t)idx * 8,
			      0, st->lz_ncpu, &pre);
		st->gr[idx].ne = (int)ne;
		st->gr[idx].act = (int)active;
		st->g_flags[idx] |= G_LZOK;
	} else {
		/* not with G_LZOK: a redo of the dirty rqs alone would publish
		 * theirs with the shares of the time, the others' keeping theirs */
		st->g_flags[idx] |= G_LZSYNC;
	}
	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
		struct rq *r = &st->rq[q];
		struct lz_ent *e;
		double w;
		bool stale;

		e = &row[r->cpu];
		stale = e->tot != total;
		if (!r->lzvis && !(st->lz_refresh && stale)) {
			tm |= (uint64_t)stale << (r->cpu & 63);
			continue;
		}
		if (r->lzch || (st->lz_refresh && stale)) {
			w = total > 0 ? (double)g->shares * r->load / total : g->shares;
			e->w = w;
			e->tot = total;
		} else {
			w = e->w; /* the weight it last computed */
			tm |= (uint64_t)stale << (r->cpu & 63);
		}
		if (rq_relink(st, g, q, r->cpu, w, rq_u(r->d), pk) < 0)
			return -ENOMEM;
		st->rq[q].up = false;
	}
	if (st->g_flags[idx] & G_LZOK) /* read only then: CPUs below 64 */
		st->gr[idx].tmask = tm;
	return 0;
}

/* A root's rq on one CPU after its sums: the CPU's root, up clear (nothing above
 * it reads d). */
static inline void root_set(struct cpu_state *st, int q)
{
	st->cpu_root[st->rq[q].cpu] = q;
	st->root_load[st->rq[q].cpu] = st->rq[q].load;
	st->rq[q].up = false;
}

/* The root group's redo (a hierarchy's root, or the hierarchy-less one): its dirty
 * rqs summed, its count of CPUs with demand. It has an rq on every busy CPU and is
 * redone at almost every recompute, for the ~14 CPUs whose trees changed: its
 * rqs' two cache lines each, walked on all 64 CPUs, were 0.9 M of the redos' 7 M
 * D1 misses in the hour's first 60 virtual seconds. So after one walk of all
 * (G_LZOK: the count of active rqs kept, rq.act each one's part) only the rqs
 * marked dirty since its last redo (g_redo.dmask) are visited: any other was not
 * summed, so its d, its CPU's root (set at the redo that summed it when it was
 * made) and its clear up are what they were. */
static int root_redo(struct cpu_state *st, int idx, struct sim_cg *g)
{
	uint64_t dm = st->gr[idx].dmask, m;
	unsigned active = 0;
	int q;

	st->gr[idx].dmask = 0;
	if ((st->g_flags[idx] & G_LZOK) && st->slot) {
		const int *ix = st->slot + (size_t)idx * st->slot_ncpu;
		int act = st->gr[idx].act;

		for (m = dm; m; m &= m - 1) {
			unsigned c = (unsigned)__builtin_ctzll(m);
			struct rq *r;

			q = ix[c];
			if (q < 0)
				continue;
			r = &st->rq[q];
			if (r->dirty)
				rq_sum(st, q, true);
			act -= r->act;
			r->act = r->d > 0;
			act += r->act;
			/* root_set, its CPU known */
			st->cpu_root[c] = q;
			st->root_load[c] = r->load;
			r->up = false;
		}
		st->gr[idx].act = act;
		if (g)
			g->nr_active = (unsigned)act;
		return 0;
	}
	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
		if (st->rq[q].dirty)
			rq_sum(st, q, true);
		st->rq[q].act = st->rq[q].d > 0;
		active += st->rq[q].act;
	}
	if (g)
		g->nr_active = active;
	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg)
		root_set(st, q);
	/* the dirty marks cover every rq only with a bit for each CPU */
	if (st->slot && st->slot_ncpu <= 64 && st->ncpu <= 64) {
		st->gr[idx].act = (int)active;
		st->g_flags[idx] |= G_LZOK;
	}
	return 0;
}

/* Redoes a dirty group: its dirty rqs' sums, its CPU count, and each rq's weight
 * shares·L_c/ΣL (at least 2, the way CFS spreads a group's shares over the CPUs its
 * tasks run on) and link into its parent's rq there; a throttled group is unlinked
 * on every CPU. A change the parent's sums see marks the parent's rq dirty. */
static int group_redo(struct sim *s, struct cpu_state *st, int idx, struct pmark *pk)
{
	struct sim_cg *g = idx ? s->cgs[idx - 1] : NULL;
	/* the root of the rqs' hierarchy (the only group of it without a parent)
	 * or the hierarchy-less one: told by the state, not by g->parent, on the
	 * group's second cache line, which a lazy redo does not otherwise read */
	bool top = !g || (st->hi ? g == st->hi->root : !g->parent);
	double total = 0;
	unsigned active = 0;
	int q;

	if (st->lz_on && !top && !g->throttled)
		return group_redo_lazy(s, st, idx, g, pk);
	if (top)
		return root_redo(st, idx, g);
	st->gr[idx].dmask = 0;
	st->g_flags[idx] &= (unsigned char)~(G_LZOK | G_LZSYNC); /* sums not published */
	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
		if (st->rq[q].dirty)
			rq_sum(st, q, false);
		total += st->rq[q].load;
		if (st->rq[q].d > 0)
			active++;
	}
	g->nr_active = active;
	if (g->throttled) {
		/* dequeued from its parent on every CPU */
		for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
			if (st->rq[q].parent >= 0)
				rq_unlink(st, q, st->rq[q].cpu, pk);
			st->rq[q].up = false;
		}
		return 0;
	}
	for (q = st->g_first[idx]; q >= 0; q = st->rq[q].next_of_cg) {
		struct rq *r = &st->rq[q];
		double w = total > 0 ? (double)g->shares * r->load / total : g->shares;
		double u = rq_u(r->d);

		if (rq_relink(st, g, q, r->cpu, w, u, pk) < 0)
			return -ENOMEM;
		st->rq[q].up = false;
	}
	return 0;
}

/* Redoes every dirty group, children before parents (a child's id is above its
 * parent's), then reads the CPUs' root loads. */
int sim_cpu_groups_redo(struct sim *s, struct cpu_state *st)
{
	uint32_t hg;
	unsigned c;
	int idx, wi;

	/* the dirty slots' bits, highest first: a redo marks only lower slots (its
	 * parent's), in this word or a lower one */
	for (wi = st->gmax_dirty >= 0 ? st->gmax_dirty / 64 : -1; wi >= 0; wi--)
		while (st->gdirty[wi]) {
			struct pmark pk = { 0, 0 };
			int err;

			idx = wi * 64 + 63 - __builtin_clzll(st->gdirty[wi]);
			st->gdirty[wi] &= ~(1ull << (idx % 64));
			err = group_redo(s, st, idx, &pk);
			pmark_flush(st, &pk);
			if (err < 0)
				return -ENOMEM;
			st->g_flags[idx] &= (unsigned char)~(G_RELINK | G_REFR);
		}
	st->gmax_dirty = -1;
	/* 0 where a CPU has no root rq (a root rq is never dropped) */
	memcpy(st->cpu_load, st->root_load, s->nr_cpus * sizeof(*st->cpu_load));
	/* What task_h_load reads (the loads, weights, links and roots of a CPU's
	 * rqs) changes only in the redos, and only on CPUs where an rq was marked
	 * dirty since the last (each change marks one there, or is a dirty rq's
	 * sum, and every dirty rq is summed): those get a new stamp, one for all
	 * of them, here rather than at each change (1.5 M stamps in the hour's
	 * first virtual minute). The stamps are only compared for equality. Above
	 * 64 CPUs, every CPU to be shared again is stamped: a CPU stamped with
	 * nothing changed merely drops what it kept, which task_h_load computes
	 * again to the same bits. */
	hg = cpu_h_next(st);
	if (s->nr_cpus <= 64) {
		uint64_t m;

		for (m = st->hmask; m; m &= m - 1)
			st->hgen[__builtin_ctzll(m)] = hg;
	} else {
		for (c = 0; c < s->nr_cpus; c++)
			if (st->reshare[c])
				st->hgen[c] = hg;
	}
	st->rsmask |= st->hmask;
	st->hmask = 0;
	st->order_ok = false; /* the balancer sorts the CPUs again */
	return 0;
}

void sim_cpu_rqs_drop(struct cpu_state *st)
{
	size_t i;

	for (i = 0; i < st->ngone; i++) {
		int q = st->gone[i], *pp;
		struct rq *r = &st->rq[q];

		r->gone = false;
		if (r->first_task >= 0 || r->first_child >= 0 || r->parent >= 0 || r->dirty ||
		    r->a != 0 || r->d != 0 || st->cpu_root[r->cpu] == q)
			continue;
		pp = rq_link_at(st, r->slot, r->cg, r->cpu);
		for (; *pp != q; pp = &st->rq[*pp].next_of_cg) /* (q is there: no step) */
			;
		*pp = r->next_of_cg;
		if ((unsigned)r->cpu < 64 && r->cg)
			r->cg->rq_cpus &= ~(1ull << r->cpu);
		if (st->slot)
			st->slot[(size_t)r->slot * st->slot_ncpu + (size_t)r->cpu] = -1;
		if (st->lz_on && (size_t)r->slot < st->lz_nslots) {
			/* it published its load of 0 when it emptied (its group's redo
			 * saw it dirty), so the sums of loads below each block, and its
			 * lz_ld, stay */
			memset(lz_at(st, r->slot, r->cpu), 0, sizeof(struct lz_ent));
		}
		st->cpu_nrq[r->cpu]--;
		r->cpu = -1; /* skipped by the index rebuilds */
		r->next_of_cg = st->free_rq;
		st->free_rq = q;
	}
	st->ngone = 0;
}

/* The task's rq slot: its cpu cgroup (the root when it has none), or the
 * hierarchy-less root */
static inline int task_slot(struct sim_cg *cg)
{
	return cg ? cg->id + 1 : 0;
}

/* Queues task k where its group and t->cpu say, if it is not there yet. */
int sim_cpu_task_place(struct sim *s, struct cpu_state *st, int k, struct sim_cg *cg)
{
	int q = st->tk[k].q, cpu = s->tasks[k]->cpu;

	if (q >= 0 && st->rq[q].cpu == cpu && st->rq[q].slot == task_slot(cg))
		return 0;
	if (q >= 0)
		sim_cpu_task_dequeue(s, st, k);
	return task_enqueue(st, k, task_slot(cg), cg, cpu);
}
