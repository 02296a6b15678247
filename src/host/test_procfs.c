/* host/test_procfs.c — the /proc/TID/stat and /proc/TID/status parsers on files
 * recorded from a real /proc (src/host/testdata, made by testdata/record.c; the pids
 * are in testdata/README.record), and on cut or broken lines.
 */
#include "host/procfs.h"

#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char data[8192];

/* Reads testdata/NAME into data; 0, or -1 (the case then skips). */
static int load(const char *name)
{
	const char *root = getenv("UCG_SOURCE_ROOT");
	char path[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/src/host/testdata/%s", root ? root : ".", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(data, 1, sizeof(data) - 1, f);
	fclose(f);
	data[n] = '\0';
	return 0;
}

#define LOAD(name)                                                                     \
	do {                                                                           \
		if (load(name) < 0)                                                    \
			T_SKIP("testdata not found (set UCG_SOURCE_ROOT)");            \
	} while (0)

static void stat_plain(void)
{
	struct procfs_stat s;

	LOAD("stat-plain");
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.state, 'S');
	T_EQ_INT(s.ppid, 10880);
	T_EQ_INT(s.flags, 0x400040); /* PF_FORKNOEXEC | PF_RANDOMIZE */
	T_EQ_INT(s.utime, 0);
	T_EQ_INT(s.stime, 0);
	T_EQ_INT(s.start_time, 292290);
	T_EQ_INT(s.processor, 0);
}

static void stat_busy(void)
{
	struct procfs_stat s;

	LOAD("stat-busy");
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.utime, 17);
	T_EQ_INT(s.stime, 0);
	T_EQ_INT(s.start_time, 292327);
	T_EQ_INT(s.processor, 1);
}

/* comm "x) (y z)": the fields start after the last ')' */
static void stat_comm_with_parens(void)
{
	struct procfs_stat s;

	LOAD("stat-parens");
	T_CHECK(strstr(data, "(x) (y z))") != NULL);
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.state, 'S');
	T_EQ_INT(s.ppid, 10880);
	T_EQ_INT(s.start_time, 292303);
	T_EQ_INT(s.processor, 1);
}

/* comm "a\n) b": a newline inside the line, and a ')' before the last one */
static void stat_comm_with_newline(void)
{
	struct procfs_stat s;

	LOAD("stat-newline");
	T_CHECK(strstr(data, "(a\n) b)") != NULL);
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.state, 'S');
	T_EQ_INT(s.ppid, 10880);
	T_EQ_INT(s.start_time, 292316);
}

static void stat_zombie(void)
{
	struct procfs_stat s;

	LOAD("stat-zombie");
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.state, 'Z');
	T_EQ_INT(s.ppid, 10880);
	T_CHECK(s.flags & 0x4); /* PF_EXITING */
	T_EQ_INT(s.start_time, 292480);
}

static void stat_kernel_thread(void)
{
	struct procfs_stat s;

	LOAD("stat-kthreadd");
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.ppid, 0);
	T_CHECK(s.flags & PROCFS_PF_KTHREAD);
	T_CHECK(!(s.flags & PROCFS_PF_NO_SETAFFINITY));
	T_EQ_INT(s.start_time, 19);
}

/* a thread's stat names its process's parent, not the creating thread */
static void stat_thread(void)
{
	struct procfs_stat s;

	LOAD("stat-thread");
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.ppid, 10531);
	T_EQ_INT(s.start_time, 292501);
}

/* A line cut before field 22 is -EIO and leaves the result alone; one cut between
 * 22 and 39 parses with no processor; no ')' at all is -EIO. */
static void stat_cut(void)
{
	struct procfs_stat s = { .ppid = 77 };
	char line[64];
	char *p;

	LOAD("stat-plain");
	p = data;
	for (int field = 1; field <= 22; field++) /* the first 22 fields, comm has none */
		p = strchr(p, ' ') + 1;
	p[-1] = '\0'; /* stops after field 22 */
	T_EQ_INT(procfs_parse_stat(data, &s), 0);
	T_EQ_INT(s.start_time, 292290);
	T_EQ_INT(s.processor, -1);

	LOAD("stat-plain");
	p = data;
	for (int field = 1; field <= 21; field++)
		p = strchr(p, ' ') + 1;
	p[-1] = '\0'; /* stops after field 21 */
	s.ppid = 77;
	T_EQ_INT(procfs_parse_stat(data, &s), -EIO);
	T_EQ_INT(s.ppid, 77);

	snprintf(line, sizeof(line), "12 no-parens S 1 2 3");
	T_EQ_INT(procfs_parse_stat(line, &s), -EIO);
	snprintf(line, sizeof(line), "12 (x)");
	T_EQ_INT(procfs_parse_stat(line, &s), -EIO);
	T_EQ_INT(s.ppid, 77);
}

static void status_root(void)
{
	struct procfs_status st;
	uint32_t groups[8];

	LOAD("status-plain");
	memset(&st, 0, sizeof(st));
	st.groups = groups;
	st.max_groups = 8;
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.tgid, 10884);
	for (int i = 0; i < 4; i++) {
		T_EQ_INT(st.uid[i], 0);
		T_EQ_INT(st.gid[i], 0);
	}
	T_EQ_INT(st.ngroups, 0); /* "Groups:\t\n" */
	T_EQ_INT(st.capeff, 0x000001fffeffffffull);
}

/* Uid/Gid: real, effective, saved, filesystem, in that order */
static void status_ids_and_groups(void)
{
	static const uint32_t want[] = { 4, 24, 27, 100, 1001 };
	struct procfs_status st;
	uint32_t groups[8];

	LOAD("status-groups");
	memset(&st, 0, sizeof(st));
	st.groups = groups;
	st.max_groups = 8;
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.tgid, 11007);
	T_EQ_INT(st.uid[0], 1001);
	T_EQ_INT(st.uid[1], 1002);
	T_EQ_INT(st.uid[2], 1003);
	T_EQ_INT(st.uid[3], 1002);
	T_EQ_INT(st.gid[0], 2001);
	T_EQ_INT(st.gid[1], 2002);
	T_EQ_INT(st.gid[2], 2003);
	T_EQ_INT(st.gid[3], 2002);
	T_EQ_INT(st.capeff, 0);
	T_EQ_INT(st.ngroups, 5);
	for (size_t i = 0; i < 5 && i < st.ngroups; i++)
		T_EQ_INT(groups[i], want[i]);
}

/* Room for fewer groups than the task has: the first ones, no overflow. */
static void status_groups_truncated(void)
{
	struct procfs_status st;
	uint32_t groups[3] = { 0, 0, 0xdeadbeef };

	LOAD("status-groups");
	memset(&st, 0, sizeof(st));
	st.groups = groups;
	st.max_groups = 2;
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.ngroups, 2);
	T_EQ_INT(groups[0], 4);
	T_EQ_INT(groups[1], 24);
	T_EQ_INT(groups[2], 0xdeadbeef);

	/* no array: the groups are not read */
	LOAD("status-groups");
	memset(&st, 0, sizeof(st));
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.ngroups, 0);
	T_EQ_INT(st.uid[1], 1002);
}

/* A thread's status: Tgid is its process, Pid itself. */
static void status_thread(void)
{
	struct procfs_status st;

	LOAD("status-thread");
	memset(&st, 0, sizeof(st));
	T_CHECK(strstr(data, "Pid:\t10996\n") != NULL);
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.tgid, 10880);
}

static void status_zombie_and_kthread(void)
{
	struct procfs_status st;

	LOAD("status-zombie");
	memset(&st, 0, sizeof(st));
	T_CHECK(strstr(data, "State:\tZ (zombie)\n") != NULL);
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.tgid, 10984);

	LOAD("status-kthreadd");
	memset(&st, 0, sizeof(st));
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.tgid, 2);
	T_EQ_INT(st.capeff, 0x000001ffffffffffull);
}

/* status escapes the comm: "a\n) b" is one line "Name:\ta\\n) b" */
static void status_comm_with_newline(void)
{
	struct procfs_status st;

	LOAD("status-newline");
	memset(&st, 0, sizeof(st));
	T_CHECK(strstr(data, "Name:\ta\\n) b\n") != NULL);
	T_EQ_INT(procfs_parse_status(data, &st), 0);
	T_EQ_INT(st.tgid, 10898);
}

/* Lines it does not know, and missing ones, leave the fields as they were. */
static void status_partial(void)
{
	struct procfs_status st;
	char text[] = "Name:\tx\nUmask:\t0022\nTgid:\t42\nBogus line\n";

	memset(&st, 0, sizeof(st));
	st.uid[0] = 7;
	T_EQ_INT(procfs_parse_status(text, &st), 0);
	T_EQ_INT(st.tgid, 42);
	T_EQ_INT(st.uid[0], 7);
	T_EQ_INT(st.capeff, 0);
}

/* The readers on this machine's live /proc: ourselves. */
static void read_self(void)
{
	struct procfs_stat s;
	struct procfs_status st;
	char path[64], buf[64];

	memset(&st, 0, sizeof(st));
	T_EQ_INT(procfs_read_stat(getpid(), &s), 0);
	T_EQ_INT(s.state, 'R');
	T_EQ_INT(s.ppid, getppid());
	T_CHECK(s.processor >= 0);
	T_EQ_INT(procfs_read_status(getpid(), &st), 0);
	T_EQ_INT(st.tgid, getpid());
	T_EQ_INT(st.uid[1], geteuid());
	snprintf(path, sizeof(path), "/proc/%d/nonexistent", getpid());
	T_EQ_INT(procfs_read_small(path, buf, sizeof(buf)), -ENOENT);
	T_EQ_INT(procfs_read_stat(0x3fffffff, &s), -ESRCH);
	T_EQ_INT(procfs_read_status(0x3fffffff, &st), -ESRCH);
}

/* A thread that spins until told to stop; its tid is published. */
static volatile int spin_stop, spin_tid;

static void *spin(void *arg)
{
	(void)arg;
	spin_tid = (int)gettid();
	while (!spin_stop)
		;
	return NULL;
}

static uint64_t thread_cpu_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* /proc/TID/stat holds the whole group's times even for a thread; the per-thread
 * reader (/proc/TGID/task/TID/stat) the thread's own: a spinning thread beside an
 * idle main thread shows that. */
static void read_task_stat_per_thread(void)
{
	struct procfs_stat whole, mine, other;
	long hz = sysconf(_SC_CLK_TCK);
	clockid_t spin_clock;
	pthread_t t;

	spin_stop = 0;
	spin_tid = 0;
	T_EQ_INT(pthread_create(&t, NULL, spin, NULL), 0);
	pthread_getcpuclockid(t, &spin_clock);
	/* until the spinner has 300 ms of CPU (the main thread sleeps meanwhile) */
	while (!spin_tid || thread_cpu_ms(spin_clock) < 300)
		usleep(10000);
	T_EQ_INT(procfs_read_task_stat(getpid(), spin_tid, &other), 0);
	T_EQ_INT(procfs_read_task_stat(getpid(), getpid(), &mine), 0);
	T_EQ_INT(procfs_read_stat(spin_tid, &whole), 0);
	spin_stop = 1;
	pthread_join(t, NULL);
	/* the spinner's own: at least 300 ms less a tick */
	T_CHECK((other.utime + other.stime) * 1000 / (uint64_t)hz >= 290);
	/* the idle main thread's own: far less than the spinner's */
	T_CHECK((mine.utime + mine.stime) * 4 < other.utime + other.stime);
	/* /proc/TID/stat of the spinner: the group's, at least both threads' less two ticks
	 * (each figure is the kernel's tick-sampled split scaled to the exact runtime and
	 * rounded down to a tick, for the group once and for each thread on its own, with
	 * a floor that keeps each from going back: the sum of the threads' may pass the
	 * group's by a tick or two, as it did once in CI) */
	T_CHECK(whole.utime + whole.stime + 2 >=
		other.utime + other.stime + mine.utime + mine.stime);
	T_EQ_INT(procfs_read_task_stat(getpid(), 0x3fffffff, &other), -ESRCH);
	T_EQ_INT(procfs_read_task_stat(0x3fffffff, getpid(), &other), -ESRCH);
}

int main(void)
{
	T_RUN(stat_plain);
	T_RUN(stat_busy);
	T_RUN(stat_comm_with_parens);
	T_RUN(stat_comm_with_newline);
	T_RUN(stat_zombie);
	T_RUN(stat_kernel_thread);
	T_RUN(stat_thread);
	T_RUN(stat_cut);
	T_RUN(status_root);
	T_RUN(status_ids_and_groups);
	T_RUN(status_groups_truncated);
	T_RUN(status_thread);
	T_RUN(status_zombie_and_kthread);
	T_RUN(status_comm_with_newline);
	T_RUN(status_partial);
	T_RUN(read_self);
	T_RUN(read_task_stat_per_thread);
	return t_done();
}
