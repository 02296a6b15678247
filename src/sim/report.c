/* sim/report.c — what a run reports: the per-cgroup summary table, time series
 * (samples taken every `set sample` interval, 1 s by default) as CSV, and a
 * self-contained HTML page with inline SVG charts.
 *
 * Everything is formatted from integers or from doubles computed in a fixed order,
 * with fixed precision, and rows come in id order (creation order), so the same run
 * always gives the same bytes. Nothing here writes files: the caller (src/cli) does.
 *
 * Columns. cpu_s: CPU seconds used by the cgroup and its descendants; share: that
 * over (elapsed time x CPUs); throttled: periods throttled / periods (cpu.stat) and
 * throttled seconds; mem: charged pages now and at peak (MiB), refused charges and
 * OOM kills the simulator saw; I/O: bytes read and written per device; net: packets
 * sent, bytes and drops.
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

void sim_sample_take(struct sim *s)
{
	struct sim_sample *sm;
	size_t i;

	if (s->nsamples == s->csamples) {
		size_t n = s->csamples ? s->csamples * 2 : 64;
		struct sim_sample *v = ucg_realloc(s->samples, n * sizeof(*v));

		if (!v)
			return;
		s->samples = v;
		s->csamples = n;
	}
	sm = &s->samples[s->nsamples];
	memset(sm, 0, sizeof(*sm));
	sm->t = s->now;
	sm->ncg = s->ncgs;
	sm->cpu = ucg_calloc(s->ncgs + 1, sizeof(int64_t));
	sm->mem = ucg_calloc(s->ncgs + 1, sizeof(int64_t));
	sm->io = ucg_calloc(s->ncgs + 1, sizeof(uint64_t));
	if (!sm->cpu || !sm->mem || !sm->io) {
		ucg_free(sm->cpu);
		ucg_free(sm->mem);
		ucg_free(sm->io);
		return;
	}
	for (i = 0; i < s->ncgs; i++) {
		struct sim_cg *cg = s->cgs[i];
		size_t d;

		sm->cpu[i] = cg->cpu_ns;
		sm->mem[i] = cg->mem_pages;
		for (d = 0; d < SIM_MAX_DEV; d++)
			sm->io[i] += cg->io_bytes[d][0] + cg->io_bytes[d][1];
	}
	s->nsamples++;
}

void sim_samples_fini(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->nsamples; i++) {
		ucg_free(s->samples[i].cpu);
		ucg_free(s->samples[i].mem);
		ucg_free(s->samples[i].io);
	}
	ucg_free(s->samples);
	s->samples = NULL;
	s->nsamples = s->csamples = 0;
}

static void secs(struct ucg_buf *b, int64_t ns)
{
	ucg_buf_printf(b, "%" PRId64 ".%03" PRId64, ns / SIM_SEC, (ns % SIM_SEC) / SIM_MSEC);
}

static double mib(int64_t pages)
{
	return (double)pages * (double)SIM_PAGE / 1048576.0;
}

static void cg_label(struct sim_cg *cg, char *out, size_t n)
{
	snprintf(out, n, "%s:%s%s", cg->hier->name, sim_cg_path(cg),
		 cg->removed ? " (removed)" : "");
}

int sim_format_summary(struct sim *s, struct ucg_buf *out)
{
	sim_time elapsed = s->now > 0 ? s->now : 1;
	size_t h, i, d;

	ucg_buf_printf(out, "== summary: %s, seed %" PRIu64 ", charging %s, ",
		       s->filename ? s->filename : "scenario", s->cfg.seed,
		       sim_charging_name(s->cfg.charging));
	sim_format_time(s->now, out);
	ucg_buf_printf(out, " virtual, %" PRIu64 " events ==\n", s->nevents);
	ucg_buf_printf(out, "machine: %u cpus (idle ", s->nr_cpus);
	secs(out, s->idle_ns);
	ucg_buf_printf(out, " s), %" PRIu64 " MiB memory, %" PRIu64 " global OOM kills\n",
		       s->mem_pages * SIM_PAGE >> 20, s->global_oom_kills);
	for (h = 0; h < s->nhier; h++) {
		struct sim_hier *hi = s->hier[h];
		unsigned m = hi->ss_mask;
		struct ucg_buf ctl;
		size_t width;

		ucg_buf_init(&ctl);
		ucg_hierarchy_format_controllers(hi->h, &ctl);
		ucg_buf_printf(out, "\nhierarchy %s (%s)\n", hi->name, ctl.data ? ctl.data : "");
		ucg_buf_fini(&ctl);
		width = 6;
		for (i = 0; i < s->ncgs; i++)
			if (s->cgs[i]->hier == hi && strlen(sim_cg_path(s->cgs[i])) > width)
				width = strlen(sim_cg_path(s->cgs[i]));
		ucg_buf_printf(out, "%-*s %10s %7s", (int)width, "cgroup", "cpu_s", "share");
		if (m & (1u << UCG_SS_cpu))
			ucg_buf_printf(out, " %11s %9s", "thr/periods", "thr_s");
		if (m & (1u << UCG_SS_memory))
			ucg_buf_printf(out, " %9s %9s %7s %4s", "mem_MiB", "peak_MiB", "refused",
				       "oom");
		if (m & (1u << UCG_SS_blkio))
			for (d = 0; d < s->ndevs; d++)
				if (!s->devs[d]->is_md)
					ucg_buf_printf(out, " %9s_r %9s_w", s->devs[d]->name,
						       s->devs[d]->name);
		if (m & (1u << UCG_SS_blkio))
			ucg_buf_printf(out, " %10s", "wb_charged");
		if (m & ((1u << UCG_SS_net_cls) | (1u << UCG_SS_net_prio)))
			ucg_buf_printf(out, " %8s %10s %6s", "pkts", "bytes", "drops");
		ucg_buf_putc(out, '\n');
		for (i = 0; i < s->ncgs; i++) {
			struct sim_cg *cg = s->cgs[i];
			double share;

			if (cg->hier != hi)
				continue;
			share = (double)cg->cpu_ns / ((double)elapsed * s->nr_cpus);
			ucg_buf_printf(out, "%-*s ", (int)width, sim_cg_path(cg));
			{
				struct ucg_buf t;

				ucg_buf_init(&t);
				secs(&t, cg->cpu_ns);
				ucg_buf_printf(out, "%10s", t.data ? t.data : "");
				ucg_buf_fini(&t);
			}
			ucg_buf_printf(out, " %6.2f%%", share * 100.0);
			if (m & (1u << UCG_SS_cpu)) {
				char tp[32];
				struct ucg_buf t;

				snprintf(tp, sizeof(tp), "%" PRIu64 "/%" PRIu64, cg->nr_throttled,
					 cg->nr_periods);
				ucg_buf_init(&t);
				secs(&t, cg->throttled_ns + (cg->throttled ? s->now - cg->throttled_since : 0));
				ucg_buf_printf(out, " %11s %9s", tp, t.data ? t.data : "");
				ucg_buf_fini(&t);
			}
			if (m & (1u << UCG_SS_memory))
				ucg_buf_printf(out, " %9.2f %9.2f %7" PRIu64 " %4" PRIu64,
					       mib(cg->mem_pages), mib(cg->mem_peak), cg->mem_refused,
					       cg->oom_kills);
			if (m & (1u << UCG_SS_blkio)) {
				for (d = 0; d < s->ndevs; d++)
					if (!s->devs[d]->is_md)
						ucg_buf_printf(out, " %11" PRIu64 " %11" PRIu64,
							       cg->io_bytes[d][0], cg->io_bytes[d][1]);
				ucg_buf_printf(out, " %10" PRIu64, cg->wb_bytes);
			}
			if (m & ((1u << UCG_SS_net_cls) | (1u << UCG_SS_net_prio)))
				ucg_buf_printf(out, " %8" PRIu64 " %10" PRIu64 " %6" PRIu64, cg->pkts,
					       cg->net_bytes, cg->drops);
			if (cg->removed)
				ucg_buf_puts(out, "  (removed)");
			ucg_buf_putc(out, '\n');
		}
	}
	ucg_buf_printf(out, "\ntasks\n%-16s %7s %6s %10s %7s %9s %s\n", "name", "tid", "uid",
		       "cpu_s", "share", "anon_MiB", "state");
	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];
		struct ucg_buf tb;

		ucg_buf_init(&tb);
		secs(&tb, t->cpu_ns);
		ucg_buf_printf(out, "%-16s %7d %6u %10s %6.2f%% %9.2f %s\n", t->name, t->tid, t->uid,
			       tb.data ? tb.data : "", 100.0 * (double)t->cpu_ns / (double)elapsed,
			       mib((int64_t)t->anon_pages),
			       t->alive ? (t->kthread ? "kthread" : "alive") : "exited");
		ucg_buf_fini(&tb);
	}
	if (s->ndevs) {
		ucg_buf_printf(out, "\ndevices\n%-8s %7s %12s %12s %9s %9s %7s\n", "name", "dev",
			       "read_bytes", "write_bytes", "reads", "writes", "util");
		for (d = 0; d < s->ndevs; d++) {
			struct sim_dev *dv = s->devs[d];

			ucg_buf_printf(out, "%-8s %3u:%-3u %12" PRIu64 " %12" PRIu64 " %9" PRIu64
					    " %9" PRIu64 " %6.2f%%\n",
				       dv->name, dv->major, dv->minor, dv->bytes[0], dv->bytes[1],
				       dv->ios[0], dv->ios[1],
				       100.0 * (double)dv->busy_ns / (double)elapsed);
		}
	}
	sim_net_format(s, out);
	if (s->attr.wb_bytes || s->attr.helper_bytes || s->attr.refund_pages) {
		const struct sim_attribution *a = &s->attr;

		ucg_buf_printf(out, "\ncharging design %s: %zu bytes of ownership record per page\n",
			       sim_charging_name(s->cfg.charging), s->rec_size);
		if (a->wb_bytes)
			ucg_buf_printf(out,
				       "writeback: %" PRIu64 " bytes, %.2f%% charged to the "
				       "originating cgroup, %" PRIu64 " bytes orphaned\n",
				       a->wb_bytes, 100.0 * (double)a->wb_to_origin / (double)a->wb_bytes,
				       a->wb_orphaned);
		if (a->helper_bytes)
			ucg_buf_printf(out,
				       "helper I/O: %" PRIu64 " bytes, %.2f%% charged to the "
				       "originating cgroup; helper CPU %.2f%% to the originator\n",
				       a->helper_bytes,
				       100.0 * (double)a->helper_to_origin / (double)a->helper_bytes,
				       a->helper_cpu_ns ? 100.0 * (double)a->helper_cpu_to_origin /
								   (double)a->helper_cpu_ns
							: 0.0);
		if (a->refund_pages)
			ucg_buf_printf(out,
				       "memory refunds: %" PRIu64 " pages, %" PRIu64 " would go to a "
				       "cgroup other than the one charged\n",
				       a->refund_pages, a->refund_misdirected);
	}
	return ucg_buf_error(out);
}

void sim_get_attribution(const struct sim *s, struct sim_attribution *ret)
{
	*ret = s->attr;
	ret->record_bytes = s->rec_size;
}

/* ---- CSV ---------------------------------------------------------------------------- */

static const char *const csv_names[] = { "cpu.csv", "memory.csv", "io.csv" };

size_t sim_csv_count(const struct sim *s)
{
	(void)s;
	return sizeof(csv_names) / sizeof(csv_names[0]);
}

/* Value of series k for cgroup i at sample j (rates over the preceding interval). */
static double series(struct sim *s, size_t k, size_t i, size_t j, bool *ok)
{
	const struct sim_sample *a = j ? &s->samples[j - 1] : NULL, *b = &s->samples[j];
	double dt = a ? (double)(b->t - a->t) / SIM_SEC : 0;

	*ok = i < b->ncg;
	if (!*ok)
		return 0;
	switch (k) {
	case 0: /* CPUs used */
		if (!a || dt <= 0)
			return 0;
		return (double)(b->cpu[i] - (i < a->ncg ? a->cpu[i] : 0)) / SIM_SEC / dt;
	case 1:
		return mib(b->mem[i]);
	default: /* MiB/s */
		if (!a || dt <= 0)
			return 0;
		return (double)(b->io[i] - (i < a->ncg ? a->io[i] : 0)) / 1048576.0 / dt;
	}
}

int sim_format_csv(struct sim *s, size_t k, const char **ret_name, struct ucg_buf *out)
{
	size_t i, j;

	if (k >= sim_csv_count(s))
		return -EINVAL;
	ucg_buf_puts(out, "time_s");
	for (i = 0; i < s->ncgs; i++) {
		char label[256];

		cg_label(s->cgs[i], label, sizeof(label));
		ucg_buf_printf(out, ",%s", label);
	}
	ucg_buf_putc(out, '\n');
	for (j = 0; j < s->nsamples; j++) {
		ucg_buf_printf(out, "%.3f", (double)s->samples[j].t / SIM_SEC);
		for (i = 0; i < s->ncgs; i++) {
			bool ok;
			double v = series(s, k, i, j, &ok);

			if (ok)
				ucg_buf_printf(out, ",%.4f", v);
			else
				ucg_buf_putc(out, ',');
		}
		ucg_buf_putc(out, '\n');
	}
	*ret_name = csv_names[k];
	return ucg_buf_error(out);
}

/* ---- HTML --------------------------------------------------------------------------- */

static const char *const palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

static void html_escape(struct ucg_buf *out, const char *t)
{
	for (; *t; t++) {
		if (*t == '<')
			ucg_buf_puts(out, "&lt;");
		else if (*t == '>')
			ucg_buf_puts(out, "&gt;");
		else if (*t == '&')
			ucg_buf_puts(out, "&amp;");
		else
			ucg_buf_putc(out, *t);
	}
}

static void chart(struct sim *s, struct ucg_buf *out, size_t k, const char *title,
		  const char *unit)
{
	const double W = 720, H = 260, L = 60, R = 200, T = 20, B = 30;
	double ymax = 0, tmax = s->now > 0 ? (double)s->now / SIM_SEC : 1;
	size_t i, j, shown = 0;

	for (i = 0; i < s->ncgs; i++)
		for (j = 0; j < s->nsamples; j++) {
			bool ok;
			double v = series(s, k, i, j, &ok);

			if (ok && v > ymax)
				ymax = v;
		}
	if (ymax <= 0)
		ymax = 1;
	ucg_buf_printf(out, "<h2>%s</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
			    "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
		       title, W + R, H);
	ucg_buf_printf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
			    "fill=\"none\" stroke=\"#999\"/>\n", L, T, W - L, H - T - B);
	ucg_buf_printf(out, "<text x=\"4\" y=\"%.0f\">%.3g %s</text><text x=\"4\" y=\"%.0f\">0</text>\n",
		       T + 10, ymax, unit, H - B);
	ucg_buf_printf(out, "<text x=\"%.0f\" y=\"%.0f\">%.1f s</text>\n", W - 40, H - 8, tmax);
	for (i = 0; i < s->ncgs && shown < 10; i++) {
		struct sim_cg *cg = s->cgs[i];
		double peak = 0;
		char label[256];

		if (!cg->parent)
			continue;
		for (j = 0; j < s->nsamples; j++) {
			bool ok;
			double v = series(s, k, i, j, &ok);

			if (ok && v > peak)
				peak = v;
		}
		if (peak <= 0)
			continue;
		ucg_buf_printf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			       palette[shown % 10]);
		for (j = 0; j < s->nsamples; j++) {
			bool ok;
			double v = series(s, k, i, j, &ok);
			double x = L + (W - L) * ((double)s->samples[j].t / SIM_SEC) / tmax;
			double y = (H - B) - (H - T - B) * v / ymax;

			if (ok)
				ucg_buf_printf(out, "%.1f,%.1f ", x, y);
		}
		ucg_buf_puts(out, "\"/>\n");
		cg_label(cg, label, sizeof(label));
		ucg_buf_printf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">", W + 8,
			       T + 14.0 * (double)shown + 10, palette[shown % 10]);
		html_escape(out, label);
		ucg_buf_puts(out, "</text>\n");
		shown++;
	}
	ucg_buf_puts(out, "</svg>\n");
}

int sim_format_html(struct sim *s, struct ucg_buf *out)
{
	struct ucg_buf sum;
	int r;

	ucg_buf_puts(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ucg sim: ");
	html_escape(out, s->filename ? s->filename : "scenario");
	ucg_buf_puts(out, "</title><style>body{font-family:sans-serif;margin:2em}"
			  "pre{background:#f6f6f6;padding:1em;overflow-x:auto}</style></head><body>\n");
	ucg_buf_puts(out, "<h1>ucg sim: ");
	html_escape(out, s->filename ? s->filename : "scenario");
	ucg_buf_puts(out, "</h1>\n");
	chart(s, out, 0, "CPU (CPUs used per interval)", "CPUs");
	chart(s, out, 1, "Memory charged", "MiB");
	chart(s, out, 2, "Block I/O", "MiB/s");
	ucg_buf_init(&sum);
	r = sim_format_summary(s, &sum);
	ucg_buf_puts(out, "<h2>Summary</h2>\n<pre>");
	html_escape(out, sum.data ? sum.data : "");
	ucg_buf_puts(out, "</pre>\n<h2>Transcript</h2>\n<pre>");
	html_escape(out, sim_log(s));
	ucg_buf_puts(out, "</pre>\n</body></html>\n");
	ucg_buf_fini(&sum);
	return r ? r : ucg_buf_error(out);
}
