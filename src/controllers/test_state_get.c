/* controllers/test_state_get.c — the typed state accessors of charge.h: each reads
 * back what the controller's files were told, in the units its struct names, and
 * refuses a cgroup of a hierarchy the controller is not bound to. */
#include "controllers/charge.h"
#include "controllers/devices_rules.h"
#include "engine/test_fixture.h"
#include "engine/subsys.h"

static struct ucg_cgroup *cg_at(struct ucg_hierarchy *h, const char *path)
{
	struct ucg_cgroup *cg = NULL;

	T_EQ_INT(ucg_cgroup_lookup(h, path, &cg), 0);
	return cg;
}

static void test_pids(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids"), *o = fx_mount(e, "none,name=o");
	struct ucg_pids_state st;
	struct ucg_cgroup *cg;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	cg = cg_at(h, "/a");
	T_EQ_INT(ucg_pids_get(cg, &st), 0);
	T_EQ_INT(st.max, -1);
	T_EQ_INT(st.current, 0);
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "2"), 0);
	fx_proc(e, 10, 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	fx_thread(e, 10, 10, 11, 0);
	{
		struct ucg_task_info ti = { .tid = 12, .tgid = 12 };

		T_EQ_INT(ucg_task_fork(e, 10, &ti), -EAGAIN);
	}
	T_EQ_INT(ucg_pids_get(cg, &st), 0);
	T_EQ_INT(st.max, 2);
	T_EQ_INT(st.current, 2);
	T_EQ_INT(st.peak, 2);
	T_EQ_INT(st.events_max, 1);
	T_EQ_STR(fx_read(e, h, "/a/pids.max"), "2\n");
	T_EQ_INT(ucg_pids_get(ucg_hierarchy_root(o), &st), -EINVAL);
	ucg_engine_free(e);
}

static void test_freezer(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "freezer");
	struct ucg_freezer_state st;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(ucg_freezer_get(cg_at(h, "/a/b"), &st), 0);
	T_EQ_INT(st.state, UCG_FREEZER_THAWED);
	T_EQ_INT(fx_write(e, h, "/a/freezer.state", "FROZEN"), 0);
	T_EQ_INT(ucg_freezer_get(cg_at(h, "/a/b"), &st), 0);
	T_EQ_INT(st.state, UCG_FREEZER_FROZEN); /* empty: frozen at once */
	T_EQ_INT(st.self_freezing, 0);
	T_EQ_INT(st.parent_freezing, 1);
	T_EQ_INT(ucg_freezer_get(cg_at(h, "/a"), &st), 0);
	T_EQ_INT(st.self_freezing, 1);
	T_EQ_STR(fx_read(e, h, "/a/freezer.state"), "FROZEN\n");
	ucg_engine_free(e);
}

static void test_net_cls_hugetlb_cpuacct(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *n = fx_mount(e, "net_cls"), *hg = fx_mount(e, "hugetlb");
	struct ucg_hierarchy *ca = fx_mount(e, "cpuacct");
	struct ucg_hugetlb_state hs;
	struct ucg_cpuacct_usage u;
	uint32_t id = 1;

	T_EQ_INT(fx_mkdir(e, n, "/a"), 0);
	T_EQ_INT(ucg_net_cls_classid_get(cg_at(n, "/a"), &id), 0);
	T_EQ_INT(id, 0);
	T_EQ_INT(fx_write(e, n, "/a/net_cls.classid", "0x100001"), 0);
	T_EQ_INT(ucg_net_cls_classid_get(cg_at(n, "/a"), &id), 0);
	T_EQ_INT(id, 0x100001);
	T_EQ_INT(ucg_net_cls_classid_get(ucg_hierarchy_root(hg), &id), -EINVAL);

	T_EQ_INT(fx_mkdir(e, hg, "/a"), 0);
	T_EQ_INT(fx_write(e, hg, "/a/hugetlb.2MB.limit_in_bytes", "4M"), 0);
	T_EQ_INT(ucg_hugetlb_get(cg_at(hg, "/a"), UCG_HUGETLB_2MB, false, &hs), 0);
	T_EQ_INT(hs.limit, 4 << 20);
	T_EQ_INT(hs.usage, 0);
	T_EQ_INT(ucg_hugetlb_get(cg_at(hg, "/a"), UCG_HUGETLB_NR_SIZES, false, &hs), -EINVAL);

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, ca, "/a"), 0);
	T_EQ_INT(fx_write(e, ca, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_cpuacct_charge(fx_task_cg(e, 10, UCG_SS_cpuacct), 0, 3000, 500), 0);
	T_EQ_INT(ucg_cpuacct_get(cg_at(ca, "/a"), &u), 0);
	T_EQ_INT(u.user_ns, 3000);
	T_EQ_INT(u.sys_ns, 500);
	T_EQ_INT(ucg_cpuacct_get(ucg_hierarchy_root(ca), &u), 0);
	T_EQ_INT(u.user_ns, 3000);
	T_EQ_STR(fx_read(e, ca, "/a/cpuacct.usage"), "3500\n");
	ucg_engine_free(e);
}

static void test_cpu_cpuset(void)
{
	struct ucg_engine_config cfg = { .nr_cpus = 4, .nr_mems = 1 };
	struct ucg_engine *e = NULL;
	struct ucg_hierarchy *c, *cs;
	struct ucg_cpu_bandwidth bw;
	unsigned char cpus[1], mems[1];
	struct ucg_cgroup *a;

	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	c = fx_mount(e, "cpu");
	cs = fx_mount(e, "cpuset");
	T_EQ_INT(fx_mkdir(e, c, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, c, "/a/b"), 0);
	T_EQ_INT(fx_write(e, c, "/a/cpu.cfs_quota_us", "50000"), 0);
	T_EQ_INT(fx_write(e, c, "/a/b/cpu.shares", "512"), 0);
	T_EQ_INT(ucg_cpu_bandwidth_get(cg_at(c, "/a/b"), &bw), 0);
	T_EQ_INT(bw.shares, 512);
	T_EQ_INT(bw.quota_us, -1);
	T_EQ_INT(bw.period_us, 100000);
	T_EQ_INT(bw.ratio, 1 << 19); /* the parent's 0.5 */
	T_EQ_INT(ucg_cpu_bandwidth_get(cg_at(c, "/a"), &bw), 0);
	T_EQ_INT(bw.quota_us, 50000);

	T_EQ_INT(fx_mkdir(e, cs, "/a"), 0);
	a = cg_at(cs, "/a");
	T_EQ_INT(ucg_cpuset_get(a, 0, cpus, 1, mems, 1), 0);
	T_EQ_INT(cpus[0], 0);
	T_EQ_INT(fx_write(e, cs, "/a/cpuset.cpus", "1-2"), 0);
	T_EQ_INT(fx_write(e, cs, "/a/cpuset.mems", "0"), 0);
	T_EQ_INT(ucg_cpuset_get(a, 0, cpus, 1, mems, 1), 0);
	T_EQ_INT(cpus[0], 0x6);
	T_EQ_INT(mems[0], 0x1);
	T_EQ_INT(ucg_cpuset_get(a, 1, cpus, 1, mems, 1), 0);
	T_EQ_INT(cpus[0], 0x6);
	T_EQ_INT(ucg_cpuset_get(a, 1, cpus, 0, mems, 1), -EINVAL);
	T_EQ_INT(ucg_cpuset_get(cg_at(c, "/a"), 1, cpus, 1, mems, 1), -EINVAL);
	ucg_engine_free(e);
}

static void test_blkio_devices(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *b = fx_mount(e, "blkio"), *d = fx_mount(e, "devices");
	struct ucg_blkio_rule r[4];
	const struct ucg_devrules *dr;
	size_t n = 9;
	unsigned w = 9;

	T_EQ_INT(fx_mkdir(e, b, "/a"), 0);
	T_EQ_INT(ucg_blkio_get(cg_at(b, "/a"), r, 4, &n, &w), 0);
	T_EQ_INT(n, 0);
	T_EQ_INT(w, 100);
	T_EQ_INT(fx_write(e, b, "/a/blkio.throttle.read_bps_device", "7:0 1048576"), 0);
	T_EQ_INT(fx_write(e, b, "/a/blkio.throttle.write_iops_device", "254:0 50"), 0);
	T_EQ_INT(fx_write(e, b, "/a/blkio.bfq.weight", "300"), 0);
	T_EQ_INT(ucg_blkio_get(cg_at(b, "/a"), r, 4, &n, &w), 0);
	T_EQ_INT(n, 2);
	T_EQ_INT(w, 300);
	T_EQ_INT(r[0].major, 7);
	T_EQ_INT(r[0].read_bps, 1048576);
	T_CHECK(r[0].write_bps == UINT64_MAX);
	T_EQ_INT(r[1].major, 254);
	T_EQ_INT(r[1].write_iops, 50);
	T_CHECK(r[1].read_iops == UINT32_MAX);
	T_EQ_INT(ucg_blkio_get(cg_at(b, "/a"), r, 0, &n, &w), 0);
	T_EQ_INT(n, 2);
	T_EQ_INT(ucg_blkio_get(ucg_hierarchy_root(b), r, 4, &n, &w), 0);
	T_EQ_INT(w, 0);

	T_EQ_INT(fx_mkdir(e, d, "/a"), 0);
	T_EQ_INT(fx_write(e, d, "/a/devices.deny", "a"), 0);
	T_EQ_INT(fx_write(e, d, "/a/devices.allow", "c 1:3 rw"), 0);
	T_EQ_INT(ucg_devices_rules_get(cg_at(d, "/a"), &dr), 0);
	T_EQ_INT(dr->behavior, UCG_DEV_DEFAULT_DENY);
	T_EQ_INT(dr->n, 1);
	T_EQ_INT(dr->ex[0].major, 1);
	T_EQ_INT(dr->ex[0].minor, 3);
	T_EQ_INT(dr->ex[0].access, UCG_DEV_ACC_READ | UCG_DEV_ACC_WRITE);
	T_EQ_INT(ucg_devices_rules_get(cg_at(b, "/a"), &dr), -EINVAL);
	ucg_engine_free(e);
}

static void test_memory(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "memory");
	struct ucg_memory_state st;
	struct ucg_charge_result res;
	struct ucg_cgroup *a;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	a = cg_at(h, "/a");
	T_EQ_INT(ucg_memory_get(a, &st), 0);
	T_CHECK(st.limit == UCG_MEMORY_UNLIMITED);
	T_CHECK(st.memsw_limit == UCG_MEMORY_UNLIMITED);
	T_EQ_INT(fx_write(e, h, "/a/memory.limit_in_bytes", "1M"), 0);
	T_EQ_INT(fx_write(e, h, "/a/memory.soft_limit_in_bytes", "512K"), 0);
	T_EQ_INT(fx_write(e, h, "/a/memory.oom_control", "1"), 0);
	memset(&res, 0, sizeof(res));
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a"), UCG_MEM_ANON, 200, &res), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a"), UCG_MEM_ANON, 100, &res), -ENOMEM);
	T_EQ_INT(ucg_memory_get(a, &st), 0);
	T_EQ_INT(st.limit, 1 << 20);
	T_EQ_INT(st.soft_limit, 512 << 10);
	T_EQ_INT(st.usage, 200 * 4096);
	T_EQ_INT(st.max_usage, 200 * 4096);
	T_EQ_INT(st.memsw_usage, 200 * 4096);
	T_CHECK(st.failcnt >= 1);
	T_EQ_INT(st.oom_kill_disable, 1);
	T_EQ_INT(st.under_oom, 1);
	T_EQ_STR(fx_read(e, h, "/a/memory.limit_in_bytes"), "1048576\n");
	T_EQ_INT(ucg_memory_get(ucg_hierarchy_root(fx_mount(e, "pids")), &st), -EINVAL);
	ucg_engine_free(e);
}

static void test_task_subsys_cgroup(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	struct ucg_cgroup *cg = (void *)1;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	fx_proc(e, 10, 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_task_subsys_cgroup(e, 10, UCG_SS_pids, &cg), 0);
	T_CHECK(cg == cg_at(h, "/a"));
	T_EQ_INT(ucg_task_subsys_cgroup(e, 10, UCG_SS_memory, &cg), 0);
	T_CHECK(cg == NULL);
	T_EQ_INT(ucg_task_subsys_cgroup(e, 99, UCG_SS_pids, &cg), -ESRCH);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_pids);
	T_RUN(test_freezer);
	T_RUN(test_net_cls_hugetlb_cpuacct);
	T_RUN(test_cpu_cpuset);
	T_RUN(test_blkio_devices);
	T_RUN(test_memory);
	T_RUN(test_task_subsys_cgroup);
	return t_done();
}
