/* view/mount_api.h — the new mount API's constants (Linux 5.2; glibc 2.36 has them in
 * <sys/mount.h>, older headers do not): open_tree clones a mount, move_mount places it. */
#ifndef UCG_VIEW_MOUNT_API_H
#define UCG_VIEW_MOUNT_API_H

#include <fcntl.h>
#include <sys/syscall.h>

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif

#endif
