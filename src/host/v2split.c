/* host/v2split.c — a v1 cpu quota and weight shared by the v2 leaves of a divergent
 * layout (the model and its limits are in v2split.h). */
#include "host/v2split.h"

#include "base/alloc.h"
#include "controllers/charge.h"
#include "host/v1v2.h"
#include "host/v2stat.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A leaf as this round found it, and what it is to get. */
struct leaf {
	char *rel;               /* "/a/.ucg.cpu:b/.ucg" */
	char *outer, *cpu;       /* its mirror's v1 path, its cpu cgroup's path */
	uint64_t usage_us;       /* cpu.stat usage_usec */
	uint64_t throttled;      /* cpu.stat nr_throttled */
	uint64_t waited_us;      /* cpu.pressure "some" total (0 without PSI) */
	uint64_t ppm;            /* last round's part, quota per period in millionths; 0: none */
	uint64_t want_q, want_p; /* this round's smallest part (want_p 0: none) */
};

struct ucg_v2split {
	struct ucg_v2obs *o;
	struct ucg_cgv2 *b;
	struct leaf *v; /* sorted by rel: the last round's, then this one's */
	size_t n, cap;
	uint64_t last_us;
	unsigned long rounds, divided, writes; /* divided: quotas divided, all rounds */
	unsigned long weighed;                 /* weights divided, all rounds */
};

int ucg_v2split_new(struct ucg_v2obs *o, struct ucg_cgv2 *b, struct ucg_v2split **ret)
{
	struct ucg_v2split *sp = ucg_calloc(1, sizeof(*sp));

	if (!sp)
		return -ENOMEM;
	sp->o = o;
	sp->b = b;
	*ret = sp;
	return 0;
}

static void leaves_free(struct leaf *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ucg_free(v[i].rel);
		ucg_free(v[i].outer);
		ucg_free(v[i].cpu);
	}
	ucg_free(v);
}

void ucg_v2split_free(struct ucg_v2split *sp)
{
	if (!sp)
		return;
	leaves_free(sp->v, sp->n);
	ucg_free(sp);
}

/* p is path or below it ("/b", "/b/c" are within "/b"; "/bc" is not) */
static int within(const char *p, const char *path)
{
	size_t n = strlen(path);

	if (!strcmp(path, "/"))
		return 1;
	return !strncmp(p, path, n) && (p[n] == '\0' || p[n] == '/');
}

static int cmp_rel(const void *a, const void *b)
{
	return strcmp(((const struct leaf *)a)->rel, ((const struct leaf *)b)->rel);
}

/* The round being collected. */
struct round {
	struct ucg_v2split *sp;
	struct leaf *v;
	size_t n, cap;
	int err; /* -ENOENT: cpu is the outer hierarchy; -ENOMEM */
};

static void collect(void *ctx, const char *rel)
{
	struct round *r = ctx;
	char outer[PATH_MAX], cpu[PATH_MAX];
	struct ucg_buf stat;
	struct leaf *l;
	int e;

	if (r->err)
		return;
	e = ucg_v2obs_leaf_paths(r->sp->o, rel, UCG_SS_cpu, outer, cpu, sizeof(outer));
	if (e == -ENOENT) {
		r->err = e;
		return;
	}
	if (e < 0)
		return; /* not a leaf of the layout: not ours to limit */
	/* An empty leaf (its processes gone: leaves stay until their cgroup goes) holds
	 * nobody the mirror could wrongly limit and uses nothing: it keeps its part as
	 * it is until it holds someone again. */
	ucg_buf_init(&stat);
	e = ucg_cgv2_read(r->sp->b, rel, "cgroup.events", &stat);
	if (e == 0 && stat.data && strstr(stat.data, "populated 0")) {
		ucg_buf_fini(&stat);
		return;
	}
	ucg_buf_fini(&stat);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct leaf *v = ucg_realloc(r->v, cap * sizeof(*v));

		if (!v) {
			r->err = -ENOMEM;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	l = &r->v[r->n];
	memset(l, 0, sizeof(*l));
	l->rel = ucg_strdup(rel);
	l->outer = ucg_strdup(outer);
	l->cpu = ucg_strdup(cpu);
	if (!l->rel || !l->outer || !l->cpu) {
		ucg_free(l->rel);
		ucg_free(l->outer);
		ucg_free(l->cpu);
		r->err = -ENOMEM;
		return;
	}
	ucg_buf_init(&stat);
	if (ucg_cgv2_read(r->sp->b, rel, "cpu.stat", &stat) == 0 && stat.data) {
		ucg_v2_keyed(stat.data, "usage_usec", &l->usage_us);
		ucg_v2_keyed(stat.data, "nr_throttled", &l->throttled);
	}
	ucg_buf_fini(&stat);
	/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=N" first: the first total */
	ucg_buf_init(&stat);
	if (ucg_cgv2_read(r->sp->b, rel, "cpu.pressure", &stat) == 0 && stat.data) {
		const char *t = strstr(stat.data, "total=");

		if (t)
			l->waited_us = strtoull(t + 6, NULL, 10);
	}
	ucg_buf_fini(&stat);
	r->n++;
}

/* Writes value to rel's file unless it reads so already: its first line is value or,
 * with same_prefix, begins with that. */
static void put_value(struct ucg_v2split *sp, const char *rel, const char *file, const char *value,
		      const char *same_prefix)
{
	struct ucg_buf cur;
	size_t n = strlen(value);
	int same;

	ucg_buf_init(&cur);
	same = ucg_cgv2_read(sp->b, rel, file, &cur) == 0 && cur.data &&
	       (same_prefix
			? !strncmp(cur.data, same_prefix, strlen(same_prefix))
			: !strncmp(cur.data, value, n) && (cur.data[n] == '\n' || !cur.data[n]));
	ucg_buf_fini(&cur);
	if (!same && ucg_cgv2_write(sp->b, rel, file, value) == 0)
		sp->writes++;
}

/* cpu.max: "max" reads so already whatever the period. */
static void put_max(struct ucg_v2split *sp, const char *rel, const char *value)
{
	put_value(sp, rel, "cpu.max", value, strcmp(value, "max") ? NULL : "max ");
}

/* The length of rel's cpu level ("/a/.ucg.cpu:b" of "/a/.ucg.cpu:b/.ucg"), 0 when the
 * leaf has none (its cpu path is its outer one). */
static size_t cpu_level(const char *rel)
{
	const char *p = strstr(rel, "/.ucg.cpu:");
	const char *end;

	if (!p)
		return 0;
	end = strchr(p + 1, '/');
	return end ? (size_t)(end - rel) : strlen(rel);
}

/* Divides the cpu.weight of cpu cgroup path (shares) over the cpu levels of the leaves
 * holding its own tasks (ucg_v2_split_weight, by runnable time: CPU used plus the
 * cpu.pressure "some" wait since the last round; a leaf new this round wants a whole
 * CPU). Leaves whose cpu path is their outer one count in the sum but keep the
 * mirror's whole weight: they have no level to write. */
static void divide_weight(struct ucg_v2split *sp, struct round *r, const char *path,
			  uint64_t shares, uint64_t interval_us)
{
	struct ucg_v2_weight_part *parts = NULL;
	size_t *lvl = NULL; /* per part: its first leaf */
	size_t i, j, k = 0, levels = 0;

	for (i = 0; i < r->n; i++)
		levels += !strcmp(r->v[i].cpu, path) && cpu_level(r->v[i].rel);
	if (!levels)
		return; /* every task of it where its mirror is: the mirror's weight is exact */
	parts = ucg_calloc(r->n, sizeof(*parts));
	lvl = ucg_calloc(r->n, sizeof(*lvl));
	if (!parts || !lvl)
		goto out;
	for (i = 0; i < r->n; i++) {
		struct leaf *l = &r->v[i];
		struct leaf key = { .rel = l->rel }, *prev;
		size_t n = cpu_level(l->rel);
		uint64_t d;

		if (strcmp(l->cpu, path))
			continue;
		prev = sp->v ? bsearch(&key, sp->v, sp->n, sizeof(*sp->v), cmp_rel) : NULL;
		if (prev && l->usage_us >= prev->usage_us && l->waited_us >= prev->waited_us)
			d = l->usage_us - prev->usage_us + l->waited_us - prev->waited_us;
		else
			d = interval_us ? interval_us : 1;
		/* leaves under one level (deeper levels of later hierarchies) are one part */
		for (j = 0; j < k; j++)
			if (n && cpu_level(r->v[lvl[j]].rel) == n &&
			    !strncmp(r->v[lvl[j]].rel, l->rel, n))
				break;
		if (j == k)
			lvl[k++] = i;
		parts[j].demand_us += d;
	}
	ucg_v2_split_weight(ucg_v1v2_cpu_weight(shares < 2 ? 2 : shares), parts, k);
	for (j = 0; j < k; j++) {
		const struct leaf *l = &r->v[lvl[j]];
		size_t n = cpu_level(l->rel);
		char dir[PATH_MAX], value[32];

		if (!n || n >= sizeof(dir))
			continue;
		memcpy(dir, l->rel, n);
		dir[n] = '\0';
		snprintf(value, sizeof(value), "%llu", (unsigned long long)parts[j].weight);
		put_value(sp, dir, "cpu.weight", value, NULL);
	}
	sp->weighed++;
out:
	ucg_free(parts);
	ucg_free(lvl);
}

/* Divides (or not) the quota of cpu cgroup cg at path over the round's leaves. */
static void divide(struct ucg_v2split *sp, struct round *r, const struct ucg_cgroup *cg,
		   const char *path, uint64_t interval_us)
{
	struct ucg_cpu_bandwidth bw;
	struct ucg_v2_split_leaf *parts;
	char value[64];
	size_t i, k = 0;
	int exact = 1;

	if (ucg_cpu_bandwidth_get(cg, &bw) < 0)
		return;
	divide_weight(sp, r, path, bw.shares, interval_us);
	if (bw.quota_us < 0 || !bw.period_us)
		return;
	for (i = 0; i < r->n && exact; i++) /* the mirror holds exactly the subtree */
		exact = within(r->v[i].cpu, path) == within(r->v[i].outer, path);
	if (exact)
		snprintf(value, sizeof(value), "%lld %llu", (long long)bw.quota_us,
			 (unsigned long long)bw.period_us);
	else
		snprintf(value, sizeof(value), "max %llu", (unsigned long long)bw.period_us);
	put_max(sp, path, value); /* the mirror */
	if (exact)
		return;
	parts = ucg_calloc(r->n, sizeof(*parts));
	if (!parts)
		return;
	for (i = 0; i < r->n; i++) {
		struct leaf *l = &r->v[i];
		struct leaf key = { .rel = l->rel }, *prev;

		if (!within(l->cpu, path))
			continue;
		prev = sp->v ? bsearch(&key, sp->v, sp->n, sizeof(*sp->v), cmp_rel) : NULL;
		if (prev && prev->ppm && l->usage_us >= prev->usage_us) {
			parts[k].used_us = l->usage_us - prev->usage_us;
			parts[k].throttled = l->throttled > prev->throttled;
			parts[k].alloc_us = prev->ppm * bw.period_us / 1000000;
		}
		k++;
	}
	ucg_v2_split_quota((uint64_t)bw.quota_us, bw.period_us, interval_us, parts, k);
	for (i = k = 0; i < r->n; i++) {
		struct leaf *l = &r->v[i];

		if (!within(l->cpu, path))
			continue;
		/* the smallest ratio of the groups above the leaf */
		if (!l->want_p || parts[k].next_us * l->want_p < l->want_q * bw.period_us) {
			l->want_q = parts[k].next_us;
			l->want_p = bw.period_us;
		}
		k++;
	}
	ucg_free(parts);
	sp->divided++;
}

/* Every cgroup of h below cg, depth first. Returns how many divide() divided. */
static int walk(struct ucg_v2split *sp, struct round *r, const struct ucg_cgroup *cg,
		uint64_t interval_us)
{
	const struct ucg_cgroup *c = NULL;
	unsigned long before = sp->divided;
	struct ucg_buf path;

	while ((c = ucg_cgroup_next_child(cg, c))) {
		ucg_buf_init(&path);
		if (ucg_cgroup_path(c, &path) == 0 && path.data)
			divide(sp, r, c, path.data, interval_us);
		ucg_buf_fini(&path);
		walk(sp, r, c, interval_us);
	}
	return (int)(sp->divided - before);
}

int ucg_v2split_run(struct ucg_v2split *sp, uint64_t now_us)
{
	struct ucg_hierarchy *h = ucg_v2obs_hierarchy(sp->o, UCG_SS_cpu);
	struct round r = { .sp = sp };
	uint64_t interval = sp->last_us && now_us > sp->last_us ? now_us - sp->last_us : 0;
	size_t i;
	int n;

	if (!h || !(ucg_cgv2_controllers(sp->b) & (1u << UCG_V2_CPU)))
		return 0;
	ucg_cgv2_leaves(sp->b, collect, &r);
	if (r.err) {
		leaves_free(r.v, r.n);
		return r.err == -ENOENT ? 0 : r.err;
	}
	if (r.n)
		qsort(r.v, r.n, sizeof(*r.v), cmp_rel);
	n = walk(sp, &r, ucg_hierarchy_root(h), interval);
	for (i = 0; i < r.n; i++) {
		struct leaf *l = &r.v[i];
		char value[64];

		if (!l->want_p) {
			put_max(sp, l->rel, "max");
			continue;
		}
		snprintf(value, sizeof(value), "%llu %llu", (unsigned long long)l->want_q,
			 (unsigned long long)l->want_p);
		put_max(sp, l->rel, value);
		l->ppm = l->want_q * 1000000 / l->want_p;
	}
	leaves_free(sp->v, sp->n);
	sp->v = r.v;
	sp->n = r.n;
	sp->last_us = now_us;
	sp->rounds++;
	return n;
}

void ucg_v2split_describe(const struct ucg_v2split *sp, struct ucg_buf *out)
{
	size_t i, parts = 0;

	for (i = 0; i < sp->n; i++)
		parts += sp->v[i].ppm != 0;
	ucg_buf_printf(out,
		       "enforce_split rounds %lu leaves %zu parts %zu weighed %lu writes %lu\n",
		       sp->rounds, sp->n, parts, sp->weighed, sp->writes);
}
