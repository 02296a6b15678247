/* fs/guard.c — the guard (fs/guard.h): a child that aborts a killed daemon's FUSE
 * connections when the daemon cannot finish dying.
 */
#include "fs/guard.h"

#include "fs/deadconn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#define GUARD_FD 3
#define MAX_CONNS 1024

struct guarded {
	unsigned conn;
	char *dir;
};

static struct guarded conns[MAX_CONNS];
static int nconns;

static void forget(unsigned conn)
{
	int i;

	for (i = 0; i < nconns; i++)
		if (conns[i].conn == conn) {
			free(conns[i].dir);
			conns[i] = conns[--nconns];
			return;
		}
}

/* One line of the daemon's: "+CONN DIR" or "-CONN". */
static void heard(char *line)
{
	char *end;
	unsigned long conn = strtoul(line + 1, &end, 10);

	if (line[0] == '-') {
		forget((unsigned)conn);
	} else if (line[0] == '+' && *end == ' ' && nconns < MAX_CONNS) {
		forget((unsigned)conn); /* a minor freed and given again */
		conns[nconns].conn = (unsigned)conn;
		conns[nconns].dir = strdup(end + 1);
		if (conns[nconns].dir)
			nconns++;
	}
}

/* Reads what the daemon wrote; 0 at end of file (every copy of its end closed:
 * the daemon has exited), 1 if it is still open. */
static int drain(char *buf, size_t size, size_t *have)
{
	for (;;) {
		ssize_t n = read(GUARD_FD, buf + *have, size - 1 - *have);
		char *nl;

		if (n == 0)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1; /* EAGAIN: all read, the pipe still open */
		*have += (size_t)n;
		buf[*have] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			heard(buf);
			*have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, *have + 1);
		}
		if (*have == size - 1)
			*have = 0; /* a line longer than any the daemon writes */
	}
}

static void guard_run(pid_t daemon, int sfd)
{
	static char buf[2 * PATH_MAX];
	size_t have = 0;
	int i, aborted = 0;

	for (;;) {
		struct pollfd pfd[2] = { { GUARD_FD, POLLIN, 0 }, { sfd, POLLIN, 0 } };

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			_exit(1);
		if ((pfd[0].revents & (POLLIN | POLLHUP)) && !drain(buf, sizeof(buf), &have))
			_exit(0); /* the daemon exited; the kernel ended its connections */
		if (pfd[1].revents & POLLIN)
			break; /* its main thread is gone */
	}
	/* A process that exits closes its files at once, after its memory: 300 ms is
	 * ample for a big one. An abort it did not need would be harmless (the kernel
	 * aborts a released connection the same way), only this log line wrong. */
	for (i = 0; i < 6; i++) {
		struct pollfd pfd = { GUARD_FD, POLLIN, 0 };

		if (poll(&pfd, 1, 50) > 0 && !drain(buf, sizeof(buf), &have))
			_exit(0);
	}
	for (i = 0; i < nconns; i++)
		if (ucgfs_conn_abort(conns[i].conn, conns[i].dir) > 0)
			aborted++;
	fprintf(stderr,
		"ucg: guard: daemon %d was killed and did not finish dying: aborted %d of its %d "
		"FUSE connection%s\n",
		(int)daemon, aborted, nconns, nconns == 1 ? "" : "s");
	fflush(stderr);
	for (i = 0; i < 50; i++) { /* its exit, for the log */
		struct pollfd pfd = { GUARD_FD, POLLIN, 0 };

		if (poll(&pfd, 1, 100) > 0 && !drain(buf, sizeof(buf), &have)) {
			fprintf(stderr, "ucg: guard: daemon %d has exited\n", (int)daemon);
			_exit(0);
		}
	}
	fprintf(stderr, "ucg: guard: daemon %d still dying after 5 s\n", (int)daemon);
	_exit(1);
}

int ucgfs_guard_start(void)
{
	pid_t daemon = getpid(), pid;
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		sigset_t set;
		int sfd;

		prctl(PR_SET_NAME, "ucg-guard");
		/* Nothing of the daemon's but the pipe's read end and the log: holding a
		 * /dev/fuse or the control socket would be the very hang it guards
		 * against. */
		if (dup2(p[0], GUARD_FD) < 0)
			_exit(1);
		close_range(GUARD_FD + 1, ~0U, 0);
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_SETMASK, &set, NULL);
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		sfd = signalfd(-1, &set, 0);
		if (sfd < 0 || prctl(PR_SET_PDEATHSIG, SIGUSR1) < 0)
			_exit(1);
		if (getppid() != daemon)
			raise(SIGUSR1); /* gone before the prctl */
		fcntl(GUARD_FD, F_SETFL, O_NONBLOCK);
		guard_run(daemon, sfd);
	}
	close(p[0]);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	return p[1];
}

void ucgfs_guard_tell(int fd, unsigned conn, const char *dir)
{
	char line[PATH_MAX + 32];
	int n;

	if (fd < 0 || !conn)
		return;
	if (dir)
		n = snprintf(line, sizeof(line), "+%u %s\n", conn, dir);
	else
		n = snprintf(line, sizeof(line), "-%u\n", conn);
	/* one write of at most PIPE_BUF bytes: whole or not at all; a name with a
	 * newline could not be matched in mountinfo as written anyway */
	if (n > 0 && n <= PIPE_BUF && (!dir || !strchr(dir, '\n')) &&
	    write(fd, line, (size_t)n) < 0)
		fprintf(stderr, "ucg: guard: connection %u not told: %s\n", conn, strerror(errno));
}
