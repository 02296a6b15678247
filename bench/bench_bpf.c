/* bench/bench_bpf.c — the cost of enforcing devices through a cgroup BPF program
 * (host/bpf_compile.c, host/bpf_load.c), beside the kernel's v1 devices cgroup.
 *
 *   compile_N        ns to compile a deny-all list of N grants (pure)
 *   load_N           us for BPF_PROG_LOAD of it (the verifier included);
 *                    libbpf.load_N the same through libbpf's bpf_prog_load() when
 *                    the build found libbpf (the choice in host/bpf_load.h)
 *   attach_N         us for BPF_PROG_ATTACH to a v2 directory + BPF_PROG_DETACH
 *   replace_N        us for one BPF_F_REPLACE of an attached program
 *   open             CPU ns per open(2) + close(2) of /dev/null by a process in a
 *                    scratch v2 cgroup with no program; open_N with the program
 *                    of N rules attached (/dev/null's grant is the last: every
 *                    compare runs); kernel.open_v1_N the same in a v1 devices
 *                    cgroup of N exceptions, where the host has one
 *   socket           ns per socket(2) + close(2) of a UDP socket there; socket_classid
 *                    with the net_cls program (priority = classid) attached
 *
 * Needs root, a writable cgroup2 mount and bpf(2); works in scratch cgroups
 * (ucgbench-bpf-PID) removed at the end. Prints "name value unit" lines.
 */
#include "bench_util.h"

#include "host/bpf_compile.h"
#include "host/bpf_load.h"

#ifdef UCG_HAVE_LIBBPF
#include <bpf/bpf.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OPENS 100000

/* deny-all, n grants: n-1 that match nothing opened here, then c 1:3 rwm */
static void make_rules(struct ucg_devrules *r, int n)
{
	struct ucg_dev_rule rule = { UCG_DEV_ALL, UCG_DEV_ANY, UCG_DEV_ANY, UCG_DEV_ACC_ALL };
	int i;

	ucg_devrules_init(r);
	ucg_devrules_write(r, NULL, UCG_DEV_FILE_DENY, &rule, NULL);
	for (i = 0; i < n; i++) {
		rule.type = UCG_DEV_CHAR;
		rule.major = i == n - 1 ? 1 : 200;
		rule.minor = i == n - 1 ? 3 : (uint32_t)i;
		rule.access = i == n - 1 ? UCG_DEV_ACC_ALL : UCG_DEV_ACC_READ;
		ucg_devrules_write(r, NULL, UCG_DEV_FILE_ALLOW, &rule, NULL);
	}
}

/* CPU ns of this thread: the open loops below are measured in CPU time, so a busy
 * machine's run-queue waits do not count */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU ns per open+close of /dev/null (sock: per socket+close of a UDP socket) in a
 * child moved into procs (a cgroup.procs file) */
static double op_cost(const char *procs, int sock)
{
	int p[2];
	double ns = -1;
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		char num[16];
		double t0, r = -1;
		int i, fd;

		snprintf(num, sizeof(num), "%d", (int)getpid());
		if (bench_write_str(procs, num) == 0) {
			t0 = cpu_ns();
			for (i = 0; i < OPENS; i++) {
				fd = sock ? socket(AF_INET, SOCK_DGRAM, 0)
					  : open("/dev/null", O_RDONLY);
				if (fd < 0)
					break;
				close(fd);
			}
			if (i == OPENS)
				r = (cpu_ns() - t0) / OPENS;
		}
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &ns, sizeof(ns)) != sizeof(ns))
		ns = -1;
	close(p[0]);
	waitpid(c, NULL, 0);
	return ns;
}

static int load(const struct bpf_insn *insns, int n)
{
	return ucg_bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, 0, insns, (size_t)n, NULL, 0);
}

/* the v1 devices cgroup dir with n exceptions as make_rules; 0 or -errno */
static int v1_setup(const char *dir, int n)
{
	char file[300], rule[64];
	int i, e;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	snprintf(file, sizeof(file), "%s/devices.allow", dir);
	bench_write_str(file, "a");
	snprintf(file, sizeof(file), "%s/devices.deny", dir);
	if ((e = bench_write_str(file, "a")) < 0)
		return e;
	snprintf(file, sizeof(file), "%s/devices.allow", dir);
	for (i = 0; i < n; i++) {
		if (i == n - 1)
			snprintf(rule, sizeof(rule), "c 1:3 rwm");
		else
			snprintf(rule, sizeof(rule), "c 200:%d r", i);
		if ((e = bench_write_str(file, rule)) < 0)
			return e;
	}
	return 0;
}

int main(void)
{
	static const int sizes[] = { 1, 10, 100 };
	char dir[256], procs[300], v1dir[256], v1procs[300];
	int cg, s, i;

	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/unified/ucgbench-bpf-%d", (int)getpid());
	if (access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) != 0)
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/ucgbench-bpf-%d", (int)getpid());
	if (mkdir(dir, 0755) != 0) {
		printf("# skipped: no writable cgroup2 mount (%s)\n", strerror(errno));
		return 0;
	}
	cg = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(v1dir, sizeof(v1dir), "/sys/fs/cgroup/devices/ucgbench-bpf-%d", (int)getpid());
	snprintf(v1procs, sizeof(v1procs), "%s/cgroup.procs", v1dir);
	printf("open %.0f ns\n", op_cost(procs, 0));
	if (access("/sys/fs/cgroup/devices/devices.allow", W_OK) == 0)
		printf("kernel.open_v1_0 %.0f ns\n",
		       op_cost("/sys/fs/cgroup/devices/cgroup.procs", 0));
	for (s = 0; s < 3; s++) {
		int n = sizes[s], len = 0, fd[2], iters = 200;
		struct bpf_insn *insns = malloc(UCG_BPF_DEV_INSNS(n) * sizeof(*insns));
		struct ucg_devrules r;
		double t0;

		make_rules(&r, n);
		t0 = bench_now_ns();
		for (i = 0; i < 2000; i++)
			len = ucg_bpf_devices_compile(&r, insns, UCG_BPF_DEV_INSNS(n));
		printf("compile_%d %.0f ns (%d insns)\n", n, (bench_now_ns() - t0) / 2000, len);
		fd[0] = load(insns, len);
		if (fd[0] < 0) {
			printf("# skipped: bpf(2) refused the program: %s\n", strerror(-fd[0]));
			ucg_devrules_fini(&r);
			free(insns);
			break;
		}
		t0 = bench_now_ns();
		for (i = 0; i < iters; i++)
			close(load(insns, len));
		printf("load_%d %.1f us\n", n, (bench_now_ns() - t0) / iters / 1000);
#ifdef UCG_HAVE_LIBBPF
		t0 = bench_now_ns();
		for (i = 0; i < iters; i++)
			close(bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, "ucg", "GPL", insns,
					    (size_t)len, NULL));
		printf("libbpf.load_%d %.1f us\n", n, (bench_now_ns() - t0) / iters / 1000);
#endif
		t0 = bench_now_ns();
		for (i = 0; i < iters; i++) {
			ucg_bpf_cgroup_attach(cg, fd[0], BPF_CGROUP_DEVICE, -1);
			ucg_bpf_cgroup_detach(cg, fd[0], BPF_CGROUP_DEVICE);
		}
		printf("attach_%d %.1f us\n", n, (bench_now_ns() - t0) / iters / 1000);
		fd[1] = load(insns, len);
		ucg_bpf_cgroup_attach(cg, fd[0], BPF_CGROUP_DEVICE, -1);
		t0 = bench_now_ns();
		for (i = 0; i < iters; i++)
			ucg_bpf_cgroup_attach(cg, fd[(i + 1) % 2], BPF_CGROUP_DEVICE, fd[i % 2]);
		printf("replace_%d %.1f us\n", n, (bench_now_ns() - t0) / iters / 1000);
		printf("open_%d %.0f ns\n", n, op_cost(procs, 0));
		ucg_bpf_cgroup_detach_others(cg, BPF_CGROUP_DEVICE, -1);
		close(fd[0]);
		close(fd[1]);
		ucg_devrules_fini(&r);
		free(insns);
		if (access("/sys/fs/cgroup/devices/devices.allow", W_OK) == 0 &&
		    v1_setup(v1dir, n) == 0)
			printf("kernel.open_v1_%d %.0f ns\n", n, op_cost(v1procs, 0));
	}
	{
		struct bpf_insn insns[4];
		int n = ucg_bpf_classid_compile(0x100001, insns, 4), fd;

		printf("socket %.0f ns\n", op_cost(procs, 1));
		fd = ucg_bpf_prog_load(BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE,
				       insns, (size_t)n, NULL, 0);
		if (fd >= 0 &&
		    ucg_bpf_cgroup_attach(cg, fd, BPF_CGROUP_INET_SOCK_CREATE, -1) == 0) {
			printf("socket_classid %.0f ns\n", op_cost(procs, 1));
			ucg_bpf_cgroup_detach(cg, fd, BPF_CGROUP_INET_SOCK_CREATE);
		}
		if (fd >= 0)
			close(fd);
	}
	close(cg);
	if (rmdir(dir) != 0)
		printf("# could not remove %s: %s\n", dir, strerror(errno));
	if (access(v1dir, F_OK) == 0 && rmdir(v1dir) != 0)
		printf("# could not remove %s: %s\n", v1dir, strerror(errno));
	return 0;
}
