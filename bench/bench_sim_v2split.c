/* bench/bench_sim_v2split.c — the error of ucgroups' v2 division of a divergent cpu
 * group (host/v2split.c), measured in the simulator.
 *
 * Each layout is one description: v1 cpu groups (quota, shares) and tasks, each with
 * a memory path and a cpu path that differ, and a workload script. From it two
 * scenarios are made and run: (a) as v1 means it (a memory hierarchy and a cpu,cpuacct
 * hierarchy with the groups), (b) as the daemon enforces it through v2 (a cpu tree
 * shaped like the v2 subtree: the memory path, then `.ucg.cpu:GROUP`, then `.ucg`
 * holding the task, each group divided over its leaves by `split`, sim/v2split.c, with
 * the daemon's arithmetic). The CPU each v1 group got per virtual second is read from
 * the runs' cpu.csv ((b): the sum of its leaves), and the error is |(b) - (a)|.
 *
 * Prints "name value unit":
 *   v2split.LAYOUT.GROUP.v1, .v2   the group's CPUs over the run, (a) and (b)
 *   v2split.LAYOUT.err_mean        |(b) - (a)| per group and second, mean (CPUs)
 *   v2split.LAYOUT.err_worst       ... the worst second
 *   v2split.LAYOUT.undivided.*     the same without the division (the v2 tree with
 *                                  the group's settings on its mirror alone)
 *   v2split.LAYOUT.TASK            a task's CPUs under (b), with kernel.v2split.* where
 *                                  tests/uml/test_divergent.sh measured the same on
 *                                  the real kernel (docs/enforcement.md)
 * Deterministic: the same bytes every run.
 */
#include "sim/sim.h"

#include "base/alloc.h"
#include "base/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_G 4
#define MAX_T 6

struct group_desc {
	const char *name;
	int quota_us; /* 0: none */
	int shares;   /* 0: 1024 */
};

struct task_desc {
	const char *name, *mem, *cpu;
	double kernel; /* its CPUs measured on the kernel, 0: none */
};

struct layout {
	const char *name;
	unsigned cpus;
	unsigned secs;
	struct group_desc g[MAX_G];
	struct task_desc t[MAX_T];
	const char *script; /* busy/idle/run lines, the same in (a) and (b) */
};

static const struct layout layouts[] = {
	/* test_divergent.sh: 25% + 24% on the kernel */
	{ "two_spinners",
	  2,
	  10,
	  { { "q", 50000, 0 } },
	  { { "s1", "a", "q", 0.25 }, { "s2", "b", "q", 0.24 } },
	  "busy s1\nbusy s2\nrun 10s\n" },
	/* test_divergent.sh: the spinner 44% over 6 s on the kernel */
	{ "spinner_sleeper",
	  2,
	  6,
	  { { "q", 50000, 0 } },
	  { { "s1", "a", "q", 0.44 }, { "s2", "b", "q", 0 } },
	  "busy s1\nrun 6s\n" },
	{ "unequal_demand",
	  2,
	  10,
	  { { "q", 50000, 0 } },
	  { { "s1", "a", "q", 0 }, { "s2", "b", "q", 0 } },
	  "busy s1\nbusy s2 0.1\nrun 10s\n" },
	{ "shares_2to1",
	  2,
	  10,
	  { { "p", 0, 2048 }, { "q", 0, 1024 } },
	  { { "p1", "a", "p", 0 },
	    { "p2", "b", "p", 0 },
	    { "q1", "a", "q", 0 },
	    { "q2", "b", "q", 0 } },
	  "busy p1\nbusy p2\nbusy q1\nbusy q2\nrun 10s\n" },
	{ "shares_uneven",
	  1,
	  10,
	  { { "p", 0, 1024 }, { "q", 0, 1024 } },
	  { { "p1", "a", "p", 0 }, { "p2", "b", "p", 0 }, { "q1", "a", "q", 0 } },
	  "busy p1\nbusy p2\nbusy q1\nrun 10s\n" },
	{ "shifting_quota",
	  2,
	  12,
	  { { "q", 50000, 0 } },
	  { { "s1", "a", "q", 0 }, { "s2", "b", "q", 0 } },
	  "busy s1\nrun 3s\nidle s1\nbusy s2\nrun 3s\nbusy s1\nrun 3s\nidle s2\nrun 3s\n" },
};

/* The scenario of layout l: v2 0 as v1 means it (a), 1 as the daemon enforces it (b),
 * 2 the v2 tree without the division (the daemon before it: every leaf unlimited at
 * the default weight, the settings on mirrors that hold none of the group's tasks). */
static void gen(const struct layout *l, int v2, struct ucg_buf *b)
{
	size_t i, j;

	ucg_buf_printf(b, "cpus %u\n", l->cpus);
	if (!v2) {
		ucg_buf_puts(b, "mount -o memory memory\nmount -o cpu,cpuacct cpu\n");
		for (i = 0; i < MAX_G && l->g[i].name; i++) {
			ucg_buf_printf(b, "mkdir cpu/%s\n", l->g[i].name);
			if (l->g[i].quota_us)
				ucg_buf_printf(b, "echo %d > cpu/%s/cpu.cfs_quota_us\n",
					       l->g[i].quota_us, l->g[i].name);
			if (l->g[i].shares)
				ucg_buf_printf(b, "echo %d > cpu/%s/cpu.shares\n", l->g[i].shares,
					       l->g[i].name);
		}
		for (i = 0; i < MAX_T && l->t[i].name; i++) {
			for (j = 0; j < i && strcmp(l->t[j].mem, l->t[i].mem); j++)
				;
			if (j == i)
				ucg_buf_printf(b, "mkdir memory/%s\n", l->t[i].mem);
			ucg_buf_printf(b,
				       "spawn %s\necho $%s > memory/%s/cgroup.procs\n"
				       "echo $%s > cpu/%s/cgroup.procs\n",
				       l->t[i].name, l->t[i].name, l->t[i].mem, l->t[i].name,
				       l->t[i].cpu);
		}
	} else {
		ucg_buf_puts(b, "mount -o cpu,cpuacct cpu\n");
		for (i = 0; i < MAX_T && l->t[i].name; i++) {
			for (j = 0; j < i && strcmp(l->t[j].mem, l->t[i].mem); j++)
				;
			if (j == i)
				ucg_buf_printf(b, "mkdir cpu/%s\n", l->t[i].mem);
			ucg_buf_printf(
				b,
				"mkdir cpu/%s/.ucg.cpu:%s\nmkdir cpu/%s/.ucg.cpu:%s/.ucg\n"
				"spawn %s\necho $%s > cpu/%s/.ucg.cpu:%s/.ucg/cgroup.procs\n",
				l->t[i].mem, l->t[i].cpu, l->t[i].mem, l->t[i].cpu, l->t[i].name,
				l->t[i].name, l->t[i].mem, l->t[i].cpu);
		}
		for (i = 0; v2 == 1 && i < MAX_G && l->g[i].name; i++) {
			ucg_buf_printf(b, "split %s quota=%d shares=%d", l->g[i].name,
				       l->g[i].quota_us ? l->g[i].quota_us : -1,
				       l->g[i].shares ? l->g[i].shares : 1024);
			for (j = 0; j < MAX_T && l->t[j].name; j++)
				if (!strcmp(l->t[j].cpu, l->g[i].name))
					ucg_buf_printf(b, " cpu/%s/.ucg.cpu:%s/.ucg", l->t[j].mem,
						       l->t[j].cpu);
			ucg_buf_puts(b, "\n");
		}
	}
	ucg_buf_puts(b, l->script);
}

/* The run's cpu.csv: rows of per-second CPUs, columns named "cpu:/path". */
struct csv {
	char **col;
	size_t ncol;
	double *v; /* row-major, nrow x ncol */
	size_t nrow;
};

static int run(const struct layout *l, int v2, struct csv *ret)
{
	struct sim *s = NULL;
	struct sim_err err;
	struct ucg_buf text, out;
	const char *name;
	size_t i;
	int r;

	ucg_buf_init(&text);
	ucg_buf_init(&out);
	gen(l, v2, &text);
	r = sim_new(NULL, &s);
	if (r == 0)
		r = sim_load(s, l->name, text.data, text.len, &err);
	if (r == 0)
		r = sim_run(s, &err);
	if (r < 0) {
		fprintf(stderr, "%s (%s): %s\n", l->name, v2 ? "v2" : "v1", err.msg);
		goto out;
	}
	for (i = 0; i < sim_csv_count(s); i++) {
		ucg_buf_reset(&out);
		if (sim_format_csv(s, i, &name, &out) == 0 && !strcmp(name, "cpu.csv"))
			break;
	}
	r = -1;
	if (i < sim_csv_count(s)) {
		char *line, *save = NULL, *p = out.data;

		memset(ret, 0, sizeof(*ret));
		while ((line = strtok_r(p, "\n", &save))) {
			char *f, *fs = NULL;
			size_t k = 0;

			p = NULL;
			if (!ret->col) {
				ret->col = calloc(64, sizeof(*ret->col));
				for (f = strtok_r(line, ",", &fs); f && k < 64;
				     f = strtok_r(NULL, ",", &fs))
					ret->col[k++] = strdup(f);
				ret->ncol = k;
				continue;
			}
			ret->v = realloc(ret->v, (ret->nrow + 1) * ret->ncol * sizeof(double));
			for (f = strtok_r(line, ",", &fs); f && k < ret->ncol;
			     f = strtok_r(NULL, ",", &fs))
				ret->v[ret->nrow * ret->ncol + k++] = atof(f);
			ret->nrow++;
		}
		r = 0;
	}
out:
	sim_free(s);
	ucg_buf_fini(&text);
	ucg_buf_fini(&out);
	return r;
}

static void csv_free(struct csv *c)
{
	size_t i;

	for (i = 0; i < c->ncol; i++)
		free(c->col[i]);
	free(c->col);
	free(c->v);
}

/* Row r's sum of the columns "cpu:" + path exactly. */
static double col(const struct csv *c, size_t r, const char *path)
{
	char want[256];
	size_t k;

	snprintf(want, sizeof(want), "cpu:%s", path);
	for (k = 0; k < c->ncol; k++)
		if (!strcmp(c->col[k], want))
			return c->v[r * c->ncol + k];
	return 0;
}

/* v1 group g's CPUs in row r: (a) its cgroup, (b) its leaves. */
static double group_cpus(const struct layout *l, const struct csv *c, size_t r, int v2,
			 const char *g)
{
	char path[256];
	double sum = 0;
	size_t j;

	if (!v2) {
		snprintf(path, sizeof(path), "/%s", g);
		return col(c, r, path);
	}
	for (j = 0; j < MAX_T && l->t[j].name; j++) {
		size_t k;

		if (strcmp(l->t[j].cpu, g))
			continue;
		for (k = 0; k < j && (strcmp(l->t[k].cpu, g) || strcmp(l->t[k].mem, l->t[j].mem));
		     k++)
			; /* two tasks of g under one parent share a leaf: count it once */
		if (k < j)
			continue;
		snprintf(path, sizeof(path), "/%s/.ucg.cpu:%s/.ucg", l->t[j].mem, g);
		sum += col(c, r, path);
	}
	return sum;
}

int main(void)
{
	size_t i, g, r;
	int fails = 0;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct layout *l = &layouts[i];
		struct csv a, b, c;
		double err_sum = 0, err_worst = 0, und_sum = 0, und_worst = 0;
		size_t nerr = 0;

		if (run(l, 0, &a) < 0 || run(l, 1, &b) < 0 || run(l, 2, &c) < 0) {
			fails++;
			continue;
		}
		for (g = 0; g < MAX_G && l->g[g].name; g++) {
			double ta = 0, tb = 0;

			/* row 0 is the sample at 0 s: rates over nothing */
			for (r = 1; r < a.nrow && r < b.nrow; r++) {
				double va = group_cpus(l, &a, r, 0, l->g[g].name);
				double vb = group_cpus(l, &b, r, 1, l->g[g].name);
				double e = fabs(vb - va);
				double u = fabs(group_cpus(l, &c, r, 1, l->g[g].name) - va);

				ta += va;
				tb += vb;
				err_sum += e;
				nerr++;
				if (e > err_worst)
					err_worst = e;
				und_sum += u;
				if (u > und_worst)
					und_worst = u;
			}
			printf("v2split.%s.%s.v1 %.3f CPUs\n", l->name, l->g[g].name,
			       ta / (double)(a.nrow - 1));
			printf("v2split.%s.%s.v2 %.3f CPUs\n", l->name, l->g[g].name,
			       tb / (double)(b.nrow - 1));
		}
		printf("v2split.%s.err_mean %.3f CPUs\n", l->name,
		       nerr ? err_sum / (double)nerr : 0);
		printf("v2split.%s.err_worst %.3f CPUs\n", l->name, err_worst);
		printf("v2split.%s.undivided.err_mean %.3f CPUs\n", l->name,
		       nerr ? und_sum / (double)nerr : 0);
		printf("v2split.%s.undivided.err_worst %.3f CPUs\n", l->name, und_worst);
		for (g = 0; g < MAX_T && l->t[g].name; g++) {
			char path[256];
			double sum = 0;

			if (!l->t[g].kernel)
				continue;
			snprintf(path, sizeof(path), "/%s/.ucg.cpu:%s/.ucg", l->t[g].mem,
				 l->t[g].cpu);
			for (r = 1; r < b.nrow; r++)
				sum += col(&b, r, path);
			printf("v2split.%s.%s %.3f CPUs\n", l->name, l->t[g].name,
			       sum / (double)(b.nrow - 1));
			printf("kernel.v2split.%s.%s %.3f CPUs\n", l->name, l->t[g].name,
			       l->t[g].kernel);
		}
		csv_free(&a);
		csv_free(&b);
		csv_free(&c);
	}
	return fails ? 1 : 0;
}
