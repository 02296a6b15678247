/* Native tests of host/bpf_load.c with host/bpf_compile.c's programs, as root on the
 * host's cgroup2 mount: a scratch child directory with a unique name holds a worker
 * process this test forks; a device program denies open(2) of /dev/null with EPERM
 * while /dev/zero opens, is replaced in one step by one that allows it, and is
 * detached; a socket-create program gives the worker's new sockets the class id as
 * SO_PRIORITY. Each case skips with one line where bpf(2) or cgroup2 is not usable;
 * the scratch directory is removed at the end. */
#include "host/bpf_compile.h"
#include "host/bpf_load.h"

#include "harness.h"
#include "host/test_bpf_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];
static int cg_fd = -1;
static pid_t worker;
/* The scratch cgroup with the worker in it; a reason string when not possible. */
static const char *setup(void)
{
	char procs[300], num[16];
	int fd, ok;

	if (geteuid() != 0)
		return "not root";
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/unified/ucgtest-bpf-%d", (int)getpid());
	if (access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) != 0)
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/ucgtest-bpf-%d", (int)getpid());
	if (mkdir(dir, 0755) != 0) {
		dir[0] = '\0';
		return "no writable cgroup2 mount";
	}
	cg_fd = open(dir, O_RDONLY | O_DIRECTORY);
	worker = worker_start();
	if (worker < 0)
		return "no worker";
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(num, sizeof(num), "%d", (int)worker);
	fd = open(procs, O_WRONLY);
	ok = fd >= 0 && write(fd, num, strlen(num)) == (ssize_t)strlen(num);
	if (fd >= 0)
		close(fd);
	return ok ? NULL : "cannot move the worker into the scratch cgroup";
}

static void teardown(void)
{
	if (worker > 0)
		worker_stop(worker);
	if (cg_fd >= 0)
		close(cg_fd);
	if (dir[0] && rmdir(dir) != 0)
		fprintf(stderr, "  could not remove %s: %s\n", dir, strerror(errno));
}

static int load_devices(const char *const *writes)
{
	struct bpf_insn prog[64];
	struct ucg_devrules r;
	char log[4096];
	int n, fd;

	ucg_devrules_init(&r);
	for (; *writes; writes++) {
		struct ucg_dev_rule rule;

		ucg_dev_rule_parse(*writes + 2, strlen(*writes + 2), &rule);
		ucg_devrules_write(&r, NULL,
				   **writes == 'A' ? UCG_DEV_FILE_ALLOW : UCG_DEV_FILE_DENY, &rule,
				   NULL);
	}
	n = ucg_bpf_devices_compile(&r, prog, 64);
	ucg_devrules_fini(&r);
	fd = ucg_bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, 0, prog, (size_t)n, log, sizeof(log));
	if (fd < 0 && fd != -EPERM)
		fprintf(stderr, "  verifier: %s\n", log);
	return fd;
}

static const char *skip_reason;

static void test_devices(void)
{
	const char *deny_null[] = { "D c 1:3 rwm", NULL };
	const char *only_null[] = { "D a", "A c 1:3 r", NULL };
	int r[2], p1, p2;

	if (skip_reason)
		T_SKIP(skip_reason);
	p1 = load_devices(deny_null);
	if (p1 == -EPERM)
		T_SKIP("bpf(2) BPF_PROG_LOAD not permitted here");
	T_CHECK(p1 >= 0);
	T_EQ_INT(ask('o', r), 0);
	T_EQ_INT(r[0], 0);
	T_EQ_INT(r[1], 0);
	T_EQ_INT(ucg_bpf_cgroup_attach(cg_fd, p1, BPF_CGROUP_DEVICE, -1), 0);
	T_EQ_INT(ask('o', r), 0);
	T_EQ_INT(r[0], EPERM);
	T_EQ_INT(r[1], 0);
	/* replaced in one step: now only /dev/null, for reading */
	p2 = load_devices(only_null);
	T_CHECK(p2 >= 0);
	T_EQ_INT(ucg_bpf_cgroup_attach(cg_fd, p2, BPF_CGROUP_DEVICE, p1), 0);
	T_EQ_INT(ask('o', r), 0);
	T_EQ_INT(r[0], 0);
	T_EQ_INT(r[1], EPERM);
	/* p1 is no longer attached; p2 goes, nothing is left */
	T_EQ_INT(ucg_bpf_cgroup_detach(cg_fd, p1, BPF_CGROUP_DEVICE), -ENOENT);
	T_EQ_INT(ucg_bpf_cgroup_detach_others(cg_fd, BPF_CGROUP_DEVICE, p1), 1);
	T_EQ_INT(ask('o', r), 0);
	T_EQ_INT(r[0], 0);
	T_EQ_INT(r[1], 0);
	T_EQ_INT(ucg_bpf_cgroup_detach_others(cg_fd, BPF_CGROUP_DEVICE, -1), 0);
	close(p1);
	close(p2);
}

static void test_classid(void)
{
	struct bpf_insn prog[4];
	int r[2], p, n;

	if (skip_reason)
		T_SKIP(skip_reason);
	T_EQ_INT(ask('s', r), 0);
	T_EQ_INT(r[0], 0);
	n = ucg_bpf_classid_compile(0x00100001, prog, 4);
	p = ucg_bpf_prog_load(BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE, prog,
			      (size_t)n, NULL, 0);
	if (p == -EPERM)
		T_SKIP("bpf(2) BPF_PROG_LOAD not permitted here");
	T_CHECK(p >= 0);
	T_EQ_INT(ucg_bpf_cgroup_attach(cg_fd, p, BPF_CGROUP_INET_SOCK_CREATE, -1), 0);
	T_EQ_INT(ask('s', r), 0);
	T_EQ_INT(r[0], 0x00100001);
	T_EQ_INT(ucg_bpf_cgroup_detach(cg_fd, p, BPF_CGROUP_INET_SOCK_CREATE), 0);
	T_EQ_INT(ask('s', r), 0);
	T_EQ_INT(r[0], 0);
	close(p);
}

/* 1,000 exceptions load: the verifier's walk stays linear (bpf_compile.c says why;
 * a quadratic walk passes its limit of 1,000,000 instructions near 750 rules) */
static void test_many_rules(void)
{
	struct ucg_dev_rule rule = { UCG_DEV_ALL, UCG_DEV_ANY, UCG_DEV_ANY, UCG_DEV_ACC_ALL };
	struct bpf_insn *prog = malloc(UCG_BPF_DEV_INSNS(1000) * sizeof(*prog));
	struct ucg_devrules r;
	int n, fd, i;

	if (skip_reason)
		T_SKIP(skip_reason);
	ucg_devrules_init(&r);
	ucg_devrules_write(&r, NULL, UCG_DEV_FILE_DENY, &rule, NULL);
	for (i = 0; i < 1000; i++) {
		rule = (struct ucg_dev_rule){ UCG_DEV_CHAR, 200, (uint32_t)i, UCG_DEV_ACC_READ };
		T_EQ_INT(ucg_devrules_write(&r, NULL, UCG_DEV_FILE_ALLOW, &rule, NULL), 0);
	}
	n = ucg_bpf_devices_compile(&r, prog, UCG_BPF_DEV_INSNS(1000));
	T_CHECK(n > 1000);
	fd = ucg_bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, 0, prog, (size_t)n, NULL, 0);
	if (fd == -EPERM) {
		ucg_devrules_fini(&r);
		free(prog);
		T_SKIP("bpf(2) BPF_PROG_LOAD not permitted here");
	}
	T_CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	ucg_devrules_fini(&r);
	free(prog);
}

int main(void)
{
	int rc;

	skip_reason = setup();
	T_RUN(test_devices);
	T_RUN(test_classid);
	T_RUN(test_many_rules);
	rc = t_done();
	teardown();
	return rc;
}
