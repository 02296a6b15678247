/* tests/fs/evwait.c — registers an eventfd through DIR/cgroup.event_control and waits
 * for it. Usage: evwait MODE DIR CONTROL ARGS TIMEOUT_MS
 *   MODE ok: a fresh eventfd and CONTROL opened read-only; notevent: a pipe instead
 *   of the eventfd; badefd / badcfd: an fd number that is not open.
 * Prints "write <errno>" (0 on success); then, if it succeeded, "count N" for the
 * first notification or "timeout". */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], line[256];
	int efd, cfd, ec, r = 0, p[2];
	uint64_t v;

	if (argc != 6)
		return 2;
	efd = eventfd(0, 0);
	cfd = open(argv[3], O_RDONLY);
	if (efd < 0 || cfd < 0) {
		perror("setup");
		return 2;
	}
	if (!strcmp(argv[1], "notevent")) {
		if (pipe(p) < 0)
			return 2;
		efd = p[0];
	} else if (!strcmp(argv[1], "badefd")) {
		efd = 999;
	} else if (!strcmp(argv[1], "badcfd")) {
		cfd = 999;
	}
	snprintf(path, sizeof(path), "%s/cgroup.event_control", argv[2]);
	snprintf(line, sizeof(line), "%d %d %s", efd, cfd, argv[4]);
	ec = open(path, O_WRONLY);
	if (ec < 0 || write(ec, line, strlen(line)) < 0)
		r = errno;
	printf("write %d\n", r);
	fflush(stdout);
	if (r)
		return 0;
	{
		struct pollfd pf = { efd, POLLIN, 0 };

		if (poll(&pf, 1, atoi(argv[5])) == 1 && read(efd, &v, sizeof(v)) == sizeof(v))
			printf("count %llu\n", (unsigned long long)v);
		else
			printf("timeout\n");
	}
	return 0;
}
