/* host/host.c — the real-process task provider (see host.h for the model).
 *
 * Model. The engine is told about every thread on the host. We keep one byte of
 * state per tid (unknown / alive / exited leader awaiting reap); the engine holds
 * the rest (credentials, start time). Events come from the process-events
 * connector, read continuously by the daemon and drained again by the engine's
 * sync callback, so a task forked before a write to cgroup.procs is known when the
 * write is resolved: the kernel queues the fork event before fork() returns in the
 * parent.
 *
 *   fork  -> ucg_task_forked(creator, child): the child starts in its creator's
 *            cgroups (a new process: its parent; a new thread: its process's
 *            leader, see on_fork). Its start time is read from /proc/TID/stat; a
 *            child already gone is added and ended at once. Credentials are the
 *            creator's; exec/uid/gid events refresh them. A fork whose creator we
 *            do not know means events were lost: the resync places the child.
 *   exit  -> ucg_task_exit, from taskstats' exit message when it comes first (it is
 *            sent before the parent can reap the task; the connector's is sent
 *            after), else from the connector; a non-leader thread is reaped at once
 *            (the kernel releases it at exit); a leader is reaped once /proc/TID is
 *            gone or belongs to a newer task.
 *   lost  -> (ENOBUFS) resync: every /proc/PID/task/TID is compared with the table by
 *            (tid, start time); vanished tasks are exited and reaped, unknown ones
 *            are added under their creator (same process: the leader; otherwise the
 *            parent process), creators first, as close to fork semantics as a
 *            rescan can get (see ucg_host_resync for the races this closes).
 *
 *   exec  -> credentials are read again. If another thread than the leader called
 *            execve, it took the leader's pid (de_thread): see leader_taken_over.
 *
 * Limits: a task that forks and whose tid is reused before we read its fork event
 * is placed under the right parent but may get the newer task's start time. A task
 * learnt by a resync is placed with its parent process (or, reparented, its
 * reaper), not with the thread that forked it.
 */
#include "host/host.h"

#include "base/alloc.h"
#include "controllers/charge.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PF_KTHREAD_FLAG 0x00200000u
#define PF_NO_SETAFFINITY_FLAG 0x04000000u

enum { TS_UNKNOWN = 0, TS_ALIVE = 1, TS_ZOMBIE = 2 };

/* A cached caller: direct-mapped by tid; only callers with few groups are cached. */
#define CRED_SLOTS 1024
#define CRED_GROUPS 32
struct cred_slot {
	int tid; /* 0: empty */
	uint64_t expires_ns;
	struct ucg_cred cred;
	uint32_t groups[CRED_GROUPS];
};

struct ucg_host {
	int fd;             /* connector socket, non-blocking */
	int pid_max;
	uint8_t *state;     /* [pid_max] TS_* */
	uint8_t *seen;      /* [pid_max] scratch for resync */
	uint64_t *cpu_user, *cpu_sys; /* [pid_max] CPU ns already charged to cpuacct */
	uint16_t *cpu_last;           /* [pid_max] the cpu a task last ran on */
	uint32_t *nthreads;           /* [pid_max] by tgid: its alive non-leader threads */
	int ts_fd;                    /* taskstats (exit CPU times), -1 if unavailable */
	int *early;                   /* tids taskstats reported exited, not applied yet */
	size_t nr_early, cap_early;
	int sample_cpu;     /* charge real CPU times to cpuacct */
	uint64_t tick_ns;
	int *zombies;       /* exited leaders awaiting reap */
	size_t nr_zombies, cap_zombies;
	struct pending *pend; /* resync: tasks found in /proc, placed parents first */
	size_t nr_pend, cap_pend;
	int lost;           /* events were dropped: resync before trusting the table */
	int draining;       /* guards against the sync callback re-entering */
	struct ucg_host_stats stats;
	struct cred_slot creds[CRED_SLOTS];
	char buf[65536] __attribute__((aligned(8))); /* one connector datagram batch */
};

/* A task a resync found in /proc and did not know. */
struct pending {
	struct ucg_task_info info;
	int ppid;
	char state;
};

/* ---- /proc readers --------------------------------------------------------------- */

static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* stat: tgid is not here; ppid (field 4), flags (9), starttime (22), state (3). */
static int read_stat(int tid, char *state, int *ppid, unsigned *flags, uint64_t *start)
{
	char path[64], buf[1024], *p, *tok, *save = NULL;
	int field = 3;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 3)
			*state = tok[0];
		else if (field == 4)
			*ppid = atoi(tok);
		else if (field == 9)
			*flags = (unsigned)strtoul(tok, NULL, 10);
		else if (field == 22) {
			*start = strtoull(tok, NULL, 10);
			return 0;
		}
	}
	return -EIO;
}

struct status {
	int tgid;
	uint32_t uid[4], gid[4];
	uint64_t capeff;
	uint32_t *groups;
	size_t ngroups, max_groups;
};

static int read_status(int tid, struct status *st)
{
	char path[64], buf[4096], *line, *save = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	st->ngroups = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Tgid:", 5))
			st->tgid = atoi(line + 5);
		else if (!strncmp(line, "Uid:", 4))
			sscanf(line + 4, "%u %u %u %u", &st->uid[0], &st->uid[1], &st->uid[2],
			       &st->uid[3]);
		else if (!strncmp(line, "Gid:", 4))
			sscanf(line + 4, "%u %u %u %u", &st->gid[0], &st->gid[1], &st->gid[2],
			       &st->gid[3]);
		else if (!strncmp(line, "CapEff:", 7))
			st->capeff = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "Groups:", 7) && st->groups) {
			char *p = line + 7, *end;

			for (;;) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p || st->ngroups >= st->max_groups)
					break;
				st->groups[st->ngroups++] = (uint32_t)g;
				p = end;
			}
		}
	}
	return 0;
}

int ucg_host_read_task(int tid, struct ucg_task_info *ret)
{
	struct ucg_task_info info;
	struct status st;
	char state = 0;
	int ppid = 0, r;
	unsigned flags = 0;

	memset(&info, 0, sizeof(info));
	memset(&st, 0, sizeof(st));
	r = read_stat(tid, &state, &ppid, &flags, &info.start_time);
	if (r < 0)
		return r;
	r = read_status(tid, &st);
	if (r < 0)
		return r;
	info.tid = tid;
	info.tgid = st.tgid ? st.tgid : tid;
	info.ruid = st.uid[0], info.euid = st.uid[1], info.suid = st.uid[2], info.fsuid = st.uid[3];
	info.rgid = st.gid[0], info.egid = st.gid[1], info.sgid = st.gid[2], info.fsgid = st.gid[3];
	if (flags & PF_KTHREAD_FLAG)
		info.flags |= UCG_TASK_KTHREAD;
	if ((flags & PF_KTHREAD_FLAG) && (flags & PF_NO_SETAFFINITY_FLAG))
		info.flags |= UCG_TASK_NO_SETAFFINITY;
	if (tid == 2 && (flags & PF_KTHREAD_FLAG))
		info.flags |= UCG_TASK_NO_SETAFFINITY; /* kthreadd never moves */
	/* the policy, for the cpu controller's RT rules (set_cred takes it too) */
	r = sched_getscheduler(tid);
	if (r == SCHED_FIFO || r == SCHED_RR)
		info.flags |= UCG_TASK_RT;
	*ret = info;
	return 0;
}

int ucg_host_read_cred(int tid, struct ucg_cred *ret, uint32_t *groups, size_t max_groups)
{
	struct status st;
	int r;

	memset(&st, 0, sizeof(st));
	st.groups = groups;
	st.max_groups = max_groups;
	r = read_status(tid, &st);
	if (r < 0)
		return r;
	memset(ret, 0, sizeof(*ret));
	ret->uid = st.uid[0], ret->euid = st.uid[1], ret->suid = st.uid[2], ret->fsuid = st.uid[3];
	ret->gid = st.gid[0], ret->egid = st.gid[1], ret->sgid = st.gid[2], ret->fsgid = st.gid[3];
	ret->groups = groups;
	ret->ngroups = st.ngroups;
	ret->caps = st.capeff;
	ret->tid = tid;
	ret->tgid = st.tgid ? st.tgid : tid;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ucg_host_caller_cred(struct ucg_host *h, int tid, struct ucg_cred *ret, uint32_t *groups)
{
	struct cred_slot *s = &h->creds[(unsigned)tid % CRED_SLOTS];
	uint64_t now = mono_ns();
	int r;

	if (tid > 0 && s->tid == tid && now < s->expires_ns) {
		*ret = s->cred;
		memcpy(groups, s->groups, s->cred.ngroups * sizeof(*groups));
		ret->groups = groups;
		return 0;
	}
	r = ucg_host_read_cred(tid, ret, groups, UCG_HOST_MAX_GROUPS);
	if (r < 0 || tid <= 0)
		return r;
	if (ret->ngroups <= CRED_GROUPS) {
		s->tid = tid;
		s->expires_ns = now + UCG_HOST_CRED_TTL_NS;
		s->cred = *ret;
		s->cred.groups = NULL;
		memcpy(s->groups, groups, ret->ngroups * sizeof(*groups));
	}
	return 0;
}

/* ---- the table ------------------------------------------------------------------- */

static int in_range(const struct ucg_host *h, int tid)
{
	return tid > 0 && tid < h->pid_max;
}

static void zombie_push(struct ucg_host *h, int tid)
{
	if (h->nr_zombies == h->cap_zombies) {
		size_t nc = h->cap_zombies ? h->cap_zombies * 2 : 256;
		int *nz = ucg_realloc(h->zombies, nc * sizeof(*nz));

		if (!nz)
			return; /* the next resync reaps it */
		h->zombies = nz;
		h->cap_zombies = nc;
	}
	h->zombies[h->nr_zombies++] = tid;
}

/* tid (of process tgid) is alive in the table from now on. */
static void set_alive(struct ucg_host *h, int tid, int tgid)
{
	h->state[tid] = TS_ALIVE;
	h->cpu_user[tid] = h->cpu_sys[tid] = 0;
	if (tid != tgid && in_range(h, tgid))
		h->nthreads[tgid]++;
}

static void forget(struct ucg_host *h, struct ucg_engine *e, int tid)
{
	struct ucg_task_info info;

	if (h->state[tid] == TS_ALIVE && ucg_task_get_info(e, tid, &info) == 0 &&
	    info.tid != info.tgid && in_range(h, info.tgid) && h->nthreads[info.tgid])
		h->nthreads[info.tgid]--;
	ucg_task_reap(e, tid);
	h->state[tid] = TS_UNKNOWN;
	h->cpu_user[tid] = h->cpu_sys[tid] = 0;
	h->cpu_last[tid] = 0;
}

/* Charges the part of (user_ns, sys_ns), tid's total CPU times, not charged yet. */
static void charge_to(struct ucg_host *h, struct ucg_engine *e, int tid, uint64_t user_ns,
		      uint64_t sys_ns)
{
	uint64_t du = user_ns > h->cpu_user[tid] ? user_ns - h->cpu_user[tid] : 0;
	uint64_t ds = sys_ns > h->cpu_sys[tid] ? sys_ns - h->cpu_sys[tid] : 0;

	if ((du || ds) && ucg_cpuacct_charge(e, tid, h->cpu_last[tid], du, ds) == 0) {
		h->cpu_user[tid] += du;
		h->cpu_sys[tid] += ds;
	}
}

/* ---- taskstats: the exact CPU times of every exiting task --------------------------
 *
 * The kernel sends a task's final statistics (taskstats_exit) before the connector's
 * exit event (proc_exit_connector, later in do_exit). Draining this socket before an
 * exit event is applied charges the task's last CPU time while it is still a member.
 */
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

static void taskstats_open(struct ucg_host *h)
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

/* Queues tid's exit for apply_early_exits. */
static void early_push(struct ucg_host *h, int tid)
{
	if (h->nr_early == h->cap_early) {
		size_t nc = h->cap_early ? h->cap_early * 2 : 256;
		int *ne = ucg_realloc(h->early, nc * sizeof(*ne));

		if (!ne)
			return; /* the connector's exit event (or the next resync) still comes */
		h->early = ne;
		h->cap_early = nc;
	}
	h->early[h->nr_early++] = tid;
}

static int early_has(const struct ucg_host *h, int tid)
{
	size_t i;

	for (i = 0; i < h->nr_early; i++)
		if (h->early[i] == tid)
			return 1;
	return 0;
}

/* One TASKSTATS_TYPE_AGGR_PID: the pid and its final statistics. The task has
 * exited: charge its last CPU time now, while it is a member, and queue its exit.
 * The exit is applied only once the connector has been drained again (see
 * apply_early_exits): the task's own forks were queued there before this message,
 * and a fork applied after its creator's exit would land in the roots. */
static void taskstats_one(struct ucg_host *h, struct ucg_engine *e, const char *p, int len)
{
	int tid = 0;
	struct taskstats ts;
	int have = 0;

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
		}
		len -= NLA_ALIGN(na->nla_len);
		p += NLA_ALIGN(na->nla_len);
	}
	if (!in_range(h, tid) || h->state[tid] != TS_ALIVE)
		return;
	if (have && h->sample_cpu)
		charge_to(h, e, tid, ts.ac_utime * 1000, ts.ac_stime * 1000);
	early_push(h, tid);
}

static void taskstats_drain(struct ucg_host *h, struct ucg_engine *e)
{
	char buf[16384] __attribute__((aligned(8)));

	if (h->ts_fd < 0)
		return;
	for (;;) {
		ssize_t n = recv(h->ts_fd, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *nh;

		/* A lost taskstats message costs only an early exit and a last charge: the
		 * connector still reports the exit. */
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

/* Charges tid's CPU time since the last sample (utime, stime: stat fields 14, 15;
 * the cpu it last ran on: field 39) to its cpuacct cgroup. */
static void sample_one(struct ucg_host *h, struct ucg_engine *e, int tid)
{
	char path[64], buf[1024], *p, *tok, *save = NULL;
	unsigned long ut = 0, st = 0, cpu = 0;
	int fd, field = 3;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return;
	for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 14)
			ut = strtoul(tok, NULL, 10);
		else if (field == 15)
			st = strtoul(tok, NULL, 10);
		else if (field == 39) {
			cpu = strtoul(tok, NULL, 10);
			break;
		}
	}
	if (field != 39)
		return;
	h->cpu_last[tid] = (uint16_t)cpu;
	charge_to(h, e, tid, (uint64_t)ut * h->tick_ns, (uint64_t)st * h->tick_ns);
}

void ucg_host_sample_cpu(struct ucg_host *h, struct ucg_engine *e)
{
	int tid;

	h->sample_cpu = 1;
	taskstats_drain(h, e);
	for (tid = 1; tid < h->pid_max; tid++)
		if (h->state[tid] == TS_ALIVE)
			sample_one(h, e, tid);
}

/* tid (of process tgid) exited: it stops being a member. A thread other than the
 * leader is released by the kernel at once; a leader stays until reaped. */
static void exit_now(struct ucg_host *h, struct ucg_engine *e, int tid, int tgid)
{
	ucg_task_exit(e, tid);
	h->stats.exits++;
	if (tid != tgid) {
		forget(h, e, tid);
	} else {
		h->state[tid] = TS_ZOMBIE;
		zombie_push(h, tid);
	}
}

static void leader_taken_over(struct ucg_host *h, struct ucg_engine *e, int tgid);

static void task_exited(struct ucg_host *h, struct ucg_engine *e, int tid, int tgid)
{
	if (!in_range(h, tid) || h->state[tid] != TS_ALIVE)
		return;
	/* A leader's exit event is sent after exit_notify(): /proc shows it a zombie (or
	 * gone). Alive there with its start time, it is the old leader of a process whose
	 * other thread called execve and took its pid over; its exit event then names it
	 * by the leader's pid or, once the pids are swapped, by the exec'ing thread's. */
	if (in_range(h, tgid) && (tid == tgid || h->state[tgid] == TS_ZOMBIE ||
				  early_has(h, tgid))) {
		struct ucg_task_info old;
		uint64_t start = 0;
		unsigned flags;
		char state = 0;
		int ppid;

		if (read_stat(tgid, &state, &ppid, &flags, &start) == 0 && state != 'Z' &&
		    state != 'X' && ucg_task_get_info(e, tgid, &old) == 0 &&
		    old.start_time == start) {
			leader_taken_over(h, e, tgid);
			if (tid == tgid || h->state[tid] != TS_ALIVE)
				return; /* the process lives on as the exec'ing thread */
		}
	}
	taskstats_drain(h, e); /* its final times were sent before this event */
	if (h->sample_cpu)
		sample_one(h, e, tid); /* else its last time, if /proc still has it */
	exit_now(h, e, tid, tgid);
}

/* A live thread of process tgid other than child, the lowest tid, or 0. Used when
 * the leader has exited but its process lives on (pthread_exit in main): a thread
 * made then was made by one of the others, never by the leader, and the kernel
 * starts it where its creator is; the exited leader is in no cgroup (the engine
 * would put the thread in the roots). Which thread made it is not reported; when the
 * threads sit in different cgroups of one hierarchy this may pick another one. */
static int live_thread_of(struct ucg_host *h, int tgid, int child)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int best = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid > 0 && tid != child && tid != tgid && in_range(h, tid) &&
		    h->state[tid] == TS_ALIVE && (!best || tid < best))
			best = tid;
	}
	closedir(d);
	return best;
}

/* Who created a task, as far as /proc can tell: a thread was made by some thread of
 * its own process (we take the leader, or another live thread once the leader has
 * exited), a process by its parent. */
static int creator_of(struct ucg_host *h, const struct ucg_task_info *info, int ppid)
{
	int other;

	if (info->tid == info->tgid)
		return ppid;
	if (in_range(h, info->tgid) && h->state[info->tgid] == TS_ZOMBIE &&
	    (other = live_thread_of(h, info->tgid, info->tid)))
		return other;
	return info->tgid;
}

/* Adds a task found in /proc (not through a fork event) under creator, or in the
 * roots when creator is 0. */
static void task_found(struct ucg_host *h, struct ucg_engine *e, struct ucg_task_info *info,
		       int creator, char state)
{
	int r = -ESRCH;

	if (creator)
		r = ucg_task_forked(e, creator, info);
	if (r < 0)
		r = ucg_task_add(e, info);
	if (r < 0)
		return;
	set_alive(h, info->tid, info->tgid);
	if (state == 'Z' || state == 'X')
		early_push(h, info->tid); /* after the placing: it may have made others */
}

/* Ends the tasks taskstats reported exited (their connector exit events may come
 * only after their parent has reaped them, and listed its cgroup) and the zombies a
 * scan found. */
static void apply_early_exits(struct ucg_host *h, struct ucg_engine *e)
{
	size_t i;

	for (i = 0; i < h->nr_early; i++) {
		struct ucg_task_info info;
		int tid = h->early[i];

		if (h->state[tid] != TS_ALIVE || ucg_task_get_info(e, tid, &info) < 0)
			continue;
		/* /proc's times are scaled to the exact runtime, taskstats' are not: charge
		 * whichever is more, as task_exited does */
		if (h->sample_cpu)
			sample_one(h, e, tid);
		exit_now(h, e, tid, info.tgid);
	}
	h->nr_early = 0;
}

static void pend_push(struct ucg_host *h, const struct ucg_task_info *info, int ppid, char state)
{
	if (h->nr_pend == h->cap_pend) {
		size_t nc = h->cap_pend ? h->cap_pend * 2 : 256;
		struct pending *np = ucg_realloc(h->pend, nc * sizeof(*np));

		if (!np) {
			h->lost = 1; /* try again at the next drain */
			return;
		}
		h->pend = np;
		h->cap_pend = nc;
	}
	h->pend[h->nr_pend].info = *info;
	h->pend[h->nr_pend].ppid = ppid;
	h->pend[h->nr_pend].state = state;
	h->nr_pend++;
}

/* Places one task a resync found. Its creator is known by now, or it never will be
 * by the scan: the creator appeared after the scan passed its tid. Then the creator's
 * fork event is still queued (or lost, and the socket reports it), and the child's
 * follows it: leave the child unknown and resynchronise again at the next drain. A
 * creator that has exited meanwhile has handed its children to a reaper; read the
 * parent again. */
static void place_one(struct ucg_host *h, struct ucg_engine *e, struct pending *p)
{
	int creator = creator_of(h, &p->info, p->ppid);

	if (creator && (!in_range(h, creator) || h->state[creator] == TS_UNKNOWN) &&
	    p->info.tid == p->info.tgid) {
		unsigned flags;
		uint64_t start;
		char state;
		int ppid = 0;

		if (read_stat(p->info.tid, &state, &ppid, &flags, &start) < 0 ||
		    start != p->info.start_time)
			return; /* gone: the scan's view of it is already out of date */
		creator = ppid;
	}
	if (creator && (!in_range(h, creator) || h->state[creator] == TS_UNKNOWN)) {
		h->lost = 1;
		return;
	}
	task_found(h, e, &p->info, creator, p->state);
}

/* Places what a resync found, every creator before what it created (a child can have
 * a lower tid than its parent once tids wrap), so no child lands in the roots for
 * want of a parent the same scan found. seen[] is 2 for a task not placed yet. */
static void place_pending(struct ucg_host *h, struct ucg_engine *e)
{
	size_t i, left = h->nr_pend;
	int progress = 1;

	for (i = 0; i < h->nr_pend; i++)
		h->seen[h->pend[i].info.tid] = 2;
	while (left && progress) {
		progress = 0;
		for (i = 0; i < h->nr_pend; i++) {
			struct pending *p = &h->pend[i];
			int c = creator_of(h, &p->info, p->ppid);

			if (h->seen[p->info.tid] != 2)
				continue;
			if (c != p->info.tid && in_range(h, c) && h->seen[c] == 2)
				continue; /* its creator first */
			h->seen[p->info.tid] = 1;
			place_one(h, e, p);
			left--;
			progress = 1;
		}
	}
	for (i = 0; left && i < h->nr_pend; i++) /* a cycle: /proc changed under us */
		if (h->seen[h->pend[i].info.tid] == 2) {
			h->seen[h->pend[i].info.tid] = 1;
			place_one(h, e, &h->pend[i]);
			left--;
		}
	h->nr_pend = 0;
}

static int scan_dir(struct ucg_host *h, struct ucg_engine *e, int initial)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *de, *te;
	char path[64];

	if (!d)
		return -errno;
	h->nr_pend = 0;
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td))) {
			struct ucg_task_info info, old;
			int tid = atoi(te->d_name), ppid = 0;
			unsigned flags = 0;
			char state = 0;

			if (!in_range(h, tid))
				continue;
			if (read_stat(tid, &state, &ppid, &flags, &info.start_time) < 0)
				continue;
			h->seen[tid] = 1;
			if (h->state[tid] != TS_UNKNOWN) {
				if (ucg_task_get_info(e, tid, &old) == 0 &&
				    old.start_time == info.start_time) {
					if (h->state[tid] == TS_ALIVE && (state == 'Z' || state == 'X'))
						early_push(h, tid); /* after the placing */
					continue;
				}
				/* A reused tid: the one we knew is gone. */
				forget(h, e, tid);
			}
			if (ucg_host_read_task(tid, &info) < 0) {
				h->seen[tid] = 0;
				continue;
			}
			if (initial)
				task_found(h, e, &info, 0, state);
			else
				pend_push(h, &info, ppid, state);
		}
		closedir(td);
	}
	closedir(d);
	place_pending(h, e);
	return 0;
}

/* A resynchronisation after lost events.
 *
 * Why a lost storm once lost or kept a process (issue 4), and what closes it:
 *  - Events read after ENOBUFS are not all older than the loss: the kernel drops
 *    everything while the queue is congested and clears that when we empty it, so
 *    the same drain reads fresh events too, among them forks by parents whose own
 *    fork was lost. Those children used to go to the roots, and the resync that
 *    followed trusted them (tid and start time matched): lost from their cgroup.
 *    Now a fork by an unknown creator is left to the resync, which places it.
 *  - The resync added tasks in /proc order; once tids wrap (pid_max is 32768 here)
 *    a child comes before its parent and went to the roots. Now parents first.
 *  - Exits (taskstats', or a zombie the scan sees) are applied after the new tasks
 *    are placed: a child read while its parent lived names that parent, and a fork
 *    by a task already exited in the table lands in the roots.
 *  - A parent can reap a child before the child's connector exit event is sent
 *    (do_exit: exit_notify, then proc_exit_connector), so a listing right after
 *    wait() still showed it. taskstats' exit message is sent before exit_notify:
 *    read at every drain, it ends the membership in time (after a second pass over
 *    the connector, which holds the exiting task's own forks).
 */
int ucg_host_resync(struct ucg_host *h, struct ucg_engine *e)
{
	int r, tid;
	size_t i, j;

	memset(h->seen, 0, (size_t)h->pid_max);
	r = scan_dir(h, e, 0);
	if (r < 0)
		return r;
	for (tid = 1; tid < h->pid_max; tid++)
		if (h->state[tid] != TS_UNKNOWN && !h->seen[tid])
			forget(h, e, tid);
	apply_early_exits(h, e);
	for (i = j = 0; i < h->nr_zombies; i++)
		if (h->state[h->zombies[i]] == TS_ZOMBIE)
			h->zombies[j++] = h->zombies[i];
	h->nr_zombies = j;
	h->stats.resyncs++;
	return 0;
}

void ucg_host_reap_check(struct ucg_host *h, struct ucg_engine *e)
{
	size_t i, j;

	if (h->lost) /* a resync left a task for later: do not wait for an event */
		ucg_host_drain(h, e);
	for (i = j = 0; i < h->nr_zombies; i++) {
		int tid = h->zombies[i], ppid;
		struct ucg_task_info old;
		unsigned flags;
		uint64_t start = 0;
		char state;

		if (h->state[tid] != TS_ZOMBIE)
			continue;
		if (read_stat(tid, &state, &ppid, &flags, &start) == 0 &&
		    ucg_task_get_info(e, tid, &old) == 0 && old.start_time == start) {
			h->zombies[j++] = tid; /* still a zombie (or other threads run) */
			continue;
		}
		forget(h, e, tid);
	}
	h->nr_zombies = j;
}

/* ---- events ---------------------------------------------------------------------- */

/* The connector's fork event names the new task's real_parent: for a new process its
 * creator (or the creator's parent with CLONE_PARENT), but for a new thread the
 * parent of its process, not the thread that made it. A new thread is therefore
 * placed with its process's leader (the creating thread is not reported; in v1 the
 * threads of a process can sit in different cgroups, then this may differ). */
static void on_fork(struct ucg_host *h, struct ucg_engine *e, const struct proc_event *ev)
{
	int child = ev->event_data.fork.child_pid, tgid = ev->event_data.fork.child_tgid;
	int creator = ev->event_data.fork.parent_pid;
	struct ucg_task_info info;
	uint64_t start = 0;
	unsigned flags = 0;
	int ppid, r, gone = 0;
	char state = 0;

	if (!in_range(h, child))
		return;
	r = read_stat(child, &state, &ppid, &flags, &start);
	if (r == -ESRCH)
		gone = 1; /* exited and reaped already: its exit event follows */
	if (r < 0)
		start = 0;
	if (child != tgid) {
		struct ucg_task_info self = { .tid = child, .tgid = tgid };

		creator = creator_of(h, &self, 0);
	}
	if (h->state[child] != TS_UNKNOWN) {
		struct ucg_task_info old;

		if (start && ucg_task_get_info(e, child, &old) == 0 && old.start_time == start)
			return; /* found by a scan already */
		forget(h, e, child);
	}
	if (!in_range(h, creator) || h->state[creator] == TS_UNKNOWN ||
	    ucg_task_get_info(e, creator, &info) < 0) {
		/* Its creator's fork was lost (or is being resynchronised): a resync
		 * places it by /proc. Never in the roots: a later resync would trust it. */
		if (!gone)
			h->lost = 1;
		return;
	}
	info.tid = child;
	info.tgid = tgid;
	info.flags = 0;
	info.start_time = start;
	r = ucg_task_forked(e, creator, &info);
	if (r < 0)
		r = ucg_task_add(e, &info);
	if (r < 0)
		return;
	set_alive(h, child, tgid);
	h->stats.forks++;
	/* Already dead: its exit event may come only after its parent has reaped it,
	 * so end it at the end of this drain, not now: the forks it made before dying
	 * are still to be read, and they must find it. */
	if (gone || state == 'Z' || state == 'X')
		early_push(h, child);
}

static void refresh_cred(struct ucg_host *h, struct ucg_engine *e, int tid)
{
	struct ucg_task_info info;

	if (!in_range(h, tid) || h->state[tid] != TS_ALIVE)
		return;
	if (ucg_host_read_task(tid, &info) == 0)
		ucg_task_set_cred(e, &info);
}


/* A thread other than the leader called execve: the kernel (de_thread) gave it the
 * leader's pid and start time and released the old leader, whose exit we may have
 * applied to that pid. The process is the exec'ing thread now, in its cgroups: find
 * that thread (a thread of tgid we think alive that /proc no longer shows as itself
 * and that taskstats did not report exiting), re-create tgid from it, drop it. */
static void leader_taken_over(struct ucg_host *h, struct ucg_engine *e, int tgid)
{
	struct ucg_task_info info, t_info;
	int t, execer = 0;
	size_t i;

	taskstats_drain(h, e); /* the other threads' exits, sent before the exec */
	for (t = 1; t < h->pid_max && !execer; t++) {
		uint64_t start = 0;
		unsigned flags;
		char state = 0;
		int ppid;

		if (t == tgid || h->state[t] != TS_ALIVE || ucg_task_get_info(e, t, &t_info) < 0 ||
		    t_info.tgid != tgid || early_has(h, t))
			continue;
		if (read_stat(t, &state, &ppid, &flags, &start) == 0 && start == t_info.start_time &&
		    state != 'Z' && state != 'X')
			continue; /* still itself */
		execer = t;
	}
	if (!execer || ucg_host_read_task(tgid, &info) < 0)
		return; /* a resync sorts it out if it must */
	for (i = 0; i < h->nr_early; i++) /* the old leader's exit is not the new one's */
		if (h->early[i] == tgid)
			h->early[i] = 0;
	if (h->state[tgid] != TS_UNKNOWN)
		forget(h, e, tgid);
	if (ucg_task_forked(e, execer, &info) == 0 || ucg_task_add(e, &info) == 0) {
		set_alive(h, tgid, tgid);
	}
	ucg_task_exit(e, execer);
	forget(h, e, execer);
}

static void on_exec(struct ucg_host *h, struct ucg_engine *e, int pid)
{
	if (!in_range(h, pid))
		return;
	/* The old leader's exit, if another thread took its pid, was sent to taskstats
	 * before this event: read it now. */
	taskstats_drain(h, e);
	if (h->nthreads[pid] &&
	    (h->state[pid] == TS_ZOMBIE || (h->state[pid] == TS_ALIVE && early_has(h, pid))))
		leader_taken_over(h, e, pid);
	refresh_cred(h, e, pid);
}

static void cred_forget(struct ucg_host *h, int tid)
{
	struct cred_slot *s = &h->creds[(unsigned)tid % CRED_SLOTS];

	if (s->tid == tid)
		s->tid = 0;
}

static void on_event(struct ucg_host *h, struct ucg_engine *e, const struct proc_event *ev)
{
	h->stats.events++;
	switch (ev->what) {
	case PROC_EVENT_FORK:
		cred_forget(h, ev->event_data.fork.child_pid);
		on_fork(h, e, ev);
		break;
	case PROC_EVENT_EXIT:
		cred_forget(h, ev->event_data.exit.process_pid);
		task_exited(h, e, ev->event_data.exit.process_pid, ev->event_data.exit.process_tgid);
		break;
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		cred_forget(h, ev->event_data.id.process_pid);
		refresh_cred(h, e, ev->event_data.id.process_pid);
		break;
	case PROC_EVENT_EXEC:
		cred_forget(h, ev->event_data.exec.process_pid);
		on_exec(h, e, ev->event_data.exec.process_pid);
		break;
	default:
		break;
	}
}

/* Applies every event queued on the connector; notes a loss. */
static int connector_drain(struct ucg_host *h, struct ucg_engine *e)
{
	char *buf = h->buf;
	int applied = 0;

	for (;;) {
		ssize_t n = recv(h->fd, buf, sizeof(h->buf), MSG_DONTWAIT);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				h->lost = 1;
				continue;
			}
			return applied; /* EAGAIN: nothing left */
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			struct cn_msg *cn;
			struct proc_event ev;

			if (nh->nlmsg_type == NLMSG_NOOP || nh->nlmsg_type == NLMSG_ERROR)
				continue;
			cn = NLMSG_DATA(nh);
			if (cn->id.idx != CN_IDX_PROC || cn->len < sizeof(struct proc_event))
				continue;
			/* the event sits 4-byte aligned in the datagram: copy it out */
			memcpy(&ev, cn->data, sizeof(ev));
			on_event(h, e, &ev);
			applied++;
		}
	}
}

/* Whether either socket has something queued (or an error such as ENOBUFS, which
 * poll reports whatever was asked). One poll instead of a recv on each socket: the
 * sync callback runs before every engine call that reads or moves tasks, and with
 * nothing queued (the usual case) the drain is then one system call, not two. */
static int host_pending(const struct ucg_host *h)
{
	struct pollfd p[2] = { { .fd = h->fd, .events = POLLIN },
			       { .fd = h->ts_fd, .events = POLLIN } };
	int n = h->ts_fd >= 0 ? 2 : 1, r;

	do
		r = poll(p, (nfds_t)n, 0);
	while (r < 0 && errno == EINTR);
	return r != 0; /* an error: drain, the recvs will say */
}

int ucg_host_drain(struct ucg_host *h, struct ucg_engine *e)
{
	int applied;

	if (h->draining)
		return 0;
	if (!h->lost && !h->nr_early && !host_pending(h))
		return 0;
	h->draining = 1;
	applied = connector_drain(h, e);
	taskstats_drain(h, e);
	/* Every fork by a task whose exit taskstats just reported was queued on the
	 * connector before that report: read them before ending it. */
	if (h->nr_early)
		applied += connector_drain(h, e);
	if (h->lost) {
		h->lost = 0;
		ucg_host_resync(h, e); /* before the exits: see there */
	}
	apply_early_exits(h, e);
	h->draining = 0;
	return applied;
}

/* ---- setup ----------------------------------------------------------------------- */

static int connector_open(int *ret)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct {
		struct nlmsghdr nh;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg;
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
	msg.nh.nlmsg_len = sizeof(msg);
	msg.nh.nlmsg_type = NLMSG_DONE;
	msg.nh.nlmsg_pid = 0;
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof(enum proc_cn_mcast_op);
	msg.op = PROC_CN_MCAST_LISTEN;
	if (send(fd, &msg, sizeof(msg), 0) < 0)
		goto fail;
	*ret = fd;
	return 0;
fail:
	r = -errno;
	close(fd);
	return r;
}

int ucg_host_new(struct ucg_host **ret)
{
	struct ucg_host *h = ucg_calloc(1, sizeof(*h));
	char buf[32];
	int r;

	if (!h)
		return -ENOMEM;
	h->fd = -1;
	h->pid_max = 4194304;
	if (read_small("/proc/sys/kernel/pid_max", buf, sizeof(buf)) > 0)
		h->pid_max = atoi(buf) + 1;
	h->state = ucg_calloc((size_t)h->pid_max, 1);
	h->seen = ucg_calloc((size_t)h->pid_max, 1);
	h->cpu_user = ucg_calloc((size_t)h->pid_max, sizeof(uint64_t));
	h->cpu_sys = ucg_calloc((size_t)h->pid_max, sizeof(uint64_t));
	h->cpu_last = ucg_calloc((size_t)h->pid_max, sizeof(uint16_t));
	h->nthreads = ucg_calloc((size_t)h->pid_max, sizeof(uint32_t));
	h->ts_fd = -1;
	h->tick_ns = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
	if (!h->state || !h->seen || !h->cpu_user || !h->cpu_sys || !h->cpu_last || !h->nthreads) {
		r = -ENOMEM;
		goto fail;
	}
	r = connector_open(&h->fd);
	if (r < 0)
		goto fail;
	taskstats_open(h); /* early exits; without it, exits wait for the connector */
	*ret = h;
	return 0;
fail:
	ucg_host_free(h);
	return r;
}

void ucg_host_free(struct ucg_host *h)
{
	if (!h)
		return;
	if (h->fd >= 0)
		close(h->fd);
	ucg_free(h->state);
	ucg_free(h->seen);
	ucg_free(h->cpu_user);
	ucg_free(h->cpu_sys);
	ucg_free(h->cpu_last);
	ucg_free(h->nthreads);
	if (h->ts_fd >= 0)
		close(h->ts_fd);
	ucg_free(h->zombies);
	ucg_free(h->pend);
	ucg_free(h->early);
	ucg_free(h);
}

int ucg_host_populate(struct ucg_host *h, struct ucg_engine *e)
{
	int r;

	memset(h->seen, 0, (size_t)h->pid_max);
	r = scan_dir(h, e, 1);
	if (r < 0)
		return r;
	ucg_host_drain(h, e);
	return 0;
}

int ucg_host_fd(const struct ucg_host *h)
{
	return h->fd;
}

int ucg_host_exit_fd(const struct ucg_host *h)
{
	return h->ts_fd;
}

void ucg_host_get_stats(const struct ucg_host *h, struct ucg_host_stats *ret)
{
	*ret = h->stats;
}

static void host_sync(void *ctx, struct ucg_engine *e)
{
	ucg_host_drain(ctx, e);
}

static const struct ucg_provider_ops host_ops = {
	.sync = host_sync,
};

const struct ucg_provider_ops *ucg_host_provider_ops(void)
{
	return &host_ops;
}
