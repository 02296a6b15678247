/* cli/cmd_up.c — `ucg up [-f FILE] [ROOT]` and `ucg down [ROOT]`: the seed's default
 * layout, and libcgroup's cgconfig.conf on top of it (cli/cgconfig.h).
 *
 * up mounts, under ROOT (default /run/ucgroups-fs, never /sys/fs/cgroup), one
 * hierarchy per controller with cpu and cpuacct together ("cpu,cpuacct", plus the
 * symlinks cpu and cpuacct as on a systemd host), and name=systemd holding
 * user.slice/user-UID.slice/session-N.scope for every login session found on the host
 * (/proc/PID/loginuid and sessionid) and system.slice for every other user-space
 * process but PID 1. Kernel threads stay in the root, as on the kernel. down unmounts
 * every hierarchy mounted below ROOT and removes the directories up made.
 *
 * The default ROOT is beside the daemon's runtime directory (/run/ucgroups), not in
 * it: that directory is private (0700), and the layout is for everyone to walk.
 */
#include "cli/cgconfig.h"
#include "cli/cgconfig_apply.h"
#include "cli/commands.h"
#include "cli/fs_client.h"

#include "base/buf.h"
#include "fs/ctl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UP_ROOT_DEFAULT "/run/ucgroups-fs"

/* snprintf for paths; an over-long result is cut and then fails at the syscall. */
static void fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	fmt(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		r = -errno;
	close(fd);
	return r;
}

static unsigned long read_ulong(const char *path, unsigned long dflt)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = '\0';
	return strtoul(buf, NULL, 10);
}

/* A kernel thread has an empty cmdline and no mm; cheaper: its stat flags. */
static int is_kthread(int pid)
{
	char path[64], buf[1024], *p;
	int fd, field;
	ssize_t n;

	fmt(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return 1;
	for (field = 2; field < 9 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? (strtoul(p + 1, NULL, 10) & 0x00200000u) != 0 : 1;
}

static void place_processes(const char *sysroot)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[PATH_MAX], dir[PATH_MAX], pidstr[32];

	if (!d)
		return;
	fmt(dir, sizeof(dir), "%s/system.slice", sysroot);
	mkdir(dir, 0755);
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name);
		unsigned long uid, ses;

		if (pid <= 1 || is_kthread(pid))
			continue;
		fmt(path, sizeof(path), "/proc/%d/loginuid", pid);
		uid = read_ulong(path, 4294967295ul);
		fmt(path, sizeof(path), "/proc/%d/sessionid", pid);
		ses = read_ulong(path, 4294967295ul);
		if (uid != 4294967295ul && ses != 4294967295ul) {
			fmt(dir, sizeof(dir), "%s/user.slice", sysroot);
			mkdir(dir, 0755);
			fmt(dir, sizeof(dir), "%s/user.slice/user-%lu.slice", sysroot, uid);
			mkdir(dir, 0755);
			fmt(dir, sizeof(dir), "%s/user.slice/user-%lu.slice/session-%lu.scope",
				 sysroot, uid, ses);
			mkdir(dir, 0755);
		} else {
			fmt(dir, sizeof(dir), "%s/system.slice", sysroot);
		}
		fmt(path, sizeof(path), "%s/cgroup.procs", dir);
		fmt(pidstr, sizeof(pidstr), "%d", pid);
		write_file(path, pidstr); /* a process that exited meanwhile: ESRCH, fine */
	}
	closedir(d);
}

/* The default layout under root: 0, or non-zero with a message. */
static int up_default(const char *root)
{
	char dir[PATH_MAX], real[PATH_MAX], link[PATH_MAX];
	struct ucg_buf out;
	char *line, *save = NULL;
	int r, code = 0;

	if (!strncmp(root, "/sys/fs/cgroup", 14)) {
		fprintf(stderr, "ucg: up: %s: refusing to shadow the kernel's cgroupfs: %s\n", root,
			strerror(EPERM));
		return 2;
	}
	r = mkdir_p(root);
	if (r < 0 || !realpath(root, real)) {
		fprintf(stderr, "ucg: up: %s: %s\n", root, strerror(r < 0 ? -r : errno));
		return 1;
	}
	r = ucg_fs_ensure_daemon("up");
	if (r < 0)
		return 1; /* said why */
	ucg_buf_init(&out);
	r = ucgfs_ctl_request(1, (const char *const[]){ "cgroups" }, &out);
	if (r < 0 || !out.data) {
		fprintf(stderr, "ucg: up: cgroups: %s\n", strerror(r < 0 ? -r : EIO));
		ucg_buf_fini(&out);
		return 1;
	}
	for (line = strtok_r(out.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		if (line[0] == '#' || sscanf(line, "%63s", name) != 1)
			continue;
		if (!strcmp(name, "cpuacct") || !strcmp(name, "debug"))
			continue; /* cpuacct rides with cpu; debug is not mounted by default */
		if (!strcmp(name, "cpu"))
			fmt(name, sizeof(name), "cpu,cpuacct");
		fmt(dir, sizeof(dir), "%s/%s", real, name);
		mkdir(dir, 0755);
		if (ucg_fs_do_mount("cgroup", dir, name, 0))
			code = 1;
	}
	ucg_buf_fini(&out);
	fmt(link, sizeof(link), "%s/cpu", real);
	if (symlink("cpu,cpuacct", link) < 0 && errno != EEXIST)
		code = 1;
	fmt(link, sizeof(link), "%s/cpuacct", real);
	if (symlink("cpu,cpuacct", link) < 0 && errno != EEXIST)
		code = 1;
	fmt(dir, sizeof(dir), "%s/systemd", real);
	mkdir(dir, 0755);
	if (ucg_fs_do_mount("cgroup", dir, "none,name=systemd", 0))
		code = 1;
	else
		place_processes(dir);
	return code;
}

/* The whole file, parsed; 0 or 1 with a message (nothing applied yet). */
static int load_config(const char *file, struct ucg_cgconfig *cfg)
{
	char err[256];
	struct ucg_buf text;
	char chunk[65536];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		fprintf(stderr, "ucg: up: %s: %s\n", file, strerror(errno));
		return 1;
	}
	ucg_buf_init(&text);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		ucg_buf_append(&text, chunk, (size_t)n);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r == 0)
		r = ucg_cgconfig_parse(text.data ? text.data : "", text.len, cfg, err, sizeof(err));
	ucg_buf_fini(&text);
	if (r < 0) {
		fprintf(stderr, "ucg: up: %s: %s%s%s\n", file, r == -EINVAL ? err : "",
			r == -EINVAL ? ": " : "", strerror(-r));
		return 1;
	}
	return 0;
}

int cmd_up(int argc, char **argv)
{
	const char *file = NULL, *root = UP_ROOT_DEFAULT;
	struct ucg_cgconfig cfg;
	struct ucg_buf mounts;
	int i, code = 0, nargs = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") && i + 1 < argc)
			file = argv[++i];
		else if (argv[i][0] != '-' && nargs++ == 0)
			root = argv[i];
		else
			nargs = 2;
	}
	if (nargs > 1) {
		fprintf(stderr, "usage: ucg up [-f CGCONFIG_FILE] [ROOT]\n");
		return 2;
	}
	if (!file)
		return up_default(root);
	if (load_config(file, &cfg))
		return 1;
	/* A file with its own mount section says where everything goes. Without one,
	 * its groups go where cgconfigparser's would, into the hierarchies mounted now;
	 * into the default layout at ROOT when ROOT is named or nothing is mounted yet. */
	if (ucg_fs_ensure_daemon("up") < 0)
		code = 1; /* said why */
	ucg_buf_init(&mounts);
	if (!code && !cfg.nr_mounts &&
	    (nargs || ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &mounts) < 0 ||
	     !mounts.len))
		code = up_default(root);
	ucg_buf_fini(&mounts);
	if (!code && ucg_cgconfig_apply(&cfg, stderr) < 0)
		code = 1;
	ucg_cgconfig_free(&cfg);
	return code;
}

/* Unmounts what `up` mounted under root and removes its directories. Exit status. */
static int down(const char *root)
{
	char real[PATH_MAX], path[PATH_MAX];
	struct ucg_buf out;
	char *line, *save = NULL;
	size_t rl;
	int r, code = 0;

	if (!realpath(root, real)) {
		fprintf(stderr, "ucg: down: %s: %s\n", root, strerror(errno));
		return 1;
	}
	rl = strlen(real);
	ucg_buf_init(&out);
	r = ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &out);
	if (r < 0) {
		ucg_buf_fini(&out);
		return 0; /* no daemon: nothing of ours is mounted */
	}
	for (line = out.data ? strtok_r(out.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *dir = strchr(line, ' '), *end;

		if (!dir)
			continue;
		dir++;
		end = strrchr(dir, ' '); /* "NAME DIR OPTIONS": DIR may hold spaces */
		if (end)
			*end = '\0';
		if (!strncmp(dir, real, rl) && dir[rl] == '/') {
			if (ucg_fs_do_umount(dir, 0))
				code = 1;
			else
				rmdir(dir);
		}
	}
	ucg_buf_fini(&out);
	fmt(path, sizeof(path), "%s/cpu", real);
	unlink(path);
	fmt(path, sizeof(path), "%s/cpuacct", real);
	unlink(path);
	rmdir(real);
	return code;
}

/* ucg down [--reset] [ROOT]. --reset: then stop the daemon (waiting for its exit and
 * the end of every mount it still serves) and forget its saved state, so the next
 * daemon starts with no hierarchies and mounts nothing back. */
int cmd_down(int argc, char **argv)
{
	const char *root = UP_ROOT_DEFAULT;
	int i, reset = 0, nroot = 0, code;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reset")) {
			reset = 1;
		} else if (argv[i][0] != '-' && !nroot++) {
			root = argv[i];
		} else {
			fprintf(stderr, "usage: ucg down [--reset] [ROOT]\n");
			return 2;
		}
	}
	code = access(root, F_OK) == 0 || !reset ? down(root) : 0;
	if (reset && ucg_fs_stop_daemon("down: reset", 1, 1))
		code = 1;
	return code;
}
