/* controllers/test_blkio.c — the blkio controller (docs/kernel/controllers.md §9 and the
 * behaviours verified in docs/controllers-verified.md §B). Uses the default device
 * table: 7:0..7:7 (bfq), 253:0 and 254:0 (mq-deadline). */
#include "controllers/charge.h"
#include "test_fixture.h"

FX_ONE_MOUNT("blkio")

static void test_files(void)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	/* bfq weight files: children only */
	T_EQ_INT(ucg_fs_getattr(e, h, "/blkio.bfq.weight", &root, &st), -ENOENT);
	T_EQ_INT(ucg_fs_getattr(e, h, "/blkio.bfq.weight_device", &root, &st), -ENOENT);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/blkio.bfq.weight", &root, &st), 0);
	T_EQ_INT(st.mode & 07777, 0644);
	T_EQ_INT(ucg_fs_getattr(e, h, "/blkio.reset_stats", &root, &st), 0);
	T_EQ_INT(st.mode & 07777, 0200);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/blkio.throttle.io_serviced_recursive", &root, &st), 0);
	T_EQ_INT(st.mode & 07777, 0444);
	T_EQ_STR(rd("/a/blkio.bfq.weight"), "100\n");
	T_EQ_STR(rd("/a/blkio.bfq.weight_device"), "default 100\n");
	T_EQ_STR(rd("/a/blkio.throttle.read_bps_device"), "");
	T_EQ_STR(rd("/a/blkio.throttle.io_service_bytes"), "Total 0\n");
	T_EQ_STR(rd("/a/blkio.bfq.io_serviced"), "Total 0\n");
	T_EQ_STR(rd("/a/blkio.reset_stats"), "<errno 22>");
	T_EQ_INT(wr("/a/blkio.throttle.io_serviced", "0"), -EINVAL);
	teardown();
}

static void test_throttle_grammar(void)
{
	static const struct {
		const char *in;
		int err;
		const char *after;
	} t[] = {
		{ "7:0 1048576", 0, "7:0 1048576\n" },
		{ "254:0 1M", 0, "254:0 1\n7:0 1048576\n" },
		{ "8:0 100", -ENODEV, "254:0 1\n7:0 1048576\n" },
		{ "8:0 max", -ENODEV, "254:0 1\n7:0 1048576\n" },
		{ "7:0 max", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0 -1", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0 ", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7 5", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "abc", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "\n", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "+7:0 5", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0 +5", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0abc 5", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0:1 5", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0 default", -EINVAL, "254:0 1\n7:0 1048576\n" },
		{ "7:0  5", 0, "254:0 1\n7:0 5\n" },
		{ " 7:0 6", 0, "254:0 1\n7:0 6\n" },
		{ "7:0 7 8", 0, "254:0 1\n7:0 7\n" },
		{ "7:0\t9\n", 0, "254:0 1\n7:0 9\n" },
		{ "7: 0 10", 0, "254:0 1\n7:0 10\n" },
		{ "007:00 11", 0, "254:0 1\n7:0 11\n" },
		{ "4294967303:0 12", 0, "254:0 1\n7:0 12\n" },
		{ "7:0 5abc", 0, "254:0 1\n7:0 5\n" },
		{ "7:0 99999999999999999999", 0, "254:0 1\n7:0 7766279631452241919\n" },
		{ "7:0 0x100", 0, "254:0 1\n" },
		{ "7:0 1", 0, "254:0 1\n7:0 1\n" },
		{ "7:0 18446744073709551615", 0, "254:0 1\n" },
		{ "7:0 1", 0, "254:0 1\n7:0 1\n" },
		{ "7:0 18446744073709551616", 0, "254:0 1\n" },
		{ "253:0 5", 0, "253:0 5\n254:0 1\n" },
	};
	size_t i;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = wr("/a/blkio.throttle.read_bps_device", t[i].in);

		if (r != t[i].err)
			T_FAIL_AT("\"%s\" gave %d, want %d", t[i].in, r, t[i].err);
		T_EQ_STR(rd("/a/blkio.throttle.read_bps_device"), t[i].after);
	}
	/* iops: 32-bit */
	T_EQ_INT(wr("/a/blkio.throttle.write_iops_device", "7:1 4294967295"), 0);
	T_EQ_STR(rd("/a/blkio.throttle.write_iops_device"), "");
	T_EQ_INT(wr("/a/blkio.throttle.write_iops_device", "7:1 4294967296"), 0);
	T_EQ_STR(rd("/a/blkio.throttle.write_iops_device"), "7:1 0\n");
	T_EQ_INT(wr("/a/blkio.throttle.write_iops_device", "7:1 4294967294"), 0);
	T_EQ_INT(wr("/a/blkio.throttle.write_iops_device", "7:2 10"), 0);
	T_EQ_STR(rd("/a/blkio.throttle.write_iops_device"), "7:2 10\n7:1 4294967294\n");
	T_EQ_INT(wr("/a/blkio.throttle.write_iops_device", "7:1 0"), 0);
	T_EQ_STR(rd("/a/blkio.throttle.write_iops_device"), "7:2 10\n");
	T_EQ_STR(rd("/a/blkio.throttle.read_iops_device"), "");
	T_EQ_STR(rd("/a/blkio.throttle.write_bps_device"), "");
	teardown();
}

static void test_blkg_lifetime_and_stats(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/k"), 0);
	/* an invalid value still creates the device's state; ENODEV does not */
	T_EQ_INT(wr("/a/blkio.throttle.read_bps_device", "7:3 max"), -EINVAL);
	T_EQ_INT(wr("/a/blkio.throttle.read_bps_device", "8:3 5"), -ENODEV);
	/* a rule in a child creates the state in its ancestors too */
	T_EQ_INT(wr("/a/k/blkio.throttle.write_bps_device", "7:5 100"), 0);
	T_EQ_STR(rd("/a/blkio.throttle.io_serviced"),
		 "7:5 Read 0\n7:5 Write 0\n7:5 Sync 0\n7:5 Async 0\n7:5 Discard 0\n7:5 Total 0\n"
		 "7:3 Read 0\n7:3 Write 0\n7:3 Sync 0\n7:3 Async 0\n7:3 Discard 0\n7:3 Total 0\n"
		 "Total 0\n");
	T_EQ_STR(rd("/a/blkio.throttle.write_bps_device"), "");
	teardown();
}

static void test_io_accounting_and_limits(void)
{
	struct ucg_blkio_limits l;

	setup();
	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(wr("/a/b/cgroup.procs", "100"), 0);
	T_EQ_INT(ucg_blkio_account(fx_task_cg(e, 100, UCG_SS_blkio), 7, 0, UCG_BIO_READ, true, 4194304, 1024), 0);
	T_EQ_INT(ucg_blkio_account(fx_task_cg(e, 100, UCG_SS_blkio), 7, 0, UCG_BIO_WRITE, false, 4096, 1), 0);
	T_EQ_INT(ucg_blkio_account(fx_task_cg(e, 100, UCG_SS_blkio), 7, 0, UCG_BIO_DISCARD, true, 8192, 1), 0);
	T_EQ_INT(ucg_blkio_account(fx_task_cg(e, 100, UCG_SS_blkio), 8, 0, UCG_BIO_READ, true, 1, 1), -ENODEV);
	T_EQ_STR(rd("/a/b/blkio.throttle.io_service_bytes"),
		 "7:0 Read 4194304\n7:0 Write 4096\n7:0 Sync 4202496\n7:0 Async 4096\n"
		 "7:0 Discard 8192\n7:0 Total 4206592\nTotal 4206592\n");
	T_EQ_STR(rd("/a/b/blkio.bfq.io_serviced"),
		 "7:0 Read 1024\n7:0 Write 1\n7:0 Sync 1025\n7:0 Async 1\n7:0 Discard 1\n"
		 "7:0 Total 1026\nTotal 1026\n");
	/* the parent has the device but no I/O of its own; recursive sums the subtree */
	T_EQ_STR(rd("/a/blkio.throttle.io_serviced"),
		 "7:0 Read 0\n7:0 Write 0\n7:0 Sync 0\n7:0 Async 0\n7:0 Discard 0\n7:0 Total 0\n"
		 "Total 0\n");
	T_EQ_STR(rd("/a/blkio.throttle.io_serviced_recursive"),
		 "7:0 Read 1024\n7:0 Write 1\n7:0 Sync 1025\n7:0 Async 1\n7:0 Discard 1\n"
		 "7:0 Total 1026\nTotal 1026\n");
	/* non-bfq device: throttle statistics only */
	T_EQ_INT(ucg_blkio_account(fx_task_cg(e, 100, UCG_SS_blkio), 254, 0, UCG_BIO_READ, true, 512, 1), 0);
	T_CHECK(strstr(rd("/a/b/blkio.bfq.io_serviced"), "254:0") == NULL);
	T_CHECK(strstr(rd("/a/b/blkio.throttle.io_serviced"), "254:0 Read 1\n") != NULL);
	/* by path: the cgroup named pays, with no task of it involved (writeback) */
	T_EQ_INT(ucg_blkio_account(fx_cg(h, "/a"), 7, 0, UCG_BIO_WRITE, false, 65536, 2), 0);
	T_CHECK(strstr(rd("/a/blkio.throttle.io_service_bytes"), "7:0 Write 65536\n7:0 Sync 0\n"
		       "7:0 Async 65536\n") != NULL);
	T_CHECK(strstr(rd("/a/b/blkio.throttle.io_service_bytes"), "7:0 Write 4096\n") != NULL);
	/* blkio bound nowhere (NULL): nothing accounted, no limit; a bad op still EINVAL */
	T_EQ_INT(ucg_blkio_account(NULL, 7, 0, UCG_BIO_WRITE, false, 1, 1), 0);
	T_EQ_INT(ucg_blkio_account(NULL, 7, 0, (enum ucg_bio_op)7, false, 1, 1), -EINVAL);
	T_EQ_INT(ucg_blkio_account(fx_cg(h, "/a"), 9, 0, UCG_BIO_WRITE, false, 1, 1), -ENODEV);
	T_EQ_INT(ucg_blkio_account(fx_cg(h, "/a"), 7, 0, (enum ucg_bio_op)7, false, 1, 1), -EINVAL);
	/* reset_stats clears bfq statistics only */
	T_EQ_INT(wr("/a/b/blkio.reset_stats", "abc"), -EINVAL);
	T_EQ_INT(wr("/a/b/blkio.reset_stats", "-1"), -EINVAL);
	T_EQ_INT(wr("/a/b/blkio.reset_stats", "5"), 0);
	T_EQ_STR(rd("/a/b/blkio.bfq.io_serviced"),
		 "7:0 Read 0\n7:0 Write 0\n7:0 Sync 0\n7:0 Async 0\n7:0 Discard 0\n"
		 "7:0 Total 0\nTotal 0\n");
	T_CHECK(strstr(rd("/a/b/blkio.throttle.io_serviced"), "7:0 Read 1024\n") != NULL);

	/* limits: the smallest along the path; weight from the cgroup */
	T_EQ_INT(wr("/a/blkio.throttle.read_bps_device", "7:0 1000"), 0);
	T_EQ_INT(wr("/a/b/blkio.throttle.read_bps_device", "7:0 5000"), 0);
	T_EQ_INT(wr("/a/b/blkio.throttle.write_iops_device", "7:0 30"), 0);
	T_EQ_INT(wr("/a/b/blkio.bfq.weight", "300"), 0);
	T_EQ_INT(ucg_blkio_limits(fx_task_cg(e, 100, UCG_SS_blkio), 7, 0, &l), 0);
	T_EQ_INT(l.read_bps, 1000);
	T_EQ_INT(l.write_bps == UINT64_MAX, 1);
	T_EQ_INT(l.read_iops, UINT32_MAX);
	T_EQ_INT(l.write_iops, 30);
	T_EQ_INT(l.weight, 300);
	T_EQ_INT(wr("/a/b/blkio.bfq.weight_device", "7:0 700"), 0);
	T_EQ_INT(ucg_blkio_limits(fx_task_cg(e, 100, UCG_SS_blkio), 7, 0, &l), 0);
	T_EQ_INT(l.weight, 700);
	T_EQ_INT(ucg_blkio_limits(fx_task_cg(e, 100, UCG_SS_blkio), 9, 0, &l), -ENODEV);
	T_EQ_INT(fx_task_cg_err(e, 555, UCG_SS_blkio), -ESRCH);
	teardown();
}

static void test_bfq_weight(void)
{
	static const struct {
		const char *in;
		int err;
	} wd[] = {
		{ "254:0", -EINVAL },	   { "254 300", -EINVAL },   { "abc", -EINVAL },
		{ "8:0 300", -ENODEV },	   { "254:1 300", -ENODEV }, { "254:0 300", -EOPNOTSUPP },
		{ "254:0 abc", -EOPNOTSUPP }, { "7:0 0", -ERANGE },	     { "7:0 1001", -ERANGE },
		{ "7:0 0x20", -ERANGE },     { "7:0 abc", -EINVAL },   { "7:0 -1", -EINVAL },
		{ "7:0 300", 0 },	   { "7:1 1000", 0 },	     { "7:1 default", 0 },
	};
	size_t i;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(wr("/a/blkio.bfq.weight", "0"), -ERANGE);
	T_EQ_INT(wr("/a/blkio.bfq.weight", "1001"), -ERANGE);
	T_EQ_INT(wr("/a/blkio.bfq.weight", " 5"), -EINVAL);
	T_EQ_INT(wr("/a/blkio.bfq.weight", "default 200"), -EINVAL);
	T_EQ_INT(wr("/a/blkio.bfq.weight", "254:0 300"), -EINVAL);
	T_EQ_INT(wr("/a/blkio.bfq.weight", "1000"), 0);
	T_EQ_STR(rd("/a/blkio.bfq.weight"), "1000\n");
	/* not inherited */
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_STR(rd("/a/b/blkio.bfq.weight"), "100\n");
	for (i = 0; i < sizeof(wd) / sizeof(wd[0]); i++) {
		int r = wr("/a/blkio.bfq.weight_device", wd[i].in);

		if (r != wd[i].err)
			T_FAIL_AT("\"%s\" gave %d, want %d", wd[i].in, r, wd[i].err);
	}
	T_EQ_STR(rd("/a/blkio.bfq.weight_device"), "default 1000\n7:0 300\n");
	T_EQ_INT(wr("/a/blkio.bfq.weight_device", "default 200"), 0);
	T_EQ_STR(rd("/a/blkio.bfq.weight"), "200\n");
	T_EQ_INT(wr("/a/blkio.bfq.weight_device", "250"), 0);
	T_EQ_STR(rd("/a/blkio.bfq.weight_device"), "default 250\n7:0 300\n");
	T_EQ_INT(wr("/a/blkio.bfq.weight_device", "default 0"), -ERANGE);
	T_EQ_INT(wr("/a/blkio.bfq.weight_device", "7:0 default"), 0);
	T_EQ_STR(rd("/a/blkio.bfq.weight_device"), "default 250\n");
	teardown();
}

static void test_custom_devices_and_alloc_failure(void)
{
	static const struct ucg_blkdev devs[] = { { 8, 0, 0 }, { 8, 16, 1 } };
	struct ucg_engine_config cfg;
	long n;

	memset(&cfg, 0, sizeof(cfg));
	cfg.blkdevs = devs;
	cfg.nr_blkdevs = 2;
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	h = fx_mount(e, "blkio");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(wr("/a/blkio.throttle.read_bps_device", "7:0 1"), -ENODEV);
	T_EQ_INT(wr("/a/blkio.throttle.read_bps_device", "8:0 1"), 0);
	T_EQ_INT(wr("/a/blkio.bfq.weight_device", "8:0 10"), -EOPNOTSUPP);
	T_EQ_INT(wr("/a/blkio.bfq.weight_device", "8:16 10"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	for (n = 0; n < 50; n++) {
		int r;

		ucg_alloc_fail_after(n);
		r = wr("/a/b/blkio.throttle.write_bps_device", "8:16 7");
		ucg_alloc_fail_after(-1);
		if (r == 0)
			break;
		T_EQ_INT(r, -ENOMEM);
		T_EQ_STR(rd("/a/b/blkio.throttle.io_serviced"), "Total 0\n");
	}
	T_EQ_STR(rd("/a/b/blkio.throttle.write_bps_device"), "8:16 7\n");
	teardown();
}

static void test_mount_alloc_failure(void)
{
	long n;

	/* the root's per-device state is allocated at mount: every failure unwinds */
	for (n = 0; n < 400; n++) {
		struct ucg_hierarchy *hh = NULL;
		int r;

		e = fx_engine();
		ucg_alloc_fail_after(n);
		r = ucg_mount(e, "blkio", &hh, NULL);
		ucg_alloc_fail_after(-1);
		if (r == 0) {
			h = hh;
			T_CHECK(strstr(rd("/blkio.throttle.io_serviced"), "254:0 Total 0\n") != NULL);
			teardown();
			break;
		}
		T_EQ_INT(r, -ENOMEM);
		teardown();
	}
	T_CHECK(n < 400);
}

int main(void)
{
	T_RUN(test_files);
	T_RUN(test_throttle_grammar);
	T_RUN(test_blkg_lifetime_and_stats);
	T_RUN(test_io_accounting_and_limits);
	T_RUN(test_bfq_weight);
	T_RUN(test_custom_devices_and_alloc_failure);
	T_RUN(test_mount_alloc_failure);
	return t_done();
}
