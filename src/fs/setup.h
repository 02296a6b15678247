/* fs/setup.h — the daemon's place on the host: its runtime directory, log, pidfile
 * and the starter's readiness pipe (fs/setup.c). No fuse headers here. */
#ifndef UCGFS_SETUP_H
#define UCGFS_SETUP_H

#include <stddef.h>

/* Makes $UCG_RUNTIME_DIR (mode 0700) or checks the one there: a real directory (not
 * a symlink) owned by the daemon's uid, writable by nobody else. 0, -EPERM for a
 * directory owned by another user or writable by group or others, -ENOTDIR/-ELOOP
 * for something else, or the errno of mkdir/open. why gets a short explanation. */
int ucgfs_runtime_prepare(char *why, size_t size);

/* Points stdout and stderr at $UCG_RUNTIME_DIR/daemon.log (appended, 0600, no
 * symlink followed). 0 or -errno. */
int ucgfs_log_open(void);

/* Works from "/" with stdin on /dev/null, as a daemon does. 0 or -errno. */
int ucgfs_detach_stdio(void);

/* Writes "PID\n" to path through path.tmp and rename, neither followed if a
 * symlink. 0 or -errno. */
int ucgfs_pidfile_write(const char *path);
/* Removes path if it still names this process. */
void ucgfs_pidfile_remove(const char *path);

/* Tells the starter on fd: "0 PID\n" for r == 0, "-ERRNO WHAT\n" otherwise; closes
 * fd. Nothing for fd < 0. */
void ucgfs_ready_send(int fd, int r, const char *what);

#endif
