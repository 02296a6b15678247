/* sim/test_sim_wb.c — writeback and helper attribution per charging design, against
 * hand-computed expectations, and the block model's throttle and weights. */
#include "sim/test_sim.h"

/* a (io/A) dirties 8 MiB of f1, b (io/B) 8 MiB of f2; b exits at 0.5 s; nothing is
 * written before the pages expire at 1 s (the background threshold is out of reach). */
static const char *const wb_text =
	"memory 1G\nset dirty_background_ratio 50\nset dirty_ratio 60\nset dirty_expire 1s\n"
	"set writeback_interval 1s\ndevice sda 8:0 bps=1G\n"
	"mount -o memory mem\nmount -o blkio io\nmkdir io/A\nmkdir io/B\nmkdir mem/M\n"
	"file f1 dev=sda\nfile f2 dev=sda\nspawn a\nspawn b\necho $a > io/A/cgroup.procs\n"
	"echo $b > io/B/cgroup.procs\necho $b > mem/M/cgroup.procs\n"
	"write a f1 8M\nwrite b f2 8M\nat 0.5s exit b\nrun 5s\n";

static struct sim_attribution attribution(enum sim_charging c, struct sim **ret)
{
	struct sim_attribution a;
	struct sim_err err;
	int r;
	struct sim *s = ts_run(wb_text, 0, c, &r, &err);

	T_EQ_INT(r, 0);
	sim_get_attribution(s, &a);
	*ret = s;
	return a;
}

static void test_kernel(void)
{
	struct sim *s;
	struct sim_attribution a = attribution(SIM_CHARGING_KERNEL, &s);

	T_EQ_INT(a.wb_bytes, 16ull << 20);
	T_EQ_INT(a.wb_to_origin, 0);
	T_EQ_INT(a.record_bytes, 16);
	/* the flusher is in the root: all writeback charged there */
	T_EQ_INT(ts_cg(s, "io", "/")->wb_bytes, 16ull << 20);
	T_EQ_INT(ts_cg(s, "io", "/A")->io_bytes[0][1], 0);
	sim_free(s);
}

static void test_pid(void)
{
	struct sim *s;
	struct sim_attribution a = attribution(SIM_CHARGING_PID, &s);

	/* a's 8 MiB go to A; b exited before its pages were written: orphaned */
	T_EQ_INT(a.wb_to_origin, 8ull << 20);
	T_EQ_INT(a.wb_orphaned, 8ull << 20);
	T_EQ_INT(a.record_bytes, 8);
	T_EQ_INT(ts_cg(s, "io", "/A")->io_bytes[0][1], 8ull << 20);
	T_EQ_INT(ts_cg(s, "io", "/B")->io_bytes[0][1], 0);
	sim_free(s);
}

static void test_consumer_dual_inode(void)
{
	static const enum sim_charging cs[] = { SIM_CHARGING_CONSUMER, SIM_CHARGING_DUAL,
						SIM_CHARGING_INODE };
	size_t i;

	for (i = 0; i < 3; i++) {
		struct sim *s;
		struct sim_attribution a = attribution(cs[i], &s);

		T_EQ_INT(a.wb_to_origin, 16ull << 20);
		T_EQ_INT(a.wb_orphaned, 0);
		T_EQ_INT(a.record_bytes, 8);
		T_EQ_INT(ts_cg(s, "io", "/B")->io_bytes[0][1], 8ull << 20);
		T_EQ_INT(ts_cg(s, "io", "/B")->wb_bytes, 8ull << 20);
		sim_free(s);
	}
}

static void test_dual_record_layout(void)
{
	struct sim *s;
	struct sim_attribution a = attribution(SIM_CHARGING_DUAL, &s);
	struct sim_task *t = sim_task_by_name(s, "a");
	unsigned char rec[8];
	uint64_t w;

	(void)a;
	memset(rec, 0, sizeof(rec));
	sim_charging_record(s, rec, t);
	memcpy(&w, rec, sizeof(w));
	/* memcg index (a is in mem's root, id 0 -> 1), blkio index (io/A) + 1, dirty|used */
	T_EQ_INT(w & 0x7fffffffull, (uint64_t)(ts_cg(s, "mem", "/")->id + 1));
	T_EQ_INT((w >> 31) & 0x7fffffffull, (uint64_t)(ts_cg(s, "io", "/A")->id + 1));
	T_EQ_INT(w >> 62, 3);
	sim_free(s);
}

/* md RAID1 over two disks with a helper: 8 MiB written directly through md0 by a
 * task of io/A is 16 MiB of leg I/O. */
static const char *const md_text =
	"device sda 8:0 bps=1G\ndevice sdb 8:16 bps=1G\n"
	"md md0 legs=sda,sdb helper=md0_raid1 cpu=100us\n"
	"mount -o blkio io\nmkdir io/A\nspawn a\necho $a > io/A/cgroup.procs\n"
	"write a md0 8M\nrun 2s\n";

static void test_md_helper(void)
{
	struct sim_attribution a;
	struct sim_err err;
	int r;
	struct sim *s = ts_run(md_text, 0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	sim_get_attribution(s, &a);
	T_EQ_INT(a.helper_bytes, 16ull << 20);
	T_EQ_INT(a.helper_to_origin, 0);
	T_EQ_INT(a.helper_cpu_ns, 32 * 100 * SIM_USEC); /* 32 requests of 256 KiB */
	T_EQ_INT(sim_task_by_name(s, "md0_raid1")->cpu_ns, 32 * 100 * SIM_USEC);
	sim_free(s);
	s = ts_run(md_text, 0, SIM_CHARGING_DUAL, &r, &err);
	T_EQ_INT(r, 0);
	sim_get_attribution(s, &a);
	T_EQ_INT(a.helper_to_origin, 16ull << 20);
	T_EQ_INT(a.helper_cpu_to_origin, a.helper_cpu_ns);
	T_EQ_INT(ts_cg(s, "io", "/A")->io_bytes[0][1] + ts_cg(s, "io", "/A")->io_bytes[1][1],
		 16ull << 20);
	T_EQ_INT(ts_cg(s, "io", "/A")->cpu_ns, 32 * 100 * SIM_USEC);
	sim_free(s);
}

static void test_md_read_random_leg(void)
{
	const char *text = "device sda 8:0 bps=1G\ndevice sdb 8:16 bps=1G\n"
			   "md md0 legs=sda,sdb helper=h\nspawn a\nread a md0 32M\nrun 2s\n";
	char *x = ts_output(text, 1, SIM_CHARGING_KERNEL);
	char *y = ts_output(text, 1, SIM_CHARGING_KERNEL);
	char *z = ts_output(text, 2, SIM_CHARGING_KERNEL);

	T_EQ_STR(x, y);
	T_CHECK(strcmp(x, z) != 0); /* the mirror choice is random: another seed differs */
	ucg_free(x);
	ucg_free(y);
	ucg_free(z);
}

static void test_throttle_and_weight(void)
{
	struct sim_err err;
	int r;
	struct sim *s;

	if (!ts_has_file("blkio", "/blkio.throttle.read_bps_device"))
		T_SKIP("blkio throttle files not served");
	/* 100 MiB/s disk; A throttled to 10 MiB/s reads 20 MiB: 2 s. B (weight 300) and
	 * C (weight 100) read unthrottled side by side: B gets 3/4 of what A leaves. */
	s = ts_run("device sda 8:0 bps=100M\nmount -o blkio io\nmkdir io/A\nmkdir io/B\nmkdir io/C\n"
		   "echo \"8:0 10485760\" > io/A/blkio.throttle.read_bps_device\n"
		   "echo 300 > io/B/blkio.bfq.weight\n"
		   "spawn a\nspawn b\nspawn c\necho $a > io/A/cgroup.procs\necho $b > io/B/cgroup.procs\n"
		   "echo $c > io/C/cgroup.procs\nread a sda 20M direct\nread b sda 1G direct\n"
		   "read c sda 1G direct\nrun 2s\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR((double)ts_cg(s, "io", "/A")->io_bytes[0][0] / 1048576.0, 20, 0.3);
	T_NEAR((double)ts_cg(s, "io", "/B")->io_bytes[0][0] /
		       (double)ts_cg(s, "io", "/C")->io_bytes[0][0], 3.0, 0.05);
	T_CHECK(strstr(sim_log(s), "a: read direct sda done, 20971520 bytes in 1.9") != NULL);
	sim_free(s);
}

/* The blkio controller's own statistics show each design's attribution: the engine's
 * blkio.throttle.io_service_bytes "Write" line of a cgroup equals what the model
 * charged it (async, writeback). */
static uint64_t engine_write_bytes(struct sim *s, const char *path)
{
	struct sim_hier *h = sim_hier_by_name(s, "io");
	struct ucg_buf b;
	uint64_t v = 0;
	const char *p;

	ucg_buf_init(&b);
	if (h && ucg_fs_read_all(s->e, h->h, path, &s->root_cred, &b) == 0 && b.data &&
	    (p = strstr(b.data, "8:0 Async ")))
		v = strtoull(p + 10, NULL, 10);
	ucg_buf_fini(&b);
	return v;
}

static void test_controller_stats_follow_design(void)
{
	static const struct {
		enum sim_charging c;
		uint64_t a, b, root; /* MiB written back, charged to io/A, io/B, the root */
	} want[] = {
		{ SIM_CHARGING_KERNEL, 0, 0, 16 },   /* the flusher's cgroup pays */
		{ SIM_CHARGING_PID, 8, 0, 8 },       /* b exited: its pages orphaned to the root */
		{ SIM_CHARGING_CONSUMER, 8, 8, 0 },
		{ SIM_CHARGING_DUAL, 8, 8, 0 },
		{ SIM_CHARGING_INODE, 8, 8, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct sim *s;

		attribution(want[i].c, &s);
		T_EQ_INT(engine_write_bytes(s, "/A/blkio.throttle.io_service_bytes"), want[i].a << 20);
		T_EQ_INT(engine_write_bytes(s, "/B/blkio.throttle.io_service_bytes"), want[i].b << 20);
		T_EQ_INT(engine_write_bytes(s, "/blkio.throttle.io_service_bytes"), want[i].root << 20);
		T_EQ_INT(engine_write_bytes(s, "/A/blkio.throttle.io_service_bytes"),
			 ts_cg(s, "io", "/A")->io_bytes[0][1]);
		sim_free(s);
	}
}

/* ...and the owner's throttle holds its writeback: io/A limited to 4 MiB/s of writes.
 * The 8 MiB expire at 1 s; by 2 s the kernel design has written them all (the root
 * pays, unthrottled), dual about 4 MiB (A pays at 4 MiB/s). */
static void test_owner_throttled(void)
{
	static const char *text =
		"memory 1G\nset dirty_background_ratio 50\nset dirty_ratio 60\nset dirty_expire 1s\n"
		"set writeback_interval 1s\ndevice sda 8:0 bps=1G\nmount -o blkio io\nmkdir io/A\n"
		"echo \"8:0 4194304\" > io/A/blkio.throttle.write_bps_device\n"
		"file f1 dev=sda\nspawn a\necho $a > io/A/cgroup.procs\nwrite a f1 8M\nrun 2s\n";
	struct sim_err err;
	struct sim *s;
	uint64_t dev_bytes;
	int r;

	s = ts_run(text, 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_EQ_INT(sim_dev_find(s, "sda")->bytes[1], 8ull << 20);
	sim_free(s);
	s = ts_run(text, 0, SIM_CHARGING_DUAL, &r, &err);
	T_EQ_INT(r, 0);
	dev_bytes = sim_dev_find(s, "sda")->bytes[1];
	T_NEAR((double)dev_bytes, 4.0 * 1048576, 0.5 * 1048576);
	T_EQ_INT(engine_write_bytes(s, "/A/blkio.throttle.io_service_bytes"), dev_bytes);
	sim_free(s);
}

int main(void)
{
	T_RUN(test_kernel);
	T_RUN(test_pid);
	T_RUN(test_consumer_dual_inode);
	T_RUN(test_dual_record_layout);
	T_RUN(test_md_helper);
	T_RUN(test_md_read_random_leg);
	T_RUN(test_throttle_and_weight);
	T_RUN(test_controller_stats_follow_design);
	T_RUN(test_owner_throttled);
	return t_done();
}
