/* controllers/test_net_prio.c — net_prio: prioidx allocation, the ifpriomap
 * grammar (sscanf "%16s %u"), copying at mkdir, the device list (docs/kernel/controllers.md §8). */
#include "controllers/charge.h"
#include "engine/test_fixture.h"

static const char *const devs[] = { "lo", "ifb0", "ifb1", "eth0" };

static struct ucg_engine *engine_ref(void)
{
	struct ucg_engine_config cfg;
	struct ucg_engine *e = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.netdev_names = devs;
	cfg.nr_netdevs = 4;
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	return e;
}

static void test_prioidx_defaults(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "net_prio");

	T_EQ_STR(fx_read(e, h, "/net_prio.prioidx"), "1\n");
	T_EQ_STR(fx_read(e, h, "/net_prio.ifpriomap"), "lo 0\neth0 0\n");
	T_EQ_INT(fx_write(e, h, "/net_prio.prioidx", "5"), -EINVAL);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/c"), 0);
	T_EQ_STR(fx_read(e, h, "/a/net_prio.prioidx"), "2\n");
	T_EQ_STR(fx_read(e, h, "/b/net_prio.prioidx"), "3\n");
	T_EQ_STR(fx_read(e, h, "/c/net_prio.prioidx"), "4\n");
	T_EQ_INT(fx_rmdir(e, h, "/c"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/d"), 0);
	T_EQ_STR(fx_read(e, h, "/d/net_prio.prioidx"), "5\n");
	ucg_engine_free(e);
}

static void test_ifpriomap_grammar(void)
{
	/* The kernel's answers, observed in one sequence (docs/controllers-verified.md). */
	static const struct {
		const char *in;
		int err;
		const char *eth0, *lo;
	} cases[] = {
		{ "eth0 1", 0, "1", "0" },
		{ "lo 6junk", 0, "1", "6" },
		{ "  lo   0x10", 0, "1", "0" },
		{ "eth0 4294967297", 0, "1", "0" },
		{ "eth0", -EINVAL, "1", "0" },
		{ "eth0 ", -EINVAL, "1", "0" },
		{ "eth0 -1", -EINVAL, "1", "0" },
		{ "nosuch 1", -ENODEV, "1", "0" },
		{ "eth0 1\nlo 2", 0, "1", "0" },
		{ "eth0\t3", 0, "3", "0" },
		{ "eth0 +3", -EINVAL, "3", "0" },
		{ "eth01234567890123 1", -ENODEV, "3", "0" },
		{ "eth0 1 2", 0, "1", "0" },
		{ "\n", -EINVAL, "1", "0" },
		{ " ", -EINVAL, "1", "0" },
		{ "eth0  ", -EINVAL, "1", "0" },
		{ "eth0 99999999999999999999", 0, "1661992959", "0" },
	};
	struct ucg_engine *e = engine_ref();
	struct ucg_hierarchy *h = fx_mount(e, "net_cls,net_prio");
	char want[128];
	size_t i;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		T_EQ_INT(fx_write(e, h, "/a/net_prio.ifpriomap", cases[i].in), cases[i].err);
		snprintf(want, sizeof(want), "lo %s\nifb0 0\nifb1 0\neth0 %s\n", cases[i].lo,
			 cases[i].eth0);
		T_EQ_STR(fx_read(e, h, "/a/net_prio.ifpriomap"), want);
	}
	T_EQ_INT(fx_write(e, h, "/a/net_prio.ifpriomap", ""), 0);
	ucg_engine_free(e);
}

static void test_copy_at_mkdir(void)
{
	struct ucg_engine *e = engine_ref();
	struct ucg_hierarchy *h = fx_mount(e, "net_prio");
	uint32_t prio = 99;

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/old"), 0);
	T_EQ_INT(fx_write(e, h, "/p/net_prio.ifpriomap", "lo 6"), 0);
	T_EQ_INT(fx_write(e, h, "/p/net_prio.ifpriomap", "eth0 1"), 0);
	T_EQ_STR(fx_read(e, h, "/p/old/net_prio.ifpriomap"), "lo 0\nifb0 0\nifb1 0\neth0 0\n");
	T_EQ_INT(fx_mkdir(e, h, "/p/new"), 0);
	T_EQ_STR(fx_read(e, h, "/p/new/net_prio.ifpriomap"), "lo 6\nifb0 0\nifb1 0\neth0 1\n");
	T_EQ_INT(fx_write(e, h, "/p/new/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_net_prio_priority(fx_task_cg(e, 10, UCG_SS_net_prio), "lo", &prio), 0);
	T_EQ_INT(prio, 6);
	T_EQ_INT(ucg_net_prio_priority(fx_task_cg(e, 10, UCG_SS_net_prio), "ifb0", &prio), 0);
	T_EQ_INT(prio, 0);
	T_EQ_INT(ucg_net_prio_priority(fx_task_cg(e, 10, UCG_SS_net_prio), "wlan0", &prio), -ENODEV);
	T_EQ_INT(fx_task_cg_err(e, 11, UCG_SS_net_prio), -ESRCH);
	ucg_engine_free(e);
}

static void test_alloc_failure(void)
{
	static const struct fx_step steps[] = {
		{ "/a", NULL },
	};

	fx_alloc_sweep(300, "net_prio,net_cls", steps, sizeof(steps) / sizeof(steps[0]));
}

int main(void)
{
	T_RUN(test_prioidx_defaults);
	T_RUN(test_ifpriomap_grammar);
	T_RUN(test_copy_at_mkdir);
	T_RUN(test_alloc_failure);
	return t_done();
}
