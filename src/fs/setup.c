/* fs/setup.c — the daemon's place on the host (see setup.h).
 *
 * The runtime directory holds the control socket, the state file and the log. It is
 * made private (0700) when the daemon creates it; one found there is used only if it
 * is a real directory of the daemon's own uid that nobody else may write to, since
 * whoever can write there can swap the state file or the socket under the daemon.
 * Files the daemon writes there are opened without following symlinks and with their
 * final mode.
 */
#include "fs/setup.h"

#include "fs/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ucgfs_runtime_prepare(char *why, size_t size)
{
	const char *dir = ucgfs_ctl_runtime_dir();
	struct stat st;
	int fd, r = 0;

	snprintf(why, size, "runtime directory %s", dir);
	if (dir[0] != '/')
		return -EINVAL;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOTDIR || r == -ELOOP)
			snprintf(why, size, "runtime directory %s is not a directory", dir);
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
	} else if (st.st_uid != geteuid()) {
		snprintf(why, size, "runtime directory %s is owned by uid %u, not %u", dir,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		r = -EPERM;
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, size, "runtime directory %s is writable by %s (mode %04o)", dir,
			 (st.st_mode & S_IWOTH) ? "others" : "its group",
			 (unsigned)(st.st_mode & 07777));
		r = -EPERM;
	}
	close(fd);
	return r;
}

int ucgfs_log_open(void)
{
	char path[PATH_MAX];
	int fd, r;

	r = ucgfs_ctl_path(path, sizeof(path), "daemon.log");
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = 0;
	if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		r = -errno;
	close(fd);
	return r;
}

int ucgfs_detach_stdio(void)
{
	int fd;

	if (chdir("/") < 0)
		return -errno;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fd != STDIN_FILENO) {
		if (dup2(fd, STDIN_FILENO) < 0) {
			int r = -errno;

			close(fd);
			return r;
		}
		close(fd);
	}
	return 0;
}

int ucgfs_pidfile_write(const char *path)
{
	char tmp[PATH_MAX], line[32];
	int fd, n, r = 0;

	n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (write(fd, line, (size_t)n) != n)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

void ucgfs_pidfile_remove(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd;

	if (!path)
		return;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (atoi(buf) == (int)getpid())
		unlink(path);
}

void ucgfs_ready_send(int fd, int r, const char *what)
{
	char line[600];
	int n;

	if (fd < 0)
		return;
	if (r == 0)
		n = snprintf(line, sizeof(line), "0 %d\n", (int)getpid());
	else
		n = snprintf(line, sizeof(line), "%d %s\n", r, what ? what : "");
	if (n > 0 &&
	    write(fd, line, (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1)) < 0) {
		/* the starter gave up waiting */
	}
	close(fd);
}
