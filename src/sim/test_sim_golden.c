/* sim/test_sim_golden.c — every shipped scenario against its golden output in
 * tests/sim/, byte for byte, and each run twice (same seed, same bytes). The output
 * is what `ucg sim SCENARIO --seed 1` prints (transcript + summary), for each design
 * listed; with UCG_UPDATE_GOLDEN=1 the golden files are rewritten instead. */
#include <stdio.h>
#include <stdlib.h>

#include "sim/test_sim.h"

struct golden {
	const char *name;
	unsigned designs; /* bit per enum sim_charging */
	int needs_net;
};

#define ALL_DESIGNS ((1u << SIM_CHARGING_NR) - 1)

static const struct golden goldens[] = {
	{ "cpu_sessions", 1u << SIM_CHARGING_KERNEL, 0 },
	{ "writeback", ALL_DESIGNS, 0 },
	{ "md_helper", ALL_DESIGNS, 0 },
	{ "net_classes", 1u << SIM_CHARGING_KERNEL, 1 },
	{ "explosion_split", 1u << SIM_CHARGING_KERNEL, 0 },
	{ "explosion_unified", 1u << SIM_CHARGING_KERNEL, 0 },
	{ "memcg_pressure", 1u << SIM_CHARGING_KERNEL, 0 },
	{ "memcg_events", 1u << SIM_CHARGING_KERNEL, 0 },
};

/* What ucg sim prints for one scenario and design. */
static void run_one(const char *name, const char *text, size_t len, enum sim_charging c,
		    struct ucg_buf *out)
{
	struct sim_config cfg;
	struct sim_err err;
	struct sim *s = NULL;
	char fname[256];
	int r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 1;
	cfg.charging = c;
	snprintf(fname, sizeof(fname), "scenarios/%s.ucg", name);
	ucg_buf_printf(out, "######## --charging=%s\n", sim_charging_name(c));
	r = sim_new(&cfg, &s);
	if (r == 0)
		r = sim_load(s, fname, text, len, &err);
	if (r == 0)
		r = sim_run(s, &err);
	if (s)
		ucg_buf_puts(out, sim_log(s));
	if (r == 0)
		sim_format_summary(s, out);
	else
		ucg_buf_printf(out, "ERROR %s\n", s ? err.msg : "sim_new");
	sim_free(s);
}

/* The engine's struct sizes (debug.engine_stats "bytes_*" lines) change whenever
 * someone adds a field; they are blanked before comparing, everything else is
 * compared byte for byte. */
static void normalise(char *t, size_t *len)
{
	char *r = t, *w = t, *end = t + *len;
	int bol = 1;

	while (r < end) {
		if (bol && end - r > 6 && !strncmp(r, "bytes_", 6)) {
			while (r < end && *r != ' ' && *r != '\n')
				*w++ = *r++;
			if (r < end && *r == ' ') {
				*w++ = *r++;
				while (r < end && *r >= '0' && *r <= '9')
					r++;
				*w++ = '#';
			}
		}
		bol = *r == '\n';
		*w++ = *r++;
	}
	*len = (size_t)(w - t);
}

static void check(const struct golden *g)
{
	const char *root = getenv("UCG_SOURCE_ROOT");
	char path[1024], gpath[1024];
	struct ucg_buf a, b;
	char *text, *want;
	size_t len, wlen;
	int c;

	snprintf(path, sizeof(path), "%s/scenarios/%s.ucg", root ? root : ".", g->name);
	snprintf(gpath, sizeof(gpath), "%s/tests/sim/%s.golden", root ? root : ".", g->name);
	text = ts_slurp(path, &len);
	T_CHECK(text != NULL);
	if (!text)
		return;
	ucg_buf_init(&a);
	ucg_buf_init(&b);
	for (c = 0; c < SIM_CHARGING_NR; c++)
		if (g->designs & (1u << c)) {
			run_one(g->name, text, len, (enum sim_charging)c, &a);
			run_one(g->name, text, len, (enum sim_charging)c, &b);
		}
	T_EQ_INT(a.len, b.len);
	T_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
	T_CHECK(!strstr(a.data, "ERROR "));
	if (getenv("UCG_UPDATE_GOLDEN")) {
		FILE *f = fopen(gpath, "wb");

		T_CHECK(f != NULL);
		if (f) {
			fwrite(a.data, 1, a.len, f);
			fclose(f);
		}
	} else {
		want = ts_slurp(gpath, &wlen);
		T_CHECK(want != NULL);
		if (want) {
			normalise(want, &wlen);
			normalise(a.data, &a.len);
			T_EQ_INT(a.len, wlen);
			if (a.len != wlen || memcmp(a.data, want, wlen)) {
				size_t i = 0;

				while (i < a.len && i < wlen && a.data[i] == want[i])
					i++;
				T_FAIL_AT("%s differs from %s at byte %zu", g->name, gpath, i);
			}
		}
		ucg_free(want);
	}
	ucg_buf_fini(&a);
	ucg_buf_fini(&b);
	ucg_free(text);
}

static const struct golden *cur;

static void test_golden(void)
{
	if (cur->needs_net && !sim_net_available())
		T_SKIP("the traffic-control model is not built in");
	check(cur);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++) {
		cur = &goldens[i];
		printf("# %s\n", cur->name);
		T_RUN(test_golden);
	}
	return t_done();
}
