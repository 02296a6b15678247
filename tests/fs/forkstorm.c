/* tests/fs/forkstorm.c — a fork storm inside a cgroup, then an exact membership check.
 *
 *   forkstorm CGDIR WORKERS FORKS [CGDIR2]
 *
 * Joins CGDIR (and CGDIR2, a cgroup of another hierarchy, if given), becomes a child
 * subreaper, and starts WORKERS processes that each fork FORKS children as fast as
 * they can. Every child blocks on a pipe, so all of them are alive when the storm
 * ends. Then each cgroup.procs must list exactly us and every child (found in /proc
 * by parent pid); then the children are released, reaped, and each cgroup.procs must
 * at once list only us. Prints "forks N rate R/s lost L extra X leftover Y" (summed
 * over the cgroups) and exits 1 if anything was lost, extra or left over.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), r = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) < 0)
		r = -1;
	close(fd);
	return r;
}

static char *slurp(const char *path)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || !buf)
		exit(2);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* pid -> 1 if listed, in a table indexed by pid */
static void mark_list(const char *text, unsigned char *tab, int max)
{
	const char *p = text;
	char *end;

	for (;;) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > 0 && v < max)
			tab[v] = 1;
		p = end;
	}
}

static int ppid_of(int pid)
{
	char path[64], buf[512], *p;
	int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p ? atoi(p + 4) : -1;
}

int main(int argc, char **argv)
{
	char procs[2][4096], self[32];
	int workers, forks, i, j, k, gate[2], max = 4194305, lost = 0, extra = 0, leftover = 0;
	int ncg = argc == 5 ? 2 : 1;
	unsigned char *listed, *expected;
	struct timespec t0, t1;
	long total = 0;
	double secs;
	DIR *d;
	struct dirent *de;
	char *text;

	if (argc != 4 && argc != 5)
		return 2;
	workers = atoi(argv[2]);
	forks = atoi(argv[3]);
	snprintf(procs[0], sizeof(procs[0]), "%s/cgroup.procs", argv[1]);
	if (ncg == 2)
		snprintf(procs[1], sizeof(procs[1]), "%s/cgroup.procs", argv[4]);
	snprintf(self, sizeof(self), "%d", getpid());
	for (k = 0; k < ncg; k++)
		if (write_str(procs[k], self) < 0) {
			perror("join");
			return 2;
		}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe(gate) < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < workers; i++) {
		pid_t w = fork();

		if (w == 0) {
			close(gate[1]);
			for (j = 0; j < forks; j++) {
				pid_t c = fork();

				if (c == 0) {
					char b;

					while (read(gate[0], &b, 1) < 0 && errno == EINTR)
						;
					_exit(0);
				}
				if (c < 0)
					_exit(3);
			}
			_exit(0);
		}
	}
	close(gate[0]);
	/* the workers exit once their children are forked; their children become ours */
	for (i = 0; i < workers; i++) {
		int st;
		pid_t w = wait(&st);

		if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "worker failed\n");
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	listed = calloc((size_t)max, 1);
	expected = calloc((size_t)max, 1);
	if (!listed || !expected)
		return 2;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		int pid = atoi(de->d_name);

		if (pid > 0 && ppid_of(pid) == getpid()) {
			expected[pid] = 1;
			total++;
		}
	}
	if (d)
		closedir(d);
	expected[getpid()] = 1;
	for (k = 0; k < ncg; k++) {
		memset(listed, 0, (size_t)max);
		text = slurp(procs[k]);
		mark_list(text, listed, max);
		free(text);
		for (i = 1; i < max; i++) {
			if (expected[i] && !listed[i])
				lost++;
			if (listed[i] && !expected[i])
				extra++;
		}
	}
	close(gate[1]); /* release the children */
	while (wait(NULL) > 0)
		;
	for (k = 0; k < ncg; k++) {
		text = slurp(procs[k]);
		memset(listed, 0, (size_t)max);
		mark_list(text, listed, max);
		free(text);
		for (i = 1; i < max; i++)
			if (listed[i] && i != getpid())
				leftover++;
	}
	free(listed);
	free(expected);
	printf("forks %ld rate %.0f/s lost %d extra %d leftover %d\n", total,
	       (double)total / secs, lost, extra, leftover);
	return (lost || extra || leftover || total != (long)workers * forks) ? 1 : 0;
}
