/* cli/cmd_fs.c — the filesystem commands: mount, umount, proc, cgroups.
 *
 * Each is a client of the daemon's control socket (fs/ctl.h); `mount` starts a daemon
 * when none answers (cli/cmd_daemon.c). Errors end with a line
 * "ucg: CMD: OBJECT: <strerror>" (any kernel-log detail comes on the line before),
 * with exit status 32 for mount/umount (like mount(8)) and 1 otherwise; a usage
 * mistake prints the usage and exits 2.
 */
#include "cli/commands.h"
#include "cli/fs_client.h"

#include "base/buf.h"
#include "fs/ctl.h"
#include "fs/daemon.h"
#include "fs/deadconn.h"

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

/* The kernel-log detail first, then "ucg: CMD: OBJ: <strerror>": the last line of
 * every error ends with the errno's text. */
static int fail(const char *cmd, const char *obj, int r, const struct ucg_buf *detail, int code)
{
	if (detail && detail->len) {
		size_t l = detail->len;

		while (l && detail->data[l - 1] == '\n')
			l--;
		if (l)
			fprintf(stderr, "ucg: %s: %.*s\n", cmd, (int)l, detail->data);
	}
	fprintf(stderr, "ucg: %s: %s: %s\n", cmd, obj, strerror(-r));
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
	/* A daemon started again first: it ends its predecessor's connections, which
	 * could otherwise make the statfs below wait forever (fs/deadconn.h). */
	r = remount ? 0 : ucg_fs_ensure_daemon("mount");
	ucg_fs_clear_stale(dir);
	if (!realpath(dir, real))
		return fail("mount", dir, -errno, NULL, 32);
	if (remount) {
		r = ucgfs_ctl_request(3, (const char *const[]){ "remount", real, data }, &out);
		if (r == -ENOENT || r == -ECONNREFUSED)
			r = -EINVAL; /* nothing of ours is mounted there */
	} else if (r == 0) {
		r = ucgfs_ctl_request(4, (const char *const[]){ "mount", name, real, data }, &out);
	}
	if (r < 0 && !quiet)
		code = fail("mount", dir, r, &out, 32);
	else if (r < 0)
		code = 32;
	ucg_buf_fini(&out);
	return code;
}

int ucg_fs_ctl_wait_ms(void)
{
	const char *v = getenv("UCG_CTL_WAIT_MS");
	char *end;
	long ms;

	if (!v || !*v)
		return 15000;
	ms = strtol(v, &end, 10);
	return *end || ms < 0 || ms > INT_MAX ? 15000 : (int)ms;
}

/* dir as an absolute canonical path, with no look at dir itself: its parent
 * resolved and its last name added. A mount whose daemon is stopped or wedged never
 * answers, and a call that asks it (realpath's lstat of the mount's root, statfs)
 * waits in the kernel past every signal but SIGKILL. */
static int path_beside(const char *dir, char *out, size_t size)
{
	char parent[PATH_MAX], resolved[PATH_MAX], *base;
	const char *pdir;
	size_t len = strlen(dir);
	int n;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, dir, len);
	parent[len] = '\0';
	base = strrchr(parent, '/');
	if (!base) {
		base = parent;
		pdir = ".";
	} else {
		pdir = base == parent ? "/" : parent;
		*base++ = '\0';
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		/* no last name to add ("/", "x/.."): the whole path resolved */
		if (!realpath(dir, out))
			return -errno;
		return 0;
	}
	/* (into a buffer of its own: base points into parent) */
	if (!realpath(pdir, resolved))
		return -errno;
	n = snprintf(out, size, "%s%s%s", resolved, strcmp(resolved, "/") ? "/" : "", base);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ucg_fs_do_umount(const char *dir, int quiet)
{
	char real[PATH_MAX];
	struct ucg_buf out;
	struct statfs sfs;
	struct stat sb;
	int r, code = 0, wait_ms = ucg_fs_ctl_wait_ms();

	r = path_beside(dir, real, sizeof(real));
	if (r < 0)
		return quiet ? 32 : fail("umount", dir, r, NULL, 32);
	if (!ucgfs_conn_at(real)) {
		/* No ucg mount there (mountinfo says, not the mount), unless DIR
		 * names it through a symlink, which umount(8) resolves too; else the
		 * path's own error, or EINVAL, as umount(8) answers for what is not
		 * mounted */
		if (!realpath(dir, real) || !ucgfs_conn_at(real)) {
			r = stat(dir, &sb) < 0 ? -errno : -EINVAL;
			return quiet ? 32 : fail("umount", dir, r, NULL, 32);
		}
	}
	ucg_buf_init(&out);
	r = ucgfs_ctl_request_within(2, (const char *const[]){ "umount", real }, &out, wait_ms);
	if (r == -ETIMEDOUT) {
		/* The daemon took the request and does not answer (stopped, or
		 * wedged): the kernel detaches the mount, as umount -l would, which
		 * needs nothing from the daemon; one that comes back finds the
		 * connection gone and forgets the mount, as after umount(8). */
		r = umount2(real, MNT_DETACH) < 0 ? -errno : 0;
		if (r == 0 && !quiet)
			fprintf(stderr,
				"ucg: umount: %s: the daemon did not answer in %d ms: detached\n",
				dir, wait_ms);
	} else if (r == -ENOENT || r == -ECONNREFUSED) {
		/* no daemon of ours serves it: a mount whose daemon died answers
		 * ENOTCONN and is detached; any other is not ours */
		if (statfs(real, &sfs) < 0 && errno == ENOTCONN) {
			ucg_fs_clear_stale(real);
			r = 0;
		} else {
			r = -EINVAL;
		}
	}
	if (r < 0)
		code = quiet ? 32 : fail("umount", dir, r, NULL, 32);
	ucg_buf_fini(&out);
	return code;
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

		/* the list, as mount(8) prints /proc/mounts: nothing without a
		 * daemon; a daemon that does not answer is an error, not a wait */
		ucg_buf_init(&out);
		r = ucgfs_ctl_request_within(1, (const char *const[]){ "mounts" }, &out,
					     ucg_fs_ctl_wait_ms());
		if (r >= 0 && out.len)
			fputs(out.data, stdout);
		ucg_buf_fini(&out);
		if (r == -ETIMEDOUT) {
			ucg_fs_say_silent("mount");
			return 32;
		}
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

/* A pid as /proc names one: decimal digits, 1..INT_MAX. */
static int parse_pid(const char *s)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -ESRCH;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v <= 0 || v > INT_MAX)
		return -ESRCH;
	return (int)v;
}

/* As cat /proc/PID/cgroup: a pid that names no process (0, -1, "abc") is ESRCH, the
 * same answer as a pid that has exited. */
int cmd_proc(int argc, char **argv)
{
	int i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: ucg proc PID [TID]\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (parse_pid(argv[i]) < 0) {
			fprintf(stderr, "ucg: proc: %s: %s\n", argv[i], strerror(ESRCH));
			return 1;
		}
	return ucg_fs_request_print(
		"proc", 3, (const char *const[]){ "proc", argv[1], argc > 2 ? argv[2] : "0" },
		argv[1]);
}

int cmd_cgroups(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return ucg_fs_request_print("cgroups", 1, (const char *const[]){ "cgroups" }, "cgroups");
}
