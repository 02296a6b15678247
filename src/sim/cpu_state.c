/* sim/cpu_state.c — the CPU model's state sized for the tasks, group slots and
 * CPUs there are (sim_cpu_state_reserve): its per-task, per-slot and per-CPU
 * arrays and the (slot, CPU) index of the runqueues (cpu_rq.c), grown as the
 * simulation grows, new entries empty; the lazy weights' table (cpu_rq.c), sized,
 * cleared and its refresh noted before each recompute; the state's reset, which
 * drops every runqueue, and the h_load stamps' counter.
 */
#include "sim/cpu_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

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
int sim_cpu_state_reserve(struct cpu_state *st, size_t ntasks, size_t nslots, size_t ncpu)
{
	size_t i;

	if (ntasks > st->ctk) {
		size_t n = ntasks + ntasks / 2 + 16;
		void **arr[] = { (void **)&st->mask, (void **)&st->any,   (void **)&st->moved,
				 (void **)&st->rt,   (void **)&st->moves, (void **)&st->touched,
				 (void **)&st->tid };
		size_t sz[] = { sizeof(uint64_t), sizeof(bool), sizeof(uint32_t), sizeof(int),
				sizeof(int),      sizeof(int),  sizeof(int) };

		struct cpu_task *v;

		if (resize_all(arr, sz, sizeof(sz) / sizeof(sz[0]), n) < 0)
			return -ENOMEM;
		/* aligned to a cache line (cpu_state.tk) */
		v = ucg_realloc_aligned(st->tk, st->ntk * sizeof(*v), n * sizeof(*v), 64,
					&st->tk_mem);
		if (!v)
			return -ENOMEM;
		st->tk = v;
		st->ctk = n;
	}
	for (i = st->ntk; i < ntasks; i++) {
		st->tk[i].q = -1;
		st->moved[i] = 0;
		st->tk[i].want = 0;
		st->tk[i].touched = 0;
		st->tk[i].rate = 0; /* a new task has no rate */
		st->tk[i].rgen = 0;
		st->tk[i].dead = 0;
		st->tk[i].plisted = 0;
		st->tk[i].acc_rate = 0; /* nor any time to settle */
		st->tk[i].acc_since = 0;
		st->tk[i].pend = 0;
		st->tk[i].acc_cpu = 0;
		st->tk[i].cpu = -1;
	}
	if (ntasks > st->ntk)
		st->ntk = ntasks;
	if (nslots > st->cslots) {
		size_t n = nslots + nslots / 2 + 16;
		void **arr[] = { (void **)&st->g_first, (void **)&st->g_flags,
				 (void **)&st->g_shares, (void **)&st->alloc_list,
				 (void **)&st->rstale };
		size_t sz[] = { sizeof(int), 1, sizeof(unsigned), sizeof(int), sizeof(int) };
		struct g_redo *gr;

		uint64_t *bits;
		size_t ow = (st->cslots + 63) / 64, nw = (n + 63) / 64;

		if (resize_all(arr, sz, sizeof(sz) / sizeof(sz[0]), n) < 0)
			return -ENOMEM;
		gr = ucg_realloc_aligned(st->gr, st->nslots * sizeof(*gr), n * sizeof(*gr),
					 _Alignof(struct g_redo), &st->gr_mem);
		if (!gr)
			return -ENOMEM;
		st->gr = gr;
		bits = ucg_realloc(st->gdirty, nw * sizeof(*bits));
		if (!bits)
			return -ENOMEM;
		memset(bits + ow, 0, (nw - ow) * sizeof(*bits));
		st->gdirty = bits;
		st->cslots = n;
	}
	for (i = st->nslots; i < nslots; i++) {
		st->g_first[i] = -1;
		st->gr[i].dmask = 0;
		st->gr[i].tot = 0;
		st->g_flags[i] = 0;
		st->g_shares[i] = 0;
	}
	if (nslots > st->nslots)
		st->nslots = nslots;
	if (ncpu > st->ccpu) {
		void **arr[] = { (void **)&st->cpu_root, (void **)&st->reshare,
				 (void **)&st->order,    (void **)&st->cpu_load,
				 (void **)&st->hgen,     (void **)&st->minh_gen,
				 (void **)&st->minh,     (void **)&st->root_load,
				 (void **)&st->cpu_nrq,  (void **)&st->shallow };
		size_t sz[] = { sizeof(int),      sizeof(bool),     sizeof(int),    sizeof(double),
				sizeof(uint32_t), sizeof(uint32_t), sizeof(double), sizeof(double),
				sizeof(unsigned), sizeof(bool) };

		struct cpu_run *runs;
		struct cpu_reach *reach;
		struct cpu_queue *cq;

		if (resize_all(arr, sz, sizeof(sz) / sizeof(sz[0]), ncpu) < 0)
			return -ENOMEM;
		cq = ucg_realloc(st->cq, ncpu * sizeof(*cq));
		if (!cq)
			return -ENOMEM;
		memset(cq + st->ccpu, 0, (ncpu - st->ccpu) * sizeof(*cq));
		st->cq = cq;
		reach = ucg_realloc(st->reach, ncpu * sizeof(*reach));
		if (!reach)
			return -ENOMEM;
		memset(reach + st->ccpu, 0, (ncpu - st->ccpu) * sizeof(*reach));
		st->reach = reach;
		for (i = st->ccpu; i < ncpu; i++) {
			st->hgen[i] = st->minh_gen[i] = 0; /* 0: nothing kept (gens start at 1) */
			st->cpu_nrq[i] = 0;
			st->shallow[i] = false;
		}
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
						v[(size_t)st->rq[i].slot * ncpu +
						  (size_t)st->rq[i].cpu] = (int)i;
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

/* The tick model's lazy weights' table (cpu_rq.c, "Lazy weights"), sized and cleared
 * here; also the tick model's balancer gate: st->lb_now, due at the same boundaries. */
int sim_cpu_lz_prepare(struct sim *s, struct cpu_state *st, bool hard)
{
	size_t i, need;
	sim_time per = sim_cpu_lb_period(s);
	bool was = st->lz_on;

	st->lz_on = s->cpu_tick && st->slot && st->slot_ncpu == s->nr_cpus;
	st->lz_refresh = false;
	st->lb_now = true;
	if (!st->lz_on) {
		st->lb_pending = false;
		return 0;
	}
	need = st->nslots * s->nr_cpus;
	if (hard || !was || st->lz_ncpu != s->nr_cpus) {
		for (i = 0; i < st->nslots; i++) /* the entries are cleared */
			st->g_flags[i] &= (unsigned char)~(G_LZOK | G_LZSYNC);
		st->lz_nslots = 0;
		st->lz_ncpu = s->nr_cpus;
		st->lz_stale = false;
		st->nlz_gl = 0;
		st->lb_next = 0;
	}
	if (need > st->clz) {
		size_t n = need + need / 2;
		struct lz_ent *v =
			ucg_realloc_aligned(st->lz, st->lz_nslots * st->lz_ncpu * sizeof(*v),
					    n * sizeof(*v), 64, &st->lz_mem);
		double *ld;

		if (!v)
			return -ENOMEM;
		st->lz = v;
		ld = ucg_realloc(st->lz_ld, n * sizeof(*ld));
		if (!ld)
			return -ENOMEM;
		st->lz_ld = ld;
		st->clz = n;
	}
	if (st->nslots > st->clz_tot) {
		size_t n = st->nslots + st->nslots / 2;
		/* lz_bpre: 8 block sums a slot */
		void **arr[] = { (void **)&st->lz_gst, (void **)&st->lz_gl, (void **)&st->lz_bpre };
		size_t sz[] = { sizeof(*st->lz_gst), sizeof(*st->lz_gl), 8 * sizeof(*st->lz_bpre) };

		if (resize_all(arr, sz, sizeof(sz) / sizeof(sz[0]), n) < 0)
			return -ENOMEM;
		st->clz_tot = n;
	}
	if (st->lz_nslots < st->nslots) {
		memset(st->lz + st->lz_nslots * s->nr_cpus, 0,
		       (st->nslots - st->lz_nslots) * s->nr_cpus * sizeof(*st->lz));
		memset(st->lz_ld + st->lz_nslots * s->nr_cpus, 0,
		       (st->nslots - st->lz_nslots) * s->nr_cpus * sizeof(*st->lz_ld));
		for (i = st->lz_nslots; i < st->nslots; i++) {
			st->gr[i].tot = 0;
			st->lz_gst[i] = 0;
		}
		st->lz_nslots = st->nslots;
	}
	st->lb_now = s->now >= st->lb_next;
	if (st->lb_now) {
		st->lb_next = (s->now / per + 1) * per;
		st->lb_pending = false;
	} else {
		st->lb_pending = true;
	}
	if (st->lz_stale && s->now >= st->lz_next) {
		st->lz_refresh = true;
		st->lz_stale = false;
		for (i = 0; i < st->nlz_gl; i++) {
			int idx = st->lz_gl[i];

			st->lz_gst[idx] = 0;
			if (st->g_first[idx] >= 0) {
				st->g_flags[idx] |= G_REFR;
				cpu_mark_group(st, idx);
			}
		}
		st->nlz_gl = 0;
	}
	return 0;
}

void sim_cpu_lz_sweep(struct cpu_state *st)
{
	size_t i, n;

	if (!st->lz_on)
		return;
	n = st->lz_nslots * st->lz_ncpu;
	for (i = 0; i < n && i < st->cslot; i++)
		if (st->slot[i] < 0) {
			memset(&st->lz[i], 0, sizeof(st->lz[i]));
			st->lz_ld[i] = 0;
		}
}

/* The hgen counter wrapped: nothing kept anywhere may look current. */
void sim_cpu_h_wrap(struct cpu_state *st)
{
	size_t i;

	for (i = 0; i < st->nrq; i++)
		st->rq[i].hgen = 0;
	for (i = 0; i < st->ccpu; i++)
		st->minh_gen[i] = 0;
	st->hgen_ctr = 1;
}

/* Drops every runqueue and placement: the next recompute builds all from scratch. */
void sim_cpu_state_reset(struct sim *s, struct cpu_state *st, struct sim_hier *hi)
{
	size_t i;

	/* the rates owed are summed from the grants about to go */
	sim_cpu_rates_fresh(s);

	if (st->slot)
		for (i = 0; i < st->nrq; i++)
			if ((unsigned)st->rq[i].cpu < st->slot_ncpu) /* `cpus` may have cut */
				st->slot[(size_t)st->rq[i].slot * st->slot_ncpu +
					 (size_t)st->rq[i].cpu] = -1;
	for (i = 0; i < st->nrq; i++) /* of whichever hierarchy they were */
		if (st->rq[i].cg)
			st->rq[i].cg->rq_cpus = 0;
	st->nrq = 0;
	st->free_rq = -1;
	st->ngone = 0;
	for (i = 0; i < st->nslots; i++) {
		st->g_first[i] = -1;
		st->gr[i].dmask = 0;
		st->g_flags[i] = 0;
		st->g_shares[i] = 0;
	}
	if (st->gdirty)
		memset(st->gdirty, 0, (st->cslots + 63) / 64 * sizeof(*st->gdirty));
	st->gmax_dirty = -1;
	st->nalloc = 0;
	for (i = 0; i < st->ntk; i++)
		st->tk[i].q = -1;
	for (i = 0; i < st->ccpu; i++) {
		size_t j;

		for (j = 0; j < st->runs[i].n; j++)
			cpu_rate_set(st, st->runs[i].k[j], 0);
		st->runs[i].n = 0;
		st->cpu_root[i] = -1;
		st->root_load[i] = 0; /* (what the CPU's load is without a root) */
		st->cpu_nrq[i] = 0;
		st->cq[i].n = 0;
		st->reach[i].n = 0;
		st->reshare[i] = false;
		st->shallow[i] = false;
		st->hgen[i] = cpu_h_next(st); /* its h_loads stale */
	}
	/* groups with no rq are on no CPU */
	for (i = 0; hi && i < s->ncgs; i++)
		if (s->cgs[i]->hier == hi)
			s->cgs[i]->nr_active = 0;
	st->ncpu = s->nr_cpus;
	st->hi = hi;
	st->root_slot = hi ? hi->root->id + 1 : 0;
	st->gathered = false;
	st->full_alloc = true;
	st->q_ncgs = SIZE_MAX; /* every group's shares and throttling read again */
	st->bw.nflip = 0;
	st->valid = true;
}
