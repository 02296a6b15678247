/* engine/engine.c — creating and destroying an engine; credentials; errno texts. */
#include "base/alloc.h"
#include "engine/css_set.h"
#include "engine/event.h"
#include "engine/hierarchy.h"
#include "engine/release.h"
#include "engine/task.h"

#include <errno.h>
#include <string.h>

int ucg_engine_new(const struct ucg_engine_config *cfg, struct ucg_engine **ret)
{
	struct ucg_engine *e = ucg_calloc(1, sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	if (cfg)
		e->cfg = *cfg;
	if (!e->cfg.nr_cpus)
		e->cfg.nr_cpus = 1;
	if (!e->cfg.nr_mems)
		e->cfg.nr_mems = 1;
	ucg_list_init(&e->hierarchies);
	ucg_list_init(&e->cset_list);
	ucg_list_init(&e->releases);
	ucg_list_init(&e->events_pending);
	ucg_htable_init(&e->csets);
	ucg_htable_init(&e->tasks);
	ucg_htable_init(&e->tgroups);
	ucg_slab_init(&e->slab);
	r = ucg_css_set_init_empty(e);
	if (r < 0) {
		ucg_htable_fini(&e->csets);
		ucg_free(e);
		return r;
	}
	*ret = e;
	return 0;
}

void ucg_engine_free(struct ucg_engine *e)
{
	if (!e)
		return;
	/* Tasks first, so no css_set pins a cgroup; then the trees; then what they queued. */
	ucg_task_table_fini(e);
	ucg_hierarchy_destroy_all(e);
	ucg_release_flush(e);
	ucg_event_flush(e);
	ucg_css_set_put(e, e->empty_cset);
	ucg_htable_fini(&e->csets);
	ucg_slab_fini(&e->slab); /* last: every cgroup and css was carved from it */
	ucg_free(e);
}

struct ucg_cred ucg_cred_root(void)
{
	struct ucg_cred c;

	memset(&c, 0, sizeof(c));
	c.caps = UCG_CAP_ALL;
	return c;
}

struct ucg_cred ucg_cred_user(uint32_t uid, uint32_t gid)
{
	struct ucg_cred c;

	memset(&c, 0, sizeof(c));
	c.uid = c.euid = c.suid = c.fsuid = uid;
	c.gid = c.egid = c.sgid = c.fsgid = gid;
	return c;
}

const char *ucg_strerror(int negative_errno)
{
	return strerror(-negative_errno);
}
