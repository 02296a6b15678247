/* fs/test_ctl.c — the client side of the control protocol: a reply, the daemon's
 * error, no daemon, and a daemon that takes a request and never answers (which
 * `ucg umount` waits for only so long). */
#include "fs/ctl.h"

#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static char rundir[] = "/tmp/ucg-test-ctl.XXXXXX";

/* A listening socket at the runtime directory's ctl.sock; -1 on failure. */
static int listen_ctl(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || ucgfs_ctl_path(sa.sun_path, sizeof(sa.sun_path), "ctl.sock") < 0)
		return -1;
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct server {
	int fd;
	const char *reply;
	char got[256]; /* the request's strings, NULs as '|' */
};

/* Takes one request, reads it to its end and sends the reply. */
static void *serve_one(void *arg)
{
	struct server *sv = arg;
	size_t n = 0;
	ssize_t r;
	int c = accept(sv->fd, NULL, NULL);

	if (c < 0)
		return NULL;
	while (n < sizeof(sv->got) - 1 && (r = read(c, sv->got + n, sizeof(sv->got) - 1 - n)) > 0)
		n += (size_t)r;
	for (size_t i = 0; i < n; i++)
		if (!sv->got[i])
			sv->got[i] = '|';
	sv->got[n] = '\0';
	if (write(c, sv->reply, strlen(sv->reply)) < 0)
		sv->got[0] = '\0';
	close(c);
	return NULL;
}

static int ask(const char *reply, struct ucg_buf *out, char *got, size_t gotsize)
{
	struct server sv = { listen_ctl(), reply, "" };
	pthread_t th;
	int r;

	if (sv.fd < 0 || pthread_create(&th, NULL, serve_one, &sv) != 0)
		return -100;
	r = ucgfs_ctl_request_within(2, (const char *const[]){ "umount", "/x" }, out, 5000);
	pthread_join(th, NULL);
	close(sv.fd);
	snprintf(got, gotsize, "%s", sv.got);
	return r;
}

static void reply_and_error(void)
{
	struct ucg_buf out;
	char got[256];

	ucg_buf_init(&out);
	T_EQ_INT(ask("0\nhello\n", &out, got, sizeof(got)), 0);
	T_EQ_STR(out.data ? out.data : "", "hello\n");
	T_EQ_STR(got, "umount|/x|");
	ucg_buf_fini(&out);
	ucg_buf_init(&out);
	T_EQ_INT(ask("-16\nbusy\n", &out, got, sizeof(got)), -EBUSY);
	T_EQ_STR(out.data ? out.data : "", "busy\n");
	ucg_buf_fini(&out);
	ucg_buf_init(&out);
	T_EQ_INT(ask("no status line", &out, got, sizeof(got)), -EPROTO);
	ucg_buf_fini(&out);
}

static void no_daemon(void)
{
	char path[256];
	struct ucg_buf out;

	ucg_buf_init(&out);
	T_EQ_INT(ucgfs_ctl_path(path, sizeof(path), "ctl.sock"), 0);
	unlink(path);
	T_EQ_INT(ucgfs_ctl_request_within(1, (const char *const[]){ "mounts" }, &out, 100),
		 -ENOENT);
	ucg_buf_fini(&out);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A socket whose backlog takes the connection and nobody answers: a daemon stopped
 * or wedged. The wait ends at its deadline, with ETIMEDOUT, in steps of at most a
 * second (each looks whether the peer is dying). */
static void silent_daemon(void)
{
	struct ucg_buf out;
	int fd = listen_ctl(), r;
	double t0, dt;

	T_CHECK(fd >= 0);
	ucg_buf_init(&out);
	t0 = now_s();
	r = ucgfs_ctl_request_within(2, (const char *const[]){ "umount", "/x" }, &out, 300);
	dt = now_s() - t0;
	T_EQ_INT(r, -ETIMEDOUT);
	T_CHECK(dt >= 0.29 && dt < 2.0);
	t0 = now_s();
	r = ucgfs_ctl_request_within(2, (const char *const[]){ "umount", "/x" }, &out, 1500);
	dt = now_s() - t0;
	T_EQ_INT(r, -ETIMEDOUT);
	T_CHECK(dt >= 1.49 && dt < 3.5);
	ucg_buf_fini(&out);
	close(fd);
}

int main(void)
{
	char path[256];
	int r;

	if (!mkdtemp(rundir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("UCG_RUNTIME_DIR", rundir, 1);
	T_RUN(reply_and_error);
	T_RUN(no_daemon);
	T_RUN(silent_daemon);
	r = t_done();
	if (ucgfs_ctl_path(path, sizeof(path), "ctl.sock") == 0)
		unlink(path);
	rmdir(rundir);
	return r;
}
