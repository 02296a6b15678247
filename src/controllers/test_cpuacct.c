/* controllers/test_cpuacct.c — cpuacct: formats, hierarchical sums, the usage reset
 * and cpuacct.stat's monotonic ticks (docs/kernel/controllers.md §3). */
#include "controllers/charge.h"
#include "engine/test_fixture.h"

static struct ucg_engine *engine2(void)
{
	struct ucg_engine_config cfg;
	struct ucg_engine *e = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_cpus = 2;
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	return e;
}

static void test_files_formats(void)
{
	struct ucg_engine *e = engine2();
	struct ucg_hierarchy *h = fx_mount(e, "cpuacct");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_percpu"), "0 0 \n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_all"), "cpu user system\n0 0 0\n1 0 0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.stat"), "user 0\nsystem 0\n");
	fx_proc(e, 10, 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 1, 996676033, 0), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 0, 2283955, 315085), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage"), "999275073\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_user"), "998959988\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_sys"), "315085\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_percpu"), "2599040 996676033 \n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_percpu_user"), "2283955 996676033 \n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_percpu_sys"), "315085 0 \n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage_all"),
		 "cpu user system\n0 2283955 315085\n1 996676033 0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.stat"), "user 99\nsystem 0\n");
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cpuacct.usage", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0644);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cpuacct.usage_all", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0444);
	T_EQ_INT(fx_write(e, h, "/a/cpuacct.stat", "0"), -EINVAL);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 2, 1, 1), -EINVAL);
	T_EQ_INT(fx_task_cg_err(e, 99, UCG_SS_cpuacct), -ESRCH);
	ucg_engine_free(e);
}

static void test_hierarchy_and_reset(void)
{
	static const struct {
		const char *in;
		int err;
	} writes[] = {
		{ "1", -EINVAL }, { "-1", -EINVAL }, { " 0", -EINVAL }, { "abc", -EINVAL },
		{ "0x0", 0 },	  { "0\n", 0 },
	};
	struct ucg_engine *e = engine2();
	struct ucg_hierarchy *h = fx_mount(e, "cpuacct");
	size_t i;

	fx_proc(e, 10, 0);
	fx_proc(e, 20, 0);
	fx_proc(e, 30, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "20"), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 0, 100, 0), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 20, UCG_SS_cpuacct), 1, 482579000, 0), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 30, UCG_SS_cpuacct), 0, 7, 0), 0); /* root only */
	T_EQ_STR(fx_read(e, h, "/p/c/cpuacct.usage"), "482579000\n");
	T_EQ_STR(fx_read(e, h, "/p/cpuacct.usage"), "482579100\n");
	T_EQ_STR(fx_read(e, h, "/cpuacct.usage"), "482579107\n");
	/* New children start at 0. */
	T_EQ_INT(fx_mkdir(e, h, "/p/n"), 0);
	T_EQ_STR(fx_read(e, h, "/p/n/cpuacct.usage"), "0\n");
	/* A charge follows the task after a move. */
	T_EQ_INT(fx_write(e, h, "/p/n/cgroup.procs", "20"), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 20, UCG_SS_cpuacct), 0, 0, 5), 0);
	T_EQ_STR(fx_read(e, h, "/p/n/cpuacct.usage"), "5\n");
	T_EQ_STR(fx_read(e, h, "/p/c/cpuacct.usage"), "482579000\n");
	T_EQ_STR(fx_read(e, h, "/p/c/cpuacct.stat"), "user 48\nsystem 0\n");
	/* Only 0 resets, and only this cgroup; stat stays. */
	for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		T_EQ_INT(fx_write(e, h, "/p/c/cpuacct.usage", writes[i].in), writes[i].err);
	T_EQ_STR(fx_read(e, h, "/p/c/cpuacct.usage"), "0\n");
	T_EQ_STR(fx_read(e, h, "/p/c/cpuacct.usage_all"), "cpu user system\n0 0 0\n1 0 0\n");
	T_EQ_STR(fx_read(e, h, "/p/c/cpuacct.stat"), "user 48\nsystem 0\n");
	T_EQ_STR(fx_read(e, h, "/p/cpuacct.usage"), "482579105\n");
	/* The removed child's time stays in its ancestors. */
	T_EQ_INT(fx_rmdir(e, h, "/p/c"), 0);
	T_EQ_STR(fx_read(e, h, "/p/cpuacct.usage"), "482579105\n");
	/* The root's usage may be reset too. */
	T_EQ_INT(fx_write(e, h, "/cpuacct.usage", "0"), 0);
	T_EQ_STR(fx_read(e, h, "/cpuacct.usage"), "0\n");
	ucg_engine_free(e);
}

static void test_stat_monotonic(void)
{
	struct ucg_engine *e = engine2();
	struct ucg_hierarchy *h = fx_mount(e, "cpuacct");

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 0, 300000000, 100000000), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.stat"), "user 30\nsystem 10\n");
	T_EQ_INT(fx_write(e, h, "/a/cpuacct.usage", "0"), 0);
	/* Below the last shown pair: unchanged. */
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 0, 200000000, 100000000), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.stat"), "user 30\nsystem 10\n");
	/* Beyond it: grows again, never backwards. */
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 1, 200000000, 0), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.usage"), "500000000\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuacct.stat"), "user 40\nsystem 10\n");
	ucg_engine_free(e);
}

static void test_alloc_failure(void)
{
	static const struct fx_step steps[] = {
		{ "/a", NULL },
		{ "/a/b", NULL },
	};

	fx_alloc_sweep(300, "cpu,cpuacct", steps, sizeof(steps) / sizeof(steps[0]));
}

int main(void)
{
	T_RUN(test_files_formats);
	T_RUN(test_hierarchy_and_reset);
	T_RUN(test_stat_monotonic);
	T_RUN(test_alloc_failure);
	return t_done();
}
