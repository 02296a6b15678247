/* bench/bench_util.c — see bench_util.h. */
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int bench_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		r = -errno;
	close(fd);
	return r;
}
