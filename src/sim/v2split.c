/* sim/v2split.c — ucgroups' v2 enforcement of a divergent layout, as the simulator
 * runs it: `split NAME [quota=US] [period=US] [shares=N] LEAF...`.
 *
 * When a process's v1 paths diverge (memory /a, cpu /q), the daemon's v2 layout puts
 * it in a leaf ROOT/a/.ucg.cpu:q/.ucg: the cpu cgroup /q is spread over leaves under
 * several outer (memory) parents, and its quota and cpu.shares must be divided over
 * them (host/v2split.h, docs/enforcement.md). A scenario builds that v2 tree as a v1
 * cpu hierarchy (outer directories, the `.ucg.cpu:q` level, the `.ucg` leaf holding
 * the tasks) and names, with `split`, the v1 group's settings and its leaves. From
 * the command on, once a virtual second, this file does what the daemon's round does,
 * with the daemon's own arithmetic (controllers/cpu_v2.h):
 *
 *   quota    each leaf's CPU time and throttle count over the last second, its last
 *            part -> ucg_v2_split_quota -> the leaf's cpu.cfs_quota_us (and period),
 *            written only when it changes (a write restarts the period, in the kernel
 *            as here);
 *   weight   each leaf's runnable time over the last second (CPU used plus time
 *            waiting for a CPU) -> ucg_v2_split_weight of the group's cpu.weight
 *            (ucg_v1v2_cpu_weight of shares=) -> the level directory's (the leaf's
 *            parent's) cpu.shares, as the kernel converts a weight
 *            (ucg_v2_weight_shares).
 *
 * The time waiting stands for the kernel's cpu.pressure "some" total, which the daemon
 * reads: every 10 ms of virtual time each leaf adds 10 ms times min(1, what its
 * runnable tasks want - the CPUs it is granted), the share of that instant some task
 * of it waits (a throttled leaf's tasks wait too). A sample, not an integral: a leaf
 * whose rate changes within 10 ms is seen at one side of the change.
 *
 * Each round appends "split NAME: quota Q... shares S..." to the transcript. Limits:
 * a leaf belongs to one split group (the daemon takes the smallest part of nested
 * groups; here nesting is not modelled); the weights go on each leaf's parent, so two
 * leaves of one group need different parents.
 */
#include "sim/v2split.h"

#include "base/alloc.h"
#include "controllers/charge.h"
#include "controllers/cpu_v2.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define ROUND_EVERY SIM_SEC
#define WAIT_SAMPLE (10 * SIM_MSEC)

struct split_leaf {
	struct sim_cg *cg;
	int64_t last_ns;         /* its CPU time at the last round */
	uint64_t last_thr;       /* nr_throttled at the last round */
	int64_t waited_ns;       /* sampled waiting since the last round */
	uint64_t part_us;        /* its quota part (0: none yet) */
	uint64_t shares_written; /* its parent's cpu.shares as last written, 0 none */
};

struct split_group {
	char *name;
	int64_t quota_us; /* -1: none */
	uint64_t period_us, shares;
	struct split_leaf *leaves;
	size_t n;
	sim_time last_round; /* -1: none yet */
	int line;            /* the `split` command's */
};

struct sim_v2split {
	struct split_group *g;
	size_t n;
	struct sim_event_src round_ev, wait_ev;
	bool armed;
	sim_time next_round; /* when round_ev fires next */
	unsigned long rounds;
};

static void group_fini(struct split_group *g)
{
	ucg_free(g->name);
	ucg_free(g->leaves);
}

void sim_v2split_free(struct sim_v2split *sp)
{
	size_t i;

	if (!sp)
		return;
	for (i = 0; i < sp->n; i++)
		group_fini(&sp->g[i]);
	ucg_free(sp->g);
	ucg_free(sp);
}

/* What the runnable tasks of leaf want, in CPUs. */
static double leaf_want(struct sim *s, struct sim_cg *leaf)
{
	double want = 0;
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];
		struct sim_cg *cg;

		if (!t->alive || t->cpu < 0 || t->cpu_demand <= 0)
			continue;
		cg = sim_task_cg(s, t, UCG_SS_cpu);
		if (cg && sim_cg_is_under(cg, leaf))
			want += t->cpu_demand;
	}
	return want;
}

static void wait_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct sim_v2split *sp = s->v2split;
	size_t i, j;

	(void)src;
	(void)arg;
	sim_cpu_rates_fresh(s); /* the leaves' rates are read */
	for (i = 0; i < sp->n; i++)
		for (j = 0; j < sp->g[i].n; j++) {
			struct split_leaf *l = &sp->g[i].leaves[j];
			double short_ = leaf_want(s, l->cg) - l->cg->rate;

			if (short_ > 1)
				short_ = 1;
			if (short_ > 0)
				l->waited_ns += (int64_t)(short_ * (double)WAIT_SAMPLE + 0.5);
		}
	if (s->now + WAIT_SAMPLE <= s->end)
		sim_schedule(s, s->now + WAIT_SAMPLE, &sp->wait_ev, 0);
}

/* Writes value to file of cg through the engine, as the daemon writes v2 files. */
static int put(struct sim *s, struct sim_cg *cg, const char *file, const char *value)
{
	char path[1024];
	const char *p = sim_cg_path(cg);
	int r;

	snprintf(path, sizeof(path), "%s%s%s", p, strcmp(p, "/") ? "/" : "", file);
	r = ucg_fs_write_all(s->e, cg->hier->h, path, &s->root_cred, value, strlen(value));
	if (r == 0)
		sim_cpu_changed(s);
	return r;
}

static int round_group(struct sim *s, struct split_group *g)
{
	struct ucg_v2_split_leaf *q = ucg_calloc(g->n, sizeof(*q));
	struct ucg_v2_weight_part *w = ucg_calloc(g->n, sizeof(*w));
	uint64_t interval_us = g->last_round >= 0 ? (uint64_t)(s->now - g->last_round) / 1000 : 0;
	char v[64];
	size_t i;
	int r = 0;

	if (!q || !w) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < g->n; i++) {
		struct split_leaf *l = &g->leaves[i];
		int64_t used = l->cg->cpu_ns - l->last_ns;

		if (g->last_round >= 0 && l->part_us) {
			q[i].used_us = (uint64_t)(used / 1000);
			q[i].throttled = l->cg->nr_throttled > l->last_thr;
			q[i].alloc_us = l->part_us;
		}
		w[i].demand_us = g->last_round >= 0 ? (uint64_t)((used + l->waited_ns) / 1000) : 0;
	}
	if (g->quota_us >= 0)
		ucg_v2_split_quota((uint64_t)g->quota_us, g->period_us, interval_us, q, g->n);
	ucg_v2_split_weight(ucg_v1v2_cpu_weight(g->shares), w, g->n);
	ucg_buf_puts(&s->log, "[");
	sim_format_time(s->now, &s->log);
	sim_logf(s, "] split %s:", g->name);
	for (i = 0; i < g->n && r == 0; i++) {
		struct split_leaf *l = &g->leaves[i];
		uint64_t sh = ucg_v2_weight_shares(w[i].weight);

		if (g->quota_us >= 0 && q[i].next_us != l->part_us) {
			snprintf(v, sizeof(v), "%" PRIu64 "\n", g->period_us);
			r = put(s, l->cg, "cpu.cfs_period_us", v);
			snprintf(v, sizeof(v), "%" PRIu64 "\n", q[i].next_us);
			if (r == 0)
				r = put(s, l->cg, "cpu.cfs_quota_us", v);
			l->part_us = q[i].next_us;
		}
		if (r == 0 && l->cg->parent && sh != l->shares_written) {
			snprintf(v, sizeof(v), "%" PRIu64 "\n", sh);
			r = put(s, l->cg->parent, "cpu.shares", v);
			l->shares_written = sh;
		}
		if (g->quota_us >= 0)
			sim_logf(s, " %s quota %" PRIu64 " weight %" PRIu64, sim_cg_path(l->cg),
				 l->part_us, w[i].weight);
		else
			sim_logf(s, " %s weight %" PRIu64, sim_cg_path(l->cg), w[i].weight);
		l->last_ns = l->cg->cpu_ns;
		l->last_thr = l->cg->nr_throttled;
		l->waited_ns = 0;
	}
	sim_logf(s, "\n");
	g->last_round = s->now;
out:
	ucg_free(q);
	ucg_free(w);
	return r;
}

static void round_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct sim_v2split *sp = s->v2split;
	size_t i;

	(void)src;
	(void)arg;
	sim_cpu_settle(s); /* the leaves' CPU time, as of now */
	for (i = 0; i < sp->n; i++) {
		int r = round_group(s, &sp->g[i]);

		if (r < 0) {
			sim_fail(s, sp->g[i].line, r, "split %s: round", sp->g[i].name);
			return;
		}
	}
	sp->rounds++;
	sp->next_round = s->now + ROUND_EVERY;
	if (sp->next_round <= s->end)
		sim_schedule(s, sp->next_round, &sp->round_ev, 0);
}

int sim_v2split_add(struct sim *s, int line, const char *name, int64_t quota_us, uint64_t period_us,
		    uint64_t shares, struct sim_cg **leaves, size_t n)
{
	struct sim_v2split *sp = s->v2split;
	struct split_group *g;
	size_t i;

	if (!sp) {
		sp = ucg_calloc(1, sizeof(*sp));
		if (!sp)
			return -ENOMEM;
		sp->round_ev.fire = round_fire;
		sp->wait_ev.fire = wait_fire;
		s->v2split = sp;
	}
	g = ucg_realloc(sp->g, (sp->n + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	sp->g = g;
	g = &sp->g[sp->n];
	memset(g, 0, sizeof(*g));
	g->name = ucg_strdup(name);
	g->leaves = ucg_calloc(n, sizeof(*g->leaves));
	if (!g->name || !g->leaves) {
		group_fini(g);
		return -ENOMEM;
	}
	g->quota_us = quota_us;
	g->period_us = period_us;
	g->shares = shares;
	g->n = n;
	g->last_round = -1;
	g->line = line;
	sim_cpu_settle(s);
	for (i = 0; i < n; i++) {
		g->leaves[i].cg = leaves[i];
		g->leaves[i].last_ns = leaves[i]->cpu_ns;
		g->leaves[i].last_thr = leaves[i]->nr_throttled;
	}
	sp->n++;
	/* a new group's first round is now (every leaf new: equal parts), then with the
	 * others once a second */
	if (!sp->armed) {
		sp->armed = true;
		sp->next_round = s->now;
		if (sim_schedule(s, s->now, &sp->round_ev, 0) < 0 ||
		    sim_schedule(s, s->now + WAIT_SAMPLE, &sp->wait_ev, 0) < 0)
			return -ENOMEM;
		return 0;
	}
	return sp->next_round == s->now ? 0 : round_group(s, g); /* else: the round now does it */
}
