/* Tests of host/cgv2.c: the leaf layout (pure), then, on the host's cgroup2 mount in
 * a scratch subtree with a unique name, membership of processes this test starts,
 * fork inheritance, freezing and thawing, the restart scan and the cleanup. The
 * native cases skip (one line) without root or a writable cgroup2 mount. */
#include "host/cgv2.h"

#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void test_leaf_path(void)
{
	const char *names[] = { "memory", "pids", "io", "cpu" };
	const char *agree[] = { "/docker/abc", "/docker/abc", NULL, "/docker/abc" };
	const char *diverge[] = { "/a", "/b/c", NULL, "/a" };
	const char *two[] = { "/a", "/b", "/", "/x/y" };
	const char *root[] = { "/", "/", "/", "/" };
	const char *none[] = { NULL, NULL, NULL, NULL };
	char out[64];

	T_EQ_INT(ucg_cgv2_leaf_path(names, agree, 4, out, sizeof(out)), 16);
	T_EQ_STR(out, "/docker/abc/.ucg");
	T_CHECK(ucg_cgv2_leaf_path(names, diverge, 4, out, sizeof(out)) > 0);
	T_EQ_STR(out, "/a/.ucg.pids:b:c/.ucg");
	T_CHECK(ucg_cgv2_leaf_path(names, two, 4, out, sizeof(out)) > 0);
	T_EQ_STR(out, "/a/.ucg.pids:b/.ucg.io:/.ucg.cpu:x:y/.ucg");
	T_CHECK(ucg_cgv2_leaf_path(names, root, 4, out, sizeof(out)) > 0);
	T_EQ_STR(out, "/.ucg");
	T_CHECK(ucg_cgv2_leaf_path(names, none, 4, out, sizeof(out)) > 0);
	T_EQ_STR(out, "/.ucg");
	T_EQ_INT(ucg_cgv2_leaf_path(names, two, 4, out, 12), -ENAMETOOLONG);
}

static struct ucg_cgv2 *b;
static char scratch[256];

/* the v2 path of pid, from /proc/PID/cgroup's 0:: line ("" if none) */
static const char *v2_of(pid_t pid)
{
	static char path[512];
	char file[64], line[1024];
	FILE *f;

	path[0] = '\0';
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "r");
	if (!f)
		return path;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "%.500s", line + 3);
		}
	fclose(f);
	return path;
}

static int open_scratch(void)
{
	char why[256];
	int e;

	if (geteuid() != 0)
		return -EPERM;
	snprintf(scratch, sizeof(scratch), "/sys/fs/cgroup/unified/ucgtest-cgv2-%d", (int)getpid());
	if (access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) != 0) {
		snprintf(scratch, sizeof(scratch), "ucgtest-cgv2-%d", (int)getpid());
	}
	e = ucg_cgv2_open(scratch, &b, why, sizeof(why));
	if (e < 0)
		printf("# open: %s\n", why);
	return e;
}

static volatile unsigned long *counter;

static pid_t spawn_counter(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			(*counter)++;
	}
	return pid;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int count_cb_n;
static pid_t count_cb_want;
static void count_cb(void *ctx, const char *rel, pid_t pid)
{
	(void)ctx;
	if (pid == count_cb_want && !strcmp(rel, "/a/.ucg"))
		count_cb_n++;
}

static void test_native_membership_freeze(void)
{
	pid_t child, grand;
	int pfd[2], rfd[2], status, i, frozen = 0;
	unsigned long before;
	struct ucg_buf procs;
	const char *rel = "/a/.ucg";
	char want[512];

	if (open_scratch() < 0)
		T_SKIP("no writable cgroup2 mount (needs root and /sys/fs/cgroup/unified)");
	printf("# %s\n", ucg_cgv2_describe(b));
	counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	T_CHECK(counter != MAP_FAILED);
	child = spawn_counter();
	T_CHECK(child > 0);
	T_EQ_INT(ucg_cgv2_attach(b, rel, child), 0);
	snprintf(want, sizeof(want), "%s%s", strrchr(ucg_cgv2_root(b), '/'), rel);
	T_CHECK(strlen(v2_of(child)) >= strlen(want));
	T_EQ_STR(v2_of(child) + strlen(v2_of(child)) - strlen(want), want);

	/* fork inheritance: a process started after the attach, from the leaf */
	T_CHECK(pipe(pfd) == 0 && pipe(rfd) == 0);
	grand = fork();
	if (grand == 0) {
		char c;

		close(pfd[1]);
		close(rfd[0]);
		read(pfd[0], &c, 1); /* wait to be moved, then fork */
		if (fork() == 0) {
			write(rfd[1], "y", 1); /* started */
			pause();
			_exit(0);
		}
		pause();
		_exit(0);
	}
	close(pfd[0]);
	T_EQ_INT(ucg_cgv2_attach(b, rel, grand), 0);
	write(pfd[1], "x", 1);
	close(pfd[1]);
	close(rfd[1]);
	{
		char c;

		T_EQ_INT(read(rfd[0], &c, 1), 1);
		close(rfd[0]);
	}
	ucg_buf_init(&procs);
	T_EQ_INT(ucg_cgv2_read(b, rel, "cgroup.procs", &procs), 0);
	{
		int n = 0;

		for (char *p = procs.data; p && *p; p++)
			n += *p == '\n';
		T_EQ_INT(n, 3); /* child, grand and grand's child */
	}
	ucg_buf_fini(&procs);

	/* the restart scan finds them in their leaf */
	count_cb_want = child;
	count_cb_n = 0;
	T_EQ_INT(ucg_cgv2_scan(b, count_cb, NULL), 3);
	T_EQ_INT(count_cb_n, 1);

	/* freeze: FREEZING until cgroup.events says frozen */
	for (i = 0; i < 200 && frozen != 1; i++) {
		frozen = ucg_cgv2_freeze(b, rel, 1);
		if (frozen != 1)
			sleep_ms(5);
	}
	T_EQ_INT(frozen, 1);
	before = *counter;
	sleep_ms(100);
	T_EQ_INT(*counter, before); /* no progress */
	kill(child, SIGCONT);
	sleep_ms(50);
	T_EQ_INT(*counter, before); /* SIGCONT does not run a frozen task */
	T_EQ_INT(waitpid(child, &status, WNOHANG | WUNTRACED), 0); /* parent sees no stop */
	T_EQ_INT(ucg_cgv2_freeze(b, rel, 0), 0);
	sleep_ms(50);
	T_CHECK(*counter != before);

	/* cleanup: a populated leaf cannot go; an empty one goes with its own levels */
	T_EQ_INT(ucg_cgv2_remove(b, rel), -EBUSY);
	kill(grand, SIGKILL);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	waitpid(grand, &status, 0);
	for (i = 0; i < 100 && ucg_cgv2_remove(b, rel) == -EBUSY; i++)
		sleep_ms(10); /* grand's orphaned child dies with SIGKILL below */
	if (i == 100) {
		ucg_buf_init(&procs);
		ucg_cgv2_read(b, rel, "cgroup.procs", &procs);
		for (char *p = procs.data; p && *p;) {
			char *end;
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			kill((pid_t)pid, SIGKILL);
			p = end + 1;
		}
		ucg_buf_fini(&procs);
		for (i = 0; i < 100 && ucg_cgv2_remove(b, rel) == -EBUSY; i++)
			sleep_ms(10);
	}
	T_CHECK(i < 100);
	T_EQ_INT(ucg_cgv2_remove(b, "/a"), 0);
	{
		char root[512];
		struct stat st;

		snprintf(root, sizeof(root), "%s", ucg_cgv2_root(b));
		ucg_cgv2_close(b, 1);
		b = NULL;
		T_CHECK(stat(root, &st) < 0 && errno == ENOENT);
	}
	munmap((void *)counter, 4096);
}

static void test_native_divergent_and_errors(void)
{
	const char *names[] = { "memory", "pids" };
	const char *paths[] = { "/m", "/p/q" };
	char leaf[128];
	pid_t child;
	int status;

	if (open_scratch() < 0)
		T_SKIP("no writable cgroup2 mount (needs root and /sys/fs/cgroup/unified)");
	T_CHECK(ucg_cgv2_leaf_path(names, paths, 2, leaf, sizeof(leaf)) > 0);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	T_EQ_INT(ucg_cgv2_attach(b, leaf, child), 0);
	T_CHECK(strstr(v2_of(child), "/m/.ucg.pids:p:q/.ucg") != NULL);
	/* the kernel's errno comes back unchanged */
	T_EQ_INT(ucg_cgv2_attach(b, leaf, 0x7ffffff0), -ESRCH);
	T_EQ_INT(ucg_cgv2_write(b, leaf, "cgroup.freeze", "2"), -ERANGE);
	T_EQ_INT(ucg_cgv2_write(b, "/nonexistent", "cgroup.procs", "1"), -ENOENT);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	for (int i = 0; i < 100 && ucg_cgv2_remove(b, leaf) == -EBUSY; i++)
		sleep_ms(10);
	/* the backend's own level went with its leaf; the mirror /m stays */
	T_CHECK(ucg_cgv2_remove(b, "/m/.ucg.pids:p:q") == -ENOENT);
	T_EQ_INT(ucg_cgv2_remove(b, "/m"), 0);
	ucg_cgv2_close(b, 1);
	b = NULL;
}

/* A daemon started in a cgroup named ucgroups-daemon (systemd 254+'s DelegateSubgroup=
 * in the shipped unit) puts its subtree beside that leaf, not below it: below, the
 * leaf would have to enable controllers while holding the daemon. */
static void test_native_own_leaf(void)
{
	char base[256], leaf[300], procs[320], got[PATH_MAX] = "", want[300];
	int pfd[2], status;
	ssize_t n;
	pid_t child;

	if (geteuid() != 0 || access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) != 0)
		T_SKIP("no writable cgroup2 mount (needs root and /sys/fs/cgroup/unified)");
	snprintf(base, sizeof(base), "/sys/fs/cgroup/unified/ucgtest-own-%d", (int)getpid());
	snprintf(leaf, sizeof(leaf), "%s/" UCG_V2_DAEMON_LEAF, base);
	T_CHECK(mkdir(base, 0755) == 0 && mkdir(leaf, 0755) == 0);
	T_CHECK(pipe(pfd) == 0);
	child = fork();
	if (child == 0) {
		struct ucg_cgv2 *own = NULL;
		char why[256];
		FILE *f;

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", leaf);
		f = fopen(procs, "w");
		if (!f || fprintf(f, "0\n") < 0 || fclose(f) != 0)
			_exit(2);
		if (ucg_cgv2_open(NULL, &own, why, sizeof(why)) < 0)
			_exit(3);
		if (write(pfd[1], ucg_cgv2_root(own), strlen(ucg_cgv2_root(own))) < 0)
			_exit(4);
		ucg_cgv2_close(own, 1);
		_exit(0);
	}
	close(pfd[1]);
	n = read(pfd[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	T_CHECK(waitpid(child, &status, 0) == child);
	T_EQ_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	snprintf(want, sizeof(want), "%s/ucgroups", base);
	T_EQ_STR(got, want);
	for (int i = 0; i < 100 && rmdir(leaf) < 0 && errno == EBUSY; i++)
		sleep_ms(10);
	rmdir(base);
}

int main(void)
{
	T_RUN(test_leaf_path);
	T_RUN(test_native_membership_freeze);
	T_RUN(test_native_divergent_and_errors);
	T_RUN(test_native_own_leaf);
	return t_done();
}
