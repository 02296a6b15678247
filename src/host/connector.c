/* host/connector.c — the kernel's process-events connector (NETLINK_CONNECTOR,
 * CN_IDX_PROC): the socket, the parser of its datagrams, and the dispatch of each
 * event to the table (table.c).
 *
 * A datagram holds netlink messages, each a struct cn_msg whose data is one struct
 * proc_event (fork, exec, uid, gid, exit, ...), 4-byte aligned after the headers.
 * A full receive queue drops events and the next recv fails with ENOBUFS: the
 * provider then resynchronises from /proc (resync.c).
 */
#include "host/host_impl.h"

#include <errno.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int connector_open(int *ret)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	/* nlmsghdr, cn_msg, then the op as cn_msg's data: 40 bytes, no padding. */
	union {
		struct nlmsghdr nh; /* aligns the buffer */
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))];
	} msg;
	struct cn_msg *cn = NLMSG_DATA(&msg.nh);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int fd, size = 64 << 20, r;
	const char *env = getenv("UCG_HOST_RCVBUF"); /* tests: a tiny buffer forces losses */

	if (env && atoi(env) > 0)
		size = atoi(env);
	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	sa.nl_pid = 0;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	memset(&msg, 0, sizeof(msg));
	msg.nh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	msg.nh.nlmsg_type = NLMSG_DONE;
	msg.nh.nlmsg_pid = 0;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, &msg, msg.nh.nlmsg_len, 0) < 0)
		goto fail;
	*ret = fd;
	return 0;
fail:
	r = -errno;
	close(fd);
	return r;
}

int connector_parse(const void *buf, size_t len,
		    void (*fn)(void *ctx, const struct proc_event *ev), void *ctx)
{
	const struct nlmsghdr *nh;
	int n = 0;

	for (nh = buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
		const struct cn_msg *cn;
		struct proc_event ev;

		if (nh->nlmsg_type == NLMSG_NOOP || nh->nlmsg_type == NLMSG_ERROR)
			continue;
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn)))
			continue;
		cn = NLMSG_DATA(nh);
		if (cn->id.idx != CN_IDX_PROC || cn->len < sizeof(struct proc_event) ||
		    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(struct proc_event)))
			continue;
		/* the event sits 4-byte aligned in the datagram: copy it out */
		memcpy(&ev, cn->data, sizeof(ev));
		fn(ctx, &ev);
		n++;
	}
	return n;
}

struct apply_ctx {
	struct ucg_host *h;
	struct ucg_engine *e;
};

/* One event, applied to the table and the engine (connector_parse's callback). */
static void apply_event(void *ctx, const struct proc_event *ev)
{
	struct ucg_host *h = ((struct apply_ctx *)ctx)->h;
	struct ucg_engine *e = ((struct apply_ctx *)ctx)->e;

	h->stats.events++;
	switch (ev->what) {
	case PROC_EVENT_FORK:
		cred_cache_forget(h, ev->event_data.fork.child_pid);
		host_on_fork(h, e, ev);
		break;
	case PROC_EVENT_EXIT:
		cred_cache_forget(h, ev->event_data.exit.process_pid);
		host_on_exit(h, e, ev->event_data.exit.process_pid, ev->event_data.exit.process_tgid);
		break;
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		cred_cache_forget(h, ev->event_data.id.process_pid);
		host_refresh_cred(h, e, ev->event_data.id.process_pid);
		break;
	case PROC_EVENT_EXEC:
		cred_cache_forget(h, ev->event_data.exec.process_pid);
		host_on_exec(h, e, ev->event_data.exec.process_pid);
		break;
	default:
		break;
	}
}

int connector_drain(struct ucg_host *h, struct ucg_engine *e)
{
	struct apply_ctx ctx = { .h = h, .e = e };
	int applied = 0;

	for (;;) {
		ssize_t n = recv(h->fd, h->buf, sizeof(h->buf), MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				h->lost = 1;
				continue;
			}
			return applied; /* EAGAIN: nothing left */
		}
		applied += connector_parse(h->buf, (size_t)n, apply_event, &ctx);
	}
}

struct probe_ctx {
	pid_t child;
	int seen;
};

static void probe_event(void *ctx, const struct proc_event *ev)
{
	struct probe_ctx *p = ctx;

	if (ev->what == PROC_EVENT_FORK && ev->event_data.fork.child_pid == p->child)
		p->seen = 1;
}

/* Whether the kernel sends process events at all: a kernel whose connector is a
 * module (Debian's User-mode Linux, CONFIG_CONNECTOR=m) has no CONFIG_PROC_EVENTS, so
 * the socket binds and the listen request is accepted, but no event ever comes. We
 * fork a child that exits at once and wait up to timeout_ms for its fork event; the
 * events read meanwhile are dropped, which is safe only before the first scan of
 * /proc (ucg_host_new). 1: events come; 0: none came; -errno: fork failed. */
int connector_probe(int fd, char *buf, size_t size, int timeout_ms)
{
	struct probe_ctx p = { 0 };
	struct timespec t0, t;
	int left = timeout_ms;

	p.child = fork();
	if (p.child < 0)
		return -errno;
	if (p.child == 0)
		_exit(0);
	while (waitpid(p.child, NULL, 0) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!p.seen && left > 0) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pf, 1, left) > 0) {
			while ((n = recv(fd, buf, size, MSG_DONTWAIT)) > 0 || (n < 0 && errno == EINTR))
				if (n > 0)
					connector_parse(buf, (size_t)n, probe_event, &p);
			if (n < 0 && errno == ENOBUFS)
				return 1; /* events come, so many that some were lost */
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					  (t.tv_nsec - t0.tv_nsec) / 1000000);
	}
	return p.seen;
}
