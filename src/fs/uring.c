/* fs/uring.c — FUSE over io_uring for a libfuse 3.14 low-level session (see uring.h).
 *
 * libfuse 3.14 speaks only /dev/fuse, but lets its reads and writes of the device be
 * replaced (fuse_session_custom_io) and takes requests from anywhere
 * (fuse_session_process_buf). So:
 *  - read passes /dev/fuse through and notes INIT (its unique; whether the kernel
 *    offered FUSE_OVER_IO_URING);
 *  - writev of INIT's reply adds FUSE_OVER_IO_URING when the kernel offered it and
 *    every queue's ring is ready; once the kernel has the reply (the connection then
 *    holds new requests until every queue has an entry), the queue threads register;
 *  - writev of the reply to the request a queue thread is handling (its current entry,
 *    matched by unique) goes into that ring entry, which the thread commits with its
 *    next fetch; every other message (notifications, replies to /dev/fuse requests)
 *    goes to /dev/fuse.
 * A ring request is rebuilt as /dev/fuse would have delivered it (fuse_in_header, the
 * operation's header, the rest) right before its payload, so the payload is not
 * copied, and handed to fuse_session_process_buf: the handlers are the same on both
 * paths. FORGET and INTERRUPT always come through /dev/fuse, so the session thread
 * keeps its fuse_session_loop.
 *
 * The kernel ends every entry's command with ENOTCONN when the connection ends
 * (umount, abort), which ends the queue threads; an eventfd polled by every ring ends
 * them too, for a loop that ends otherwise.
 */
#define FUSE_USE_VERSION 35

#include "fs/uring.h"

#include "fs/fuse_uring_abi.h"

#include <errno.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_ullong total_requests;

unsigned long long ucgfs_uring_requests_total(void)
{
	return atomic_load(&total_requests);
}

/* Built with or without liburing, so that the fuzz harness (tests/fuzz/fuzz_fuse_ll.c)
 * decodes its requests as the rings do. The kernel is trusted, but a header whose
 * lengths do not add up is refused rather than read past. */
char *ucgfs_uring_rebuild(const void *hdr, char *payload, size_t cap)
{
	const struct ucgfs_fuse_uring_req_header *h = hdr;
	struct fuse_in_header in;
	size_t size = h->ent.payload_sz, op_len;
	char *start;

	memcpy(&in, h->in_out, sizeof(in));
	if (in.len < sizeof(in) + size || size > cap)
		return NULL;
	op_len = in.len - sizeof(in) - size;
	if (op_len > UCGFS_FUSE_URING_OP_IN_SZ)
		return NULL;
	start = payload - op_len - sizeof(in);
	memcpy(start, &in, sizeof(in));
	memcpy(start + sizeof(in), h->op_in, op_len);
	return start;
}

/* Reasons that hold for every mount of the process are logged once. */
static void log_fallback(const char *name, const char *why, atomic_int *once)
{
	if (once && atomic_exchange(once, 1))
		return;
	fprintf(stderr, "ucg: %s: FUSE requests through /dev/fuse: %s\n", once ? "fuse" : name,
		why);
}

#ifndef UCGFS_HAVE_LIBURING

int ucgfs_uring_new(struct fuse_session *se, const char *name, struct ucgfs_uring **ret)
{
	static atomic_int once;

	*ret = NULL;
	log_fallback(name, "built without liburing, no io_uring transport", &once);
	return -EOPNOTSUPP;
}

void ucgfs_uring_name_threads(struct ucgfs_uring *u, const char *name)
{
	(void)u; /* always NULL: no queue threads without liburing */
	(void)name;
}

int ucgfs_uring_loop(struct ucgfs_uring *u, struct fuse_session *se)
{
	return fuse_session_loop(se);
}

void ucgfs_uring_free(struct ucgfs_uring *u)
{
}

int ucgfs_uring_active(struct ucgfs_uring *u)
{
	return 0;
}

#else /* UCGFS_HAVE_LIBURING */

#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

/* Entries per queue. One thread serves a queue, one request at a time, and its
 * commit fetches the queue's next waiting request at once; a second entry lets the
 * kernel copy that next request in while the first is served. More would only add
 * memory. */
#define ENTRIES 2
/* An entry's memory: the header block at the start, the payload one page in, so the
 * request can be rebuilt in front of its payload (ucgfs_uring_rebuild). */
#define PAYLOAD_OFFSET 4096
_Static_assert(PAYLOAD_OFFSET >= sizeof(struct ucgfs_fuse_uring_req_header) + UCGFS_URING_HEAD_ROOM,
	       "room for the rebuilt request's headers");
#define STOP_TAG UINT64_MAX

struct queue;

struct entry {
	struct queue *q;
	char *mem; /* PAYLOAD_OFFSET + payload size */
	struct ucgfs_fuse_uring_req_header *hdr;
	char *payload;
	struct iovec iov[2];
	uint64_t unique; /* of the request being served */
	int answered;
	int registered; /* the kernel took the entry (it delivered a request into it) */
};

struct queue {
	struct ucgfs_uring *u;
	unsigned qid;
	pthread_t thread;
	int thread_ok;
	struct io_uring ring;
	struct entry ents[ENTRIES];
};

enum state { ST_SETUP, ST_GO, ST_STOP };

struct ucgfs_uring {
	struct fuse_session *se;
	char *name;
	int fd;      /* /dev/fuse of the session */
	int stop_fd; /* eventfd: every queue thread ends */
	unsigned nq;
	struct queue *queues;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum state state;   /* under lock */
	unsigned started;   /* queue threads that set their ring up (under lock) */
	int setup_err;      /* the first ring setup error (under lock) */
	int init_pending;   /* session thread only: INIT read, not answered */
	uint64_t init_unique;
	int offered;
	size_t payload_size;
	atomic_int failed;  /* a registration failed: the kernel keeps /dev/fuse */
	atomic_int unanswered_logged;
	int joined;
};

/* The session being served on this thread (its /dev/fuse loop), and the ring entry
 * whose request this thread is handling. */
static __thread struct ucgfs_uring *tls_session;
static __thread struct entry *tls_entry;

/* ---- when the rings can be used ------------------------------------------------------ */

/* Why rings cannot be used in this process, or NULL. */
static const char *global_obstacle(void)
{
	const char *env = getenv("UCG_FUSE_URING");
	char c = 0;
	FILE *f;

	if (env && (!strcmp(env, "0") || !strcmp(env, "off") || !strcmp(env, "no")))
		return "io_uring turned off by UCG_FUSE_URING";
	f = fopen("/sys/module/fuse/parameters/enable_uring", "re");
	if (!f)
		return "this kernel has no FUSE over io_uring (Linux 6.14+, CONFIG_FUSE_IO_URING)";
	if (fread(&c, 1, 1, f) != 1)
		c = 0;
	fclose(f);
	if (c != 'Y' && c != '1')
		return "/sys/module/fuse/parameters/enable_uring is N";
	return NULL;
}

/* Queues are numbered by possible CPU: the kernel makes one per possible CPU and the
 * ring is ready only when each has an entry. */
static unsigned possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	unsigned a, b, n = 0;
	char sep;

	if (!f)
		return (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		sep = 0;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-' && fscanf(f, "%u%c", &b, &sep) < 1)
			break;
		n += b - a + 1;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n ? n : 1;
}

/* ---- commands ------------------------------------------------------------------------- */

/* A free SQE. The ring has room for every entry's command plus the stop poll, so
 * submitting what is queued always makes room. */
static struct io_uring_sqe *get_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe;

	while (!(sqe = io_uring_get_sqe(ring)))
		io_uring_submit(ring);
	return sqe;
}

static void prep_cmd(struct queue *q, struct entry *e, unsigned op, uint64_t commit_id)
{
	struct io_uring_sqe *sqe = get_sqe(&q->ring);
	struct ucgfs_fuse_uring_cmd_req req = { .commit_id = commit_id, .qid = (uint16_t)q->qid };

	memset(sqe, 0, 2 * sizeof(*sqe)); /* a 128-byte SQE: the command area too */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->u->fd;
	sqe->cmd_op = op;
	if (op == UCGFS_FUSE_URING_CMD_REGISTER) {
		sqe->addr = (uintptr_t)e->iov;
		sqe->len = 2;
	}
	sqe->user_data = (uint64_t)(e - q->ents);
	memcpy(sqe->cmd, &req, sizeof(req));
}

static void prep_stop_poll(struct queue *q)
{
	struct io_uring_sqe *sqe = get_sqe(&q->ring);

	io_uring_prep_poll_add(sqe, q->u->stop_fd, POLLIN);
	sqe->user_data = STOP_TAG;
}

/* ---- one request ------------------------------------------------------------------ */

static void set_error(struct entry *e, uint64_t unique, int err)
{
	struct fuse_out_header out = { .len = sizeof(out), .error = err, .unique = unique };

	memcpy(e->hdr->in_out, &out, sizeof(out));
	e->hdr->ent.payload_sz = 0;
}

/* The request in e, rebuilt in front of its payload as /dev/fuse delivers it, to the
 * handlers; then its reply (captured by io_writev) is committed with the next fetch. */
static void serve_request(struct queue *q, struct entry *e)
{
	struct ucgfs_uring *u = q->u;
	struct fuse_in_header in;
	struct fuse_buf buf;
	uint64_t commit_id = e->hdr->ent.commit_id;
	char *start = ucgfs_uring_rebuild(e->hdr, e->payload, u->payload_size);

	memcpy(&in, e->hdr->in_out, sizeof(in));
	if (!start) {
		set_error(e, in.unique, -EIO); /* not what this kernel sends */
	} else {
		memset(&buf, 0, sizeof(buf));
		buf.mem = start;
		buf.size = in.len;
		e->unique = in.unique;
		e->answered = 0;
		tls_entry = e;
		fuse_session_process_buf(u->se, &buf);
		tls_entry = NULL;
		if (!e->answered) {
			/* A handler that answers later would answer on /dev/fuse, where the
			 * kernel does not know this request: fail it now, loudly. */
			if (!atomic_exchange(&u->unanswered_logged, 1))
				fprintf(stderr, "ucg: %s: request %u not answered by its handler\n",
					u->name, in.opcode);
			set_error(e, in.unique, -EIO);
		}
		atomic_fetch_add(&total_requests, 1);
	}
	prep_cmd(q, e, UCGFS_FUSE_URING_CMD_COMMIT_AND_FETCH, commit_id);
}

/* A command of e ended with err. Returns whether e still has a command in the kernel. */
static int entry_failed(struct queue *q, struct entry *e, int err)
{
	struct ucgfs_uring *u = q->u;
	char why[160];

	/* ENOTCONN/ECONNABORTED: the connection ended, the normal way out. */
	if (err == -ENOTCONN || err == -ECONNABORTED || err == -ECANCELED)
		return 0;
	if (err == -EAGAIN && !e->registered) {
		/* The kernel had not finished INIT yet: register again. */
		usleep(1000);
		prep_cmd(q, e, UCGFS_FUSE_URING_CMD_REGISTER, 0);
		return 1;
	}
	if (e->registered) {
		/* A commit the kernel refused leaves its entry unusable; without a new one
		 * the queue would run out and its CPU's callers wait forever. */
		fprintf(stderr, "ucg: %s: io_uring commit: %s; entry registered again\n", u->name,
			strerror(-err));
		e->registered = 0;
		prep_cmd(q, e, UCGFS_FUSE_URING_CMD_REGISTER, 0);
		return 1;
	}
	/* A refused registration: the kernel turned io_uring off for the connection
	 * and serves it through /dev/fuse. */
	if (!atomic_exchange(&u->failed, 1)) {
		snprintf(why, sizeof(why), "the kernel refused a ring entry: %s", strerror(-err));
		log_fallback(u->name, why, NULL);
	}
	return 0;
}

/* Registers the queue's entries, then serves their requests until every entry's
 * command has ended or the stop eventfd is rung. */
static void serve_queue(struct queue *q)
{
	struct io_uring_cqe *cqe;
	int live = ENTRIES, stop = 0, i;

	prep_stop_poll(q);
	for (i = 0; i < ENTRIES; i++)
		prep_cmd(q, &q->ents[i], UCGFS_FUSE_URING_CMD_REGISTER, 0);
	while (live > 0 && !stop) {
		int r = io_uring_submit_and_wait(&q->ring, 1);

		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			break;
		while (!stop && io_uring_peek_cqe(&q->ring, &cqe) == 0) {
			uint64_t tag = cqe->user_data;
			int res = cqe->res;
			struct entry *e;

			io_uring_cqe_seen(&q->ring, cqe);
			if (tag == STOP_TAG) {
				stop = 1;
				break;
			}
			e = &q->ents[tag];
			if (res < 0) {
				live -= !entry_failed(q, e, res);
				continue;
			}
			e->registered = 1;
			serve_request(q, e);
		}
	}
}

/* ---- queue threads ------------------------------------------------------------------ */

static int ring_setup(struct queue *q)
{
	struct io_uring_params p;
	int r;

	/* SQE128: FUSE's commands carry their arguments in the big SQE's command area.
	 * COOP_TASKRUN: the kernel hands a request over as task work of this thread,
	 * which waits for it anyway: no interrupt needed. (DEFER_TASKRUN measured
	 * 3-4 us slower on open+read+close here: the asynchronous RELEASE waits.) */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_COOP_TASKRUN;
	r = io_uring_queue_init_params(2 * ENTRIES + 2, &q->ring, &p);
	if (r == -EINVAL) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQE128;
		r = io_uring_queue_init_params(2 * ENTRIES + 2, &q->ring, &p);
	}
	return r;
}

static void *queue_thread(void *arg)
{
	struct queue *q = arg;
	struct ucgfs_uring *u = q->u;
	cpu_set_t cpus;
	int r, go;

	/* Pinned to its queue's CPU: the callers there are this thread's only callers,
	 * and waking it is a same-CPU switch. A CPU that is offline now sends nothing. */
	CPU_ZERO(&cpus);
	CPU_SET(q->qid, &cpus);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	r = ring_setup(q);
	pthread_mutex_lock(&u->lock);
	u->started++;
	if (r < 0 && !u->setup_err)
		u->setup_err = r;
	pthread_cond_broadcast(&u->cond);
	while (u->state == ST_SETUP)
		pthread_cond_wait(&u->cond, &u->lock);
	go = u->state == ST_GO;
	pthread_mutex_unlock(&u->lock);
	if (r < 0)
		return NULL;
	if (go)
		serve_queue(q);
	io_uring_queue_exit(&q->ring);
	return NULL;
}

static void set_state(struct ucgfs_uring *u, enum state s)
{
	pthread_mutex_lock(&u->lock);
	if (u->state != ST_STOP)
		u->state = s;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

static void stop_threads(struct ucgfs_uring *u)
{
	uint64_t one = 1;
	unsigned i;

	if (u->joined)
		return;
	set_state(u, ST_STOP);
	if (write(u->stop_fd, &one, sizeof(one)) < 0) {
		/* cannot fail on an eventfd far from its limit */
	}
	for (i = 0; i < u->nq; i++)
		if (u->queues[i].thread_ok)
			pthread_join(u->queues[i].thread, NULL);
	u->joined = 1;
}

/* ---- INIT ------------------------------------------------------------------------ */

/* Each entry's memory, once INIT's reply says how big the payload must be: the
 * kernel refuses an entry smaller than max(8 KiB, max_write, max_pages pages). */
static int alloc_entries(struct ucgfs_uring *u, const struct fuse_init_out *init)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = UCGFS_FUSE_MIN_READ_BUFFER;
	size_t pages = (init->flags & FUSE_MAX_PAGES) ? init->max_pages
						      : UCGFS_FUSE_DEFAULT_MAX_PAGES;
	unsigned i, j;

	if (init->max_write > size)
		size = init->max_write;
	if (pages * page > size)
		size = pages * page;
	u->payload_size = size;
	for (i = 0; i < u->nq; i++)
		for (j = 0; j < ENTRIES; j++) {
			struct entry *e = &u->queues[i].ents[j];

			/* Untouched pages of the payload cost no memory. */
			if (posix_memalign((void **)&e->mem, page, PAYLOAD_OFFSET + size))
				return -ENOMEM;
			e->q = &u->queues[i];
			e->hdr = (struct ucgfs_fuse_uring_req_header *)e->mem;
			e->payload = e->mem + PAYLOAD_OFFSET;
			memset(e->hdr, 0, sizeof(*e->hdr));
			e->iov[0] = (struct iovec){ e->hdr, sizeof(*e->hdr) };
			e->iov[1] = (struct iovec){ e->payload, size };
		}
	return 0;
}

static void note_init(struct ucgfs_uring *u, const struct fuse_in_header *in, size_t len)
{
	const struct fuse_init_in *arg = (const void *)(in + 1);

	if (len < sizeof(*in) + offsetof(struct fuse_init_in, flags2) + sizeof(arg->flags2))
		return;
	u->init_pending = 1;
	u->init_unique = in->unique;
	u->offered = (arg->flags & FUSE_INIT_EXT) &&
		     (((uint64_t)arg->flags2 << 32) & UCGFS_FUSE_OVER_IO_URING);
}

/* libfuse's INIT reply, with FUSE_OVER_IO_URING added when it can be honoured; the
 * queue threads start registering once the kernel has it, or end. */
static ssize_t init_reply(struct ucgfs_uring *u, int fd, struct iovec *iov, int count)
{
	const struct fuse_out_header *out = iov[0].iov_base;
	struct fuse_init_out init;
	struct iovec v[2];
	const char *why = NULL;
	ssize_t n;

	u->init_pending = 0;
	if (out->error || count != 2 || iov[1].iov_len != sizeof(init))
		why = "unexpected INIT reply";
	else if (!u->offered)
		why = "the kernel did not offer FUSE_OVER_IO_URING (enable_uring was N at mount)";
	else {
		memcpy(&init, iov[1].iov_base, sizeof(init));
		if (alloc_entries(u, &init) < 0)
			why = "no memory for the ring entries";
	}
	if (why) {
		log_fallback(u->name, why, NULL);
		n = writev(fd, iov, count);
		set_state(u, ST_STOP);
		return n;
	}
	init.flags |= FUSE_INIT_EXT;
	init.flags2 |= (uint32_t)(UCGFS_FUSE_OVER_IO_URING >> 32);
	v[0] = iov[0];
	v[1] = (struct iovec){ &init, sizeof(init) };
	n = writev(fd, v, 2);
	set_state(u, n < 0 ? ST_STOP : ST_GO);
	return n;
}

/* ---- libfuse's I/O --------------------------------------------------------------- */

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata)
{
	ssize_t n = read(fd, buf, len);
	const struct fuse_in_header *in = buf;

	if (tls_session && n >= (ssize_t)sizeof(*in) && in->opcode == FUSE_INIT)
		note_init(tls_session, in, (size_t)n);
	return n;
}

/* A reply into the ring entry of the request this thread is handling. */
static ssize_t capture_reply(struct entry *e, const struct iovec *iov, int count)
{
	size_t total = 0, off = 0;
	int i;

	for (i = 0; i < count; i++)
		total += iov[i].iov_len;
	if (total - sizeof(struct fuse_out_header) > e->q->u->payload_size) {
		errno = EINVAL;
		return -1;
	}
	memcpy(e->hdr->in_out, iov[0].iov_base, sizeof(struct fuse_out_header));
	for (i = 0; i < count; i++) {
		const char *p = iov[i].iov_base;
		size_t l = iov[i].iov_len;

		if (i == 0) {
			p += sizeof(struct fuse_out_header);
			l -= sizeof(struct fuse_out_header);
		}
		/* memmove: a reply may point into the request, which shares the payload */
		memmove(e->payload + off, p, l);
		off += l;
	}
	e->hdr->ent.payload_sz = (uint32_t)off;
	e->answered = 1;
	return (ssize_t)total;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	const struct fuse_out_header *out = iov[0].iov_base;

	/* libfuse puts the fuse_out_header alone in iov[0], for replies and notes alike */
	if (iov[0].iov_len >= sizeof(*out)) {
		if (tls_entry && out->unique == tls_entry->unique && !tls_entry->answered)
			return capture_reply(tls_entry, iov, count);
		if (tls_session && tls_session->init_pending && out->unique == tls_session->init_unique)
			return init_reply(tls_session, fd, iov, count);
	}
	return writev(fd, iov, count);
}

/* ---- the session ------------------------------------------------------------------ */

static void free_uring(struct ucgfs_uring *u)
{
	unsigned i, j;

	for (i = 0; i < u->nq; i++)
		for (j = 0; j < ENTRIES; j++)
			free(u->queues[i].ents[j].mem);
	free(u->queues);
	if (u->stop_fd >= 0)
		close(u->stop_fd);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	free(u->name);
	free(u);
}

/* Starts the queue threads and waits until each has set its ring up. */
static int start_threads(struct ucgfs_uring *u)
{
	unsigned i, created = 0;
	int r = 0;

	for (i = 0; i < u->nq; i++) {
		struct queue *q = &u->queues[i];

		q->u = u;
		q->qid = i;
		r = -pthread_create(&q->thread, NULL, queue_thread, q);
		if (r < 0)
			break;
		q->thread_ok = 1;
		created++;
	}
	pthread_mutex_lock(&u->lock);
	while (u->started < created)
		pthread_cond_wait(&u->cond, &u->lock);
	if (r == 0)
		r = u->setup_err;
	pthread_mutex_unlock(&u->lock);
	return r;
}

int ucgfs_uring_new(struct fuse_session *se, const char *name, struct ucgfs_uring **ret)
{
	static atomic_int once;
	const struct fuse_custom_io io = { .read = io_read, .writev = io_writev };
	const char *why = global_obstacle();
	struct ucgfs_uring *u;
	char msg[160];
	int r;

	*ret = NULL;
	if (why) {
		log_fallback(name, why, &once);
		return -EOPNOTSUPP;
	}
	u = calloc(1, sizeof(*u));
	if (!u || !(u->name = strdup(name))) {
		free(u);
		log_fallback(name, "no memory", NULL);
		return -ENOMEM;
	}
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	u->se = se;
	u->fd = fuse_session_fd(se);
	u->nq = possible_cpus();
	u->stop_fd = eventfd(0, EFD_CLOEXEC);
	u->queues = calloc(u->nq, sizeof(*u->queues));
	r = u->stop_fd < 0 ? -errno : !u->queues ? -ENOMEM : start_threads(u);
	if (r == 0)
		r = fuse_session_custom_io(se, &io, u->fd);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "io_uring setup: %s", strerror(-r));
		log_fallback(name, msg, NULL);
		if (u->queues)
			stop_threads(u);
		free_uring(u);
		return r;
	}
	*ret = u;
	return 0;
}

void ucgfs_uring_name_threads(struct ucgfs_uring *u, const char *name)
{
	unsigned i;

	for (i = 0; u && i < u->nq; i++)
		if (u->queues[i].thread_ok)
			pthread_setname_np(u->queues[i].thread, name);
}

int ucgfs_uring_loop(struct ucgfs_uring *u, struct fuse_session *se)
{
	int r;

	if (!u)
		return fuse_session_loop(se);
	tls_session = u;
	r = fuse_session_loop(se);
	tls_session = NULL;
	stop_threads(u);
	return r;
}

void ucgfs_uring_free(struct ucgfs_uring *u)
{
	if (!u)
		return;
	stop_threads(u);
	free_uring(u);
}

int ucgfs_uring_active(struct ucgfs_uring *u)
{
	int go;

	if (!u)
		return 0;
	pthread_mutex_lock(&u->lock);
	go = u->state == ST_GO;
	pthread_mutex_unlock(&u->lock);
	return go && !atomic_load(&u->failed);
}

#endif /* UCGFS_HAVE_LIBURING */
