/* engine/core_files.c — the files every v1 cgroup has (docs/kernel/core.md §2, §6, §10.3).
 *
 *   cgroup.procs, tasks          0644  member ids; a write attaches one process/thread
 *   notify_on_release            0644  boolean (U64 class)
 *   cgroup.clone_children        0644  boolean (U64 class)
 *   release_agent         root   0644  the hierarchy's agent; CAP_SYS_ADMIN to write
 *   cgroup.sane_behavior  root   0444  always 0
 */
#include "engine/cgroup.h"
#include "engine/hierarchy.h"
#include "engine/task.h"
#include "base/alloc.h"
#include "base/kctype.h"
#include "base/parse.h"

#include <errno.h>
#include <string.h>

static int procs_show(struct ucg_of *of, struct ucg_buf *out)
{
	int r = ucg_task_list(of->e, of->cg, (int)of->cft->private, out);

	return r < 0 ? r : 0;
}

static int procs_write(struct ucg_of *of, const char *buf, size_t len)
{
	int pid, r;

	r = ucg_parse_pid(buf, len, &pid);
	if (r < 0)
		return r;
	return ucg_attach_pid(of->e, of->cg, pid, (int)of->cft->private, &of->cred);
}

static int notify_show(struct ucg_of *of, struct ucg_buf *out)
{
	ucg_buf_printf(out, "%d\n", of->cg->notify_on_release);
	return 0;
}

static int notify_write(struct ucg_of *of, uint64_t v)
{
	of->cg->notify_on_release = v != 0;
	return 0;
}

static int clone_show(struct ucg_of *of, struct ucg_buf *out)
{
	ucg_buf_printf(out, "%d\n", of->cg->clone_children);
	return 0;
}

static int clone_write(struct ucg_of *of, uint64_t v)
{
	of->cg->clone_children = v != 0;
	return 0;
}

static int agent_show(struct ucg_of *of, struct ucg_buf *out)
{
	ucg_buf_printf(out, "%s\n", of->cg->h->release_agent);
	return 0;
}

static int agent_write(struct ucg_of *of, const char *buf, size_t len)
{
	struct ucg_hierarchy *h = of->cg->h;
	char *v;

	/* 6.x: CAP_SYS_ADMIN of the opener in the initial user namespace, whatever the
	 * file mode says. */
	if (!(of->cred.caps & UCG_CAP_SYS_ADMIN))
		return -EPERM;
	ucg_kstrip(&buf, &len);
	v = ucg_strndup(buf, len);
	if (!v)
		return -ENOMEM;
	ucg_free(h->release_agent);
	h->release_agent = v;
	return 0;
}

static int sane_show(struct ucg_of *of, struct ucg_buf *out)
{
	ucg_buf_puts(out, "0\n");
	return 0;
}

const struct ucg_cftype ucg_core_files[] = {
	{
		.name = "cgroup.procs",
		.mode = 0644,
		.show = procs_show,
		.write = procs_write,
		.private = 1,
	},
	{
		.name = "tasks",
		.mode = 0644,
		.show = procs_show,
		.write = procs_write,
		.private = 0,
	},
	{
		.name = "notify_on_release",
		.mode = 0644,
		.show = notify_show,
		.write_u64 = notify_write,
	},
	{
		.name = "cgroup.clone_children",
		.mode = 0644,
		.show = clone_show,
		.write_u64 = clone_write,
	},
	{
		.name = "release_agent",
		.flags = UCG_CFT_ONLY_ON_ROOT,
		.mode = 0644,
		.max_write_len = UCG_PATH_MAX - 1,
		.show = agent_show,
		.write = agent_write,
	},
	{
		.name = "cgroup.sane_behavior",
		.flags = UCG_CFT_ONLY_ON_ROOT,
		.mode = 0444,
		.show = sane_show,
	},
	{ 0 },
};
