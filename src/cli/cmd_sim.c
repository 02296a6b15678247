/* cli/cmd_sim.c — `ucg sim SCENARIO [--seed N] [--until T] [--charging=DESIGN]
 * [--csv DIR] [--report FILE] [--progress|--no-progress]`: runs a scenario in the
 * discrete-event simulator and prints its transcript and summary table.
 *
 * --charging=all runs the scenario once per design and ends with a table comparing
 * how each charged writeback and helper I/O. A progress line goes to stderr when
 * stderr is a terminal (--progress: always; --no-progress: never), never to stdout or
 * the CSV and report files, so what a run writes there does not depend on it.
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

enum progress_mode { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

/* The progress line: virtual time reached of the run's end, events fired, events per
 * wall second and the wall time left, estimated from the share of virtual time left:
 *   "sim: 12.500s/60s virtual (20%), 3145728 events, 2.41M events/s, ETA 5s"
 * The simulator calls progress_cb every SIM_PROGRESS_EVERY events and knows nothing of
 * the wall clock; the line is drawn here at most PROGRESS_HZ times a second, rewritten
 * in place with '\r', first after PROGRESS_DELAY seconds so that a short run on a
 * terminal shows nothing, and ended by progress_end with the totals and a newline
 * ("done in 1.20s"). Under --progress the final line is drawn however short the run. */
#define PROGRESS_HZ 4
#define PROGRESS_DELAY 0.5

struct progress {
	const char *label; /* "sim" or the design under --charging=all */
	struct timespec start;
	double next;  /* wall seconds since start at which to draw again */
	size_t width; /* of the line drawn last: a shorter one blanks the rest */
	int forced, shown;
};

static double progress_wall(const struct progress *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - p->start.tv_sec) +
	       (double)(ts.tv_nsec - p->start.tv_nsec) / 1e9;
}

/* "950", "12.3k", "2.41M", "1.05G". */
static void format_count(char *buf, size_t size, double v)
{
	if (v >= 1e9)
		snprintf(buf, size, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
}

/* Wall seconds as "7s", "3m05s", "2h10m". */
static void format_wall(char *buf, size_t size, double sec)
{
	long s = (long)(sec + 0.5);

	if (s < 60)
		snprintf(buf, size, "%lds", s);
	else if (s < 3600)
		snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
}

static void progress_draw(struct progress *p, double wall, sim_time now, sim_time end,
			  uint64_t events, int done)
{
	char line[256], rate[32], eta[24], left[32];
	struct ucg_buf e;
	size_t n;
	int w;

	ucg_buf_init(&e);
	if (end > 0)
		sim_format_time(end, &e);
	format_count(rate, sizeof(rate), wall > 0 ? (double)events / wall : 0);
	if (done) {
		snprintf(left, sizeof(left), "done in %.2fs", wall);
	} else if (end > 0 && now > 0 && now < end) {
		format_wall(eta, sizeof(eta), wall * (double)(end - now) / (double)now);
		snprintf(left, sizeof(left), "ETA %s", eta);
	} else {
		snprintf(left, sizeof(left), "ETA ?");
	}
	if (end > 0 && e.data)
		w = snprintf(line, sizeof(line),
			     "%s: %.3fs/%s virtual (%.0f%%), %" PRIu64 " events, %s events/s, %s",
			     p->label, (double)now / 1e9, e.data, 100.0 * (double)now / (double)end,
			     events, rate, left);
	else
		w = snprintf(line, sizeof(line),
			     "%s: %.3fs virtual, %" PRIu64 " events, %s events/s", p->label,
			     (double)now / 1e9, events, rate);
	ucg_buf_fini(&e);
	n = w < 0 ? 0 : (size_t)w >= sizeof(line) ? sizeof(line) - 1 : (size_t)w;
	fprintf(stderr, "\r%s%*s", line, p->width > n ? (int)(p->width - n) : 0, "");
	fflush(stderr);
	p->width = n;
	p->shown = 1;
}

static void progress_cb(void *ctx, sim_time now, sim_time end, uint64_t events)
{
	struct progress *p = ctx;
	double wall = progress_wall(p);

	if (wall < p->next)
		return;
	p->next = wall + 1.0 / PROGRESS_HZ;
	progress_draw(p, wall, now, end, events, 0);
}

/* The run ended (or failed): the totals on the line, and the newline. */
static void progress_end(struct progress *p, const struct sim *s)
{
	if (!p->shown && !p->forced)
		return;
	progress_draw(p, progress_wall(p), sim_now(s), sim_end(s), sim_events(s), 1);
	fputc('\n', stderr);
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
	fprintf(stderr,
		"usage: ucg sim SCENARIO [--seed N] [--until TIME] "
		"[--charging=kernel|pid|consumer|dual|inode|all] [--csv DIR] "
		"[--report FILE] [--progress|--no-progress]\n"
		"  --progress     a progress line on stderr even when it is not a terminal\n"
		"  --no-progress  none even when it is (default: only on a terminal)\n");
	return 2;
}

struct opts {
	const char *scenario, *csv, *report;
	uint64_t seed;
	sim_time until;
	int all;
	enum sim_charging charging;
	enum progress_mode progress;
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
	pr.label = o->all ? sim_charging_name(c) : "sim";
	pr.forced = o->progress == PROGRESS_ON;
	pr.next = PROGRESS_DELAY;
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	if (pr.forced || (o->progress == PROGRESS_AUTO && isatty(STDERR_FILENO))) {
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
	if (cfg.progress)
		progress_end(&pr, s);
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
		} else if (!strcmp(a, "--progress")) {
			o.progress = PROGRESS_ON;
		} else if (!strcmp(a, "--no-progress")) {
			o.progress = PROGRESS_OFF;
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
