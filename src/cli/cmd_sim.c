/* cli/cmd_sim.c — `ucg sim SCENARIO [--seed N] [--until T] [--charging=DESIGN]
 * [--csv DIR] [--report FILE]`: runs a scenario in the discrete-event simulator and
 * prints its transcript and summary table.
 *
 * --charging=all runs the scenario once per design and ends with a table comparing
 * how each charged writeback and helper I/O. A progress bar is drawn on stderr only
 * when stderr is a terminal and the run has already taken more than half a second.
 * Exit status: 0, 1 when the run fails (file:line and the errno text on stderr), 2
 * for usage errors and scenarios that do not parse.
 */
#include "cli/commands.h"
#include "sim/sim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"

struct progress {
	struct timespec start;
	int shown;
};

static void progress_cb(void *ctx, sim_time now, sim_time end)
{
	struct progress *p = ctx;
	struct timespec ts;
	double wall;
	int i, w = 40, fill;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	wall = (double)(ts.tv_sec - p->start.tv_sec) + (double)(ts.tv_nsec - p->start.tv_nsec) / 1e9;
	if (wall < 0.5 || end <= 0)
		return;
	fill = (int)((double)w * (double)now / (double)end);
	if (fill > w)
		fill = w;
	fputs("\r[", stderr);
	for (i = 0; i < w; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %5.1f%% %.1fs virtual", 100.0 * (double)now / (double)end,
		(double)now / 1e9);
	p->shown = 1;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (n + 4096 > cap) {
			char *nd = ucg_realloc(data, cap = cap * 2 + 8192);

			if (!nd) {
				ucg_free(data);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			data = nd;
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return data;
}

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -errno;
	ok = fwrite(data, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	return ok ? 0 : -EIO;
}

/* The simulator's message (file:line: what), ending with the errno's text as every
 * ucg error does. */
static void print_err(const struct sim_err *err, int r)
{
	const char *text = strerror(-r);
	size_t ml = strlen(err->msg), tl = strlen(text);

	if (ml >= tl && !strcmp(err->msg + ml - tl, text))
		fprintf(stderr, "%s\n", err->msg);
	else
		fprintf(stderr, "%s: %s\n", err->msg, text);
}

static int usage(void)
{
	fprintf(stderr, "usage: ucg sim SCENARIO [--seed N] [--until TIME] "
			"[--charging=kernel|pid|consumer|dual|inode|all] [--csv DIR] "
			"[--report FILE]\n");
	return 2;
}

struct opts {
	const char *scenario, *csv, *report;
	uint64_t seed;
	sim_time until;
	int all;
	enum sim_charging charging;
};

/* Runs one design; prints transcript and summary. 0, 1 (run error), 2 (parse). */
static int run_one(const struct opts *o, const char *text, size_t len, enum sim_charging c,
		   struct sim_attribution *attr, int outputs)
{
	struct sim_config cfg;
	struct progress pr;
	struct sim_err err;
	struct ucg_buf out;
	struct sim *s = NULL;
	int r, status = 0;
	size_t i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = o->seed;
	cfg.until = o->until;
	cfg.charging = c;
	memset(&pr, 0, sizeof(pr));
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	if (isatty(STDERR_FILENO)) {
		cfg.progress = progress_cb;
		cfg.progress_ctx = &pr;
	}
	r = sim_new(&cfg, &s);
	if (r < 0) {
		fprintf(stderr, "ucg: sim: %s\n", strerror(-r));
		return 1;
	}
	r = sim_load(s, o->scenario, text, len, &err);
	if (r < 0) {
		print_err(&err, r);
		sim_free(s);
		return 2;
	}
	r = sim_run(s, &err);
	if (pr.shown)
		fputs("\r\033[K", stderr);
	ucg_buf_init(&out);
	ucg_buf_puts(&out, sim_log(s));
	if (r == 0)
		sim_format_summary(s, &out);
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	fflush(stdout);
	ucg_buf_fini(&out);
	if (r < 0) {
		print_err(&err, r);
		status = 1;
	}
	if (attr)
		sim_get_attribution(s, attr);
	if (status == 0 && outputs && o->csv) {
		if (mkdir(o->csv, 0755) < 0 && errno != EEXIST) {
			fprintf(stderr, "ucg: sim: %s: %s\n", o->csv, strerror(errno));
			status = 1;
		}
		for (i = 0; status == 0 && i < sim_csv_count(s); i++) {
			const char *name;
			char path[4096];

			ucg_buf_init(&out);
			r = sim_format_csv(s, i, &name, &out);
			snprintf(path, sizeof(path), "%s/%s", o->csv, r == 0 ? name : "x");
			if (r == 0)
				r = write_file(path, out.data ? out.data : "", out.len);
			if (r < 0) {
				fprintf(stderr, "ucg: sim: %s: %s\n", path, strerror(-r));
				status = 1;
			}
			ucg_buf_fini(&out);
		}
	}
	if (status == 0 && outputs && o->report) {
		ucg_buf_init(&out);
		r = sim_format_html(s, &out);
		if (r == 0)
			r = write_file(o->report, out.data ? out.data : "", out.len);
		if (r < 0) {
			fprintf(stderr, "ucg: sim: %s: %s\n", o->report, strerror(-r));
			status = 1;
		}
		ucg_buf_fini(&out);
	}
	sim_free(s);
	return status;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

int cmd_sim(int argc, char **argv)
{
	struct opts o;
	char *text;
	size_t len = 0;
	int i, status = 0;

	memset(&o, 0, sizeof(o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--seed") && i + 1 < argc) {
			char *end;

			errno = 0;
			o.seed = strtoull(argv[++i], &end, 0);
			if (errno || *end)
				return usage();
		} else if (!strcmp(a, "--until") && i + 1 < argc) {
			if (sim_parse_time(argv[++i], &o.until) < 0 || o.until <= 0)
				return usage();
		} else if (!strncmp(a, "--charging=", 11)) {
			if (!strcmp(a + 11, "all"))
				o.all = 1;
			else if (sim_charging_parse(a + 11, &o.charging) < 0)
				return usage();
		} else if (!strcmp(a, "--csv") && i + 1 < argc) {
			o.csv = argv[++i];
		} else if (!strcmp(a, "--report") && i + 1 < argc) {
			o.report = argv[++i];
		} else if (a[0] == '-' || o.scenario) {
			return usage();
		} else {
			o.scenario = a;
		}
	}
	if (!o.scenario)
		return usage();
	text = read_file(o.scenario, &len);
	if (!text) {
		fprintf(stderr, "ucg: sim: %s: %s\n", o.scenario, strerror(errno));
		return 2;
	}
	if (!o.all) {
		status = run_one(&o, text, len, o.charging, NULL, 1);
	} else {
		struct sim_attribution a[SIM_CHARGING_NR];
		int c;

		memset(a, 0, sizeof(a));
		for (c = 0; c < SIM_CHARGING_NR && status == 0; c++) {
			printf("######## --charging=%s\n", sim_charging_name((enum sim_charging)c));
			status = run_one(&o, text, len, (enum sim_charging)c, &a[c],
					 c == SIM_CHARGING_NR - 1);
			printf("\n");
		}
		if (status == 0) {
			printf("== charging designs compared ==\n%-9s %11s %14s %14s %12s %14s\n",
			       "design", "bytes/page", "wb->origin", "wb orphaned", "helper->orig",
			       "refund misdir");
			for (c = 0; c < SIM_CHARGING_NR; c++) {
				char wb[32], hp[32];

				snprintf(wb, sizeof(wb), "%.2f%%", pct(a[c].wb_to_origin, a[c].wb_bytes));
				snprintf(hp, sizeof(hp), "%.2f%%",
					 pct(a[c].helper_to_origin, a[c].helper_bytes));
				printf("%-9s %11zu %14s %14" PRIu64 " %12s %14" PRIu64 "\n",
				       sim_charging_name((enum sim_charging)c), a[c].record_bytes,
				       a[c].wb_bytes ? wb : "-", a[c].wb_orphaned,
				       a[c].helper_bytes ? hp : "-", a[c].refund_misdirected);
			}
		}
	}
	ucg_free(text);
	return status;
}
