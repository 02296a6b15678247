/* Unit tests of host/v1v2.c (v1 writes -> v2 writes), host/v2stat.c (v1 statistics
 * from v2 files) and controllers/cpu_v2.c (the curve, the quota and weight splits). Expected values are worked by hand from the formulas in v1v2.h and
 * the kernel's file formats (Documentation/admin-guide/cgroup-v2.rst). */
#include "host/v1v2.h"
#include "host/v2stat.h"
#include "host/v2sum.h"

#include "harness.h"

#include <errno.h>

static struct ucg_v1v2_state st;
static struct ucg_v2_set out[UCG_V2_SET_MAX];

static int tr(const char *file, const char *buf)
{
	memset(out, 0, sizeof(out));
	return ucg_v1v2_translate(&st, file, buf, strlen(buf), out);
}

static void test_cpu_weight_curve(void)
{
	T_EQ_INT(ucg_v1v2_cpu_weight(0), 0);
	T_EQ_INT(ucg_v1v2_cpu_weight(2), 1);
	T_EQ_INT(ucg_v1v2_cpu_weight(1024), 100);
	T_EQ_INT(ucg_v1v2_cpu_weight(262144), 10000);
	T_EQ_INT(ucg_v1v2_cpu_weight(512), 59);   /* l=9: 10^(1206/612 - 7/34) = 58.2 */
	T_EQ_INT(ucg_v1v2_cpu_weight(2048), 174); /* l=11: 10^(1496/612 - 7/34) = 173.2 */
	/* monotonic over the whole v1 range */
	for (uint64_t s = 3, prev = 1; s < 262144; s += 97) {
		uint64_t w = ucg_v1v2_cpu_weight(s);

		T_CHECK(w >= prev && w >= 1 && w <= 10000);
		prev = w;
	}
	T_EQ_INT(ucg_v1v2_io_weight(10), 1);
	T_EQ_INT(ucg_v1v2_io_weight(500), 4950);
	T_EQ_INT(ucg_v1v2_io_weight(1000), 10000);
}

static void test_memory(void)
{
	ucg_v1v2_state_init(&st);
	T_EQ_INT(tr("memory.limit_in_bytes", "32M"), 2);
	T_EQ_STR(out[0].file, "memory.max");
	T_EQ_STR(out[0].value, "33554432");
	T_EQ_STR(out[1].file, "memory.swap.max");
	T_EQ_STR(out[1].value, "max");
	T_EQ_INT(out[1].optional, 1);
	/* memsw 48M over memory 32M: 16M of swap */
	T_EQ_INT(tr("memory.memsw.limit_in_bytes", "50331648\n"), 1);
	T_EQ_STR(out[0].value, "16777216");
	/* lowering memory raises the swap share */
	T_EQ_INT(tr("memory.limit_in_bytes", "16777216"), 2);
	T_EQ_STR(out[0].value, "16777216");
	T_EQ_STR(out[1].value, "33554432");
	/* pages, rounded down like the kernel */
	T_EQ_INT(tr("memory.limit_in_bytes", "4097"), 2);
	T_EQ_STR(out[0].value, "4096");
	T_EQ_INT(tr("memory.memsw.limit_in_bytes", "-1"), 1);
	T_EQ_STR(out[0].value, "max");
	T_EQ_INT(tr("memory.limit_in_bytes", "-1"), 2);
	T_EQ_STR(out[0].value, "max");
	T_EQ_INT(tr("memory.soft_limit_in_bytes", "1G"), 1);
	T_EQ_STR(out[0].file, "memory.low");
	T_EQ_STR(out[0].value, "1073741824");
	T_EQ_INT(tr("memory.soft_limit_in_bytes", "-1"), 1);
	T_EQ_STR(out[0].value, "0");
	T_EQ_INT(tr("memory.force_empty", "0"), 1);
	T_EQ_STR(out[0].file, "memory.reclaim");
	T_EQ_INT(tr("memory.swappiness", "10"), -ENOENT);
	T_EQ_INT(tr("memory.oom_control", "1"), -ENOENT);
	T_EQ_INT(tr("memory.use_hierarchy", "0"), -ENOENT);
	/* a bad value changes nothing */
	T_EQ_INT(tr("memory.limit_in_bytes", "12Q"), -EINVAL);
	T_EQ_INT(st.mem_limit, UCG_V1_MEM_MAX);
}

static void test_cpu(void)
{
	ucg_v1v2_state_init(&st);
	T_EQ_INT(tr("cpu.shares", "1024\n"), 1);
	T_EQ_STR(out[0].file, "cpu.weight");
	T_EQ_STR(out[0].value, "100");
	T_EQ_INT(tr("cpu.cfs_quota_us", "25000"), 1);
	T_EQ_STR(out[0].file, "cpu.max");
	T_EQ_STR(out[0].value, "25000 100000");
	T_EQ_INT(tr("cpu.cfs_period_us", "50000"), 1);
	T_EQ_STR(out[0].value, "25000 50000");
	T_EQ_INT(tr("cpu.cfs_quota_us", "-1"), 1);
	T_EQ_STR(out[0].value, "max 50000");
	T_EQ_INT(tr("cpu.cfs_burst_us", "1000"), 1);
	T_EQ_STR(out[0].file, "cpu.max.burst");
	T_EQ_INT(tr("cpu.rt_runtime_us", "0"), -ENOENT);
	T_EQ_INT(tr("cpu.cfs_quota_us", "x"), -EINVAL);
	T_EQ_INT(st.cfs_quota_us, -1);
}

static void test_blkio_pids_freezer_cpuset_hugetlb(void)
{
	ucg_v1v2_state_init(&st);
	T_EQ_INT(tr("blkio.weight", "500"), 2);
	T_EQ_STR(out[0].file, "io.bfq.weight");
	T_EQ_STR(out[0].value, "default 500");
	T_EQ_STR(out[1].file, "io.weight");
	T_EQ_STR(out[1].value, "default 4950");
	T_EQ_INT(tr("blkio.weight_device", "8:0 100"), 2);
	T_EQ_STR(out[1].value, "8:0 910");
	T_EQ_INT(tr("blkio.weight_device", "8:0 0"), 2);
	T_EQ_STR(out[1].value, "8:0 default");
	T_EQ_INT(tr("blkio.throttle.read_bps_device", "8:16 1048576\n"), 1);
	T_EQ_STR(out[0].file, "io.max");
	T_EQ_STR(out[0].value, "8:16 rbps=1048576");
	T_EQ_INT(tr("blkio.throttle.write_iops_device", "8:16 0"), 1);
	T_EQ_STR(out[0].value, "8:16 wiops=max");
	T_EQ_INT(tr("blkio.throttle.read_bps_device", "8:16"), -EINVAL);
	T_EQ_INT(tr("blkio.leaf_weight", "500"), -ENOENT);
	T_EQ_INT(tr("pids.max", "max\n"), 1);
	T_EQ_STR(out[0].value, "max");
	T_EQ_INT(tr("pids.max", "3"), 1);
	T_EQ_STR(out[0].file, "pids.max");
	T_EQ_STR(out[0].value, "3");
	T_EQ_INT(tr("freezer.state", "FROZEN\n"), 1);
	T_EQ_STR(out[0].file, "cgroup.freeze");
	T_EQ_STR(out[0].value, "1");
	T_EQ_INT(tr("freezer.state", "THAWED"), 1);
	T_EQ_STR(out[0].value, "0");
	T_EQ_INT(tr("freezer.state", "FREEZING"), -EINVAL);
	T_EQ_INT(tr("cpuset.cpus", "0-1,3\n"), 1);
	T_EQ_STR(out[0].file, "cpuset.cpus");
	T_EQ_STR(out[0].value, "0-1,3");
	T_EQ_INT(tr("cpuset.cpu_exclusive", "1"), 1);
	T_EQ_STR(out[0].value, "root");
	T_EQ_INT(tr("cpuset.sched_load_balance", "0"), -ENOENT);
	T_EQ_INT(tr("hugetlb.2MB.limit_in_bytes", "4M"), 1);
	T_EQ_STR(out[0].file, "hugetlb.2MB.max");
	T_EQ_STR(out[0].value, "4194304");
	T_EQ_INT(tr("hugetlb.1GB.rsvd.limit_in_bytes", "-1"), 1);
	T_EQ_STR(out[0].file, "hugetlb.1GB.rsvd.max");
	T_EQ_STR(out[0].value, "max");
	T_EQ_INT(tr("hugetlb.2MB.max_usage_in_bytes", "0"), -ENOENT);
	T_EQ_INT(tr("devices.deny", "a"), -ENOENT);
	T_EQ_INT(tr("net_cls.classid", "1"), -ENOENT);
}

/* a fake v2 leaf: file name -> content */
static const char *const *leaf;

static int fake_read(void *ctx, const char *file, struct ucg_buf *b)
{
	(void)ctx;
	for (size_t i = 0; leaf[i]; i += 2)
		if (!strcmp(leaf[i], file)) {
			ucg_buf_puts(b, leaf[i + 1]);
			return 0;
		}
	return -ENOENT;
}

static const char *show(const char *v1file)
{
	static struct ucg_buf b;
	int e;

	ucg_buf_fini(&b);
	ucg_buf_init(&b);
	e = ucg_v2stat_show(v1file, fake_read, NULL, &b);
	if (e < 0) {
		static char err[32];

		snprintf(err, sizeof(err), "error %d", e);
		return err;
	}
	return b.data ? b.data : "";
}

static const char *const leaf_a[] = {
	"memory.current",
	"8192\n",
	"memory.peak",
	"65536\n",
	"memory.max",
	"33554432\n",
	"memory.swap.current",
	"4096\n",
	"memory.swap.max",
	"16777216\n",
	"memory.events",
	"low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\noom_group_kill 0\n",
	"memory.swap.events",
	"high 0\nmax 3\nfail 0\n",
	"memory.stat",
	"anon 4096\nfile 8192\nkernel 0\nshmem 0\nfile_mapped 4096\n"
	"file_dirty 0\nfile_writeback 0\nswapcached 0\nanon_thp 0\n"
	"inactive_anon 4096\nactive_anon 0\ninactive_file 8192\nactive_file 0\n"
	"unevictable 0\nworkingset_refault_anon 1\nworkingset_refault_file 2\n"
	"pgfault 55\npgmajfault 1\n",
	"cpu.stat",
	"usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n"
	"nr_periods 10\nnr_throttled 4\nthrottled_usec 1500\nnr_bursts 0\nburst_usec 0\n",
	"io.stat",
	"8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n"
	"253:1 rbytes=1 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n",
	"pids.current",
	"3\n",
	"pids.events",
	"max 2\n",
	"cgroup.freeze",
	"1\n",
	"cgroup.events",
	"populated 1\nfrozen 0\n",
	"hugetlb.2MB.current",
	"2097152\n",
	"hugetlb.2MB.events",
	"max 5\n",
	NULL,
};

static void test_stat_memory(void)
{
	const char *s;

	leaf = leaf_a;
	T_EQ_STR(show("memory.usage_in_bytes"), "8192\n");
	T_EQ_STR(show("memory.max_usage_in_bytes"), "65536\n");
	T_EQ_STR(show("memory.failcnt"), "7\n");
	T_EQ_STR(show("memory.memsw.usage_in_bytes"), "12288\n");
	T_EQ_STR(show("memory.memsw.failcnt"), "3\n");
	T_EQ_STR(show("memory.oom_control"), "oom_kill_disable 0\nunder_oom 1\noom_kill 1\n");
	s = show("memory.stat");
	T_CHECK(!strncmp(s, "cache 8192\nrss 4096\nrss_huge 0\nshmem 0\nmapped_file 4096\n", 55));
	T_CHECK(strstr(s, "\nswap 4096\n") != NULL);
	T_CHECK(strstr(s, "\npgpgin 0\npgpgout 0\npgfault 55\npgmajfault 1\n") != NULL);
	T_CHECK(strstr(s, "\nhierarchical_memory_limit 33554432\n"
			  "hierarchical_memsw_limit 50331648\ntotal_cache 8192\n") != NULL);
	T_CHECK(strstr(s, "\ntotal_unevictable 0\n") != NULL);
	T_EQ_STR(show("memory.limit_in_bytes"), "error -2");
}

static void test_stat_cpu_io_misc(void)
{
	leaf = leaf_a;
	T_EQ_STR(show("cpuacct.usage"), "2500000000\n");
	T_EQ_STR(show("cpuacct.usage_user"), "2000000000\n");
	T_EQ_STR(show("cpuacct.usage_sys"), "500000000\n");
	T_EQ_STR(show("cpuacct.stat"), "user 200\nsystem 50\n");
	T_EQ_STR(show("cpu.stat"), "nr_periods 10\nnr_throttled 4\nthrottled_time 1500000\n"
				   "nr_bursts 0\nburst_time 0\n");
	T_EQ_STR(show("blkio.throttle.io_service_bytes"),
		 "8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 4096\n8:0 Async 8192\n8:0 Discard 0\n"
		 "8:0 Total 12288\n253:1 Read 1\n253:1 Write 0\n253:1 Sync 1\n253:1 Async 0\n"
		 "253:1 Discard 0\n253:1 Total 1\nTotal 12289\n");
	T_EQ_STR(show("blkio.io_serviced"),
		 "8:0 Read 1\n8:0 Write 2\n8:0 Sync 1\n8:0 Async 2\n8:0 Discard 0\n8:0 Total 3\n"
		 "253:1 Read 1\n253:1 Write 0\n253:1 Sync 1\n253:1 Async 0\n253:1 Discard 0\n"
		 "253:1 Total 1\nTotal 4\n");
	T_EQ_STR(show("pids.current"), "3\n");
	T_EQ_STR(show("pids.events"), "max 2\n");
	T_EQ_STR(show("freezer.state"), "FREEZING\n");
	T_EQ_STR(show("freezer.self_freezing"), "1\n");
	T_EQ_STR(show("hugetlb.2MB.usage_in_bytes"), "2097152\n");
	T_EQ_STR(show("hugetlb.2MB.failcnt"), "5\n");
	T_EQ_STR(show("hugetlb.1GB.usage_in_bytes"), "error -2");
}

static const char *const leaf_hybrid[] = {
	/* a hybrid host's v2 leaf: no controllers, cpu.stat has the usage only */
	"cpu.stat",
	"usage_usec 10\nuser_usec 7\nsystem_usec 3\n",
	"cgroup.freeze",
	"1\n",
	"cgroup.events",
	"populated 1\nfrozen 1\n",
	"memory.events",
	"max x\n",
	NULL,
};

static void test_stat_hybrid_and_errors(void)
{
	struct ucg_buf b;

	leaf = leaf_hybrid;
	T_EQ_STR(show("cpu.stat"), "error -2");
	T_EQ_STR(show("cpuacct.usage"), "10000\n");
	T_EQ_STR(show("freezer.state"), "FROZEN\n");
	T_EQ_STR(show("memory.failcnt"), "error -22");
	T_EQ_STR(show("pids.current"), "error -2");
	/* a failed show leaves the buffer as it was */
	ucg_buf_init(&b);
	ucg_buf_puts(&b, "keep");
	T_EQ_INT(ucg_v2stat_show("memory.oom_control", fake_read, NULL, &b), -ENOENT);
	T_EQ_STR(b.data, "keep");
	ucg_buf_fini(&b);
}

/* The value that undoes a v2 write, from what the file held before. */
static void test_undo_value(void)
{
	struct ucg_v2_set max = { "memory.max", "33554432", 0 };
	struct ucg_v2_set iomax = { "io.max", "8:0 rbps=1048576", 0 };
	struct ucg_v2_set iow = { "io.weight", "8:0 500", 1 };
	struct ucg_v2_set iodef = { "io.weight", "default 200", 1 };
	struct ucg_v2_set cpus = { "cpuset.cpus", "1", 0 };
	struct ucg_v2_set reclaim = { "memory.reclaim", "1000000000000", 0 };
	char undo[UCG_V2_VALUE_MAX];

	T_EQ_INT(ucg_v2_undo_value(&max, "max\n", undo, sizeof(undo)), 0);
	T_EQ_STR(undo, "max");
	T_EQ_INT(ucg_v2_undo_value(&max, "1048576\n", undo, sizeof(undo)), 0);
	T_EQ_STR(undo, "1048576");
	T_EQ_INT(ucg_v2_undo_value(&iomax, "", undo, sizeof(undo)), 0);
	T_EQ_STR(undo, "8:0 rbps=max wbps=max riops=max wiops=max");
	T_EQ_INT(ucg_v2_undo_value(&iomax,
				   "8:16 rbps=1 wbps=max riops=max wiops=max\n"
				   "8:0 rbps=2 wbps=max riops=max wiops=max\n",
				   undo, sizeof(undo)),
		 0);
	T_EQ_STR(undo, "8:0 rbps=2 wbps=max riops=max wiops=max");
	T_EQ_INT(ucg_v2_undo_value(&iow, "default 100\n", undo, sizeof(undo)), 0);
	T_EQ_STR(undo, "8:0 default");
	T_EQ_INT(ucg_v2_undo_value(&iow, "default 100\n8:0 300\n", undo, sizeof(undo)), 0);
	T_EQ_STR(undo, "8:0 300");
	T_EQ_INT(ucg_v2_undo_value(&iodef, "default 100\n8:0 300\n", undo, sizeof(undo)), 0);
	T_EQ_STR(undo, "default 100");
	T_EQ_INT(ucg_v2_undo_value(&cpus, "\n", undo, sizeof(undo)), 0);
	T_EQ_STR(undo, "\n");
	T_EQ_INT(ucg_v2_undo_value(&cpus, "0-1\n", undo, 3), -ENAMETOOLONG);
	T_EQ_INT(ucg_v2_undo_value(&reclaim, "", undo, sizeof(undo)), -ENOENT);
}

/* A quota shared by the leaves of a divergent layout: max-min fair by demand. */
static void test_split_quota(void)
{
	struct ucg_v2_split_leaf l[3];
	uint64_t a0, a1;

	/* new leaves: equal parts of 50 ms per 100 ms */
	memset(l, 0, sizeof(l));
	ucg_v2_split_quota(50000, 100000, 1000000, l, 2);
	T_EQ_INT(l[0].next_us, 25000);
	T_EQ_INT(l[1].next_us, 25000);
	/* two busy leaves, both throttled: it stays even */
	l[0] = (struct ucg_v2_split_leaf){ .used_us = 250000, .throttled = 1, .alloc_us = 25000 };
	l[1] = (struct ucg_v2_split_leaf){ .used_us = 250000, .throttled = 1, .alloc_us = 25000 };
	ucg_v2_split_quota(50000, 100000, 1000000, l, 2);
	T_EQ_INT(l[0].next_us, 25000);
	T_EQ_INT(l[1].next_us, 25000);
	/* the second goes idle: the first gets all but the minimum */
	l[0] = (struct ucg_v2_split_leaf){ .used_us = 250000, .throttled = 1, .alloc_us = 25000 };
	l[1] = (struct ucg_v2_split_leaf){ .used_us = 0, .throttled = 0, .alloc_us = 25000 };
	ucg_v2_split_quota(50000, 100000, 1000000, l, 2);
	T_EQ_INT(l[0].next_us, 49000);
	T_EQ_INT(l[1].next_us, 1000);
	/* it wakes and is throttled at once: even again at the next split */
	a0 = l[0].next_us;
	a1 = l[1].next_us;
	l[0] = (struct ucg_v2_split_leaf){ .used_us = a0 * 10, .throttled = 1, .alloc_us = a0 };
	l[1] = (struct ucg_v2_split_leaf){ .used_us = a1 * 10, .throttled = 1, .alloc_us = a1 };
	ucg_v2_split_quota(50000, 100000, 1000000, l, 2);
	T_EQ_INT(l[0].next_us, 25000);
	T_EQ_INT(l[1].next_us, 25000);
	/* a light leaf keeps what it uses and a quarter more; the rest to the busy one */
	l[0] = (struct ucg_v2_split_leaf){ .used_us = 250000, .throttled = 1, .alloc_us = 25000 };
	l[1] = (struct ucg_v2_split_leaf){ .used_us = 80000,
					   .throttled = 0,
					   .alloc_us = 25000 }; /* 8 ms per period */
	ucg_v2_split_quota(50000, 100000, 1000000, l, 2);
	T_EQ_INT(l[1].next_us, 10001);
	T_EQ_INT(l[0].next_us, 39999);
	/* nobody busy: each keeps its use and a quarter, the rest spread evenly */
	l[0] = (struct ucg_v2_split_leaf){ .used_us = 0, .throttled = 0, .alloc_us = 40000 };
	l[1] = (struct ucg_v2_split_leaf){ .used_us = 0, .throttled = 0, .alloc_us = 10000 };
	ucg_v2_split_quota(50000, 100000, 1000000, l, 2);
	T_EQ_INT(l[0].next_us, 25000);
	T_EQ_INT(l[1].next_us, 25000);
	/* a quota below one minimum each: every leaf gets the minimum */
	memset(l, 0, sizeof(l));
	ucg_v2_split_quota(2000, 100000, 1000000, l, 3);
	T_EQ_INT(l[0].next_us + l[1].next_us + l[2].next_us, 3000);
	/* three: one idle, one light, one busy; the parts add up to the quota */
	l[0] = (struct ucg_v2_split_leaf){ .used_us = 0, .throttled = 0, .alloc_us = 30000 };
	l[1] = (struct ucg_v2_split_leaf){ .used_us = 160000, .throttled = 0, .alloc_us = 30000 };
	l[2] = (struct ucg_v2_split_leaf){ .used_us = 300000, .throttled = 1, .alloc_us = 30000 };
	ucg_v2_split_quota(90000, 100000, 1000000, l, 3);
	T_EQ_INT(l[0].next_us, 1000);
	T_EQ_INT(l[1].next_us, 20001);
	T_EQ_INT(l[0].next_us + l[1].next_us + l[2].next_us, 90000);
}

/* A weight carried by the parts of a divergent layout: in proportion to demand. */
static void test_split_weight(void)
{
	struct ucg_v2_weight_part p[3];

	/* no demand yet: equal parts (100 over 2, 174 over 3 rounded) */
	memset(p, 0, sizeof(p));
	ucg_v2_split_weight(100, p, 2);
	T_EQ_INT(p[0].weight, 50);
	T_EQ_INT(p[1].weight, 50);
	ucg_v2_split_weight(174, p, 3);
	T_EQ_INT(p[0].weight, 58);
	T_EQ_INT(p[2].weight, 58);
	/* runnable 1 s and 0.5 s: two thirds and one third of the weight */
	p[0] = (struct ucg_v2_weight_part){ .demand_us = 1000000 };
	p[1] = (struct ucg_v2_weight_part){ .demand_us = 500000 };
	ucg_v2_split_weight(300, p, 2);
	T_EQ_INT(p[0].weight, 200);
	T_EQ_INT(p[1].weight, 100);
	/* an idle part keeps the kernel's least weight; the busy one has it all */
	p[0] = (struct ucg_v2_weight_part){ .demand_us = 1000000 };
	p[1] = (struct ucg_v2_weight_part){ .demand_us = 0 };
	ucg_v2_split_weight(100, p, 2);
	T_EQ_INT(p[0].weight, 100);
	T_EQ_INT(p[1].weight, 1);
	/* a weight too small to divide: each part at least 1 (over-grants) */
	p[0] = (struct ucg_v2_weight_part){ .demand_us = 1000 };
	p[1] = (struct ucg_v2_weight_part){ .demand_us = 1000 };
	p[2] = (struct ucg_v2_weight_part){ .demand_us = 1000 };
	ucg_v2_split_weight(1, p, 3);
	T_EQ_INT(p[0].weight + p[1].weight + p[2].weight, 3);
	/* the largest weight is not exceeded, even by one part */
	p[0] = (struct ucg_v2_weight_part){ .demand_us = 5 };
	ucg_v2_split_weight(20000, p, 1);
	T_EQ_INT(p[0].weight, 10000);
	/* weight -> the kernel's shares for it */
	T_EQ_INT(ucg_v2_weight_shares(100), 1024);
	T_EQ_INT(ucg_v2_weight_shares(50), 512);
	T_EQ_INT(ucg_v2_weight_shares(1), 10);
	T_EQ_INT(ucg_v2_weight_shares(0), 0);
}

/* host/v2sum.c: two leaves' files summed, keys in first-seen order */
static void test_sum(void)
{
	struct ucg_buf acc;

	T_EQ_INT(ucg_v2sum_additive("cpu.stat"), 1);
	T_EQ_INT(ucg_v2sum_additive("hugetlb.2MB.current"), 1);
	T_EQ_INT(ucg_v2sum_additive("pids.events"), 1);
	T_EQ_INT(ucg_v2sum_additive("memory.max"), 0);
	T_EQ_INT(ucg_v2sum_additive("memory.peak"), 0);
	T_EQ_INT(ucg_v2sum_additive("cpuset.cpus.effective"), 0);

	ucg_buf_init(&acc);
	T_EQ_INT(ucg_v2sum_add("cpu.stat", "usage_usec 10\nnr_periods 3\nnr_throttled 1\n", &acc),
		 0);
	T_EQ_INT(ucg_v2sum_add("cpu.stat",
			       "usage_usec 5\nnr_periods 4\nnr_throttled 2\nnr_bursts 0\n", &acc),
		 0);
	T_EQ_STR(acc.data, "usage_usec 15\nnr_periods 7\nnr_throttled 3\nnr_bursts 0\n");
	/* a line that does not parse leaves the sum as it was */
	T_EQ_INT(ucg_v2sum_add("cpu.stat", "usage_usec x\n", &acc), -EINVAL);
	T_EQ_STR(acc.data, "usage_usec 15\nnr_periods 7\nnr_throttled 3\nnr_bursts 0\n");
	ucg_buf_fini(&acc);

	ucg_buf_init(&acc);
	T_EQ_INT(ucg_v2sum_add("pids.current", "3\n", &acc), 0);
	T_EQ_INT(ucg_v2sum_add("pids.current", "4\n", &acc), 0);
	T_EQ_STR(acc.data, "7\n");
	ucg_buf_fini(&acc);

	/* io.stat: by device, then key; a device only one leaf used keeps its line */
	ucg_buf_init(&acc);
	T_EQ_INT(ucg_v2sum_add("io.stat", "8:0 rbytes=10 wbytes=20 rios=1 wios=2\n", &acc), 0);
	T_EQ_INT(ucg_v2sum_add("io.stat",
			       "254:0 rbytes=1 wbytes=0 rios=1 wios=0\n8:0 rbytes=5 wbytes=0 "
			       "rios=1 wios=0\n",
			       &acc),
		 0);
	T_EQ_STR(acc.data,
		 "8:0 rbytes=15 wbytes=20 rios=2 wios=2\n254:0 rbytes=1 wbytes=0 rios=1 wios=0\n");
	ucg_buf_fini(&acc);

	/* an empty file (a leaf with no io yet) adds nothing */
	ucg_buf_init(&acc);
	T_EQ_INT(ucg_v2sum_add("io.stat", "", &acc), 0);
	T_EQ_STR(acc.data, "");
	ucg_buf_fini(&acc);
}

int main(void)
{
	T_RUN(test_cpu_weight_curve);
	T_RUN(test_memory);
	T_RUN(test_cpu);
	T_RUN(test_blkio_pids_freezer_cpuset_hugetlb);
	T_RUN(test_stat_memory);
	T_RUN(test_stat_cpu_io_misc);
	T_RUN(test_stat_hybrid_and_errors);
	T_RUN(test_undo_value);
	T_RUN(test_split_quota);
	T_RUN(test_split_weight);
	T_RUN(test_sum);
	return t_done();
}
