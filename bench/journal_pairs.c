/* bench/journal_pairs.c — DIR N [PREFIX]: N pairs of mkdir(DIR/PREFIXi) + rmdir of it,
 * each pair timed; prints "p50 p99 p999 max mean" of the pairs in microseconds, one
 * line (bench/bench_journal.sh names the figures). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 3 ? argv[3] : "jp";
	char path[4096];
	double *t, sum = 0;
	long n, i;

	if (argc < 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: journal_pairs DIR N [PREFIX]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++) {
		double t0;

		snprintf(path, sizeof(path), "%s/%s%ld", argv[1], prefix, i);
		t0 = now_us();
		if (mkdir(path, 0755) < 0 || rmdir(path) < 0) {
			fprintf(stderr, "journal_pairs: %s: %s\n", path, strerror(errno));
			return 1;
		}
		t[i] = now_us() - t0;
		sum += t[i];
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%.1f %.1f %.1f %.1f %.1f\n", t[n / 2], t[n * 99 / 100], t[n * 999 / 1000], t[n - 1],
	       sum / (double)n);
	free(t);
	return 0;
}
