/* tests/fs/spinner.c — spinner NTHREADS MS: NTHREADS threads each burn MS ms of CPU
 * (their own thread CPU clock) while the main thread waits; then it prints the
 * process's CPU time from getrusage(RUSAGE_SELF), user + system, in nanoseconds,
 * and exits. For the cpuacct tests (fs_cpuacct.sh). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static long ms;
/* The loop's sum lands here so no compiler drops the loop as dead. */
static volatile uint64_t sink;

static void *burn(void *arg)
{
	struct timespec ts;
	uint64_t x = 0;

	(void)arg;
	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		sink = x;
	} while (ts.tv_sec * 1000L + ts.tv_nsec / 1000000 < ms);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	struct rusage ru;
	int n, i;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > 64 || (ms = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: spinner NTHREADS MS\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, burn, NULL))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("%lld\n", (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
				 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return 0;
}
