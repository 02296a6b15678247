/* host/testdata/record.c — records the inputs of test_procfs and test_connector.
 *
 *   record DIR     (as root, on Linux with the process-events connector)
 *
 * Copies /proc/PID/stat and /proc/PID/status of tasks in the states the host provider
 * must read right — a plain process, one that has used CPU time, processes whose comm
 * holds spaces, parentheses and a newline, a zombie, a non-leader thread, a process
 * with distinct real/effective/saved ids and supplementary groups, kthreadd — to
 * DIR/stat-NAME and DIR/status-NAME, and the messages the connector sends for a fork,
 * a thread, a uid change, an exec and exits to DIR/connector.hex (for each, a
 * "# what" line, then the netlink message in hex). DIR/README.record lists the pids,
 * to check the tests' expectations against. Taskstats' exit messages are not
 * recorded: none arrived on the recording machine (the kernel sends them to sockets
 * of the initial network namespace only). Built, not run by the tests: they read the
 * recorded files.
 */
#include "host/host_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static FILE *readme;

static void copy(const char *from, const char *name)
{
	char path[4096], buf[65536];
	ssize_t n;
	int in, out;

	in = open(from, O_RDONLY);
	if (in < 0) {
		perror(from);
		exit(1);
	}
	n = read(in, buf, sizeof(buf));
	close(in);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || n < 0 || write(out, buf, (size_t)n) != n) {
		perror(path);
		exit(1);
	}
	close(out);
}

static void record_task(int pid, int tid, const char *name)
{
	char from[64], to[64];

	snprintf(from, sizeof(from), "/proc/%d/task/%d/stat", pid, tid);
	snprintf(to, sizeof(to), "stat-%s", name);
	copy(from, to);
	snprintf(from, sizeof(from), "/proc/%d/task/%d/status", pid, tid);
	snprintf(to, sizeof(to), "status-%s", name);
	copy(from, to);
	fprintf(readme, "%s: pid %d tid %d\n", name, pid, tid);
}

static int go[2]; /* a child waits on it before exiting */

static pid_t child_named(const char *comm)
{
	pid_t p = fork();
	char c;

	if (p == 0) {
		prctl(PR_SET_NAME, comm);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	usleep(100000);
	return p;
}

static void *thread_wait(void *arg)
{
	char c;

	*(int *)arg = (int)syscall(SYS_gettid);
	if (read(go[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void record_proc(void)
{
	static const gid_t groups[] = { 4, 24, 27, 100, 1001 };
	pthread_t th;
	int ttid = 0;
	pid_t p, z, g;

	if (pipe(go) < 0)
		exit(1);
	p = child_named("sleeper");
	record_task(p, p, "plain");
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	p = child_named("x) (y z)");
	record_task(p, p, "parens");
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	p = child_named("a\n) b");
	record_task(p, p, "newline");
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	p = fork();
	if (p == 0) {
		volatile unsigned long spin = 0;
		char c;

		for (unsigned long i = 0; i < 400000000ul; i++)
			spin += i;
		if (spin == 1) /* never: keeps the loop */
			_exit(2);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	waitpid(p, NULL, WNOHANG);
	usleep(1500000);
	record_task(p, p, "busy");
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	z = fork();
	if (z == 0)
		_exit(3);
	usleep(200000);
	record_task(z, z, "zombie");
	waitpid(z, NULL, 0);
	pthread_create(&th, NULL, thread_wait, &ttid);
	usleep(100000);
	record_task(getpid(), ttid, "thread");
	g = fork();
	if (g == 0) {
		char c;

		if (setgroups(sizeof(groups) / sizeof(groups[0]), groups) < 0 ||
		    setresgid(2001, 2002, 2003) < 0 || setresuid(1001, 1002, 1003) < 0)
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	usleep(100000);
	record_task(g, g, "groups");
	kill(g, SIGKILL);
	waitpid(g, NULL, 0);
	close(go[1]);
	pthread_join(th, NULL);
	record_task(2, 2, "kthreadd");
}

static void hex_line(FILE *f, const char *what, const void *buf, size_t n)
{
	const unsigned char *b = buf;

	fprintf(f, "# %s\n", what);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
	fputc('\n', f);
}

static void *thread_exit(void *arg)
{
	return arg;
}

/* Records the connector's messages about a child that makes a thread, changes its
 * uid, spins a while, execs /bin/true and exits. */
static void record_netlink(void)
{
	char buf[65536] __attribute__((aligned(8)));
	FILE *cf;
	char path[4096];
	int cfd = -1;
	pid_t child;
	int status;

	if (connector_open(&cfd) < 0) {
		perror("connector");
		exit(1);
	}
	child = fork();
	if (child == 0) {
		volatile unsigned long spin = 0;
		pthread_t th;

		pthread_create(&th, NULL, thread_exit, NULL);
		pthread_join(th, NULL);
		if (setuid(1001) < 0)
			_exit(1);
		for (unsigned long i = 0; i < 50000000ul; i++)
			spin += i;
		if (spin == 1) /* never: keeps the loop */
			_exit(2);
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	waitpid(child, &status, 0);
	fprintf(readme, "netlink: recorder %d child %d\n", getpid(), child);
	usleep(200000);
	snprintf(path, sizeof(path), "%s/connector.hex", dir);
	cf = fopen(path, "w");
	for (;;) {
		struct pollfd p = { .fd = cfd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			break;
		n = recv(cfd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			struct cn_msg *cn = NLMSG_DATA(nh);
			struct proc_event ev;
			char what[128];
			int keep = 0;

			memcpy(&ev, cn->data, sizeof(ev));
			switch (ev.what) {
			case PROC_EVENT_FORK:
				keep = ev.event_data.fork.child_tgid == child;
				snprintf(what, sizeof(what), "fork parent %d/%d child %d/%d",
					 ev.event_data.fork.parent_pid, ev.event_data.fork.parent_tgid,
					 ev.event_data.fork.child_pid, ev.event_data.fork.child_tgid);
				break;
			case PROC_EVENT_EXEC:
				keep = ev.event_data.exec.process_tgid == child;
				snprintf(what, sizeof(what), "exec %d/%d", ev.event_data.exec.process_pid,
					 ev.event_data.exec.process_tgid);
				break;
			case PROC_EVENT_UID:
				keep = ev.event_data.id.process_tgid == child;
				snprintf(what, sizeof(what), "uid %d/%d ruid %u euid %u",
					 ev.event_data.id.process_pid, ev.event_data.id.process_tgid,
					 ev.event_data.id.r.ruid, ev.event_data.id.e.euid);
				break;
			case PROC_EVENT_EXIT:
				keep = ev.event_data.exit.process_tgid == child;
				snprintf(what, sizeof(what), "exit %d/%d code %u",
					 ev.event_data.exit.process_pid, ev.event_data.exit.process_tgid,
					 ev.event_data.exit.exit_code);
				break;
			default:
				snprintf(what, sizeof(what), "what 0x%x", ev.what);
				break;
			}
			if (keep)
				hex_line(cf, what, nh, nh->nlmsg_len);
		}
	}
	fclose(cf);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: record DIR\n");
		return 2;
	}
	dir = argv[1];
	snprintf(path, sizeof(path), "%s/README.record", dir);
	readme = fopen(path, "w");
	if (!readme) {
		perror(path);
		return 1;
	}
	record_proc();
	record_netlink();
	fclose(readme);
	return 0;
}
