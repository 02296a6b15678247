/* fs/deadconn.h — what a daemon killed with -9 can leave behind, and how its
 * successor ends it: a process that cannot finish dying, and FUSE connections that
 * nobody serves but the kernel still thinks are served.
 *
 * Why a killed daemon may not die: a mount's notifier thread telling the kernel that
 * an entry changed (fuse_lowlevel_notify_inval_entry) locks the directory in the
 * kernel; when that lock is held by a process inside an operation on the same mount,
 * waiting for the daemon's answer (a mkdir, an rmdir, a lookup), the thread waits
 * for the operation and the operation for the daemon. Alive, the daemon answers and
 * both go on. Killed, its other threads exit, but the notifier sleeps
 * uninterruptibly in the kernel: the process keeps its files, so /dev/fuse is never
 * released, the connection is never aborted, the operation waits forever, and every
 * call on the mount (statfs included) waits with it. The same hang follows from any
 * other holder of the device (a child that inherited it, a debugger).
 *
 * The kernel's way out is the connection's abort file in the fuse control
 * filesystem (fusectl, /sys/fs/fuse/connections/N/abort): every waiting request
 * ends with ECONNABORTED, the directory lock is released, the notifier returns and
 * the process exits; the mount then answers ENOTCONN like any dead mount, and the
 * successor replaces it (fs/mounts.c). A connection's number is the minor of its
 * superblock's device (mountinfo's 0:N); each mount's number is in the saved state
 * (fs/state.h, m and c records), so the successor aborts exactly its predecessor's
 * connections, checked again against /proc/self/mountinfo, which it reads without
 * touching the mounts (docs/filesystem.md, "Restart after kill -9").
 *
 * No fuse headers here.
 */
#ifndef UCGFS_DEADCONN_H
#define UCGFS_DEADCONN_H

#include <sys/types.h>

/* 1 if pid was killed but has not finished dying (its leader a zombie while another
 * thread lives, or SIGKILL pending), 0 if not (or no such process). */
int ucgfs_pid_dying(pid_t pid);

/* The pid of the process listening at the other end of fd, a connected AF_UNIX
 * socket (SO_PEERCRED), if it is dying as above; 0 if not, or not known. */
pid_t ucgfs_peer_dying(int fd);

/* Waits up to ms milliseconds for pid's threads all to have exited. 0 once they
 * have (or it is gone), -ETIMEDOUT. */
int ucgfs_pid_wait_exit(pid_t pid, int ms);

/* The connection number of the ucg FUSE mount (type fuse.cgroup) on top at dir
 * (an absolute, canonical path), from /proc/self/mountinfo; 0 if none: nonzero says
 * a ucg mount is there. Never touches the mount. */
unsigned ucgfs_conn_at(const char *dir);

/* Aborts FUSE connection conn if a ucg FUSE mount at dir is served by it (any of the
 * mounts stacked there), mounting the control filesystem for the call if it is not
 * at /sys/fs/fuse/connections. 1 if aborted, 0 if no such mount, or -errno. */
int ucgfs_conn_abort(unsigned conn, const char *dir);

#endif
