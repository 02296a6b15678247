/* fs/deadconn.c — a killed daemon's leftovers (fs/deadconn.h): is its process still
 * dying, which FUSE connection serves a mount, and aborting one through fusectl.
 */
#include "fs/deadconn.h"

#include "fs/ctl.h"
#include "host/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FUSECTL_MAGIC 0x65735543
#define FUSECTL_DIR "/sys/fs/fuse/connections"

/* The hex signal set after "key:\t" in /proc/PID/status, 0 if absent. */
static unsigned long long status_sigset(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p ? strtoull(p + strlen(key), NULL, 16) : 0;
}

int ucgfs_pid_dying(pid_t pid)
{
	char path[64], buf[4096], *p;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (procfs_read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')'); /* the name may hold anything, even ") Z" */
	if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		return 1; /* the leader exited; a live listener means a thread lingers */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (procfs_read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	/* a group kill queues SIGKILL on every thread; it may wait in a D state */
	return ((status_sigset(buf, "\nSigPnd:\t") | status_sigset(buf, "\nShdPnd:\t")) &
		(1ULL << (SIGKILL - 1))) != 0;
}

pid_t ucgfs_peer_dying(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || len != sizeof(cr))
		return 0;
	return ucgfs_pid_dying(cr.pid) ? cr.pid : 0;
}

int ucgfs_pid_wait_exit(pid_t pid, int ms)
{
	struct pollfd pfd = { .events = POLLIN };
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), r;

	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	pfd.fd = fd;
	/* readable once every thread of the group has exited (a zombie awaiting its
	 * parent counts as gone: it holds no files) */
	do
		r = poll(&pfd, 1, ms);
	while (r < 0 && errno == EINTR);
	close(fd);
	return r > 0 ? 0 : -ETIMEDOUT;
}

/* dir as mountinfo spells it: space, tab, newline and backslash as \ooo. */
static int escape(const char *dir, char *out, size_t size)
{
	size_t o = 0;

	for (; *dir; dir++) {
		if (o + 5 > size)
			return -ENAMETOOLONG;
		if (*dir == ' ' || *dir == '\t' || *dir == '\n' || *dir == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\%03o", (unsigned char)*dir);
		else
			out[o++] = *dir;
	}
	out[o] = '\0';
	return 0;
}

/* The ucg FUSE mounts (fuse.cgroup) at dir, in mount order (the last is on top):
 * want 0, the top one's connection; else want if one of them is served by it.
 * 0: none. */
static unsigned scan_mounts(const char *dir, unsigned want)
{
	char esc[4096], *line = NULL;
	size_t cap = 0;
	unsigned found = 0;
	FILE *f;

	if (escape(dir, esc, sizeof(esc)) < 0)
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...] - TYPE SOURCE SUPER */
		char point[4096], *sep;
		unsigned maj, min;

		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &min, point) != 3 ||
		    strcmp(point, esc) || maj != 0)
			continue;
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "fuse.cgroup ", 12))
			continue; /* a ucg daemon's mounts only */
		if (!want)
			found = min; /* the last one is on top */
		else if (min == want)
			found = min;
	}
	free(line);
	fclose(f);
	return found;
}

unsigned ucgfs_conn_at(const char *dir)
{
	return scan_mounts(dir, 0);
}

static int write_abort(const char *ctl, unsigned conn)
{
	char path[4200];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%u/abort", ctl, conn);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* gone meanwhile */
	if (write(fd, "1", 1) != 1)
		r = -errno;
	close(fd);
	return r < 0 ? r : 1;
}

int ucgfs_conn_abort(unsigned conn, const char *dir)
{
	struct statfs sfs;
	char priv[4096];
	int r;

	if (!conn || scan_mounts(dir, conn) != conn)
		return 0;
	if (statfs(FUSECTL_DIR, &sfs) == 0 && sfs.f_type == FUSECTL_MAGIC)
		return write_abort(FUSECTL_DIR, conn);
	/* Not mounted where systemd puts it: a private mount for this call, in the
	 * daemon's own directory, taken down after. */
	snprintf(priv, sizeof(priv), "%s/fusectl", ucgfs_ctl_runtime_dir());
	if (mkdir(priv, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (mount("fusectl", priv, "fusectl", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		r = -errno;
		rmdir(priv);
		return r;
	}
	r = write_abort(priv, conn);
	umount2(priv, MNT_DETACH);
	rmdir(priv);
	return r;
}
