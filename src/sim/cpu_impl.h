/* sim/cpu_impl.h — what the CPU model's files share: the model's state (struct
 * cpu_state, its runqueues and scratch), the small helpers every step uses to mark
 * what must be redone, and the steps' entry points. cpu.c (the recompute), cpu_rq.c
 * (runqueues and group weights), cpu_state.c (the state's sizing and reset),
 * cpu_balance.c (placement and balancing), cpu_share.c (water-filling),
 * cpu_account.c (time accrual), cpu_bw.c (the CFS bandwidth timers) and cpu_tick.c
 * (the tick model of CFS bandwidth). The model is described at the top of cpu.c. */
#ifndef UCG_SIM_CPU_IMPL_H
#define UCG_SIM_CPU_IMPL_H

#include "sim/sim_impl.h"

/* The tick model's CFS bandwidth state of one group's runqueue on one CPU
 * (cpu_tick.c), in sim_cg.brq. */
struct sim_bw_rq {
	/* one cache line each (the array aligned to them, sim_cpu_tick_reset): the
	 * tick model reads a group's per-CPU states on every event of its timer */
	_Alignas(64) int64_t rem; /* runtime_remaining, as of since */
	double a;    /* CPUs its runqueue is granted on this CPU now */
	sim_time since;
	sim_time next;      /* the tick at which it next needs runtime, SIM_TIME_MAX */
	uint64_t seq;       /* while throttled: its place in the throttled list */
	sim_time thr_since; /* while throttled: since when */
	int thr_prev;       /* while throttled: the CPUs of the runqueues throttled */
	int thr_next;       /* before and after it, -1 none (cg->thr_head) */
	bool thr;
};
_Static_assert(sizeof(struct sim_bw_rq) == 64, "struct sim_bw_rq: a cache line");

/* The CFS bandwidth state, kept in struct cpu_state (sim_cpu_bw_of). */
struct cpu_bw {
	struct sim_cg **qg;  /* the groups with a quota, in tree order (sim_cpu_bw_refresh) */
	size_t nqg, cqg;
	int *flip;           /* slots (id + 1) whose throttling changed since the last
			      * recompute: the recompute checks only those */
	size_t nflip, cflip;
	bool flip_lost;      /* a flip could not be noted: the recompute checks every group */
};

#define NICE0 1024.0
/* The tick model's balancer's boundaries, in ticks (32 ms at HZ 250): cpu_balance.c */
#define LB_TICKS 8

/* The scheduler tick's length: the scenario's HZ, 250 (this machine's) by default */
static inline sim_time sim_cpu_tick_ns(const struct sim *s)
{
	return s->tick_ns;
}

/* The length of LB_TICKS ticks, between two boundaries of the balancer */
static inline sim_time sim_cpu_lb_period(const struct sim *s)
{
	return LB_TICKS * sim_cpu_tick_ns(s);
}

/* The period of the lazy weights' refresh: `set weight_refresh` ticks (cpu_rq.c) */
static inline sim_time sim_cpu_lz_period(const struct sim *s)
{
	return (sim_time)s->lz_ticks * sim_cpu_tick_ns(s);
}

/* A group's runqueue on one CPU (the root's too): what its entities there want and
 * weigh, and where it sits in its parent's runqueue on that CPU. A runqueue is made
 * when its group first has something on that CPU, and dropped at the end of the
 * recompute in which it emptied, if it is still empty then (sim_cpu_rqs_drop: an
 * empty one adds exact zeros to every sum, so dropping it changes no figure, and
 * keeping them all made every group's walks cover every CPU it ever ran on). */
struct rq {
	/* Two cache lines, the array aligned to them (rq_grow). The first holds what
	 * the share reads of every rq it reaches, and what the parent's sums and the
	 * h_load walk read of a child: on a 120-byte stride these spread over two or
	 * three lines per rq. The 128-byte stride also makes each &st->rq[q] a
	 * shift, not a multiply (5% of the recompute's instructions, counted by
	 * callgrind). */
	_Alignas(64) double d; /* CPUs its tasks want here */
	double w;              /* its group entity's weight on this CPU */
	/* w·u, what its entity adds to the parent's load (rq_sum) and what the
	 * h_load walk scales by (over load): the same product both formed, set
	 * with w and u, so the bits they use are the same */
	double wu;
	double a;                  /* CPUs its entity got in the last share of this CPU, else 0 */
	double a_prev;             /* a before the share under way (== a between shares) */
	int first_child, next_sib; /* linked child groups' rqs here, descending id */
	int first_task;            /* runnable tasks queued here, ascending task index */
	int parent;                /* the parent group's rq on this CPU while linked, else -1 */
	int slot;                  /* its group's slot: cgroup id + 1, 0 the hierarchy-less root */
	/* The low two bits (RQ_STATE): RQ_CHG (what rq_sum stores, true: the
	 * rank 0) when summed since its CPU's last share reached it, what it or a
	 * runqueue below it holds may have changed; else RQ_LEAF1 when that share
	 * found it a lone-task leaf, RQ_RANKED when it water-filled its children
	 * and noted their ranks, 0 when neither. The bits above (RQ_RANK_SHIFT):
	 * its place in its parent's water-filling order, when the parent is
	 * RQ_RANKED (cpu_share.c). */
	unsigned char chg;
	bool dirty;                /* load and d to be summed again */
	bool up;                   /* d changed: the parent's sums must be redone */
	bool ne;                   /* non-empty ... */
	/* second line */
	double load;               /* Σ entity loads: tasks 1024·want, groups w·min(1, d) */
	struct sim_cg *cg;         /* NULL: the root when no hierarchy has the cpu controller */
	int cpu;
	int next_of_cg;            /* the group's rq on its next higher CPU */
	uint32_t hgen;             /* == its CPU's hgen: hval is task_h_load's answer for a */
	bool act;                  /* ... and d > 0: as its group's redo last saw */
	bool gone;                 /* listed in st->gone */
	bool lzch;                 /* group_redo scratch: published in this pass */
	bool lzvis;                /* group_redo scratch: to be relinked */
	double hwant, hval;        /* task of demand hwant queued here */
};
_Static_assert(sizeof(struct rq) == 128, "struct rq: two cache lines");
#define RQ_CHG 1    /* rq.chg: summed since the share last reached it */
#define RQ_LEAF1 2  /* rq.chg: not, and no child rq and one task then */
#define RQ_RANKED 3 /* rq.chg: not, and its children's ranks noted then */
#define RQ_STATE 3  /* rq.chg: the bits of the above */
#define RQ_RANK_SHIFT 2
#define RQ_RANK_MAX 64 /* the most entities whose ranks are noted */

/* What the share reads and writes of one task (by index), together: a share visits
 * tasks scattered over the index range, and separate arrays cost a cache line each.
 * Its time accrual is in the same line: the end of a recompute settles each task
 * whose rate changed (~190 a recompute on the hour's host), and reading s->tasks[k]
 * and the task's struct there cost two more misses per task; the time settled waits
 * here (pend) until sim_cpu_settle passes it to the task (cpu_account.c). */
struct cpu_task {
	double want;           /* CPUs it wants, at most 1 */
	double rate;           /* its rate */
	int next;              /* next task on the same rq */
	int q;                 /* the rq it is queued on, -1 */
	uint32_t rgen;         /* == share_gen: listed by the share under way (when its
				* list of tasks with a rate differs from the last) */
	unsigned char touched; /* in cpu_state.touched */
	unsigned char dead;    /* its task exited: it accrues no more time */
	unsigned char plisted; /* in cpu_state.pk */
	/* CPU time accrues lazily: at acc_rate on CPU acc_cpu since acc_since */
	double acc_rate;
	sim_time acc_since;
	int64_t pend; /* ns settled, not yet in the task's cpu_ns, cg_pend, cpuacct_pend */
	int acc_cpu;
	int cpu; /* == s->tasks[k]->cpu (cpu_task_cpu) */
};
_Static_assert(sizeof(struct cpu_task) == 64, "struct cpu_task: a cache line");

/* The tasks one CPU's last share gave a rate, by index (s->tasks[k] is the task:
 * the share does not load the pointer, whose array is too large to stay in the
 * cache, and sim_cpu_settle, which reads it, runs a hundred times less often).
 * Every task with a rate is in its CPU's list: a task that leaves a CPU loses its
 * rate, and a share starts by taking the rates of the tasks in the list. */
struct cpu_run {
	int *k;
	size_t n, cap;
};

/* The rqs one CPU's last share reached, in the order it reached them: an array, not
 * a list through the rqs, so that the next share takes their grants back without a
 * chain of dependent loads. */
struct cpu_reach {
	int *q;
	size_t n, cap;
};

/* The runnable tasks queued on one CPU, ascending index: an array, which the
 * balancer reads with independent loads (a list through the tasks made each step
 * wait for the one before). */
struct cpu_queue {
	int *k;
	size_t n, cap;
};

/* An entity of a runqueue being shared, in the order met (child groups, then
 * tasks): its grant, and its rq (a child group) or task index. */
struct went {
	double a;
	int id;
};

/* An entity's place in the water-filling order: by d/w, ties by creation (cgroups
 * by id, tasks by tid, cgroups first); i its index in the entity array. Its weight
 * and demand ride along: the water-filling reads them in this order. */
struct wkey {
	double r, w, d;
	uint32_t tie; /* key, plus 1 << 31 for a task */
	uint32_t i;
};
_Static_assert(sizeof(struct wkey) == 32, "struct wkey: a power of two");

/* The tick model's lazy group weights (cpu_rq.c, "Lazy weights"): what one group's
 * runqueue on one CPU last published and the weight it last computed, kept by
 * (slot, CPU) in cpu_state.lz, across the resets of a full recompute. */
struct lz_ent {
	/* its load when it last published (0: none), which is also its contribution
	 * to the group's total (tg_load_avg_contrib: a separate copy of it was 8 of
	 * the entry's 48 bytes) */
	double load;
	double w; /* its entity's weight, computed with total tot */
	double tot;
	unsigned shares; /* the cpu.shares w was computed with */
};
/* 32 bytes in an array aligned to a cache line: no entry straddles two lines (at
 * 40 bytes, with the running sums, half of them did) */
_Static_assert(sizeof(struct lz_ent) == 32, "struct lz_ent: a power of two");

/* What a group's redo reads and writes of its own (cpu_rq.c), per slot, together:
 * five arrays by slot were five lines, each a miss at most redos of the hour's
 * host. */
struct g_redo {
	_Alignas(32) uint64_t dmask; /* its rqs marked dirty since its redo, a bit per CPU < 64 */
	/* while G_LZOK: the CPUs whose lz entry's tot may differ from tot (a bit
	 * each, a superset), those whose weight the refresh may compute again */
	uint64_t tmask;
	double tot;  /* lazy weights: its group's total when it was last redone */
	int ne, act; /* while G_LZOK: its rqs with ne, with act */
};
_Static_assert(sizeof(struct g_redo) == 32, "struct g_redo: a power of two");

#define G_ALLOC 2u /* group: its alloc to be summed again */
#define G_THR 4u   /* group: throttled when last processed */
#define G_RELINK 8u /* group: every rq relinked (its throttling changed) */
#define G_RATE 16u  /* group: its rate to be summed when read (st->rstale) */
#define G_LZOK 32u  /* group: its lazy redo may look at its dirty rqs alone */
#define G_REFR 64u  /* group: it kept a weight while its total moved (the refresh) */
/* group: every rq's lazy weight entry holds its load and the group's shares, as a
 * walk of all its rqs left them (cpu_rq.c, group_redo_lazy); never with G_LZOK */
#define G_LZSYNC 128u
/* group: G_RATE, and it has no quota or tick state (not s->cg_bw, which changes
 * only at a reading of the quotas, sim_cpu_rates_fresh clearing both first): a
 * grant that changes needs no G_ALLOC (cpu_mark_alloc) */
#define G_RWAIT 1u

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
 * recompute, which makes every one a full one — all but the tick model's history
 * (the lazy weights' published loads, weights and totals, the refresh and balancing
 * instants: lz*, lb*), which the model's next answer depends on as on its inputs. */
struct cpu_state {
	struct rq *rq; /* in rq_mem, aligned to a cache line */
	size_t nrq, crq;
	void *rq_mem;
	int free_rq;         /* rqs dropped for reuse, linked by next_of_cg; -1 none */
	int *gone;           /* rqs that emptied in this recompute: dropped at its end if */
	size_t ngone, cgone; /* still empty (sim_cpu_rqs_drop) */
	int *slot; /* (group slot, CPU) -> its rq, -1; NULL when too large */
	size_t cslot, slot_nslots;
	unsigned slot_ncpu;
	/* per group slot (cgroup id + 1, 0: the hierarchy-less root) */
	int *g_first; /* its rqs, ascending CPU */
	unsigned char *g_flags;
	unsigned *g_shares; /* the cpu.shares its weights were computed with */
	size_t nslots, cslots;
	/* the groups with some rq, its weight or its link to be redone: a bit per
	 * slot, the highest slot with one (-1 none) */
	int gmax_dirty;
	uint64_t *gdirty;
	struct g_redo *gr; /* in gr_mem, aligned to 32 bytes */
	void *gr_mem;
	int *alloc_list; /* slots with G_ALLOC */
	size_t nalloc;
	int *rstale; /* slots with G_RATE */
	size_t nrstale;
	/* per task index */
	/* 32 bytes, a power of two (the tid, which only breaks ties in the share's
	 * order, is kept apart for that), in tk_mem aligned to a cache line: no
	 * task's fields straddle two lines (in a realloc'd array, 16-aligned, half
	 * of them did) */
	struct cpu_task *tk;
	void *tk_mem;
	int *tid; /* == s->tasks[k]->tid, set for the first ntid tasks */
	size_t ntid;
	uint32_t share_gen;
	int *oldk; /* share scratch: the tasks the CPU's last share gave a rate */
	size_t coldk;
	uint64_t *mask;       /* allowed CPUs (bits) ... */
	bool *any;            /* ... or any CPU */
	uint32_t *moved;      /* == stamp: moved in this balancing round */
	int *touched;         /* tasks whose rate was written in this recompute */
	size_t ntouched;
	size_t ntk, ctk;
	uint32_t stamp;
	int *rt; /* runnable tasks, ascending index */
	size_t nrt;
	int *moves; /* tasks moved in this balancing round */
	/* per CPU */
	int *cpu_root; /* the root's rq, -1 */
	unsigned *cpu_nrq;       /* its rqs (the most its share can reach) */
	struct cpu_queue *cq;    /* runnable tasks queued on it */
	struct cpu_reach *reach; /* rqs the last share reached */
	int *oldr;               /* share scratch: the array the share before filled */
	size_t coldr;
	bool *reshare;
	/* Since its last share, nothing on the CPU changed but the weights of its
	 * root's children: no rq below the root marked, none linked or unlinked,
	 * no task queued, dequeued or changed (a redo's marks of a non-root rq, at
	 * pmark_flush, every direct mark and every link clear it;
	 * sim_cpu_share_cpu sets it). With
	 * the root under its capacity, such a share gives every child its demand
	 * whatever the weights, as the last did: nothing to do (cpu_share.c). */
	bool *shallow;
	int root_slot;    /* the slot of the rqs' root group (st->hi's root, else 0) */
	int *order;       /* CPUs by descending root load, as the balancer last sorted */
	unsigned order_n; /* ... for this many CPUs (0: not yet) */
	bool order_ok;    /* ... and sorted by the loads as they are now */
	double *cpu_load; /* the root runqueue's load */
	/* == rq[cpu_root[c]].load, set with cpu_root (a root rq's sums are formed only
	 * by its redo, root_redo), 0 without a root: the redos' end copies the 64
	 * loads from here, not from the second line of each root rq */
	double *root_load;
	/* A CPU's hgen changes whenever a runqueue on it changes its sums, weight or
	 * link (what task_h_load reads): the h_loads kept in its rqs, and minh (the
	 * least h_load above BALANCE_EPS/2 - 1 of its tasks, 0: none) while minh_gen is
	 * hgen, still hold. */
	uint32_t *hgen, *minh_gen;
	double *minh;
	uint32_t hgen_ctr;
	/* the CPUs below 64 with an rq marked dirty since the last redo: the redo
	 * gives them a new hgen at its end */
	uint64_t hmask;
	/* the CPUs below 64 that hmask held at the redos' ends since the last shares:
	 * with hmask, a superset of those with reshare (at most 64 CPUs) */
	uint64_t rsmask;
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
	uint64_t q_cfg;       /* the config writes, group count and hierarchy quotas, */
	size_t q_ncgs;        /* shares and throttling were last read in full at */
	struct sim_hier *q_hi;
	struct cpu_bw bw;     /* the CFS bandwidth timers' (cpu_bw.c) */
	int *pk;              /* tasks with tk.pend, to pass to their sim_task */
	size_t npk, cpk;
	struct sim_task **pl; /* tasks with cpuacct_pend, to flush */
	size_t npl, cpl;
	struct sim_task **cgl; /* tasks with cg_pend, to push at the next settle */
	size_t ncgl, ccgl;
	sim_time settled_at; /* every task's time was settled at this instant, or -1 */
	/* The runnable set (rt, want, mask, any) of the last gather is reused when
	 * only CPU timers dirtied the model since (no sim_cpu_changed, no epoch, count
	 * or hierarchy moved): then the tasks, their cgroups, cpusets, freezer states
	 * and affinities are those the last gather read. Other events (I/O, memory)
	 * between two timers no longer force a gather. */
	bool gathered;          /* rt.. hold the last gather's runnable set */
	uint64_t g_inputs;      /* s->cpu_inputs at that gather */
	uint64_t g_memb, g_cfg; /* the epochs, counts and hierarchy of that gather */
	size_t g_ntasks, g_ncgs, g_nhier;
	unsigned g_ncpus;
	struct sim_hier *g_hi;
	/* The tick model's lazy weights (cpu_rq.c): per (slot, CPU), slot-major, kept
	 * across the resets of a full recompute (cleared when the CPU count or the
	 * hierarchy changes, or after a half-done recompute). */
	struct lz_ent *lz; /* in lz_mem, aligned to a cache line */
	void *lz_mem;
	size_t clz, lz_nslots;
	/* per slot, 8 each (G_LZOK, at most 64 CPUs): the group's Σ of load over the
	 * CPUs below 0, 8, .., 56, in CPU order */
	double *lz_bpre;
	/* beside lz: each entry's load (== lz_ent.load, written with it), 8 to a
	 * line for those sums (in the entries, 2 to a line) */
	double *lz_ld;
	unsigned char *lz_gst; /* per slot: it kept a weight while its total moved */
	/* the slots with lz_gst, for the refresh: a scan of every slot for them
	 * was 13 M instructions in the hour's first virtual minute */
	int *lz_gl;
	size_t nlz_gl;
	size_t clz_tot;
	unsigned lz_ncpu;
	bool lz_on;       /* this recompute computes weights lazily (the tick model) */
	bool lz_stale;    /* some weight was kept while its group's total moved */
	bool lz_refresh;  /* this recompute computes every weight again */
	sim_time lz_next; /* while lz_stale: the refresh instant */
	/* The tick model's periodic balancer (cpu_balance.c): it moves tasks only at
	 * the first recompute at or after lb_next; lb_pending: a recompute since the
	 * last balancing did not balance. */
	bool lb_now, lb_pending;
	sim_time lb_next;
};

/* Whether d < (W > 0 ? cap·w/W : 0), cpu_share.c's water-fill's test of an entity against
 * its fair share, bit for bit, mostly without the division, whose latency was on
 * the water-fill's chain at every entity: p = cap·w is the same product, the
 * quotient p/W is rounded within 2^-53 of itself and d·W within 2^-53, so where
 * d·W and p are apart by more than 2^-40 of p (the factor's rounding included)
 * they say what d < p/W says. Near the boundary, or with tiny values whose
 * products would leave the normal range, the quotient decides. */
static inline __attribute__((always_inline)) bool cpu_below_fair(double d, double cap, double w,
								 double W)
{
	double p, dw;

	if (!(W > 0))
		return d < 0;
	p = cap * w;
	dw = d * W;
	if (p > 0x1p-900 && dw > 0x1p-900) {
		if (dw < p * (1 - 0x1p-40))
			return true;
		if (dw > p * (1 + 0x1p-40))
			return false;
	}
	return d < p / W;
}

static inline void cpu_mark_group(struct cpu_state *st, int slot)
{
	st->gdirty[slot / 64] |= 1ull << (slot % 64);
	if (slot > st->gmax_dirty)
		st->gmax_dirty = slot;
}

/* every rq of the group looks at its link again: its throttling or shares changed */
static inline void cpu_mark_relink(struct cpu_state *st, int slot)
{
	st->g_flags[slot] |= G_RELINK;
	cpu_mark_group(st, slot);
}

/* q, on CPU cpu, must be summed again, and its CPU shared again: from a caller
 * that knows the CPU, which is on q's second cache line */
static inline void cpu_mark_dirty_on(struct cpu_state *st, int q, int cpu)
{
	st->rq[q].dirty = true;
	st->reshare[cpu] = true;
	st->shallow[cpu] = false;
	if ((unsigned)cpu < 64) {
		st->gr[st->rq[q].slot].dmask |= 1ull << cpu;
		st->hmask |= 1ull << cpu;
	}
	cpu_mark_group(st, st->rq[q].slot);
}

/* q's sums must be formed again, and its CPU shared again */
static inline void cpu_mark_dirty(struct cpu_state *st, int q)
{
	cpu_mark_dirty_on(st, q, st->rq[q].cpu);
}

/* slot's grant on some CPU changed: its alloc to be summed again, unless its rate
 * waits for a sum anyway (G_RWAIT), when sim_cpu_alloc_list would only clear its
 * G_ALLOC (1.6 M of the 2.0 M listed in the hour's first virtual minute) */
static inline void cpu_mark_alloc(struct cpu_state *st, int slot)
{
	if (!(st->g_flags[slot] & (G_ALLOC | G_RWAIT))) {
		st->g_flags[slot] |= G_ALLOC;
		st->alloc_list[st->nalloc++] = slot;
	}
}

/* Every write of a task's rate goes through here (but the share's lone tasks,
 * which settle at once: cpu_share.c): the tasks whose rate changed are listed, and
 * once the shares are done those whose rate or CPU really changed have their time
 * settled (sim_cpu_settle_touched). Without a branch on whether the
 * rate changed: on a busy host that goes either way about as often, and the
 * mispredicted branch cost more than the stores (the list has room for every task,
 * so the slot past its end is free to write). */
static inline void cpu_rate_set(struct cpu_state *st, int k, double v)
{
	struct cpu_task *x = &st->tk[k];
	unsigned char ch = v != x->rate;

	x->rate = ch ? v : x->rate;
	st->touched[st->ntouched] = k;
	st->ntouched += (size_t)(ch & !x->touched);
	x->touched |= ch;
}

/* Every write of a task's CPU: the settling reads it in st->tk. */
static inline void cpu_task_cpu(struct sim_task *t, struct cpu_state *st, int k, int cpu)
{
	t->cpu = cpu;
	st->tk[k].cpu = cpu;
}

static inline bool cpu_allowed(const struct cpu_state *st, int k, unsigned cpu)
{
	return st->any[k] || (cpu < 64 && (st->mask[k] >> cpu & 1));
}

/* cpu.c: makes room for need elements of size bytes in *p (capacity *cap, doubled
 * as needed); -ENOMEM leaves *p as it was. */
int sim_cpu_grow(void **p, size_t *cap, size_t need, size_t size);
/* cpu.c: the model's bandwidth state, NULL before the first recompute */
struct cpu_bw *sim_cpu_bw_of(struct sim *s);
/* cpu.c: a CPU timer changed some group's throttling (the rates are recomputed) */
void sim_cpu_throttling_changed(struct sim *s);

/* cpu_bw.c */
/* Reads every quota in hi again (a new or changed one starts a period now) and lists
 * the groups that have one; -ENOMEM. */
int sim_cpu_bw_refresh(struct sim *s, struct cpu_bw *bw, struct sim_hier *hi);
/* cg's rate becomes a: a group with a quota settles its runtime at the old rate. */
void sim_cpu_bw_rate(struct sim *s, struct sim_cg *cg, double a);
/* Schedules the CPU timer at the earliest CFS event; -ENOMEM. */
int sim_cpu_bw_schedule(struct sim *s, struct cpu_bw *bw);
/* The fluid model's CFS events of cg, due now; true when its throttling changed. */
bool sim_cpu_bw_tick(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg);
/* The CPU timer (s->cpu_ev). */
void sim_cpu_bw_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);
void sim_cpu_bw_fini(struct cpu_bw *bw);
void sim_cpu_bw_flip_grow(struct cpu_bw *bw, struct sim_cg *cg);
/* Notes that cg's throttling changed (the next recompute redoes the group). Inline:
 * the tick model throttles and unthrottles ~230 k runqueues in the hour's first
 * virtual minute, and the call with its growth check cost ~40 instructions each. */
static inline void sim_cpu_bw_flip(struct cpu_bw *bw, struct sim_cg *cg)
{
	if (bw->nflip < bw->cflip)
		bw->flip[bw->nflip++] = cg->id + 1;
	else
		sim_cpu_bw_flip_grow(bw, cg);
}

/* cpu_tick.c: the tick model of CFS bandwidth */
/* Whether cg's tick state must be (re)made: the model, its quota or the CPU count
 * changed since it was. */
bool sim_cpu_tick_needed(const struct sim *s, const struct sim_cg *cg);
/* A new quota (or model, or CPU count): every runqueue's runtime 0, the pool full,
 * the throttled unthrottled; the state freed when the group no longer needs one. */
void sim_cpu_tick_reset(struct sim *s, struct cpu_bw *bw, struct sim_cg *cg);
/* cg's grants per CPU after an alloc sum: each runqueue settles at its old grant;
 * one that emptied returns its runtime. all: look at every CPU (after a reset),
 * else only at those where cg has a runqueue (elsewhere its grant is 0 already). */
void sim_cpu_tick_rates(struct sim *s, struct cpu_state *st, struct sim_cg *cg, bool all);
/* cg's next event: period end, slack timer or a tick a runqueue needs runtime at. */
sim_time sim_cpu_tick_next(struct sim *s, struct sim_cg *cg);
/* The CPU timer's groups whose next event is due, in list order: the tick model's
 * period and slack timers and ticks, the fluid model's sim_cpu_bw_tick; true when
 * some group's throttling changed. */
bool sim_cpu_tick_due(struct sim *s, struct cpu_bw *bw);
/* Whether cg's runqueue on cpu is throttled by the tick model. */
static inline bool sim_cpu_tick_thr(const struct sim_cg *cg, int cpu)
{
	return cg->brq && (unsigned)cpu < cg->brq_n && cg->brq[cpu].thr;
}

/* cpu_state.c */
/* The hgen counter wrapped: every stamp kept is cleared, the counter restarts. */
void sim_cpu_h_wrap(struct cpu_state *st);
/* A new stamp, which no CPU's hgen holds (after a wrap, none is kept anywhere). */
static inline uint32_t cpu_h_next(struct cpu_state *st)
{
	if (++st->hgen_ctr == 0)
		sim_cpu_h_wrap(st);
	return st->hgen_ctr;
}
/* Sizes the state for ntasks tasks, nslots group slots and ncpu CPUs; -ENOMEM. */
int sim_cpu_state_reserve(struct cpu_state *st, size_t ntasks, size_t nslots, size_t ncpu);
/* The lazy weights' table before a recompute: sized, cleared when hard (a reset
 * that is not the full recompute's), the refresh noted and every group marked when
 * it is due; -ENOMEM. */
int sim_cpu_lz_prepare(struct sim *s, struct cpu_state *st, bool hard);
/* A full recompute's end: the entries of (slot, CPU) without a runqueue cleared, as
 * an incremental one clears them when it drops the runqueue. */
void sim_cpu_lz_sweep(struct cpu_state *st);

/* Drops every runqueue and placement: the next recompute builds all from scratch. */
void sim_cpu_state_reset(struct sim *s, struct cpu_state *st, struct sim_hier *hi);

/* cpu_rq.c */
/* Takes task k off its rq and its CPU. */
void sim_cpu_task_dequeue(struct sim *s, struct cpu_state *st, int k);
/* Queues task k where its group cg and its CPU say, if it is not there yet; -ENOMEM. */
int sim_cpu_task_place(struct sim *s, struct cpu_state *st, int k, struct sim_cg *cg);
/* Redoes every dirty group, children first, then reads the CPUs' root loads; -ENOMEM. */
/* Drops the rqs that emptied in this recompute and are still empty, unlinked and
 * without a grant (after the shares and alloc sums): an empty rq adds exact zeros to
 * every sum, so dropping it changes no figure, and a group's rqs stay as many as the
 * CPUs it runs on, not every CPU it ever ran on. */
void sim_cpu_rqs_drop(struct cpu_state *st);
int sim_cpu_groups_redo(struct sim *s, struct cpu_state *st);

/* cpu_balance.c */
/* Puts the newly runnable tasks (and those whose CPU became forbidden) on a CPU. */
void sim_cpu_place_new(struct sim *s, struct cpu_state *st);
/* Brings the runqueues up to date, moving tasks between CPUs while that evens out
 * the root loads; -ENOMEM. */
int sim_cpu_balance(struct sim *s, struct cpu_state *st);

/* cpu_share.c */
/* Shares CPU c again, down its tree. */
void sim_cpu_share_cpu(struct sim *s, struct cpu_state *st, unsigned c);
/* A group's alloc (and rate): its grants summed in CPU order; _tree: of cg and every
 * group below it. */
void sim_cpu_alloc_sum(struct sim *s, struct cpu_state *st, struct sim_cg *cg, bool all);
void sim_cpu_alloc_tree(struct sim *s, struct cpu_state *st, struct sim_cg *cg);
/* sim_cpu_alloc_sum (not all) of the groups in st->alloc_list, by their s->cg_bw
 * first, their G_ALLOC cleared and the list emptied. */
void sim_cpu_alloc_list(struct sim *s, struct cpu_state *st);

/* cpu_account.c */
/* Lists task k as having time pending in tk.pend (sim_cpu_settle passes it on). */
void sim_cpu_task_list(struct sim *s, struct cpu_state *st, int k);
/* Passes the time task k settled (tk.pend) to its task now. */
void sim_cpu_task_pass(struct sim *s, struct cpu_state *st, int k);

/* Adds the time task k (x) ran since acc_since, at acc_rate on acc_cpu, rounded to whole
 * ns, to its pending time (sim_cpu_settle passes it on), and returns it: idle_ns
 * loses it (the caller's, once for a batch: sums of integers, the same in any
 * order). Inlined in the settling loops (2 M calls a virtual minute on the hour's
 * host: a call's entry and exit were a third of their instructions), the listing
 * out of line. */
static inline __attribute__((always_inline)) int64_t cpu_task_accrue(struct sim *s,
								     struct cpu_state *st,
								     struct cpu_task *x, int k,
								     sim_time now)
{
	sim_time dt = now - x->acc_since;
	int64_t ns;

	x->acc_since = now;
	if (dt <= 0 || x->acc_rate <= 0 || x->dead)
		return 0;
	ns = (int64_t)(x->acc_rate * (double)dt + 0.5);
	if (ns <= 0)
		return 0;
	x->pend += ns;
	if (!x->plisted)
		sim_cpu_task_list(s, st, k);
	return ns;
}

/* Task k's (x's) rate and CPU are final for this recompute (once the shares begin, a
 * task's rate is written only by its CPU's share): if either changed, it settles
 * the time it ran at the old ones and from now on accrues at the new. Returns the
 * ns settled, which idle_ns loses (the caller's). cpu_share.c's leaf1_set writes
 * out its and cpu_task_accrue's steps for an untouched task: a change here goes
 * there too. */
static inline __attribute__((always_inline)) int64_t cpu_task_settle(struct sim *s,
								     struct cpu_state *st,
								     struct cpu_task *x, int k,
								     sim_time now)
{
	int64_t ns = 0;

	if (x->rate != x->acc_rate || (x->rate > 0 && x->cpu != x->acc_cpu)) {
		ns = cpu_task_accrue(s, st, x, k, now);
		if (x->cpu != x->acc_cpu && x->pend)
			sim_cpu_task_pass(s, st, k); /* charged on the CPU it ran on */
		x->acc_rate = x->rate;
		x->acc_cpu = x->cpu;
	}
	return ns;
}

/* The end of a recompute: the tasks whose rate or CPU changed settle their time. */
void sim_cpu_settle_touched(struct sim *s, struct cpu_state *st);
/* After some CPUs' shares: those they touched, listed from entry n0 on. */
void sim_cpu_settle_shared(struct sim *s, struct cpu_state *st, size_t n0);

#endif
