/* fs/events.c — cgroup.event_control on real processes (see events.h). */
#include "fs/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A copy of fd number fd of process pid in this process, or -errno. */
static int grab_fd(pid_t pid, unsigned fd)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), r;

	if (pfd < 0)
		return -EBADF;
	r = (int)syscall(SYS_pidfd_getfd, pfd, (int)fd, 0);
	close(pfd);
	if (r < 0)
		return -EBADF; /* not open there (or not ours to take: same answer) */
	/* keep it out of release agents and other children */
	fcntl(r, F_SETFD, FD_CLOEXEC);
	return r;
}

static int is_eventfd(int fd)
{
	char p[64], buf[512];
	ssize_t n;
	int f;

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", fd);
	f = open(p, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "\neventfd-count:") != NULL;
}

int ucgfs_events_fds(pid_t writer, unsigned event_fd, unsigned control_fd,
		     ucgfs_events_find_fn find, void *find_ctx, char *pathbuf, size_t pathlen,
		     struct ucg_event_target *ret)
{
	char p[64];
	ssize_t n;
	int efd, cfd;

	efd = grab_fd(writer, event_fd);
	if (efd < 0)
		return efd;
	if (!is_eventfd(efd)) {
		close(efd);
		return -EINVAL;
	}
	cfd = grab_fd(writer, control_fd);
	if (cfd < 0) {
		close(efd);
		return cfd;
	}
	/* The control file's path as the kernel resolved it; the copy is not used for
	 * anything else (an fstat would be a request to this very daemon). */
	snprintf(p, sizeof(p), "/proc/self/fd/%d", cfd);
	n = readlink(p, pathbuf, pathlen - 1);
	close(cfd);
	ret->handle = (uint64_t)efd;
	ret->h = NULL;
	ret->path = NULL;
	if (n > 0 && (size_t)n < pathlen - 1) {
		pathbuf[n] = '\0';
		ret->h = find(find_ctx, pathbuf, &ret->path);
	}
	return 0; /* h NULL: not a file of ours, the engine says EINVAL */
}

void ucgfs_events_put(uint64_t handle)
{
	close((int)handle);
}

void ucgfs_events_deliver(struct ucg_engine *e)
{
	struct ucg_event ev;

	while (ucg_event_next(e, &ev) == 1) {
		if (write((int)ev.handle, &ev.count, sizeof(ev.count)) < 0) {
			/* the counter would overflow: the kernel's eventfd_signal saturates too */
		}
		if (ev.final)
			close((int)ev.handle);
	}
}
