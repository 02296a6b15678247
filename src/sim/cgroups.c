/* sim/cgroups.c — the simulator's data of the engine's cgroups, hung off them by an
 * engine observer.
 *
 * Who owns what. The engine owns the cgroups: the tree, the names, the limits, the
 * controllers' counters. The simulator registers one observer (ucg_observer_add) and
 * hangs a struct sim_cg off every cgroup in its slot (ucg_cgroup_set_priv) when the
 * engine reports it: the root at hierarchy_mounted, the others at cgroup_created,
 * whoever made them (a scenario's mkdir, a test, anything driving the engine). A
 * handle finds its data with ucg_cgroup_priv (sim_cg_of), a path through
 * ucg_cgroup_lookup; the simulator keeps no table of paths. What it keeps per
 * cgroup is the models' state and statistics, links to the parent's and the live
 * children's data (the models walk them on every charge), and the control values
 * the models need, read through the controllers' typed accessors
 * (controllers/charge.h) and cached until the engine reports a write
 * (file_written) to that cgroup's files or an ancestor's, or something global
 * changes (a mount, a device: sim.cfg_epoch moves).
 *
 * Removal. At cgroup_removed the data leaves its parent's children and loses its
 * handle, but stays (sim.cgs owns it) with its statistics and its path, for the
 * reports; what the models still hold charged to it counts in its ancestors, as the
 * controllers pass a removed cgroup's charges to the parent.
 *
 * Limits: an observer cannot fail the engine's call, so data that cannot be
 * allocated leaves sim.view_err set (-ENOMEM) for the command to report; a cgroup
 * without data is charged through its handle alone.
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

static void cg_defaults(struct sim_cg *cg)
{
	cg->shares = 1024;
	cg->quota_ns = -1;
	cg->period_ns = 100 * SIM_MSEC;
	cg->ncpus = 0;
	cg->cpus_mask = 0;
	cg->frozen = false;
	cg->blk_weight = 100;
	memset(cg->rbps, 0, sizeof(cg->rbps));
	memset(cg->wbps, 0, sizeof(cg->wbps));
	memset(cg->riops, 0, sizeof(cg->riops));
	memset(cg->wiops, 0, sizeof(cg->wiops));
	cg->classid = 0;
	cg->prio = 0;
	cg->soft_limit = UINT64_MAX;
}

/* Hangs new data off engine cgroup ucg, a child of parent's (NULL: a root, whose
 * hierarchy sim_cgroups_mounted sets). */
static int cg_new(struct sim *s, struct ucg_cgroup *ucg, struct sim_cg *parent)
{
	struct sim_cg *cg;
	void *mem;
	int r;

	if (s->ncgs == s->ccgs) {
		size_t n = s->ccgs ? s->ccgs * 2 : 64;
		struct sim_cg **v = ucg_realloc(s->cgs, n * sizeof(*v));
		unsigned char *b;

		if (!v)
			return -ENOMEM;
		s->cgs = v;
		b = ucg_realloc(s->cg_bw, n * sizeof(*b));
		if (!b)
			return -ENOMEM;
		s->cg_bw = b;
		s->ccgs = n;
	}
	if (parent && parent->nchildren == parent->cchildren) {
		size_t n = parent->cchildren ? parent->cchildren * 2 : 4;
		struct sim_cg **v = ucg_realloc(parent->children, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		parent->children = v;
		parent->cchildren = n;
	}
	/* aligned to a cache line (struct sim_cg's first) */
	cg = ucg_alloc_aligned(sizeof(*cg), _Alignof(struct sim_cg), 1, &mem);
	if (!cg)
		return -ENOMEM;
	cg->mem = mem;
	sim_ilist_init(&cg->act); /* the memory model's act list (mem_pagecache.c) */
	cg->act_hint = SIM_NO_FRAME;
	r = ucg_cgroup_set_priv(ucg, s->obs_id, cg);
	if (r < 0) {
		ucg_free(cg->mem);
		return r;
	}
	cg->ucg = ucg;
	cg->id = (int)s->ncgs;
	cg->hier = parent ? parent->hier : NULL;
	cg->parent = parent;
	cg_defaults(cg);
	sim_cg_bw_note(s, cg);
	cg->cfg_epoch = UINT64_MAX;
	cg->runtime_left = 0;
	cg->q_seen = -1;
	cg->p_seen = 100 * SIM_MSEC;
	s->cgs[s->ncgs++] = cg;
	if (parent)
		parent->children[parent->nchildren++] = cg;
	return 0;
}

static void cg_unlink_child(struct sim_cg *parent, struct sim_cg *cg)
{
	size_t i;

	for (i = 0; i < parent->nchildren; i++)
		if (parent->children[i] == cg) {
			memmove(&parent->children[i], &parent->children[i + 1],
				(parent->nchildren - i - 1) * sizeof(cg));
			parent->nchildren--;
			return;
		}
}

static void note_err(struct sim *s, int r)
{
	if (r < 0 && !s->view_err)
		s->view_err = r;
}

/* ---- the observer ------------------------------------------------------------------ */

static void obs_mounted(void *ctx, struct ucg_hierarchy *h, int created)
{
	struct sim *s = ctx;
	struct ucg_cgroup *root = ucg_hierarchy_root(h);

	(void)created;
	if (!sim_cg_of(s, root))
		note_err(s, cg_new(s, root, NULL));
}

/* h goes (the scenario never unmounts one it named, but the engine's contract says
 * handles into h die here): its cgroups' data loses the handles, as at removal. */
static void obs_unmounted(void *ctx, struct ucg_hierarchy *h, int destroying)
{
	struct sim *s = ctx;
	size_t i;

	if (!destroying)
		return;
	for (i = 0; i < s->ncgs; i++) {
		struct sim_cg *cg = s->cgs[i];

		if (cg->ucg && ucg_cgroup_hierarchy(cg->ucg) == h) {
			sim_cg_path(cg);
			cg->removed = true;
			cg->ucg = NULL;
		}
	}
}

static void obs_created(void *ctx, struct ucg_cgroup *ucg)
{
	struct sim *s = ctx;
	struct sim_cg *parent = sim_cg_of(s, ucg_cgroup_parent(ucg));

	if (parent)
		note_err(s, cg_new(s, ucg, parent));
}

static void obs_removed(void *ctx, struct ucg_cgroup *ucg)
{
	struct sim *s = ctx;
	struct sim_cg *cg = sim_cg_of(s, ucg);

	if (!cg || !cg->parent)
		return;
	sim_cg_path(cg); /* the last path, while the engine still resolves it */
	if (!cg->path)
		note_err(s, -ENOMEM);
	cg->removed = true;
	cg->ucg = NULL;
	cg_unlink_child(cg->parent, cg);
}

static void drop_paths(struct sim_cg *cg)
{
	size_t i;

	ucg_free(cg->path);
	cg->path = NULL;
	for (i = 0; i < cg->nchildren; i++)
		drop_paths(cg->children[i]);
}

static void obs_renamed(void *ctx, struct ucg_cgroup *ucg, const char *old_name)
{
	struct sim_cg *cg = sim_cg_of(ctx, ucg);

	(void)old_name;
	if (cg)
		drop_paths(cg);
}

static void invalidate_subtree(struct sim_cg *cg)
{
	size_t i;

	cg->cfg_epoch = UINT64_MAX;
	for (i = 0; i < cg->nchildren; i++)
		invalidate_subtree(cg->children[i]);
}

/* A control file of ucg took a write: it and its subtree read their values again
 * (a parent's limit bounds its children's: cpuset.cpus, the hierarchical ones), and
 * cpu.c reads quotas and shares again. cgroup.procs and tasks come as attaches. */
static void obs_written(void *ctx, struct ucg_cgroup *ucg, const char *file, const char *buf,
			size_t len)
{
	struct sim *s = ctx;
	struct sim_cg *cg = sim_cg_of(s, ucg);

	(void)file;
	(void)buf;
	(void)len;
	if (cg)
		invalidate_subtree(cg);
	else
		s->cfg_epoch++;
	s->cfg_writes++;
}

static const struct ucg_observer_ops sim_observer = {
	.hierarchy_mounted = obs_mounted,
	.hierarchy_unmounted = obs_unmounted,
	.cgroup_created = obs_created,
	.cgroup_removed = obs_removed,
	.cgroup_renamed = obs_renamed,
	.file_written = obs_written,
};

int sim_cgroups_init(struct sim *s)
{
	int r = ucg_observer_add(s->e, &sim_observer, s);

	if (r < 0)
		return r;
	s->obs_id = r;
	return 0;
}

void sim_cgroups_fini(struct sim *s)
{
	size_t i;

	if (s->e)
		ucg_observer_remove(s->e, s->obs_id);
	for (i = 0; i < s->ncgs; i++) {
		ucg_free(s->cgs[i]->path);
		ucg_free(s->cgs[i]->children);
		ucg_free(s->cgs[i]->brq_mem);
		ucg_free(s->cgs[i]->mem);
	}
	ucg_free(s->cgs);
	s->cgs = NULL;
	ucg_free(s->cg_bw);
	s->cg_bw = NULL;
	s->ncgs = s->ccgs = 0;
}

int sim_cgroups_mounted(struct sim *s, struct sim_hier *hi)
{
	struct sim_cg *root = sim_cg_of(s, ucg_hierarchy_root(hi->h));

	if (!root)
		return s->view_err ? s->view_err : -ENOMEM;
	root->hier = hi;
	hi->root = root;
	return 0;
}

/* ---- lookups ----------------------------------------------------------------------- */

struct sim_cg *sim_cg_find(struct sim *s, struct sim_hier *hi, const char *path)
{
	struct ucg_cgroup *ucg;

	return ucg_cgroup_lookup(hi->h, path, &ucg) < 0 ? NULL : sim_cg_of(s, ucg);
}

const char *sim_cg_path(struct sim_cg *cg)
{
	if (!cg->path && cg->ucg) {
		struct ucg_buf b;

		ucg_buf_init(&b);
		ucg_cgroup_path(cg->ucg, &b);
		if (!ucg_buf_error(&b))
			cg->path = ucg_buf_steal(&b, NULL);
		ucg_buf_fini(&b);
	}
	return cg->path ? cg->path : "?";
}

bool sim_cg_is_under(const struct sim_cg *cg, const struct sim_cg *ancestor)
{
	for (; cg; cg = cg->parent)
		if (cg == ancestor)
			return true;
	return false;
}

/* ---- control values ---------------------------------------------------------------- */

static void refresh_cpuset(struct sim_cg *cg)
{
	/* the engine's machine has 64 CPUs (sim.c's engine_start); room for 512 */
	unsigned char cpus[64], mems[64];
	unsigned n = 0;
	size_t i;

	if (ucg_cpuset_get(cg->ucg, 1, cpus, sizeof(cpus), mems, sizeof(mems)) < 0)
		return;
	for (i = 0; i < sizeof(cpus); i++) {
		if (!cpus[i])
			continue;
		n += (unsigned)__builtin_popcount(cpus[i]);
		if (i < 8)
			cg->cpus_mask |= (uint64_t)cpus[i] << (8 * i);
	}
	cg->ncpus = n;
}

/* The cgroup's own throttle rules for the simulator's devices (none: 0). Rules name
 * devices: with none (yet) they can set nothing, and adding one re-reads every
 * cgroup (scenario_exec.c's changed()). */
static void refresh_blkio(struct sim *s, struct sim_cg *cg)
{
	struct ucg_blkio_rule rules[2 * SIM_MAX_DEV];
	unsigned weight = 0;
	size_t n = 0, i, k;

	if (ucg_blkio_get(cg->ucg, rules, sizeof(rules) / sizeof(rules[0]), &n, &weight) < 0)
		return;
	if (weight) /* the root has none */
		cg->blk_weight = weight;
	if (n > sizeof(rules) / sizeof(rules[0]))
		n = sizeof(rules) / sizeof(rules[0]);
	for (i = 0; i < n; i++)
		for (k = 0; k < s->ndevs; k++) {
			const struct ucg_blkio_rule *u = &rules[i];

			if (s->devs[k]->major != u->major || s->devs[k]->minor != u->minor)
				continue;
			if (u->read_bps != UINT64_MAX)
				cg->rbps[k] = u->read_bps;
			if (u->write_bps != UINT64_MAX)
				cg->wbps[k] = u->write_bps;
			if (u->read_iops != UINT32_MAX)
				cg->riops[k] = u->read_iops;
			if (u->write_iops != UINT32_MAX)
				cg->wiops[k] = u->write_iops;
		}
}

void sim_cg_reread(struct sim *s, struct sim_cg *cg)
{
	unsigned m = cg->hier->ss_mask;
	struct ucg_cgroup *u = cg->ucg;

	cg->cfg_epoch = s->cfg_epoch;
	cg_defaults(cg);
	sim_cg_bw_note(s, cg);
	if (!u)
		return; /* removed: the defaults */
	if (m & (1u << UCG_SS_cpu)) {
		struct ucg_cpu_bandwidth bw;

		if (ucg_cpu_bandwidth_get(u, &bw) == 0) {
			cg->shares = bw.shares > UINT32_MAX ? UINT32_MAX : (unsigned)bw.shares;
			cg->quota_ns = bw.quota_us > 0 ? bw.quota_us * 1000 : bw.quota_us;
			sim_cg_bw_note(s, cg);
			cg->period_ns = (int64_t)bw.period_us * 1000;
		}
		if (cg->period_ns <= 0)
			cg->period_ns = 100 * SIM_MSEC;
		if (cg->shares < 2)
			cg->shares = 2;
	}
	if (m & (1u << UCG_SS_cpuset))
		refresh_cpuset(cg);
	if (m & (1u << UCG_SS_freezer)) {
		struct ucg_freezer_state fs;

		if (ucg_freezer_get(u, &fs) == 0)
			cg->frozen = fs.state != UCG_FREEZER_THAWED;
	}
	if (m & (1u << UCG_SS_blkio))
		refresh_blkio(s, cg);
	if (m & (1u << UCG_SS_memory)) {
		struct ucg_memory_state ms;

		if (ucg_memory_get(u, &ms) == 0)
			cg->soft_limit = ms.soft_limit >= (1ull << 62) ? UINT64_MAX
								       : ms.soft_limit / SIM_PAGE;
	}
	if (m & (1u << UCG_SS_net_cls))
		ucg_net_cls_classid_get(u, &cg->classid);
	if (m & (1u << UCG_SS_net_prio) && ucg_net_prio_priority(u, "eth0", &cg->prio) < 0)
		cg->prio = 0;
}
