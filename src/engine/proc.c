/* engine/proc.c — the texts of /proc/PID/cgroup and /proc/cgroups (docs/kernel/core.md §9). */
#include "engine/cgroup.h"
#include "engine/hierarchy.h"
#include "engine/task.h"

#include <errno.h>

int ucg_proc_cgroup(struct ucg_engine *e, int pid, int thread, struct ucg_buf *out)
{
	struct ucg_task *t;
	struct ucg_hierarchy *order[UCG_MAX_HIERARCHIES], *h = NULL;
	int n = 0, i, j;

	/* A process forked a moment ago must be known: let the provider catch up. */
	if (e->cfg.provider && e->cfg.provider->sync)
		e->cfg.provider->sync(e->cfg.provider_ctx, e);
	t = ucg_task_find(e, pid);
	if (!t)
		return -ESRCH;
	/* Newest hierarchy first (descending id until ids wrap). */
	while ((h = ucg_hierarchy_next(e, h)))
		order[n++] = h;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && order[j - 1]->seq < order[j]->seq; j--) {
			h = order[j];
			order[j] = order[j - 1];
			order[j - 1] = h;
		}
	for (i = 0; i < n; i++) {
		h = order[i];
		ucg_buf_printf(out, "%d:", h->id);
		ucg_hierarchy_format_controllers(h, out);
		ucg_buf_putc(out, ':');
		/* An exited task (zombie) shows the root everywhere (§8). */
		ucg_cgroup_path(ucg_task_cgroup(t, h), out);
		ucg_buf_putc(out, '\n');
	}
	return ucg_buf_error(out);
}

int ucg_proc_cgroups(struct ucg_engine *e, struct ucg_buf *out)
{
	int i;

	ucg_buf_puts(out, "#subsys_name\thierarchy\tnum_cgroups\tenabled\n");
	for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
		struct ucg_hierarchy *h = ucg_subsys_hierarchy(e, i);
		/* An unbound controller sits on the (unmodelled) v2 root: 1 cgroup. */
		ucg_buf_printf(out, "%s\t%d\t%d\t1\n", ucg_subsys_table[i]->name, h ? h->id : 0,
			       h ? h->nr_cgroups : 1);
	}
	return ucg_buf_error(out);
}
