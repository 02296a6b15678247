/* tests/fs/cachestress.c — concurrent readers and writers of cached files.
 *
 *   cachestress values|samelen A_FILE B_FILE OPS
 *     A writer writes values to a file through mount B, back to back; four readers
 *     read it through mount A (two open+read+close, two pread on a kept fd). Every
 *     read must be exactly one of the values and "\n", or what the file held before
 *     the first of them was written (counted as "stale"). "values" writes values of
 *     different lengths, "samelen" of one length. OPS reads per reader.
 *   cachestress mixed A_DIR B_DIR OPS
 *     mkdir/rmdir through both mounts, a sleeping child moved between x and y
 *     through both mounts, and readers of x's and y's cgroup.procs and tasks through
 *     both: counts reads that are not decimal lines ("bad"), and, after each move,
 *     reads through both mounts that do not show the child where it was moved
 *     ("stale"); a failed move, mkdir or rmdir is an op failure.
 * Prints "reads N bad N stale N opfail N" (and the first bad read) and exits 1 if
 * any read was bad or any op failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const mixed_values[] = { "2", "99", "1000", "100000", "262144" };
static const char *const same_values[] = { "1000", "2048", "4096", "8192", "9999" };
#define NVALUES 5
static const char *const *values = mixed_values;

struct shared {
	volatile long reads, bad, stale, opfail;
	volatile int stop;
	char first_bad[256];
};

static struct shared *sh;
static char old_value[64]; /* the file's content before the first write */
static ssize_t old_len = -1;

static void report_bad(const char *what, const char *buf, ssize_t n)
{
	long k = __sync_fetch_and_add(&sh->bad, 1);
	size_t i, o = 0;

	if (k)
		return;
	o += (size_t)snprintf(sh->first_bad, sizeof(sh->first_bad), "%s (%zd bytes): ", what, n);
	for (i = 0; n > 0 && i < (size_t)n && o + 5 < sizeof(sh->first_bad); i++)
		o += (size_t)snprintf(sh->first_bad + o, sizeof(sh->first_bad) - o,
				      buf[i] >= ' ' && buf[i] < 127 ? "%c" : "\\x%02x",
				      (unsigned char)buf[i]);
}

static int is_value(const char *buf, ssize_t n)
{
	size_t i;

	for (i = 0; i < NVALUES; i++) {
		size_t len = strlen(values[i]);

		if ((size_t)n == len + 1 && !memcmp(buf, values[i], len) && buf[len] == '\n')
			return 1;
	}
	return 0;
}

static ssize_t read_once(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	return n;
}

static void value_reader(const char *path, long ops, int keep_fd)
{
	char buf[4096];
	int fd = keep_fd ? open(path, O_RDONLY) : -1;
	long i;

	for (i = 0; i < ops; i++) {
		ssize_t n = keep_fd ? pread(fd, buf, sizeof(buf), 0) : read_once(path, buf, sizeof(buf));

		__sync_fetch_and_add(&sh->reads, 1);
		if (n == old_len && !memcmp(buf, old_value, (size_t)n))
			__sync_fetch_and_add(&sh->stale, 1);
		else if (!is_value(buf, n))
			report_bad(path, buf, n);
	}
	_exit(0);
}

static int write_value(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n < 0 ? -1 : 0;
}

static void value_writer(const char *path, unsigned seed)
{
	while (!sh->stop) {
		seed = seed * 1103515245u + 12345u;
		if (write_value(path, values[(seed >> 16) % NVALUES]) < 0) {
			sh->opfail++;
			break;
		}
	}
	_exit(0);
}

static pid_t spawn(void (*fn)(const char *, long, int), const char *p, long ops, int k)
{
	pid_t pid = fork();

	if (pid == 0)
		fn(p, ops, k);
	return pid;
}

static pid_t spawn_writer(const char *path, unsigned seed)
{
	pid_t pid = fork();

	if (pid == 0)
		value_writer(path, seed);
	return pid;
}

/* Decimal lines only. */
static int well_formed(const char *buf, ssize_t n)
{
	ssize_t i;

	if (n < 0 || (n > 0 && buf[n - 1] != '\n'))
		return 0;
	for (i = 0; i < n; i++)
		if (!(buf[i] >= '0' && buf[i] <= '9') && !(buf[i] == '\n' && i > 0 && buf[i - 1] != '\n'))
			return 0;
	return 1;
}

static int lists(const char *buf, ssize_t n, pid_t pid)
{
	char want[32];
	int len = snprintf(want, sizeof(want), "%d\n", (int)pid);
	ssize_t i;

	for (i = 0; i + len <= n; i++)
		if ((i == 0 || buf[i - 1] == '\n') && !memcmp(buf + i, want, (size_t)len))
			return 1;
	return 0;
}

static void procs_reader(const char *dir, long ops, int unused __attribute__((unused)))
{
	static const char *const files[] = { "x/cgroup.procs", "y/cgroup.procs", "x/tasks", "y/tasks" };
	char path[4096], buf[65536];
	long i;

	for (i = 0; i < ops; i++) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i % 4]);
		n = read_once(path, buf, sizeof(buf));
		__sync_fetch_and_add(&sh->reads, 1);
		if (!well_formed(buf, n))
			report_bad(path, buf, n);
	}
	_exit(0);
}

static int mixed(const char *a, const char *b, long ops)
{
	char p[2][4096], q[4096], buf[65536];
	const char *mnt[2] = { a, b };
	pid_t child, readers[2];
	long i;
	int k;

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	readers[0] = spawn(procs_reader, a, ops, 0);
	readers[1] = spawn(procs_reader, b, ops, 0);
	for (i = 0; i < ops / 4; i++) {
		const char *m = mnt[i % 2], *other = mnt[(i + 1) % 2];
		char pid[32];
		ssize_t n;

		/* move the child through one mount, see it through both at once */
		snprintf(pid, sizeof(pid), "%d", (int)child);
		snprintf(q, sizeof(q), "%s/%s/cgroup.procs", m, i % 4 < 2 ? "x" : "y");
		if (write_value(q, pid) < 0)
			sh->opfail++;
		for (k = 0; k < 2; k++) {
			snprintf(p[0], sizeof(p[0]), "%s/%s/cgroup.procs", mnt[k], i % 4 < 2 ? "x" : "y");
			snprintf(p[1], sizeof(p[1]), "%s/%s/tasks", mnt[k], i % 4 < 2 ? "y" : "x");
			n = read_once(p[0], buf, sizeof(buf));
			__sync_fetch_and_add(&sh->reads, 1);
			if (!lists(buf, n, child))
				sh->stale++;
			n = read_once(p[1], buf, sizeof(buf));
			__sync_fetch_and_add(&sh->reads, 1);
			if (lists(buf, n, child))
				sh->stale++;
		}
		snprintf(q, sizeof(q), "%s/t%ld", m, i % 8);
		if (mkdir(q, 0755) == 0) {
			snprintf(q, sizeof(q), "%s/t%ld", other, i % 8);
			if (rmdir(q) < 0)
				sh->opfail++;
		} else {
			sh->opfail++;
		}
	}
	for (k = 0; k < 2; k++)
		waitpid(readers[k], NULL, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}

static int values_test(const char *a, const char *b, long ops)
{
	pid_t w, r[4];
	int i;

	old_len = read_once(a, old_value, sizeof(old_value));
	if (write_value(b, values[0]) < 0)
		sh->opfail++;
	w = spawn_writer(b, 1);
	for (i = 0; i < 4; i++)
		r[i] = spawn(value_reader, a, ops, i / 2);
	for (i = 0; i < 4; i++)
		waitpid(r[i], NULL, 0);
	sh->stop = 1;
	waitpid(w, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long ops;

	if (argc != 5)
		return 2;
	ops = atol(argv[4]);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	if (!strcmp(argv[1], "samelen"))
		values = same_values;
	if (!strcmp(argv[1], "values") || !strcmp(argv[1], "samelen"))
		values_test(argv[2], argv[3], ops);
	else if (!strcmp(argv[1], "mixed"))
		mixed(argv[2], argv[3], ops);
	else
		return 2;
	printf("reads %ld bad %ld stale %ld opfail %ld\n", sh->reads, sh->bad, sh->stale, sh->opfail);
	if (sh->bad)
		printf("first bad: %s\n", sh->first_bad);
	return sh->bad || sh->opfail ? 1 : 0;
}
