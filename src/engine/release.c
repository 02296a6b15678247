/* engine/release.c — when the kernel would run the release agent.
 *
 * A cgroup is releasable when notify_on_release is 1, it has no live task, no child
 * and has not been removed. The kernel tests this only when the cgroup loses its last
 * task and when one of its children is removed, and then runs the agent
 * asynchronously, once per pending work item. We queue the cgroup (holding a
 * reference, once even if triggered twice before it is consumed) and compute the
 * path and read the agent only when the front end pops it, as the kernel's work item
 * does: a rename in between passes the new name.
 */
#include "engine/release.h"
#include "base/alloc.h"
#include "engine/cgroup.h"

#include <errno.h>
#include <string.h>

void ucg_release_check(struct ucg_cgroup *cg)
{
	struct ucg_engine *e = cg->h->e;
	struct ucg_release_req *req;

	if (!cg->notify_on_release || ucg_cgroup_populated(cg) || cg->nr_children ||
	    cg->removed || cg->release_queued)
		return;
	req = ucg_calloc(1, sizeof(*req));
	if (!req)
		return; /* like a failed schedule_work: the notification is lost */
	req->cg = cg;
	ucg_cgroup_get(cg);
	cg->release_queued = 1;
	ucg_list_add_tail(&e->releases, &req->node);
	if (e->cfg.provider && e->cfg.provider->release_queued)
		e->cfg.provider->release_queued(e->cfg.provider_ctx, e);
}

static void drop(struct ucg_release_req *req)
{
	ucg_list_del(&req->node);
	req->cg->release_queued = 0;
	ucg_cgroup_put(req->cg);
	ucg_free(req);
}

int ucg_release_next(struct ucg_engine *e, struct ucg_release *ret)
{
	while (!ucg_list_empty(&e->releases)) {
		struct ucg_release_req *req =
			ucg_container_of(e->releases.next, struct ucg_release_req, node);
		struct ucg_hierarchy *h = req->cg->h;
		struct ucg_buf path;
		char *agent;

		if (h->dead || !h->release_agent[0]) {
			drop(req);
			continue;
		}
		ucg_buf_init(&path);
		ucg_cgroup_path(req->cg, &path);
		agent = ucg_strdup(h->release_agent);
		if (ucg_buf_error(&path) || !agent) {
			ucg_buf_fini(&path);
			ucg_free(agent);
			return -ENOMEM; /* the request stays queued */
		}
		ret->hierarchy_id = h->id;
		ret->agent = agent;
		ret->path = ucg_buf_steal(&path, NULL);
		drop(req);
		/* The kernel does not run an agent for a path of PATH_MAX or more. */
		if (strlen(ret->path) >= UCG_PATH_MAX) {
			ucg_release_fini(ret);
			continue;
		}
		return 1;
	}
	return 0;
}

void ucg_release_fini(struct ucg_release *r)
{
	if (!r)
		return;
	ucg_free(r->agent);
	ucg_free(r->path);
	r->agent = r->path = NULL;
}

void ucg_release_flush(struct ucg_engine *e)
{
	while (!ucg_list_empty(&e->releases))
		drop(ucg_container_of(e->releases.next, struct ucg_release_req, node));
}
