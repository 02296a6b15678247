/* bench/bench_sim_events.c — how fast the simulator runs, in events per CPU second.
 *
 * An event is one entry taken off the simulator's event queue and fired: a scenario
 * command, a packet leaving a queue, a block request completing, a CPU timer (a quota
 * running out or a period boundary; a timer superseded by a later recomputation still
 * counts, it is popped and ignored), a sample. What an event costs depends on the
 * model behind it, so the figures are per workload. Time is the process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) around sim_run, one thread, so a loaded machine slows
 * the wall clock but not the figure. Each workload repeats until it has used 0.3 s.
 *
 * Prints one figure per line, "name value unit":
 *   sim.dispatch_per_s          the bare loop: timers that reschedule themselves
 *                               (heap push + pop + CPU accrual check + call)
 *   sim.events_per_s.SCENARIO   each shipped scenario (scenarios/NAME.ucg)
 *   sim.events_per_s.cpu_quota  CPU timers only: 64 quota groups (1 ms quota per
 *                               5 ms period) of 4 busy tasks on 16 CPUs, so each
 *                               event throttles or refills a group and the per-CPU
 *                               model recomputes its rates
 *   sim.big_run_cpu_s           CPU seconds of bench_sim_charging's 10,000-task,
 *                               1,000-cgroup, 60-virtual-second run
 *   sim.hour_64cpu_s            wall seconds of one virtual hour of a 64-CPU host
 *                               (sim_bench_hour_scenario: 10,000 tasks, 1,000
 *                               cgroups, 100 under quota, 10 under memory pressure,
 *                               writeback) under the tick model, with the
 *                               virtual-to-wall ratio, CPU seconds and events;
 *                               `only sim.hour_64cpu_s.fluid` adds the fluid model;
 *                               run only when named (some 10.3 s of CPU here, 195 s
 *                               before the tick model's weights became lazy and
 *                               its balancer periodic: a group's weight on another
 *                               CPU follows a throttle at that CPU's next change or
 *                               at the 32 ms refresh, not at once; target 10 s,
 *                               not met; docs/sim-speed.md)
 * Scenario files are read from $UCG_SOURCE_ROOT (default: the current directory).
 * `bench_sim_events quick` skips the big run; `bench_sim_events only WORD` runs only
 * the workloads whose figure name contains WORD (for profiling one).
 */
#include "sim/sim_impl.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "sim_bench.h"


static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shipped scenarios' names (without .ucg), sorted; *n of them. */
static char **list_scenarios(size_t *n)
{
	const char *root = getenv("UCG_SOURCE_ROOT");
	char path[1024];
	char **v = NULL;
	struct dirent *d;
	DIR *dir;

	*n = 0;
	snprintf(path, sizeof(path), "%s/scenarios", root ? root : ".");
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);
		char **nv;

		if (len < 5 || strcmp(d->d_name + len - 4, ".ucg"))
			continue;
		nv = ucg_realloc(v, (*n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[*n] = ucg_strndup(d->d_name, len - 4);
		if (v[*n])
			(*n)++;
	}
	closedir(dir);
	if (*n)
		qsort(v, *n, sizeof(*v), name_cmp);
	return v;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Loads and runs text once: events fired, and CPU seconds of sim_run in *secs. */
static int64_t run_once(const char *name, const char *text, size_t len, double *secs)
{
	struct sim_config cfg;
	struct sim_err err;
	struct sim *s = NULL;
	int64_t n = -1;
	double t0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 1;
	if (sim_new(&cfg, &s) < 0)
		return -1;
	if (sim_load(s, name, text, len, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		goto out;
	}
	t0 = cpu_s();
	if (sim_run(s, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		goto out;
	}
	*secs = cpu_s() - t0;
	n = (int64_t)sim_events(s);
out:
	sim_free(s);
	return n;
}

static void rate(const char *figure, const char *text, size_t len)
{
	double total = 0, secs = 0;
	int64_t events = 0, n;

	while (total < 0.3) {
		n = run_once(figure, text, len, &secs);
		if (n < 0)
			return;
		events += n;
		total += secs;
	}
	printf("%s %.0f events/s\n", figure, (double)events / total);
}

/* The bare loop: K timers, each firing every 1 µs of virtual time. */
struct tick {
	struct sim_event_src ev;
	sim_time every;
};

static void tick_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct tick *t = (struct tick *)src;

	sim_schedule(s, s->now + t->every, src, arg);
}

static void bench_dispatch(void)
{
	static const char text[] = "run 1s\n";
	struct tick ticks[64];
	struct sim *s = NULL;
	struct sim_err err;
	double t0, secs;
	size_t i;

	if (sim_new(NULL, &s) < 0 || sim_load(s, "dispatch", text, sizeof(text) - 1, &err) < 0) {
		sim_free(s);
		return;
	}
	for (i = 0; i < 64; i++) {
		ticks[i].ev.fire = tick_fire;
		ticks[i].every = 1000 + (sim_time)i; /* distinct periods: a busy heap */
		sim_schedule(s, ticks[i].every, &ticks[i].ev, i);
	}
	s->cfg.until = 50 * SIM_MSEC; /* ~3.2 million events */
	t0 = cpu_s();
	if (sim_run(s, &err) == 0) {
		secs = cpu_s() - t0;
		printf("sim.dispatch_per_s %.0f events/s\n", (double)sim_events(s) / secs);
	}
	sim_free(s);
}

static void bench_cpu_quota(void)
{
	struct ucg_buf b;
	int g, k;

	ucg_buf_init(&b);
	ucg_buf_puts(&b, "cpus 16\nmount -o cpu,cpuacct cpu\n");
	for (g = 0; g < 64; g++) {
		ucg_buf_printf(&b, "mkdir cpu/g%d\necho 5000 > cpu/g%d/cpu.cfs_period_us\n"
				   "echo %d > cpu/g%d/cpu.cfs_quota_us\n",
			       g, g, 1000 + 10 * g, g);
		for (k = 0; k < 4; k++)
			ucg_buf_printf(&b, "spawn t%d_%d\necho $t%d_%d > cpu/g%d/cgroup.procs\n"
					   "busy t%d_%d\n", g, k, g, k, g, g, k);
	}
	ucg_buf_puts(&b, "run 2s\n");
	rate("sim.events_per_s.cpu_quota", b.data, b.len);
	ucg_buf_fini(&b);
}

static void bench_big(void)
{
	struct ucg_buf b;
	double secs = 0;

	ucg_buf_init(&b);
	sim_bench_big_scenario(&b); /* the same text as bench_sim_charging's big run */
	if (run_once("big.ucg", b.data, b.len, &secs) >= 0)
		printf("sim.big_run_cpu_s %.2f s\n", secs);
	ucg_buf_fini(&b);
}

/* One virtual hour of a 64-CPU host (sim_bench_hour_scenario), in wall seconds (a
 * loaded machine inflates it; the CPU seconds beside it do not), with the
 * virtual-to-wall ratio. */
static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* UCG_SIM_HOUR_S=N: N virtual seconds, not the hour (the figures say so).
 * UCG_SIM_HOUR_MINUTES=1: the CPU seconds each virtual minute took, on stderr.
 * UCG_SIM_HOUR_SUMMARY=FILE: the run's summary table and transcript go to FILE. */
struct hour_progress {
	double c0;
	sim_time next;
	struct sim *s;
	uint64_t upd0; /* recomputes at the last line */
};

static void hour_minute(void *ctx, sim_time now, sim_time end, uint64_t events)
{
	struct hour_progress *p = ctx;

	(void)end;
	while (now >= p->next) {
		double c = cpu_s();

		fprintf(stderr, "minute %lld: %.2f s CPU, %llu recomputes, %llu events so far\n",
			(long long)(p->next / (60 * SIM_SEC)), c - p->c0,
			(unsigned long long)(p->s->cpu_updates - p->upd0),
			(unsigned long long)events);
		p->c0 = c;
		p->upd0 = p->s->cpu_updates;
		p->next += 60 * SIM_SEC;
	}
}

static void bench_hour(const char *model, const char *suffix)
{
	const char *hs = getenv("UCG_SIM_HOUR_S"), *pm = getenv("UCG_SIM_HOUR_MINUTES");
	const char *sum = getenv("UCG_SIM_HOUR_SUMMARY");
	double virt = hs ? atof(hs) : 3600.0;
	struct hour_progress prog = { 0, 60 * SIM_SEC, NULL, 0 };
	struct sim_config cfg;
	struct sim_err err;
	struct sim *s = NULL;
	struct ucg_buf b;
	double w0, c0, w, c;

	ucg_buf_init(&b);
	sim_bench_hour_scenario(&b, model);
	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 1;
	if (virt <= 0 || virt > 3600.0)
		virt = 3600.0;
	cfg.until = (sim_time)(virt * SIM_SEC);
	if (pm && *pm == '1') {
		cfg.progress = hour_minute;
		cfg.progress_ctx = &prog;
		cfg.progress_every = 1000;
	}
	if (sim_new(&cfg, &s) < 0 || sim_load(s, "hour.ucg", b.data, b.len, &err) < 0) {
		fprintf(stderr, "bench: hour: %s\n", s ? err.msg : "no memory");
		goto out;
	}
	w0 = wall_s();
	c0 = cpu_s();
	prog.c0 = c0;
	prog.s = s;
	if (sim_run(s, &err) < 0) {
		fprintf(stderr, "bench: hour: %s\n", err.msg);
		goto out;
	}
	w = wall_s() - w0;
	c = cpu_s() - c0;
	if (sum && *sum) {
		/* the run's summary and transcript, to compare two builds' results */
		FILE *f = fopen(sum, "w");
		struct ucg_buf o;

		ucg_buf_init(&o);
		if (f && sim_format_summary(s, &o) == 0)
			fprintf(f, "%s%s", o.data ? o.data : "", sim_log(s));
		if (f)
			fclose(f);
		ucg_buf_fini(&o);
	}
	printf("sim.hour_64cpu_s%s %.2f s\n", suffix, w);
	if (virt != 3600.0)
		printf("# virtual length %.0f s (UCG_SIM_HOUR_S), not the hour\n", virt);
	printf("sim.hour_64cpu_virtual_per_wall%s %.0f x\n", suffix, virt / w);
	printf("sim.hour_64cpu_cpu_s%s %.2f s\n", suffix, c);
	printf("sim.hour_64cpu_events%s %llu events\n", suffix, (unsigned long long)sim_events(s));
	printf("sim.hour_64cpu_recomputes%s %llu recomputes\n", suffix,
	       (unsigned long long)s->cpu_updates);
	printf("sim.hour_64cpu_reshares%s %llu CPUs\n", suffix,
	       (unsigned long long)s->cpu_reshares);
	printf("sim.hour_64cpu_reshares_unchanged%s %llu CPUs\n", suffix,
	       (unsigned long long)s->cpu_share_skips);
	printf("sim.hour_64cpu_balancings%s %llu balancings\n", suffix,
	       (unsigned long long)s->cpu_balances);
out:
	sim_free(s);
	ucg_buf_fini(&b);
}

static const char *only;

static bool wanted(const char *figure)
{
	return !only || strstr(figure, only);
}

int main(int argc, char **argv)
{
	size_t i, nsc;
	char **scenarios = list_scenarios(&nsc);

	if (argc > 2 && !strcmp(argv[1], "only"))
		only = argv[2];
	if (wanted("sim.dispatch_per_s"))
		bench_dispatch();
	if (!nsc)
		fprintf(stderr, "bench: no scenarios/*.ucg (UCG_SOURCE_ROOT?)\n");
	for (i = 0; i < nsc; i++) {
		char figure[128], file[128];
		size_t len;
		char *text;

		snprintf(figure, sizeof(figure), "sim.events_per_s.%s", scenarios[i]);
		if (!wanted(figure))
			continue;
		snprintf(file, sizeof(file), "%s.ucg", scenarios[i]);
		text = sim_bench_scenario(file, &len);
		if (!text) {
			fprintf(stderr, "bench: scenarios/%s not found (UCG_SOURCE_ROOT?)\n", file);
			continue;
		}
		rate(figure, text, len);
		ucg_free(text);
	}
	for (i = 0; i < nsc; i++)
		ucg_free(scenarios[i]);
	ucg_free(scenarios);
	if (!only) /* the hour runs for minutes: only when named */
		printf("# sim.hour_64cpu_s: `bench_sim_events only sim.hour_64cpu_s` (some 10.3 s "
		       "of CPU here: target 10 s, not met)\n");
	if (wanted("sim.events_per_s.cpu_quota"))
		bench_cpu_quota();
	if ((argc < 2 || strcmp(argv[1], "quick")) && wanted("sim.big_run_cpu_s"))
		bench_big();
	if (only && strstr("sim.hour_64cpu_s.fluid", only)) {
		bench_hour("tick", "");
		if (only && strstr(only, "fluid")) /* twice as long: asked for by name */
			bench_hour("fluid", ".fluid");
	}
	return 0;
}
