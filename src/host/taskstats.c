/* host/taskstats.c — the exact CPU times of every exiting task (taskstats over
 * generic netlink, registered for every CPU's exits).
 *
 * The kernel sends a task's final statistics (taskstats_exit) before the connector's
 * exit event (proc_exit_connector, later in do_exit). Draining this socket before an
 * exit event is applied charges the task's last CPU time while it is still a member,
 * and ends its membership before its parent can reap it (see resync.c). Without the
 * socket, or without its messages (the kernel sends them to sockets of the initial
 * network namespace only), exits wait for the connector.
 *
 * Which times: ac_utime and ac_stime are the task's raw utime and stime, which the
 * tick samples (a task running when the tick comes gets the whole tick): a CPU-bound
 * thread among many short-lived ones gets more ticks than the time it ran (measured
 * here: 19% more for a 2-thread spinner at load 40). cpu_run_virtual_total is the
 * scheduler's exact runtime (se.sum_exec_runtime, ns), what the kernel's
 * cpuacct.usage counts; the total charged is that, split between user and system as
 * ac_utime:ac_stime, as /proc's cputime_adjust() splits it. Without it (a kernel
 * without CONFIG_TASK_DELAY_ACCT leaves it 0) the raw times are charged.
 */
#include "host/host_impl.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NLA_DATA(na) ((char *)(na) + NLA_HDRLEN)

static int genl_send(int fd, uint16_t type, uint8_t cmd, uint16_t attr, const void *data,
		     size_t len)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char buf[256];
	} req;
	struct nlattr *na;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = cmd;
	req.g.version = 1;
	na = (struct nlattr *)((char *)&req + req.n.nlmsg_len);
	na->nla_type = attr;
	na->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len > sizeof(req.buf) - NLA_HDRLEN)
		return -EINVAL;
	memcpy(NLA_DATA(na), data, len);
	req.n.nlmsg_len += NLA_ALIGN(na->nla_len);
	return send(fd, &req, req.n.nlmsg_len, 0) < 0 ? -errno : 0;
}

void taskstats_open(struct ucg_host *h)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[4096], mask[32];
	struct nlmsghdr *nh;
	struct nlattr *na;
	int fd, family = 0, size = 16 << 20;
	ssize_t n;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    genl_send(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		      TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME)) < 0)
		goto fail;
	n = recv(fd, buf, sizeof(buf), 0);
	nh = (struct nlmsghdr *)buf;
	if (n <= 0 || !NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type == NLMSG_ERROR)
		goto fail;
	n = (ssize_t)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	na = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	while (n >= (ssize_t)NLA_HDRLEN && na->nla_len >= NLA_HDRLEN && na->nla_len <= n) {
		if (na->nla_type == CTRL_ATTR_FAMILY_ID)
			memcpy(&family, NLA_DATA(na), sizeof(uint16_t));
		n -= NLA_ALIGN(na->nla_len);
		na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	}
	family &= 0xffff;
	if (!family)
		goto fail;
	snprintf(mask, sizeof(mask), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
	if (genl_send(fd, (uint16_t)family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
		      mask, strlen(mask) + 1) < 0)
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	h->ts_fd = fd;
	return;
fail:
	close(fd);
}

/* One TASKSTATS_TYPE_AGGR_PID: the pid and its final statistics. The task has
 * exited: charge its last CPU time now, while it is a member, and queue its exit.
 * The exit is applied only once the connector has been drained again (see
 * host_apply_early_exits): the task's own forks were queued there before this message,
 * and a fork applied after its creator's exit would land in the roots. */
static void taskstats_one(struct ucg_host *h, struct ucg_engine *e, const char *p, int len)
{
	int tid = 0;
	struct taskstats ts;
	int have = 0, have_rt = 0;
	uint64_t user_ns, sys_ns;

	while (len >= (int)NLA_HDRLEN) {
		const struct nlattr *na = (const struct nlattr *)p;

		if (na->nla_len < NLA_HDRLEN || na->nla_len > len)
			return;
		if (na->nla_type == TASKSTATS_TYPE_PID)
			memcpy(&tid, NLA_DATA(na), sizeof(tid));
		else if (na->nla_type == TASKSTATS_TYPE_STATS) {
			size_t n = na->nla_len - NLA_HDRLEN;

			memset(&ts, 0, sizeof(ts));
			memcpy(&ts, NLA_DATA(na), n < sizeof(ts) ? n : sizeof(ts));
			have = n >= offsetof(struct taskstats, ac_stime) + sizeof(ts.ac_stime);
			have_rt = n >= offsetof(struct taskstats, cpu_run_virtual_total) +
					       sizeof(ts.cpu_run_virtual_total) &&
				  ts.cpu_run_virtual_total;
		}
		len -= NLA_ALIGN(na->nla_len);
		p += NLA_ALIGN(na->nla_len);
	}
	if (!host_in_range(h, tid) || h->state[tid] != TS_ALIVE)
		return;
	if (have && h->sample_cpu) {
		user_ns = ts.ac_utime * 1000;
		sys_ns = ts.ac_stime * 1000;
		if (have_rt) {
			uint64_t total = ts.cpu_run_virtual_total;

			user_ns = user_ns + sys_ns ? (uint64_t)((double)total * (double)user_ns /
								(double)(user_ns + sys_ns))
						   : total;
			if (user_ns > total)
				user_ns = total;
			sys_ns = total - user_ns;
		}
		cpu_sample_charge(h, e, tid, user_ns, sys_ns);
	}
	host_early_push(h, tid);
}

void taskstats_drain(struct ucg_host *h, struct ucg_engine *e)
{
	char buf[16384] __attribute__((aligned(8)));

	if (h->ts_fd < 0)
		return;
	for (;;) {
		ssize_t n = recv(h->ts_fd, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *nh;

		/* A lost taskstats message costs only an early exit and a last charge: the
		 * connector still reports the exit. Without the connector's events it is an
		 * exit we never learn of: rescan. */
		if (n < 0 && errno == ENOBUFS && h->no_events)
			h->lost = 1;
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n <= 0)
			return;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(GENL_HDRLEN);
			const char *p = (const char *)NLMSG_DATA(nh) + GENL_HDRLEN;

			if (nh->nlmsg_type == NLMSG_ERROR || nh->nlmsg_type == NLMSG_NOOP)
				continue;
			while (len >= (int)NLA_HDRLEN) {
				const struct nlattr *na = (const struct nlattr *)p;

				if (na->nla_len < NLA_HDRLEN || na->nla_len > len)
					break;
				if (na->nla_type == TASKSTATS_TYPE_AGGR_PID)
					taskstats_one(h, e, NLA_DATA(na), na->nla_len - NLA_HDRLEN);
				len -= NLA_ALIGN(na->nla_len);
				p += NLA_ALIGN(na->nla_len);
			}
		}
	}
}
