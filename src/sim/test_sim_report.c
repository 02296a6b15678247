/* sim/test_sim_report.c — the outputs: the summary table's rows, the CSV time series
 * (one row per sample, a column per cgroup, rates over each interval) and the HTML
 * report (self-contained: inline SVG, no external references). */
#include "sim/test_sim.h"

static const char *const text =
	"cpus 2\nset sample 500ms\nmount -o none,name=t t\nmkdir t/a\nmkdir t/b\n"
	"spawn x\nspawn y\necho $x > t/a/cgroup.procs\necho $y > t/b/cgroup.procs\n"
	"busy x\nbusy y 0.5\nrun 2s\nexit y\nrmdir t/b\nrun 1s\n";

static void test_summary(void)
{
	struct sim_err err;
	struct ucg_buf b;
	int r;
	struct sim *s = ts_run(text, 3, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	ucg_buf_init(&b);
	T_EQ_INT(sim_format_summary(s, &b), 0);
	T_CHECK(strstr(b.data, "== summary: t.ucg, seed 3, charging kernel, 3s virtual,") != NULL);
	T_CHECK(strstr(b.data, "\n/a          3.000  50.00%\n") != NULL);
	/* y ran 2 s at half a CPU; its cgroup was removed and keeps its statistics */
	T_CHECK(strstr(b.data, "\n/b          1.000  16.67%  (removed)\n") != NULL);
	T_CHECK(strstr(b.data, "hierarchy t (name=t)") != NULL);
	ucg_buf_fini(&b);
	sim_free(s);
}

static void test_csv(void)
{
	struct sim_err err;
	struct ucg_buf b;
	const char *name = NULL;
	int r, rows = 0;
	const char *p;
	struct sim *s = ts_run("cpus 2\nset sample 500ms\nmount -o none,name=t t\nmkdir t/a\n"
			       "spawn x\necho $x > t/a/cgroup.procs\nbusy x 0.5\nrun 2s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_EQ_INT(sim_csv_count(s), 3);
	ucg_buf_init(&b);
	T_EQ_INT(sim_format_csv(s, 0, &name, &b), 0);
	T_EQ_STR(name, "cpu.csv");
	T_CHECK(!strncmp(b.data, "time_s,t:/,t:/a\n", 16));
	for (p = b.data; (p = strchr(p, '\n')); p++)
		rows++;
	T_EQ_INT(rows, 1 + 5); /* header + samples at 0, 0.5, 1, 1.5, 2 s */
	T_CHECK(strstr(b.data, "\n1.000,0.5000,0.5000\n") != NULL);
	T_EQ_INT(sim_format_csv(s, 3, &name, &b), -EINVAL);
	ucg_buf_fini(&b);
	sim_free(s);
}

static void test_html(void)
{
	struct sim_err err;
	struct ucg_buf b;
	int r;
	struct sim *s = ts_run("cpus 1\nmount -o none,name=t t\nmkdir t/a\nspawn x\n"
			       "echo $x > t/a/cgroup.procs\nbusy x\nrun 3s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	ucg_buf_init(&b);
	T_EQ_INT(sim_format_html(s, &b), 0);
	T_CHECK(!strncmp(b.data, "<!DOCTYPE html>", 15));
	T_CHECK(strstr(b.data, "<svg") != NULL);
	T_CHECK(strstr(b.data, "<polyline") != NULL);
	T_CHECK(strstr(b.data, "t:/a") != NULL);
	T_CHECK(strstr(b.data, "src=") == NULL);  /* nothing loaded from elsewhere */
	T_CHECK(strstr(b.data, "href=") == NULL);
	T_CHECK(strstr(b.data, "</html>\n") != NULL);
	ucg_buf_fini(&b);
	sim_free(s);
}

int main(void)
{
	T_RUN(test_summary);
	T_RUN(test_csv);
	T_RUN(test_html);
	return t_done();
}
