/* fs/daemon_impl.h — the daemon's internals, shared by its files (not for the CLI).
 *
 * One struct daemon per process, one struct mnt per mount point. Every engine call is
 * made with d->lock held, and every critical section that may have changed the engine
 * ends with ucgfs_unlock_checked, so that no request is answered from a new state
 * before the kernels were told (fs/cached_content.c). The files:
 *
 *   daemon.c          ucgfs_daemon_run: setup, restore, the main loop
 *   setup.c           runtime directory, log, pidfile, readiness pipe (fs/setup.h)
 *   ctl_server.c      the control socket and its requests (fs/ctl.h's protocol)
 *   mounts.c          the mount table: mount, umount, remount, one thread per session
 *   nodes.c           FUSE node ids to engine paths and attributes; the caller's creds
 *   ll_ops.c          the FUSE low-level operation table: lookup, getattr, mkdir...
 *   ll_io.c           open, read, write and release of files, in exact or cache mode
 *   ll_dir.c          opendir, readdir, releasedir
 *   notify.c          telling other mounts' kernels of changes: notes, notifier threads
 *   observer.c        what the engine reports: journal records, content out of date,
 *                     notes
 *   journal.c         the journal of accepted changes and its compaction (fs/state.h)
 *   cached_content.c  cache mode: what each kernel was told of files, checked after
 *                     every change
 *   provider.c        the engine's provider callbacks: host events, enforcement, events
 *   release_agent.c   running release agents as the kernel does
 *   deadconn.c        a killed daemon's hung FUSE connections, aborted (fs/deadconn.h)
 *   guard.c           the child that aborts them when the daemon cannot finish dying
 */
#ifndef UCGFS_DAEMON_IMPL_H
#define UCGFS_DAEMON_IMPL_H

#define FUSE_USE_VERSION 35

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/fcache.h"
#include "host/host.h"

#define MAX_GROUPS UCG_HOST_MAX_GROUPS

/* How long the kernel may keep entries and attributes without asking. Every change is
 * either made through the mount that caches it or sent to it as an invalidation, so
 * this bounds only the damage of a change the daemon failed to announce. */
#define CACHE_TIMEOUT_S 30.0

/* How long a request waits for the other mounts to be told of its change before it is
 * answered anyway: a notification blocks while the other mount is inside an operation
 * on the same directory, and that operation may itself be waiting for a notification
 * (two mounts changing one directory at once); the wait breaks such a cycle. */
#define NOTIFY_WAIT_MS 100

struct daemon;
struct ucg_enforce;
struct ucg_cpuhold;

/* One mount point. Owned by d->mounts (under d->lock) until its thread ends. */
struct mnt {
	struct mnt *next;
	struct daemon *d;
	struct ucg_hierarchy *h;
	char *name, *dir;
	struct fuse_session *se;
	struct ucgfs_uring *uring; /* NULL: requests come through /dev/fuse only */
	pthread_t thread;
	unsigned conn;        /* its FUSE connection (fs/deadconn.h); 0: not known */
	struct timespec time; /* shown as every file's atime/mtime/ctime */
	uint64_t root_ino;    /* the engine's inode number of the root (FUSE_ROOT_ID) */
	/* Notes for this mount's kernel (changes made through other mounts), sent in
	 * order by this mount's notifier thread. Under d->lock. */
	struct note *notes, **notes_tail;
	pthread_cond_t note_cond;
	pthread_t notifier;
	int note_stop;
	int waiting; /* this mount's thread waits for its notes to other mounts */
	struct ucgfs_fcache files; /* what this mount's kernel was told of files (d->lock) */
	int ended; /* its session loop ended: send the kernel nothing more (d->lock) */
	uint32_t unkept_ver; /* versions of files not in files (ENOMEM) */
};

/* A change the kernel must be told about on one mount (see ucgfs_queue_note). */
enum note_kind { NOTE_ENTRY, NOTE_DELETE, NOTE_INODE, NOTE_PAGES };

/* The notes of one request, which may wait until they are all sent. */
struct batch {
	int pending; /* notes not sent yet */
	int refs;    /* the request's, and one per note */
};

struct note {
	struct note *next;
	enum note_kind kind;
	uint64_t parent, child; /* FUSE node ids */
	struct batch *batch;    /* NULL: nobody waits */
	char name[];
};

/* The journal of accepted changes (fs/journal.c), under d->lock; written by the
 * thread making the change, compacted by the main thread. */
struct ucgfs_journal {
	int fd;                       /* journal.GEN, open for appending; -1: not journaling */
	uint64_t gen;                 /* GEN: the snapshot it follows */
	int sync;                     /* fdatasync after each append (ucg daemon --sync) */
	uint64_t size;                /* bytes in journal.GEN */
	uint64_t max;                 /* compact once size reaches it */
	uint64_t max_fixed;           /* UCG_JOURNAL_MAX, or 0: the last snapshot's size */
	struct ucg_buf forks;         /* sealed fork records not written yet */
	unsigned errors;              /* write failures (the first one is logged) */
	uint64_t start_gen, retry_ns; /* a first snapshot that failed: retried */
	uint64_t failed_ns;           /* when the last snapshot failed, or 0 */
	pid_t child;                  /* the compaction writing a snapshot, or 0 */
	int child_fd;                 /* its report (fs/journal.c) */
	/* figures for ctl stats */
	uint64_t appends, append_bytes, append_ns, syncs;
	uint64_t compactions, snapshot_bytes, snapshot_bytes_total;
	uint64_t serialize_ns, write_ns, fork_ns, lock_ns, lock_ns_max;
};

struct daemon {
	pthread_mutex_t lock; /* protects e, host, mounts, journal, the note queues */
	struct ucg_engine *e;
	struct ucg_host *host;
	struct ucg_enforce *enforce;
	struct ucg_cpuhold *cpuhold;     /* NULL when a v2 cpuset controller holds cpuset */
	struct ucgfs_kenforce *kenforce; /* through cgroup v2 (fs/kenforce.h) */
	struct mnt *mounts;
	int listen_fd, sig_fd, wake_fd;
	int guard_fd; /* the guard's pipe (fs/guard.h); -1: none */
	int stop;
	int reset; /* the stop request asked to forget the saved state */
	int restoring;   /* the saved state is being replayed: journal nothing */
	int remounting;  /* the restore's mounts, already in the snapshot, are being made */
	int serializing; /* a snapshot is being taken: the provider's sync does nothing */
	uint64_t v2_found; /* the host's stats.found at the last ucgfs_kenforce_sync */
	struct ucgfs_journal journal;
	pthread_cond_t note_sent; /* some batch's pending count dropped */
	pid_t writer; /* the process of the write being served (cgroup.event_control) */
	int content_dirty; /* the engine may show other file content: check the mounts */
	int cache; /* cache mode: file content kept by the kernel (fs/ll_ops.c) */
	/* The request whose engine calls are running (ucgfs_begin_notes to
	 * ucgfs_end_notes): the engine's observer sends its notes to the other mounts
	 * and into its batch. NULL: the change is nobody's, every mount is told. */
	struct mnt *origin;
	struct batch *batch;
	/* An in-process daemon that touches nothing outside itself (the fuzz harnesses,
	 * tests/fuzz/fuzz_daemon.c): host NULL, no mount(2), no umount(2), no FUSE
	 * session made by a mount request; a mount request stops once the engine took
	 * (and then dropped) the hierarchy, an umount once the mount was found. */
	int sandbox;
};

/* The credentials of a request's caller (ucgfs_get_caller fills it). */
struct caller {
	struct ucg_cred cred;
	uint32_t groups[MAX_GROUPS];
};

/* What a regular file's attributes say of its content (see ucgfs_tell_file). */
struct file_view {
	uint64_t size;  /* the content's length: a cached read ends at i_size */
	uint32_t ver;   /* the content version, in mtime's nanoseconds */
	double timeout; /* how long the kernel may keep the attributes */
};

static inline struct mnt *req_mnt(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Search permission for everyone: owner, group and others all have x. */
static inline int all_search(uint32_t mode)
{
	return (mode & 0111) == 0111;
}

static inline double attr_timeout(const struct file_view *fv)
{
	return fv ? fv->timeout : CACHE_TIMEOUT_S;
}

/* ---- nodes.c: nodes, paths, attributes, callers (all under d->lock but the first) */

/* The caller of req, with host events applied first (takes d->lock itself). */
const struct ucg_cred *ucgfs_get_caller(fuse_req_t req, struct daemon *d, struct caller *c);
int ucgfs_node_path(struct mnt *m, fuse_ino_t id, struct ucg_buf *out);
int ucgfs_child_path(struct mnt *m, fuse_ino_t parent, const char *name, struct ucg_buf *out);
/* Attributes of node id, without permission checks. */
int ucgfs_node_stat(struct mnt *m, fuse_ino_t id, struct ucg_buf *path, struct ucg_stat *s);
/* The attributes of node id for m's kernel; fv is filled for a regular file. */
int ucgfs_node_attrs(struct mnt *m, fuse_ino_t id, struct ucg_buf *path, struct ucg_stat *s,
		     int for_read, struct file_view *fv);
void ucgfs_fill_stat(const struct mnt *m, const struct ucg_stat *s, const struct file_view *fv,
		     struct stat *st);
void ucgfs_fill_entry(const struct mnt *m, const struct ucg_stat *s, const struct file_view *fv,
		      double timeout, struct fuse_entry_param *e);
/* How long the kernel may keep an entry of directory dir. */
double ucgfs_entry_timeout(struct mnt *m, fuse_ino_t dir);

/* ---- ll_ops.c, ll_io.c, ll_dir.c: the FUSE operations ------------------------------ */

extern const struct fuse_lowlevel_ops ucgfs_ll_ops;
void ucgfs_ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ucgfs_ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi);
void ucgfs_ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi);
void ucgfs_ll_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
/* The attributes an open file had when it was opened (exact mode), or -ENOENT. */
int ucgfs_open_file_stat(const struct fuse_file_info *fi, struct ucg_stat *s);
void ucgfs_ll_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ucgfs_ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi);
void ucgfs_ll_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

/* ---- notify.c: telling other mounts (under d->lock unless said) -------------------- */

/* The engine changes made from now until ucgfs_end_notes are the request's on m: their
 * notes skip m and join the batch returned (NULL when there is nobody to tell). */
struct batch *ucgfs_begin_notes(struct mnt *m);
void ucgfs_end_notes(struct daemon *d);
/* Whether a mount of h other than the request's may need notes. */
int ucgfs_others_mount(struct daemon *d, struct ucg_hierarchy *h);
/* Queues a note for every live mount of h but the request's, in the request's batch. */
void ucgfs_queue_note(struct daemon *d, struct ucg_hierarchy *h, enum note_kind kind,
		      uint64_t parent, uint64_t child, const char *name);
/* Waits (without d->lock held) for b's notes, then drops the request's reference. */
void ucgfs_finish_notes(struct mnt *m, struct batch *b);
/* Names and inode numbers of a directory's entries, "INO NAME\n" each. */
void ucgfs_dir_listing(struct daemon *d, struct ucg_hierarchy *h, const char *path,
		       struct ucg_buf *out);
/* Every mount of h forgets the entries of dir named in listings a and b (b may be
 * NULL); the request's notes join its batch. */
void ucgfs_queue_dir_entries(struct daemon *d, struct ucg_hierarchy *h, fuse_ino_t dir,
			     const struct ucg_buf *a, const struct ucg_buf *b);
/* Has m's notifier drop the cached pages of file ino; a batch for ucgfs_wait_pages
 * (called without d->lock) if wait, or NULL. */
struct batch *ucgfs_drop_pages(struct mnt *m, uint64_t ino, int wait);
void ucgfs_wait_pages(struct daemon *d, struct batch *b);
/* The thread that sends m's notes (arg: m); ucgfs_stop_notifier ends it, and the
 * caller joins it without d->lock. */
void *ucgfs_notifier_thread(void *arg);
void ucgfs_stop_notifier(struct mnt *m);

/* ---- cached_content.c: cache mode (under d->lock) ---------------------------------- */

/* The whole content of path read with cred and open flags. */
int ucgfs_read_content(struct mnt *m, const char *path, int flags, const struct ucg_cred *cred,
		       struct ucg_buf *out);
/* The kernel's description of e is out of date: a new version, attributes invalidated. */
void ucgfs_make_stale(struct mnt *m, struct ucgfs_fcache_ent *e);
/* The attributes of regular file s at path for m's kernel; for_read: before a read. */
void ucgfs_tell_file(struct mnt *m, const char *path, const struct ucg_stat *s, int for_read,
		     struct file_view *fv);
/* Releases d->lock after checking, in cache mode, every file any kernel holds. */
void ucgfs_unlock_checked(struct daemon *d);

/* ---- journal.c: the journal (under d->lock unless said) ---------------------------- */

/* Each appends the records of one accepted change before the lock is released. */
void ucgfs_journal_cgroup(struct daemon *d, struct ucg_cgroup *cg, char kind); /* 'd' 'r' */
void ucgfs_journal_renamed(struct daemon *d, struct ucg_cgroup *cg, const char *old_name);
void ucgfs_journal_attr(struct daemon *d, struct ucg_cgroup *cg, int file);
void ucgfs_journal_attached(struct daemon *d, struct ucg_cgroup *to, const int *tids, size_t n);
void ucgfs_journal_written(struct daemon *d, struct ucg_cgroup *cg, const char *file,
			   const char *buf, size_t len);
/* kind 'h' (created), 'R' (remounted), 'x' (destroyed). */
void ucgfs_journal_hierarchy(struct daemon *d, struct ucg_hierarchy *h, char kind);
/* kind 'm' (mounted at dir, served by FUSE connection conn, 0 if not known), 'c' (a
 * restored mount at dir made anew, served by conn) or 'u' (that mount went). */
void ucgfs_journal_mount(struct daemon *d, struct ucg_hierarchy *h, const char *name,
			 const char *dir, char kind, unsigned conn);
/* A fork's records wait for the next append or ucgfs_journal_flush. */
void ucgfs_journal_forked(struct daemon *d, int child);
void ucgfs_journal_flush(struct daemon *d);
/* Without d->lock, before anything is served: the restored state as snapshot gen (ms:
 * the mounts about to be made; NULL: d->mounts), then journal.gen opened. 0 or -errno
 * (no journal: ucgfs_journal_compact tries again). */
struct ucgfs_state_mount;
int ucgfs_journal_start(struct daemon *d, uint64_t gen, const struct ucgfs_state_mount *ms, int n);
/* Without d->lock (main thread): compacts if the journal outgrew its bound, or if
 * force (then returns once the snapshot is written). */
void ucgfs_journal_compact(struct daemon *d, int force);
/* Without d->lock: waits for a compaction under way, then journals nothing more. */
void ucgfs_journal_close(struct daemon *d);
void ucgfs_journal_stats(struct daemon *d, struct ucg_buf *out);

/* ---- mounts.c: the mount table (each takes d->lock itself) ------------------------- */

int ucgfs_mount(struct daemon *d, const char *name, const char *dir, const char *opts,
		struct ucg_buf *out);
int ucgfs_umount(struct daemon *d, const char *dir, int flags);
int ucgfs_remount(struct daemon *d, const char *dir, const char *opts, struct ucg_buf *out);
void ucgfs_list_mounts(struct daemon *d, struct ucg_buf *out);
void ucgfs_unmount_all(struct daemon *d);

/* ---- provider.c, release_agent.c, ctl_server.c ------------------------------------- */

extern const struct ucg_provider_ops ucgfs_provider_ops; /* context: the daemon */
extern const struct ucg_observer_ops ucgfs_observer_ops; /* context: the daemon */
/* Applies queued host events (under d->lock); marks content dirty if any changed. */
int ucgfs_drain(struct daemon *d);
/* Runs the release agents of every queued notification (takes d->lock itself). */
void ucgfs_run_releases(struct daemon *d);
/* The control socket, listening, created with mode 0600; -EADDRINUSE when a daemon
 * answers there already. *ret_stale is 1 when a dead daemon's socket was replaced. */
int ucgfs_ctl_listen(int *ret, int *ret_stale, pid_t *ret_dying);
/* Reads one request from connection fd, serves it and writes the reply. */
void ucgfs_ctl_handle(struct daemon *d, int fd);
/* Decodes and serves one request of len bytes (fs/ctl.h's protocol), without a
 * socket: appends the whole reply, "<n>\n" and the text, to reply. */
void ucgfs_ctl_answer(struct daemon *d, const char *req, size_t len, struct ucg_buf *reply);

#endif
