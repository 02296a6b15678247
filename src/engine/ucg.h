/* engine/ucg.h — the public API of libucg, the classic (v1) cgroup engine.
 *
 * The engine is pure: no I/O, no threads, no clock. A front end (the FUSE daemon, the
 * simulator, a test) creates an engine, tells it about tasks through the task-provider
 * calls (ucg_task_*), mounts hierarchies (ucg_mount) and then works on them through
 * the path-based file API (ucg_fs_*), exactly as the VFS would on a cgroup v1 mount.
 * Every call returns 0 (or a count) on success and a negative errno on failure, the
 * errno the kernel gives in the same situation (docs/kernel/core.md), and a failed
 * call changes nothing. Outputs go through ret_ pointers, written only on success.
 */
#ifndef UCG_ENGINE_UCG_H
#define UCG_ENGINE_UCG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"

struct ucg_engine;
struct ucg_hierarchy;
struct ucg_file;

/* ---- credentials ---------------------------------------------------------------- */

/* Capability bits, numbered as in <linux/capability.h>. */
#define UCG_CAP_CHOWN (1ull << 0)
#define UCG_CAP_DAC_OVERRIDE (1ull << 1)
#define UCG_CAP_DAC_READ_SEARCH (1ull << 2)
#define UCG_CAP_FOWNER (1ull << 3)
#define UCG_CAP_SYS_ADMIN (1ull << 21)
#define UCG_CAP_ALL (~0ull)

/* The caller of a file operation: a process's credentials as the kernel sees them. */
struct ucg_cred {
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
	const uint32_t *groups; /* supplementary groups, not owned; may be NULL */
	size_t ngroups;
	uint64_t caps; /* effective capabilities, UCG_CAP_* bits */
	int tid;       /* the calling thread (what "0" written to tasks means); 0 if none */
	int tgid;      /* its thread group */
};

/* Full root: uid 0 everywhere and every capability. */
struct ucg_cred ucg_cred_root(void);
/* An unprivileged user: all uids = uid, all gids = gid, no capabilities. */
struct ucg_cred ucg_cred_user(uint32_t uid, uint32_t gid);

/* ---- engine --------------------------------------------------------------------- */

/* What the engine is told about a task (one thread). */
struct ucg_task_info {
	int tid;
	int tgid;
	uint32_t ruid, euid, suid, fsuid;
	uint32_t rgid, egid, sgid, fsgid;
	unsigned flags; /* UCG_TASK_* */
	uint64_t start_time; /* provider-defined, tells a reused tid from its predecessor */
};

#define UCG_TASK_KTHREAD 0x1u         /* a kernel thread */
#define UCG_TASK_NO_SETAFFINITY 0x2u /* kthread that must never move (EINVAL on attach) */
#define UCG_TASK_RT 0x4u /* SCHED_FIFO/SCHED_RR (cpu: RT bandwidth checks) */

/* What a front end resolved the two fds of a cgroup.event_control write to. */
struct ucg_event_target {
	uint64_t handle; /* the front end's registration (e.g. its copy of the eventfd) */
	/* The control fd's file: its hierarchy and path ("/a/memory.usage_in_bytes"),
	 * valid for the call; h NULL if the fd is no file of this engine (-EINVAL). */
	struct ucg_hierarchy *h;
	const char *path;
};

/* How the engine reaches back to whoever feeds it tasks. Every member may be NULL. */
struct ucg_provider_ops {
	/* Called before the engine resolves a pid written to cgroup.procs/tasks or lists
	 * members, so the provider can apply fork/exit events still queued. */
	void (*sync)(void *ctx, struct ucg_engine *e);
	/* A task's membership changed in hierarchy hierarchy_id (attach or fork into a
	 * non-root cgroup); enforcement front ends re-read what they enforce. */
	void (*task_moved)(void *ctx, struct ucg_engine *e, int tid, int hierarchy_id);
	/* A release notification was queued: ucg_release_next() has something. */
	void (*release_queued)(void *ctx, struct ucg_engine *e);
	/* cpuset: the cpus (mems) task tid may use changed, on attach, on a write of
	 * cpuset.cpus (cpuset.mems) of its cpuset, or when hot-unplug moved it. mask is the
	 * cpuset's effective set as a cpu_set_t-style bit array (bit i of byte i/8, low bit
	 * first), nbytes = (nr_cpus + 7) / 8 (for mems, (nr_mems + 7) / 8); it is valid for
	 * the call only. The provider applies the 6.18 rule itself: a task that asked for
	 * its own mask with sched_setaffinity() gets (requested & mask), or mask when that
	 * is empty (docs/kernel/controllers.md §1.5); others get mask. A task attached to the root is
	 * told too; when hot-unplug changes the root's set (every online cpu), the root's
	 * own tasks are not told one by one. */
	void (*cpus_changed)(void *ctx, struct ucg_engine *e, int tid, const unsigned char *mask,
			     size_t nbytes);
	void (*mems_changed)(void *ctx, struct ucg_engine *e, int tid, const unsigned char *mask,
			     size_t nbytes);
	/* cpuset with memory_migrate set: move task tid's pages from the nodes in from to
	 * those in to, as the kernel does then (cpuset_migrate_mm). Told for each task on
	 * a cpuset.mems write that changes its effective mems, for each thread-group
	 * leader attached to it (from: its old cpuset's effective mems), never when
	 * from equals to. Same bit arrays as mems_changed. */
	void (*mems_migrate)(void *ctx, struct ucg_engine *e, int tid, const unsigned char *from,
			     const unsigned char *to, size_t nbytes);
	/* freezer: stop (freeze = 1) or continue (freeze = 0) task tid. A stop is
	 * asynchronous: the provider calls ucg_freezer_task_stopped(e, tid, 1) once the
	 * task is really stopped, and only then can its cgroup read FROZEN. A continue
	 * takes effect at once. Without this op the engine counts a task as stopped the
	 * moment it is asked to stop (the simulator and tests). */
	void (*freeze_task)(void *ctx, struct ucg_engine *e, int tid, int freeze);
	/* cgroup.event_control: a write named the writer's event_fd and control_fd
	 * (the writer is whoever the front end is serving; the engine does not know).
	 * Resolve them in the kernel's order: event_fd not open -EBADF, not an eventfd
	 * -EINVAL, control_fd not open -EBADF; then fill *ret. On success the handle is
	 * the engine's until it comes back through ucg_event_next() with final set, or
	 * through event_put when the registration is refused. NULL: every write is
	 * -EBADF (no fds to resolve). */
	int (*event_fds)(void *ctx, struct ucg_engine *e, unsigned event_fd, unsigned control_fd,
			 struct ucg_event_target *ret);
	void (*event_put)(void *ctx, struct ucg_engine *e, uint64_t handle);
	/* A notification was queued: ucg_event_next() has something. */
	void (*event_queued)(void *ctx, struct ucg_engine *e);
};

struct ucg_engine_config {
	const struct ucg_provider_ops *provider;
	void *provider_ctx;
	/* The machine the controllers describe (cpuset masks, cpuacct arrays).
	 * 0 means 1. */
	unsigned nr_cpus;
	unsigned nr_mems;
	/* net_prio: the network devices of the initial namespace in ifindex order, as
	 * net_prio.ifpriomap lists them (names up to 15 bytes; longer ones are cut). NULL
	 * or 0 means { "lo", "eth0" }. Not copied: the array and strings must outlive
	 * the engine. */
	const char *const *netdev_names;
	size_t nr_netdevs;
	/* cpuset.sched_relax_domain_level accepts -1..this. 0 means 5 (docs/kernel/controllers.md §1). */
	int cpuset_relax_domain_max;
	/* blkio: the block devices that rules may name (others give ENODEV) and whether
	 * each uses the bfq scheduler (blkio.bfq.weight_device needs it, EOPNOTSUPP
	 * otherwise). NULL or 0 means the reference machine: loop0..7 (7:0..7:7, bfq),
	 * zram0 (253:0) and vda (254:0, mq-deadline). Not copied: must outlive the
	 * engine. */
	const struct ucg_blkdev *blkdevs;
	size_t nr_blkdevs;
};

/* One block device of the machine (blkio). */
struct ucg_blkdev {
	uint32_t major, minor;
	int bfq; /* its I/O scheduler is bfq */
};

int ucg_engine_new(const struct ucg_engine_config *cfg, struct ucg_engine **ret);
void ucg_engine_free(struct ucg_engine *e);

/* ---- task provider calls -------------------------------------------------------- */

/* A task that already exists: it joins the root cgroup of every hierarchy (-EEXIST if
 * the tid is known and alive). */
int ucg_task_add(struct ucg_engine *e, const struct ucg_task_info *info);
/* parent_tid created child: the child starts in its creator's cgroups in every
 * hierarchy. A controller may refuse (pids: -EAGAIN); then nothing is added. */
int ucg_task_fork(struct ucg_engine *e, int parent_tid, const struct ucg_task_info *child);
/* A fork that has already happened (a front end over real processes, where the
 * kernel allowed it): placed as ucg_task_fork places it, but no controller may refuse
 * it. A limit it passes is counted where the refusal would have been (pids.events)
 * and charged anyway, as a migration past the limit is, so membership stays exact
 * and the policy shows it was exceeded. */
int ucg_task_forked(struct ucg_engine *e, int parent_tid, const struct ucg_task_info *child);
/* The thread exited: it stops being a member (it stays as a zombie until reaped). */
int ucg_task_exit(struct ucg_engine *e, int tid);
/* The zombie is gone; the tid may be reused. Reaping a live task exits it first. */
int ucg_task_reap(struct ucg_engine *e, int tid);
/* New credentials for a thread (setuid and friends), and its scheduling policy:
 * UCG_TASK_RT in info->flags is taken (the other flags are not), so the cpu
 * controller's RT rules see the current policy. */
int ucg_task_set_cred(struct ucg_engine *e, const struct ucg_task_info *info);
int ucg_task_get_info(struct ucg_engine *e, int tid, struct ucg_task_info *ret);
/* freezer: the provider reports that task tid is now really stopped (stopped = 1),
 * e.g. it is in the stopped state after SIGSTOP, or that it runs again (0) although
 * its cgroup still freezes it (someone sent SIGCONT; the cgroup reads FREEZING until
 * it is stopped again). Returns 0, or -ESRCH for an unknown or exited task. */
int ucg_freezer_task_stopped(struct ucg_engine *e, int tid, int stopped);
/* Number of tasks the engine knows (zombies included). */
size_t ucg_task_count(const struct ucg_engine *e);

/* ---- hierarchies ---------------------------------------------------------------- */

/* Detail the errno cannot carry, in the kernel log's words ("Unknown subsys name 'x'"). */
struct ucg_err {
	char msg[160];
};

/* mount -t cgroup -o OPTS: finds the hierarchy that matches OPTS or creates one, and
 * counts one more mount of it. opts may be NULL (= all). */
int ucg_mount(struct ucg_engine *e, const char *opts, struct ucg_hierarchy **ret,
	      struct ucg_err *err);
/* One mount of h goes away. h is destroyed when it was the last and the root has no
 * child cgroups; the pointer must not be used after that. */
int ucg_umount(struct ucg_engine *e, struct ucg_hierarchy *h);
/* mount -o remount,OPTS. */
int ucg_remount(struct ucg_engine *e, struct ucg_hierarchy *h, const char *opts,
		struct ucg_err *err);

int ucg_hierarchy_id(const struct ucg_hierarchy *h);
const char *ucg_hierarchy_name(const struct ucg_hierarchy *h); /* "" if unnamed */
int ucg_hierarchy_mount_count(const struct ucg_hierarchy *h);
/* Iterates live hierarchies (mounted or not) in creation order; NULL starts/ends. */
struct ucg_hierarchy *ucg_hierarchy_next(struct ucg_engine *e, struct ucg_hierarchy *prev);
struct ucg_hierarchy *ucg_hierarchy_find(struct ucg_engine *e, int id);
/* The super-options of /proc/self/mountinfo ("rw,cpu,name=x"), appended to out. */
int ucg_hierarchy_format_options(const struct ucg_hierarchy *h, struct ucg_buf *out);
/* The controller list of /proc/PID/cgroup ("cpu,cpuacct", "name=systemd"). */
int ucg_hierarchy_format_controllers(const struct ucg_hierarchy *h, struct ucg_buf *out);

/* ---- the file API --------------------------------------------------------------- */

/* Paths are within a hierarchy, "/" being its root: "/a/b/tasks". */
struct ucg_stat {
	uint64_t ino;
	uint32_t mode; /* S_IFDIR/S_IFREG | permission bits */
	uint32_t uid, gid;
	uint32_t nlink;
};

typedef int (*ucg_filldir_fn)(void *ctx, const char *name, const struct ucg_stat *st);

int ucg_fs_getattr(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		   const struct ucg_cred *cred, struct ucg_stat *ret);
/* The path ("/a/b", "/a/b/tasks") of the live entry of h whose ucg_stat.ino is ino,
 * appended to out, without permission checks: for front ends that name entries by
 * inode number (FUSE's low-level API; its VFS checked the walk). -ENOENT if no live
 * cgroup of h has it (removed, or a file index past its directory's table). */
int ucg_fs_ino_path(struct ucg_hierarchy *h, uint64_t ino, struct ucg_buf *out);
/* Lists "." and ".." then the entries; stops early if fn returns non-zero. */
int ucg_fs_readdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		   const struct ucg_cred *cred, ucg_filldir_fn fn, void *ctx);
/* flags: O_RDONLY/O_WRONLY/O_RDWR, plus O_CREAT/O_EXCL/O_TRUNC/O_APPEND. The opener's
 * credentials are kept with the handle (6.18 checks attach against them). */
int ucg_fs_open(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, int flags,
		const struct ucg_cred *cred, struct ucg_file **ret);
/* Reads from the content snapshot taken at the first read or at offset 0. */
ssize_t ucg_fs_read(struct ucg_file *f, char *buf, size_t size, off_t off);
/* One write is one command. Returns size on success. */
ssize_t ucg_fs_write(struct ucg_file *f, const char *buf, size_t size);
void ucg_fs_release(struct ucg_file *f);
int ucg_fs_mkdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		 uint32_t mode, const struct ucg_cred *cred);
int ucg_fs_rmdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		 const struct ucg_cred *cred);
int ucg_fs_rename(struct ucg_engine *e, struct ucg_hierarchy *h, const char *from,
		  const char *to, const struct ucg_cred *cred);
int ucg_fs_chmod(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		 uint32_t mode, const struct ucg_cred *cred);
/* uid or gid (uint32_t)-1 leaves it unchanged. */
int ucg_fs_chown(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		 uint32_t uid, uint32_t gid, const struct ucg_cred *cred);
/* create/mknod/symlink/link/unlink: what the cgroup filesystem answers. */
int ucg_fs_create(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		  const struct ucg_cred *cred);
int ucg_fs_unlink(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		  const struct ucg_cred *cred);

/* Convenience for tests and the simulator: open, read the whole file, close. The text
 * is appended to out. */
int ucg_fs_read_all(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		    const struct ucg_cred *cred, struct ucg_buf *out);
/* The same with the open flags given (O_RDONLY or O_RDWR, checked as ucg_fs_open
 * checks them): what a front end reads for a caller that opened the file its way. */
int ucg_fs_read_all_flags(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
			  int flags, const struct ucg_cred *cred, struct ucg_buf *out);
/* Open for writing, one write(2) of len bytes, close. Returns 0 or -errno (open's or
 * write's). */
int ucg_fs_write_all(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		     const struct ucg_cred *cred, const char *data, size_t len);

/* ---- views ---------------------------------------------------------------------- */

/* /proc/PID/cgroup (thread == 0: the thread group's leader view) or
 * /proc/PID/task/TID/cgroup (thread != 0), appended to out. -ESRCH if unknown. */
int ucg_proc_cgroup(struct ucg_engine *e, int pid, int thread, struct ucg_buf *out);
/* /proc/cgroups, appended to out. */
int ucg_proc_cgroups(struct ucg_engine *e, struct ucg_buf *out);

/* ---- release notification --------------------------------------------------------- */

struct ucg_release {
	int hierarchy_id;
	char *agent; /* the hierarchy's release_agent at the time of the call */
	char *path;  /* the cgroup's path from the hierarchy root, "/a/b" */
};

/* Pops the oldest pending notification whose hierarchy has a release agent.
 * Returns 1 and fills *ret (free it with ucg_release_fini), or 0 when none is left. */
int ucg_release_next(struct ucg_engine *e, struct ucg_release *ret);
void ucg_release_fini(struct ucg_release *r);

/* ---- event notification (cgroup.event_control, memcg v1) -------------------------- */

/* The grammar of a cgroup.event_control write, after the kernel's strstrip():
 * "<event_fd> <control_fd>[ <args>]", fds in decimal with no sign (wrapping modulo
 * 2^64, then cut to 32 bits, as simple_strtoul and the kernel's unsigned int do).
 * -EINVAL on anything else. args_off and args_len locate the args in buf (may be
 * empty). */
int ucg_event_control_parse(const char *buf, size_t len, unsigned *event_fd,
			    unsigned *control_fd, size_t *args_off, size_t *args_len);
/* Registers handle on the control file at path in h (its own cgroup), as a write to
 * that cgroup's cgroup.event_control would after resolving the fds, without the
 * permission checks: -ENOENT/-ENOTDIR, -EINVAL if the file takes no registrations
 * (memory.usage_in_bytes, memory.memsw.usage_in_bytes, memory.oom_control and
 * memory.pressure_level do) or args are bad for it. The simulator's entry point. */
int ucg_event_register(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		       const char *args, uint64_t handle);

struct ucg_event {
	uint64_t handle;
	uint64_t count; /* what to add to the eventfd */
	int final;      /* the registration ended (its cgroup went): release the handle */
};

/* Pops the oldest signalled registration: 1 and *ret, or 0 when none is pending. */
int ucg_event_next(struct ucg_engine *e, struct ucg_event *ret);

/* ---- cgroup handles -------------------------------------------------------------- */

/* A cgroup of some hierarchy. Handles given to observers and found by lookup stay valid
 * until the cgroup is removed (rmdir) or its hierarchy destroyed; hold none past that. */
struct ucg_cgroup;

struct ucg_cgroup *ucg_hierarchy_root(const struct ucg_hierarchy *h);
/* Bit i set: controller i (enum ucg_subsys_id, controllers.def order) is bound to h. */
uint32_t ucg_hierarchy_subsys_mask(const struct ucg_hierarchy *h);
struct ucg_hierarchy *ucg_cgroup_hierarchy(const struct ucg_cgroup *cg);
/* NULL for a root. */
struct ucg_cgroup *ucg_cgroup_parent(const struct ucg_cgroup *cg);
/* The last path component, "" for a root; valid until the next rename of cg. */
const char *ucg_cgroup_name(const struct ucg_cgroup *cg);
/* Unique in the engine and never reused: inode numbers derive from it. */
uint64_t ucg_cgroup_serial(const struct ucg_cgroup *cg);
/* The inode number of cg's directory, as ucg_fs_getattr reports it: a front end that
 * names directories by inode (FUSE's node ids) finds a handle's without a path walk. */
uint64_t ucg_cgroup_ino(const struct ucg_cgroup *cg);
/* Children in creation order: NULL starts and ends. */
struct ucg_cgroup *ucg_cgroup_next_child(const struct ucg_cgroup *cg,
					 const struct ucg_cgroup *prev);
/* The cgroup at path ("/a/b") in h, without permission checks: -EINVAL if path is not
 * absolute, -ENOENT if absent, -ENOTDIR if it names or passes through a file. */
int ucg_cgroup_lookup(struct ucg_hierarchy *h, const char *path, struct ucg_cgroup **ret);
/* "/a/b" ("/" for the root), appended to out. */
int ucg_cgroup_path(const struct ucg_cgroup *cg, struct ucg_buf *out);
/* The cgroup of live task tid in h (its hierarchy's root for an exited task):
 * -ESRCH if the engine does not know tid. */
int ucg_task_cgroup_get(struct ucg_engine *e, int tid, const struct ucg_hierarchy *h,
			struct ucg_cgroup **ret);

/* ---- observers ------------------------------------------------------------------- */

/* What front ends hear about changes, in the order they happen, from the call that
 * makes them (the engine has no threads: an observer runs inside that call and must
 * not call back into the engine to change anything). Every member may be NULL; with
 * no observer registered the engine pays one test per event.
 * The can_ members are vetoes: called once the engine itself has accepted the
 * operation (controllers included) and before anything changed; a negative errno
 * refuses it and is what the caller gets, with nothing changed. The other members
 * report what has been done. */
struct ucg_observer_ops {
	/* A mount of h succeeded; created: it made the hierarchy (first mount). */
	void (*hierarchy_mounted)(void *ctx, struct ucg_hierarchy *h, int created);
	/* One mount of h went; destroying: h goes with it (handles into h die after the
	 * call). */
	void (*hierarchy_unmounted)(void *ctx, struct ucg_hierarchy *h, int destroying);
	/* mount -o remount changed h's controllers or release agent. */
	void (*hierarchy_remounted)(void *ctx, struct ucg_hierarchy *h);
	void (*cgroup_created)(void *ctx, struct ucg_cgroup *cg);
	/* rmdir accepted: cg is still in the tree for the call (its path resolves), then
	 * it is gone. */
	void (*cgroup_removed)(void *ctx, struct ucg_cgroup *cg);
	void (*cgroup_renamed)(void *ctx, struct ucg_cgroup *cg, const char *old_name);
	/* chmod/chown of cg's directory (file -1) or of its control file number file (the
	 * index in its ucg_fs_readdir order, "." and ".." not counted). */
	void (*cgroup_attr_changed)(void *ctx, struct ucg_cgroup *cg, int file);
	/* tids (n threads) move into to, in to's hierarchy (cgroup.procs, tasks, or a
	 * transfer). attached follows once they are there. */
	int (*can_attach)(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n);
	void (*attached)(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n);
	/* A task joined its creator's cgroups (ucg_task_fork / ucg_task_forked). */
	void (*task_forked)(void *ctx, int parent_tid, int child_tid);
	/* The thread exited: it leaves its cgroups (its zombie stays until reaped). */
	void (*task_exiting)(void *ctx, int tid);
	/* A write of len bytes (buf as the writer gave it, cut at the first NUL) to the
	 * control file named file ("memory.limit_in_bytes", "cgroup.procs") of cg. The
	 * veto comes after the text parsed as the file's kind requires (syntax errors are
	 * the file's EINVAL/ERANGE first) and before the file's handler runs, which may
	 * still refuse the value (a limit below usage, a quota under 1 ms). An observer
	 * that changes something of its own here (the kernel backend writes the v2 file,
	 * so that the kernel's refusal is the v1 write's errno) undoes it in cancel_write;
	 * file_written follows a write the handler accepted. cgroup.procs and tasks
	 * writes are reported as attaches, not here. */
	int (*can_write)(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
			 size_t len);
	/* The write this observer's can_write accepted was refused after all (by a later
	 * observer's veto or by the file's handler): nothing of it may remain. The
	 * kernel's can_attach/cancel_attach, for writes. */
	void (*cancel_write)(void *ctx, struct ucg_cgroup *cg, const char *file);
	void (*file_written)(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
			     size_t len);
};

/* At most this many observers at once. */
#define UCG_MAX_OBSERVERS 8

/* Registers ops (not copied: must outlive the registration) with ctx. Returns the
 * observer's id (>= 0, for ucg_observer_remove and the per-cgroup slot below), or
 * -ENOSPC when UCG_MAX_OBSERVERS are registered. */
int ucg_observer_add(struct ucg_engine *e, const struct ucg_observer_ops *ops, void *ctx);
/* Unregisters observer id; its per-cgroup slots are cleared. -EINVAL if not registered. */
int ucg_observer_remove(struct ucg_engine *e, int id);
/* Observer id's own pointer in cg (NULL until set): per-cgroup data hung off the
 * engine's cgroup instead of a mirror tree. The engine never dereferences it; the
 * observer frees what it hung there (at cgroup_removed, or hierarchy_unmounted with
 * destroying set for the whole tree). */
void *ucg_cgroup_priv(const struct ucg_cgroup *cg, int id);
/* -ENOMEM if cg had no slots yet and they could not be allocated; -EINVAL for a bad id. */
int ucg_cgroup_set_priv(struct ucg_cgroup *cg, int id, void *priv);

/* ---- errors ----------------------------------------------------------------------- */

/* strerror-like text for the engine's negative errnos (front ends may use strerror). */
const char *ucg_strerror(int negative_errno);

#endif
