/* controllers/test_memory.c — the memory controller through the file API and the
 * charging API (docs/kernel/controllers.md §4). */
#include "controllers/charge.h"
#include "test_fixture.h"

#define MEMMAX "9223372036854771712\n"

FX_ONE_MOUNT("memory")

static int charge(const char *path, enum ucg_mem_kind k, uint64_t pages)
{
	return ucg_memory_charge(fx_cg(h, path), k, pages, NULL);
}

static void test_files_modes_defaults(void)
{
	static const struct {
		const char *name;
		unsigned mode;
		const char *content;
	} files[] = {
		{ "memory.usage_in_bytes", 0444, "0\n" },
		{ "memory.max_usage_in_bytes", 0644, "0\n" },
		{ "memory.limit_in_bytes", 0644, MEMMAX },
		{ "memory.soft_limit_in_bytes", 0644, MEMMAX },
		{ "memory.failcnt", 0644, "0\n" },
		{ "memory.memsw.usage_in_bytes", 0444, "0\n" },
		{ "memory.memsw.max_usage_in_bytes", 0644, "0\n" },
		{ "memory.memsw.limit_in_bytes", 0644, MEMMAX },
		{ "memory.memsw.failcnt", 0644, "0\n" },
		{ "memory.kmem.usage_in_bytes", 0444, "0\n" },
		{ "memory.kmem.limit_in_bytes", 0644, MEMMAX },
		{ "memory.kmem.max_usage_in_bytes", 0644, "0\n" },
		{ "memory.kmem.failcnt", 0644, "0\n" },
		{ "memory.kmem.slabinfo", 0444, "" },
		{ "memory.kmem.tcp.usage_in_bytes", 0444, "0\n" },
		{ "memory.kmem.tcp.limit_in_bytes", 0644, MEMMAX },
		{ "memory.kmem.tcp.max_usage_in_bytes", 0644, "0\n" },
		{ "memory.kmem.tcp.failcnt", 0644, "0\n" },
		{ "memory.force_empty", 0200, "<errno 22>" },
		{ "memory.use_hierarchy", 0644, "1\n" },
		{ "memory.swappiness", 0644, "60\n" },
		{ "memory.move_charge_at_immigrate", 0644, "0\n" },
		{ "memory.oom_control", 0644, "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n" },
		{ "memory.pressure_level", 0444, "<errno 22>" },
		{ "memory.numa_stat", 0444,
		  "total=0 N0=0\nfile=0 N0=0\nanon=0 N0=0\nunevictable=0 N0=0\n"
		  "hierarchical_total=0 N0=0\nhierarchical_file=0 N0=0\nhierarchical_anon=0 N0=0\n"
		  "hierarchical_unevictable=0 N0=0\n" },
	};
	struct ucg_cred root = ucg_cred_root();
	char path[128];
	size_t i;
	int d;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (d = 0; d < 2; d++) {
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			struct ucg_stat st;

			snprintf(path, sizeof(path), "%s/%s", d ? "/a" : "", files[i].name);
			T_EQ_INT(ucg_fs_getattr(e, h, path, &root, &st), 0);
			if ((st.mode & 07777) != files[i].mode)
				T_FAIL_AT("%s mode %o", path, st.mode & 07777);
			T_EQ_STR(rd(path), files[i].content);
		}
	}
	T_EQ_STR(rd("/a/memory.stat"),
		 "cache 0\nrss 0\nrss_huge 0\nshmem 0\nmapped_file 0\ndirty 0\nwriteback 0\n"
		 "workingset_refault_anon 0\nworkingset_refault_file 0\nswap 0\nswapcached 0\n"
		 "pgpgin 0\npgpgout 0\npgfault 0\npgmajfault 0\ninactive_anon 0\nactive_anon 0\n"
		 "inactive_file 0\nactive_file 0\nunevictable 0\n"
		 "hierarchical_memory_limit 9223372036854771712\n"
		 "hierarchical_memsw_limit 9223372036854771712\n"
		 "total_cache 0\ntotal_rss 0\ntotal_rss_huge 0\ntotal_shmem 0\ntotal_mapped_file 0\n"
		 "total_dirty 0\ntotal_writeback 0\ntotal_workingset_refault_anon 0\n"
		 "total_workingset_refault_file 0\ntotal_swap 0\ntotal_swapcached 0\n"
		 "total_pgpgin 0\ntotal_pgpgout 0\ntotal_pgfault 0\ntotal_pgmajfault 0\n"
		 "total_inactive_anon 0\ntotal_active_anon 0\ntotal_inactive_file 0\n"
		 "total_active_file 0\ntotal_unevictable 0\n");
	/* read-only files refuse root's writes with EINVAL */
	T_EQ_INT(wr("/a/memory.usage_in_bytes", "0"), -EINVAL);
	T_EQ_INT(wr("/a/memory.stat", "0"), -EINVAL);
	T_EQ_INT(wr("/a/memory.pressure_level", "low"), -EINVAL);
	teardown();
}

static void test_mem_parsing(void)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "4096", "4096\n" },
		{ "4097", "4096\n" },
		{ "1", "0\n" },
		{ "1k", "0\n" },
		{ "100M", "104857600\n" },
		{ "100m", "104857600\n" },
		{ "1G", "1073741824\n" },
		{ "1t", "1099511627776\n" },
		{ "2E", "2305843009213693952\n" },
		{ "16E", "0\n" },
		{ "0x1000", "4096\n" },
		{ "010000", "4096\n" },
		{ " 10", "0\n" },
		{ "-1", MEMMAX },
		{ "9223372036854775807", MEMMAX },
		{ "18446744073709551615", MEMMAX },
		{ "18446744073709551616", "0\n" },
		{ "\n", "0\n" },
	};
	static const char *const bad[] = { "-2", "abc", "1.5M", "max", "10x" };
	size_t i;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		T_EQ_INT(wr("/a/memory.limit_in_bytes", "-1"), 0);
		T_EQ_INT(wr("/a/memory.limit_in_bytes", t[i].in), 0);
		T_EQ_STR(rd("/a/memory.limit_in_bytes"), t[i].out);
	}
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "8192"), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_EQ_INT(wr("/a/memory.limit_in_bytes", bad[i]), -EINVAL);
		T_EQ_INT(wr("/a/memory.soft_limit_in_bytes", bad[i]), -EINVAL);
		T_EQ_INT(wr("/a/memory.kmem.limit_in_bytes", bad[i]), -EINVAL);
	}
	T_EQ_STR(rd("/a/memory.limit_in_bytes"), "8192\n");
	T_EQ_INT(wr("/a/memory.soft_limit_in_bytes", "4097"), 0);
	T_EQ_STR(rd("/a/memory.soft_limit_in_bytes"), "4096\n");
	teardown();
}

static void test_root_writes(void)
{
	setup();
	T_EQ_INT(wr("/memory.limit_in_bytes", "100M"), -EINVAL);
	T_EQ_INT(wr("/memory.memsw.limit_in_bytes", "100M"), -EINVAL);
	T_EQ_INT(wr("/memory.kmem.limit_in_bytes", "100M"), -EINVAL);
	T_EQ_INT(wr("/memory.kmem.tcp.limit_in_bytes", "100M"), -EINVAL);
	T_EQ_INT(wr("/memory.oom_control", "1"), -EINVAL);
	T_EQ_INT(wr("/memory.oom_control", "0"), -EINVAL);
	T_EQ_INT(wr("/memory.force_empty", "1"), -EINVAL);
	T_EQ_INT(wr("/memory.soft_limit_in_bytes", "100M"), 0);
	T_EQ_STR(rd("/memory.soft_limit_in_bytes"), "104857600\n");
	T_EQ_INT(wr("/memory.swappiness", "10"), 0);
	T_EQ_STR(rd("/memory.swappiness"), "10\n");
	T_EQ_STR(rd("/memory.limit_in_bytes"), MEMMAX);
	teardown();
}

static void test_memsw_rule(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "100M"), -EINVAL);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "50M"), 0);
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "40M"), -EINVAL);
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "50M"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "60M"), -EINVAL);
	T_EQ_STR(rd("/a/memory.limit_in_bytes"), "52428800\n");
	/* raise memsw first, then memory; lower memory first, then memsw */
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "80M"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "80M"), 0);
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "0"), -EINVAL);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "10M"), 0);
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "10M"), 0);
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "-1"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "-1"), 0);
	T_EQ_STR(rd("/a/memory.memsw.limit_in_bytes"), MEMMAX);
	teardown();
}

static void test_limit_below_usage(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	/* 50 MiB anonymous: 10M gives EBUSY and the limit stays */
	T_EQ_INT(charge("/a/b", UCG_MEM_ANON, 12800), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "10M"), -EBUSY);
	T_EQ_STR(rd("/a/memory.limit_in_bytes"), MEMMAX);
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 12800), 0);
	/* 40 MiB clean page cache: 5M reclaims down to the limit */
	T_EQ_INT(charge("/a/b", UCG_MEM_FILE, 10240), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "5M"), 0);
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "5242880\n");
	T_EQ_STR(rd("/a/b/memory.usage_in_bytes"), "5242880\n");
	/* limit 0 only when empty */
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "0"), 0);
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "0\n");
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "-1"), 0);
	T_EQ_INT(charge("/a/b", UCG_MEM_SHMEM, 1), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "0"), -EBUSY);
	teardown();
}

static void test_charge_hierarchy_failcnt(void)
{
	struct ucg_charge_result res;
	struct ucg_buf path;

	setup();
	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(wr("/p/c/cgroup.procs", "100"), 0);
	T_EQ_INT(wr("/p/memory.limit_in_bytes", "1M"), 0); /* 256 pages */
	T_EQ_INT(wr("/p/c/memory.limit_in_bytes", "2M"), 0); /* above the parent's: allowed */
	T_EQ_INT(ucg_memory_charge(fx_task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 200, NULL), 0);
	T_EQ_STR(rd("/p/memory.usage_in_bytes"), "819200\n");
	T_EQ_STR(rd("/p/c/memory.usage_in_bytes"), "819200\n");
	T_EQ_STR(rd("/p/memory.memsw.usage_in_bytes"), "819200\n");
	T_EQ_STR(rd("/memory.usage_in_bytes"), "819200\n");
	ucg_buf_init(&path);
	memset(&res, 0, sizeof(res));
	res.path = &path;
	T_EQ_INT(ucg_memory_charge(fx_task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 100, &res), -ENOMEM);
	T_EQ_STR(path.data, "/p");
	T_EQ_INT(res.hierarchy_id, ucg_hierarchy_id(h));
	T_CHECK(res.cgroup == fx_cg(h, "/p"));
	T_EQ_INT(res.oom_kill_disable, 0);
	T_EQ_STR(rd("/p/memory.failcnt"), "1\n");
	T_EQ_STR(rd("/p/c/memory.failcnt"), "0\n");
	T_EQ_STR(rd("/p/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
	T_EQ_STR(rd("/p/c/memory.usage_in_bytes"), "819200\n"); /* rolled back */
	/* the child's level was charged before the parent refused: its watermark keeps
	 * the peak, as in the kernel's page counter */
	T_EQ_STR(rd("/p/c/memory.max_usage_in_bytes"), "1228800\n");
	/* the child's own limit refuses */
	T_EQ_INT(wr("/p/c/memory.limit_in_bytes", "800K"), 0);
	T_EQ_INT(ucg_memory_charge(fx_task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 1, NULL), -ENOMEM);
	T_EQ_STR(rd("/p/c/memory.failcnt"), "1\n");
	/* failcnt: any bytes reset it */
	T_EQ_INT(wr("/p/memory.failcnt", "xyz"), 0);
	T_EQ_STR(rd("/p/memory.failcnt"), "0\n");
	/* max_usage: any bytes set it to the current usage */
	T_EQ_INT(ucg_memory_uncharge(fx_task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 100), 0);
	T_EQ_STR(rd("/p/memory.max_usage_in_bytes"), "819200\n");
	T_EQ_INT(wr("/p/memory.max_usage_in_bytes", "abc"), 0);
	T_EQ_STR(rd("/p/memory.max_usage_in_bytes"), "409600\n");
	T_EQ_INT(ucg_memory_uncharge(fx_task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 101), -ERANGE);
	T_EQ_INT(fx_task_cg_err(e, 999, UCG_SS_memory), -ESRCH);
	ucg_buf_fini(&path);
	teardown();
}

static void test_memsw_failcnt_first(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "40K"), 0);
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "40K"), 0);
	T_EQ_INT(charge("/a", UCG_MEM_ANON, 11), -ENOMEM);
	/* memsw refused; 6.18 counts no failure there (nor in memory.failcnt) */
	T_EQ_STR(rd("/a/memory.memsw.failcnt"), "0\n");
	T_EQ_STR(rd("/a/memory.failcnt"), "0\n");
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "80K"), 0);
	T_EQ_INT(charge("/a", UCG_MEM_ANON, 11), -ENOMEM);
	T_EQ_STR(rd("/a/memory.failcnt"), "1\n");
	T_EQ_STR(rd("/a/memory.memsw.usage_in_bytes"), "0\n");
	teardown();
}

/* The one-attempt API: a failure per attempt, nothing charged on refusal; margin; OOM
 * bookkeeping; swap moves pages out of memory but not out of memsw. */
static void test_try_charge_attempts_and_swap(void)
{
	struct ucg_charge_result res;
	struct ucg_buf path;
	uint64_t margin = 0;
	int i;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "400K"), 0);        /* 100 pages */
	T_EQ_INT(wr("/a/memory.memsw.limit_in_bytes", "800K"), 0);  /* 200 pages */
	T_EQ_INT(ucg_memory_try_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 90, NULL), 0);
	T_EQ_INT(ucg_memory_margin(fx_cg(h, "/a/b"), &margin), 0);
	T_EQ_INT(margin, 10);
	/* the kernel's first try: a batch of 64 (refused), then the exact size (fits) */
	ucg_buf_init(&path);
	memset(&res, 0, sizeof(res));
	res.path = &path;
	T_EQ_INT(ucg_memory_try_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 64, &res), -ENOMEM);
	T_EQ_STR(path.data, "/a");
	T_CHECK(res.cgroup == fx_cg(h, "/a"));
	T_EQ_INT(res.memsw, 0);
	T_EQ_INT(ucg_memory_try_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 10, NULL), 0);
	/* nineteen refused attempts: nineteen failures, usage unchanged */
	for (i = 0; i < 19; i++)
		T_EQ_INT(ucg_memory_try_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), -ENOMEM);
	T_EQ_STR(rd("/a/memory.failcnt"), "20\n");
	T_EQ_STR(rd("/a/b/memory.failcnt"), "0\n");
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "409600\n");
	/* swap 40 pages out: memory 60 pages, memsw still 100, stat swap 40 */
	T_EQ_INT(ucg_memory_swap_out(fx_cg(h, "/a/b"), 40), 0);
	T_EQ_INT(ucg_memory_swap_out(fx_cg(h, "/a/b"), 61), -ERANGE);
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "245760\n");
	T_EQ_STR(rd("/a/memory.memsw.usage_in_bytes"), "409600\n");
	T_CHECK(strstr(rd("/a/b/memory.stat"), "\nswap 163840\n") != NULL);
	T_CHECK(strstr(rd("/a/b/memory.stat"), "\nrss 245760\n") != NULL);
	T_EQ_INT(ucg_memory_margin(fx_cg(h, "/a/b"), &margin), 0);
	T_EQ_INT(margin, 40);
	/* memsw (checked first) refuses 101 pages: flagged, no failure counted anywhere */
	memset(&res, 0, sizeof(res));
	T_EQ_INT(ucg_memory_try_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 101, &res), -ENOMEM);
	T_EQ_INT(res.memsw, 1);
	T_EQ_STR(rd("/a/memory.failcnt"), "20\n");
	T_EQ_STR(rd("/a/memory.memsw.failcnt"), "0\n");
	/* freeing swapped pages uncharges memsw only */
	T_EQ_INT(ucg_memory_swap_free(fx_cg(h, "/a/b"), 40), 0);
	T_EQ_INT(ucg_memory_swap_free(fx_cg(h, "/a/b"), 1), -ERANGE);
	T_EQ_STR(rd("/a/memory.memsw.usage_in_bytes"), "245760\n");
	/* OOM bookkeeping: a kill counted, or under_oom with oom_kill_disable */
	T_EQ_INT(ucg_memory_oom(fx_cg(h, "/a")), 0);
	T_EQ_INT(wr("/a/memory.oom_control", "1"), 0);
	T_EQ_INT(ucg_memory_oom(fx_cg(h, "/a")), 1);
	T_EQ_STR(rd("/a/memory.oom_control"), "oom_kill_disable 1\nunder_oom 1\noom_kill 1\n");
	ucg_buf_fini(&path);
	teardown();
}

static void test_reclaim_on_charge(void)
{
	struct ucg_charge_result res;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/x"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/y"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "400K"), 0); /* 100 pages */
	T_EQ_INT(charge("/a/x", UCG_MEM_FILE, 60), 0);
	T_EQ_INT(charge("/a/y", UCG_MEM_ANON, 30), 0);
	memset(&res, 0, sizeof(res));
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/y"), UCG_MEM_ANON, 30, &res), 0);
	T_EQ_INT(res.reclaimed, 20);
	T_EQ_STR(rd("/a/memory.failcnt"), "1\n");
	T_EQ_STR(rd("/a/x/memory.usage_in_bytes"), "163840\n");
	/* anon cannot be reclaimed: the charge fails after reclaiming all cache */
	memset(&res, 0, sizeof(res));
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/y"), UCG_MEM_ANON, 50, &res), -ENOMEM);
	T_EQ_INT(res.reclaimed, 40);
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "245760\n");
	teardown();
}

static void test_oom_control(void)
{
	struct ucg_charge_result res;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(wr("/a/memory.oom_control", " 1"), -EINVAL);
	T_EQ_INT(wr("/a/memory.oom_control", "2"), -EINVAL);
	T_EQ_INT(wr("/a/memory.oom_control", "1\n"), 0);
	T_EQ_STR(rd("/a/memory.oom_control"), "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n");
	/* inherited at mkdir */
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_STR(rd("/a/b/memory.oom_control"), "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n");
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "8K"), 0);
	T_EQ_INT(charge("/a/b", UCG_MEM_ANON, 2), 0);
	memset(&res, 0, sizeof(res));
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, &res), -ENOMEM);
	T_EQ_INT(res.oom_kill_disable, 1);
	T_EQ_STR(rd("/a/memory.oom_control"), "oom_kill_disable 1\nunder_oom 1\noom_kill 0\n");
	/* raising the limit releases the waiter */
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "100K"), 0);
	T_EQ_STR(rd("/a/memory.oom_control"), "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n");
	T_EQ_INT(charge("/a/b", UCG_MEM_ANON, 1), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "12K"), 0);
	T_EQ_INT(charge("/a/b", UCG_MEM_ANON, 1), -ENOMEM);
	T_EQ_STR(rd("/a/memory.oom_control"), "oom_kill_disable 1\nunder_oom 1\noom_kill 0\n");
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1), 0);
	T_EQ_STR(rd("/a/memory.oom_control"), "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n");
	teardown();
}

static void test_u64_files(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(wr("/a/memory.swappiness", "201"), -EINVAL);
	T_EQ_INT(wr("/a/memory.swappiness", " 5"), -EINVAL);
	T_EQ_INT(wr("/a/memory.swappiness", "200"), 0);
	T_EQ_INT(wr("/a/memory.swappiness", "0x10"), 0);
	T_EQ_STR(rd("/a/memory.swappiness"), "16\n");
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_STR(rd("/a/b/memory.swappiness"), "16\n"); /* the parent's value */
	/* the soft limit and the limits are not inherited */
	T_EQ_INT(wr("/a/memory.soft_limit_in_bytes", "1M"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "1M"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/c"), 0);
	T_EQ_STR(rd("/a/c/memory.soft_limit_in_bytes"), MEMMAX);
	T_EQ_STR(rd("/a/c/memory.limit_in_bytes"), MEMMAX);
	/* the root's value (the global one) is inherited too */
	T_EQ_INT(wr("/memory.swappiness", "33"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/d"), 0);
	T_EQ_STR(rd("/d/memory.swappiness"), "33\n");
	T_EQ_INT(wr("/a/memory.use_hierarchy", "0"), -EINVAL);
	T_EQ_INT(wr("/a/memory.use_hierarchy", "2"), -EINVAL);
	T_EQ_INT(wr("/a/memory.use_hierarchy", "abc"), -EINVAL);
	T_EQ_INT(wr("/a/memory.use_hierarchy", "1\n"), 0);
	T_EQ_STR(rd("/a/memory.use_hierarchy"), "1\n");
	T_EQ_INT(wr("/a/memory.move_charge_at_immigrate", "0"), 0);
	T_EQ_INT(wr("/a/memory.move_charge_at_immigrate", "1"), -EINVAL);
	T_EQ_INT(wr("/a/memory.move_charge_at_immigrate", "4"), -EINVAL);
	T_EQ_INT(wr("/a/memory.move_charge_at_immigrate", "-1"), -EINVAL);
	teardown();
}

static void test_kmem_tcp(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(wr("/a/memory.kmem.limit_in_bytes", "10M"), 0);
	T_EQ_STR(rd("/a/memory.kmem.limit_in_bytes"), MEMMAX);
	T_EQ_INT(wr("/a/memory.kmem.tcp.limit_in_bytes", "10M"), 0);
	T_EQ_STR(rd("/a/memory.kmem.tcp.limit_in_bytes"), "10485760\n");
	T_EQ_INT(wr("/a/memory.kmem.tcp.limit_in_bytes", "-1"), 0);
	T_EQ_STR(rd("/a/memory.kmem.tcp.limit_in_bytes"), MEMMAX);
	T_EQ_INT(charge("/a", UCG_MEM_KERNEL, 3), 0);
	T_EQ_STR(rd("/a/memory.kmem.usage_in_bytes"), "12288\n");
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "12288\n");
	T_EQ_STR(rd("/a/memory.kmem.max_usage_in_bytes"), "12288\n");
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a"), UCG_MEM_KERNEL, 3), 0);
	T_EQ_INT(wr("/a/memory.kmem.max_usage_in_bytes", "x"), 0);
	T_EQ_STR(rd("/a/memory.kmem.max_usage_in_bytes"), "0\n");
	teardown();
}

static void test_stat_totals(void)
{
	setup();
	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(wr("/a/memory.limit_in_bytes", "1G"), 0);
	T_EQ_INT(wr("/a/b/memory.limit_in_bytes", "2G"), 0);
	T_EQ_INT(charge("/a", UCG_MEM_ANON, 2), 0);
	T_EQ_INT(charge("/a/b", UCG_MEM_FILE, 3), 0);
	T_EQ_INT(charge("/a/b", UCG_MEM_SHMEM, 1), 0);
	T_EQ_INT(wr("/a/b/cgroup.procs", "100"), 0);
	T_EQ_INT(ucg_memory_count_fault(fx_task_cg(e, 100, UCG_SS_memory), true), 0);
	T_EQ_STR(rd("/a/memory.stat"),
		 "cache 0\nrss 8192\nrss_huge 0\nshmem 0\nmapped_file 0\ndirty 0\nwriteback 0\n"
		 "workingset_refault_anon 0\nworkingset_refault_file 0\nswap 0\nswapcached 0\n"
		 "pgpgin 2\npgpgout 0\npgfault 0\npgmajfault 0\ninactive_anon 8192\nactive_anon 0\n"
		 "inactive_file 0\nactive_file 0\nunevictable 0\n"
		 "hierarchical_memory_limit 1073741824\n"
		 "hierarchical_memsw_limit 9223372036854771712\n"
		 "total_cache 16384\ntotal_rss 8192\ntotal_rss_huge 0\ntotal_shmem 4096\n"
		 "total_mapped_file 0\ntotal_dirty 0\ntotal_writeback 0\n"
		 "total_workingset_refault_anon 0\ntotal_workingset_refault_file 0\n"
		 "total_swap 0\ntotal_swapcached 0\ntotal_pgpgin 6\ntotal_pgpgout 0\n"
		 "total_pgfault 1\ntotal_pgmajfault 1\ntotal_inactive_anon 12288\n"
		 "total_active_anon 0\ntotal_inactive_file 12288\ntotal_active_file 0\n"
		 "total_unevictable 0\n");
	/* the child shows the smallest limit on its path */
	T_CHECK(strstr(rd("/a/b/memory.stat"), "hierarchical_memory_limit 1073741824\n") != NULL);
	T_EQ_STR(rd("/a/memory.numa_stat"),
		 "total=2 N0=2\nfile=0 N0=0\nanon=2 N0=2\nunevictable=0 N0=0\n"
		 "hierarchical_total=6 N0=6\nhierarchical_file=3 N0=3\nhierarchical_anon=3 N0=3\n"
		 "hierarchical_unevictable=0 N0=0\n");
	teardown();
}

static void test_force_empty_and_rmdir(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(charge("/a/b", UCG_MEM_FILE, 10), 0);
	T_EQ_INT(charge("/a/b", UCG_MEM_ANON, 5), 0);
	T_EQ_INT(wr("/a/memory.force_empty", "abc"), 0);
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "20480\n");
	/* rmdir passes the anon pages to the parent, which can then uncharge them */
	T_EQ_INT(fx_rmdir(e, h, "/a/b"), 0);
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "20480\n");
	T_CHECK(strstr(rd("/a/memory.stat"), "\nrss 20480\n") != NULL);
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a"), UCG_MEM_ANON, 5), 0);
	T_EQ_STR(rd("/a/memory.usage_in_bytes"), "0\n");
	T_EQ_STR(rd("/memory.usage_in_bytes"), "0\n");
	teardown();
}

static void test_unbound(void)
{
	struct ucg_hierarchy *h2;
	struct ucg_cgroup *cg;
	uint64_t margin = 0;

	e = fx_engine();
	fx_proc(e, 100, 0);
	h2 = fx_mount(e, "cpu");
	/* memory bound nowhere: the task's cgroup is NULL; nothing is accounted, 0 */
	T_CHECK(fx_task_cg(e, 100, UCG_SS_memory) == NULL);
	T_EQ_INT(ucg_memory_charge(NULL, UCG_MEM_ANON, 5, NULL), 0);
	T_EQ_INT(ucg_memory_uncharge(NULL, UCG_MEM_ANON, 5), 0);
	T_EQ_INT(ucg_memory_try_charge(NULL, UCG_MEM_ANON, 5, NULL), 0);
	T_EQ_INT(ucg_memory_margin(NULL, &margin), 0);
	T_CHECK(margin == UINT64_MAX);
	T_EQ_INT(ucg_memory_oom(NULL), 0);
	T_EQ_INT(ucg_memory_swap_out(NULL, 1), 0);
	T_EQ_INT(ucg_memory_swap_free(NULL, 1), 0);
	T_EQ_INT(ucg_memory_count_fault(NULL, true), 0);
	/* a cgroup of a hierarchy without memory: EINVAL from every call */
	cg = fx_cg(h2, "/");
	T_EQ_INT(ucg_memory_charge(cg, UCG_MEM_ANON, 5, NULL), -EINVAL);
	T_EQ_INT(ucg_memory_uncharge(cg, UCG_MEM_ANON, 5), -EINVAL);
	T_EQ_INT(ucg_memory_try_charge(cg, UCG_MEM_ANON, 5, NULL), -EINVAL);
	T_EQ_INT(ucg_memory_margin(cg, &margin), -EINVAL);
	T_EQ_INT(ucg_memory_oom(cg), -EINVAL);
	T_EQ_INT(ucg_memory_swap_out(cg, 1), -EINVAL);
	T_EQ_INT(ucg_memory_swap_free(cg, 1), -EINVAL);
	T_EQ_INT(ucg_memory_count_fault(cg, false), -EINVAL);
	T_EQ_INT(ucg_memory_vmpressure(cg, 1, 1, false), -EINVAL);
	teardown();
}

int main(void)
{
	T_RUN(test_files_modes_defaults);
	T_RUN(test_mem_parsing);
	T_RUN(test_root_writes);
	T_RUN(test_memsw_rule);
	T_RUN(test_limit_below_usage);
	T_RUN(test_charge_hierarchy_failcnt);
	T_RUN(test_memsw_failcnt_first);
	T_RUN(test_try_charge_attempts_and_swap);
	T_RUN(test_reclaim_on_charge);
	T_RUN(test_oom_control);
	T_RUN(test_u64_files);
	T_RUN(test_kmem_tcp);
	T_RUN(test_stat_totals);
	T_RUN(test_force_empty_and_rmdir);
	T_RUN(test_unbound);
	return t_done();
}
