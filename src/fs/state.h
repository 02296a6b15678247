/* fs/state.h — the daemon's saved state: tree, settings, ownership, membership.
 *
 * A text file, $UCG_RUNTIME_DIR/state, rewritten atomically (write a temporary file,
 * rename) whenever the tree changes; mode 0600, neither file opened through a
 * symlink. One record per line, fields separated by spaces,
 * bytes <= 0x20, 0x7f and '%' percent-encoded:
 *
 *   h IDX OPTS                       a live hierarchy (mounted or not) and its options
 *   d IDX PATH MODE UID GID          a cgroup directory (the root is "/")
 *   f IDX PATH MODE UID GID DATA|-   a control file; DATA is its content if writable
 *   t IDX PATH TID START             a task in a non-root cgroup (restored only if the
 *                                    same task, by start time, still lives)
 *   m IDX NAME DIR                   a mount point of hierarchy IDX
 *
 * No fuse headers here.
 */
#ifndef UCGFS_STATE_H
#define UCGFS_STATE_H

#include <pthread.h>

#include "engine/ucg.h"

struct ucgfs_state_mount {
	const char *name, *dir;
	struct ucg_hierarchy *h;
};

/* Writes the state of e and its mounts. Called with the engine lock held. 0 or -errno. */
int ucgfs_state_save(struct ucg_engine *e, const struct ucgfs_state_mount *mounts, int n);

/* Removes the state file (and a leftover temporary): the next daemon starts with no
 * hierarchies. */
void ucgfs_state_forget(void);

/* Mounts a hierarchy at a directory (the daemon's mount operation). Called without the
 * lock. */
typedef int (*ucgfs_state_mount_fn)(void *ctx, const char *name, const char *dir,
				    const char *opts);

/* Reads the state file, if any, and rebuilds: hierarchies, tree, settings, ownership,
 * then membership of tasks that still live, then the mounts (through mount_fn).
 * lock is the engine lock, taken around engine work. 0, or -errno for an unreadable
 * file (a missing file is 0). */
int ucgfs_state_restore(struct ucg_engine *e, ucgfs_state_mount_fn mount_fn, void *ctx,
			pthread_mutex_t *lock);

#endif
