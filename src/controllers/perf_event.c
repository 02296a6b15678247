/* controllers/perf_event.c — the perf_event controller: membership only
 * (docs/kernel/controllers.md §10).
 *
 * Model. perf_event has no control files of its own; a cgroup of its hierarchy is
 * only a set of tasks. On the kernel, the cgroup directory's fd is the target of
 * perf_event_open(..., PERF_FLAG_PID_CGROUP) and an event then counts while a task of
 * that cgroup (or of a descendant) runs on the chosen CPU. Here the directory, the
 * core files and the membership (cgroup.procs, tasks, /proc/PID/cgroup) are all there
 * is: a front end that wants to count per cgroup asks the engine which cgroup a task
 * is in, which the core already answers.
 *
 * Limits: no event counting is modelled.
 */
#include "engine/subsys.h"

/* The controller's state: the bare css (no fields of its own). */

static const struct ucg_cftype perf_event_files[] = {
	{ 0 },
};

const struct ucg_subsys ucg_perf_event_subsys = {
	.name = "perf_event",
	.id = UCG_SS_perf_event,
	.css_size = sizeof(struct ucg_css),
	.files = perf_event_files,
};
