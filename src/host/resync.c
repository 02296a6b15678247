/* host/resync.c — the host provider's resynchronisation from /proc: the first scan,
 * the rescan after lost events, and the reap check of exited leaders.
 *
 * A rescan compares every /proc/PID/task/TID with the table by (tid, start time):
 * vanished tasks are exited and reaped, unknown ones are added under their creator
 * (same process: the leader; otherwise the parent process), creators first.
 */
#include "host/host_impl.h"
#include "host/procfs.h"

#include "base/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	int creator = host_creator_of(h, &p->info, p->ppid);

	if (creator && (!host_in_range(h, creator) || h->state[creator] == TS_UNKNOWN) &&
	    p->info.tid == p->info.tgid) {
		struct procfs_stat s;

		if (procfs_read_stat(p->info.tid, &s) < 0 || s.start_time != p->info.start_time)
			return; /* gone: the scan's view of it is already out of date */
		creator = s.ppid;
	}
	if (creator && (!host_in_range(h, creator) || h->state[creator] == TS_UNKNOWN)) {
		h->lost = 1;
		return;
	}
	host_task_found(h, e, &p->info, creator, p->state);
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
			int c = host_creator_of(h, &p->info, p->ppid);

			if (h->seen[p->info.tid] != 2)
				continue;
			if (c != p->info.tid && host_in_range(h, c) && h->seen[c] == 2)
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

/* Compares /proc's task tid with the table: a known task with its start time stays
 * (a zombie's exit is queued), a reused tid forgets the old task, an unknown one is
 * added (initial) or queued for placing. 0, or -ESRCH when /proc has no tid. */
static int scan_tid(struct ucg_host *h, struct ucg_engine *e, int tid, int initial)
{
	struct ucg_task_info info, old;
	struct procfs_stat s;

	if (procfs_read_stat(tid, &s) < 0)
		return -ESRCH;
	h->seen[tid] = 1;
	if (h->state[tid] != TS_UNKNOWN) {
		if (ucg_task_get_info(e, tid, &old) == 0 && old.start_time == s.start_time) {
			if (h->state[tid] == TS_ALIVE && (s.state == 'Z' || s.state == 'X'))
				host_early_push(h, tid); /* after the placing */
			return 0;
		}
		/* A reused tid: the one we knew is gone. */
		host_forget(h, e, tid);
	}
	if (ucg_host_read_task(tid, &info) < 0) {
		h->seen[tid] = 0;
		return -ESRCH;
	}
	/* Unknown and already exiting (its taskstats message may have come and gone as
	 * that of an unknown tid): it ends as soon as it is placed. Added alive, it would
	 * stay in the table after its release, and the polled mode's count would take it
	 * for a task it has not seen (host.c). */
	if ((s.flags & PROCFS_PF_EXITING) && s.state != 'Z')
		s.state = 'X';
	if (initial)
		host_task_found(h, e, &info, 0, s.state);
	else
		pend_push(h, &info, s.ppid, s.state);
	return 0;
}

int host_scan(struct ucg_host *h, struct ucg_engine *e, int initial)
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
			int tid = atoi(te->d_name);

			if (host_in_range(h, tid))
				scan_tid(h, e, tid, initial);
		}
		closedir(td);
	}
	closedir(d);
	place_pending(h, e);
	return 0;
}

/* /proc/TID answers for a thread too (it is only missing from /proc's listing), so
 * each tid allocated since the last scan is one read of its stat, or a failed open
 * for one that has already gone. */
int host_probe_new(struct ucg_host *h, struct ucg_engine *e, int from, int to)
{
	int tid = from;

	if (!host_in_range(h, from) || !host_in_range(h, to))
		return -ERANGE;
	h->nr_pend = 0;
	while (tid != to) {
		tid = tid + 1 < h->pid_max ? tid + 1 : 1;
		scan_tid(h, e, tid, 0);
	}
	place_pending(h, e);
	h->stats.probes++;
	return 0;
}

/* A resynchronisation after lost events.
 *
 * Why a storm of lost events once lost or kept a process, and what closes it:
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
	r = host_scan(h, e, 0);
	if (r < 0)
		return r;
	/* Without exec events, the exits, then the exited leaders, before the tasks /proc
	 * no longer lists are forgotten: a leader whose exit taskstats reported may be
	 * alive again, taken over by an exec'ing thread that is among those
	 * (host_polled_taken_over). With events, host_on_exec does that. */
	if (h->no_events) {
		host_apply_early_exits(h, e);
		host_reap_gone(h, e);
	}
	for (tid = 1; tid < h->pid_max; tid++)
		if (h->state[tid] != TS_UNKNOWN && !h->seen[tid])
			host_forget(h, e, tid);
	host_apply_early_exits(h, e);
	for (i = j = 0; i < h->nr_zombies; i++)
		if (h->state[h->zombies[i]] == TS_ZOMBIE)
			h->zombies[j++] = h->zombies[i];
	h->nr_zombies = j;
	h->stats.resyncs++;
	return 0;
}

void host_reap_gone(struct ucg_host *h, struct ucg_engine *e)
{
	size_t i, j;

	for (i = j = 0; i < h->nr_zombies; i++) {
		int tid = h->zombies[i];
		struct ucg_task_info old;
		struct procfs_stat s;

		if (h->state[tid] != TS_ZOMBIE)
			continue;
		if (procfs_read_stat(tid, &s) == 0 && ucg_task_get_info(e, tid, &old) == 0 &&
		    old.start_time == s.start_time) {
			if (!host_polled_taken_over(h, e, tid, &s))
				h->zombies[j++] = tid; /* still a zombie (or other threads run) */
			continue;
		}
		host_forget(h, e, tid);
	}
	h->nr_zombies = j;
}

void ucg_host_reap_check(struct ucg_host *h, struct ucg_engine *e)
{
	if (h->lost) /* a resync left a task for later: do not wait for an event */
		ucg_host_drain(h, e);
	host_reap_gone(h, e);
}
