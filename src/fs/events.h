/* fs/events.h — cgroup.event_control on real processes: the writer's fds.
 *
 * A write to cgroup.event_control names two fds of the writing process. The daemon
 * duplicates them with pidfd_open(writer) + pidfd_getfd() (Linux >= 5.6; the daemon
 * is root), checks the first is an eventfd (/proc/self/fdinfo has "eventfd-count")
 * and finds the second's path (readlink /proc/self/fd/N) under one of its mounts. The
 * registration's handle is the daemon's copy of the eventfd; a notification adds its
 * count to it with write(2); the final one closes it.
 *
 * Limit: the daemon's copy keeps the eventfd open, so the kernel's "closing the
 * eventfd ends the registration" cannot be seen: a registration ends when its cgroup
 * is removed or the daemon stops, not when the user closes the eventfd.
 */
#ifndef UCGFS_EVENTS_H
#define UCGFS_EVENTS_H

#include <sys/types.h>

#include "engine/ucg.h"

/* Maps an absolute path to the hierarchy of the mount it is under and the path within
 * it (pointing into abs, or "/" for the mount point); NULL if under none. */
typedef struct ucg_hierarchy *(*ucgfs_events_find_fn)(void *ctx, const char *abs,
						      const char **ret_rel);

/* The provider's event_fds op for writer: the kernel's errnos (EBADF, EINVAL). The
 * path in ret points into pathbuf. */
int ucgfs_events_fds(pid_t writer, unsigned event_fd, unsigned control_fd,
		     ucgfs_events_find_fn find, void *find_ctx, char *pathbuf, size_t pathlen,
		     struct ucg_event_target *ret);
/* The provider's event_put op: closes the daemon's copy. */
void ucgfs_events_put(uint64_t handle);
/* Pops every pending notification of e and delivers it. Call with the engine lock. */
void ucgfs_events_deliver(struct ucg_engine *e);

#endif
