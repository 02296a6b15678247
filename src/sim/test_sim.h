/* sim/test_sim.h — helpers for the simulator's unit tests. */
#ifndef UCG_SIM_TEST_SIM_H
#define UCG_SIM_TEST_SIM_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "harness.h"
#include "sim/sim.h"
#include "sim/sim_impl.h"

/* The whole of a file (scenarios, goldens), NUL-terminated; NULL if it cannot be
 * opened. The caller frees it with ucg_free. */
static inline char *ts_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct ucg_buf b;
	char chunk[8192];
	size_t n;

	if (!f)
		return NULL;
	ucg_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ucg_buf_append(&b, chunk, n);
	fclose(f);
	if (!b.data)
		ucg_buf_puts(&b, "");
	return ucg_buf_steal(&b, len);
}

/* Loads and runs text; returns the sim (caller frees) or NULL, with err filled. */
static inline struct sim *ts_run(const char *text, uint64_t seed, enum sim_charging c,
				 int *ret_r, struct sim_err *err)
{
	struct sim_config cfg;
	struct sim *s = NULL;
	int r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = seed;
	cfg.charging = c;
	r = sim_new(&cfg, &s);
	if (r == 0)
		r = sim_load(s, "t.ucg", text, strlen(text), err);
	if (r == 0)
		r = sim_run(s, err);
	*ret_r = r;
	return s;
}

/* Log + summary of a whole run, as ucg sim prints it (caller frees with ucg_free). */
static inline char *ts_output(const char *text, uint64_t seed, enum sim_charging c)
{
	struct sim_err err;
	struct ucg_buf b;
	int r;
	struct sim *s = ts_run(text, seed, c, &r, &err);

	ucg_buf_init(&b);
	if (s) {
		ucg_buf_puts(&b, sim_log(s));
		if (r == 0)
			sim_format_summary(s, &b);
		else
			ucg_buf_printf(&b, "ERROR %s\n", err.msg);
	}
	sim_free(s);
	return ucg_buf_steal(&b, NULL);
}

/* Everything a run produced that the CPU model feeds, as text: log, summary (or the
 * error), each task's and cgroup's CPU and throttling, idle time, events and the rates'
 * digest. full: every recompute from scratch (s->cpu_full), so an incremental run and
 * a full one of the same text can be compared byte for byte. check, when not NULL,
 * looks at a successful run's sim before it is freed. Caller frees with ucg_free. */
static inline char *ts_cpu_record(const char *text, size_t len, uint64_t seed, bool full,
				  int *ret_r, void (*check)(struct sim *s, const char *text))
{
	struct sim_config cfg;
	struct sim_err err;
	struct sim *s = NULL;
	struct ucg_buf b;
	size_t i;
	int r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = seed;
	ucg_buf_init(&b);
	r = sim_new(&cfg, &s);
	if (r == 0) {
		s->cpu_full = full;
		s->cpu_digesting = true;
		s->cpu_digest = 0xcbf29ce484222325ull;
		r = sim_load(s, "t.ucg", text, len, &err);
	}
	if (r == 0)
		r = sim_run(s, &err);
	*ret_r = r;
	if (!s) {
		ucg_buf_puts(&b, "no sim\n");
		return ucg_buf_steal(&b, NULL);
	}
	ucg_buf_puts(&b, sim_log(s));
	if (r == 0)
		sim_format_summary(s, &b);
	else
		ucg_buf_printf(&b, "ERROR %s\n", err.msg);
	for (i = 0; i < s->ntasks; i++)
		ucg_buf_printf(&b, "task %d cpu_ns %lld\n", s->tasks[i]->tid,
			       (long long)s->tasks[i]->cpu_ns);
	for (i = 0; i < s->ncgs; i++) {
		struct sim_cg *g = s->cgs[i];

		ucg_buf_printf(&b, "cg %d %s cpu %lld thr %lld/%llu/%llu local %lld\n", g->id,
			       sim_cg_path(g), (long long)g->cpu_ns, (long long)g->throttled_ns,
			       (unsigned long long)g->nr_throttled,
			       (unsigned long long)g->nr_periods, (long long)g->local_throttled_ns);
	}
	ucg_buf_printf(&b, "idle %lld events %llu rates %016llx\n", (long long)s->idle_ns,
		       (unsigned long long)sim_events(s), (unsigned long long)s->cpu_digest);
	if (r == 0 && check)
		check(s, text);
	sim_free(s);
	return ucg_buf_steal(&b, NULL);
}

/* Cgroup path in hierarchy name, NULL if absent. */
static inline struct sim_cg *ts_cg(struct sim *s, const char *hname, const char *path)
{
	struct sim_hier *h = sim_hier_by_name(s, hname);

	return h ? sim_cg_find(s, h, path) : NULL;
}

/* Is the file readable in a fresh engine with the controller mounted? (Controllers
 * land one by one; a test that needs cpu.shares skips until it exists.) */
static inline int ts_has_file(const char *opts, const char *file)
{
	struct ucg_engine *e = NULL;
	struct ucg_hierarchy *h = NULL;
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf b;
	int r;

	if (ucg_engine_new(NULL, &e) < 0)
		return 0;
	ucg_buf_init(&b);
	r = ucg_mount(e, opts, &h, NULL);
	if (r == 0)
		r = ucg_fs_read_all(e, h, file, &root, &b);
	if (r < 0 && h && ucg_fs_mkdir(e, h, "/t", 0755, &root) == 0) {
		/* some files exist only below the root (freezer.state) */
		char path[256];

		snprintf(path, sizeof(path), "/t%s", file);
		r = ucg_fs_read_all(e, h, path, &root, &b);
	}
	ucg_buf_fini(&b);
	ucg_engine_free(e);
	return r == 0;
}

#define T_NEAR(a, b, tol)                                                              \
	do {                                                                           \
		double t_a_ = (a), t_b_ = (b);                                         \
		if (t_a_ < t_b_ - (tol) || t_a_ > t_b_ + (tol))                        \
			T_FAIL_AT("%s == %.6f, want %.6f +- %g", #a, t_a_, t_b_, (double)(tol)); \
	} while (0)

#endif
