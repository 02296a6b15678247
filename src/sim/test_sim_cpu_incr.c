/* sim/test_sim_cpu_incr.c — the CPU model's incremental recompute is exactly its full
 * one. cpu.c recomputes only what an event touched (the runqueues a task left or
 * joined, the groups above them, the CPUs whose tree changed); s->cpu_full makes
 * every recompute start from scratch. Each scenario here runs both ways and must give
 * the same bytes: the transcript and summary, every task's CPU time, every cgroup's
 * CPU time and cpu.stat figures, the idle time, and a digest of every rate, CPU and
 * CPU count after every recompute, bit for bit (a rate an ulp off would seldom show
 * in whole ns). The scenarios are the shipped ones and randomized CPU scenarios
 * (nested groups, shares, quotas and periods, cpusets, affinity, the freezer,
 * attaching, fork and exit, demand changes, rmdir, the CPU count), each with
 * cpu.stat and cpuacct.usage_percpu read along the way. */
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "sim/test_sim.h"

/* The accounting identities, exact in whole ns whatever the rounding: each
 * hierarchy's root has all the tasks' time (every hierarchy is mounted before
 * anything runs, and a removed cgroup's time stays counted above it), and with one
 * `cpus` line (at the start) and no md helper the idle time is the rest of the CPUs'
 * time. */
static void check_identities(struct sim *s, const char *text)
{
	int64_t tasks = 0;
	const char *p = text;
	size_t i, ncpus_lines = 0;

	for (i = 0; i < s->ntasks; i++)
		tasks += s->tasks[i]->cpu_ns;
	for (i = 0; i < s->nhier; i++)
		T_EQ_INT(s->hier[i]->root->cpu_ns, tasks);
	for (; (p = strstr(p, "cpus ")); p++)
		ncpus_lines++;
	if (ncpus_lines == 1 && !s->attr.helper_cpu_ns) /* md's helper time is extra */
		T_EQ_INT(s->idle_ns + tasks, (int64_t)s->nr_cpus * s->now);
}

/* The shares an incremental run found unchanged without water-filling
 * (sim_cpu_share_cpu, share_unchanged), summed over the runs checked */
static uint64_t skips_seen;

static void check_and_count(struct sim *s, const char *text)
{
	check_identities(s, text);
	if (!s->cpu_full)
		skips_seen += s->cpu_share_skips;
}

static int same_both_ways(const char *name, const char *text, size_t len)
{
	int r1, r2, ok;
	char *a = ts_cpu_record(text, len, 1, false, &r1, check_and_count),
	     *b = ts_cpu_record(text, len, 1, true, &r2, check_and_count);

	ok = r1 == r2 && !strcmp(a, b);
	if (!ok) {
		size_t i = 0;

		while (a[i] && a[i] == b[i])
			i++;
		T_FAIL_AT("%s: incremental and full differ at byte %zu (r %d/%d): ...%.80s... vs "
			  "...%.80s...", name, i, r1, r2, a + (i > 40 ? i - 40 : 0),
			  b + (i > 40 ? i - 40 : 0));
	}
	ucg_free(a);
	ucg_free(b);
	return r1;
}

static void test_shipped_scenarios(void)
{
	static const char *const names[] = { "cpu_sessions", "writeback", "md_helper",
					     "explosion_split", "explosion_unified",
					     "memcg_pressure", "memcg_events" };
	const char *root = getenv("UCG_SOURCE_ROOT");
	size_t i, len;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[1024];
		char *text;

		snprintf(path, sizeof(path), "%s/scenarios/%s.ucg", root ? root : ".", names[i]);
		text = ts_slurp(path, &len);
		T_CHECK(text != NULL);
		if (!text)
			continue;
		T_EQ_INT(same_both_ways(names[i], text, len), 0);
		ucg_free(text);
	}
}

/* bench_sim_events' cpu_quota, shortened: 64 quota groups of 4 busy tasks on 16
 * CPUs, every event a throttle or a refill, the balancer busy */
static void test_many_quota_groups(void)
{
	struct ucg_buf b;
	int g, k;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us"))
		T_SKIP("cpu.cfs_quota_us not served yet");
	ucg_buf_init(&b);
	ucg_buf_puts(&b, "cpus 16\nmount -o cpu,cpuacct cpu\n");
	for (g = 0; g < 64; g++) {
		ucg_buf_printf(&b, "mkdir cpu/g%d\necho 5000 > cpu/g%d/cpu.cfs_period_us\n"
				   "echo %d > cpu/g%d/cpu.cfs_quota_us\n", g, g, 1000 + 10 * g, g);
		for (k = 0; k < 4; k++)
			ucg_buf_printf(&b, "spawn t%d_%d\necho $t%d_%d > cpu/g%d/cgroup.procs\n"
					   "busy t%d_%d\n", g, k, g, k, g, g, k);
	}
	ucg_buf_puts(&b, "at 100ms cat cpu/g7/cpu.stat\nrun 200ms\n");
	T_EQ_INT(same_both_ways("many quota groups", b.data, b.len), 0);
	ucg_buf_fini(&b);
}

/* The hour's host (bench_sim_events sim.hour_64cpu_s), shortened, under the tick
 * model: parents with runqueues on most of 24 CPUs, whose redos between two
 * refreshes look at their dirty runqueues alone (cpu_rq.c, group_redo_dirty), while
 * their quota children throttle CPU by CPU and small busy loops come and go */
static void test_parents_tick(void)
{
	struct ucg_buf b;
	int u, g;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us"))
		T_SKIP("cpu.cfs_quota_us not served yet");
	ucg_buf_init(&b);
	ucg_buf_puts(&b, "set cpu_model tick\ncpus 24\nmount -o cpu,cpuacct cpu\n");
	for (u = 0; u < 4; u++) {
		ucg_buf_printf(&b, "mkdir cpu/u%d\n", u);
		for (g = 0; g < 12; g++) {
			ucg_buf_printf(&b,
				       "mkdir cpu/u%d/s%d\nspawn t%d_%d\nspawn v%d_%d\n"
				       "echo $t%d_%d > cpu/u%d/s%d/cgroup.procs\n"
				       "echo $v%d_%d > cpu/u%d/s%d/cgroup.procs\n",
				       u, g, u, g, u, g, u, g, u, g, u, g, u, g);
			if (g % 3 == 0)
				ucg_buf_printf(&b,
					       "echo %d > cpu/u%d/s%d/cpu.cfs_quota_us\n"
					       "busy t%d_%d\nbusy v%d_%d\n",
					       20000 + 3000 * g, u, g, u, g, u, g);
			else
				ucg_buf_printf(&b,
					       "busy t%d_%d 0.0%d\nat %dms busy v%d_%d 0.02\n"
					       "at %dms idle v%d_%d\n",
					       u, g, 1 + (u + g) % 5, 37 * g + u, u, g,
					       300 + 29 * g, u, g);
		}
	}
	ucg_buf_puts(&b, "at 250ms echo 1500 > cpu/u1/cpu.shares\nrun 600ms\n");
	T_EQ_INT(same_both_ways("parents, tick model", b.data, b.len), 0);
	ucg_buf_fini(&b);
}

/* Groups of two users whose weights the lazy refresh moves on every CPU while
 * most CPUs want less than all of their time: the shares of those CPUs are found
 * unchanged without a water-fill (their roots' children get their demands
 * whatever the weights), and must be exactly what the full recompute gives. Some
 * CPUs are overloaded (a quota group's busy loops), so their shares are real. */
static void test_unchanged_shares(void)
{
	struct ucg_buf b;
	int u, g;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us"))
		T_SKIP("cpu.cfs_quota_us not served yet");
	ucg_buf_init(&b);
	ucg_buf_puts(&b, "set cpu_model tick\ncpus 8\nmount -o cpu,cpuacct cpu\n");
	for (u = 0; u < 2; u++) {
		ucg_buf_printf(&b, "mkdir cpu/u%d\n", u);
		for (g = 0; g < 8; g++) {
			ucg_buf_printf(&b,
				       "mkdir cpu/u%d/s%d\nspawn t%d_%d\n"
				       "echo $t%d_%d > cpu/u%d/s%d/cgroup.procs\n",
				       u, g, u, g, u, g, u, g);
			if (g == 0)
				ucg_buf_printf(&b,
					       "echo 30000 > cpu/u%d/s%d/cpu.cfs_quota_us\n"
					       "busy t%d_%d\n",
					       u, g, u, g);
			else
				ucg_buf_printf(&b, "busy t%d_%d 0.0%d\n", u, g, 1 + (u + g) % 5);
		}
	}
	ucg_buf_puts(&b, "at 150ms echo 2048 > cpu/u1/cpu.shares\nrun 400ms\n");
	skips_seen = 0;
	T_EQ_INT(same_both_ways("unchanged shares", b.data, b.len), 0);
	T_CHECK(skips_seen > 0);
	ucg_buf_fini(&b);
}

/* ---- randomized scenarios ------------------------------------------------------- */

static uint64_t rng;

static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (unsigned)((rng >> 33) % n) : 0;
}

#define MAXG 10
#define MAXT 48

struct gen {
	struct ucg_buf b;
	unsigned ncpu;
	char groups[MAXG][80]; /* paths under the cpu mount, "" the root */
	unsigned ng;
	bool removed[MAXG];
	bool alive[MAXT];
	unsigned nt;
	bool fz, cs, cpu;
};

static const char *any_group(struct gen *g)
{
	unsigned i;

	for (;;) {
		i = rnd(g->ng);
		if (!g->removed[i])
			return g->groups[i];
	}
}

static int any_task(struct gen *g)
{
	unsigned i, n = 0;

	for (i = 0; i < g->nt; i++)
		n += g->alive[i];
	if (!n)
		return -1;
	n = rnd(n);
	for (i = 0; i < g->nt; i++)
		if (g->alive[i] && !n--)
			return (int)i;
	return -1;
}

static void cpulist(struct gen *g, char *out, size_t size)
{
	unsigned a = rnd(g->ncpu), z = a + rnd(g->ncpu - a);

	if (a == z)
		snprintf(out, size, "%u", a);
	else
		snprintf(out, size, "%u-%u", a, z);
}

/* A quota on the group at path. v1 refuses a quota/period ratio above the nearest
 * limited ancestor's and quotas under 1 ms, so the ratio falls with depth: 0.6-2.4
 * at depth 1, 0.3-0.6 at 2, 0.15-0.3 at 3, none deeper. The old quota goes first, so
 * that the new period never meets it. */
static void quota(struct gen *g, const char *at, const char *path)
{
	unsigned period = 10000 + rnd(40) * 500, depth = 0, pct;
	const char *p;

	for (p = path; *p; p++)
		depth += *p == '/';
	if (depth == 1)
		pct = 60 + rnd(180);
	else if (depth == 2)
		pct = 30 + rnd(30);
	else if (depth == 3)
		pct = 15 + rnd(15);
	else
		return;
	ucg_buf_printf(&g->b, "%secho -1 > cpu%s/cpu.cfs_quota_us\n", at, path);
	ucg_buf_printf(&g->b, "%secho %u > cpu%s/cpu.cfs_period_us\n", at, period, path);
	ucg_buf_printf(&g->b, "%secho %u > cpu%s/cpu.cfs_quota_us\n", at, period / 100 * pct,
		       path);
}

static void attach_cpu(struct gen *g, int t)
{
	ucg_buf_printf(&g->b, "echo $t%d > cpu%s/cgroup.procs\n", t, any_group(g));
}

/* One random command at the current time (the caller wrote the "at" prefix). */
static void random_event(struct gen *g, const char *at)
{
	int t = any_task(g);
	char list[32];

	switch (rnd(15)) {
	case 0:
		if (t >= 0) {
			if (rnd(4) == 0)
				ucg_buf_printf(&g->b, "%sbusy t%d\n", at, t);
			else
				ucg_buf_printf(&g->b, "%sbusy t%d 0.%u\n", at, t, 1 + rnd(9));
			return;
		}
		break;
	case 1:
		if (t >= 0) {
			ucg_buf_printf(&g->b, "%sidle t%d\n", at, t);
			return;
		}
		break;
	case 2:
		if (g->cpu && t >= 0) {
			ucg_buf_puts(&g->b, at);
			attach_cpu(g, t);
			return;
		}
		break;
	case 3:
		if (g->cpu && g->ng > 1) {
			const char *p = any_group(g);

			if (*p) {
				ucg_buf_printf(&g->b, "%secho %u > cpu%s/cpu.shares\n", at,
					       2 + rnd(4096), p);
				return;
			}
		}
		break;
	case 4:
		if (g->cpu && g->ng > 1) {
			const char *p = any_group(g);

			if (*p) {
				if (rnd(3) == 0)
					ucg_buf_printf(&g->b, "%secho -1 > cpu%s/cpu.cfs_quota_us\n",
						       at, p);
				else
					quota(g, at, p);
				return;
			}
		}
		break;
	case 5:
		if (g->fz) {
			ucg_buf_printf(&g->b, "%secho %s > fz/f/freezer.state\n", at,
				       rnd(2) ? "FROZEN" : "THAWED");
			return;
		}
		break;
	case 6:
		if (g->fz && t >= 0) {
			ucg_buf_printf(&g->b, "%secho $t%d > fz/%s/cgroup.procs\n", at, t,
				       rnd(2) ? "f" : "");
			return;
		}
		break;
	case 7:
		if (g->cs) {
			cpulist(g, list, sizeof(list));
			ucg_buf_printf(&g->b, "%secho %s > cs/c/cpuset.cpus\n", at, list);
			return;
		}
		break;
	case 8:
		if (g->cs && t >= 0) {
			ucg_buf_printf(&g->b, "%secho $t%d > cs/%s/cgroup.procs\n", at, t,
				       rnd(2) ? "c" : "");
			return;
		}
		break;
	case 9:
		if (t >= 0) {
			if (rnd(3) == 0) {
				ucg_buf_printf(&g->b, "%staskset t%d 0-63\n", at, t);
			} else {
				cpulist(g, list, sizeof(list));
				ucg_buf_printf(&g->b, "%staskset t%d %s\n", at, t, list);
			}
			return;
		}
		break;
	case 10:
		if (t >= 0 && g->nt < MAXT) {
			ucg_buf_printf(&g->b, "%sfork t%d t%u\n", at, t, g->nt);
			g->alive[g->nt++] = true;
			if (rnd(2))
				ucg_buf_printf(&g->b, "%sbusy t%u\n", at, g->nt - 1);
			return;
		}
		break;
	case 11:
		if (t >= 0) {
			ucg_buf_printf(&g->b, "%sexit t%d\n", at, t);
			g->alive[t] = false;
			return;
		}
		break;
	case 12:
		if (g->cpu && g->ng < MAXG) {
			char p[48];

			snprintf(p, sizeof(p), "%s", any_group(g));
			snprintf(g->groups[g->ng], sizeof(g->groups[0]), "%s/n%u", p, g->ng);
			ucg_buf_printf(&g->b, "%smkdir cpu%s\n", at, g->groups[g->ng]);
			g->ng++;
			if (rnd(2))
				quota(g, at, g->groups[g->ng - 1]);
			return;
		}
		break;
	case 13:
		if (g->cpu && g->ng > 1) {
			const char *p = any_group(g);

			if (*p) {
				ucg_buf_printf(&g->b, "%scat cpu%s/cpu.stat\n", at, p);
				ucg_buf_printf(&g->b, "%scat cpu%s/cpuacct.usage_percpu\n", at, p);
				return;
			}
		}
		break;
	case 14:
		if (rnd(4) == 0) {
			/* the machine changes size: every runqueue is rebuilt */
			ucg_buf_printf(&g->b, "%scpus %u\n", at, 1 + rnd(g->ncpu + 2));
			return;
		}
		break;
	}
	ucg_buf_printf(&g->b, "%snote nothing\n", at);
}

/* A random CPU scenario from seed: a few nested cpu groups with shares and quotas,
 * tasks attached among them, then timed events over 300 ms. */
static void gen_scenario(struct gen *g, uint64_t seed)
{
	unsigned i, n, ms;
	char at[32];

	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	memset(g, 0, sizeof(*g));
	ucg_buf_init(&g->b);
	g->ncpu = rnd(4) ? 1 + rnd(6) : 1 + rnd(16); /* now and then a wide machine */
	g->cpu = rnd(6) != 0;
	g->fz = rnd(2);
	g->cs = rnd(2);
	ucg_buf_printf(&g->b, "cpus %u\n", g->ncpu);
	if (g->cpu)
		ucg_buf_puts(&g->b, "mount -o cpu,cpuacct cpu\n");
	if (g->fz)
		ucg_buf_puts(&g->b, "mount -o freezer fz\nmkdir fz/f\n");
	if (g->cs) {
		char list[32];

		cpulist(g, list, sizeof(list));
		ucg_buf_printf(&g->b, "mount -o cpuset cs\nmkdir cs/c\necho 0 > cs/c/cpuset.mems\n"
				      "echo %s > cs/c/cpuset.cpus\n", list);
	}
	g->groups[0][0] = '\0';
	g->ng = 1;
	n = g->cpu ? 2 + rnd(6) : 0;
	for (i = 0; i < n; i++) {
		char p[48];

		/* 7 levels of /gN at most */
		snprintf(p, sizeof(p), "%.47s", g->groups[rnd(g->ng)]);
		snprintf(g->groups[g->ng], sizeof(g->groups[0]), "%s/g%u", p, g->ng);
		ucg_buf_printf(&g->b, "mkdir cpu%s\n", g->groups[g->ng]);
		if (rnd(2))
			ucg_buf_printf(&g->b, "echo %u > cpu%s/cpu.shares\n", 2 + rnd(4096),
				       g->groups[g->ng]);
		if (rnd(3) == 0)
			quota(g, "", g->groups[g->ng]);
		g->ng++;
	}
	n = rnd(4) ? 2 + rnd(12) : 2 + rnd(32);
	for (i = 0; i < n; i++) {
		ucg_buf_printf(&g->b, "spawn t%u\n", i);
		g->alive[g->nt++] = true;
		if (g->cpu)
			attach_cpu(g, (int)i);
		if (g->fz && rnd(3) == 0)
			ucg_buf_printf(&g->b, "echo $t%u > fz/f/cgroup.procs\n", i);
		if (g->cs && rnd(2))
			ucg_buf_printf(&g->b, "echo $t%u > cs/c/cgroup.procs\n", i);
		if (rnd(4) == 0) {
			char list[32];

			cpulist(g, list, sizeof(list));
			ucg_buf_printf(&g->b, "taskset t%u %s\n", i, list);
		}
		if (rnd(5))
			ucg_buf_printf(&g->b, "busy t%u %s\n", i, rnd(2) ? "1" : "0.6");
	}
	for (ms = 1 + rnd(15); ms < 300; ms += 1 + rnd(15)) {
		snprintf(at, sizeof(at), "at %ums ", ms);
		n = 1 + rnd(3); /* several events at one instant too */
		for (i = 0; i < n; i++)
			random_event(g, at);
	}
	/* an emptied group removed */
	if (g->cpu && g->ng > 1) {
		i = 1 + rnd(g->ng - 1);
		ucg_buf_printf(&g->b, "at 290ms mkdir cpu%s/gone\nat 291ms rmdir cpu%s/gone\n",
			       g->groups[i], g->groups[i]);
	}
	ucg_buf_puts(&g->b, "run 300ms\n");
}

static void test_random_scenarios(void)
{
	unsigned seed, failed = 0, ran = 0, nseeds = 200;
	const char *env = getenv("SIM_INCR_SEEDS"); /* more, for a longer hunt */

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us") || !ts_has_file("freezer", "/freezer.state") ||
	    !ts_has_file("cpuset", "/cpuset.effective_cpus"))
		T_SKIP("cpu, freezer or cpuset files not served yet");
	if (env && atoi(env) > 0)
		nseeds = (unsigned)atoi(env);
	for (seed = 1; seed <= nseeds; seed++) {
		struct gen g;
		char name[32];
		int r;

		gen_scenario(&g, seed);
		snprintf(name, sizeof(name), "random seed %u", seed);
		r = same_both_ways(name, g.b.data, g.b.len);
		if (r == 0)
			ran++;
		else
			failed++;
		if (r && getenv("SIM_INCR_VERBOSE")) {
			char *o = ts_cpu_record(g.b.data, g.b.len, 1, false, &r, check_identities);

			if (getenv("SIM_INCR_VERBOSE")[0] == '2')
				fputs(g.b.data, stdout);
			printf("# seed %u: %s\n", seed, strstr(o, "ERROR") ? strstr(o, "ERROR") : "?");
			ucg_free(o);
		}
		ucg_buf_fini(&g.b);
	}
	/* a scenario may stop on a refused command (both ways alike); most must run */
	printf("# %u random scenarios ran to the end, %u stopped early\n", ran, failed);
	T_CHECK(ran >= nseeds - nseeds / 20);
}

/* The same random scenarios under the tick model of CFS bandwidth (cpu_tick.c),
 * whose runqueues throttle one CPU at a time */
static void test_random_tick(void)
{
	unsigned seed, ran = 0, nseeds = 100;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us") || !ts_has_file("freezer", "/freezer.state") ||
	    !ts_has_file("cpuset", "/cpuset.effective_cpus"))
		T_SKIP("cpu, freezer or cpuset files not served yet");
	for (seed = 1; seed <= nseeds; seed++) {
		struct gen g;
		struct ucg_buf b;
		char name[48];

		gen_scenario(&g, seed);
		ucg_buf_init(&b);
		ucg_buf_puts(&b, "set cpu_model tick\n");
		ucg_buf_append(&b, g.b.data, g.b.len);
		snprintf(name, sizeof(name), "tick: random seed %u", seed);
		if (same_both_ways(name, b.data, b.len) == 0)
			ran++;
		ucg_buf_fini(&b);
		ucg_buf_fini(&g.b);
	}
	printf("# %u random tick-model scenarios ran to the end\n", ran);
	T_CHECK(ran >= nseeds - nseeds / 20);
}

int main(void)
{
	T_RUN(test_shipped_scenarios);
	T_RUN(test_many_quota_groups);
	T_RUN(test_random_scenarios);
	T_RUN(test_random_tick);
	T_RUN(test_parents_tick);
	T_RUN(test_unchanged_shares);
	return t_done();
}
