/* host/host.c — the real-process task provider: its life cycle, the drain of both
 * event sockets and the provider ops (see host.h for the interface).
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
 *            leader, see host_on_fork). Its start time is read from /proc/TID/stat; a
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
 *   none  -> a kernel without CONFIG_PROC_EVENTS (its connector a module, as in
 *            Debian's User-mode Linux) accepts the subscription and sends nothing:
 *            ucg_host_new finds that out by forking a child and waiting 250 ms for
 *            its event. From then on the table is made what /proc says at each sync
 *            (before every pid lookup and listing), as cheaply as /proc allows:
 *            exits still come from taskstats; new tasks are found by the check
 *            below; a full rescan costs ~8 system calls a task (~35 ms a sync
 *            with 46 tasks in User-mode Linux, where each is a ptrace round trip)
 *            and is done only when the check cannot vouch for the table.
 *
 *            The check, one pread of /proc/loadavg: its last field is the last pid
 *            the pid namespace allocated, its fourth the number of tasks
 *            (nr_threads: counted at the end of fork, uncounted at release). If no
 *            pid was allocated since the last read of /proc, nothing was created;
 *            if moreover the count equals the tids the table knows (alive, or
 *            exited leaders not yet reaped, after forgetting those /proc no longer
 *            has), no task was released that we did not see and no fork that was
 *            under way at the last read has finished since: the table is exact
 *            and /proc is not read. When pids were allocated, only those tids are
 *            read (/proc/TID answers for threads too), then the count is checked
 *            again. Any disagreement, a jump of more than PROBE_MAX pids, a lost
 *            taskstats message or no taskstats at all: a full rescan. Where the
 *            count never matches (a daemon in a child pid namespace sees fewer
 *            tasks than the kernel counts), every sync rescans, as before. A pid
 *            space wrapped exactly to the same last pid between two syncs would go
 *            unnoticed while the count also matched. Nor is there an exec event:
 *            a non-leader's execve shows as the leader taskstats reported exiting
 *            alive again in /proc with its start time, checked with the exited
 *            leaders before new tids are probed (the new image's children start
 *            in its cgroups), and when the exit is applied. Moved with the
 *            exec'ing thread if a sync saw it; otherwise, if the exit is read after
 *            the swap, it stays where it was, and if before, it reads as exited.
 *
 *   exec  -> credentials are read again. If another thread than the leader called
 *            execve, it took the leader's pid (de_thread): see table.c.
 *
 * Limits: a task that forks and whose tid is reused before we read its fork event
 * is placed under the right parent but may get the newer task's start time. A task
 * learnt by a resync is placed with its parent process (or, reparented, its
 * reaper), not with the thread that forked it.
 *
 * The files: host.c (this), table.c (the table and the events applied to it),
 * resync.c (rescans of /proc), connector.c, taskstats.c, cpu_sample.c (cpuacct from
 * real CPU times), cred_cache.c (FUSE callers' credentials), procfs.c (the readers).
 */
#include "host/host_impl.h"
#include "host/procfs.h"

#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The polled mode: pids allocated further than this since the last read of /proc
 * are found by a full rescan, not one read each. */
#define PROBE_MAX 1024

/* /proc/loadavg's task count and last pid: 0 or -errno. */
static int read_loadavg(const struct ucg_host *h, uint64_t *ret_tasks, int *ret_last)
{
	char buf[128], *slash, *end;
	ssize_t n;

	if (h->loadavg_fd < 0)
		return -EBADF;
	n = pread(h->loadavg_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	slash = strchr(buf, '/');
	if (!slash)
		return -EIO;
	*ret_tasks = strtoull(slash + 1, &end, 10);
	*ret_last = atoi(end);
	return *ret_last > 0 ? 0 : -EIO;
}

/* The polled mode's catch-up after the sockets were drained (the check is described
 * above): the tids allocated since the last read of /proc, or all of /proc. tasks and
 * last: /proc/loadavg's figures read before anything else (r: that read's result). */
static void polled_catch_up(struct ucg_host *h, struct ucg_engine *e, int r, uint64_t tasks,
			    int last)
{
	int span = last - h->last_pid;

	if (span < 0)
		span += h->pid_max - 1;
	if (r == 0 && !h->lost && h->ts_fd >= 0 && h->last_pid && span <= PROBE_MAX) {
		/* A leader taken over by an exec'ing thread first: the new image's
		 * children (among the new tids) start in its cgroups. */
		if (span)
			host_reap_gone(h, e);
		if (span && host_probe_new(h, e, h->last_pid, last) < 0)
			h->lost = 1;
		host_apply_early_exits(h, e);
		host_reap_gone(h, e);
		if (!h->lost && h->nr_known == tasks) {
			h->last_pid = last;
			return;
		}
	}
	h->lost = 0;
	ucg_host_resync(h, e); /* before the exits: see there */
	h->last_pid = r == 0 ? last : 0;
}

int ucg_host_drain(struct ucg_host *h, struct ucg_engine *e)
{
	uint64_t tasks = 0;
	int applied, last = 0, r = -EBADF;

	if (h->draining)
		return 0;
	if (h->no_events) {
		r = read_loadavg(h, &tasks, &last);
		if (r == 0 && !h->lost && h->ts_fd >= 0 && last == h->last_pid) {
			host_reap_gone(h, e);
			if (h->nr_known == tasks && !h->nr_early && !host_pending(h)) {
				h->stats.quiet++;
				return 0;
			}
		}
	} else if (!h->lost && !h->nr_early && !host_pending(h)) {
		return 0;
	}
	h->draining = 1;
	applied = connector_drain(h, e);
	taskstats_drain(h, e);
	/* Every fork by a task whose exit taskstats just reported was queued on the
	 * connector before that report: read them before ending it. */
	if (h->nr_early)
		applied += connector_drain(h, e);
	if (h->no_events) {
		polled_catch_up(h, e, r, tasks, last);
	} else if (h->lost) {
		h->lost = 0;
		ucg_host_resync(h, e); /* before the exits: see there */
	}
	host_apply_early_exits(h, e);
	h->draining = 0;
	return applied;
}

int ucg_host_new(struct ucg_host **ret)
{
	struct ucg_host *h = ucg_calloc(1, sizeof(*h));
	const char *env;
	char buf[32];
	int r;

	if (!h)
		return -ENOMEM;
	h->fd = -1;
	h->loadavg_fd = -1;
	h->pid_max = 4194304;
	if (procfs_read_small("/proc/sys/kernel/pid_max", buf, sizeof(buf)) > 0)
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
	env = getenv("UCG_HOST_NO_EVENTS"); /* tests: the polled mode on any kernel */
	if (env && !strcmp(env, "1")) {
		/* as on such a kernel: no event read (poll ignores the fd -1) */
		h->no_events = 1;
		close(h->fd);
		h->fd = -1;
	} else
		h->no_events = connector_probe(h->fd, h->buf, sizeof(h->buf), 250) == 0;
	taskstats_open(h); /* early exits; without it, exits wait for the connector */
	if (h->no_events)
		h->loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
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
	if (h->loadavg_fd >= 0)
		close(h->loadavg_fd);
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
	uint64_t tasks;
	int r, last = 0;

	/* before the scan: a task forked during it has a later pid */
	if (h->no_events && read_loadavg(h, &tasks, &last) < 0)
		last = 0;
	memset(h->seen, 0, (size_t)h->pid_max);
	r = host_scan(h, e, 1);
	if (r < 0)
		return r;
	h->last_pid = last;
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

int ucg_host_polled(const struct ucg_host *h)
{
	return h->no_events;
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
