/* cli/cmd_daemon.c — the daemon's life: `ucg daemon`, `ucg ctl`, and starting a
 * daemon for `mount` and `up`.
 *
 *   ucg daemon [--detach] [--pidfile FILE] [--cache] [--no-enforce] [--sync]
 *     In the foreground by default. --detach: a daemon of its own session, logging to
 *     $UCG_RUNTIME_DIR/daemon.log; the command returns 0 once that daemon answers a
 *     ping, or 1 saying what kept it from starting. --pidfile: the daemon writes its
 *     pid there once it serves and removes it when it exits.
 *   ucg ctl ping             prints the daemon's pid (one decimal line), exit 0
 *   ucg ctl stop [--reset]   returns once the daemon has exited and its mounts are
 *                            gone; --reset: and its saved state forgotten
 *   ucg ctl stats|mounts     what the daemon counts / what it has mounted
 *   ucg ctl compact          the daemon writes a snapshot now and starts a new journal
 *
 * A daemon that died (kill -9, a crash) leaves its ctl.sock behind: the next `mount`
 * or `up` says so on stderr and starts a new one, which logs the same and restores
 * the saved state.
 */
#include "cli/commands.h"
#include "cli/fs_client.h"

#include "base/buf.h"
#include "fs/ctl.h"
#include "fs/daemon.h"
#include "fs/deadconn.h"
#include "fs/state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long `ctl stop` waits for the daemon to unmount everything and exit. */
#define STOP_WAIT_MS 60000

/* The daemon works from "/": a relative $UCG_RUNTIME_DIR or pidfile is made absolute
 * first, from the caller's working directory. */
static int absolute(const char *in, char *out, size_t size)
{
	char cwd[PATH_MAX];
	int n;

	if (in[0] == '/') {
		n = snprintf(out, size, "%s", in);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		n = snprintf(out, size, "%s/%s", cwd, in);
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int absolute_runtime_dir(void)
{
	const char *d = getenv("UCG_RUNTIME_DIR");
	char abs[PATH_MAX];
	int r;

	if (!d || !*d || d[0] == '/')
		return 0;
	r = absolute(d, abs, sizeof(abs));
	if (r == 0 && setenv("UCG_RUNTIME_DIR", abs, 1) < 0)
		r = -errno;
	return r;
}

/* The daemon's pid from a ping, or -errno (-ECONNREFUSED/-ENOENT: none answers;
 * -ETIMEDOUT: one took the ping and gave no answer in ucg_fs_ctl_wait_ms). */
static int daemon_pid(void)
{
	struct ucg_buf out;
	int r;

	ucg_buf_init(&out);
	r = ucgfs_ctl_request_within(1, (const char *const[]){ "ping" }, &out,
				     ucg_fs_ctl_wait_ms());
	ucg_buf_fini(&out);
	return r == 0 ? -EPROTO : r;
}

/* Starts a detached daemon and waits until it answers. Returns its pid, or -errno
 * with why saying what failed. */
static int start_detached(const char *pidfile, char *why, size_t size)
{
	char line[600], log[PATH_MAX];
	size_t len = 0;
	int pfd[2], status, r, pid;

	if (ucgfs_ctl_path(log, sizeof(log), "daemon.log") < 0)
		snprintf(log, sizeof(log), "daemon.log");
	snprintf(why, size, "the daemon");
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		struct ucgfs_daemon_opts o = { .ready_fd = pfd[1], .pidfile = pidfile, .log = 1 };

		close(pfd[0]);
		if (setsid() < 0)
			_exit(1);
		pid = fork(); /* not a session leader: never gets a controlling terminal */
		if (pid != 0)
			_exit(pid < 0);
		_exit(ucgfs_daemon_run(&o) < 0 ? 1 : 0);
	}
	r = pid < 0 ? -errno : 0;
	close(pfd[1]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	while (r == 0 && len < sizeof(line) - 1) {
		ssize_t n = read(pfd[0], line + len, sizeof(line) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pfd[0]);
	if (r < 0)
		return r;
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (len == 0) {
		snprintf(why, size, "the daemon exited before it was ready (its log: %.400s)", log);
		return -EIO;
	}
	r = atoi(line);
	if (r < 0) {
		const char *what = strchr(line, ' ');

		snprintf(why, size, "%s", what ? what + 1 : "the daemon");
		return r;
	}
	pid = atoi(strchr(line, ' ') ? strchr(line, ' ') + 1 : "0");
	/* Ready means listening; ready to answer means answering. */
	r = daemon_pid();
	if (r < 0) {
		snprintf(why, size, "the daemon %d does not answer (its log: %.400s)", pid, log);
		return r;
	}
	return r;
}

void ucg_fs_say_silent(const char *cmd)
{
	char sock[PATH_MAX];

	ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock");
	fprintf(stderr, "ucg: %s: the daemon on %s does not answer: %s\n", cmd, sock,
		strerror(ETIMEDOUT));
}

int ucg_fs_ensure_daemon(const char *cmd)
{
	char sock[PATH_MAX], why[600];
	struct stat st;
	int r, dead;

	r = daemon_pid();
	if (r > 0)
		return 0;
	if (r == -ETIMEDOUT) {
		/* alive, and silent (stopped, or wedged): a second daemon would
		 * not replace it */
		ucg_fs_say_silent(cmd);
		return r;
	}
	r = absolute_runtime_dir();
	if (r < 0) {
		fprintf(stderr, "ucg: %s: runtime directory: %s\n", cmd, strerror(-r));
		return r;
	}
	/* A socket nobody answers on: its daemon died without cleaning up. */
	dead = ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock") == 0 && lstat(sock, &st) == 0 &&
	       S_ISSOCK(st.st_mode);
	r = start_detached(NULL, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "ucg: %s: cannot start the daemon: %s: %s\n", cmd, why,
			strerror(-r));
		return r;
	}
	if (dead)
		fprintf(stderr,
			"ucg: %s: the daemon had died (nothing answered on %s); started "
			"a new one, pid %d, which restores its state\n",
			cmd, sock, r);
	return 0;
}

int ucg_fs_request_print(const char *cmd, int argc, const char *const *argv, const char *obj)
{
	struct ucg_buf out;
	/* A query (stats, mounts, proc, cgroups) is answered at once by a live
	 * daemon: one that takes it and says nothing in UCG_CTL_WAIT_MS is stopped
	 * or wedged, and the caller hears so rather than wait with it. A compaction
	 * writes the whole state, which may take longer: it is waited for. */
	int ms = strcmp(argv[0], "compact") ? ucg_fs_ctl_wait_ms() : -1;
	int r;

	ucg_buf_init(&out);
	r = ucgfs_ctl_request_within(argc, argv, &out, ms);
	if (r < 0) {
		if (r == -ENOENT || r == -ECONNREFUSED) {
			char sock[PATH_MAX];

			ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock");
			fprintf(stderr, "ucg: %s: no daemon: %s: %s\n", cmd, sock, strerror(-r));
		} else if (r == -ETIMEDOUT) {
			ucg_fs_say_silent(cmd);
		} else {
			fprintf(stderr, "ucg: %s: %s: %s\n", cmd, obj, strerror(-r));
		}
		ucg_buf_fini(&out);
		return 1;
	}
	if (out.len)
		fwrite(out.data, 1, out.len, stdout);
	ucg_buf_fini(&out);
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Waits for pid's exit: its pidfd (Linux 5.3) is readable from the exit on, even
 * while the process waits as a zombie for its parent; without one, until kill(2)
 * no longer finds the pid. 0, or -ETIMEDOUT. */
static int wait_exit(int pid, int pidfd, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;

	if (pidfd >= 0) {
		struct pollfd p = { pidfd, POLLIN, 0 };
		int n;

		do
			n = poll(&p, 1, timeout_ms);
		while (n < 0 && errno == EINTR && now_ms() < end);
		return n > 0 ? 0 : -ETIMEDOUT;
	}
	while (kill(pid, 0) == 0 || errno != ESRCH) {
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(10000);
	}
	return 0;
}

int ucg_fs_stop_daemon(const char *cmd, int reset, int quiet_if_none)
{
	struct ucg_buf mounts, out;
	char sock[PATH_MAX], *line, *save = NULL;
	int pid, pidfd, r, code = 0;

	pid = daemon_pid();
	if (pid < 0) {
		if (reset && (pid == -ECONNREFUSED || pid == -ENOENT))
			ucgfs_state_forget(); /* no daemon to save it again */
		if (quiet_if_none && (pid == -ECONNREFUSED || pid == -ENOENT))
			return 0;
		ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock");
		fprintf(stderr, "ucg: %s: %s%s: %s\n", cmd,
			pid == -ECONNREFUSED || pid == -ENOENT ? "no daemon: " : "", sock,
			strerror(-pid));
		return 1;
	}
	ucg_buf_init(&mounts);
	ucg_buf_init(&out);
	ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &mounts);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	r = ucgfs_ctl_request(reset ? 2 : 1, (const char *const[]){ "stop", "reset" }, &out);
	if (r < 0) {
		fprintf(stderr, "ucg: %s: daemon %d: %s\n", cmd, pid, strerror(-r));
		code = 1;
		goto out;
	}
	r = wait_exit(pid, pidfd, STOP_WAIT_MS);
	if (r < 0) {
		fprintf(stderr, "ucg: %s: daemon %d still runs after %d s: %s\n", cmd, pid,
			STOP_WAIT_MS / 1000, strerror(-r));
		code = 1;
		goto out;
	}
	/* Lines are "NAME DIR OPTIONS"; DIR may hold spaces, the others do not. */
	for (line = mounts.data ? strtok_r(mounts.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *dir = strchr(line, ' '), *end = strrchr(line, ' ');

		if (!dir || end == dir)
			continue;
		*end = '\0';
		if (ucgfs_conn_at(dir + 1)) { /* still a ucg mount there */
			fprintf(stderr, "ucg: %s: %s: still mounted after the daemon's exit: %s\n",
				cmd, dir + 1, strerror(EBUSY));
			code = 1;
		}
	}
out:
	if (pidfd >= 0)
		close(pidfd);
	ucg_buf_fini(&mounts);
	ucg_buf_fini(&out);
	return code;
}

int cmd_daemon(int argc, char **argv)
{
	struct ucgfs_daemon_opts o = { .ready_fd = -1 };
	char pidfile[PATH_MAX], why[600];
	int detach = 0, r, i;

	o.pidfile = NULL;
	/* --cache: files served from the kernel's cache (fs/ll_ops.c), as UCG_FUSE_CACHE=1
	 * does; and a release agent or anything else it runs sees the same setting. */
	/* --no-enforce: policy only, nothing through cgroup v2 (fs/kenforce.h) */
	for (i = 1; i < argc; i++) {
		const char *pf = NULL;

		if (!strcmp(argv[i], "--cache")) {
			setenv("UCG_FUSE_CACHE", "1", 1);
		} else if (!strcmp(argv[i], "--no-enforce")) {
			setenv("UCG_ENFORCE", "0", 1);
		} else if (!strcmp(argv[i], "--sync")) {
			/* each change's journal record fdatasync'ed before the reply */
			setenv("UCG_JOURNAL_SYNC", "1", 1);
		} else if (!strcmp(argv[i], "--detach")) {
			detach = 1;
		} else if (!strcmp(argv[i], "--pidfile") && i + 1 < argc) {
			pf = argv[++i];
		} else if (!strncmp(argv[i], "--pidfile=", 10)) {
			pf = argv[i] + 10;
		} else {
			fprintf(stderr, "usage: ucg daemon [--detach] [--pidfile FILE] [--cache] "
					"[--no-enforce] [--sync]\n");
			return 2;
		}
		if (pf) {
			r = *pf ? absolute(pf, pidfile, sizeof(pidfile)) : -ENOENT;
			if (r < 0) {
				fprintf(stderr, "ucg: daemon: pidfile %s: %s\n", pf, strerror(-r));
				return 1;
			}
			o.pidfile = pidfile;
		}
	}
	r = absolute_runtime_dir();
	if (r < 0) {
		fprintf(stderr, "ucg: daemon: runtime directory: %s\n", strerror(-r));
		return 1;
	}
	if (detach) {
		r = start_detached(o.pidfile, why, sizeof(why));
		if (r < 0) {
			fprintf(stderr, "ucg: daemon: cannot start: %s: %s\n", why, strerror(-r));
			return 1;
		}
		return 0;
	}
	r = ucgfs_daemon_run(&o);
	if (r < 0) {
		fprintf(stderr, "ucg: daemon: cannot start: %s: %s\n",
			o.failed[0] ? o.failed : "setup", strerror(-r));
		return 1;
	}
	return 0;
}

int cmd_fsstat(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "stats";

	if (!strcmp(cmd, "stop") && (argc == 2 || (argc == 3 && !strcmp(argv[2], "--reset"))))
		return ucg_fs_stop_daemon("ctl: stop", argc == 3, 0);
	if (argc > 2 || (strcmp(cmd, "stats") && strcmp(cmd, "ping") && strcmp(cmd, "mounts") &&
			 strcmp(cmd, "compact"))) {
		fprintf(stderr, "usage: ucg ctl stats|mounts|ping|compact|stop [--reset]\n");
		return 2;
	}
	if (!strcmp(cmd, "ping")) {
		int pid = daemon_pid();

		if (pid < 0) {
			char sock[PATH_MAX];

			ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock");
			fprintf(stderr, "ucg: ctl: ping: %s%s: %s\n",
				pid == -ECONNREFUSED || pid == -ENOENT ? "no daemon: " : "", sock,
				strerror(-pid));
			return 1;
		}
		printf("%d\n", pid);
		return 0;
	}
	return ucg_fs_request_print("ctl", 1, (const char *const[]){ cmd }, cmd);
}
