/* cli/cmd_fs.c — the filesystem commands: daemon, mount, umount, proc, cgroups.
 *
 * Everything but `daemon` is a client of the daemon's control socket (fs/ctl.h);
 * `mount` starts a daemon when none answers. Errors print as
 * "ucg: CMD: OBJECT: <strerror>" with exit status 32 for mount/umount (like
 * mount(8)) and 1 otherwise.
 */
#include "cli/commands.h"
#include "cli/fs_client.h"

#include "base/buf.h"
#include "fs/ctl.h"
#include "fs/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* Options the VFS or mount(8) consume; the cgroup parser never sees them. */
static const char *const generic_opts[] = {
	"rw", "ro", "defaults", "relatime", "norelatime", "strictatime", "nostrictatime",
	"noatime", "atime", "nodiratime", "diratime", "nosuid", "suid", "nodev", "dev",
	"noexec", "exec", "sync", "async", "auto", "noauto", "user", "nouser", "users",
	"_netdev", "nofail", "silent", "loud", "lazytime", "nolazytime", "dirsync", NULL,
};

static int is_generic(const char *tok, size_t len)
{
	size_t i;

	for (i = 0; generic_opts[i]; i++)
		if (strlen(generic_opts[i]) == len && !strncmp(tok, generic_opts[i], len))
			return 1;
	return 0;
}

int ucg_fs_split_opts(const char *in, char *out, size_t size, int *remount)
{
	const char *p = in;
	size_t n = 0;
	int first = 1;

	*remount = 0;
	out[0] = '\0';
	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (len == 7 && !strncmp(p, "remount", 7)) {
			*remount = 1;
		} else if (!is_generic(p, len)) {
			/* empty tokens are kept: the cgroup parser decides about them */
			if (n + len + 2 > size)
				return -E2BIG;
			if (!first)
				out[n++] = ',';
			memcpy(out + n, p, len);
			n += len;
			out[n] = '\0';
			first = 0;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* A FUSE mount whose daemon died answers ENOTCONN: detach it. statfs always asks the
 * daemon; stat may be answered from the kernel's attribute cache. */
void ucg_fs_clear_stale(const char *dir)
{
	struct statfs sfs;
	int i;

	for (i = 0; i < 64 && statfs(dir, &sfs) < 0 && errno == ENOTCONN; i++)
		if (umount2(dir, MNT_DETACH) < 0)
			break;
}

static int daemon_running(void)
{
	struct ucg_buf out;
	int r;

	ucg_buf_init(&out);
	r = ucgfs_ctl_request(1, (const char *const[]){ "ping" }, &out);
	ucg_buf_fini(&out);
	return r > 0;
}

int ucg_fs_ensure_daemon(void)
{
	int pfd[2], status, null;
	char c;
	pid_t pid;
	ssize_t n;

	if (daemon_running())
		return 0;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char log[PATH_MAX];

		close(pfd[0]);
		setsid();
		if (fork() != 0)
			_exit(0);
		mkdir(ucgfs_ctl_runtime_dir(), 0755);
		null = open("/dev/null", O_RDWR);
		if (null >= 0)
			dup2(null, 0);
		if (ucgfs_ctl_path(log, sizeof(log), "daemon.log") == 0) {
			int lf = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

			if (lf >= 0) {
				dup2(lf, 1);
				dup2(lf, 2);
			}
		}
		if (chdir("/") < 0)
			_exit(1);
		_exit(ucgfs_daemon_run(pfd[1]) < 0 ? 1 : 0);
	}
	close(pfd[1]);
	waitpid(pid, &status, 0);
	n = read(pfd[0], &c, 1);
	close(pfd[0]);
	if (n != 1)
		return -EIO;
	return c ? -(int)(unsigned char)c : 0;
}

static int fail(const char *cmd, const char *obj, int r, const struct ucg_buf *detail, int code)
{
	fprintf(stderr, "ucg: %s: %s: %s\n", cmd, obj, strerror(-r));
	if (detail && detail->len) {
		size_t l = detail->len;

		while (l && detail->data[l - 1] == '\n')
			l--;
		if (l)
			fprintf(stderr, "ucg: %s: %.*s\n", cmd, (int)l, detail->data);
	}
	return code;
}

int ucg_fs_do_mount(const char *name, const char *dir, const char *opts, int quiet)
{
	char data[4096], real[PATH_MAX];
	struct ucg_buf out;
	int remount, r, code = 0;

	ucg_buf_init(&out);
	r = ucg_fs_split_opts(opts ? opts : "", data, sizeof(data), &remount);
	if (r < 0)
		return fail("mount", dir, r, NULL, 32);
	ucg_fs_clear_stale(dir);
	if (!realpath(dir, real))
		return fail("mount", dir, -errno, NULL, 32);
	if (remount) {
		r = ucgfs_ctl_request(3, (const char *const[]){ "remount", real, data }, &out);
		if (r == -ENOENT || r == -ECONNREFUSED)
			r = -EINVAL; /* nothing of ours is mounted there */
	} else {
		r = ucg_fs_ensure_daemon();
		if (r == 0)
			r = ucgfs_ctl_request(4, (const char *const[]){ "mount", name, real, data },
					      &out);
	}
	if (r < 0 && !quiet)
		code = fail("mount", dir, r, &out, 32);
	else if (r < 0)
		code = 32;
	ucg_buf_fini(&out);
	return code;
}

int ucg_fs_do_umount(const char *dir, int quiet)
{
	char real[PATH_MAX];
	struct ucg_buf out;
	struct statfs sfs;
	int r, code = 0;

	if (statfs(dir, &sfs) < 0 && errno == ENOTCONN) {
		ucg_fs_clear_stale(dir);
		return 0;
	}
	if (!realpath(dir, real))
		return quiet ? 32 : fail("umount", dir, -errno, NULL, 32);
	ucg_buf_init(&out);
	r = ucgfs_ctl_request(2, (const char *const[]){ "umount", real }, &out);
	if (r == -ENOENT || r == -ECONNREFUSED)
		r = -EINVAL;
	if (r < 0)
		code = quiet ? 32 : fail("umount", dir, r, NULL, 32);
	ucg_buf_fini(&out);
	return code;
}

int cmd_daemon(int argc, char **argv)
{
	int r;

	/* --cache: files served from the kernel's cache (fs/ll_ops.c), as UCG_FUSE_CACHE=1
	 * does; and a release agent or anything else it runs sees the same setting. */
	/* --no-enforce: policy only, nothing through cgroup v2 (fs/kenforce.h) */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cache")) {
			setenv("UCG_FUSE_CACHE", "1", 1);
		} else if (!strcmp(argv[i], "--no-enforce")) {
			setenv("UCG_ENFORCE", "0", 1);
		} else {
			fprintf(stderr, "usage: ucg daemon [--cache] [--no-enforce]\n");
			return 2;
		}
	}
	r = ucgfs_daemon_run(-1);
	if (r < 0) {
		fprintf(stderr, "ucg: daemon: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}

int cmd_mount(int argc, char **argv)
{
	char opts[4096] = "";
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			size_t l = strlen(opts);

			snprintf(opts + l, sizeof(opts) - l, "%s%s", l ? "," : "", argv[i + 1]);
			i += 2;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			i += 2; /* "-t cgroup" is implied */
		} else {
			break;
		}
	}
	if (argc - i == 0) {
		struct ucg_buf out;
		int r;

		ucg_buf_init(&out);
		r = ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &out);
		if (r >= 0 && out.len)
			fputs(out.data, stdout);
		ucg_buf_fini(&out);
		return 0;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: ucg mount [-o OPTIONS] NAME DIR\n");
		return 2;
	}
	return ucg_fs_do_mount(argv[i], argv[i + 1], opts, 0);
}

int cmd_umount(int argc, char **argv)
{
	int i, code = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ucg umount DIR...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (ucg_fs_do_umount(argv[i], 0))
			code = 32;
	return code;
}

static int simple_request(const char *cmd, int argc, const char *const *argv, const char *obj)
{
	struct ucg_buf out;
	int r;

	ucg_buf_init(&out);
	r = ucgfs_ctl_request(argc, argv, &out);
	if (r < 0) {
		if (r == -ENOENT || r == -ECONNREFUSED) {
			char sock[PATH_MAX];

			ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock");
			fprintf(stderr, "ucg: %s: no daemon: %s: %s\n", cmd, sock, strerror(-r));
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

int cmd_proc(int argc, char **argv)
{
	char *end;

	if (argc < 2 || argc > 3 || strtol(argv[1], &end, 10) <= 0 || *end) {
		fprintf(stderr, "usage: ucg proc PID [TID]\n");
		return 2;
	}
	return simple_request("proc", argc, (const char *const[]){ "proc", argv[1], argc > 2 ? argv[2] : "0" },
			      argv[1]);
}

int cmd_cgroups(int argc, char **argv)
{
	return simple_request("cgroups", 1, (const char *const[]){ "cgroups" }, "cgroups");
}

int cmd_fsstat(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "stats";

	if (strcmp(cmd, "stats") && strcmp(cmd, "stop") && strcmp(cmd, "ping") &&
	    strcmp(cmd, "mounts")) {
		fprintf(stderr, "usage: ucg ctl stats|mounts|ping|stop\n");
		return 2;
	}
	if (!strcmp(cmd, "ping")) {
		struct ucg_buf out;
		int r;

		ucg_buf_init(&out);
		r = ucgfs_ctl_request(1, (const char *const[]){ "ping" }, &out);
		ucg_buf_fini(&out);
		if (r <= 0) {
			fprintf(stderr, "ucg: ctl: ping: %s\n", strerror(r ? -r : ESRCH));
			return 1;
		}
		printf("%d\n", r);
		return 0;
	}
	return simple_request("ctl", 1, (const char *const[]){ cmd }, cmd);
}
