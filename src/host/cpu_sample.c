/* host/cpu_sample.c — real CPU times charged to cpuacct.
 *
 * Every sample reads each live task's utime and stime (clock ticks,
 * /proc/TGID/task/TID/stat fields 14 and 15: the thread's own; /proc/TID/stat holds
 * the whole thread group's, which counted a process's time once per thread) and the
 * CPU it last ran on (field 39), and charges what was not charged yet to the task's
 * cpuacct cgroup on that CPU. A task's last times come at
 * its exit: from taskstats' exit message (taskstats.c) and a last read of /proc,
 * whichever is more. Sampling starts with the first ucg_host_sample_cpu.
 */
#include "host/host_impl.h"
#include "host/procfs.h"

#include "controllers/charge.h"

/* Charges the part of (user_ns, sys_ns), tid's total CPU times, not charged yet. */
void cpu_sample_charge(struct ucg_host *h, struct ucg_engine *e, int tid, uint64_t user_ns,
		       uint64_t sys_ns)
{
	uint64_t du = user_ns > h->cpu_user[tid] ? user_ns - h->cpu_user[tid] : 0;
	uint64_t ds = sys_ns > h->cpu_sys[tid] ? sys_ns - h->cpu_sys[tid] : 0;
	struct ucg_cgroup *cg;

	if (!du && !ds)
		return;
	if (ucg_task_subsys_cgroup(e, tid, UCG_SS_cpuacct, &cg) == 0 &&
	    ucg_cpuacct_charge(cg, h->cpu_last[tid], du, ds) == 0) {
		h->cpu_user[tid] += du;
		h->cpu_sys[tid] += ds;
	}
}

/* Charges tid's CPU time since the last sample (utime, stime: the thread's own stat
 * fields 14, 15; the cpu it last ran on: field 39) to its cpuacct cgroup. */
void cpu_sample_one(struct ucg_host *h, struct ucg_engine *e, int tid)
{
	struct ucg_task_info info;
	struct procfs_stat s;

	if (ucg_task_get_info(e, tid, &info) < 0 ||
	    procfs_read_task_stat(info.tgid, tid, &s) < 0 || s.processor < 0)
		return;
	h->cpu_last[tid] = (uint16_t)s.processor;
	cpu_sample_charge(h, e, tid, s.utime * h->tick_ns, s.stime * h->tick_ns);
}

void ucg_host_sample_cpu(struct ucg_host *h, struct ucg_engine *e)
{
	int tid;

	h->sample_cpu = 1;
	taskstats_drain(h, e);
	for (tid = 1; tid < h->pid_max; tid++)
		if (h->state[tid] == TS_ALIVE)
			cpu_sample_one(h, e, tid);
}
