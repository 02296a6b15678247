/* fs/journal.c — every accepted change appended to the journal before it is answered.
 *
 * The engine's observer (fs/observer.c) and the mount table (fs/mounts.c) call in here
 * from inside the change, under d->lock: the change's records (format in fs/state.h)
 * are built in memory and written with one write(2) before the lock is released, so a
 * reply never goes out for a change the journal lacks. A process crash then loses
 * nothing (the bytes are in the page cache); --sync adds an fdatasync per change for a
 * power loss. A record's size depends on the change (its paths, its data), never on
 * the size of the tree.
 *
 * Forks are not answered to anyone: their records wait in memory for the next change
 * or the main loop's next turn (at most ~100 ms).
 *
 * Compaction: once the journal outgrows its bound (the last snapshot's size: as many
 * bytes go to snapshots as to the journal), the main thread, under the lock, opens
 * journal.GEN+1 for the changes that follow and forks. The child, a copy of the
 * engine frozen at that instant, serializes it and writes it as the snapshot of
 * generation GEN+1 (temporary file, fdatasync, rename), then removes the older
 * journals. The lock is held for the fork alone, not for the serialization (hundreds
 * of ms at 20,000 cgroups). A crash at any point leaves a snapshot and every journal
 * from its generation on: the restore replays them all (fs/state.c).
 */
#include "fs/daemon_impl.h"

#include "base/alloc.h"
#include "fs/ctl.h"
#include "fs/state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The smallest bound: below it a compaction costs more than the replay it saves. */
#define JOURNAL_MIN_MAX (1u << 20)
/* How long after a failed snapshot the next is tried (unless forced). */
#define RETRY_NS 10000000000ull

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void unlink_journal(uint64_t gen)
{
	char leaf[32], path[4096];

	snprintf(leaf, sizeof(leaf), "journal.%" PRIu64, gen);
	if (ucgfs_ctl_path(path, sizeof(path), leaf) == 0)
		unlink(path);
}

static int journal_on(const struct daemon *d)
{
	return d->journal.fd >= 0 && !d->restoring;
}

/* Appends the lines of text to out, each ended with its hash. */
static void seal_lines(struct ucg_buf *out, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		ucg_buf_append(out, text + i, n);
		ucg_buf_printf(out, " ~%08x\n", ucgfs_state_hash(text + i, n));
		i += n + 1;
	}
}

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Writes the waiting fork records and then rec (sealed here), in one writev. */
static void append(struct daemon *d, const struct ucg_buf *rec)
{
	struct ucgfs_journal *j = &d->journal;
	struct ucg_buf sealed;
	struct iovec iov[2];
	int n = 0, r;

	ucg_buf_init(&sealed);
	if (rec && rec->len)
		seal_lines(&sealed, rec->data, rec->len);
	if (j->forks.len)
		iov[n++] = (struct iovec){ j->forks.data, j->forks.len };
	if (sealed.len)
		iov[n++] = (struct iovec){ sealed.data, sealed.len };
	if (ucg_buf_error(&sealed) < 0 || ucg_buf_error(&j->forks) < 0) {
		r = -ENOMEM;
	} else if (n) {
		size_t bytes = j->forks.len + sealed.len;
		uint64_t t0 = now_ns();

		r = write_all(j->fd, iov, n);
		if (r == 0 && j->sync) {
			r = fdatasync(j->fd) < 0 ? -errno : 0;
			j->syncs++;
		}
		j->append_ns += now_ns() - t0;
		if (r == 0) {
			j->size += bytes;
			j->append_bytes += bytes;
			j->appends++;
		}
	} else {
		r = 0;
	}
	if (r < 0) {
		/* A partial record would end every later replay at it: cut it off, and
		 * have the main loop write a snapshot (a fresh journal) as soon as it can. */
		if (ftruncate(j->fd, (off_t)j->size) < 0) {
			/* the snapshot will do */
		}
		j->max = 0;
	}
	if (r < 0 && !j->errors++)
		fprintf(stderr,
			"ucg: daemon: journal.%" PRIu64 ": %s: changes may be lost "
			"until the next snapshot\n",
			j->gen, strerror(-r));
	ucg_buf_fini(&j->forks);
	ucg_buf_init(&j->forks);
	ucg_buf_fini(&sealed);
}

void ucgfs_journal_flush(struct daemon *d)
{
	if (journal_on(d) && d->journal.forks.len)
		append(d, NULL);
}

/* ---- records of the engine's changes ------------------------------------------------ */

static void put_path(struct ucg_buf *b, const struct ucg_cgroup *cg, const char *leaf)
{
	struct ucg_buf p;

	ucg_buf_init(&p);
	ucg_cgroup_path(cg, &p);
	if (leaf) { /* "/" + "x" is "/x" */
		if (p.len > 1)
			ucg_buf_putc(&p, '/');
		ucg_buf_puts(&p, leaf);
	}
	ucgfs_state_put_enc(b, p.data ? p.data : "/", p.data ? p.len : 1);
	ucg_buf_fini(&p);
}

static void dir_record(struct daemon *d, struct ucg_buf *b, struct ucg_cgroup *cg)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_hierarchy *h = ucg_cgroup_hierarchy(cg);
	struct ucg_buf p;
	struct ucg_stat st;

	ucg_buf_init(&p);
	ucg_cgroup_path(cg, &p);
	if (p.data && ucg_fs_getattr(d->e, h, p.data, &root, &st) == 0) {
		ucg_buf_printf(b, "d %d ", ucg_hierarchy_id(h));
		ucgfs_state_put_enc(b, p.data, p.len);
		ucg_buf_printf(b, " %o %u %u\n", st.mode & 07777, st.uid, st.gid);
	}
	ucg_buf_fini(&p);
}

void ucgfs_journal_cgroup(struct daemon *d, struct ucg_cgroup *cg, char kind)
{
	struct ucg_buf b;

	if (!journal_on(d))
		return;
	ucg_buf_init(&b);
	if (kind == 'd') {
		dir_record(d, &b, cg);
	} else {
		ucg_buf_printf(&b, "r %d ", ucg_hierarchy_id(ucg_cgroup_hierarchy(cg)));
		put_path(&b, cg, NULL);
		ucg_buf_putc(&b, '\n');
	}
	append(d, &b);
	ucg_buf_fini(&b);
}

void ucgfs_journal_renamed(struct daemon *d, struct ucg_cgroup *cg, const char *old_name)
{
	struct ucg_buf b;

	if (!journal_on(d))
		return;
	ucg_buf_init(&b);
	ucg_buf_printf(&b, "n %d ", ucg_hierarchy_id(ucg_cgroup_hierarchy(cg)));
	put_path(&b, ucg_cgroup_parent(cg), old_name);
	ucg_buf_putc(&b, ' ');
	put_path(&b, cg, NULL);
	ucg_buf_putc(&b, '\n');
	append(d, &b);
	ucg_buf_fini(&b);
}

struct nth_file {
	int want, seen;
	char name[256];
};

static int find_nth(void *ctx, const char *name, const struct ucg_stat *st)
{
	struct nth_file *n = ctx;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	if (n->seen++ == n->want) {
		snprintf(n->name, sizeof(n->name), "%s", name);
		return 1;
	}
	return 0;
}

void ucgfs_journal_attr(struct daemon *d, struct ucg_cgroup *cg, int file)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_hierarchy *h = ucg_cgroup_hierarchy(cg);
	struct nth_file n = { .want = file };
	struct ucg_buf b, p;
	struct ucg_stat st;

	if (!journal_on(d))
		return;
	ucg_buf_init(&b);
	if (file < 0) {
		dir_record(d, &b, cg);
		append(d, &b);
		ucg_buf_fini(&b);
		return;
	}
	/* Files come first in a listing: this stops after file + 3 entries. */
	ucg_buf_init(&p);
	ucg_cgroup_path(cg, &p);
	if (p.data && ucg_fs_readdir(d->e, h, p.data, &root, find_nth, &n) == 0 && n.name[0]) {
		if (p.len > 1)
			ucg_buf_putc(&p, '/');
		ucg_buf_puts(&p, n.name);
		if (ucg_fs_getattr(d->e, h, p.data, &root, &st) == 0) {
			ucg_buf_printf(&b, "f %d ", ucg_hierarchy_id(h));
			ucgfs_state_put_enc(&b, p.data, p.len);
			ucg_buf_printf(&b, " %o %u %u -\n", st.mode & 07777, st.uid, st.gid);
		}
	}
	ucg_buf_fini(&p);
	append(d, &b);
	ucg_buf_fini(&b);
}

/* "t ID PATH TID START" for each tid that is a live task, into b. */
static void task_records(struct daemon *d, struct ucg_buf *b, struct ucg_cgroup *to,
			 const int *tids, size_t n)
{
	struct ucg_buf path;
	size_t i;

	ucg_buf_init(&path);
	put_path(&path, to, NULL);
	for (i = 0; i < n; i++) {
		struct ucg_task_info info;

		if (ucg_task_get_info(d->e, tids[i], &info) < 0)
			continue;
		ucg_buf_printf(b, "t %d ", ucg_hierarchy_id(ucg_cgroup_hierarchy(to)));
		ucg_buf_append(b, path.data, path.len);
		ucg_buf_printf(b, " %d %llu\n", tids[i], (unsigned long long)info.start_time);
	}
	ucg_buf_fini(&path);
}

void ucgfs_journal_attached(struct daemon *d, struct ucg_cgroup *to, const int *tids, size_t n)
{
	struct ucg_buf b;

	if (!journal_on(d))
		return;
	ucg_buf_init(&b);
	task_records(d, &b, to, tids, n);
	append(d, &b);
	ucg_buf_fini(&b);
}

void ucgfs_journal_forked(struct daemon *d, int child)
{
	struct ucg_hierarchy *h = NULL;
	struct ucg_buf b;

	if (!journal_on(d))
		return;
	/* Only a child outside a root needs saying: a task is restored to the roots. */
	ucg_buf_init(&b);
	while ((h = ucg_hierarchy_next(d->e, h))) {
		struct ucg_cgroup *cg;

		if (ucg_task_cgroup_get(d->e, child, h, &cg) == 0 && ucg_cgroup_parent(cg))
			task_records(d, &b, cg, &child, 1);
	}
	if (b.len)
		seal_lines(&d->journal.forks, b.data, b.len);
	ucg_buf_fini(&b);
}

void ucgfs_journal_written(struct daemon *d, struct ucg_cgroup *cg, const char *file,
			   const char *buf, size_t len)
{
	struct ucg_buf b;

	/* An event registration names the writer's fds: nothing a restore could redo.
	 * A move is the attach's records, which name the task by its start time too. */
	if (!journal_on(d) || !strcmp(file, "cgroup.event_control") ||
	    !strcmp(file, "cgroup.procs") || !strcmp(file, "tasks"))
		return;
	ucg_buf_init(&b);
	ucg_buf_printf(&b, "w %d ", ucg_hierarchy_id(ucg_cgroup_hierarchy(cg)));
	put_path(&b, cg, file);
	ucg_buf_putc(&b, ' ');
	ucgfs_state_put_enc(&b, buf, strnlen(buf, len));
	ucg_buf_putc(&b, '\n');
	append(d, &b);
	ucg_buf_fini(&b);
}

void ucgfs_journal_hierarchy(struct daemon *d, struct ucg_hierarchy *h, char kind)
{
	struct ucg_buf b, opts;

	if (!journal_on(d))
		return;
	ucg_buf_init(&b);
	if (kind == 'x') {
		ucg_buf_printf(&b, "x %d\n", ucg_hierarchy_id(h));
	} else {
		/* the options, then the root's files: its release agent, clone_children */
		ucg_buf_init(&opts);
		ucgfs_state_put_opts(h, &opts);
		ucg_buf_printf(&b, "%c %d ", kind, ucg_hierarchy_id(h));
		ucgfs_state_put_enc(&b, opts.data ? opts.data : "", opts.len);
		ucg_buf_putc(&b, '\n');
		ucg_buf_fini(&opts);
		ucgfs_state_put_dir(d->e, h, "/", 0, &b);
	}
	append(d, &b);
	ucg_buf_fini(&b);
}

void ucgfs_journal_mount(struct daemon *d, struct ucg_hierarchy *h, const char *name,
			 const char *dir, char kind, unsigned conn)
{
	struct ucg_buf b;

	if (!journal_on(d))
		return;
	ucg_buf_init(&b);
	ucg_buf_printf(&b, "%c %d ", kind, ucg_hierarchy_id(h));
	if (kind == 'm') {
		ucgfs_state_put_enc(&b, name, strlen(name));
		ucg_buf_putc(&b, ' ');
	}
	ucgfs_state_put_enc(&b, dir, strlen(dir));
	if ((kind == 'm' && conn) || kind == 'c')
		ucg_buf_printf(&b, " %u", conn);
	ucg_buf_putc(&b, '\n');
	append(d, &b);
	ucg_buf_fini(&b);
}

/* ---- compaction ----------------------------------------------------------------------- */

static int open_journal(uint64_t gen, int sync)
{
	char leaf[32], path[4096];
	int fd;

	snprintf(leaf, sizeof(leaf), "journal.%" PRIu64, gen);
	if (ucgfs_ctl_path(path, sizeof(path), leaf) < 0)
		return -ENAMETOOLONG;
	/* O_NOFOLLOW: a symlink planted there is refused, not written through. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (sync) /* the new name must survive a power loss with the records after it */
		ucgfs_state_sync_dir();
	return fd;
}

static int mounts_of(struct daemon *d, struct ucgfs_state_mount *ms, int max)
{
	struct mnt *m;
	int n;

	for (n = 0, m = d->mounts; m && n < max; m = m->next, n++) {
		ms[n].name = m->name;
		ms[n].dir = m->dir;
		ms[n].h = m->h;
		ms[n].conn = m->conn;
	}
	return n;
}

/* The changes from now on go to journal.gen (fd). */
static void switch_journal(struct daemon *d, uint64_t gen, int fd)
{
	struct ucgfs_journal *j = &d->journal;

	if (j->fd >= 0)
		close(j->fd);
	j->fd = fd;
	j->gen = gen;
	j->size = 0;
}

/* A snapshot of snap_len bytes is in place (r == 0) or not: figures, the next bound. */
static void snapshot_done(struct daemon *d, uint64_t gen, int r, uint64_t snap_len)
{
	struct ucgfs_journal *j = &d->journal;
	uint64_t bound;

	if (r < 0) {
		fprintf(stderr, "ucg: daemon: snapshot %" PRIu64 ": %s: the journals stay\n", gen,
			strerror(-r));
		j->failed_ns = now_ns(); /* not again for a while: each try is a journal more */
		return;
	}
	j->failed_ns = 0;
	j->compactions++;
	j->snapshot_bytes = snap_len;
	j->snapshot_bytes_total += snap_len;
	/* As many bytes go to the journal as to snapshots, whatever the tree's size; the
	 * replay at a start is bounded by the same figure. */
	bound = j->max_fixed ? j->max_fixed : snap_len;
	j->max = bound > JOURNAL_MIN_MAX || j->max_fixed ? bound : JOURNAL_MIN_MAX;
}

int ucgfs_journal_start(struct daemon *d, uint64_t gen, const struct ucgfs_state_mount *ms, int n)
{
	struct ucgfs_journal *j = &d->journal;
	const char *sync = getenv("UCG_JOURNAL_SYNC");
	const char *max = getenv("UCG_JOURNAL_MAX");
	struct ucgfs_state_mount local[256];
	struct ucg_buf snap;
	uint64_t t0 = now_ns();
	int r, fd;

	j->sync = sync && (!strcmp(sync, "1") || !strcmp(sync, "on") || !strcmp(sync, "yes"));
	j->max_fixed = max ? strtoull(max, NULL, 0) : 0;
	j->start_gen = gen; /* for a retry (ucgfs_journal_compact) */
	ucg_buf_init(&snap);
	/* Before anything is served: the restored state becomes the new snapshot, so no
	 * journal of another daemon (other hierarchy ids) is ever replayed after one of
	 * this daemon's, and the journal opens only once the snapshot is there. */
	pthread_mutex_lock(&d->lock);
	if (!ms) {
		n = mounts_of(d, local, 256);
		ms = local;
	}
	d->serializing = 1;
	r = ucgfs_state_serialize(d->e, ms, n, gen, &snap);
	d->serializing = 0;
	j->serialize_ns = now_ns() - t0;
	if (r == 0)
		r = ucgfs_state_write(&snap);
	if (r == 0) {
		ucgfs_state_drop_journals(gen);
		fd = open_journal(gen, j->sync);
		if (fd >= 0)
			switch_journal(d, gen, fd);
		else
			r = fd;
	}
	j->write_ns = now_ns() - t0 - j->serialize_ns;
	snapshot_done(d, gen, r, snap.len);
	pthread_mutex_unlock(&d->lock);
	ucg_buf_fini(&snap);
	return r;
}

/* What a compaction's child reports through its pipe. */
struct child_result {
	int r;
	uint64_t len, serialize_ns, write_ns;
};

/* The child of a compaction: a copy of the daemon frozen at the fork, under the lock
 * its parent held then, with one thread. It serializes that copy, writes it as the
 * snapshot and reports; it dies with its parent (a new daemon writes its own). */
static void __attribute__((noreturn))
child_run(struct daemon *d, uint64_t gen, const struct ucgfs_state_mount *ms, int n, int wfd,
	  pid_t parent)
{
	struct child_result res = { 0 };
	struct ucg_buf snap;
	uint64_t t0 = now_ns();

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	d->serializing = 1; /* nothing of the host is read: the parent owns it */
	ucg_buf_init(&snap);
	res.r = ucgfs_state_serialize(d->e, ms, n, gen, &snap);
	res.serialize_ns = now_ns() - t0;
	res.len = snap.len;
	if (res.r == 0)
		res.r = getppid() == parent ? ucgfs_state_write(&snap) : -ESRCH;
	if (res.r == 0)
		ucgfs_state_drop_journals(gen);
	res.write_ns = now_ns() - t0 - res.serialize_ns;
	if (write(wfd, &res, sizeof(res)) != sizeof(res))
		_exit(1);
	_exit(0);
}

/* Collects a compaction's child once it reported (wait: until it does). */
static void reap_child(struct daemon *d, int wait)
{
	struct ucgfs_journal *j = &d->journal;
	struct child_result res;
	struct pollfd pfd = { j->child_fd, POLLIN, 0 };
	ssize_t n;

	if (!j->child)
		return;
	if (poll(&pfd, 1, wait ? -1 : 0) == 0)
		return;
	n = read(j->child_fd, &res, sizeof(res));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n != sizeof(res))
		res = (struct child_result){ .r = -EIO }; /* it died before reporting */
	close(j->child_fd);
	waitpid(j->child, NULL, WNOHANG); /* or the main loop's reaping had it */
	pthread_mutex_lock(&d->lock);
	j->child = 0;
	j->child_fd = -1;
	j->serialize_ns = res.serialize_ns;
	j->write_ns = res.write_ns;
	snapshot_done(d, j->gen, res.r, res.len);
	pthread_mutex_unlock(&d->lock);
}

void ucgfs_journal_compact(struct daemon *d, int force)
{
	struct ucgfs_journal *j = &d->journal;
	struct ucgfs_state_mount ms[256];
	uint64_t t0, t1, gen;
	int n, fd, p[2];
	pid_t pid, parent = getpid();

	reap_child(d, force);
	if (j->fd < 0 && j->start_gen && !d->restoring) {
		/* The first snapshot failed (a full disk?): until one is written nothing is
		 * journaled. Try again every 10 s, as the start did, all under the lock. */
		uint64_t t = now_ns();

		if (force || t - j->retry_ns > RETRY_NS) {
			j->retry_ns = t;
			if (ucgfs_journal_start(d, j->start_gen, NULL, 0) == 0)
				fprintf(stderr,
					"ucg: daemon: snapshot written: changes are saved\n");
		}
		return;
	}
	pthread_mutex_lock(&d->lock);
	ucgfs_journal_flush(d);
	if (!journal_on(d) || j->child ||
	    (!force &&
	     (j->size < j->max || (j->failed_ns && now_ns() - j->failed_ns < RETRY_NS)))) {
		pthread_mutex_unlock(&d->lock);
		return;
	}
	/* The engine is copied by fork, not serialized here: the lock is held for the
	 * fork alone, whatever the size of the tree. */
	t0 = now_ns();
	gen = j->gen + 1;
	fd = open_journal(gen, j->sync);
	if (fd < 0 || pipe2(p, O_CLOEXEC) < 0) {
		if (fd >= 0)
			close(fd);
		pthread_mutex_unlock(&d->lock);
		if (!j->errors++)
			fprintf(stderr, "ucg: daemon: compaction: %s\n",
				strerror(fd < 0 ? -fd : errno));
		return;
	}
	n = mounts_of(d, ms, 256);
	t1 = now_ns();
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		child_run(d, gen, ms, n, p[1], parent);
	}
	j->fork_ns = now_ns() - t1;
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		close(fd);
		unlink_journal(gen);
	} else {
		switch_journal(d, gen, fd);
		j->child = pid;
		j->child_fd = p[0];
	}
	j->lock_ns = now_ns() - t0;
	if (j->lock_ns > j->lock_ns_max)
		j->lock_ns_max = j->lock_ns;
	pthread_mutex_unlock(&d->lock);
	if (pid < 0)
		fprintf(stderr, "ucg: daemon: compaction: fork: %s\n", strerror(errno));
	else if (force)
		reap_child(d, 1);
}

void ucgfs_journal_close(struct daemon *d)
{
	reap_child(d, 1); /* no snapshot may land after this */
	pthread_mutex_lock(&d->lock);
	ucgfs_journal_flush(d);
	if (d->journal.fd >= 0)
		close(d->journal.fd);
	d->journal.fd = -1;
	ucg_buf_fini(&d->journal.forks);
	pthread_mutex_unlock(&d->lock);
}

void ucgfs_journal_stats(struct daemon *d, struct ucg_buf *out)
{
	const struct ucgfs_journal *j = &d->journal;

	ucg_buf_printf(out,
		       "journal_sync %s\njournal_gen %" PRIu64 "\njournal_bytes %" PRIu64
		       "\njournal_max %" PRIu64 "\n",
		       j->sync ? "fdatasync" : "off", j->gen, j->size, j->max);
	ucg_buf_printf(out,
		       "journal_appends %" PRIu64 "\njournal_append_bytes %" PRIu64
		       "\njournal_append_ns %" PRIu64 "\n",
		       j->appends, j->append_bytes, j->append_ns);
	ucg_buf_printf(out,
		       "compactions %" PRIu64 "\nsnapshot_bytes %" PRIu64
		       "\nsnapshot_bytes_total %" PRIu64 "\n",
		       j->compactions, j->snapshot_bytes, j->snapshot_bytes_total);
	ucg_buf_printf(out,
		       "compact_serialize_us %" PRIu64 "\ncompact_write_us %" PRIu64
		       "\ncompact_fork_us %" PRIu64 "\ncompact_lock_us %" PRIu64
		       "\ncompact_lock_us_max %" PRIu64 "\n",
		       j->serialize_ns / 1000, j->write_ns / 1000, j->fork_ns / 1000,
		       j->lock_ns / 1000, j->lock_ns_max / 1000);
}
