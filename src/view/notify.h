/* view/notify.h — seccomp user notification: the view's answers handed to every
 * process inside, as file descriptors.
 *
 * A filter installed before exec (and inherited by every child and thread) sends
 * each open, openat and openat2 of the native architecture to a supervisor. The
 * supervisor reads the path from the caller's memory, makes it absolute against the
 * caller's working directory or dirfd (view/path.h), and for the files the view owns
 * places a memfd holding the answer in the caller's table in one step
 * (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND, Linux 5.14); every other
 * open is let through unchanged (SECCOMP_USER_NOTIF_FLAG_CONTINUE), as are writes,
 * O_PATH and O_DIRECTORY opens. statfs and fstatfs of a file in one of the view's
 * hierarchies report the cgroup filesystem's magic (CGROUP_SUPER_MAGIC) where FUSE's
 * would show: the supervisor makes the call itself (fstatfs on a copy of the caller's
 * descriptor, pidfd_getfd), changes f_type and writes the result into the caller's
 * buffer. mount(2) of type "cgroup" is the owner's to serve (view/vmount.c). This covers static binaries and raw syscalls (Go),
 * which a preload library would not. Limits: 32-bit compat syscalls are not
 * intercepted; the answer is a memfd, so readlink of /proc/self/fd/N says
 * "/memfd:..." and fstat shows a regular file with its size, where the kernel shows
 * a 0-byte proc file. Cost: docs/exec-view.md.
 */
#ifndef UCG_VIEW_NOTIFY_H
#define UCG_VIEW_NOTIFY_H

#include "base/buf.h"
#include "view/path.h"

/* What the supervisor asks its owner. */
struct view_notify_ops {
	/* Fills out with the content of the file t names; 0, or -errno to let the
	 * kernel's own file be opened instead. */
	int (*answer)(void *ctx, const struct view_target *t, struct ucg_buf *out);
	/* Whether a file on device major:minor is in one of the view's hierarchies
	 * (statfs then reports CGROUP_SUPER_MAGIC). */
	int (*is_hier_dev)(void *ctx, unsigned major, unsigned minor);
	/* mount(2) of type "cgroup" by pid at target (absolute): 0 or -errno as the
	 * call's result, 1 to let the kernel have it. */
	int (*mount)(void *ctx, int pid, const char *target, unsigned long flags, const char *data);
};

/* In the process about to exec: installs the filter. Returns the listener fd or
 * -errno (-EPERM without CAP_SYS_ADMIN: no_new_privs is not set, so set-uid programs
 * keep working inside). */
int view_notify_install(void);

/* In the supervisor: asks for wake-ups on the caller's CPU (Linux 6.7; ignored before). */
void view_notify_tune(int listener);

/* Receives and answers one notification (blocks if none is pending). 1 if answered
 * from the view, 0 if let through, -errno if the listener failed (-ENOENT: the caller
 * went away meanwhile, harmless). */
int view_notify_serve(int listener, const struct view_notify_ops *ops, void *ctx);

#endif
