/* bench/bench_fs.c — latency of cgroup filesystem operations on one mount.
 *
 *   bench_fs MOUNT PREFIX [ITERATIONS]
 *
 * MOUNT is the root of a cgroup v1 hierarchy (ours through FUSE, or the kernel's).
 * Prints one "PREFIX.NAME VALUE UNIT" line per figure: mkdir_ns, rmdir_ns, rename_ns,
 * attach_ns (open+write+close of our pid to cgroup.procs, alternating two cgroups),
 * procs_read_ns (open+read+close of a one-process cgroup.procs), file_read_ns
 * (open+read+close of notify_on_release), reread_ns (pread at offset 0 of an open
 * notify_on_release: one round trip through FUSE), and, with PREFIX "fs" or "kernel",
 * forks_per_s and forks_lost (a fork storm on every core inside a cgroup, then an exact
 * count; on the kernel, with no daemon running, it is the machine's full fork rate).
 */
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* snprintf for paths (an over-long one is cut, then fails at the syscall). */
static void fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "bench_fs: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die("write", path);
	close(fd);
}

static size_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die("open", path);
	n = read(fd, buf, size - 1);
	if (n < 0)
		die("read", path);
	close(fd);
	buf[n] = '\0';
	return (size_t)n;
}

static void storm(const char *mnt, const char *prefix)
{
	char dir[4096], procs[4096], self[32], *buf;
	int gate[2], workers = (int)sysconf(_SC_NPROCESSORS_ONLN), per = 1000, i, j;
	long listed = 0, want;
	double t0, t1;
	char *p, *end;
	size_t cap = 1 << 20;
	pid_t leader;

	fmt(dir, sizeof(dir), "%s/bench_storm", mnt);
	fmt(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("mkdir", dir);
	if (pipe(gate) < 0)
		die("pipe", "");
	leader = fork();
	if (leader == 0) {
		/* the storm runs in a child that joins the cgroup, so we stay where we are */
		fmt(self, sizeof(self), "%d", getpid());
		write_file(procs, self);
		close(gate[1]);
		t0 = bench_now_ns();
		for (i = 0; i < workers; i++) {
			if (fork() == 0) {
				for (j = 0; j < per; j++) {
					pid_t c = fork();

					if (c == 0) {
						char b;

						while (read(gate[0], &b, 1) < 0 && errno == EINTR)
							;
						_exit(0);
					}
				}
				/* stay alive (blocked) so the children keep their parent */
				{
					char b;

					while (read(gate[0], &b, 1) < 0 && errno == EINTR)
						;
				}
				while (wait(NULL) > 0)
					;
				_exit(0);
			}
		}
		/* wait until every child exists: count our grandchildren via the cgroup */
		buf = malloc(cap);
		want = 1 + workers + (long)workers * per;
		for (;;) {
			int fd = open(procs, O_RDONLY);
			size_t len = 0;
			ssize_t n;

			while (fd >= 0 && (n = read(fd, buf + len, cap - len - 1)) > 0)
				len += (size_t)n;
			if (fd >= 0)
				close(fd);
			buf[len] = '\0';
			listed = 0;
			for (p = buf;; p = end) {
				strtol(p, &end, 10);
				if (end == p)
					break;
				listed++;
			}
			if (listed >= want || bench_now_ns() - t0 > 30e9)
				break;
		}
		t1 = bench_now_ns();
		printf("%s.forks_per_s %.0f forks/s\n", prefix, (double)(workers * per) / ((t1 - t0) / 1e9));
		printf("%s.forks_lost %ld processes\n", prefix, want - listed);
		fflush(stdout);
		free(buf);
		_exit(0);
	}
	close(gate[0]);
	waitpid(leader, NULL, 0);
	close(gate[1]); /* releases workers and children; they are reparented and exit */
	for (i = 0; i < 200; i++) {
		char b[64];

		if (read_file(procs, b, sizeof(b)) == 0)
			break;
		usleep(20000);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const char *mnt, *prefix;
	char a[4096], b[4096], pa[4096], pb[4096], self[32], buf[65536];
	int n, i;
	double t, tmk = 0, trm = 0;

	if (argc < 3)
		return 2;
	mnt = argv[1];
	prefix = argv[2];
	n = argc > 3 ? atoi(argv[3]) : 2000;
	fmt(self, sizeof(self), "%d", getpid());
	for (i = 0; i < n; i++) {
		fmt(a, sizeof(a), "%s/bench_%d", mnt, i);
		t = bench_now_ns();
		if (mkdir(a, 0755) < 0)
			die("mkdir", a);
		tmk += bench_now_ns() - t;
		t = bench_now_ns();
		if (rmdir(a) < 0)
			die("rmdir", a);
		trm += bench_now_ns() - t;
	}
	printf("%s.mkdir_ns %.0f ns\n", prefix, tmk / n);
	printf("%s.rmdir_ns %.0f ns\n", prefix, trm / n);
	fmt(a, sizeof(a), "%s/bench_a", mnt);
	fmt(b, sizeof(b), "%s/bench_b", mnt);
	if (mkdir(a, 0755) < 0)
		die("mkdir", a);
	t = bench_now_ns();
	for (i = 0; i < n; i++) {
		if (rename(i % 2 ? b : a, i % 2 ? a : b) < 0)
			die("rename", a);
	}
	printf("%s.rename_ns %.0f ns\n", prefix, (bench_now_ns() - t) / n);
	if (n % 2)
		rename(b, a);
	if (mkdir(b, 0755) < 0)
		die("mkdir", b);
	fmt(pa, sizeof(pa), "%s/cgroup.procs", a);
	fmt(pb, sizeof(pb), "%s/cgroup.procs", b);
	t = bench_now_ns();
	for (i = 0; i < n; i++)
		write_file(i % 2 ? pb : pa, self);
	printf("%s.attach_ns %.0f ns\n", prefix, (bench_now_ns() - t) / n);
	t = bench_now_ns();
	for (i = 0; i < n; i++)
		read_file(i % 2 ? pb : pa, buf, sizeof(buf));
	printf("%s.procs_read_ns %.0f ns\n", prefix, (bench_now_ns() - t) / n);
	fmt(pa, sizeof(pa), "%s/notify_on_release", a);
	t = bench_now_ns();
	for (i = 0; i < n; i++)
		read_file(pa, buf, sizeof(buf));
	printf("%s.file_read_ns %.0f ns\n", prefix, (bench_now_ns() - t) / n);
	{
		int fd = open(pa, O_RDONLY);

		if (fd < 0)
			die("open", pa);
		t = bench_now_ns();
		for (i = 0; i < n; i++)
			if (pread(fd, buf, sizeof(buf), 0) < 0)
				die("pread", pa);
		printf("%s.reread_ns %.0f ns\n", prefix, (bench_now_ns() - t) / n);
		close(fd);
	}
	fmt(pa, sizeof(pa), "%s/cgroup.procs", mnt);
	write_file(pa, self);
	rmdir(a);
	rmdir(b);
	fflush(stdout);
	/* the storm on the kernel's hierarchy, run with no daemon tracking forks, is the
	 * machine's full fork rate: what fs.forks_per_s is to keep up with */
	if (!strcmp(prefix, "fs") || !strcmp(prefix, "kernel"))
		storm(mnt, prefix);
	return 0;
}
