/* fs/ctl.c — client side of the control protocol (see ctl.h). */
#include "fs/ctl.h"
#include "fs/deadconn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

const char *ucgfs_ctl_runtime_dir(void)
{
	const char *d = getenv("UCG_RUNTIME_DIR");

	return d && *d ? d : UCGFS_RUNTIME_DEFAULT;
}

int ucgfs_ctl_path(char *buf, size_t size, const char *leaf)
{
	int n = snprintf(buf, size, "%s/%s", ucgfs_ctl_runtime_dir(), leaf);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL); /* EPIPE, not SIGPIPE */

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ucgfs_ctl_request(int argc, const char *const *argv, struct ucg_buf *out)
{
	return ucgfs_ctl_request_within(argc, argv, out, -1);
}

int ucgfs_ctl_request_within(int argc, const char *const *argv, struct ucg_buf *out, int ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucg_buf req, rep;
	char chunk[4096], *nl;
	int fd, r, i, status, waited = 0;

	if (ucgfs_ctl_path(sa.sun_path, sizeof(sa.sun_path), "ctl.sock") < 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	ucg_buf_init(&req);
	ucg_buf_init(&rep);
	for (i = 0; i < argc; i++)
		ucg_buf_append(&req, argv[i], strlen(argv[i]) + 1);
	if ((r = ucg_buf_error(&req)) < 0)
		goto out;
	r = write_all(fd, req.data, req.len);
	if (r < 0)
		goto out;
	shutdown(fd, SHUT_WR);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int step = ms >= 0 && ms - waited < 1000 ? ms - waited : 1000, ready;
		ssize_t n;

		/* A daemon killed while one of its threads cannot exit still holds its
		 * listening socket: the connection is accepted by the kernel and never
		 * answered. Such a daemon is a dead one (fs/deadconn.h). */
		ready = poll(&pfd, 1, step);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0) {
			if (ucgfs_peer_dying(fd)) {
				r = -ECONNREFUSED;
				goto out;
			}
			waited += step;
			if (ms >= 0 && waited >= ms) {
				r = -ETIMEDOUT;
				goto out;
			}
			continue;
		}
		n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		ucg_buf_append(&rep, chunk, (size_t)n);
	}
	if ((r = ucg_buf_error(&rep)) < 0)
		goto out;
	nl = rep.data ? strchr(rep.data, '\n') : NULL;
	if (!nl) {
		r = -EPROTO;
		goto out;
	}
	status = atoi(rep.data);
	ucg_buf_puts(out, nl + 1);
	r = ucg_buf_error(out);
	if (r == 0)
		r = status;
out:
	ucg_buf_fini(&req);
	ucg_buf_fini(&rep);
	close(fd);
	return r;
}
