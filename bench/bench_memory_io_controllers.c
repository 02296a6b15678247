/* bench/bench_memory_io_controllers.c — what the memory, hugetlb, blkio and devices
 * controllers cost, beside the kernel where the kernel can be measured.
 *
 * Prints one figure per line, "name value unit". Engine figures come from an
 * in-process engine with the four controllers on one hierarchy and a task at the
 * bottom of a chain of D cgroups (D = 1, 8, 64):
 *
 *   memory_charge_dD / memory_uncharge_dD     one 4 KiB page, by task
 *   memory_charge_path_dD                     charge + uncharge of a page by path
 *   hugetlb_charge_uncharge_dD                one 2MB page charged and uncharged
 *   blkio_account_dD                          one completed I/O accounted
 *   blkio_limits_dD                           the throttle limits/weight query
 *   devices_may_access_dD                     one access check (deny-all, 3 rules)
 *   write_*, read_*                           one control-file write or read (open
 *                                             included), in the depth-8 cgroup
 *
 * `kernel.` figures are measured in the same run on scratch children of the host's
 * v1 hierarchies (hugetlb mounted under /tmp); needs root and cgroup v1, else they are
 * left out with a line on stderr. The kernel cannot charge a page without faulting
 * it, so kernel.memory_fault_page_dD is a whole anonymous page fault plus its unmap
 * (charge and uncharge included) in a process of ours placed D deep — an upper bound
 * for the kernel's charge, not the same operation as the engine's.
 */
#include "controllers/charge.h"
#include "controllers/devices_rules.h"
#include "engine/ucg.h"

#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const int depths[] = { 1, 8, 64 };

/* "/c/c/.../c" d levels deep, in out */
/* The cgroup of task tid for controller ss, as a caller holding a task finds it
 * (looked up at every call, as the charge calls taking a tid did). */
static struct ucg_cgroup *task_cg(struct ucg_engine *e, int tid, int ss)
{
	struct ucg_cgroup *cg = NULL;

	ucg_task_subsys_cgroup(e, tid, ss, &cg);
	return cg;
}

/* The cgroup at path in h (looked up at every call, as the calls taking a path did). */
static struct ucg_cgroup *path_cg(struct ucg_hierarchy *h, const char *path)
{
	struct ucg_cgroup *cg = NULL;

	ucg_cgroup_lookup(h, path, &cg);
	return cg;
}

static void chain_path(char *out, size_t n, int d)
{
	size_t len = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < d && len + 3 < n; i++) {
		memcpy(out + len, "/c", 3);
		len += 2;
	}
}

static void engine_depth(int d)
{
	struct ucg_engine *e;
	struct ucg_hierarchy *h;
	struct ucg_cred root = ucg_cred_root();
	struct ucg_task_info ti;
	struct ucg_blkio_limits l;
	char path[512], file[600];
	double t0;
	int i, n;

	ucg_engine_new(NULL, &e);
	ucg_mount(e, "memory,hugetlb,blkio,devices", &h, NULL);
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = 100;
	ucg_task_add(e, &ti);
	for (i = 1; i <= d; i++) {
		chain_path(path, sizeof(path), i);
		ucg_fs_mkdir(e, h, path, 0755, &root);
		snprintf(file, sizeof(file), "%s/memory.limit_in_bytes", path);
		ucg_fs_write_all(e, h, file, &root, "1G", 2);
		snprintf(file, sizeof(file), "%s/blkio.throttle.read_bps_device", path);
		ucg_fs_write_all(e, h, file, &root, "7:0 1000000", 11);
	}
	chain_path(path, sizeof(path), d);
	snprintf(file, sizeof(file), "%s/devices.deny", path);
	ucg_fs_write_all(e, h, file, &root, "a", 1);
	snprintf(file, sizeof(file), "%s/devices.allow", path);
	ucg_fs_write_all(e, h, file, &root, "c 1:3 rwm", 9);
	ucg_fs_write_all(e, h, file, &root, "c 1:5 rw", 8);
	ucg_fs_write_all(e, h, file, &root, "b 8:* r", 7);
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	ucg_fs_write_all(e, h, file, &root, "100", 3);

	n = 200000;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_memory_charge(task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 1, NULL);
	printf("memory_charge_d%d %.1f ns\n", d, (bench_now_ns() - t0) / n);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_memory_uncharge(task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 1);
	printf("memory_uncharge_d%d %.1f ns\n", d, (bench_now_ns() - t0) / n);

	n = 20000;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ucg_memory_charge(path_cg(h, path), UCG_MEM_FILE, 1, NULL);
		ucg_memory_uncharge(path_cg(h, path), UCG_MEM_FILE, 1);
	}
	printf("memory_charge_path_d%d %.1f ns\n", d, (bench_now_ns() - t0) / n);

	n = 200000;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ucg_hugetlb_charge(task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, 1, NULL);
		ucg_hugetlb_uncharge(task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, 1);
	}
	printf("hugetlb_charge_uncharge_d%d %.1f ns\n", d, (bench_now_ns() - t0) / n);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_blkio_account(task_cg(e, 100, UCG_SS_blkio), 7, 0, UCG_BIO_READ, true, 4096, 1);
	printf("blkio_account_d%d %.1f ns\n", d, (bench_now_ns() - t0) / n);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_blkio_limits(task_cg(e, 100, UCG_SS_blkio), 7, 0, &l);
	printf("blkio_limits_d%d %.1f ns\n", d, (bench_now_ns() - t0) / n);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_devices_may_access(task_cg(e, 100, UCG_SS_devices), 'b', 8, (uint32_t)i & 15,
				       UCG_DEV_ACC_READ);
	printf("devices_may_access_d%d %.1f ns\n", d, (bench_now_ns() - t0) / n);

	if (d == 8) {
		static const struct {
			const char *name, *file, *a, *b;
		} w[] = {
			{ "write_memory_limit", "memory.limit_in_bytes", "100M", "200M" },
			{ "write_memory_swappiness", "memory.swappiness", "10", "20" },
			{ "write_hugetlb_limit", "hugetlb.2MB.limit_in_bytes", "2M", "4M" },
			{ "write_blkio_throttle", "blkio.throttle.read_bps_device", "7:0 100",
			  "7:0 200" },
			{ "write_devices_deny_allow", "devices.deny", "c 1:5 w", NULL },
		};
		static const struct {
			const char *name, *file;
		} r[] = {
			{ "read_memory_stat", "memory.stat" },
			{ "read_memory_usage", "memory.usage_in_bytes" },
			{ "read_hugetlb_usage", "hugetlb.2MB.usage_in_bytes" },
			{ "read_blkio_io_serviced", "blkio.throttle.io_serviced" },
			{ "read_blkio_io_serviced_recursive", "blkio.throttle.io_serviced_recursive" },
			{ "read_devices_list", "devices.list" },
		};
		size_t k;
		struct ucg_buf b;
		char p2[600];

		/* the depth-8 cgroup is the bottom of the chain here */
		for (k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
			snprintf(file, sizeof(file), "%s/%s", path, w[k].file);
			snprintf(p2, sizeof(p2), "%s/devices.allow", path);
			n = 20000;
			t0 = bench_now_ns();
			for (i = 0; i < n; i++) {
				if (w[k].b) {
					const char *v = i & 1 ? w[k].b : w[k].a;

					ucg_fs_write_all(e, h, file, &root, v, strlen(v));
				} else if (i & 1) {
					ucg_fs_write_all(e, h, p2, &root, w[k].a, strlen(w[k].a));
				} else {
					ucg_fs_write_all(e, h, file, &root, w[k].a, strlen(w[k].a));
				}
			}
			printf("%s %.0f ns\n", w[k].name, (bench_now_ns() - t0) / n);
		}
		ucg_buf_init(&b);
		for (k = 0; k < sizeof(r) / sizeof(r[0]); k++) {
			snprintf(file, sizeof(file), "%s/%s", path, r[k].file);
			n = 20000;
			t0 = bench_now_ns();
			for (i = 0; i < n; i++) {
				ucg_buf_reset(&b);
				ucg_fs_read_all(e, h, file, &root, &b);
			}
			printf("%s %.0f ns\n", r[k].name, (bench_now_ns() - t0) / n);
		}
		ucg_buf_fini(&b);
	}
	ucg_engine_free(e);
}

/* ---- kernel side ------------------------------------------------------------------- */

static char uniq[64];

static void kread(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* d nested scratch children under root; out gets the deepest; returns 0 or -errno */
static int kchain(const char *root, int d, char *out, size_t n)
{
	int i;

	snprintf(out, n, "%s/%s", root, uniq);
	if (mkdir(out, 0755) < 0)
		return -errno;
	for (i = 1; i < d; i++) {
		size_t len = strlen(out);

		if (len + 3 >= n)
			return -ENAMETOOLONG;
		memcpy(out + len, "/c", 3);
		if (mkdir(out, 0755) < 0)
			return -errno;
	}
	return 0;
}

static void krmchain(const char *root, int d)
{
	char p[1024];
	int i;

	for (i = d; i >= 1; i--) {
		int j;

		snprintf(p, sizeof(p), "%s/%s", root, uniq);
		for (j = 1; j < i; j++)
			strncat(p, "/c", sizeof(p) - strlen(p) - 1);
		rmdir(p);
	}
}

static void kernel_write_pair(const char *name, const char *file, const char *a, const char *b,
			      const char *file_b)
{
	int i, n = 20000;
	double t0 = bench_now_ns();

	if (bench_write_str(file, a) < 0) {
		fprintf(stderr, "bench_memory_io_controllers: %s: %s\n", name, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++)
		bench_write_str(i & 1 && file_b ? file_b : file, i & 1 && b ? b : a);
	printf("kernel.%s %.0f ns\n", name, (bench_now_ns() - t0) / n);
}

static void kernel_read(const char *name, const char *file)
{
	int i, n = 20000;
	double t0 = bench_now_ns();

	for (i = 0; i < n; i++)
		kread(file);
	printf("kernel.%s %.0f ns\n", name, (bench_now_ns() - t0) / n);
}

/* A child of ours joins dir, then faults and unmaps 16384 anonymous pages; ns/page. */
static void kernel_fault(const char *dir, int d)
{
	int pfd[2];
	double ns = -1;
	pid_t p;
	char procs[1100];

	if (pipe(pfd) < 0)
		return;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	p = fork();
	if (p == 0) {
		size_t len = 16384 * 4096ul, off;
		double t0, best = 1e30;
		int rep;

		close(pfd[0]);
		if (bench_write_str(procs, "0") < 0)
			_exit(1);
		for (rep = 0; rep < 5; rep++) {
			char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				       -1, 0);

			if (m == MAP_FAILED)
				_exit(1);
			t0 = bench_now_ns();
			for (off = 0; off < len; off += 4096)
				m[off] = 1;
			munmap(m, len);
			t0 = (bench_now_ns() - t0) / 16384;
			if (t0 < best)
				best = t0;
		}
		if (write(pfd[1], &best, sizeof(best)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (p > 0) {
		if (read(pfd[0], &ns, sizeof(ns)) != sizeof(ns))
			ns = -1;
		waitpid(p, NULL, 0);
	}
	close(pfd[0]);
	if (ns > 0)
		printf("kernel.memory_fault_page_d%d %.1f ns\n", d, ns);
}

static void kernel_figures(void)
{
	char dir[1024], f[1100], f2[1100], hmnt[128];
	size_t k;

	if (geteuid() != 0 || access("/sys/fs/cgroup/memory/tasks", F_OK) != 0) {
		fprintf(stderr, "bench_memory_io_controllers: kernel figures need root and cgroup v1; left out\n");
		return;
	}
	snprintf(uniq, sizeof(uniq), "ucgbenchb%d", (int)getpid());
	for (k = 0; k < sizeof(depths) / sizeof(depths[0]); k++) {
		if (kchain("/sys/fs/cgroup/memory", depths[k], dir, sizeof(dir)) == 0)
			kernel_fault(dir, depths[k]);
		if (depths[k] == 8) {
			snprintf(f, sizeof(f), "%s/memory.limit_in_bytes", dir);
			kernel_write_pair("write_memory_limit", f, "100M", "200M", NULL);
			snprintf(f, sizeof(f), "%s/memory.swappiness", dir);
			kernel_write_pair("write_memory_swappiness", f, "10", "20", NULL);
			snprintf(f, sizeof(f), "%s/memory.stat", dir);
			kernel_read("read_memory_stat", f);
			snprintf(f, sizeof(f), "%s/memory.usage_in_bytes", dir);
			kernel_read("read_memory_usage", f);
		}
		krmchain("/sys/fs/cgroup/memory", depths[k]);
	}
	if (kchain("/sys/fs/cgroup/blkio", 8, dir, sizeof(dir)) == 0) {
		snprintf(f, sizeof(f), "%s/blkio.throttle.read_bps_device", dir);
		kernel_write_pair("write_blkio_throttle", f, "7:0 100", "7:0 200", NULL);
		snprintf(f, sizeof(f), "%s/blkio.throttle.io_serviced", dir);
		kernel_read("read_blkio_io_serviced", f);
		snprintf(f, sizeof(f), "%s/blkio.throttle.io_serviced_recursive", dir);
		kernel_read("read_blkio_io_serviced_recursive", f);
	}
	krmchain("/sys/fs/cgroup/blkio", 8);
	if (kchain("/sys/fs/cgroup/devices", 8, dir, sizeof(dir)) == 0) {
		snprintf(f, sizeof(f), "%s/devices.deny", dir);
		snprintf(f2, sizeof(f2), "%s/devices.allow", dir);
		bench_write_str(f, "a");
		bench_write_str(f2, "c 1:3 rwm");
		bench_write_str(f2, "c 1:5 rw");
		bench_write_str(f2, "b 8:* r");
		kernel_write_pair("write_devices_deny_allow", f, "c 1:5 w", NULL, f2);
		snprintf(f, sizeof(f), "%s/devices.list", dir);
		kernel_read("read_devices_list", f);
	}
	krmchain("/sys/fs/cgroup/devices", 8);
	snprintf(hmnt, sizeof(hmnt), "/tmp/ucg-probe-%s", uniq);
	if (mkdir(hmnt, 0755) == 0 && mount("cgroup", hmnt, "cgroup", 0, "hugetlb") == 0) {
		if (kchain(hmnt, 8, dir, sizeof(dir)) == 0) {
			snprintf(f, sizeof(f), "%s/hugetlb.2MB.limit_in_bytes", dir);
			kernel_write_pair("write_hugetlb_limit", f, "2M", "4M", NULL);
			snprintf(f, sizeof(f), "%s/hugetlb.2MB.usage_in_bytes", dir);
			kernel_read("read_hugetlb_usage", f);
		}
		krmchain(hmnt, 8);
		umount(hmnt);
	}
	rmdir(hmnt);
}

int main(void)
{
	size_t k;

	for (k = 0; k < sizeof(depths) / sizeof(depths[0]); k++)
		engine_depth(depths[k]);
	kernel_figures();
	return 0;
}
