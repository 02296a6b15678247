/* fs/daemon.h — the filesystem daemon: one engine, every mount.
 *
 * The daemon owns one engine fed by the host provider, serves each mount with its
 * own FUSE session in its own thread, and answers control requests (ctl.h) on a unix
 * socket. All engine access is serialised by one mutex. It runs release agents the
 * way the kernel does and journals every change to the runtime directory before it
 * is answered (fs/journal.c).
 */
#ifndef UCGFS_DAEMON_H
#define UCGFS_DAEMON_H

#include <stddef.h>

/* How the daemon runs (ucgfs_daemon_run). */
struct ucgfs_daemon_opts {
	/* -1, or a pipe: once the daemon serves (socket listening, state restored,
	 * pidfile written) it writes "0 PID\n"; if it cannot start, "-ERRNO WHAT\n"
	 * (WHAT as in failed below). Closed either way. */
	int ready_fd;
	/* NULL, or an absolute path: the daemon's pid, written (temp + rename) once
	 * it serves and removed when it exits, if it still holds that pid. */
	const char *pidfile;
	/* Nonzero: stdout and stderr go to $UCG_RUNTIME_DIR/daemon.log (detached). */
	int log;
	/* Out: when the setup fails, what failed ("control socket /run/x/ctl.sock"). */
	char failed[512];
};

/* Runs the daemon in the calling process until a "stop" request, SIGTERM, SIGINT or
 * SIGHUP. It works from "/" with stdin on /dev/null; $UCG_RUNTIME_DIR must be
 * absolute. Returns 0 or -errno (the setup failed, o->failed says where; nothing was
 * left behind). */
int ucgfs_daemon_run(struct ucgfs_daemon_opts *o);

#endif
