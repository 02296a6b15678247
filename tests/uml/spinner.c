/* tests/uml/spinner.c — CPU for the uml tests.
 *
 *   spinner spin SECONDS  burn CPU for SECONDS of wall time; print
 *                         "cpu_pct P" (our CPU time over the wall time, in percent)
 *   spinner tick FILE     burn CPU, and every 10 ms of wall time write the number of
 *                         ticks so far to FILE (rewritten in place); forever
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int spin(double seconds)
{
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	double w;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 100000; i++)
			x++;
		w = now(CLOCK_MONOTONIC);
	} while (w - w0 < seconds);
	printf("cpu_pct %.0f\n", 100 * (now(CLOCK_PROCESS_CPUTIME_ID) - c0) / (w - w0));
	return 0;
}

static int tick(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	unsigned long ticks = 0;
	double next = now(CLOCK_MONOTONIC);
	volatile unsigned long x = 0;
	char buf[32];

	if (fd < 0) {
		perror(path);
		return 1;
	}
	for (;;) {
		for (int i = 0; i < 10000; i++)
			x++;
		if (now(CLOCK_MONOTONIC) < next)
			continue;
		next += 0.01;
		int n = snprintf(buf, sizeof(buf), "%-20lu\n", ++ticks);
		if (pwrite(fd, buf, n, 0) != n) {
			perror("pwrite");
			return 1;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "spin"))
		return spin(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "tick"))
		return tick(argv[2]);
	fprintf(stderr, "usage: spinner spin SECONDS | tick FILE\n");
	return 2;
}
