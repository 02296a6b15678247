/* fs/state.h — the daemon's saved state: tree, settings, ownership, membership.
 *
 * Two kinds of file in $UCG_RUNTIME_DIR, mode 0600, never opened through a symlink:
 *
 *   state        a snapshot, rewritten atomically (temporary file, fdatasync, rename)
 *                when the journal is compacted (fs/journal.c) and at the daemon's start
 *   journal.GEN  the changes made since the snapshot of generation GEN was taken, one
 *                record per change appended before the change is answered
 *
 * One record per line, fields separated by spaces, bytes <= 0x20, 0x7f and '%'
 * percent-encoded. ID is the engine's hierarchy id in the daemon that wrote the record
 * (a snapshot and the journals after it always come from one daemon):
 *
 *   g GEN                            first line of a snapshot: journals GEN and later
 *                                    follow it (none: an old file, generation 0)
 *   h ID OPTS                        a live hierarchy (mounted or not) and its options
 *   d ID PATH MODE UID GID           a cgroup directory (the root is "/"), made if absent
 *   f ID PATH MODE UID GID DATA|-    a control file; DATA is its content if writable
 *   t ID PATH TID START              a task in cgroup PATH (restored only if the same
 *                                    task, by start time, still lives)
 *   m ID NAME DIR [CONN]             a mount point of hierarchy ID; CONN is the FUSE
 *                                    connection serving it (fs/deadconn.h), if known
 *
 * and in journals only:
 *
 *   x ID                             hierarchy ID was destroyed
 *   R ID OPTS                        hierarchy ID was remounted with OPTS
 *   r ID PATH                        cgroup PATH was removed
 *   n ID PATH NEWPATH                cgroup PATH was renamed
 *   w ID PATH DATA                   DATA was written to control file PATH (one write)
 *   u ID DIR                         the mount of hierarchy ID at DIR went away
 *   c ID DIR CONN                    the mount of hierarchy ID at DIR is now served by
 *                                    FUSE connection CONN (a restored mount, made anew)
 *
 * A journal line ends with " ~" and the FNV-1a hash of what precedes it, 8 hex digits:
 * a record cut by a crash (no newline, or a wrong hash) ends the journal there.
 *
 * No fuse headers here.
 */
#ifndef UCGFS_STATE_H
#define UCGFS_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/ucg.h"

struct ucgfs_state_mount {
	const char *name, *dir;
	struct ucg_hierarchy *h;
	unsigned conn; /* the FUSE connection serving it; 0: not known */
};

/* Appends s percent-encoded (an empty string is "%"). */
void ucgfs_state_put_enc(struct ucg_buf *b, const char *s, size_t len);
/* Appends the records of directory dir of h (d, then f for each file, t for its
 * tasks unless it is the root), and of its subdirectories when recurse. 0 or -errno. */
int ucgfs_state_put_dir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *dir, int recurse,
			struct ucg_buf *out);
/* Appends the options a hierarchy is restored with (no release agent, no
 * clone_children: its root's files carry them). */
void ucgfs_state_put_opts(const struct ucg_hierarchy *h, struct ucg_buf *out);
/* The hash ending a journal line. */
uint32_t ucgfs_state_hash(const char *s, size_t len);

/* The whole snapshot of e and its mounts, generation gen, into out (called with the
 * engine lock held: no I/O). 0 or -errno. */
int ucgfs_state_serialize(struct ucg_engine *e, const struct ucgfs_state_mount *mounts, int n,
			  uint64_t gen, struct ucg_buf *out);
/* Writes a serialized snapshot as the state file: temporary, fdatasync, rename, fsync
 * of the directory. No lock needed. 0 or -errno. */
int ucgfs_state_write(const struct ucg_buf *snapshot);
/* The runtime directory made durable: a rename or a new file in it survives a power
 * loss once this returns. */
void ucgfs_state_sync_dir(void);
/* Removes the journals of generations below gen (all: UINT64_MAX). */
void ucgfs_state_drop_journals(uint64_t gen);
/* Removes the state file, its temporary and every journal: the next daemon starts
 * with no hierarchies. */
void ucgfs_state_forget(void);

/* A restore in progress: hierarchies held by it, mounts still to make. */
struct ucgfs_restore;

/* Mounts a hierarchy at a directory (the daemon's mount operation). Called without the
 * lock. */
typedef int (*ucgfs_state_mount_fn)(void *ctx, struct ucg_hierarchy *h, const char *name,
				    const char *dir, const char *opts);

/* Reads the state file and the journals after it, if any, and rebuilds: hierarchies,
 * tree, settings, ownership, membership of tasks that still live. lock is the engine
 * lock, taken around engine work. *ret (NULL only for -ENOMEM) holds the hierarchies
 * (each mounted once by the restore) and the mounts to make. 0, or -errno for an
 * unreadable file (a missing file is 0). */
int ucgfs_state_restore(struct ucg_engine *e, pthread_mutex_t *lock, struct ucgfs_restore **ret);
/* A generation above every one found on disk: the next journal's. */
uint64_t ucgfs_restore_next_gen(const struct ucgfs_restore *rs);
/* The mounts the restore will make, for the snapshot taken before them. */
int ucgfs_restore_mounts(const struct ucgfs_restore *rs, const struct ucgfs_state_mount **ret);
/* Makes the mounts (through mount_fn), drops the restore's own mount of each
 * hierarchy (those left unmounted and childless go, as after a last umount) and frees
 * rs. */
void ucgfs_restore_finish(struct ucgfs_restore *rs, ucgfs_state_mount_fn mount_fn, void *ctx,
			  pthread_mutex_t *lock);

#endif
