/* controllers/devices.c — the devices controller (docs/kernel/controllers.md §5).
 *
 * Model. Each cgroup holds one exception list (controllers/devices_rules.c): a
 * default behaviour, allow-all or deny-all, and exceptions matched by (type, major,
 * minor) with access bits r, w, m. A new child copies its parent's behaviour and
 * exceptions at mkdir (never again). devices.allow and devices.deny are write-only
 * (0200) and take one rule per write: "a" or "T MAJ:MIN ACC"; devices.list (0444)
 * prints "a *:* rwm\n" in allow-all mode, else one line per exception in the order
 * they were first added. A write needs CAP_SYS_ADMIN (EPERM otherwise), checked before
 * the text is parsed.
 *
 * Hierarchy. A child never allows what its parent does not (EPERM). A restriction
 * written anywhere is pushed at once to every descendant, walking the subtree in
 * pre-order so that each cgroup is trimmed against its already-trimmed parent;
 * relaxing is never pushed down. The walk, the reservation of every list that may
 * grow and the algebra itself are in devices_rules.c, so a refused or out-of-memory
 * write changes nothing anywhere.
 *
 * Access checks for tasks (open, mknod) use the task's own cgroup only:
 * ucg_devices_may_access() in charge.h.
 *
 * Limits: no locking (the engine is single-threaded); the walk is O(subtree) per
 * write, as in the kernel.
 */
#include "controllers/charge.h"
#include "controllers/devices_rules.h"
#include "engine/cgroup.h"
#include "engine/hierarchy.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>

struct devcg {
	struct ucg_css css;
	struct ucg_devrules rules; /* owned; changed only by writes to this cgroup or by
				    * an ancestor's restriction (propagation) */
};

static struct devcg *css_devcg(struct ucg_css *css)
{
	return ucg_container_of(css, struct devcg, css);
}

static struct devcg *cgroup_devcg(struct ucg_cgroup *cg)
{
	return css_devcg(cg->css[UCG_SS_devices]);
}

/* ---- the descendant walk handed to devices_rules ---------------------------------- */

struct walk_ctx {
	struct ucg_cgroup *top; /* the cgroup written; only its descendants are walked */
};

static struct ucg_cgroup *first_child(struct ucg_cgroup *cg)
{
	if (ucg_list_empty(&cg->children))
		return NULL;
	return ucg_container_of(cg->children.next, struct ucg_cgroup, sibling);
}

/* Pre-order successor of cg within top's subtree (top excluded), or NULL. */
static struct ucg_cgroup *preorder_next(struct ucg_cgroup *cg, struct ucg_cgroup *top)
{
	struct ucg_cgroup *c = first_child(cg);

	if (c)
		return c;
	while (cg != top) {
		if (cg->sibling.next != &cg->parent->children)
			return ucg_container_of(cg->sibling.next, struct ucg_cgroup, sibling);
		cg = cg->parent;
	}
	return NULL;
}

static struct ucg_devrules *walk_next(void *ctx, struct ucg_devrules *pos,
				      const struct ucg_devrules **ret_parent)
{
	struct walk_ctx *w = ctx;
	struct ucg_cgroup *cg;

	if (!pos)
		cg = preorder_next(w->top, w->top);
	else
		cg = preorder_next(ucg_container_of(pos, struct devcg, rules)->css.cgroup, w->top);
	if (!cg)
		return NULL;
	*ret_parent = &cgroup_devcg(cg->parent)->rules;
	return &cgroup_devcg(cg)->rules;
}

/* ---- life cycle ---------------------------------------------------------------------- */

static int devices_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	struct devcg *d = css_devcg(css);

	ucg_devrules_init(&d->rules);
	if (!parent)
		return 0; /* the root: allow-all, no exceptions */
	return ucg_devrules_copy(&d->rules, &css_devcg(parent)->rules);
}

static void devices_css_free(struct ucg_css *css)
{
	ucg_devrules_fini(&css_devcg(css)->rules);
}

/* ---- files --------------------------------------------------------------------------- */

static int devices_write(struct ucg_of *of, const char *buf, size_t len)
{
	struct devcg *d = css_devcg(of->css);
	struct ucg_cgroup *cg = of->cg;
	struct walk_ctx w = { cg };
	struct ucg_devrules_walk walk = { walk_next, &w };
	struct ucg_dev_rule rule;
	int r;

	if (!(of->cred.caps & UCG_CAP_SYS_ADMIN))
		return -EPERM;
	r = ucg_dev_rule_parse(buf, len, &rule);
	if (r < 0)
		return r;
	return ucg_devrules_write(&d->rules, cg->parent ? &cgroup_devcg(cg->parent)->rules : NULL,
				  (enum ucg_dev_file)of->cft->private, &rule,
				  cg->nr_children ? &walk : NULL);
}

static int devices_list_show(struct ucg_of *of, struct ucg_buf *out)
{
	return ucg_devrules_format(&css_devcg(of->css)->rules, out);
}

/* ---- charging API (charge.h) --------------------------------------------------------- */

int ucg_devices_rules_get(const struct ucg_cgroup *cg, const struct ucg_devrules **ret)
{
	if (!cg->css[UCG_SS_devices])
		return -EINVAL;
	*ret = &css_devcg(cg->css[UCG_SS_devices])->rules;
	return 0;
}

int ucg_devices_may_access(struct ucg_cgroup *cg, char type, uint32_t major, uint32_t minor,
			   unsigned access)
{
	unsigned dtype;

	if (type == 'b')
		dtype = UCG_DEV_BLOCK;
	else if (type == 'c')
		dtype = UCG_DEV_CHAR;
	else
		return -EINVAL;
	if (!cg)
		return 0; /* devices bound nowhere: the root allows everything */
	if (!cg->css[UCG_SS_devices])
		return -EINVAL;
	return ucg_devrules_may_access(&cgroup_devcg(cg)->rules, dtype, major, minor, access)
		       ? 0
		       : -EPERM;
}

/* ---- tables -------------------------------------------------------------------------- */

static const struct ucg_cftype devices_files[] = {
	{ .name = "allow", .mode = 0200, .write = devices_write, .private = UCG_DEV_FILE_ALLOW },
	{ .name = "deny", .mode = 0200, .write = devices_write, .private = UCG_DEV_FILE_DENY },
	{ .name = "list", .mode = 0444, .show = devices_list_show },
	{ 0 },
};

const struct ucg_subsys ucg_devices_subsys = {
	.name = "devices",
	.id = UCG_SS_devices,
	.css_size = sizeof(struct devcg),
	.css_alloc = devices_css_alloc,
	.css_free = devices_css_free,
	.files = devices_files,
};
