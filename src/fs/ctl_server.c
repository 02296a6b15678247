/* fs/ctl_server.c — the daemon's side of the control protocol (fs/ctl.h): the
 * listening socket, and one request per connection, read, served and answered.
 *
 * Who may talk to it: the socket is created with mode 0600 (bound under a umask of
 * 0177, so it never exists with a wider mode) in the private runtime directory
 * (fs/setup.c), and each connection's peer credentials (SO_PEERCRED) are checked
 * again: root and the daemon's own uid are served, anyone else gets EACCES, so a
 * socket made reachable by hand (chmod) still controls nothing for them.
 */
#include "fs/daemon_impl.h"

#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/ctl.h"
#include "fs/deadconn.h"
#include "fs/kenforce.h"
#include "host/cpuhold.h"
#include "fs/uring.h"
#include "host/host.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* Root, or the uid the daemon runs as. */
static int peer_allowed(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || len != sizeof(cr))
		return 0;
	return cr.uid == 0 || cr.uid == geteuid();
}

/* One request, decoded and served: its status (0 or a count, or -errno); the text
 * goes to out. req is argv, each string NUL-terminated (the last may lack its NUL). */
static int serve(struct daemon *d, char *req, size_t len, struct ucg_buf *out)
{
	char *argv[8], *p;
	int argc = 0, r = -EINVAL;

	for (p = req; p < req + len && argc < 8; p += strlen(p) + 1)
		argv[argc++] = p;
	if (argc < 1)
		return -EINVAL;
	if (!strcmp(argv[0], "ping")) {
		r = (int)getpid();
	} else if (!strcmp(argv[0], "mount") && argc == 4) {
		r = ucgfs_mount(d, argv[1], argv[2], argv[3], out);
	} else if (!strcmp(argv[0], "remount") && argc == 3) {
		r = ucgfs_remount(d, argv[1], argv[2], out);
	} else if (!strcmp(argv[0], "umount") && argc >= 2) {
		r = ucgfs_umount(d, argv[1], argc > 2 ? atoi(argv[2]) : 0);
	} else if (!strcmp(argv[0], "proc") && argc >= 2) {
		pthread_mutex_lock(&d->lock);
		ucgfs_drain(d);
		r = ucg_proc_cgroup(d->e, atoi(argv[1]), argc > 2 ? atoi(argv[2]) : 0, out);
		ucgfs_unlock_checked(d);
	} else if (!strcmp(argv[0], "cgroups")) {
		pthread_mutex_lock(&d->lock);
		r = ucg_proc_cgroups(d->e, out);
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(argv[0], "mounts")) {
		ucgfs_list_mounts(d, out);
		r = 0;
	} else if (!strcmp(argv[0], "compact")) {
		/* served by the main thread, the one that compacts; a sandbox (the fuzzer)
		 * keeps no journal and forks nothing */
		if (!d->sandbox)
			ucgfs_journal_compact(d, 1);
		r = 0;
	} else if (!strcmp(argv[0], "stats")) {
		struct ucg_host_stats s = { 0 };
		struct mnt *m;
		int rings = 0;

		pthread_mutex_lock(&d->lock);
		for (m = d->mounts; m; m = m->next)
			rings += ucgfs_uring_active(m->uring);
		ucgfs_drain(d);
		if (d->host)
			ucg_host_get_stats(d->host, &s);
		ucg_buf_printf(out,
			       "forks %llu\nexits %llu\nevents %llu\nresyncs %llu\ntasks %zu\n",
			       (unsigned long long)s.forks, (unsigned long long)s.exits,
			       (unsigned long long)s.events, (unsigned long long)s.resyncs,
			       ucg_task_count(d->e));
		/* Without process events: syncs that read only the new tids, and syncs
		 * that read nothing of /proc (host/host.c, "none"). */
		ucg_buf_printf(out, "polled_found %llu probes %llu quiet %llu\n",
			       (unsigned long long)s.found, (unsigned long long)s.probes,
			       (unsigned long long)s.quiet);
		/* Where the task table comes from: the process-events connector, or (a
		 * kernel that sends none) /proc, read at a sync when tasks came or went. */
		ucg_buf_printf(out, "task_events %s\n",
			       !d->host ? "none (no host: a sandbox)"
			       : ucg_host_polled(d->host)
				       ? "none (/proc read when tasks came or went)"
				       : "connector");
		/* The FUSE transport: mounts served through io_uring, requests answered
		 * through a ring. */
		ucg_buf_printf(out, "uring_mounts %d\nuring_requests %llu\n", rings,
			       ucgfs_uring_requests_total());
		/* How files are served: exact (direct_io) or cache (UCG_FUSE_CACHE=1). */
		ucg_buf_printf(out, "file_mode %s\n", d->cache ? "cache" : "exact");
		ucgfs_kenforce_stats(d->kenforce, out);
		/* A member's own affinity outside its cpuset: clamped by polling, or
		 * refused by the kernel's v2 cpuset controller. */
		if (d->cpuhold)
			ucg_cpuhold_describe(d->cpuhold, out);
		else
			ucg_buf_puts(out, "cpuset_hold kernel (v2 cpuset controller)\n");
		ucgfs_journal_stats(d, out); /* what saving the state costs */
		ucgfs_unlock_checked(d);
		r = 0;
	} else if (!strcmp(argv[0], "stop") && (argc == 1 || !strcmp(argv[1], "reset"))) {
		/* the client waits for the daemon's exit (its pid from ping) */
		d->stop = 1;
		d->reset = argc > 1;
		r = 0;
	}
	return r;
}

void ucgfs_ctl_answer(struct daemon *d, const char *req, size_t len, struct ucg_buf *reply)
{
	struct ucg_buf out;
	char *copy = malloc(len + 1); /* serve() needs the last string's NUL */
	int r = -ENOMEM;

	ucg_buf_init(&out);
	if (copy) {
		memcpy(copy, req, len);
		copy[len] = '\0';
		r = serve(d, copy, len, &out);
		free(copy);
	}
	/* The text of a reply whose text ran out of memory would be cut: say ENOMEM. */
	if (r >= 0 && ucg_buf_error(&out) < 0)
		r = ucg_buf_error(&out);
	ucg_buf_printf(reply, "%d\n", r);
	if (out.len)
		ucg_buf_append(reply, out.data, out.len);
	ucg_buf_fini(&out);
}

void ucgfs_ctl_handle(struct daemon *d, int fd)
{
	char req[16384];
	size_t len = 0;
	struct ucg_buf reply;
	struct timeval tv = { 2, 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ucg_buf_init(&reply);
	for (;;) {
		ssize_t n = read(fd, req + len, sizeof(req) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(req) - 1)
			break;
	}
	/* Refused only once the request is read: closing on unread data would reset the
	 * connection before the client reads its answer. */
	if (!peer_allowed(fd))
		ucg_buf_printf(&reply, "%d\n", -EACCES);
	else
		ucgfs_ctl_answer(d, req, len, &reply);
	if (reply.len && write(fd, reply.data, reply.len) < 0) {
		/* the client went away */
	}
	ucg_buf_fini(&reply);
}

int ucgfs_ctl_listen(int *ret, int *ret_stale, pid_t *ret_dying)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	pid_t dying = 0;
	int fd, r, stale = 0;

	r = ucgfs_ctl_path(sa.sun_path, sizeof(sa.sun_path), "ctl.sock");
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* One daemon per runtime directory: a live socket means one runs already --
	 * unless the one listening was killed and cannot finish dying (fs/deadconn.h):
	 * then it is a dead daemon's, as below, and its process is ended from here. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		dying = ucgfs_peer_dying(fd);
		close(fd);
		if (!dying)
			return -EADDRINUSE;
	} else {
		close(fd);
	}
	/* A socket nobody answers: its daemon died without removing it. */
	if (dying || (lstat(sa.sun_path, &st) == 0 && S_ISSOCK(st.st_mode)))
		stale = 1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(sa.sun_path);
	/* The socket file is made by bind with 0777 & ~umask: bind under 0177 so it is
	 * 0600 from its first moment (no chmod afterwards, no window). The daemon has no
	 * other thread yet that could create a file meanwhile. */
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || listen(fd, 64) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret = fd;
	*ret_stale = stale;
	*ret_dying = dying;
	return 0;
}
