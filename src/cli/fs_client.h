/* cli/fs_client.h — helpers shared by the filesystem commands (cmd_fs.c, cmd_up.c). */
#ifndef UCG_CLI_FS_CLIENT_H
#define UCG_CLI_FS_CLIENT_H

#include <stddef.h>

/* Drops mount(8)'s generic options (rw, relatime, ...) from in; *remount says whether
 * "remount" was among them. -E2BIG if out is too small. */
int ucg_fs_split_opts(const char *in, char *out, size_t size, int *remount);
/* Detaches stale mounts (ENOTCONN) of a dead daemon at dir. */
void ucg_fs_clear_stale(const char *dir);
/* Starts a daemon in the background unless one answers. 0 or -errno. */
int ucg_fs_ensure_daemon(void);
/* `ucg mount` / `ucg umount` of one directory; exit status (0 or 32). quiet: no message. */
int ucg_fs_do_mount(const char *name, const char *dir, const char *opts, int quiet);
int ucg_fs_do_umount(const char *dir, int quiet);

#endif
