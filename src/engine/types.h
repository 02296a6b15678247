/* engine/types.h — the engine's object model (the kernel's cgroup-defs.h, our shape).
 *
 *   engine ──< hierarchy ──1 root cgroup ──< child cgroups ...        (one tree each)
 *      │          └── slot: a small index naming the hierarchy in css_sets
 *      ├──< css_set: a unique combination of memberships, shared by refcount
 *      │       └── links[]: (slot, cgroup) for each hierarchy where it is NOT the root
 *      └──< task ── css_set (NULL once exited: a zombie shows the roots everywhere)
 *
 * A css_set names only the non-root cgroups, sorted by slot; a hierarchy missing from
 * it means "its root". So creating a hierarchy touches no css_set, a fork just takes
 * its parent's set (O(1)), and tasks with the same memberships share one set.
 * Ownership: the engine owns hierarchies, css_sets and tasks; a hierarchy owns its
 * cgroups; a cgroup owns its css (one per controller bound to the hierarchy).
 */
#ifndef UCG_ENGINE_TYPES_H
#define UCG_ENGINE_TYPES_H

#include <stdint.h>

#include "base/htable.h"
#include "base/otable.h"
#include "base/slab.h"
#include "engine/dircache.h"
#include "base/list.h"
#include "engine/subsys.h"
#include "engine/ucg.h"

/* Live hierarchies at once (each takes a slot); the kernel has no fixed limit. */
#define UCG_MAX_HIERARCHIES 64
#define UCG_PATH_MAX 4096
#define UCG_NAME_MAX 63 /* hierarchy names */

#define UCG_HF_NOPREFIX 0x1u
#define UCG_HF_XATTR 0x2u
#define UCG_HF_CPUSET_V2_MODE 0x4u
#define UCG_HF_FAVORDYNMODS 0x8u

/* Ownership and mode of one control file in one cgroup (chmod/chown stick to it). */
struct ucg_file_attr {
	uint32_t mode, uid, gid;
};

/* One control file of a directory: the descriptor and whose it is (NULL: core). */
struct ucg_dirfile {
	const struct ucg_cftype *cft;
	const struct ucg_subsys *ss;
	char *name; /* full name, prefix included */
	size_t name_len; /* strlen(name): every path lookup compares against it */
};

struct ucg_hierarchy {
	struct ucg_engine *e;
	int id;       /* kernel-style hierarchy id, allocated cyclically from 1 */
	int slot;     /* index in css_set links, 0..UCG_MAX_HIERARCHIES-1 */
	uint64_t seq; /* creation sequence: /proc/PID/cgroup lists newest first */
	char name[UCG_NAME_MAX + 1];
	uint32_t ss_mask; /* bound controllers, bit = enum ucg_subsys_id */
	unsigned flags;   /* UCG_HF_* */
	char *release_agent; /* never NULL; "" when unset */
	int mount_count;
	int nr_cgroups; /* root included */
	/* One reference while live, one per cgroup still allocated (removed cgroups kept
	 * by open files included), so a cgroup never outlives its hierarchy's data. */
	int refcnt;
	int dead; /* destroyed: out of the engine's list, its slot and id free */
	struct ucg_cgroup *root;
	/* Live cgroups by serial (hashed with ucg_hash_u64): ucg_fs_ino_path, for
	 * front ends that name entries by inode number (FUSE's low-level API). */
	struct ucg_otable by_serial;
	struct ucg_list node; /* in engine->hierarchies, creation order */
	/* The files of the root and of every other cgroup, sorted by name. Rebuilt when
	 * controllers are bound or released (only possible while the root is alone). */
	struct ucg_dirfile *root_files, *child_files;
	int nr_root_files, nr_child_files;
	struct ucg_dircache dircache; /* resolved directory paths (engine/fs.c) */
};

struct ucg_cgroup {
	struct ucg_hierarchy *h;
	struct ucg_cgroup *parent; /* NULL for the root */
	char *name;                /* "" for the root; in the cgroup's own block until renamed */
	uint64_t serial;           /* unique in the engine; inode numbers derive from it */
	struct ucg_list sibling;   /* in parent->children, creation order */
	struct ucg_list children;
	/* Children by name (their name hash, engine/cgroup.c); open addressing with the
	 * hash in the slot, so the cgroup itself carries no table node. */
	struct ucg_otable child_names;
	uint32_t name_len; /* strlen(name), kept for lookups */
	int nr_children;
	uint32_t mode, uid, gid; /* the directory's */
	/* The files' owner until one is chown'ed: the creator's fsuid/fsgid. */
	uint32_t file_uid, file_gid;
	/* Parallel to the hierarchy's file table; NULL while every file still has its
	 * table mode and the creator as owner (most cgroups, ever): ucg_cgroup_file_attr. */
	struct ucg_file_attr *file_attrs;
	unsigned notify_on_release : 1;
	unsigned clone_children : 1;
	unsigned removed : 1;
	unsigned release_queued : 1;
	unsigned pins_parent : 1; /* holds a reference on a non-root parent */
	unsigned name_inline : 1; /* name lives in this block, after the css slots */
	unsigned block_size : 16; /* bytes of the block, for ucg_slab_free */
	/* References: the tree holds one until rmdir; each open file and a queued release
	 * notification hold one. Freed when it drops to zero. */
	int refcnt;
	int nr_populated_csets; /* linked css_sets that have live tasks */
	struct ucg_list cset_links; /* struct ucg_cset_link.cg_node */
	/* One slot per controller, UCG_SUBSYS_COUNT of them, in this block when the
	 * hierarchy had controllers at creation (and always for a root, which a remount may
	 * rebind); a child of a controller-less hierarchy points at one shared empty row,
	 * read-only (such a hierarchy never gains controllers while it has children). */
	struct ucg_css **css;
	/* struct ucg_event_reg.cg_next (engine/event.h), in registration order: one
	 * pointer, since registrations only ever leave all at once, with the cgroup. */
	struct ucg_event_reg *events;
	/* Observers' own pointers (ucg_cgroup_priv), UCG_MAX_OBSERVERS of them; NULL until
	 * an observer first hangs something here, so a cgroup nobody watches pays 8 bytes. */
	void **priv;
};

struct ucg_cset_link {
	int slot;
	struct ucg_cgroup *cg;
	struct ucg_css_set *cset;
	struct ucg_list cg_node; /* in cg->cset_links */
};

struct ucg_css_set {
	struct ucg_hnode node; /* in engine->csets, keyed by links */
	struct ucg_list all;   /* engine->cset_list */
	uint64_t serial;       /* creation number in the engine (0: the all-roots set) */
	int refcnt;            /* tasks that point here, plus temporary references */
	int nr_tasks;          /* live tasks on the list below */
	struct ucg_list tasks;
	int nr_links;
	struct ucg_cset_link links[]; /* sorted by slot */
};

struct ucg_tgroup {
	struct ucg_hnode node; /* in engine->tgroups by tgid */
	int tgid;
	int nr_threads; /* threads in the table, zombies included */
	struct ucg_list threads;
};

struct ucg_task {
	struct ucg_hnode node; /* in engine->tasks by tid */
	struct ucg_task_info info;
	struct ucg_tgroup *tg;
	struct ucg_list tg_node;
	struct ucg_css_set *cset; /* NULL when exited (a zombie is in no cgroup) */
	/* The set it exited in, referenced until it is reaped, for the release hooks
	 * (the kernel's zombie keeps its css_set until release_task). */
	struct ucg_css_set *dead_cset;
	struct ucg_list cset_node;
	int exited;
	/* freezer (owned by controllers/freezer.c): the task was asked to stop, and the
	 * provider reported it stopped (the kernel's frozen task state). */
	unsigned freeze_requested : 1;
	unsigned freeze_stopped : 1;
	/* set on the probe of a fork that already happened (ucg_task_forked): a
	 * can_fork may count its refusal but must charge and accept */
	unsigned fork_forced : 1;
};

struct ucg_release_req {
	struct ucg_list node;
	struct ucg_cgroup *cg; /* holds a reference */
};

struct ucg_engine {
	struct ucg_engine_config cfg;
	struct ucg_list hierarchies;
	struct ucg_hierarchy *slots[UCG_MAX_HIERARCHIES];
	int last_id;     /* hierarchy ids are handed out cyclically after this one */
	uint64_t hseq;   /* hierarchy creation counter */
	uint64_t serial; /* cgroup serial counter */
	uint32_t bound_mask; /* controllers bound to some live hierarchy */
	/* Cgroup blocks and css structs (engine/cgroup.c): a million cgroups are a
	 * million of each, and a slab hands them out without malloc's cost or header. */
	struct ucg_slab slab;
	struct ucg_htable csets;
	struct ucg_list cset_list;
	size_t nr_csets;
	uint64_t cset_serial; /* css_sets created so far (struct ucg_css_set.serial) */
	struct ucg_css_set *empty_cset; /* the all-roots set; always present */
	struct ucg_htable tasks;
	struct ucg_htable tgroups;
	struct ucg_list releases; /* pending release notifications, oldest first */
	struct ucg_list events_pending; /* signalled event registrations, oldest first */
	size_t nr_event_regs; /* live registrations: charge paths skip their checks at 0 */
	/* Registered observers (engine/observer.c); a free entry has ops NULL. Every
	 * event tests nr_observers first, so nobody listening costs one branch. */
	struct ucg_observer {
		const struct ucg_observer_ops *ops;
		void *ctx;
	} observers[UCG_MAX_OBSERVERS];
	int nr_observers;
};

#endif
