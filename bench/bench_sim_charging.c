/* bench/bench_sim_charging.c — what the simulator and the seed's charging designs
 * cost and how accurate they are.
 *
 * Prints one figure per line, "name value unit":
 *   sim.bytes_per_page.DESIGN     ownership record per page under the design
 *   sim.charge_ns.DESIGN          recording the dirtier on a page (at dirtying time)
 *   sim.resolve_ns.DESIGN         finding the blkio cgroup that pays (at writeback)
 *   sim.uncharge_ns.DESIGN        finding the memcg to refund and clearing the record
 *   sim.wb_to_origin.DESIGN       share of writeback charged to the originating
 *                                 cgroup in scenarios/writeback.ucg
 *   sim.helper_to_origin.DESIGN   share of md helper I/O charged to the originator in
 *                                 scenarios/md_helper.ucg
 *   sim.events_per_s              events fired per wall second (net_classes.ucg)
 *   sim.memcg_reclaim_charge_ns   per page charged through the kernel's charge loop
 *                                 near a limit (swap reclaim in 32-page rounds)
 *   sim.memcg_charge_ns           per page charged far from any limit (batched)
 *   sim.oom_failcnt               memory.failcnt after one OOM (16M limit, 64 MiB
 *                                 touched), with kernel.oom_failcnt from 3 runs in a
 *                                 scratch v1 memory cgroup (root only)
 *   sim.big_run_s                 wall time of a 10,000-task, 1,000-cgroup,
 *                                 60-virtual-second run (busy tasks, 100 quotas)
 * Scenario files are read from $UCG_SOURCE_ROOT (default: the current directory).
 * `bench_sim_charging quick` skips the big run.
 */
#include "sim/sim_impl.h"

#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "sim_bench.h"

#define NPAGES (1u << 20)

static struct sim *run_text(const char *name, const char *text, size_t len,
			    enum sim_charging c, double *wall_s)
{
	struct sim_config cfg;
	struct sim_err err;
	struct sim *s = NULL;
	double t0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 1;
	cfg.charging = c;
	if (sim_new(&cfg, &s) < 0)
		return NULL;
	t0 = bench_now_ns();
	if (sim_load(s, name, text, len, &err) < 0 || sim_run(s, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		sim_free(s);
		return NULL;
	}
	if (wall_s)
		*wall_s = (bench_now_ns() - t0) / 1e9;
	return s;
}

static void bench_records(enum sim_charging c)
{
	static const char *text = "mount -o memory mem\nmount -o blkio io\nmount -o cpu cpu\n"
				  "mkdir mem/a\nmkdir io/a\nspawn t\necho $t > mem/a/cgroup.procs\n"
				  "echo $t > io/a/cgroup.procs\ndevice d 8:0\nfile f dev=d\nrun 1s\n";
	const char *name = sim_charging_name(c);
	struct sim *s = run_text("bench.ucg", text, strlen(text), c, NULL);
	struct sim_task *t;
	struct sim_file *f;
	struct sim_frame fr;
	unsigned char *recs;
	size_t rs = sim_charging_record_size(c), i;
	uintptr_t sink = 0;
	double t0, t1, t2, t3;

	if (!s)
		return;
	t = sim_task_by_name(s, "t");
	f = s->nfiles ? s->files[0] : NULL;
	recs = ucg_calloc(NPAGES, rs);
	memset(&fr, 0, sizeof(fr));
	if (!recs || !t) {
		sim_free(s);
		ucg_free(recs);
		return;
	}
	if (f)
		sim_charging_inode_dirty(s, f, t);
	/* warm up: fault the record array in and settle the caches */
	for (i = 0; i < NPAGES; i++)
		sim_charging_record(s, recs + i * rs, t);
	for (i = 0; i < NPAGES; i++)
		sim_charging_clear(s, recs + i * rs);
	t0 = bench_now_ns();
	for (i = 0; i < NPAGES; i++)
		sim_charging_record(s, recs + i * rs, t);
	t1 = bench_now_ns();
	for (i = 0; i < NPAGES; i++) {
		bool orphan;

		sink += (uintptr_t)sim_charging_resolve(s, recs + i * rs, f, s->flusher, &orphan);
	}
	t2 = bench_now_ns();
	for (i = 0; i < NPAGES; i++) {
		sink += (uintptr_t)sim_charging_refund_cg(s, recs + i * rs, &fr);
		sim_charging_clear(s, recs + i * rs);
	}
	t3 = bench_now_ns();
	printf("sim.bytes_per_page.%s %zu bytes\n", name, rs);
	printf("sim.charge_ns.%s %.1f ns\n", name, (t1 - t0) / NPAGES);
	printf("sim.resolve_ns.%s %.1f ns\n", name, (t2 - t1) / NPAGES);
	printf("sim.uncharge_ns.%s %.1f ns\n", name, (t3 - t2) / NPAGES);
	if (sink == 1)
		printf("#\n");
	ucg_free(recs);
	sim_free(s);
}

static void bench_accuracy(enum sim_charging c)
{
	struct sim_attribution a;
	size_t len;
	char *text = sim_bench_scenario("writeback.ucg", &len);
	struct sim *s;

	if (text && (s = run_text("writeback.ucg", text, len, c, NULL))) {
		sim_get_attribution(s, &a);
		printf("sim.wb_to_origin.%s %.2f %%\n", sim_charging_name(c),
		       a.wb_bytes ? 100.0 * (double)a.wb_to_origin / (double)a.wb_bytes : 0.0);
		sim_free(s);
	}
	ucg_free(text);
	text = sim_bench_scenario("md_helper.ucg", &len);
	if (text && (s = run_text("md_helper.ucg", text, len, c, NULL))) {
		sim_get_attribution(s, &a);
		printf("sim.helper_to_origin.%s %.2f %%\n", sim_charging_name(c),
		       a.helper_bytes ? 100.0 * (double)a.helper_to_origin / (double)a.helper_bytes
				      : 0.0);
		sim_free(s);
	}
	ucg_free(text);
}

static void bench_events(void)
{
	size_t len;
	char *text = sim_bench_scenario("net_classes.ucg", &len);
	double wall = 0;
	struct sim *s;

	if (!text)
		text = sim_bench_scenario("writeback.ucg", &len);
	if (text && (s = run_text("events.ucg", text, len, SIM_CHARGING_KERNEL, &wall))) {
		printf("sim.events_per_s %.0f events/s\n", wall > 0 ? (double)sim_events(s) / wall : 0);
		sim_free(s);
	}
	ucg_free(text);
}

/* The memcg charge loop: 256 MiB of anon touched in a cgroup limited to 64 MiB with
 * swap (192 MiB swapped in 32-page reclaim rounds, every page charged through the
 * kernel's attempt structure), and the same 256 MiB with no limit (batched). */
static void bench_memcg(void)
{
	static const char *limited = "set swap 1G\nmount -o memory mem\nmkdir mem/a\n"
				     "echo 64M > mem/a/memory.limit_in_bytes\n"
				     "spawn x\necho $x > mem/a/cgroup.procs\nalloc x 256M\nrun 1s\n";
	static const char *free_run = "mount -o memory mem\nmkdir mem/a\n"
				      "spawn x\necho $x > mem/a/cgroup.procs\nalloc x 256M\nrun 1s\n";
	double wall = 0, wall0 = 0;
	struct sim *s;

	s = run_text("memcg.ucg", limited, strlen(limited), SIM_CHARGING_KERNEL, &wall);
	if (!s)
		return;
	sim_free(s);
	s = run_text("memcg0.ucg", free_run, strlen(free_run), SIM_CHARGING_KERNEL, &wall0);
	if (!s)
		return;
	sim_free(s);
	printf("sim.memcg_reclaim_charge_ns %.1f ns/page\n", wall * 1e9 / (192.0 * 256));
	printf("sim.memcg_charge_ns %.3f ns/page\n", wall0 * 1e9 / (256.0 * 256));
}

static void bench_big(void)
{
	struct ucg_buf b;
	double wall = 0;
	struct sim *s;

	ucg_buf_init(&b);
	sim_bench_big_scenario(&b);
	s = run_text("big.ucg", b.data, b.len, SIM_CHARGING_KERNEL, &wall);
	if (s) {
		printf("sim.big_run_s %.2f s\n", wall);
		printf("sim.big_run_events %llu events\n", (unsigned long long)sim_events(s));
		sim_free(s);
	}
	ucg_buf_fini(&b);
}

/* failcnt after one memcg OOM: a fresh cgroup limited to 16 MiB and a process
 * touching 64 MiB of anonymous memory page by page, in the kernel (a scratch child
 * of the v1 memory hierarchy, removed afterwards; three runs) and in the simulator
 * (the same as a scenario). The kernel's figure varies run to run with where its
 * per-CPU stock and its own kernel-memory charges leave usage (19 + 0..63). */
static long kernel_oom_failcnt(void)
{
	char dir[128], path[192], buf[64];
	long failcnt = -1;
	pid_t pid;
	int fd, i, st;

	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory/ucg-bench-failcnt-%d", (int)getpid());
	if (mkdir(dir, 0755) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", dir);
	if (bench_write_str(path, "16777216") < 0)
		goto out;
	pid = fork();
	if (pid == 0) {
		size_t len = 64u << 20, off;
		char *p;

		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		if (bench_write_str(path, "0") < 0)
			_exit(2);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/memory.failcnt", dir);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n > 0) {
			buf[n] = 0;
			failcnt = strtol(buf, NULL, 10);
		}
		close(fd);
	}
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		failcnt = -1; /* no OOM kill: not the case measured */
out:
	/* the killed task may take a moment to leave the cgroup */
	for (i = 0; i < 50 && rmdir(dir) < 0; i++)
		usleep(100000);
	return failcnt;
}

static void bench_failcnt(void)
{
	static const char *text = "mount -o memory mem\nmkdir mem/a\necho 16M > mem/a/memory.limit_in_bytes\n"
				  "spawn x\necho $x > mem/a/cgroup.procs\nalloc x 64M\nrun 1s\n";
	struct ucg_buf b;
	struct sim_hier *h;
	struct sim *s;
	double wall;
	int i;

	s = run_text("failcnt.ucg", text, strlen(text), SIM_CHARGING_KERNEL, &wall);
	if (s) {
		ucg_buf_init(&b);
		h = sim_hier_by_name(s, "mem");
		if (h && ucg_fs_read_all(s->e, h->h, "/a/memory.failcnt", &s->root_cred, &b) == 0 && b.data)
			printf("sim.oom_failcnt %ld failures\n", strtol(b.data, NULL, 10));
		ucg_buf_fini(&b);
		sim_free(s);
	}
	if (geteuid() != 0 || access("/sys/fs/cgroup/memory/memory.failcnt", F_OK) < 0) {
		printf("# kernel.oom_failcnt skipped: needs root and the v1 memory hierarchy\n");
		return;
	}
	for (i = 0; i < 3; i++) {
		long k = kernel_oom_failcnt();

		if (k >= 0)
			printf("kernel.oom_failcnt %ld failures\n", k);
	}
}

int main(int argc, char **argv)
{
	int c;

	for (c = 0; c < SIM_CHARGING_NR; c++)
		bench_records((enum sim_charging)c);
	for (c = 0; c < SIM_CHARGING_NR; c++)
		bench_accuracy((enum sim_charging)c);
	bench_events();
	bench_memcg();
	bench_failcnt();
	if (argc < 2 || strcmp(argv[1], "quick"))
		bench_big();
	return 0;
}
