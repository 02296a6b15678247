/* sim/test_sim_cpu.c — the CPU model against hand-computed shares: 1024 vs 512 on one
 * CPU is 2/3 and 1/3; quota 50 ms per 100 ms caps a busy task at 0.5 CPU; nested
 * shares; CPU time charged hierarchically; cpuset placement; freezer. */
#include <math.h>

#include "sim/cpu_impl.h"
#include "sim/test_sim.h"

static double share(struct sim *s, const char *h, const char *path, double secs, unsigned cpus)
{
	struct sim_cg *cg = ts_cg(s, h, path);

	return cg ? (double)cg->cpu_ns / (secs * SIM_SEC * cpus) : -1;
}

static void test_equal_no_hierarchy(void)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run("cpus 1\nspawn a\nspawn b\nspawn c\nbusy a\nbusy b\nbusy c 0.1\nrun 10s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);
	struct sim_task *a = sim_task_by_name(s, "a"), *c = sim_task_by_name(s, "c");

	T_EQ_INT(r, 0);
	/* c wants 0.1 and gets it; a and b split the other 0.9 */
	T_NEAR((double)c->cpu_ns / (10.0 * SIM_SEC), 0.1, 1e-6);
	T_NEAR((double)a->cpu_ns / (10.0 * SIM_SEC), 0.45, 1e-6);
	T_EQ_INT(s->idle_ns, 0);
	sim_free(s);
}

static void test_shares_2_to_1(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("cpu", "/cpu.shares"))
		T_SKIP("cpu.shares not served yet (cpu controller not landed)");
	s = ts_run("cpus 1\nmount -o cpu,cpuacct cpu\nmkdir cpu/a\nmkdir cpu/b\n"
		   "echo 1024 > cpu/a/cpu.shares\necho 512 > cpu/b/cpu.shares\n"
		   "spawn x\nspawn y\necho $x > cpu/a/cgroup.procs\necho $y > cpu/b/cgroup.procs\n"
		   "busy x\nbusy y\nrun 30s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR(share(s, "cpu", "/a", 30, 1), 2.0 / 3, 1e-3);
	T_NEAR(share(s, "cpu", "/b", 30, 1), 1.0 / 3, 1e-3);
	T_NEAR(share(s, "cpu", "/", 30, 1), 1.0, 1e-6);
	sim_free(s);
}

static void test_nested_shares(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("cpu", "/cpu.shares"))
		T_SKIP("cpu.shares not served yet (cpu controller not landed)");
	/* 2 CPUs; u1 (1024) has 3 busy tasks in two sessions (2048 vs 1024), u2 (1024)
	 * has 1 busy task: u2's task can use only 1 CPU, so u1 gets 1 CPU too, split
	 * 2:1 between its sessions; s1's two tasks split 2/3 equally. */
	s = ts_run("cpus 2\nmount -o cpu cpu\nmkdir cpu/u1\nmkdir cpu/u2\nmkdir cpu/u1/s1\n"
		   "mkdir cpu/u1/s2\necho 2048 > cpu/u1/s1/cpu.shares\n"
		   "spawn a\nspawn b\nspawn c\nspawn d\n"
		   "echo $a > cpu/u1/s1/cgroup.procs\necho $b > cpu/u1/s1/cgroup.procs\n"
		   "echo $c > cpu/u1/s2/cgroup.procs\necho $d > cpu/u2/cgroup.procs\n"
		   "busy a\nbusy b\nbusy c\nbusy d\nrun 12s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR(share(s, "cpu", "/u1", 12, 2), 0.5, 1e-3);
	T_NEAR(share(s, "cpu", "/u2", 12, 2), 0.5, 1e-3);
	T_NEAR(share(s, "cpu", "/u1/s1", 12, 2), 1.0 / 3, 1e-3);
	T_NEAR(share(s, "cpu", "/u1/s2", 12, 2), 1.0 / 6, 1e-3);
	T_NEAR((double)sim_task_by_name(s, "a")->cpu_ns / (12.0 * SIM_SEC), 1.0 / 3, 1e-3);
	sim_free(s);
}

static void test_quota_half(void)
{
	struct sim_err err;
	int r;
	struct sim *s;
	struct sim_cg *cg;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us"))
		T_SKIP("cpu.cfs_quota_us not served yet (cpu controller not landed)");
	s = ts_run("cpus 2\nmount -o cpu cpu\nmkdir cpu/q\necho 50000 > cpu/q/cpu.cfs_quota_us\n"
		   "spawn x\necho $x > cpu/q/cgroup.procs\nbusy x\nrun 10s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	cg = ts_cg(s, "cpu", "/q");
	T_NEAR((double)cg->cpu_ns / (10.0 * SIM_SEC), 0.5, 1e-3);
	T_CHECK(cg->nr_periods >= 99 && cg->nr_periods <= 101);
	T_CHECK(cg->nr_throttled >= 99);
	T_NEAR((double)cg->throttled_ns / SIM_SEC, 5.0, 0.06);
	sim_free(s);
}

static void test_quota_hierarchical(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us"))
		T_SKIP("cpu.cfs_quota_us not served yet (cpu controller not landed)");
	/* the parent's 1 CPU quota binds two busy children with no quota of their own.
	 * With 4 CPUs nothing contends: the three tasks run side by side until the
	 * parent's 100 ms are used, so a (one task) gets 1/3 of them, not half: shares
	 * matter only under contention, the quota only in total. */
	s = ts_run("cpus 4\nmount -o cpu cpu\nmkdir cpu/p\nmkdir cpu/p/a\nmkdir cpu/p/b\n"
		   "echo 100000 > cpu/p/cpu.cfs_quota_us\n"
		   "spawn x\nspawn y\nspawn z\necho $x > cpu/p/a/cgroup.procs\n"
		   "echo $y > cpu/p/b/cgroup.procs\necho $z > cpu/p/b/cgroup.procs\n"
		   "busy x\nbusy y\nbusy z\nrun 10s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR((double)ts_cg(s, "cpu", "/p")->cpu_ns / (10.0 * SIM_SEC), 1.0, 1e-3);
	T_NEAR((double)ts_cg(s, "cpu", "/p/a")->cpu_ns / (10.0 * SIM_SEC), 1.0 / 3, 1e-3);
	sim_free(s);
}

static void test_accounting_all_hierarchies(void)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run("cpus 1\nmount -o none,name=sd sd\nmkdir sd/u\nmkdir sd/u/s\n"
			       "spawn x\necho $x > sd/u/s/cgroup.procs\nbusy x 0.25\nrun 4s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_EQ_INT(ts_cg(s, "sd", "/u/s")->cpu_ns, SIM_SEC);
	T_EQ_INT(ts_cg(s, "sd", "/u")->cpu_ns, SIM_SEC);
	T_EQ_INT(ts_cg(s, "sd", "/")->cpu_ns, SIM_SEC);
	T_EQ_INT(s->idle_ns, 3 * SIM_SEC);
	sim_free(s);
}

static void test_cpuset(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("cpuset", "/cpuset.effective_cpus"))
		T_SKIP("cpuset.effective_cpus not served yet");
	/* 4 CPUs; three busy tasks confined to cpus 0-1, one free task: the three share
	 * 2 CPUs, the free one gets a whole CPU, one CPU idles. */
	s = ts_run("cpus 4\nmount -o cpuset cs\nmkdir cs/a\necho 0 > cs/a/cpuset.mems\n"
		   "echo 0-1 > cs/a/cpuset.cpus\nspawn x\nspawn y\nspawn z\nspawn w\n"
		   "echo $x > cs/a/cgroup.procs\necho $y > cs/a/cgroup.procs\n"
		   "echo $z > cs/a/cgroup.procs\nbusy x\nbusy y\nbusy z\nbusy w\nrun 3s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	if (r == 0) {
		T_NEAR((double)ts_cg(s, "cs", "/a")->cpu_ns / (3.0 * SIM_SEC), 2.0, 1e-3);
		T_NEAR((double)sim_task_by_name(s, "w")->cpu_ns / (3.0 * SIM_SEC), 1.0, 1e-3);
	}
	sim_free(s);
}

static void test_freezer(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("freezer", "/freezer.state"))
		T_SKIP("freezer.state not served yet");
	s = ts_run("cpus 1\nmount -o freezer fz\nmkdir fz/f\nspawn x\nspawn y\n"
		   "echo $x > fz/f/cgroup.procs\nbusy x\nbusy y\nrun 2s\n"
		   "echo FROZEN > fz/f/freezer.state\nrun 2s\necho THAWED > fz/f/freezer.state\n"
		   "run 2s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	/* x runs half the time for 4 s of the 6, y the rest */
	T_NEAR((double)sim_task_by_name(s, "x")->cpu_ns / SIM_SEC, 2.0, 1e-3);
	T_NEAR((double)sim_task_by_name(s, "y")->cpu_ns / SIM_SEC, 4.0, 1e-3);
	sim_free(s);
}

static void test_controller_fed(void)
{
	struct sim_err err;
	struct ucg_buf b;
	int r;
	struct sim *s;

	if (!ts_has_file("cpuacct", "/cpuacct.usage") || !ts_has_file("cpu", "/cpu.stat"))
		T_SKIP("cpuacct.usage / cpu.stat not served");
	s = ts_run("cpus 1\nmount -o cpu,cpuacct cpu\nmkdir cpu/q\necho 25000 > cpu/q/cpu.cfs_quota_us\n"
		   "spawn x\necho $x > cpu/q/cgroup.procs\nbusy x\nrun 2s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	ucg_buf_init(&b);
	T_EQ_INT(ucg_fs_read_all(s->e, sim_hier_by_name(s, "cpu")->h, "/q/cpuacct.usage",
				 &s->root_cred, &b), 0);
	/* the controller holds what the model charged: 2 s at 0.25 CPU */
	T_EQ_INT(strtoll(b.data, NULL, 10), ts_cg(s, "cpu", "/q")->cpu_ns);
	T_EQ_INT(strtoll(b.data, NULL, 10), SIM_SEC / 2);
	ucg_buf_reset(&b);
	T_EQ_INT(ucg_fs_read_all(s->e, sim_hier_by_name(s, "cpu")->h, "/q/cpu.stat",
				 &s->root_cred, &b), 0);
	T_CHECK(strstr(b.data, "nr_throttled 20\n") != NULL);
	T_CHECK(strstr(b.data, "throttled_time 1500000000\n") != NULL);
	ucg_buf_fini(&b);
	sim_free(s);
}

/* Reads file of hierarchy h into a static buffer ("" when it cannot). */
static const char *read_file(struct sim *s, const char *h, const char *path)
{
	static char text[512];
	struct ucg_buf b;

	text[0] = '\0';
	ucg_buf_init(&b);
	if (ucg_fs_read_all(s->e, sim_hier_by_name(s, h)->h, path, &s->root_cred, &b) == 0 &&
	    b.data)
		snprintf(text, sizeof(text), "%s", b.data);
	ucg_buf_fini(&b);
	return text;
}

static long long stat_field(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? strtoll(p + strlen(name) + 1, NULL, 10) : -1;
}

/* Commands that read no CPU time leave the tasks' time pending (sim_cpu_accrue):
 * passed on and charged at the next command that reads or moves, an exit or the
 * end, it must come out as when every command charged it, per CPU and cgroup. The
 * same scenario with a cat after each such command at its instant is the
 * reference: the cat flushes there, and adds no accrual of its own. */
static void test_light_commands_charge_the_same(void)
{
	static const char *const head =
		"cpus 2\nmemory 1G\nmount -o cpu,cpuacct cpu\nmount -o memory mem\n"
		"device sda 8:0 bps=100M\nfile logs dev=sda\n"
		"mkdir cpu/a\nmkdir cpu/b\nmkdir mem/m\n"
		"spawn x\necho $x > cpu/a/cgroup.procs\necho $x > mem/m/cgroup.procs\n"
		"spawn y\necho $y > cpu/a/cgroup.procs\nspawn z\necho $z > cpu/b/cgroup.procs\n"
		"busy x 0.7\nbusy y\nbusy z 0.4\n";
	/* the light commands, then what follows each in the reference */
	static const char *const light[] = {
		"at 1s alloc x 10M\n",         "at 1300ms note one\n",
		"at 1700ms busy z 0.9\n",      "at 2s free x 10M\n",
		"at 2100ms write x logs 8M\n", "at 2500ms idle x\n",
		"at 2900ms busy x 0.3\n",      "at 1500ms echo 512 > cpu/a/cpu.shares\n",
	};
	static const char *const tail = "at 2200ms echo $y > cpu/b/cgroup.procs\n"
					"at 2700ms taskset y 1\nat 3100ms exit z\nrun 4s\n";
	static const char *const files[] = { "/cpuacct.usage_percpu", "/a/cpuacct.usage_percpu",
					     "/b/cpuacct.usage_percpu", "/cpuacct.usage" };
	char text[2][2048], got[2][4][512];
	long long ns[2][3];
	struct sim_err err;
	size_t v, i;
	int r;

	if (!ts_has_file("cpuacct", "/cpuacct.usage_percpu"))
		T_SKIP("cpuacct.usage_percpu not served");
	for (v = 0; v < 2; v++) {
		struct sim *s;
		size_t n = (size_t)snprintf(text[v], sizeof(text[v]), "%s", head);

		for (i = 0; i < sizeof(light) / sizeof(light[0]); i++) {
			n += (size_t)snprintf(text[v] + n, sizeof(text[v]) - n, "%s", light[i]);
			if (v) /* the same instant: "at Ts " */
				n += (size_t)snprintf(
					text[v] + n, sizeof(text[v]) - n,
					"%.*scat cpu/a/cpuacct.usage\n",
					(int)(strchr(light[i] + 3, ' ') - light[i] + 1), light[i]);
		}
		snprintf(text[v] + n, sizeof(text[v]) - n, "%s", tail);
		s = ts_run(text[v], 0, SIM_CHARGING_KERNEL, &r, &err);
		T_EQ_INT(r, 0);
		if (!s)
			return;
		for (i = 0; i < 4; i++)
			snprintf(got[v][i], sizeof(got[v][i]), "%s", read_file(s, "cpu", files[i]));
		ns[v][0] = ts_cg(s, "cpu", "/")->cpu_ns;
		ns[v][1] = ts_cg(s, "cpu", "/a")->cpu_ns;
		ns[v][2] = ts_cg(s, "cpu", "/b")->cpu_ns;
		sim_free(s);
	}
	for (i = 0; i < 4; i++)
		T_EQ_STR(got[0][i], got[1][i]);
	for (i = 0; i < 3; i++)
		T_EQ_INT(ns[0][i], ns[1][i]);
	/* and it was charged: both CPUs ran, and /a's tasks ran on */
	T_CHECK(strtoll(got[0][3], NULL, 10) > 3 * SIM_SEC);
	T_EQ_INT(strtoll(got[0][1], NULL, 10) > 0, 1);
}

static void test_cpulist_parse(void)
{
	uint64_t m = 0;

	T_EQ_INT(sim_cpulist_parse("0-1,3", &m), 0);
	T_EQ_INT(m, 0xb);
	T_EQ_INT(sim_cpulist_parse("63", &m), 0);
	T_CHECK(m == 1ull << 63);
	T_EQ_INT(sim_cpulist_parse("64", &m), -EINVAL);
	T_EQ_INT(sim_cpulist_parse("2-1", &m), -EINVAL);
	T_EQ_INT(sim_cpulist_parse("1,", &m), -EINVAL);
	T_EQ_INT(sim_cpulist_parse("x", &m), -EINVAL);
	T_EQ_INT(sim_cpulist_parse("", &m), -EINVAL);
}

/* 2 CPUs; a has two busy tasks pinned to CPU 0 and CPU 1, b one free task (placed on
 * CPU 0, the lower of two equally loaded CPUs). a's shares split over its two CPUs,
 * 512 each: on CPU 0 a (512) meets b (1024) and gets 1/3, on CPU 1 a runs alone.
 * a = 4/3 CPU, b = 2/3: the per-CPU result the kernel gives, where a global fair
 * share would say 1 and 1. */
static const char *const pinned_text =
	"cpus 2\nmount -o cpu cpu\nmkdir cpu/p\nmkdir cpu/p/a\nmkdir cpu/p/b\n%s"
	"spawn x\nspawn y\nspawn z\necho $x > cpu/p/a/cgroup.procs\n"
	"echo $y > cpu/p/a/cgroup.procs\necho $z > cpu/p/b/cgroup.procs\n"
	"%sbusy x\nbusy y\nbusy z\nrun 10s\n";

static void test_percpu_pinned(void)
{
	char text[1024];
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("cpu", "/cpu.shares"))
		T_SKIP("cpu.shares not served yet");
	snprintf(text, sizeof(text), pinned_text, "", "taskset x 0\ntaskset y 1\n");
	s = ts_run(text, 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR((double)ts_cg(s, "cpu", "/p/a")->cpu_ns / (10.0 * SIM_SEC), 4.0 / 3, 1e-3);
	T_NEAR((double)ts_cg(s, "cpu", "/p/b")->cpu_ns / (10.0 * SIM_SEC), 2.0 / 3, 1e-3);
	T_NEAR((double)sim_task_by_name(s, "y")->cpu_ns / (10.0 * SIM_SEC), 1.0, 1e-3);
	T_EQ_INT(sim_task_by_name(s, "z")->cpu, 0);
	sim_free(s);
}

/* The same tasks free to move: the balancer evens the CPUs' root loads (h_load) by
 * moving x next to y, after which a and b each have a CPU: 1 and 1. */
static void test_percpu_balanced(void)
{
	char text[1024];
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("cpu", "/cpu.shares"))
		T_SKIP("cpu.shares not served yet");
	snprintf(text, sizeof(text), pinned_text, "", "");
	s = ts_run(text, 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR((double)ts_cg(s, "cpu", "/p/a")->cpu_ns / (10.0 * SIM_SEC), 1.0, 1e-3);
	T_NEAR((double)ts_cg(s, "cpu", "/p/b")->cpu_ns / (10.0 * SIM_SEC), 1.0, 1e-3);
	T_CHECK(sim_task_by_name(s, "x")->cpu == sim_task_by_name(s, "y")->cpu);
	T_CHECK(sim_task_by_name(s, "z")->cpu != sim_task_by_name(s, "x")->cpu);
	sim_free(s);
}

/* bench/sim_vs_kernel_cpu.sh's nested case: p's quota of 1 CPU over the pinned tasks
 * above. p runs both CPUs for 50 ms of each 100 ms period (2 CPUs drain 100 ms in
 * 50) with the per-CPU split inside: a gets 2/3 of p (the kernel measured 0.674). */
static void test_nested_quota_pinned(void)
{
	char text[1024];
	struct sim_err err;
	int r;
	struct sim *s;
	double a, b;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us"))
		T_SKIP("cpu.cfs_quota_us not served yet");
	snprintf(text, sizeof(text), pinned_text, "echo 100000 > cpu/p/cpu.cfs_quota_us\n",
		 "taskset x 0\ntaskset y 1\n");
	s = ts_run(text, 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	a = (double)ts_cg(s, "cpu", "/p/a")->cpu_ns;
	b = (double)ts_cg(s, "cpu", "/p/b")->cpu_ns;
	T_NEAR((a + b) / (10.0 * SIM_SEC), 1.0, 1e-3);
	T_NEAR(a / (a + b), 2.0 / 3, 1e-3);
	/* throttled 50 ms of each period on both CPUs: 100 ms of runqueue time each */
	T_NEAR((double)ts_cg(s, "cpu", "/p")->throttled_ns / SIM_SEC, 10.0, 0.11);
	sim_free(s);
}

/* A parent's quota throttles its only busy child (verified on 6.18: the parent's
 * cpu.stat counts the periods and throttling, the child's stays at 0, and both
 * cpu.stat.local files show the throttled time). 1 busy task, quota 50 ms: 20
 * periods in 2 s, each throttled 50 ms on one CPU. With two tasks on two CPUs the
 * parent runs 25 ms and sits throttled 75 ms on each CPU: 150 ms per period. */
static void test_parent_cpu_stat(void)
{
	struct sim_err err;
	const char *t;
	int r, ntask;

	if (!ts_has_file("cpu", "/cpu.stat.local"))
		T_SKIP("cpu.stat.local not served");
	for (ntask = 1; ntask <= 2; ntask++) {
		char text[1024];
		struct sim *s;

		snprintf(text, sizeof(text),
			 "cpus 2\nmount -o cpu cpu\nmkdir cpu/p\nmkdir cpu/p/c\n"
			 "echo 50000 > cpu/p/cpu.cfs_quota_us\nspawn x\nspawn y\n"
			 "echo $x > cpu/p/c/cgroup.procs\necho $y > cpu/p/c/cgroup.procs\n"
			 "busy x\n%srun 2s\n", ntask == 2 ? "busy y\n" : "");
		s = ts_run(text, 0, SIM_CHARGING_KERNEL, &r, &err);
		T_EQ_INT(r, 0);
		t = read_file(s, "cpu", "/p/cpu.stat");
		T_EQ_INT(stat_field(t, "nr_periods"), 20);
		T_EQ_INT(stat_field(t, "nr_throttled"), 20);
		/* the summary table's periods are cpu.stat's: the quota's first period
		 * is counted once, when it ends, not also when the quota appears */
		T_EQ_INT(ts_cg(s, "cpu", "/p")->nr_periods, 20);
		T_EQ_INT(ts_cg(s, "cpu", "/p")->nr_throttled, 20);
		T_EQ_INT(stat_field(t, "throttled_time"), ntask == 1 ? 1000000000 : 3000000000LL);
		T_EQ_INT(stat_field(read_file(s, "cpu", "/p/cpu.stat.local"), "throttled_time"),
			 ntask == 1 ? 1000000000 : 3000000000LL);
		t = read_file(s, "cpu", "/p/c/cpu.stat");
		T_EQ_INT(stat_field(t, "nr_periods"), 0);
		T_EQ_INT(stat_field(t, "throttled_time"), 0);
		T_EQ_INT(stat_field(read_file(s, "cpu", "/p/c/cpu.stat.local"), "throttled_time"),
			 ntask == 1 ? 1000000000 : 3000000000LL);
		sim_free(s);
	}
}

/* An idle period is no period: a quota'd group that never runs counts none. */
static void test_idle_periods_not_counted(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("cpu", "/cpu.stat"))
		T_SKIP("cpu.stat not served");
	s = ts_run("cpus 1\nmount -o cpu cpu\nmkdir cpu/q\necho 50000 > cpu/q/cpu.cfs_quota_us\n"
		   "spawn x\necho $x > cpu/q/cgroup.procs\nbusy x 0.25\nrun 1s\nidle x\nrun 1s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	/* 10 periods while x wanted 0.25 CPU (under quota: never throttled), none after */
	T_EQ_INT(stat_field(read_file(s, "cpu", "/q/cpu.stat"), "nr_periods"), 10);
	T_EQ_INT(stat_field(read_file(s, "cpu", "/q/cpu.stat"), "nr_throttled"), 0);
	T_EQ_INT(ts_cg(s, "cpu", "/q")->nr_periods, 10); /* the summary's figure agrees */
	sim_free(s);
}

/* A recompute after CPU timers alone reuses the last runnable set, also with I/O
 * events between them (the writer's requests); with any change the gather reads
 * (busy, taskset, freezing, moves, spawns, config) it must not. The same run with
 * the shortcut off gives the same numbers to the ns. */
static const char shortcut_text[] =
	"cpus 4\nmount -o cpu,cpuacct cpu\nmount -o freezer fz\nmount -o cpuset cs\n"
	"memory 1G\ndevice sda 8:0 bps=20M\nfile logs dev=sda\n"
	"at 50ms write t6 logs 6M\nat 420ms write t3 logs 3M\n"
	"mkdir cpu/p\nmkdir cpu/p/a\nmkdir cpu/p/b\nmkdir cpu/q\nmkdir fz/f\nmkdir cs/c\n"
	"echo 0 > cs/c/cpuset.mems\necho 2-3 > cs/c/cpuset.cpus\n"
	"echo 5000 > cpu/p/cpu.cfs_period_us\necho 3000 > cpu/p/cpu.cfs_quota_us\n"
	"echo 7000 > cpu/p/a/cpu.cfs_period_us\necho 1500 > cpu/p/a/cpu.cfs_quota_us\n"
	"echo 3000 > cpu/q/cpu.cfs_period_us\necho 1700 > cpu/q/cpu.cfs_quota_us\n"
	"echo 2048 > cpu/p/b/cpu.shares\n"
	"spawn t1\nspawn t2\nspawn t3\nspawn t4\nspawn t5\nspawn t6\n"
	"echo $t1 > cpu/p/a/cgroup.procs\necho $t2 > cpu/p/a/cgroup.procs\n"
	"echo $t3 > cpu/p/b/cgroup.procs\necho $t4 > cpu/q/cgroup.procs\n"
	"echo $t5 > cpu/q/cgroup.procs\necho $t2 > fz/f/cgroup.procs\n"
	"echo $t4 > cs/c/cgroup.procs\ntaskset t3 1\n"
	"busy t1\nbusy t2 0.7\nbusy t3\nbusy t4 0.9\nbusy t5\nbusy t6 0.4\n"
	"at 101ms echo FROZEN > fz/f/freezer.state\nat 203ms busy t1 0.3\n"
	"at 257ms taskset t3 0-3\nat 311ms echo THAWED > fz/f/freezer.state\n"
	"at 353ms echo $t5 > cpu/p/b/cgroup.procs\nat 409ms echo 0-1 > cs/c/cpuset.cpus\n"
	"at 461ms spawn t7\nat 461ms busy t7\nat 503ms echo 1100 > cpu/p/a/cpu.cfs_quota_us\n"
	"at 557ms busy t6 0\nat 601ms echo -1 > cpu/q/cpu.cfs_quota_us\n"
	"run 800ms\n";

static void test_shortcut_same_as_full(void)
{
	static const char *const paths[] = { "/", "/p", "/p/a", "/p/b", "/q" };
	struct sim *s[2];
	uint64_t taken[2];
	struct sim_err err;
	int r[2], k;
	size_t i;

	if (!ts_has_file("cpu", "/cpu.cfs_quota_us") || !ts_has_file("freezer", "/freezer.state") ||
	    !ts_has_file("cpuset", "/cpuset.effective_cpus"))
		T_SKIP("cpu, freezer or cpuset files not served yet");
	for (k = 0; k < 2; k++) {
		s[k] = NULL;
		r[k] = sim_new(NULL, &s[k]);
		if (r[k] == 0) {
			s[k]->cpu_full = k == 1;
			r[k] = sim_load(s[k], "t.ucg", shortcut_text, strlen(shortcut_text), &err);
		}
		if (r[k] == 0)
			r[k] = sim_run(s[k], &err);
		taken[k] = s[k] ? s[k]->cpu_shortcuts : 0;
	}
	T_EQ_INT(r[0], 0);
	T_EQ_INT(r[1], 0);
	T_CHECK(taken[0] > 100); /* the timers alone took it, often */
	T_EQ_INT(taken[1], 0);
	if (r[0] == 0 && r[1] == 0) {
		T_EQ_INT(s[0]->ntasks, s[1]->ntasks);
		for (i = 0; i < s[0]->ntasks && i < s[1]->ntasks; i++)
			T_EQ_INT(s[0]->tasks[i]->cpu_ns, s[1]->tasks[i]->cpu_ns);
		T_EQ_INT(s[0]->idle_ns, s[1]->idle_ns);
		for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			struct sim_cg *a = ts_cg(s[0], "cpu", paths[i]), *b = ts_cg(s[1], "cpu", paths[i]);

			T_CHECK(a && b);
			if (!a || !b)
				continue;
			T_EQ_INT(a->cpu_ns, b->cpu_ns);
			T_EQ_INT(a->throttled_ns, b->throttled_ns);
			T_EQ_INT(a->nr_throttled, b->nr_throttled);
			T_EQ_INT(a->nr_periods, b->nr_periods);
			T_EQ_INT(a->local_throttled_ns, b->local_throttled_ns);
		}
		/* the quotas did bite (the shortcut is for throttling) */
		T_CHECK(ts_cg(s[0], "cpu", "/p/a")->nr_throttled > 10);
		T_CHECK(ts_cg(s[0], "cpu", "/q")->nr_throttled > 10);
	}
	sim_free(s[0]);
	sim_free(s[1]);
}

/* cpu_below_fair answers d < (W > 0 ? cap·w/W : 0) bit for bit: random weights,
 * capacities and demands, the demand put on the rounded quotient and a few ulps
 * around it (where the products cannot tell), at its boundaries (W 0, cap 0 or
 * below, tiny values) */
static uint64_t bf_rng = 88172645463325252ull;

static double bf_unit(void)
{
	bf_rng ^= bf_rng << 13;
	bf_rng ^= bf_rng >> 7;
	bf_rng ^= bf_rng << 17;
	return (double)(bf_rng >> 11) * 0x1p-53;
}

static void test_below_fair_is_the_quotient(void)
{
	static const double edge[] = { 0, -0.0, 1e-310, 1e-300, 0x1p-900, 1e-12, 0.5, 1, 2, 1e300 };
	size_t i, j, k, bad = 0, n = 0;

	for (i = 0; i < 200000; i++) {
		double cap = bf_unit() * (i % 7 ? 1 : 64), w = 2 + bf_unit() * 262142;
		double W = w + bf_unit() * (i % 3 ? 1e4 : 1e6), q = W > 0 ? cap * w / W : 0;
		double d[7] = { q,
				nextafter(q, 0),
				nextafter(q, 2),
				bf_unit(),
				q * (1 + 1e-13),
				q * (1 - 1e-13),
				q * (1 + 0x1p-40) };

		for (j = 0; j < 7; j++, n++)
			if (cpu_below_fair(d[j], cap, w, W) != (d[j] < q))
				bad++;
	}
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		for (j = 0; j < sizeof(edge) / sizeof(edge[0]); j++)
			for (k = 0; k < sizeof(edge) / sizeof(edge[0]); k++) {
				double d = edge[i], cap = edge[j] - 0.25 * (k & 1), W = edge[k];
				double q = W > 0 ? cap * 3.0 / W : 0;

				n++;
				if (cpu_below_fair(d, cap, 3.0, W) != (d < q))
					bad++;
			}
	T_EQ_INT(bad, 0);
	T_CHECK(n > 1000000);
}

int main(void)
{
	T_RUN(test_equal_no_hierarchy);
	T_RUN(test_shares_2_to_1);
	T_RUN(test_nested_shares);
	T_RUN(test_quota_half);
	T_RUN(test_quota_hierarchical);
	T_RUN(test_accounting_all_hierarchies);
	T_RUN(test_cpuset);
	T_RUN(test_freezer);
	T_RUN(test_controller_fed);
	T_RUN(test_light_commands_charge_the_same);
	T_RUN(test_cpulist_parse);
	T_RUN(test_percpu_pinned);
	T_RUN(test_percpu_balanced);
	T_RUN(test_nested_quota_pinned);
	T_RUN(test_parent_cpu_stat);
	T_RUN(test_idle_periods_not_counted);
	T_RUN(test_shortcut_same_as_full);
	T_RUN(test_below_fair_is_the_quotient);
	return t_done();
}
