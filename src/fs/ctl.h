/* fs/ctl.h — the control protocol between `ucg` and the daemon.
 *
 * One request per connection on a unix stream socket, $UCG_RUNTIME_DIR/ctl.sock
 * (default /run/ucgroups). The request is a list of NUL-terminated strings (the
 * command word first); the reply is "<n>\n" then text, where n is 0 or a count on
 * success and -errno on failure, and the text is output (or the kernel-log detail
 * of an error). No fuse headers here: the CLI links this without libfuse.
 */
#ifndef UCGFS_CTL_H
#define UCGFS_CTL_H

#include <stddef.h>

#include "base/buf.h"

#define UCGFS_RUNTIME_DEFAULT "/run/ucgroups"

/* The runtime directory: $UCG_RUNTIME_DIR or the default. */
const char *ucgfs_ctl_runtime_dir(void);
/* Writes "<dir>/<leaf>" into buf; -ENAMETOOLONG if it does not fit. */
int ucgfs_ctl_path(char *buf, size_t size, const char *leaf);
/* Sends argv[0..argc-1] and waits for the reply. Returns the daemon's status (0 or
 * a count, or -errno); the text is appended to out. -ECONNREFUSED/-ENOENT when no
 * daemon listens. */
int ucgfs_ctl_request(int argc, const char *const *argv, struct ucg_buf *out);
/* The same, waiting at most ms milliseconds for the reply (ms < 0: as long as the
 * daemon lives): -ETIMEDOUT when a daemon took the request and has not answered. */
int ucgfs_ctl_request_within(int argc, const char *const *argv, struct ucg_buf *out, int ms);

#endif
