/* fs/notify.c — telling mounts' kernels about changes they did not make: notes
 * queued per mount and sent, in order, by that mount's notifier thread.
 */
#include "fs/daemon_impl.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/ucg.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Why notes are sent by a thread of the receiving mount and why a request waits
 * only sometimes: telling a mount's kernel that an entry changed locks the directory
 * there, and the lock may be held by a process inside an operation on that mount,
 * waiting for its answer. That mount's own thread must therefore never wait for a
 * note to be sent, else two mounts changing one directory at once would each wait for
 * the other. So each mount's notes have their own sender, and among the mounts of one
 * hierarchy at most one request waits for its notes at a time (the others answer at
 * once and their notes follow within microseconds): the sender it waits for can
 * always proceed, as the mount it is blocked on has a thread that waits for nothing.
 * A change made when nothing else changes the hierarchy concurrently is therefore seen
 * through every mount the moment it is answered. */

/* The engine changes made until ucgfs_end_notes are the request's on m: the notes
 * they cause (fs/observer.c) skip m, whose kernel saw the change, and join the batch
 * returned, or NULL when there is nobody to tell (under d->lock). */
struct batch *ucgfs_begin_notes(struct mnt *m)
{
	struct batch *b = NULL;

	if (ucg_hierarchy_mount_count(m->h) >= 2) {
		b = ucg_calloc(1, sizeof(*b));
		if (b)
			b->refs = 1; /* on ENOMEM the notes go unwaited */
	}
	m->d->origin = m;
	m->d->batch = b;
	return b;
}

/* Changes from now on are nobody's request (under d->lock). */
void ucgfs_end_notes(struct daemon *d)
{
	d->origin = NULL;
	d->batch = NULL;
}

static void put_batch(struct batch *b)
{
	if (b && --b->refs == 0)
		ucg_free(b);
}

static void enqueue(struct mnt *o, struct note *n)
{
	n->next = NULL;
	*o->notes_tail = n;
	o->notes_tail = &n->next;
	pthread_cond_signal(&o->note_cond);
}

/* Whether a mount of h other than the request's may need notes (under d->lock). */
int ucgfs_others_mount(struct daemon *d, struct ucg_hierarchy *h)
{
	return ucg_hierarchy_mount_count(h) >= (d->origin ? 2 : 1);
}

/* Queues a note for every live mount of h but the request's (under d->lock). */
void ucgfs_queue_note(struct daemon *d, struct ucg_hierarchy *h, enum note_kind kind,
		      uint64_t parent, uint64_t child, const char *name)
{
	struct batch *b = d->batch;
	struct mnt *o;
	size_t len = name ? strlen(name) : 0;

	if (!ucgfs_others_mount(d, h))
		return;
	for (o = d->mounts; o; o = o->next) {
		struct note *n;

		if (o == d->origin || o->h != h || o->note_stop)
			continue;
		n = ucg_calloc(1, sizeof(*n) + len + 1);
		if (!n)
			continue; /* the cache timeout bounds the staleness */
		n->kind = kind;
		n->parent = parent;
		n->child = child;
		if (name)
			memcpy(n->name, name, len + 1);
		if (b) {
			n->batch = b;
			b->pending++;
			b->refs++;
		}
		enqueue(o, n);
	}
}

/* Waits until the notes of b were sent, if no other mount of the hierarchy waits
 * already (see above), then drops the request's reference. */
void ucgfs_finish_notes(struct mnt *m, struct batch *b)
{
	struct daemon *d = m->d;
	struct timespec until;
	struct mnt *o;
	int other = 0;

	if (!b)
		return;
	pthread_mutex_lock(&d->lock);
	for (o = d->mounts; o; o = o->next)
		if (o != m && o->h == m->h && o->waiting)
			other = 1;
	if (!other && b->pending) {
		/* A safety net only: the wait above cannot form a cycle. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 2;
		m->waiting = 1;
		while (b->pending)
			if (pthread_cond_timedwait(&d->note_sent, &d->lock, &until) != 0)
				break;
		m->waiting = 0;
	}
	put_batch(b);
	pthread_mutex_unlock(&d->lock);
}

static void send_note(struct fuse_session *se, struct note *n)
{
	size_t len = strlen(n->name);

	/* Errors are expected: ENOENT when that mount has nothing cached for it. */
	switch (n->kind) {
	case NOTE_ENTRY:
		fuse_lowlevel_notify_inval_entry(se, n->parent, n->name, len);
		break;
	case NOTE_DELETE:
		if (fuse_lowlevel_notify_delete(se, n->parent, n->child, n->name, len) < 0)
			fuse_lowlevel_notify_inval_entry(se, n->parent, n->name, len);
		break;
	case NOTE_INODE:
		fuse_lowlevel_notify_inval_inode(se, n->child, -1, 0);
		break;
	case NOTE_PAGES:
		fuse_lowlevel_notify_inval_inode(se, n->child, 0, 0);
		break;
	}
}

/* One per mount: sends the notes queued for it, in order, until the mount ends (its
 * remaining notes are dropped then: the kernel side is gone). */
void *ucgfs_notifier_thread(void *arg)
{
	struct mnt *m = arg;
	struct daemon *d = m->d;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct note *n;

		while (!m->notes && !m->note_stop)
			pthread_cond_wait(&m->note_cond, &d->lock);
		if (!m->notes)
			break;
		n = m->notes;
		m->notes = n->next;
		if (!m->notes)
			m->notes_tail = &m->notes;
		if (!m->note_stop) {
			/* Sent without d->lock: the kernel may wait for an operation of this
			 * mount, which needs d->lock to finish. */
			pthread_mutex_unlock(&d->lock);
			send_note(m->se, n);
			pthread_mutex_lock(&d->lock);
		}
		if (n->batch) {
			n->batch->pending--;
			put_batch(n->batch);
			pthread_cond_broadcast(&d->note_sent);
		}
		ucg_free(n);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* Names and inode numbers of a directory's entries, "INO NAME\n" each (under d->lock). */
static int collect_name(void *ctx, const char *name, const struct ucg_stat *st)
{
	if (strcmp(name, ".") && strcmp(name, ".."))
		ucg_buf_printf(ctx, "%llu %s\n", (unsigned long long)st->ino, name);
	return 0;
}

void ucgfs_dir_listing(struct daemon *d, struct ucg_hierarchy *h, const char *path,
		       struct ucg_buf *out)
{
	struct ucg_cred root = ucg_cred_root();

	ucg_fs_readdir(d->e, h, path, &root, collect_name, out);
}

/* Every mount of h forgets the entries of directory dir named in the listings a and b
 * (b may be NULL). Notes to the request's own mount go unwaited: its kernel holds
 * dir's lock until the request is answered (under d->lock). */
void ucgfs_queue_dir_entries(struct daemon *d, struct ucg_hierarchy *h, fuse_ino_t dir,
			     const struct ucg_buf *a, const struct ucg_buf *b)
{
	const struct ucg_buf *lists[2] = { a, b };
	struct mnt *origin = d->origin;
	struct batch *batch = d->batch;
	struct mnt *o;
	int i;

	for (o = d->mounts; o; o = o->next) {
		if (o->h != h || o->note_stop)
			continue;
		for (i = 0; i < 2; i++) {
			const char *p = lists[i] ? lists[i]->data : NULL;
			const char *end = p ? p + lists[i]->len : NULL;

			while (p && p < end) {
				const char *name = strchr(p, ' ') + 1, *nl = strchr(name, '\n');
				size_t len = (size_t)(nl - name);
				struct note *n = ucg_calloc(1, sizeof(*n) + len + 1);

				if (n) {
					n->kind = NOTE_ENTRY;
					n->parent = dir;
					memcpy(n->name, name, len);
					if (batch && o != origin) {
						n->batch = batch;
						batch->pending++;
						batch->refs++;
					}
					enqueue(o, n);
				}
				p = nl + 1;
			}
		}
	}
}

/* Has m's notifier drop the cached pages of file ino (under d->lock); returns a
 * batch to wait for with ucgfs_wait_pages, or NULL. Not sent by a request thread: dropping
 * a page waits for its lock, which a read in progress on this mount may hold until
 * this mount's thread answers it. */
struct batch *ucgfs_drop_pages(struct mnt *m, uint64_t ino, int wait)
{
	struct note *n = m->note_stop ? NULL : ucg_calloc(1, sizeof(*n) + 1);
	struct batch *b = n && wait ? ucg_calloc(1, sizeof(*b)) : NULL;

	if (!n)
		return NULL;
	n->kind = NOTE_PAGES;
	n->child = ino;
	if (b) {
		b->refs = 2;
		b->pending = 1;
		n->batch = b;
	}
	enqueue(m, n);
	return b;
}

/* Waits for the pages of b to be dropped, NOTIFY_WAIT_MS at most: the wait is
 * almost always one system call of the notifier; only a page whose read is queued
 * behind this thread's request (the page was evicted and is being read again) can
 * hold it up, and then that read brings the engine's content anyway. */
void ucgfs_wait_pages(struct daemon *d, struct batch *b)
{
	struct timespec until;

	if (!b)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += NOTIFY_WAIT_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&d->lock);
	while (b->pending)
		if (pthread_cond_timedwait(&d->note_sent, &d->lock, &until) != 0)
			break;
	put_batch(b);
	pthread_mutex_unlock(&d->lock);
}

/* Under d->lock; the caller joins m->notifier without it. */
void ucgfs_stop_notifier(struct mnt *m)
{
	m->note_stop = 1;
	pthread_cond_signal(&m->note_cond);
}
