/* sim/test_sim_progress.c — the progress hook: sim_run calls it every progress_every
 * events (SIM_PROGRESS_EVERY by default) with the virtual time, which never goes back,
 * the run's end and the event count; never when no hook is set; and a run's output is
 * the same with a hook or without. */
#include "sim/test_sim.h"

/* One group capped at 1 ms of CPU per 5 ms period: two timers a period, ~400 events a
 * virtual second. */
static const char quota_scenario[] = "cpus 2\n"
				     "mount -o cpu c\n"
				     "mkdir c/g\n"
				     "echo 5000 > c/g/cpu.cfs_period_us\n"
				     "echo 1000 > c/g/cpu.cfs_quota_us\n"
				     "spawn p\n"
				     "echo $p > c/g/cgroup.procs\n"
				     "busy p\n"
				     "run 10s\n";

#define MAX_CALLS 1024

struct calls {
	size_t n;
	sim_time now[MAX_CALLS], end[MAX_CALLS];
	uint64_t events[MAX_CALLS];
};

static void record(void *ctx, sim_time now, sim_time end, uint64_t events)
{
	struct calls *c = ctx;

	if (c->n < MAX_CALLS) {
		c->now[c->n] = now;
		c->end[c->n] = end;
		c->events[c->n] = events;
	}
	c->n++;
}

/* Runs quota_scenario with cfg's hook fields; the log + summary (caller frees), the
 * events fired in *nevents and the end in *end. */
static char *run_with(const struct sim_config *hook, uint64_t *nevents, sim_time *end)
{
	struct sim_config cfg = *hook;
	struct sim_err err;
	struct ucg_buf b;
	struct sim *s = NULL;
	int r;

	cfg.seed = 1;
	ucg_buf_init(&b);
	r = sim_new(&cfg, &s);
	if (r == 0)
		r = sim_load(s, "q.ucg", quota_scenario, strlen(quota_scenario), &err);
	if (r == 0)
		r = sim_run(s, &err);
	T_EQ_INT(r, 0);
	if (s) {
		ucg_buf_puts(&b, sim_log(s));
		sim_format_summary(s, &b);
		*nevents = sim_events(s);
		*end = sim_end(s);
	}
	sim_free(s);
	return ucg_buf_steal(&b, NULL);
}

/* Every 64 events: the count is 64 k at the k-th call, virtual time never goes back and
 * stays within the end, which is the scenario's. */
static void test_progress_every(void)
{
	static struct calls c;
	struct sim_config cfg;
	uint64_t nevents = 0;
	sim_time end = 0;
	size_t i;

	memset(&cfg, 0, sizeof(cfg));
	memset(&c, 0, sizeof(c));
	cfg.progress = record;
	cfg.progress_ctx = &c;
	cfg.progress_every = 64;
	ucg_free(run_with(&cfg, &nevents, &end));
	T_EQ_INT(end, 10 * SIM_SEC);
	T_CHECK(nevents > 1000);
	T_EQ_INT(c.n, nevents / 64);
	T_CHECK(c.n <= MAX_CALLS);
	for (i = 0; i < c.n && i < MAX_CALLS; i++) {
		T_EQ_INT(c.events[i], 64 * (i + 1));
		T_EQ_INT(c.end[i], 10 * SIM_SEC);
		T_CHECK(c.now[i] >= 0 && c.now[i] <= c.end[i]);
		if (i > 0)
			T_CHECK(c.now[i] >= c.now[i - 1]);
	}
	/* time moves: the last call is well past the first */
	T_CHECK(c.n > 2 && c.now[c.n - 1] > c.now[0]);
}

/* progress_every 0 is SIM_PROGRESS_EVERY; --until's end is what the hook hears. */
static void test_progress_default(void)
{
	static struct calls c;
	struct sim_config cfg;
	uint64_t nevents = 0;
	sim_time end = 0;
	size_t i;

	memset(&cfg, 0, sizeof(cfg));
	memset(&c, 0, sizeof(c));
	cfg.progress = record;
	cfg.progress_ctx = &c;
	cfg.until = 60 * SIM_SEC;
	ucg_free(run_with(&cfg, &nevents, &end));
	T_EQ_INT(end, 60 * SIM_SEC);
	T_CHECK(nevents > 3 * SIM_PROGRESS_EVERY);
	T_EQ_INT(c.n, nevents / SIM_PROGRESS_EVERY);
	for (i = 0; i < c.n && i < MAX_CALLS; i++) {
		T_EQ_INT(c.events[i], SIM_PROGRESS_EVERY * (i + 1));
		T_EQ_INT(c.end[i], 60 * SIM_SEC);
		if (i > 0)
			T_CHECK(c.now[i] > c.now[i - 1]);
	}
}

/* No hook, no call (a context alone is not a hook); a hook changes nothing a run
 * prints. */
static void test_progress_unset(void)
{
	static struct calls c;
	struct sim_config cfg;
	uint64_t n1 = 0, n2 = 0;
	sim_time end = 0;
	char *with, *without;

	memset(&cfg, 0, sizeof(cfg));
	memset(&c, 0, sizeof(c));
	cfg.progress_ctx = &c;
	cfg.progress_every = 1;
	without = run_with(&cfg, &n1, &end);
	T_EQ_INT(c.n, 0);
	cfg.progress = record;
	with = run_with(&cfg, &n2, &end);
	T_EQ_INT(c.n, n2);
	T_EQ_INT(n1, n2);
	T_CHECK(with && without);
	if (with && without)
		T_EQ_STR(with, without);
	ucg_free(with);
	ucg_free(without);
}

int main(void)
{
	T_RUN(test_progress_every);
	T_RUN(test_progress_default);
	T_RUN(test_progress_unset);
	return t_done();
}
