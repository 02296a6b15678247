/* host/host_impl.h — the host provider's state and what its files call in one another
 * (host.c says which file holds what). Private to src/host.
 */
#ifndef UCG_HOST_HOST_IMPL_H
#define UCG_HOST_HOST_IMPL_H

#include "host/host.h"

#include <linux/cn_proc.h>
#include <stddef.h>
#include <stdint.h>

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

/* A task a resync found in /proc and did not know. */
struct pending {
	struct ucg_task_info info;
	int ppid;
	char state;
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
	int no_events;      /* the kernel sends no process events: /proc is read at drains */
	/* The polled mode's cheap check (host.c, "none"): /proc/loadavg kept open, the
	 * last pid and the task count it showed when /proc was last read, and how many
	 * tids the table knows (alive or awaiting reap). */
	int loadavg_fd;     /* -1: no check, every drain rescans */
	int last_pid;       /* 0: not read yet */
	uint64_t nr_known;  /* tids whose state is not TS_UNKNOWN */
	int draining;       /* guards against the sync callback re-entering */
	struct ucg_host_stats stats;
	struct cred_slot creds[CRED_SLOTS];
	char buf[65536] __attribute__((aligned(8))); /* one connector datagram batch */
};

static inline int host_in_range(const struct ucg_host *h, int tid)
{
	return tid > 0 && tid < h->pid_max;
}

/* ---- table.c ---- */

/* tid (of process tgid) is alive in the table from now on. */
void host_set_alive(struct ucg_host *h, int tid, int tgid);
/* tid leaves the table and the engine (reaped). */
void host_forget(struct ucg_host *h, struct ucg_engine *e, int tid);
/* Queues tid's exit for host_apply_early_exits. */
void host_early_push(struct ucg_host *h, int tid);
/* Whether tid's exit is queued. */
int host_early_has(const struct ucg_host *h, int tid);
/* Who created a task, as far as /proc can tell (a thread: a thread of its process;
 * a process: ppid). */
int host_creator_of(struct ucg_host *h, const struct ucg_task_info *info, int ppid);
/* Adds a task found in /proc (not through a fork event) under creator, or in the
 * roots when creator is 0; state is its stat state (a zombie ends at once). */
void host_task_found(struct ucg_host *h, struct ucg_engine *e, struct ucg_task_info *info,
		     int creator, char state);
/* Ends the tasks taskstats reported exited and the zombies a scan found. */
void host_apply_early_exits(struct ucg_host *h, struct ucg_engine *e);
/* The connector's events, applied to the table and the engine. */
void host_on_fork(struct ucg_host *h, struct ucg_engine *e, const struct proc_event *ev);
void host_on_exit(struct ucg_host *h, struct ucg_engine *e, int tid, int tgid);
void host_on_exec(struct ucg_host *h, struct ucg_engine *e, int pid);
void host_refresh_cred(struct ucg_host *h, struct ucg_engine *e, int tid);

/* ---- resync.c ---- */

/* Reads every /proc/PID/task/TID: initial adds what it finds at once (the first
 * scan), otherwise unknown tasks are placed creators first. 0 or -errno. */
int host_scan(struct ucg_host *h, struct ucg_engine *e, int initial);
/* Reads /proc/TID for each tid in (from, to], wrapping past pid_max to 1: the tids
 * allocated since a scan that saw last pid `from`. Unknown tasks are placed creators
 * first, as by a rescan. 0 or -errno. */
int host_probe_new(struct ucg_host *h, struct ucg_engine *e, int from, int to);

/* Forgets the exited leaders whose /proc entry is gone or belongs to a newer task
 * (reaped); in the polled mode revives those an exec'ing thread took over (see
 * host_polled_taken_over). O(zombies in the table). */
void host_reap_gone(struct ucg_host *h, struct ucg_engine *e);

/* ---- table.c, the polled mode ---- */
struct procfs_stat;
/* An exited leader that /proc (s) shows alive again with its start time: a
 * non-leader execve took its pid; re-created from that thread. 1 if it was. */
int host_polled_taken_over(struct ucg_host *h, struct ucg_engine *e, int tgid,
			   const struct procfs_stat *s);

/* ---- connector.c ---- */

/* Opens the connector socket and subscribes to process events: 0 or -errno. */
int connector_open(int *ret);
/* Applies every event queued on the connector; notes a loss in h->lost. Returns the
 * number of events applied. */
int connector_drain(struct ucg_host *h, struct ucg_engine *e);
/* Whether process events come at all (a fork's event within timeout_ms), read with
 * buf as scratch: 1, 0, or -errno. Drops what it reads: call before the first scan. */
int connector_probe(int fd, char *buf, size_t size, int timeout_ms);
/* Walks the netlink messages of one datagram of len bytes (aligned as recv leaves
 * it) and calls fn for each process event in it; messages of other connectors,
 * NOOP/ERROR messages and ones too short for an event are skipped. Returns the
 * number of events passed to fn. */
int connector_parse(const void *buf, size_t len,
		    void (*fn)(void *ctx, const struct proc_event *ev), void *ctx);

/* ---- taskstats.c ---- */

/* Subscribes h->ts_fd to every CPU's exit statistics; leaves it -1 on failure. */
void taskstats_open(struct ucg_host *h);
/* Reads every queued exit message: charges the exited tasks' last CPU time and
 * queues their exits (host_early_push). */
void taskstats_drain(struct ucg_host *h, struct ucg_engine *e);

/* ---- cpu_sample.c ---- */

/* Charges the part of (user_ns, sys_ns), tid's total CPU times, not charged yet. */
void cpu_sample_charge(struct ucg_host *h, struct ucg_engine *e, int tid, uint64_t user_ns,
		       uint64_t sys_ns);
/* Charges tid's CPU time since the last sample, read from /proc/TID/stat. */
void cpu_sample_one(struct ucg_host *h, struct ucg_engine *e, int tid);

/* ---- cred_cache.c ---- */

/* Drops tid's cached credentials (an event changed them or ended it). */
void cred_cache_forget(struct ucg_host *h, int tid);

#endif
