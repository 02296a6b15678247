/* host/test_bpf_worker.h — a process for the BPF tests to place in a cgroup and ask
 * what the kernel lets it do (included by test_bpf_load.c and test_bpf_obs.c).
 * worker_start() forks it; ask() sends one command and reads two ints back. */
#ifndef UCG_HOST_TEST_BPF_WORKER_H
#define UCG_HOST_TEST_BPF_WORKER_H

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Forks the worker; its pid, or -1. */
static pid_t worker_start(void)
{
	pid_t pid;

	if (pipe(to_w) || pipe(from_w))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(to_w[1]);
		close(from_w[0]);
		worker_loop();
	}
	close(to_w[0]);
	close(from_w[1]);
	return pid;
}

/* Ends the worker (its read sees EOF) and reaps it. */
static void worker_stop(pid_t pid)
{
	int status;

	close(to_w[1]);
	waitpid(pid, &status, 0);
	close(from_w[0]);
}

#endif
