/* cli/fs_client.h — helpers shared by the filesystem commands (cmd_fs.c, cmd_up.c,
 * cmd_daemon.c). */
#ifndef UCG_CLI_FS_CLIENT_H
#define UCG_CLI_FS_CLIENT_H

#include <stddef.h>

/* Drops mount(8)'s generic options (rw, relatime, ...) from in; *remount says whether
 * "remount" was among them. -E2BIG if out is too small. */
int ucg_fs_split_opts(const char *in, char *out, size_t size, int *remount);
/* How long a request that should be quick (a ping, an umount) waits for the daemon's
 * answer before ucg says it does not answer: $UCG_CTL_WAIT_MS, else 15 s (a busy
 * daemon under a sanitizer answers within a second or two). A daemon stopped
 * (SIGSTOP) or wedged takes the request and never answers. */
int ucg_fs_ctl_wait_ms(void);
/* Detaches stale mounts (ENOTCONN) of a dead daemon at dir. */
void ucg_fs_clear_stale(const char *dir);
/* Says on stderr "ucg: CMD: the daemon on SOCKET does not answer: <ETIMEDOUT's
 * text>": a daemon took a request and said nothing in ucg_fs_ctl_wait_ms. */
void ucg_fs_say_silent(const char *cmd);
/* Starts a detached daemon unless one answers (cli/cmd_daemon.c); says on stderr, as
 * "ucg: CMD: ...", that a dead one was replaced, or why none could start. 0 or -errno. */
int ucg_fs_ensure_daemon(const char *cmd);
/* Sends a control request and prints its text; on failure says so as "ucg: CMD:
 * OBJ: <strerror>" ("no daemon: SOCKET: ..." when none listens, "the daemon on
 * SOCKET does not answer: ..." when it took a query and said nothing in
 * ucg_fs_ctl_wait_ms; a compaction is waited for). Exit status 0 or 1. */
int ucg_fs_request_print(const char *cmd, int argc, const char *const *argv, const char *obj);
/* Stops the daemon and waits until it has exited and its mounts are gone; reset: the
 * saved state is forgotten too (also with no daemon running). quiet_if_none: no
 * daemon is not an error. Exit status 0 or 1, errors on stderr as "ucg: CMD: ...". */
int ucg_fs_stop_daemon(const char *cmd, int reset, int quiet_if_none);
/* `ucg mount` / `ucg umount` of one directory; exit status (0 or 32). quiet: no message. */
int ucg_fs_do_mount(const char *name, const char *dir, const char *opts, int quiet);
int ucg_fs_do_umount(const char *dir, int quiet);

#endif
