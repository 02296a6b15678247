/* tests/fs/holddead.c — makes a killed daemon's FUSE mounts hang, on purpose, for
 * fs_deadconn.sh (fs/deadconn.h says how they hang for real).
 *
 *   holddead getfd PID   takes copies of PID's /dev/fuse descriptors (pidfd_getfd):
 *                        after a kill -9 of PID its connections stay open, nobody
 *                        serving them; prints "held N", then waits to be killed
 *   holddead stop TID... stops those threads alone (ptrace): their mount's requests
 *                        wait while the process's other threads run; prints
 *                        "stopped", then waits for the threads to end and exits
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int hold_fds(pid_t pid)
{
	char dir[64], link[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	int pfd, held = 0;
	DIR *d;

	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0) {
		perror("pidfd_open");
		return 1;
	}
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d) {
		perror(dir);
		return 1;
	}
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, "/dev/fuse"))
			continue;
		if (syscall(SYS_pidfd_getfd, pfd, atoi(de->d_name), 0) >= 0)
			held++;
	}
	closedir(d);
	printf("held %d\n", held);
	fflush(stdout);
	if (!held)
		return 1;
	for (;;)
		pause();
}

/* Stops each thread alone (ptrace); the stops are kept (a stop reported here is not
 * resumed) until the threads are killed, whose exits are reaped here so that their
 * process can go. */
static int stop_threads(int n, char **tids)
{
	int i, status, left = n;

	for (i = 0; i < n; i++) {
		pid_t tid = (pid_t)atoi(tids[i]);

		if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0 ||
		    ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0) {
			perror("ptrace");
			return 1;
		}
		if (waitpid(tid, &status, __WALL) < 0 || !WIFSTOPPED(status)) {
			fprintf(stderr, "holddead: thread %d did not stop\n", (int)tid);
			return 1;
		}
	}
	printf("stopped\n");
	fflush(stdout);
	while (left) {
		if (waitpid(-1, &status, __WALL) < 0)
			return errno == ECHILD ? 0 : 1;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			left--;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "getfd"))
		return hold_fds((pid_t)atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "stop"))
		return stop_threads(argc - 2, argv + 2);
	fprintf(stderr, "usage: holddead getfd PID | stop TID...\n");
	return 2;
}
