/* controllers/test_cpu.c — cpu: shares clamping and idle, CFS quota/period/burst with
 * the v1 hierarchy rule, RT bandwidth, cpu.stat (docs/kernel/controllers.md §2). */
#include "controllers/charge.h"
#include "engine/test_fixture.h"

static void test_defaults_root(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;

	T_EQ_STR(fx_read(e, h, "/cpu.shares"), "1024\n");
	T_EQ_STR(fx_read(e, h, "/cpu.cfs_quota_us"), "-1\n");
	T_EQ_STR(fx_read(e, h, "/cpu.cfs_period_us"), "100000\n");
	T_EQ_STR(fx_read(e, h, "/cpu.cfs_burst_us"), "0\n");
	T_EQ_STR(fx_read(e, h, "/cpu.idle"), "0\n");
	T_EQ_STR(fx_read(e, h, "/cpu.rt_runtime_us"), "950000\n");
	T_EQ_STR(fx_read(e, h, "/cpu.rt_period_us"), "1000000\n");
	T_EQ_STR(fx_read(e, h, "/cpu.stat"),
		 "nr_periods 0\nnr_throttled 0\nthrottled_time 0\nnr_bursts 0\nburst_time 0\n");
	T_EQ_STR(fx_read(e, h, "/cpu.stat.local"), "throttled_time 0\n");
	/* The root's CFS knobs refuse every write; parse errors come first. */
	T_EQ_INT(fx_write(e, h, "/cpu.shares", "1024"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpu.shares", "18446744073709551616"), -ERANGE);
	T_EQ_INT(fx_write(e, h, "/cpu.cfs_quota_us", "-1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpu.cfs_period_us", "100000"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpu.cfs_burst_us", "0"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpu.idle", "0"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpu.stat", "0"), -EINVAL);
	/* Root RT: writable, but not 0. */
	T_EQ_INT(fx_write(e, h, "/cpu.rt_runtime_us", "0"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpu.rt_runtime_us", "900000"), 0);
	T_EQ_INT(fx_write(e, h, "/cpu.rt_runtime_us", "950001"), -EINVAL);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpu.rt_runtime_us"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpu.shares"), "1024\n");
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cpu.stat", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0444);
	ucg_engine_free(e);
}

static void test_shares_idle(void)
{
	static const struct {
		const char *in;
		int err;
		const char *reads;
	} cases[] = {
		{ "0", 0, "2\n" },	   { "1", 0, "2\n" },	      { "2", 0, "2\n" },
		{ "3", 0, "3\n" },	   { "262144", 0, "262144\n" }, { "262145", 0, "262144\n" },
		{ "18446744073709551615", 0, "262144\n" },	      { "010", 0, "8\n" },
		{ "0x10", 0, "16\n" },	   { " 5", -EINVAL, "16\n" }, { "5 ", -EINVAL, "16\n" },
		{ "-1", -EINVAL, "16\n" }, { "18446744073709551616", -ERANGE, "16\n" },
	};
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu");
	size_t i;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		T_EQ_INT(fx_write(e, h, "/a/cpu.shares", cases[i].in), cases[i].err);
		T_EQ_STR(fx_read(e, h, "/a/cpu.shares"), cases[i].reads);
	}
	/* idle: exactly 0 or 1; an idle group weighs 3 and refuses shares; leaving idle
	 * restores 1024 (verified on 6.18). */
	T_EQ_INT(fx_write(e, h, "/a/cpu.shares", "5000"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.idle", "2"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.idle", "-1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.idle", " 1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.idle", "0"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpu.shares"), "5000\n");
	T_EQ_INT(fx_write(e, h, "/a/cpu.idle", "1"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpu.shares"), "3\n");
	T_EQ_INT(fx_write(e, h, "/a/cpu.shares", "100"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.idle", "0"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpu.shares"), "1024\n");
	ucg_engine_free(e);
}

static void test_cfs_values(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu");

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	/* quota */
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "999"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "0"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "0x3e8"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpu.cfs_quota_us"), "1000\n");
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "17592186044415"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "17592186044416"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "-2"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpu.cfs_quota_us"), "-1\n");
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "-100"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "2000 "), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "9223372036854775808"), -ERANGE);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "9223372036854775807"), -EINVAL);
	/* period */
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_period_us", "999"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_period_us", "1000001"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_period_us", "-1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_period_us", "0x3e8"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpu.cfs_period_us"), "1000\n");
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_period_us", "1000000"), 0);
	/* burst: with quota -1 up to U64_MAX / 1000. */
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "17592186044416"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "18446744073709551"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "18446744073709552"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "18446744073709551615"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "-1"), -EINVAL);
	/* With a quota set the burst is refused over it. */
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "2000"), -EINVAL); /* burst too big */
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "2000"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "2001"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_burst_us", "2000"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "1999"), -EINVAL);
	T_EQ_STR(fx_read(e, h, "/a/cpu.cfs_quota_us"), "2000\n");
	T_EQ_INT(fx_write(e, h, "/a/cpu.cfs_quota_us", "17592186044415"), -EINVAL); /* sum */
	ucg_engine_free(e);
}

static void test_cfs_hierarchy(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu");

	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c/g"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpu.cfs_quota_us", "50000"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpu.cfs_quota_us", "50000"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpu.cfs_quota_us", "50001"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/c/cpu.cfs_quota_us", "100000"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/c/cpu.cfs_quota_us", "25000"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpu.cfs_period_us", "50000"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpu.cfs_period_us", "49999"), -EINVAL);
	/* The grandchild with quota -1 inherits c's ratio for its own children... */
	T_EQ_INT(fx_write(e, h, "/p/c/g/cpu.cfs_quota_us", "50001"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/c/g/cpu.cfs_quota_us", "25000"), 0);
	/* The parent cannot drop below a child's ratio; -1 is always fine. */
	T_EQ_INT(fx_write(e, h, "/p/cpu.cfs_quota_us", "10000"), -EINVAL);
	T_EQ_STR(fx_read(e, h, "/p/cpu.cfs_quota_us"), "50000\n");
	T_EQ_INT(fx_write(e, h, "/p/cpu.cfs_period_us", "200000"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/cpu.cfs_quota_us", "-1"), 0);
	/* A quota -1 in the middle passes the grandparent's ratio down. */
	T_EQ_INT(fx_write(e, h, "/p/c/g/cpu.cfs_quota_us", "-1"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpu.cfs_quota_us", "-1"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpu.cfs_quota_us", "10000"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/g/cpu.cfs_quota_us", "10001"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/c/g/cpu.cfs_quota_us", "10000"), 0);
	{
		struct ucg_cpu_bandwidth bw;

		fx_proc(e, 10, 0);
		T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "10"), 0);
		T_EQ_INT(ucg_cpu_bandwidth_get(fx_task_cg(e, 10, UCG_SS_cpu), &bw), 0);
		T_EQ_INT(bw.quota_us, -1);
		T_EQ_INT((long long)bw.ratio, (long long)((10000000ull << 20) / 100000000ull));
		T_EQ_INT(ucg_cpu_account_period(fx_task_cg(e, 10, UCG_SS_cpu), 1, 5000, 0), 0);
		T_EQ_INT(ucg_cpu_account_period(fx_task_cg(e, 10, UCG_SS_cpu), 0, 0, 700), 0);
		T_EQ_STR(fx_read(e, h, "/p/c/cpu.stat"),
			 "nr_periods 2\nnr_throttled 1\nthrottled_time 5000\nnr_bursts 1\n"
			 "burst_time 700\n");
		T_EQ_INT(fx_task_cg_err(e, 99, UCG_SS_cpu), -ESRCH);
	}
	ucg_engine_free(e);
}

static void test_rt(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu");
	struct ucg_task_info ti;

	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/b"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_runtime_us", "950001"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_runtime_us", "-1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_runtime_us", "-2"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_runtime_us", "500000"), 0);
	/* Period below runtime; period 0; period > U64_MAX / 1000. */
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_period_us", "499999"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_period_us", "0"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_period_us", "18446744073709552"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/a/cpu.rt_period_us", "1"), 0); /* runtime 0 */
	T_EQ_INT(fx_write(e, h, "/p/a/cpu.rt_period_us", "1000000"), 0);
	/* Children's ratios sum to at most the parent's, with the 20-bit rounding. */
	T_EQ_INT(fx_write(e, h, "/p/a/cpu.rt_runtime_us", "300000"), 0);
	T_EQ_INT(fx_write(e, h, "/p/b/cpu.rt_runtime_us", "200002"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/p/b/cpu.rt_runtime_us", "200001"), 0);
	/* The parent cannot drop below its children's sum. */
	T_EQ_INT(fx_write(e, h, "/p/cpu.rt_runtime_us", "400000"), -EINVAL);
	T_EQ_STR(fx_read(e, h, "/p/cpu.rt_runtime_us"), "500000\n");
	/* RT tasks: no attach to runtime 0; no runtime 0 with RT tasks. */
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = 10;
	ti.flags = UCG_TASK_RT;
	T_EQ_INT(ucg_task_add(e, &ti), 0);
	fx_proc(e, 20, 0);
	T_EQ_INT(fx_mkdir(e, h, "/z"), 0);
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "10"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "20"), 0);
	T_EQ_INT(fx_write(e, h, "/p/a/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/p/a/cpu.rt_runtime_us", "0"), -EBUSY);
	T_EQ_INT(fx_write(e, h, "/p/a/cpu.rt_runtime_us", "100"), 0);
	ucg_engine_free(e);
}

/* The scheduling policy is the task's current one: the provider reports a change
 * through ucg_task_set_cred (UCG_TASK_RT in info.flags), and the attach rule and the
 * runtime-0 rule see it. */
static void test_rt_policy_changes(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu");
	struct ucg_task_info ti;

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/z"), 0); /* rt_runtime_us 0 */
	T_EQ_INT(fx_mkdir(e, h, "/r"), 0);
	T_EQ_INT(fx_write(e, h, "/r/cpu.rt_runtime_us", "1000"), 0);
	T_EQ_INT(ucg_task_get_info(e, 10, &ti), 0);
	ti.flags |= UCG_TASK_RT; /* sched_setscheduler(SCHED_FIFO) */
	T_EQ_INT(ucg_task_set_cred(e, &ti), 0);
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "10"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/r/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/r/cpu.rt_runtime_us", "0"), -EBUSY);
	ti.flags &= ~UCG_TASK_RT; /* back to SCHED_OTHER */
	T_EQ_INT(ucg_task_set_cred(e, &ti), 0);
	T_EQ_INT(fx_write(e, h, "/r/cpu.rt_runtime_us", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "10"), 0);
	/* the other flags are the task's identity, not the provider's to change */
	ti.flags = UCG_TASK_KTHREAD | UCG_TASK_NO_SETAFFINITY;
	T_EQ_INT(ucg_task_set_cred(e, &ti), 0);
	T_EQ_INT(ucg_task_get_info(e, 10, &ti), 0);
	T_EQ_INT(ti.flags, 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_defaults_root);
	T_RUN(test_shares_idle);
	T_RUN(test_cfs_values);
	T_RUN(test_cfs_hierarchy);
	T_RUN(test_rt);
	T_RUN(test_rt_policy_changes);
	return t_done();
}
