/* tests/uml/forker.c — fork patterns for the uml tests.
 *
 *   forker hold N       fork up to N children that wait for our death; print
 *                       "forked K errno NAME" (NAME of the first failed fork, or OK),
 *                       then wait for SIGTERM (the children die with us)
 *   forker churn N L    N times fork a child that exits at once and reap it, then
 *                       fork L children that stay; print "ready", wait for SIGTERM
 *   forker watch CMD... run CMD as our child and print every state change waitpid
 *                       reports with WUNTRACED | WCONTINUED ("pid P", "stopped SIG",
 *                       "continued", "exited N", "killed SIG"), one a line, flushed
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

_Noreturn static void wait_forever(void)
{
	for (;;)
		pause();
}

/* A child that lives until its parent dies. */
static pid_t fork_waiter(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		wait_forever();
	}
	return pid;
}

static int hold(long n)
{
	long k;
	int err = 0;

	for (k = 0; k < n; k++) {
		if (fork_waiter() < 0) {
			err = errno;
			break;
		}
	}
	printf("forked %ld errno %s\n", k, err ? strerrorname_np(err) : "OK");
	fflush(stdout);
	wait_forever();
}

static int churn(long n, long live)
{
	long k;

	for (k = 0; k < n; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid) {
			perror("waitpid");
			return 1;
		}
	}
	for (k = 0; k < live; k++)
		if (fork_waiter() < 0) {
			perror("fork");
			return 1;
		}
	printf("ready\n");
	fflush(stdout);
	wait_forever();
}

static int watch(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	printf("pid %d\n", (int)pid);
	fflush(stdout);
	for (;;) {
		if (waitpid(pid, &status, WUNTRACED | WCONTINUED) < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (WIFSTOPPED(status))
			printf("stopped %d\n", WSTOPSIG(status));
		else if (WIFCONTINUED(status))
			printf("continued\n");
		else if (WIFEXITED(status))
			printf("exited %d\n", WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			printf("killed %d\n", WTERMSIG(status));
		fflush(stdout);
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 0;
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return hold(atol(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "churn"))
		return churn(atol(argv[2]), atol(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "watch"))
		return watch(argv + 2);
	fprintf(stderr, "usage: forker hold N | churn N LIVE | watch CMD...\n");
	return 2;
}
