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
static int to_w[2], from_w[2];

/* The worker: for each command byte, 'o' answers the errnos of open(2) of /dev/null
 * and /dev/zero (0: opened), 's' the SO_PRIORITY of a new UDP socket. */
static void worker_loop(void)
{
	char c;

	while (read(to_w[0], &c, 1) == 1) {
		int r[2] = { 0, 0 };

		if (c == 'o') {
			const char *dev[2] = { "/dev/null", "/dev/zero" };

			for (int i = 0; i < 2; i++) {
				int fd = open(dev[i], O_RDONLY);

				r[i] = fd < 0 ? errno : 0;
				if (fd >= 0)
					close(fd);
			}
		} else {
			int s = socket(AF_INET, SOCK_DGRAM, 0);
			socklen_t len = sizeof(r[0]);

			r[0] = -1;
			if (s >= 0) {
				getsockopt(s, SOL_SOCKET, SO_PRIORITY, &r[0], &len);
				close(s);
			}
		}
		if (write(from_w[1], r, sizeof(r)) != sizeof(r))
			break;
	}
	_exit(0);
}

static int ask(char c, int r[2])
{
	if (write(to_w[1], &c, 1) != 1)
		return -1;
	return read(from_w[0], r, 2 * sizeof(int)) == (ssize_t)(2 * sizeof(int)) ? 0 : -1;
}

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
	if (pipe(to_w) || pipe(from_w))
		return "pipe";
	worker = fork();
	if (worker == 0) {
		close(to_w[1]);
		close(from_w[0]);
		worker_loop();
	}
	close(to_w[0]);
	close(from_w[1]);
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
	int status;

	if (worker > 0) {
		close(to_w[1]); /* the worker's read sees EOF and it exits */
		waitpid(worker, &status, 0);
		close(from_w[0]);
	}
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

int main(void)
{
	int rc;

	skip_reason = setup();
	T_RUN(test_devices);
	T_RUN(test_classid);
	rc = t_done();
	teardown();
	return rc;
}
