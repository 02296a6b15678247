/* controllers/cpuset.c — the cpuset controller: which CPUs and memory nodes the tasks
 * of a cgroup may use (docs/kernel/controllers.md §1).
 *
 * Model. Each cpuset has a CPU mask (cpus, nr_cpus bits) and a node mask (mems), set
 * by writing cpuset.cpus / cpuset.mems, and effective masks derived from them:
 *
 *   v1:          effective = cpus & parent's effective, which is cpus itself, since
 *                cpus must be a subset of the parent's;
 *   cpuset_v2_mode (mount option): as v1, but an empty result takes the parent's
 *                effective mask, and hot-unplug does not shrink cpus/mems.
 *
 * The root's cpus/mems are the online CPUs/nodes and are read-only (EACCES). A write
 * builds a trial copy, validates it and only then commits (validate_change):
 *
 *   1. root target                 EACCES  (a separate root-only file entry)
 *   2. syntax / range              EINVAL, ERANGE, EOVERFLOW (the core's list kind)
 *   3. not within the online set   EINVAL
 *   4. equal to the current value  success, nothing happens
 *   5. a child not a subset        EBUSY
 *   6. not a subset of the parent  EACCES
 *   7. populated and emptied       ENOSPC
 *   8. overlap with a sibling while either is exclusive   EINVAL
 *
 * where "subset" also compares the exclusive flags (child's <= parent's). Flag writes
 * (U64: non-zero stores 1) go through steps 5-8 with the trial flag.
 *
 * At mkdir a child starts empty, with memory_spread_page/slab copied from the parent
 * and sched_load_balance 1; if cgroup.clone_children was set it copies the parent's
 * cpus and mems, unless some sibling is cpu- or mem-exclusive.
 *
 * Tasks. Attaching to a cpuset with empty (effective) cpus or empty mems is ENOSPC.
 * The provider hears each task's effective cpus and mems on attach and whenever they
 * change (ucg_provider_ops.cpus_changed / mems_changed). Hot-unplug
 * (ucg_cpuset_set_online) removes offline CPUs/nodes from every cpuset in v1 mode and
 * moves the tasks of a cpuset left without cpus or mems to the nearest ancestor that
 * still has both ("look upward", ucg_task_transfer), as the kernel does
 * asynchronously; a CPU that comes back is given to the root only.
 *
 * Between 7 and 8, 6.18 refuses (EBUSY) to shrink an exclusive, load-balanced cpuset
 * below what the SCHED_DEADLINE reservations need, which in practice means to empty it
 * (dl_can_shrink below).
 *
 * With memory_migrate set, the provider is also asked to move a task's pages
 * (ucg_provider_ops.mems_migrate) where the kernel would: a mems change of the cpuset,
 * and a thread-group leader attached to it.
 *
 * memory_pressure is the kernel's fmeter: a per-cpuset filter of direct-reclaim events
 * (ucg_cpuset_memory_pressure_bump, counted only while the root's
 * memory_pressure_enabled is 1) decaying by 933/1000 per second, read as reclaims per
 * second times 1000. The engine has no clock: bumps carry the time in seconds, and a
 * read uses the latest time the engine was told (ucg_cpuset_clock).
 *
 * Limits: mem_hardwall, spread and load-balance flags are stored and shown but change
 * nothing;
 * deadline tasks' own bandwidth is not modelled, only the fair servers'.
 */
#include "base/alloc.h"
#include "base/bitmap.h"
#include "controllers/charge.h"
#include "engine/cgroup.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>
#include <string.h>

struct cpuset_css {
	struct ucg_css css;
	/* All fields are owned by this file and change only under a validated write,
	 * at mkdir, or through ucg_cpuset_set_online(). */
	struct ucg_bitmap cpus, mems;         /* cpuset.cpus / cpuset.mems */
	struct ucg_bitmap eff_cpus, eff_mems; /* cpuset.effective_* */
	unsigned cpu_exclusive : 1;
	unsigned mem_exclusive : 1;
	unsigned mem_hardwall : 1;
	unsigned memory_migrate : 1;
	unsigned spread_page : 1;
	unsigned spread_slab : 1;
	unsigned sched_load_balance : 1;
	unsigned pressure_enabled : 1; /* root only: cpuset.memory_pressure_enabled */
	int relax_domain_level;
	/* fmeter (kernel/cgroup/cpuset-v1.c): val is the filtered rate, cnt the events
	 * since time (seconds) scaled by FM_SCALE; clock_s (root only) the latest time. */
	int fm_val, fm_cnt;
	int64_t fm_time;
	uint64_t clock_s;
};

#define FM_COEF 933       /* coefficient for half-life of 10 secs */
#define FM_MAXTICKS 99u   /* useless computing more ticks than this */
#define FM_MAXCNT 1000000 /* limit cnt to avoid overflow */
#define FM_SCALE 1000     /* faux fixed point scale */

/* Decays val by FM_COEF per whole second since the last update (at most 99; the
 * difference is taken as a u32, as the kernel's), then folds the count in. */
static void fmeter_update(struct cpuset_css *cs, uint64_t now)
{
	uint32_t ticks = (uint32_t)((int64_t)now - cs->fm_time);

	if (ticks == 0)
		return;
	if (ticks > FM_MAXTICKS)
		ticks = FM_MAXTICKS;
	while (ticks-- > 0)
		cs->fm_val = (FM_COEF * cs->fm_val) / FM_SCALE;
	cs->fm_time = (int64_t)now;
	cs->fm_val += ((FM_SCALE - FM_COEF) * cs->fm_cnt) / FM_SCALE;
	cs->fm_cnt = 0;
}

/* Which field a flag file changes (cftype private). */
enum {
	F_CPU_EXCLUSIVE,
	F_MEM_EXCLUSIVE,
	F_MEM_HARDWALL,
	F_MEMORY_MIGRATE,
	F_SPREAD_PAGE,
	F_SPREAD_SLAB,
	F_SCHED_LOAD_BALANCE,
	F_PRESSURE_ENABLED,
};

static struct cpuset_css *cs_of(struct ucg_css *css)
{
	return (struct cpuset_css *)css;
}

static struct cpuset_css *cs_parent(const struct cpuset_css *cs)
{
	struct ucg_cgroup *p = cs->css.cgroup->parent;

	return p ? cs_of(p->css[UCG_SS_cpuset]) : NULL;
}

static struct cpuset_css *cs_child(struct ucg_list *pos)
{
	return cs_of(ucg_container_of(pos, struct ucg_cgroup, sibling)->css[UCG_SS_cpuset]);
}

static struct ucg_engine *cs_engine(const struct cpuset_css *cs)
{
	return cs->css.cgroup->h->e;
}

static int v2_mode(const struct cpuset_css *cs)
{
	return (cs->css.cgroup->h->flags & UCG_HF_CPUSET_V2_MODE) != 0;
}

static int get_flag(const struct cpuset_css *cs, int which)
{
	switch (which) {
	case F_CPU_EXCLUSIVE: return cs->cpu_exclusive;
	case F_MEM_EXCLUSIVE: return cs->mem_exclusive;
	case F_MEM_HARDWALL: return cs->mem_hardwall;
	case F_MEMORY_MIGRATE: return cs->memory_migrate;
	case F_SPREAD_PAGE: return cs->spread_page;
	case F_SPREAD_SLAB: return cs->spread_slab;
	case F_SCHED_LOAD_BALANCE: return cs->sched_load_balance;
	default: return cs->pressure_enabled;
	}
}

static void set_flag(struct cpuset_css *cs, int which, int v)
{
	switch (which) {
	case F_CPU_EXCLUSIVE: cs->cpu_exclusive = v; break;
	case F_MEM_EXCLUSIVE: cs->mem_exclusive = v; break;
	case F_MEM_HARDWALL: cs->mem_hardwall = v; break;
	case F_MEMORY_MIGRATE: cs->memory_migrate = v; break;
	case F_SPREAD_PAGE: cs->spread_page = v; break;
	case F_SPREAD_SLAB: cs->spread_slab = v; break;
	case F_SCHED_LOAD_BALANCE: cs->sched_load_balance = v; break;
	default: cs->pressure_enabled = v; break;
	}
}

/* ---- the provider -------------------------------------------------------------------- */

/* Bit array in cpu_set_t order: bit i is byte i / 8, bit i % 8. */
static size_t to_bytes(const struct ucg_bitmap *b, unsigned nbits, unsigned char *out)
{
	size_t n = (nbits + 7) / 8;
	int i;

	memset(out, 0, n);
	for (i = ucg_bitmap_next(b, 0); i >= 0 && (unsigned)i < nbits; i = ucg_bitmap_next(b, (unsigned)i + 1))
		out[i / 8] |= (unsigned char)(1u << (i % 8));
	return n;
}

static void tell_task(struct ucg_engine *e, const struct cpuset_css *cs, int tid, int cpus,
		      int mems)
{
	const struct ucg_provider_ops *ops = e->cfg.provider;
	unsigned char mask[UCG_BITMAP_MAX_BITS / 8];
	size_t n;

	if (!ops)
		return;
	if (cpus && ops->cpus_changed) {
		n = to_bytes(&cs->eff_cpus, e->cfg.nr_cpus, mask);
		ops->cpus_changed(e->cfg.provider_ctx, e, tid, mask, n);
	}
	if (mems && ops->mems_changed) {
		n = to_bytes(&cs->eff_mems, e->cfg.nr_mems, mask);
		ops->mems_changed(e->cfg.provider_ctx, e, tid, mask, n);
	}
}

/* memory_migrate: asks the provider to move tid's pages from from to cs's mems. */
static void migrate_task(struct ucg_engine *e, const struct cpuset_css *cs, int tid,
			 const struct ucg_bitmap *from)
{
	const struct ucg_provider_ops *ops = e->cfg.provider;
	unsigned char fm[UCG_BITMAP_MAX_BITS / 8], tm[UCG_BITMAP_MAX_BITS / 8];
	size_t n;

	if (!ops || !ops->mems_migrate || !cs->memory_migrate ||
	    ucg_bitmap_equal(from, &cs->eff_mems))
		return;
	to_bytes(from, e->cfg.nr_mems, fm);
	n = to_bytes(&cs->eff_mems, e->cfg.nr_mems, tm);
	ops->mems_migrate(e->cfg.provider_ctx, e, tid, fm, tm, n);
}

/* Tells the provider about every task of a non-root cpuset; old_mems: the effective
 * mems before a change (memory_migrate), or NULL. */
static void tell_tasks(struct cpuset_css *cs, int cpus, int mems,
		       const struct ucg_bitmap *old_mems)
{
	struct ucg_engine *e = cs_engine(cs);
	struct ucg_list *lp, *tp;

	if (!cs->css.cgroup->parent || !e->cfg.provider)
		return;
	ucg_list_for_each(lp, &cs->css.cgroup->cset_links) {
		struct ucg_cset_link *l = ucg_container_of(lp, struct ucg_cset_link, cg_node);

		ucg_list_for_each(tp, &l->cset->tasks) {
			int tid = ucg_container_of(tp, struct ucg_task, cset_node)->info.tid;

			tell_task(e, cs, tid, cpus, mems);
			if (mems && old_mems)
				migrate_task(e, cs, tid, old_mems);
		}
	}
}

/* ---- effective masks -------------------------------------------------------------- */

static void compute_effective(const struct cpuset_css *cs, struct ucg_bitmap *cpus,
			      struct ucg_bitmap *mems)
{
	const struct cpuset_css *p = cs_parent(cs);

	*cpus = cs->cpus;
	*mems = cs->mems;
	if (!p)
		return;
	ucg_bitmap_and(cpus, &cs->cpus, &p->eff_cpus);
	ucg_bitmap_and(mems, &cs->mems, &p->eff_mems);
	if (v2_mode(cs)) {
		if (ucg_bitmap_empty(cpus))
			*cpus = p->eff_cpus;
		if (ucg_bitmap_empty(mems))
			*mems = p->eff_mems;
	}
}

/* Recomputes the effective masks of cs and its descendants, telling the provider
 * about the tasks of every cpuset whose masks changed. */
static void update_effective(struct cpuset_css *cs)
{
	struct ucg_bitmap cpus, mems, old_mems = cs->eff_mems;
	struct ucg_list *pos;
	int dc, dm;

	compute_effective(cs, &cpus, &mems);
	dc = !ucg_bitmap_equal(&cpus, &cs->eff_cpus);
	dm = !ucg_bitmap_equal(&mems, &cs->eff_mems);
	cs->eff_cpus = cpus;
	cs->eff_mems = mems;
	/* A cpuset left empty by hot-unplug is not told: its tasks are about to move. */
	if ((dc || dm) && !ucg_bitmap_empty(&cpus) && !ucg_bitmap_empty(&mems))
		tell_tasks(cs, dc, dm, &old_mems);
	ucg_list_for_each(pos, &cs->css.cgroup->children)
		update_effective(cs_child(pos));
}

/* ---- validation ------------------------------------------------------------------ */

/* is_cpuset_subset: masks are subsets and exclusive flags are not above q's. */
static int is_subset(const struct cpuset_css *p, const struct cpuset_css *q)
{
	return ucg_bitmap_subset(&p->cpus, &q->cpus) && ucg_bitmap_subset(&p->mems, &q->mems) &&
	       p->cpu_exclusive <= q->cpu_exclusive && p->mem_exclusive <= q->mem_exclusive;
}

static int excl_conflict(const struct cpuset_css *a, const struct cpuset_css *b)
{
	if ((a->cpu_exclusive || b->cpu_exclusive) && ucg_bitmap_intersects(&a->cpus, &b->cpus))
		return 1;
	if ((a->mem_exclusive || b->mem_exclusive) && ucg_bitmap_intersects(&a->mems, &b->mems))
		return 1;
	return 0;
}

/* The deadline-bandwidth check for an exclusive, load-balanced cpuset
 * (dl_cpuset_cpumask_can_shrink): the CPUs left must hold the SCHED_DEADLINE bandwidth
 * already reserved in the root domain. In 6.18 every online CPU's fair server reserves
 * 50 ms per 1 s, and a root domain may use 950000/1000000 of each CPU, so with N
 * online CPUs (one root domain; partitions are not modelled) k CPUs suffice iff
 * 0.95·k >= 0.05·N, computed in the kernel's 20-bit fixed point. In practice: an
 * exclusive cpuset's cpus cannot be emptied (EBUSY). */
static int dl_can_shrink(const struct cpuset_css *cur, const struct ucg_bitmap *trial)
{
	const struct cpuset_css *root = cur;
	uint64_t bw = (950000000ull << 20) / 1000000000ull;
	uint64_t server = (50000000ull << 20) / 1000000000ull;

	while (cs_parent(root))
		root = cs_parent(root);
	return bw * ucg_bitmap_weight(trial) >= server * ucg_bitmap_weight(&root->cpus);
}

/* Steps 5-8 of docs/kernel/controllers.md §1.2 for trial, a changed copy of cur, with the 6.18
 * deadline check (EBUSY) between 7 and 8. */
static int validate_change(struct cpuset_css *cur, const struct cpuset_css *trial)
{
	struct ucg_cgroup *cg = cur->css.cgroup;
	struct cpuset_css *par = cs_parent(cur);
	struct ucg_list *pos;

	ucg_list_for_each(pos, &cg->children)
		if (!is_subset(cs_child(pos), trial))
			return -EBUSY;
	if (!par)
		return 0; /* the remaining checks do not apply to the root */
	if (!is_subset(trial, par))
		return -EACCES;
	if (ucg_cgroup_populated(cg) &&
	    ((!ucg_bitmap_empty(&cur->cpus) && ucg_bitmap_empty(&trial->cpus)) ||
	     (!ucg_bitmap_empty(&cur->mems) && ucg_bitmap_empty(&trial->mems))))
		return -ENOSPC;
	if (cur->cpu_exclusive && cur->sched_load_balance && !ucg_bitmap_empty(&cur->eff_cpus) &&
	    !dl_can_shrink(cur, &trial->cpus))
		return -EBUSY;
	ucg_list_for_each(pos, &par->css.cgroup->children) {
		struct cpuset_css *sib = cs_child(pos);

		if (sib != cur && excl_conflict(trial, sib))
			return -EINVAL;
	}
	return 0;
}

/* Validates trial (a full copy of cs) and commits it. */
static int commit_trial(struct cpuset_css *cs, const struct cpuset_css *trial)
{
	int r = validate_change(cs, trial);

	if (r < 0)
		return r;
	cs->cpus = trial->cpus;
	cs->mems = trial->mems;
	cs->cpu_exclusive = trial->cpu_exclusive;
	cs->mem_exclusive = trial->mem_exclusive;
	cs->mem_hardwall = trial->mem_hardwall;
	cs->memory_migrate = trial->memory_migrate;
	cs->spread_page = trial->spread_page;
	cs->spread_slab = trial->spread_slab;
	cs->sched_load_balance = trial->sched_load_balance;
	cs->pressure_enabled = trial->pressure_enabled;
	update_effective(cs);
	return 0;
}

/* ---- life cycle and hooks ------------------------------------------------------------ */

static int cpuset_css_alloc(struct ucg_css *css, struct ucg_css *parent_css)
{
	struct cpuset_css *cs = cs_of(css), *par = parent_css ? cs_of(parent_css) : NULL;
	struct ucg_cgroup *cg = css->cgroup;
	struct ucg_engine *e = cg->h->e;
	struct ucg_list *pos;
	int copy;

	ucg_bitmap_init(&cs->cpus, e->cfg.nr_cpus);
	ucg_bitmap_init(&cs->mems, e->cfg.nr_mems);
	cs->sched_load_balance = 1;
	cs->relax_domain_level = -1;
	if (!par) {
		ucg_bitmap_fill(&cs->cpus);
		ucg_bitmap_fill(&cs->mems);
		cs->cpu_exclusive = cs->mem_exclusive = 1;
		cs->eff_cpus = cs->cpus;
		cs->eff_mems = cs->mems;
		return 0;
	}
	cs->spread_page = par->spread_page;
	cs->spread_slab = par->spread_slab;
	/* clone_children (copied into the new cgroup from its parent at mkdir). The new
	 * cgroup is not yet on its parent's list, so the loop sees only its siblings. */
	copy = cg->clone_children;
	ucg_list_for_each(pos, &par->css.cgroup->children) {
		struct cpuset_css *sib = cs_child(pos);

		if (sib->cpu_exclusive || sib->mem_exclusive)
			copy = 0;
	}
	if (copy) {
		cs->cpus = par->cpus;
		cs->mems = par->mems;
	}
	compute_effective(cs, &cs->eff_cpus, &cs->eff_mems);
	return 0;
}

static int cpuset_can_attach(const struct ucg_taskset *ts, struct ucg_css *dst)
{
	struct cpuset_css *cs = cs_of(dst);

	if (ucg_bitmap_empty(&cs->eff_cpus) || (!v2_mode(cs) && ucg_bitmap_empty(&cs->mems)))
		return -ENOSPC;
	return 0;
}

static void cpuset_attach(const struct ucg_taskset *ts, struct ucg_css *dst)
{
	size_t i;

	for (i = 0; i < ts->nr_tasks; i++) {
		const struct ucg_task_info *info = &ts->tasks[i]->info;
		struct ucg_css *src = ts->src && ts->src[i] ? ts->src[i]->css[dst->ss->id] : NULL;

		tell_task(ts->e, cs_of(dst), info->tid, 1, 1);
		/* the kernel moves the memory of thread-group leaders only */
		if (src && info->tid == info->tgid)
			migrate_task(ts->e, cs_of(dst), info->tid, &cs_of(src)->eff_mems);
	}
}

/* ---- files ----------------------------------------------------------------------------- */

static int show_mask(struct ucg_buf *out, const struct ucg_bitmap *b)
{
	ucg_bitmap_format_list(b, out);
	ucg_buf_putc(out, '\n');
	return 0;
}

static int cpus_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_mask(out, &cs_of(of->css)->cpus);
}

static int mems_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_mask(out, &cs_of(of->css)->mems);
}

static int eff_cpus_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_mask(out, &cs_of(of->css)->eff_cpus);
}

static int eff_mems_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_mask(out, &cs_of(of->css)->eff_mems);
}

/* The root's cpus and mems: refused before any parsing. */
static int root_mask_write(struct ucg_of *of, const char *buf, size_t len)
{
	return -EACCES;
}

static int mask_write(struct ucg_of *of, const struct ucg_bitmap *set, int mems)
{
	struct cpuset_css *cs = cs_of(of->css);
	struct cpuset_css *root = cs_of(of->cg->h->root->css[UCG_SS_cpuset]);
	struct cpuset_css *trial;
	int r;

	if (!ucg_bitmap_subset(set, mems ? &root->mems : &root->cpus))
		return -EINVAL; /* offline CPU or node */
	if (ucg_bitmap_equal(set, mems ? &cs->mems : &cs->cpus))
		return 0;
	trial = ucg_malloc(sizeof(*trial));
	if (!trial)
		return -ENOMEM;
	*trial = *cs;
	if (mems) {
		ucg_bitmap_init(&trial->mems, of->e->cfg.nr_mems);
		ucg_bitmap_or(&trial->mems, &trial->mems, set);
	} else {
		ucg_bitmap_init(&trial->cpus, of->e->cfg.nr_cpus);
		ucg_bitmap_or(&trial->cpus, &trial->cpus, set);
	}
	r = commit_trial(cs, trial);
	ucg_free(trial);
	return r;
}

static int cpus_write(struct ucg_of *of, const struct ucg_bitmap *set)
{
	return mask_write(of, set, 0);
}

static int mems_write(struct ucg_of *of, const struct ucg_bitmap *set)
{
	return mask_write(of, set, 1);
}

static uint64_t flag_read(struct ucg_of *of)
{
	return (uint64_t)get_flag(cs_of(of->css), (int)of->cft->private);
}

static int flag_write(struct ucg_of *of, uint64_t v)
{
	struct cpuset_css *cs = cs_of(of->css);
	struct cpuset_css *trial = ucg_malloc(sizeof(*trial));
	int r;

	if (!trial)
		return -ENOMEM;
	*trial = *cs;
	set_flag(trial, (int)of->cft->private, v != 0);
	r = commit_trial(cs, trial);
	ucg_free(trial);
	return r;
}

static int64_t relax_read(struct ucg_of *of)
{
	return cs_of(of->css)->relax_domain_level;
}

static int relax_write(struct ucg_of *of, int64_t v)
{
	int max = of->e->cfg.cpuset_relax_domain_max ? of->e->cfg.cpuset_relax_domain_max : 5;

	if (v < -1 || v > max)
		return -EINVAL;
	cs_of(of->css)->relax_domain_level = (int)v;
	return 0;
}

static uint64_t pressure_read(struct ucg_of *of)
{
	struct cpuset_css *cs = cs_of(of->css);

	fmeter_update(cs, cs_of(of->cg->h->root->css[UCG_SS_cpuset])->clock_s);
	return (uint64_t)cs->fm_val;
}

/* ---- public calls (charge.h) ------------------------------------------------------ */

static struct ucg_hierarchy *cpuset_hierarchy(struct ucg_engine *e)
{
	struct ucg_hierarchy *h = NULL;

	while ((h = ucg_hierarchy_next(e, h)))
		if (h->ss_mask & (1u << UCG_SS_cpuset))
			return h;
	return NULL;
}

static void from_bytes(struct ucg_bitmap *b, unsigned nbits, const unsigned char *m, size_t n)
{
	size_t i;

	ucg_bitmap_init(b, nbits);
	for (i = 0; i < n * 8 && i < nbits; i++)
		if (m[i / 8] & (1u << (i % 8)))
			ucg_bitmap_set(b, (unsigned)i);
}

/* Hot-unplug, pass 1 (v1 mode only): every cpuset loses the offline CPUs and nodes. */
static void hotplug_shrink(struct cpuset_css *cs, const struct ucg_bitmap *cpus,
			   const struct ucg_bitmap *mems)
{
	struct ucg_list *pos;

	if (cs_parent(cs) && !v2_mode(cs)) {
		ucg_bitmap_and(&cs->cpus, &cs->cpus, cpus);
		ucg_bitmap_and(&cs->mems, &cs->mems, mems);
	}
	ucg_list_for_each(pos, &cs->css.cgroup->children)
		hotplug_shrink(cs_child(pos), cpus, mems);
}

/* Pass 3, pre-order: a populated cpuset left without cpus or mems hands its tasks to
 * the nearest ancestor that has both (remove_tasks_in_empty_cpuset). */
static int hotplug_move(struct cpuset_css *cs)
{
	struct ucg_list *pos;
	int moved = 0, r;

	if (cs_parent(cs) && ucg_cgroup_populated(cs->css.cgroup) &&
	    (ucg_bitmap_empty(&cs->eff_cpus) || ucg_bitmap_empty(&cs->eff_mems))) {
		struct cpuset_css *to = cs_parent(cs);

		while (cs_parent(to) &&
		       (ucg_bitmap_empty(&to->eff_cpus) || ucg_bitmap_empty(&to->eff_mems)))
			to = cs_parent(to);
		r = ucg_task_transfer(cs_engine(cs), cs->css.cgroup, to->css.cgroup);
		if (r < 0)
			return r;
		moved += r;
	}
	ucg_list_for_each(pos, &cs->css.cgroup->children) {
		r = hotplug_move(cs_child(pos));
		if (r < 0)
			return r;
		moved += r;
	}
	return moved;
}

int ucg_cpuset_set_online(struct ucg_engine *e, const unsigned char *cpus, size_t cpus_bytes,
			  const unsigned char *mems, size_t mems_bytes)
{
	struct ucg_hierarchy *h = cpuset_hierarchy(e);
	struct ucg_bitmap *c, *m;
	struct cpuset_css *root;
	int r;

	c = ucg_malloc(2 * sizeof(*c));
	if (!c)
		return -ENOMEM;
	m = c + 1;
	from_bytes(c, e->cfg.nr_cpus, cpus, cpus_bytes);
	from_bytes(m, e->cfg.nr_mems, mems, mems_bytes);
	r = -EINVAL;
	if (ucg_bitmap_empty(c) || ucg_bitmap_empty(m))
		goto out; /* the last CPU or node cannot go */
	r = 0;
	if (!h)
		goto out;
	root = cs_of(h->root->css[UCG_SS_cpuset]);
	root->cpus = *c; /* only the root gets a returning CPU back */
	root->mems = *m;
	hotplug_shrink(root, c, m);
	update_effective(root);
	r = hotplug_move(root);
out:
	ucg_free(c);
	return r;
}

int ucg_cpuset_get(const struct ucg_cgroup *cg, int effective, unsigned char *cpus,
		   size_t cpus_bytes, unsigned char *mems, size_t mems_bytes)
{
	const struct ucg_engine *e = cg->h->e;
	unsigned char buf[UCG_BITMAP_MAX_BITS / 8];
	const struct cpuset_css *cs;
	size_t n;

	if (!cg->css[UCG_SS_cpuset] || cpus_bytes < (e->cfg.nr_cpus + 7) / 8 ||
	    mems_bytes < (e->cfg.nr_mems + 7) / 8)
		return -EINVAL;
	cs = cs_of(cg->css[UCG_SS_cpuset]);
	memset(cpus, 0, cpus_bytes);
	memset(mems, 0, mems_bytes);
	n = to_bytes(effective ? &cs->eff_cpus : &cs->cpus, e->cfg.nr_cpus, buf);
	memcpy(cpus, buf, n);
	n = to_bytes(effective ? &cs->eff_mems : &cs->mems, e->cfg.nr_mems, buf);
	memcpy(mems, buf, n);
	return 0;
}

int ucg_cpuset_memory_pressure_bump(struct ucg_cgroup *cg, uint64_t now_s)
{
	struct cpuset_css *cs, *root;

	if (!cg)
		return 0;
	if (!cg->css[UCG_SS_cpuset])
		return -EINVAL;
	cs = cs_of(cg->css[UCG_SS_cpuset]);
	root = cs_of(cg->h->root->css[UCG_SS_cpuset]);
	root->clock_s = now_s;
	if (!root->pressure_enabled)
		return 0;
	fmeter_update(cs, now_s);
	cs->fm_cnt = cs->fm_cnt + FM_SCALE > FM_MAXCNT ? FM_MAXCNT : cs->fm_cnt + FM_SCALE;
	return 0;
}

void ucg_cpuset_clock(struct ucg_engine *e, uint64_t now_s)
{
	struct ucg_hierarchy *h = cpuset_hierarchy(e);

	if (h)
		cs_of(h->root->css[UCG_SS_cpuset])->clock_s = now_s;
}

static const struct ucg_cftype cpuset_files[] = {
	{ .name = "cpus", .flags = UCG_CFT_ONLY_ON_ROOT, .mode = 0644, .show = cpus_show,
	  .write = root_mask_write },
	{ .name = "cpus", .flags = UCG_CFT_NOT_ON_ROOT, .mode = 0644, .show = cpus_show,
	  .write_cpulist = cpus_write },
	{ .name = "mems", .flags = UCG_CFT_ONLY_ON_ROOT, .mode = 0644, .show = mems_show,
	  .write = root_mask_write },
	{ .name = "mems", .flags = UCG_CFT_NOT_ON_ROOT, .mode = 0644, .show = mems_show,
	  .write_nodelist = mems_write },
	{ .name = "effective_cpus", .mode = 0444, .show = eff_cpus_show },
	{ .name = "effective_mems", .mode = 0444, .show = eff_mems_show },
	{ .name = "cpu_exclusive", .mode = 0644, .read_u64 = flag_read, .write_u64 = flag_write,
	  .private = F_CPU_EXCLUSIVE },
	{ .name = "mem_exclusive", .mode = 0644, .read_u64 = flag_read, .write_u64 = flag_write,
	  .private = F_MEM_EXCLUSIVE },
	{ .name = "mem_hardwall", .mode = 0644, .read_u64 = flag_read, .write_u64 = flag_write,
	  .private = F_MEM_HARDWALL },
	{ .name = "memory_migrate", .mode = 0644, .read_u64 = flag_read, .write_u64 = flag_write,
	  .private = F_MEMORY_MIGRATE },
	{ .name = "memory_spread_page", .mode = 0644, .read_u64 = flag_read,
	  .write_u64 = flag_write, .private = F_SPREAD_PAGE },
	{ .name = "memory_spread_slab", .mode = 0644, .read_u64 = flag_read,
	  .write_u64 = flag_write, .private = F_SPREAD_SLAB },
	{ .name = "sched_load_balance", .mode = 0644, .read_u64 = flag_read,
	  .write_u64 = flag_write, .private = F_SCHED_LOAD_BALANCE },
	{ .name = "sched_relax_domain_level", .mode = 0644, .read_s64 = relax_read,
	  .write_s64 = relax_write },
	{ .name = "memory_pressure", .mode = 0444, .read_u64 = pressure_read },
	{ .name = "memory_pressure_enabled", .flags = UCG_CFT_ONLY_ON_ROOT, .mode = 0644,
	  .read_u64 = flag_read, .write_u64 = flag_write, .private = F_PRESSURE_ENABLED },
	{ 0 },
};

const struct ucg_subsys ucg_cpuset_subsys = {
	.name = "cpuset",
	.id = UCG_SS_cpuset,
	.css_size = sizeof(struct cpuset_css),
	.css_alloc = cpuset_css_alloc,
	.can_attach = cpuset_can_attach,
	.attach = cpuset_attach,
	.files = cpuset_files,
};
