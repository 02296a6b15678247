/* bench/bench_cpu_task_controllers.c — what the controllers of CPUs and tasks cost
 * (cpuset, cpu, cpuacct, freezer, pids, net_cls, net_prio), beside the kernel.
 *
 * Prints one figure per line, "name value unit". Engine figures come from an
 * in-process engine; `kernel.` figures are measured in the same run in scratch children
 * (ucgbenchA<pid>) of the host's v1 hierarchies under /sys/fs/cgroup, or of a /tmp
 * mount for net_cls/net_prio (root and cgroup v1 needed; otherwise they are left out,
 * with a line on stderr saying why).
 *
 *   cpuacct.charge.depthD     one ucg_cpuacct_charge() of a task D cgroups deep
 *   pids.fork_exit.depthD     can_fork+fork+exit+reap of a task D cgroups deep, every
 *                             level limited (kernel: fork + _exit + waitpid of a real
 *                             process in a pids cgroup D deep)
 *   pids.fork_refused.depthD  a fork refused by the top-level limit D levels up
 *   write.FILE / read.FILE    open+write(2)+close / open+read+close of one control
 *                             file in a child (kernel: the same file of a scratch child)
 *   freezer.freeze_thaw_64x16 FROZEN then THAWED on the top of a 64-cgroup subtree
 *                             holding 16 tasks per cgroup
 */
#include "controllers/charge.h"
#include "engine/ucg.h"

#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The cgroup of task tid for controller ss, as a caller holding a task finds it
 * (looked up at every call, as the charge calls taking a tid did). */
static struct ucg_cgroup *task_cg(struct ucg_engine *e, int tid, int ss)
{
	struct ucg_cgroup *cg = NULL;

	ucg_task_subsys_cgroup(e, tid, ss, &cg);
	return cg;
}

static struct ucg_engine *new_engine(void)
{
	struct ucg_engine_config cfg;
	struct ucg_engine *e = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_cpus = 2;
	cfg.nr_mems = 1;
	if (ucg_engine_new(&cfg, &e) < 0)
		exit(1);
	return e;
}

static void add_task(struct ucg_engine *e, int pid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = pid;
	ucg_task_add(e, &ti);
}

/* Makes /c/c/.../c, depth levels; path gets the deepest directory. */
static void make_chain(struct ucg_engine *e, struct ucg_hierarchy *h, int depth, char *path,
		       size_t n, const char *file, const char *value)
{
	struct ucg_cred root = ucg_cred_root();
	char f[4200];
	int i;

	path[0] = '\0';
	for (i = 0; i < depth; i++) {
		strncat(path, "/c", n - strlen(path) - 1);
		ucg_fs_mkdir(e, h, path, 0755, &root);
		if (file) {
			snprintf(f, sizeof(f), "%s/%s", path, file);
			ucg_fs_write_all(e, h, f, &root, value, strlen(value));
		}
	}
}

static void attach(struct ucg_engine *e, struct ucg_hierarchy *h, const char *dir, int pid)
{
	struct ucg_cred root = ucg_cred_root();
	char f[4200], s[16];

	snprintf(f, sizeof(f), "%s/cgroup.procs", dir);
	snprintf(s, sizeof(s), "%d", pid);
	ucg_fs_write_all(e, h, f, &root, s, strlen(s));
}

static const int depths[] = { 1, 8, 64 };

static void bench_cpuacct(void)
{
	size_t d;

	for (d = 0; d < 3; d++) {
		struct ucg_engine *e = new_engine();
		struct ucg_hierarchy *h;
		char path[512];
		double t0;
		int i, n = 1000000;

		ucg_mount(e, "cpu,cpuacct", &h, NULL);
		make_chain(e, h, depths[d], path, sizeof(path), NULL, NULL);
		add_task(e, 100);
		attach(e, h, path, 100);
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			ucg_cpuacct_charge(task_cg(e, 100, UCG_SS_cpuacct), (unsigned)i & 1, 1000, 10);
		printf("cpuacct.charge.depth%d %.1f ns\n", depths[d], (bench_now_ns() - t0) / n);
		ucg_engine_free(e);
	}
}

static void bench_pids(void)
{
	size_t d;

	for (d = 0; d < 3; d++) {
		struct ucg_engine *e = new_engine();
		struct ucg_hierarchy *h;
		struct ucg_task_info ti;
		char path[512];
		double t0;
		int i, n = 300000;

		ucg_mount(e, "pids", &h, NULL);
		make_chain(e, h, depths[d], path, sizeof(path), "pids.max", "1000");
		add_task(e, 100);
		attach(e, h, path, 100);
		memset(&ti, 0, sizeof(ti));
		t0 = bench_now_ns();
		for (i = 0; i < n; i++) {
			ti.tid = ti.tgid = 1000 + (i & 0xffff);
			ucg_task_fork(e, 100, &ti);
			ucg_task_exit(e, ti.tid);
			ucg_task_reap(e, ti.tid);
		}
		printf("pids.fork_exit.depth%d %.1f ns\n", depths[d], (bench_now_ns() - t0) / n);
		/* Refused at the top: fill the top-level limit with the parent alone. */
		{
			struct ucg_cred root = ucg_cred_root();

			ucg_fs_write_all(e, h, "/c/pids.max", &root, "1", 1);
			t0 = bench_now_ns();
			for (i = 0; i < n; i++) {
				ti.tid = ti.tgid = 1000;
				ucg_task_fork(e, 100, &ti);
			}
			printf("pids.fork_refused.depth%d %.1f ns\n", depths[d], (bench_now_ns() - t0) / n);
		}
		ucg_engine_free(e);
	}
}

struct file_case {
	const char *mount, *file, *value, *prep_file, *prep_value;
};

static const struct file_case files[] = {
	{ "cpuset", "cpuset.cpus", "0-1", "cpuset.mems", "0" },
	{ "cpuset", "cpuset.cpu_exclusive", "0", NULL, NULL },
	{ "cpu", "cpu.shares", "512", NULL, NULL },
	{ "cpu", "cpu.cfs_quota_us", "50000", NULL, NULL },
	{ "cpu", "cpu.rt_runtime_us", "0", NULL, NULL },
	{ "cpuacct", "cpuacct.usage", "0", NULL, NULL },
	{ "freezer", "freezer.state", "THAWED", NULL, NULL },
	{ "pids", "pids.max", "100", NULL, NULL },
	{ "net_cls,net_prio", "net_cls.classid", "0x100001", NULL, NULL },
	{ "net_cls,net_prio", "net_prio.ifpriomap", "lo 3", NULL, NULL },
};

static void bench_files(void)
{
	size_t k;

	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		struct ucg_engine *e = new_engine();
		struct ucg_cred root = ucg_cred_root();
		struct ucg_hierarchy *h;
		struct ucg_buf b;
		char path[256];
		double t0;
		int i, n = 200000;

		ucg_mount(e, files[k].mount, &h, NULL);
		ucg_fs_mkdir(e, h, "/bench", 0755, &root);
		if (files[k].prep_file) {
			snprintf(path, sizeof(path), "/bench/%s", files[k].prep_file);
			ucg_fs_write_all(e, h, path, &root, files[k].prep_value,
					 strlen(files[k].prep_value));
		}
		snprintf(path, sizeof(path), "/bench/%s", files[k].file);
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			ucg_fs_write_all(e, h, path, &root, files[k].value, strlen(files[k].value));
		printf("write.%s %.1f ns\n", files[k].file, (bench_now_ns() - t0) / n);
		ucg_buf_init(&b);
		t0 = bench_now_ns();
		for (i = 0; i < n; i++) {
			ucg_buf_reset(&b);
			ucg_fs_read_all(e, h, path, &root, &b);
		}
		printf("read.%s %.1f ns\n", files[k].file, (bench_now_ns() - t0) / n);
		ucg_buf_fini(&b);
		ucg_engine_free(e);
	}
}

static void bench_freezer(void)
{
	struct ucg_engine *e = new_engine();
	struct ucg_cred root = ucg_cred_root();
	struct ucg_hierarchy *h;
	char path[512];
	double t0;
	int i, j, n = 2000, pid = 100;

	ucg_mount(e, "freezer", &h, NULL);
	ucg_fs_mkdir(e, h, "/top", 0755, &root);
	for (i = 0; i < 63; i++) {
		snprintf(path, sizeof(path), "/top/c%d", i);
		ucg_fs_mkdir(e, h, path, 0755, &root);
		for (j = 0; j < 16; j++) {
			add_task(e, pid);
			attach(e, h, path, pid++);
		}
	}
	for (j = 0; j < 16; j++) {
		add_task(e, pid);
		attach(e, h, "/top", pid++);
	}
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ucg_fs_write_all(e, h, "/top/freezer.state", &root, "FROZEN", 6);
		ucg_fs_write_all(e, h, "/top/freezer.state", &root, "THAWED", 6);
	}
	printf("freezer.freeze_thaw_64x16 %.0f ns\n", (bench_now_ns() - t0) / n);
	ucg_engine_free(e);
}

/* ---- kernel figures ------------------------------------------------------------------ */

static char scratch[64];

static void kernel_pids(void)
{
	char base[256], path[1024], f[1100];
	size_t d;

	snprintf(base, sizeof(base), "/sys/fs/cgroup/pids/%s", scratch);
	if (mkdir(base, 0755) < 0) {
		fprintf(stderr, "no kernel pids figures: %s: %s\n", base, strerror(errno));
		return;
	}
	for (d = 0; d < 3; d++) {
		int i, n = 2000, lvl;
		double t0;
		pid_t runner;
		int st;

		snprintf(path, sizeof(path), "%s", base);
		for (lvl = 0; lvl < depths[d]; lvl++) {
			strncat(path, "/c", sizeof(path) - strlen(path) - 1);
			mkdir(path, 0755);
			snprintf(f, sizeof(f), "%s/pids.max", path);
			bench_write_str(f, "1000");
		}
		/* A runner process inside the deepest cgroup forks and reaps n children. */
		runner = fork();
		if (runner == 0) {
			char s[16];

			snprintf(f, sizeof(f), "%s/cgroup.procs", path);
			snprintf(s, sizeof(s), "%d", (int)getpid());
			if (bench_write_str(f, s) < 0)
				_exit(1);
			t0 = bench_now_ns();
			for (i = 0; i < n; i++) {
				pid_t p = fork();

				if (p == 0)
					_exit(0);
				waitpid(p, NULL, 0);
			}
			printf("kernel.pids.fork_exit.depth%d %.0f ns\n", depths[d], (bench_now_ns() - t0) / n);
			fflush(stdout);
			_exit(0);
		}
		waitpid(runner, &st, 0);
		for (lvl = depths[d]; lvl > 0; lvl--) {
			rmdir(path);
			path[strlen(path) - 2] = '\0';
		}
	}
	rmdir(base);
}

static void kernel_files(void)
{
	size_t k;
	char mnt[128];
	int mounted = 0;

	snprintf(mnt, sizeof(mnt), "/tmp/ucg-probe-benchA-%d", (int)getpid());
	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char dir[512], path[700], buf[4096];
		const char *m = files[k].mount;
		double t0;
		int i, n = 20000, fd;

		if (!strcmp(m, "net_cls,net_prio")) {
			if (!mounted) {
				mkdir(mnt, 0755);
				if (mount("cgroup", mnt, "cgroup", 0, m) < 0) {
					fprintf(stderr, "no kernel %s figures: mount: %s\n", files[k].file,
						strerror(errno));
					rmdir(mnt);
					continue;
				}
				mounted = 1;
			}
			snprintf(dir, sizeof(dir), "%s/%s", mnt, scratch);
		} else {
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/%s/%s", m, scratch);
		}
		if (mkdir(dir, 0755) < 0) {
			fprintf(stderr, "no kernel %s figures: %s: %s\n", files[k].file, dir,
				strerror(errno));
			continue;
		}
		if (files[k].prep_file) {
			snprintf(path, sizeof(path), "%s/%s", dir, files[k].prep_file);
			bench_write_str(path, files[k].prep_value);
		}
		snprintf(path, sizeof(path), "%s/%s", dir, files[k].file);
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			bench_write_str(path, files[k].value);
		printf("kernel.write.%s %.0f ns\n", files[k].file, (bench_now_ns() - t0) / n);
		t0 = bench_now_ns();
		for (i = 0; i < n; i++) {
			fd = open(path, O_RDONLY);
			if (fd >= 0) {
				if (read(fd, buf, sizeof(buf)) < 0)
					break;
				close(fd);
			}
		}
		printf("kernel.read.%s %.0f ns\n", files[k].file, (bench_now_ns() - t0) / n);
		rmdir(dir);
	}
	if (mounted) {
		umount2(mnt, 0);
		rmdir(mnt);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_cpuacct();
	bench_pids();
	bench_files();
	bench_freezer();
	snprintf(scratch, sizeof(scratch), "ucgbenchA%d", (int)getpid());
	if (geteuid() != 0 || access("/proc/cgroups", R_OK) != 0) {
		fprintf(stderr, "no kernel figures: needs root and cgroup v1\n");
		return 0;
	}
	kernel_pids();
	kernel_files();
	return 0;
}
