/* cli/cmd_exec.c — `ucg exec`, `ucg shell` and `ucg classify`: cgexec and cgclassify
 * for ucg's hierarchies, and the view (view/view.h) in which unmodified v1 programs
 * find them.
 *
 *   ucg exec [-g CONTROLLERS:PATH]... [--sticky] [--] COMMAND [ARGS...]
 *   ucg shell [-g CONTROLLERS:PATH]...
 *   ucg classify [-g CONTROLLERS:PATH]... PID...
 *
 * -g is cgexec's: controllers separated by commas ("name=X" for a named hierarchy,
 * "*" for every hierarchy) and a path from the hierarchy's root. Bad input fails
 * before anything runs or moves, with cgexec's message and status (a bad -g 255, a
 * controller no hierarchy holds 84, a path that does not exist 82). exec then makes
 * the view's mount namespace (this process enters it and stays as the supervisor),
 * forks COMMAND's process, which moves itself into the cgroups by writing its pid to
 * their cgroup.procs (through the daemon's files, with its credentials), installs the
 * seccomp filter (view/notify.h) and execs. The supervisor answers the view's /proc
 * files for COMMAND and everything it starts, forwards signals sent to it (not those
 * the terminal sent the whole foreground group), and exits with COMMAND's status (or
 * dies of its signal). Processes left inside when COMMAND exits keep being served by a
 * background copy of the supervisor until the last of them is gone.
 */
#include "cli/commands.h"

#include "base/buf.h"
#include "fs/ctl.h"
#include "view/notify.h"
#include "view/view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* libcgroup's error numbers as cgexec's exit status shows them (ECGROUP* & 0xff). */
#define CGEXEC_NOTEXIST 82   /* ECGROUPNOTEXIST */
#define CGEXEC_NOTMOUNTED 84 /* ECGROUPSUBSYSNOTMOUNTED */
#define CGEXEC_PARSE 255

#define MAX_MOVES VIEW_MAX_HIER

struct move {
	const struct view_hier *h;
	char path[PATH_MAX]; /* from the hierarchy's root, without leading '/' */
};

struct plan {
	struct view v;
	struct move moves[MAX_MOVES];
	size_t n;
};

static int no_daemon(const char *cmd, int r)
{
	char sock[PATH_MAX];

	ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock");
	fprintf(stderr, "ucg: %s: no daemon: %s: %s\n", cmd, sock, strerror(-r));
	return 1;
}

static int add_move(struct plan *pl, const struct view_hier *h, const char *path)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		if (pl->moves[i].h == h) {
			/* a later -g for the same hierarchy wins, as in cgexec */
			snprintf(pl->moves[i].path, sizeof(pl->moves[i].path), "%s", path);
			return 0;
		}
	if (pl->n == MAX_MOVES)
		return -E2BIG;
	pl->moves[pl->n].h = h;
	snprintf(pl->moves[pl->n].path, sizeof(pl->moves[pl->n].path), "%s", path);
	pl->n++;
	return 0;
}

/* Parses one -g argument into pl. 0, or the cgexec status for the failure (the
 * message printed). */
static int parse_spec(struct plan *pl, const char *spec)
{
	const char *colon = strchr(spec, ':'), *path, *p;
	size_t i;

	if (!colon || colon == spec || !colon[1]) {
		fprintf(stderr, "cgroup controller and pathparsing failed\n");
		return CGEXEC_PARSE;
	}
	for (path = colon + 1; *path == '/'; path++)
		;
	if (colon - spec == 1 && spec[0] == '*') {
		for (i = 0; i < pl->v.n; i++)
			add_move(pl, &pl->v.hs[i], path);
		return 0;
	}
	for (p = spec; p < colon;) {
		char ctrl[256];
		size_t l = strcspn(p, ",:");
		const struct view_hier *h;

		snprintf(ctrl, sizeof(ctrl), "%.*s", (int)l, p);
		h = l ? view_find(&pl->v, ctrl) : NULL;
		if (!h || add_move(pl, h, path) < 0) {
			fprintf(stderr, "cgroup change of group failed\n");
			return CGEXEC_NOTMOUNTED;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The cgroup.procs file of move m from here (inside or outside a view). */
static int procs_file(const struct move *m, char *out, size_t size)
{
	char dir[PATH_MAX];
	int r = view_hier_dir(m->h, dir, sizeof(dir));

	if (r < 0)
		return r;
	r = snprintf(out, size, "%s%s%s/cgroup.procs", dir, m->path[0] ? "/" : "", m->path);
	return r >= 0 && (size_t)r < size ? 0 : -ENAMETOOLONG;
}

/* Every path must exist in its hierarchy. 0 or CGEXEC_NOTEXIST. */
static int check_paths(const struct plan *pl)
{
	char file[PATH_MAX];
	size_t i;

	for (i = 0; i < pl->n; i++)
		if (procs_file(&pl->moves[i], file, sizeof(file)) < 0 || access(file, F_OK) < 0)
			return CGEXEC_NOTEXIST;
	return 0;
}

/* Parses the options shared by the three commands; *ret_next is the first operand.
 * 0, 2 for usage, or a cgexec status. */
static int parse_args(const char *cmd, int argc, char **argv, struct plan *pl, int *ret_next)
{
	int i = 1, r;

	memset(pl, 0, sizeof(*pl));
	r = view_collect(&pl->v);
	if (r < 0)
		return no_daemon(cmd, r);
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-g") && i + 1 < argc) {
			r = parse_spec(pl, argv[i + 1]);
			if (r)
				return r;
			i += 2;
		} else if (!strncmp(argv[i], "-g", 2) && argv[i][2]) {
			r = parse_spec(pl, argv[i] + 2);
			if (r)
				return r;
			i++;
		} else if (!strcmp(argv[i], "--sticky") || !strcmp(argv[i], "--cancel-unchanged")) {
			i++; /* no rules daemon here: nothing to stick to */
		} else {
			return 2;
		}
	}
	*ret_next = i;
	if (check_paths(pl)) {
		fprintf(stderr, "cgroup change of group failed\n");
		return CGEXEC_NOTEXIST;
	}
	return 0;
}

static int write_pid(const char *file, int pid)
{
	char s[16];
	int fd = open(file, O_WRONLY | O_CLOEXEC), r = 0;
	int len = snprintf(s, sizeof(s), "%d", pid);

	if (fd < 0)
		return -errno;
	if (write(fd, s, (size_t)len) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int send_fd(int sock, int fd)
{
	char c = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	struct cmsghdr *h;
	int fd;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	h = CMSG_FIRSTHDR(&m);
	if (!h || h->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(h), sizeof(fd));
	return fd;
}

/* COMMAND's process: into its cgroups, under the filter, exec. Never returns. */
static void run_child(const struct plan *pl, int sock, const sigset_t *old, char **argv)
{
	char file[PATH_MAX];
	size_t i;
	int lfd, r;

	for (i = 0; i < pl->n; i++) {
		r = procs_file(&pl->moves[i], file, sizeof(file));
		if (r == 0)
			r = write_pid(file, getpid());
		if (r < 0) {
			fprintf(stderr, "ucg: exec: %s: %s\n", file, strerror(-r));
			fprintf(stderr, "cgroup change of group failed\n");
			_exit(1);
		}
	}
	lfd = view_notify_install();
	if (lfd < 0) {
		fprintf(stderr, "ucg: exec: seccomp filter: %s\n", strerror(-lfd));
		_exit(1);
	}
	if (send_fd(sock, lfd) < 0)
		_exit(1);
	close(lfd);
	close(sock);
	sigprocmask(SIG_SETMASK, old, NULL);
	execvp(argv[0], argv);
	r = errno;
	fprintf(stderr, "ucg: exec: %s: %s\n", argv[0], strerror(r));
	_exit(r == ENOENT ? 127 : 126);
}

static const struct view_notify_ops view_ops = { view_answer, view_is_hier_dev, view_mount };

/* Serves the listener until no process uses the filter any more. */
static void serve_rest(struct view *v, int lfd)
{
	for (;;) {
		struct pollfd p = { lfd, POLLIN, 0 };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		if (p.revents & POLLIN)
			view_notify_serve(lfd, &view_ops, v);
		else if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
	}
}

/* After COMMAND exits: processes it left inside still open files through the filter;
 * a detached copy serves them (with no terminal or pipe of ours held open) and undoes
 * the view's mounts when the last is gone. Else they are undone here. */
static void leave_server(struct view *v, int lfd)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	pid_t pid;
	int null;

	if (poll(&p, 1, 0) >= 0 && (p.revents & POLLHUP) && !(p.revents & POLLIN)) {
		view_release(v);
		return;
	}
	pid = fork();
	if (pid < 0)
		view_release(v);
	if (pid != 0)
		return;
	setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	serve_rest(v, lfd);
	view_release(v);
	_exit(0);
}

/* Exits as COMMAND did: the same code, or the same signal. */
static int exit_like(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit none = { 0, 0 };
		sigset_t set;

		setrlimit(RLIMIT_CORE, &none);
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		kill(getpid(), sig);
		return 128 + sig;
	}
	return WEXITSTATUS(status);
}

static const int forwarded[] = { SIGHUP,  SIGINT,   SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
				 SIGALRM, SIGWINCH, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU };

static int run_view(const char *cmd, struct plan *pl, char **argv)
{
	sigset_t set, old;
	const char *step;
	int sv[2], sfd, lfd, status = 0, r;
	size_t i;
	pid_t pid;

	r = view_enter(&pl->v, &step);
	if (r < 0) {
		fprintf(stderr, "ucg: %s: view: %s: %s\n", cmd, step, strerror(-r));
		return 1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "ucg: %s: %s\n", cmd, strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ucg: %s: fork: %s\n", cmd, strerror(errno));
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		close(sfd);
		run_child(pl, sv[1], &old, argv);
	}
	close(sv[1]);
	lfd = recv_fd(sv[0]);
	close(sv[0]);
	if (lfd < 0) { /* the child failed before its filter and said why */
		waitpid(pid, &status, 0);
		return exit_like(status);
	}
	view_notify_tune(lfd);
	for (;;) {
		struct pollfd p[2] = { { lfd, POLLIN, 0 }, { sfd, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[0].revents & POLLIN)
			view_notify_serve(lfd, &view_ops, &pl->v);
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGCHLD) {
				if (waitpid(pid, &status, WNOHANG) == pid)
					break;
			} else if (si.ssi_code != SI_KERNEL) {
				/* sent to us by kill(2); the terminal's reach COMMAND directly */
				kill(pid, (int)si.ssi_signo);
			}
		}
	}
	close(sfd);
	leave_server(&pl->v, lfd);
	close(lfd);
	return exit_like(status);
}

int cmd_exec(int argc, char **argv)
{
	struct plan *pl = calloc(1, sizeof(*pl));
	int next, r;

	if (!pl)
		return 1;
	r = parse_args("exec", argc, argv, pl, &next);
	if (r == 0 && next >= argc)
		r = 2;
	if (r == 2)
		fprintf(stderr,
			"usage: ucg exec [-g CONTROLLERS:PATH]... [--] COMMAND [ARGS...]\n");
	if (r == 0)
		r = run_view("exec", pl, argv + next);
	free(pl);
	return r;
}

int cmd_shell(int argc, char **argv)
{
	struct plan *pl = calloc(1, sizeof(*pl));
	const char *sh = getenv("SHELL");
	char *sh_argv[2];
	int next, r;

	if (!pl)
		return 1;
	r = parse_args("shell", argc, argv, pl, &next);
	if (r == 0 && next != argc)
		r = 2;
	if (r == 2)
		fprintf(stderr, "usage: ucg shell [-g CONTROLLERS:PATH]...\n");
	if (r == 0) {
		sh_argv[0] = (char *)(sh && *sh ? sh : "/bin/sh");
		sh_argv[1] = NULL;
		r = run_view("shell", pl, sh_argv);
	}
	free(pl);
	return r;
}

int cmd_classify(int argc, char **argv)
{
	struct plan *pl = calloc(1, sizeof(*pl));
	char file[PATH_MAX], *end;
	int next, r, i;
	size_t j;

	if (!pl)
		return 1;
	r = parse_args("classify", argc, argv, pl, &next);
	if (r == 0 && (next >= argc || pl->n == 0))
		r = 2;
	if (r == 2)
		fprintf(stderr, "usage: ucg classify -g CONTROLLERS:PATH... PID...\n");
	for (i = next; r == 0 && i < argc; i++) {
		long pid = strtol(argv[i], &end, 10);

		if (pid <= 0 || *end) {
			fprintf(stderr, "ucg: classify: %s: not a pid\n", argv[i]);
			r = 1;
			continue;
		}
		for (j = 0; j < pl->n; j++) {
			int e = procs_file(&pl->moves[j], file, sizeof(file));

			if (e == 0)
				e = write_pid(file, (int)pid);
			if (e < 0) {
				fprintf(stderr, "Error changing group of pid %ld: %s\n", pid,
					strerror(-e));
				r = 1;
				break;
			}
		}
	}
	free(pl);
	return r;
}
