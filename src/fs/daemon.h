/* fs/daemon.h — the filesystem daemon: one engine, every mount.
 *
 * The daemon owns one engine fed by the host provider, serves each mount with its
 * own FUSE session in its own thread, and answers control requests (ctl.h) on a unix
 * socket. All engine access is serialised by one mutex. It runs release agents the
 * way the kernel does and saves the tree to the runtime directory on every change.
 */
#ifndef UCGFS_DAEMON_H
#define UCGFS_DAEMON_H

/* Runs the daemon in the calling process until a "stop" request, SIGTERM or SIGINT.
 * ready_fd >= 0 gets one byte written (and is closed) once the socket listens.
 * Returns 0 or -errno (the daemon's setup failed; nothing was left behind). */
int ucgfs_daemon_run(int ready_fd);

#endif
