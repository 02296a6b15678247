/* host/table.c — the host provider's task table, and the connector's events applied
 * to it and to the engine (the model is in host.c).
 *
 * One byte of state per tid (unknown / alive / exited leader awaiting reap) and the
 * count of live threads per process; exits reported early (by taskstats, or a zombie
 * a scan or a fork event saw) queue until the forks before them have been applied.
 */
#include "host/host_impl.h"
#include "host/procfs.h"

#include "base/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
void host_set_alive(struct ucg_host *h, int tid, int tgid)
{
	if (h->state[tid] == TS_UNKNOWN)
		h->nr_known++;
	h->state[tid] = TS_ALIVE;
	h->cpu_user[tid] = h->cpu_sys[tid] = 0;
	if (tid != tgid && host_in_range(h, tgid))
		h->nthreads[tgid]++;
}

void host_forget(struct ucg_host *h, struct ucg_engine *e, int tid)
{
	struct ucg_task_info info;

	if (h->state[tid] == TS_ALIVE && ucg_task_get_info(e, tid, &info) == 0 &&
	    info.tid != info.tgid && host_in_range(h, info.tgid) && h->nthreads[info.tgid])
		h->nthreads[info.tgid]--;
	ucg_task_reap(e, tid);
	if (h->state[tid] != TS_UNKNOWN)
		h->nr_known--;
	h->state[tid] = TS_UNKNOWN;
	h->cpu_user[tid] = h->cpu_sys[tid] = 0;
	h->cpu_last[tid] = 0;
}

/* Queues tid's exit for host_apply_early_exits. */
void host_early_push(struct ucg_host *h, int tid)
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

int host_early_has(const struct ucg_host *h, int tid)
{
	size_t i;

	for (i = 0; i < h->nr_early; i++)
		if (h->early[i] == tid)
			return 1;
	return 0;
}

/* tid (of process tgid) exited: it stops being a member. A thread other than the
 * leader is released by the kernel at once; a leader stays until reaped. */
static void exit_now(struct ucg_host *h, struct ucg_engine *e, int tid, int tgid)
{
	ucg_task_exit(e, tid);
	h->stats.exits++;
	if (tid != tgid) {
		host_forget(h, e, tid);
	} else {
		h->state[tid] = TS_ZOMBIE;
		zombie_push(h, tid);
	}
}

static void leader_taken_over(struct ucg_host *h, struct ucg_engine *e, int tgid);

/* The connector's exit event for tid of process tgid. */
void host_on_exit(struct ucg_host *h, struct ucg_engine *e, int tid, int tgid)
{
	if (!host_in_range(h, tid) || h->state[tid] != TS_ALIVE)
		return;
	/* A leader's exit event is sent after exit_notify(): /proc shows it a zombie (or
	 * gone). Alive there with its start time, it is the old leader of a process whose
	 * other thread called execve and took its pid over; its exit event then names it
	 * by the leader's pid or, once the pids are swapped, by the exec'ing thread's. */
	if (host_in_range(h, tgid) &&
	    (tid == tgid || h->state[tgid] == TS_ZOMBIE || host_early_has(h, tgid))) {
		struct ucg_task_info old;
		struct procfs_stat s;

		if (procfs_read_stat(tgid, &s) == 0 && s.state != 'Z' && s.state != 'X' &&
		    ucg_task_get_info(e, tgid, &old) == 0 && old.start_time == s.start_time) {
			leader_taken_over(h, e, tgid);
			if (tid == tgid || h->state[tid] != TS_ALIVE)
				return; /* the process lives on as the exec'ing thread */
		}
	}
	taskstats_drain(h, e); /* its final times were sent before this event */
	if (h->sample_cpu)
		cpu_sample_one(h, e, tid); /* else its last time, if /proc still has it */
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

		if (tid > 0 && tid != child && tid != tgid && host_in_range(h, tid) &&
		    h->state[tid] == TS_ALIVE && (!best || tid < best))
			best = tid;
	}
	closedir(d);
	return best;
}

/* Who created a task, as far as /proc can tell: a thread was made by some thread of
 * its own process (we take the leader, or another live thread once the leader has
 * exited), a process by its parent. */
int host_creator_of(struct ucg_host *h, const struct ucg_task_info *info, int ppid)
{
	int other;

	if (info->tid == info->tgid)
		return ppid;
	if (host_in_range(h, info->tgid) && h->state[info->tgid] == TS_ZOMBIE &&
	    (other = live_thread_of(h, info->tgid, info->tid)))
		return other;
	return info->tgid;
}

/* Adds a task found in /proc (not through a fork event) under creator, or in the
 * roots when creator is 0. */
void host_task_found(struct ucg_host *h, struct ucg_engine *e, struct ucg_task_info *info,
		       int creator, char state)
{
	int r = -ESRCH;

	if (creator)
		r = ucg_task_forked(e, creator, info);
	if (r < 0)
		r = ucg_task_add(e, info);
	if (r < 0)
		return;
	host_set_alive(h, info->tid, info->tgid);
	h->stats.found++;
	if (state == 'Z' || state == 'X')
		host_early_push(h, info->tid); /* after the placing: it may have made others */
}

/* The polled mode: a leader whose exit taskstats reported but that /proc shows alive,
 * not exiting, with its start time, is a process whose exec'ing thread took its pid
 * already (the exit was the old leader's): it lives on, taken over from that thread
 * if we know it, else as it was (a resync may have forgotten that thread, whose tid
 * /proc no longer lists). A leader that really exits is exiting or a zombie here
 * (PF_EXITING is set before taskstats reports). 1 if so. */
static int polled_swapped_already(struct ucg_host *h, struct ucg_engine *e,
				  const struct ucg_task_info *info)
{
	struct procfs_stat s;

	if (!h->no_events || info->tid != info->tgid || procfs_read_stat(info->tid, &s) < 0 ||
	    s.start_time != info->start_time || s.state == 'Z' || s.state == 'X' ||
	    (s.flags & PROCFS_PF_EXITING))
		return 0;
	leader_taken_over(h, e, info->tid);
	return 1;
}

/* Ends the tasks taskstats reported exited (their connector exit events may come
 * only after their parent has reaped them, and listed its cgroup) and the zombies a
 * scan found. */
void host_apply_early_exits(struct ucg_host *h, struct ucg_engine *e)
{
	size_t i;

	for (i = 0; i < h->nr_early; i++) {
		struct ucg_task_info info;
		int tid = h->early[i];

		if (h->state[tid] != TS_ALIVE || ucg_task_get_info(e, tid, &info) < 0)
			continue;
		if (polled_swapped_already(h, e, &info))
			continue;
		/* /proc's times are scaled to the exact runtime, taskstats' are not: charge
		 * whichever is more, as host_on_exit does */
		if (h->sample_cpu)
			cpu_sample_one(h, e, tid);
		exit_now(h, e, tid, info.tgid);
	}
	h->nr_early = 0;
}

/* The connector's fork event names the new task's real_parent: for a new process its
 * creator (or the creator's parent with CLONE_PARENT), but for a new thread the
 * parent of its process, not the thread that made it. A new thread is therefore
 * placed with its process's leader (the creating thread is not reported; in v1 the
 * threads of a process can sit in different cgroups, then this may differ). */
void host_on_fork(struct ucg_host *h, struct ucg_engine *e, const struct proc_event *ev)
{
	int child = ev->event_data.fork.child_pid, tgid = ev->event_data.fork.child_tgid;
	int creator = ev->event_data.fork.parent_pid;
	struct ucg_task_info info;
	struct procfs_stat s = { .state = 0 }; /* start_time 0: unknown */
	int r, gone = 0;

	if (!host_in_range(h, child))
		return;
	r = procfs_read_stat(child, &s);
	if (r == -ESRCH)
		gone = 1; /* exited and reaped already: its exit event follows */
	if (child != tgid) {
		struct ucg_task_info self = { .tid = child, .tgid = tgid };

		creator = host_creator_of(h, &self, 0);
	}
	if (h->state[child] != TS_UNKNOWN) {
		struct ucg_task_info old;

		if (s.start_time && ucg_task_get_info(e, child, &old) == 0 &&
		    old.start_time == s.start_time)
			return; /* found by a scan already */
		host_forget(h, e, child);
	}
	if (!host_in_range(h, creator) || h->state[creator] == TS_UNKNOWN ||
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
	info.start_time = s.start_time;
	r = ucg_task_forked(e, creator, &info);
	if (r < 0)
		r = ucg_task_add(e, &info);
	if (r < 0)
		return;
	host_set_alive(h, child, tgid);
	h->stats.forks++;
	/* Already dead: its exit event may come only after its parent has reaped it,
	 * so end it at the end of this drain, not now: the forks it made before dying
	 * are still to be read, and they must find it. */
	if (gone || s.state == 'Z' || s.state == 'X')
		host_early_push(h, child);
}

void host_refresh_cred(struct ucg_host *h, struct ucg_engine *e, int tid)
{
	struct ucg_task_info info;

	if (!host_in_range(h, tid) || h->state[tid] != TS_ALIVE)
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
	if (ucg_host_read_task(tgid, &info) < 0)
		return; /* gone again: its exit event follows */
	for (t = 1; t < h->pid_max && !execer; t++) {
		struct procfs_stat s;

		if (t == tgid || h->state[t] != TS_ALIVE || ucg_task_get_info(e, t, &t_info) < 0 ||
		    t_info.tgid != tgid || host_early_has(h, t))
			continue;
		/* The exec'ing thread now carries the leader's start time, and was made
		 * after that leader: an entry older than it belongs to an earlier process
		 * that had this pid (its exit never reached us), and taking it would move
		 * the process to wherever that stale thread sat. */
		if (t_info.start_time < info.start_time)
			continue;
		if (procfs_read_stat(t, &s) == 0 && s.start_time == t_info.start_time &&
		    s.state != 'Z' && s.state != 'X')
			continue; /* still itself */
		execer = t;
	}
	if (!execer)
		return; /* a resync sorts it out if it must */
	for (i = 0; i < h->nr_early; i++) /* the old leader's exit is not the new one's */
		if (h->early[i] == tgid)
			h->early[i] = 0;
	if (h->state[tgid] != TS_UNKNOWN)
		host_forget(h, e, tgid);
	if (ucg_task_forked(e, execer, &info) == 0 || ucg_task_add(e, &info) == 0) {
		host_set_alive(h, tgid, tgid);
	}
	ucg_task_exit(e, execer);
	host_forget(h, e, execer);
}

/* Without exec events (the polled mode) a non-leader's execve shows only in /proc:
 * a leader whose exit taskstats reported is there again, neither a zombie nor
 * exiting, with its start time (de_thread gave the exec'ing thread both). Re-create
 * it from that thread, as host_on_exec would. s: /proc/tgid/stat. 1 if it was. */
int host_polled_taken_over(struct ucg_host *h, struct ucg_engine *e, int tgid,
			   const struct procfs_stat *s)
{
	if (!h->no_events || h->state[tgid] != TS_ZOMBIE || !h->nthreads[tgid] || s->state == 'Z' ||
	    s->state == 'X' || (s->flags & PROCFS_PF_EXITING))
		return 0;
	leader_taken_over(h, e, tgid);
	return h->state[tgid] == TS_ALIVE;
}

void host_on_exec(struct ucg_host *h, struct ucg_engine *e, int pid)
{
	if (!host_in_range(h, pid))
		return;
	/* The old leader's exit, if another thread took its pid, was sent to taskstats
	 * before this event: read it now. */
	taskstats_drain(h, e);
	if (h->nthreads[pid] &&
	    (h->state[pid] == TS_ZOMBIE || (h->state[pid] == TS_ALIVE && host_early_has(h, pid))))
		leader_taken_over(h, e, pid);
	host_refresh_cred(h, e, pid);
}
