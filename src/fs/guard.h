/* fs/guard.h — a small child that ends the daemon's FUSE connections when the daemon
 * is killed and cannot finish dying (fs/deadconn.h says how that happens).
 *
 * Why a process of its own: such a daemon never exits, so nothing watching for its
 * exit (systemd, a shell's wait) ever hears of it, and its mounts hang until someone
 * aborts their connections. The guard is forked before any mount is made and keeps
 * nothing of the daemon's but a pipe: the daemon writes "+CONN DIR" when a mount is
 * made and "-CONN" when it goes. When the thread that forked it exits (the main
 * thread: PR_SET_PDEATHSIG) and the pipe is still open 300 ms later -- a process
 * that exits releases its files at once -- the guard aborts the connections listed,
 * each checked in /proc/self/mountinfo, and the daemon finishes dying; its mounts
 * answer ENOTCONN and the supervisor restarts it as after any kill -9. The guard
 * exits when the pipe closes. It ignores SIGTERM, SIGINT and SIGHUP (a stop of the
 * whole group must not take it before the daemon), and a SIGKILL of it costs only
 * this protection: a daemon that starts later ends a dying predecessor's connections
 * itself (fs/daemon.c).
 */
#ifndef UCGFS_GUARD_H
#define UCGFS_GUARD_H

/* Forks the guard; returns the daemon's end of the pipe (close-on-exec), or -errno
 * (the daemon then runs without one). */
int ucgfs_guard_start(void);

/* Tells the guard (fd from ucgfs_guard_start; nothing if negative) that connection
 * conn serves the mount at dir (made), or no longer does (dir NULL). Never blocks. */
void ucgfs_guard_tell(int fd, unsigned conn, const char *dir);

#endif
