/* fs/observer.c — what the daemon hears from the engine (struct ucg_observer_ops).
 *
 * The engine reports each change from inside the call that makes it, so under d->lock
 * and before the change is answered, whoever made it: a FUSE request, a control
 * request, a release agent moved to the roots, the state file restored. A change is
 * appended to the journal here, before it is answered (fs/journal.c: nothing while
 * the state is restored), and may change what the mounts' kernels hold (cache mode
 * checks before the lock is released). A change of
 * the tree is also sent as notes to the other mounts of the hierarchy (fs/notify.c):
 * the mount whose request made it is the one ucgfs_begin_notes named, whose kernel
 * saw the change, and the request waits for the notes of its batch.
 *
 * chmod and chown are heard here only as changes: their notes need the node id of a
 * file and the mode before, which ll_setattr has and this hook does not. Host events
 * (forks, exits) are counted as changes by ucgfs_drain; a fork into a non-root
 * cgroup is journaled (exits need not be: a restore checks that a task still lives).
 */
#include "fs/daemon_impl.h"

#include "engine/ucg.h"

#include <stddef.h>

static void changed(struct daemon *d)
{
	d->content_dirty = 1;
}

/* The FUSE node id of cg's directory, the same on every mount of its hierarchy. */
static uint64_t dir_id(const struct ucg_cgroup *cg)
{
	return ucg_cgroup_parent(cg) ? ucg_cgroup_ino(cg) : FUSE_ROOT_ID;
}

static void obs_cgroup_created(void *ctx, struct ucg_cgroup *cg)
{
	struct daemon *d = ctx;
	struct ucg_hierarchy *h = ucg_cgroup_hierarchy(cg);

	changed(d); /* e.g. the parent's files listing children */
	ucgfs_journal_cgroup(d, cg, 'd');
	if (!ucg_cgroup_parent(cg) || !ucgfs_others_mount(d, h))
		return;
	/* No other mount caches the name (no negative entries): only the parent's link
	 * count changed there. */
	ucgfs_queue_note(d, h, NOTE_INODE, 0, dir_id(ucg_cgroup_parent(cg)), NULL);
}

static void obs_cgroup_removed(void *ctx, struct ucg_cgroup *cg)
{
	struct daemon *d = ctx;
	struct ucg_hierarchy *h = ucg_cgroup_hierarchy(cg);
	uint64_t parent;

	changed(d); /* its files now fail with ENODEV */
	ucgfs_journal_cgroup(d, cg, 'r');
	if (!ucgfs_others_mount(d, h))
		return;
	parent = dir_id(ucg_cgroup_parent(cg));
	ucgfs_queue_note(d, h, NOTE_DELETE, parent, dir_id(cg), ucg_cgroup_name(cg));
	ucgfs_queue_note(d, h, NOTE_INODE, 0, parent, NULL);
}

/* A cgroup keeps its parent across a rename (the kernel's cgroup1 refuses others). */
static void obs_cgroup_renamed(void *ctx, struct ucg_cgroup *cg, const char *old_name)
{
	struct daemon *d = ctx;
	struct ucg_hierarchy *h = ucg_cgroup_hierarchy(cg);
	uint64_t parent;

	changed(d); /* release notification paths, for one */
	ucgfs_journal_renamed(d, cg, old_name);
	if (!ucgfs_others_mount(d, h))
		return;
	parent = dir_id(ucg_cgroup_parent(cg));
	ucgfs_queue_note(d, h, NOTE_ENTRY, parent, 0, old_name);
	ucgfs_queue_note(d, h, NOTE_ENTRY, parent, 0, ucg_cgroup_name(cg));
}

static void obs_cgroup_attr_changed(void *ctx, struct ucg_cgroup *cg, int file)
{
	changed(ctx); /* other mounts may cache a file whose mode changed */
	ucgfs_journal_attr(ctx, cg, file);
}

static void obs_attached(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n)
{
	changed(ctx);
	ucgfs_journal_attached(ctx, to, tids, n);
}

static void obs_task_forked(void *ctx, int parent_tid, int child_tid)
{
	ucgfs_journal_forked(ctx, child_tid); /* content: ucgfs_drain */
}

static void obs_file_written(void *ctx, struct ucg_cgroup *cg, const char *file,
			     const char *buf, size_t len)
{
	changed(ctx);
	ucgfs_journal_written(ctx, cg, file, buf, len);
}

static void obs_hierarchy_mounted(void *ctx, struct ucg_hierarchy *h, int created)
{
	if (created) /* a mount of an existing one: the mount table's record */
		ucgfs_journal_hierarchy(ctx, h, 'h');
}

static void obs_hierarchy_unmounted(void *ctx, struct ucg_hierarchy *h, int destroying)
{
	if (destroying)
		ucgfs_journal_hierarchy(ctx, h, 'x');
}

static void obs_hierarchy_remounted(void *ctx, struct ucg_hierarchy *h)
{
	changed(ctx); /* the root's files were renumbered; notes: ucgfs_remount */
	ucgfs_journal_hierarchy(ctx, h, 'R');
}

const struct ucg_observer_ops ucgfs_observer_ops = {
	.hierarchy_mounted = obs_hierarchy_mounted,
	.hierarchy_unmounted = obs_hierarchy_unmounted,
	.hierarchy_remounted = obs_hierarchy_remounted,
	.cgroup_created = obs_cgroup_created,
	.cgroup_removed = obs_cgroup_removed,
	.cgroup_renamed = obs_cgroup_renamed,
	.cgroup_attr_changed = obs_cgroup_attr_changed,
	.attached = obs_attached,
	.task_forked = obs_task_forked,
	.file_written = obs_file_written,
};
