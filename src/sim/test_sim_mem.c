/* sim/test_sim_mem.c — the memory model driving the memory controller: anon and
 * page-cache charges land in the right cgroup and agree with memory.usage_in_bytes;
 * a limit makes the controller reclaim clean page cache (failcnt counts it) and the
 * model drops the same pages; past the limit with only anon left the largest task is
 * OOM-killed; oom_kill_disable refuses instead; global pressure evicts page cache. */
#include "sim/test_sim.h"

static uint64_t engine_u64(struct sim *s, const char *hname, const char *file)
{
	struct sim_hier *h = sim_hier_by_name(s, hname);
	struct ucg_buf b;
	uint64_t v = UINT64_MAX;

	ucg_buf_init(&b);
	if (h && ucg_fs_read_all(s->e, h->h, file, &s->root_cred, &b) == 0 && b.data)
		v = strtoull(b.data, NULL, 10);
	ucg_buf_fini(&b);
	return v;
}

static void test_anon_charge_and_refund(void)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run("mount -o memory mem\nmkdir mem/a\nspawn x\necho $x > mem/a/cgroup.procs\n"
			       "alloc x 10M\nrun 1s\nfree x 4M\nrun 1s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_EQ_INT(ts_cg(s, "mem", "/a")->mem_pages, 6 * 256);
	T_EQ_INT(ts_cg(s, "mem", "/a")->mem_peak, 10 * 256);
	T_EQ_INT(engine_u64(s, "mem", "/a/memory.usage_in_bytes"), 6ull << 20);
	T_EQ_INT(engine_u64(s, "mem", "/a/memory.max_usage_in_bytes"), 10ull << 20);
	sim_free(s);
}

static void test_limit_reclaim_then_oom(void)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run(
		"mount -o memory mem\nmkdir mem/a\necho 64M > mem/a/memory.limit_in_bytes\n"
		"device sda 8:0 bps=1G\nfile f dev=sda\n"
		"spawn x\nspawn y\necho $x > mem/a/cgroup.procs\necho $y > mem/a/cgroup.procs\n"
		"alloc x 16M\nread y f 40M\nrun 1s\n"
		/* 16M anon + 40M cache = 56M: fits. 24M more anon: the controller reclaims
		 * 16M of clean cache and the charge fits (one failure counted). */
		"alloc x 24M\nrun 1s\n"
		/* 40M anon + 24M cache; 60M more anon cannot fit even with all the cache
		 * gone: x, the largest, is killed. */
		"alloc y 60M\nrun 1s\n",
		0, SIM_CHARGING_KERNEL, &r, &err);
	struct sim_cg *a = ts_cg(s, "mem", "/a");

	T_EQ_INT(r, 0);
	T_CHECK(engine_u64(s, "mem", "/a/memory.failcnt") >= 2);
	T_EQ_INT(a->oom_kills, 1);
	T_CHECK(!sim_task_by_name(s, "x")->alive);
	T_CHECK(sim_task_by_name(s, "y")->alive);
	/* the model and the controller agree page for page */
	T_EQ_INT((uint64_t)a->mem_pages * SIM_PAGE, engine_u64(s, "mem", "/a/memory.usage_in_bytes"));
	T_EQ_INT(a->mem_pages, 60 * 256);
	T_EQ_INT(a->cache_local, 0);
	T_CHECK(strstr(sim_log(s), "oom-kill: x (tid 100") != NULL);
	sim_free(s);
}

static void test_oom_kill_disable(void)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run(
		"mount -o memory mem\nmkdir mem/a\necho 8M > mem/a/memory.limit_in_bytes\n"
		"echo 1 > mem/a/memory.oom_control\n"
		"spawn x\necho $x > mem/a/cgroup.procs\nalloc x 6M\nalloc x 6M\nrun 1s\n",
		0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_CHECK(sim_task_by_name(s, "x")->alive);
	T_EQ_INT(ts_cg(s, "mem", "/a")->mem_pages, 6 * 256);
	T_EQ_INT(ts_cg(s, "mem", "/a")->oom_kills, 0);
	T_EQ_INT(ts_cg(s, "mem", "/a")->mem_refused, 1);
	T_CHECK(strstr(sim_log(s), "waits under OOM") != NULL);
	sim_free(s);
}

static void test_global_pressure(void)
{
	struct sim_err err;
	int r;
	/* 64M machine: 40M of cache, then 40M anon: 16M of cache is evicted; then 30M
	 * more anon cannot fit at all: the largest task goes. */
	struct sim *s = ts_run("memory 64M\ndevice sda 8:0 bps=1G\nfile f dev=sda\n"
			       "spawn x\nspawn y\nread y f 40M\nrun 1s\nalloc x 40M\nrun 1s\n"
			       "alloc y 30M\nrun 1s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_EQ_INT(s->global_oom_kills, 1);
	T_CHECK(!sim_task_by_name(s, "x")->alive);
	T_EQ_INT(s->anon_used, 30 * 256);
	T_CHECK(s->anon_used + s->cache_used <= s->mem_pages);
	sim_free(s);
}

static void test_soft_limit_under_pressure(void)
{
	struct sim_err err;
	int r;
	/* 64M machine; A (soft limit 8M) and B each cache 24M; a root task then needs
	 * 30M: the 14M evicted all come from A, the cgroup above its soft limit. */
	struct sim *s = ts_run("memory 64M\ndevice sda 8:0 bps=1G\nfile fa dev=sda\nfile fb dev=sda\n"
			       "mount -o memory mem\nmkdir mem/A\nmkdir mem/B\n"
			       "echo 8M > mem/A/memory.soft_limit_in_bytes\n"
			       "spawn a\nspawn b\nspawn c\necho $a > mem/A/cgroup.procs\n"
			       "echo $b > mem/B/cgroup.procs\nread a fa 24M\nread b fb 24M\nrun 1s\n"
			       "alloc c 30M\nrun 1s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_EQ_INT(ts_cg(s, "mem", "/B")->mem_pages, 24 * 256);
	T_EQ_INT(ts_cg(s, "mem", "/A")->mem_pages, 10 * 256);
	T_EQ_INT(engine_u64(s, "mem", "/A/memory.usage_in_bytes"), 10ull << 20);
	T_EQ_INT(s->global_oom_kills, 0);
	sim_free(s);
}

static void test_hugetlb(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("hugetlb", "/hugetlb.2MB.limit_in_bytes"))
		T_SKIP("hugetlb files not served");
	s = ts_run("mount -o hugetlb ht\nmkdir ht/a\necho 8M > ht/a/hugetlb.2MB.limit_in_bytes\n"
		   "spawn x\nspawn y\necho $x > ht/a/cgroup.procs\necho $y > ht/a/cgroup.procs\n"
		   "hugetlb x 3\nhugetlb y 2\nrun 1s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_EQ_INT(sim_task_by_name(s, "x")->huge_pages, 3);
	T_CHECK(!sim_task_by_name(s, "y")->alive); /* SIGBUS */
	T_EQ_INT(engine_u64(s, "ht", "/a/hugetlb.2MB.usage_in_bytes"), 6ull << 20);
	sim_free(s);
}

int main(void)
{
	T_RUN(test_anon_charge_and_refund);
	T_RUN(test_limit_reclaim_then_oom);
	T_RUN(test_oom_kill_disable);
	T_RUN(test_global_pressure);
	T_RUN(test_soft_limit_under_pressure);
	T_RUN(test_hugetlb);
	return t_done();
}
