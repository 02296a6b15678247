/* bench/view_open.c — the cost of an open as `ucg exec` makes it (docs/exec-view.md).
 *
 *   view_open PATH N
 *
 * Opens, reads to the end and closes PATH N times and prints
 * "view_open.<name>.wall_ns" and ".cpu_ns" per iteration (the CPU time is this
 * process's: under `ucg exec`, the supervisor's share comes on top). NAME is the last
 * component of PATH. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	char buf[8192];
	const char *name;
	double w0, c0;
	long i, n;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: view_open PATH N\n");
		return 2;
	}
	name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	w0 = ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	printf("view_open.%s.wall_ns %.0f ns\n", name, (ns(CLOCK_MONOTONIC) - w0) / (double)n);
	printf("view_open.%s.cpu_ns %.0f ns\n", name,
	       (ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / (double)n);
	return 0;
}
