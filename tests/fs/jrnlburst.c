/* tests/fs/jrnlburst.c — fs_journal.sh's burst, a few hundred times faster (JRNL_FAST=1).
 *
 *   jrnlburst MNT R LOG S1 S2 [N]
 *
 * Under MNT/rR, for i = 1..N (60): mkdir cI, its notify_on_release, an attach of S1
 * (S2 every 3rd), a rename to cI.m every 4th, chmod 0700 every 5th, then mkdir and
 * rmdir of its gone (every one, not every 7th). Each call's line (the test's format)
 * is in LOG.pending while it runs and appended to LOG once it returned success; the
 * first failure (the daemon is gone) ends it.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *mnt, *log_path;
static char pending_path[4096], line[8300];
static int log_fd;

static void put(const char *path, int flags, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		exit(2);
	close(fd);
}

/* The next call's line: LOG.pending while it runs. */
static void began(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	put(pending_path, O_TRUNC, line);
}

/* It returned success: logged, nothing pending. */
static void acked(void)
{
	if (write(log_fd, line, strlen(line)) != (ssize_t)strlen(line))
		exit(2);
	put(pending_path, O_TRUNC, "");
}

static int write_file(const char *dir, const char *file, const char *val)
{
	char p[8300];
	int fd, ok;

	snprintf(p, sizeof(p), "%s/%s/%s", mnt, dir, file);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	return close(fd) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	char d[1024], p[2048], to[2100], v[16];
	int r, n, i;

	if (argc < 6 || strlen(argv[1]) > 900) {
		fprintf(stderr, "usage: jrnlburst MNT R LOG S1 S2 [N]\n");
		return 2;
	}
	mnt = argv[1];
	r = atoi(argv[2]);
	log_path = argv[3];
	n = argc > 6 ? atoi(argv[6]) : 60;
	snprintf(pending_path, sizeof(pending_path), "%s.pending", log_path);
	log_fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (log_fd < 0)
		return 2;
	began("d r%d", r);
	snprintf(p, sizeof(p), "%s/r%d", mnt, r);
	if (mkdir(p, 0755))
		return 1;
	acked();
	for (i = 1; i <= n; i++) {
		const char *s = i % 3 == 0 ? argv[5] : argv[4];

		snprintf(d, sizeof(d), "r%d/c%d", r, i);
		snprintf(p, sizeof(p), "%s/%s", mnt, d);
		began("d %s", d);
		if (mkdir(p, 0755))
			return 1;
		acked();
		snprintf(v, sizeof(v), "%d\n", i % 2);
		began("w %s %d", d, i % 2);
		if (write_file(d, "notify_on_release", v))
			return 1;
		acked();
		began("t %s %s", d, s);
		if (write_file(d, "cgroup.procs", s))
			return 1;
		acked();
		if (i % 4 == 0) {
			snprintf(to, sizeof(to), "%s.m", p);
			began("n %s %s.m", d, d);
			if (rename(p, to))
				return 1;
			acked();
			strcat(d, ".m");
			snprintf(p, sizeof(p), "%.2000s", to);
		}
		if (i % 5 == 0) {
			began("c %s 700", d);
			if (chmod(p, 0700))
				return 1;
			acked();
		}
		snprintf(to, sizeof(to), "%s/gone", p);
		began("d %s/gone", d);
		if (mkdir(to, 0755))
			return 1;
		acked();
		began("r %s/gone", d);
		if (rmdir(to))
			return 1;
		acked();
	}
	return 0;
}
