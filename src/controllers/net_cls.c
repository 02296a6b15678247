/* controllers/net_cls.c — the net_cls controller: a class id that tags the packets of
 * a cgroup's tasks for the traffic-control model (docs/kernel/controllers.md §7).
 *
 * Model. Each cgroup, the root included, has a 32-bit classid, written as U64 (decimal,
 * 0x hex, 0 octal) and truncated to 32 bits (0x100000000 reads 0), read in decimal. A
 * new child copies its parent's value once, at mkdir; later changes of the parent do
 * not reach existing children. The value 0xMMMMNNNN names tc class MMMM:NNNN (both
 * halves hex, as tc prints them: 0x00100001 is 10:1); 0 means "no class". The tc
 * model asks for a cgroup's classid with ucg_net_cls_classid_get().
 *
 * Limits: the kernel also re-tags the sockets the tasks already own when the file is
 * written and when a task moves; there are no sockets here, the classid is looked up
 * per task when the tc model classifies.
 */
#include "controllers/charge.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>

struct net_cls_css {
	struct ucg_css css;
	uint32_t classid; /* owned by net_cls.classid writes; copied at mkdir */
};

static struct net_cls_css *ncls_of(struct ucg_css *css)
{
	return (struct net_cls_css *)css;
}

static int net_cls_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	if (parent)
		ncls_of(css)->classid = ncls_of(parent)->classid;
	return 0;
}

int ucg_net_cls_classid_get(const struct ucg_cgroup *cg, uint32_t *ret)
{
	if (!cg->css[UCG_SS_net_cls])
		return -EINVAL;
	*ret = ncls_of(cg->css[UCG_SS_net_cls])->classid;
	return 0;
}

static uint64_t classid_read(struct ucg_of *of)
{
	uint32_t id = 0;

	ucg_net_cls_classid_get(of->cg, &id);
	return id;
}

static int classid_write(struct ucg_of *of, uint64_t v)
{
	ncls_of(of->css)->classid = (uint32_t)v;
	return 0;
}

static const struct ucg_cftype net_cls_files[] = {
	{ .name = "classid", .mode = 0644, .read_u64 = classid_read, .write_u64 = classid_write },
	{ 0 },
};

const struct ucg_subsys ucg_net_cls_subsys = {
	.name = "net_cls",
	.id = UCG_SS_net_cls,
	.css_size = sizeof(struct net_cls_css),
	.css_alloc = net_cls_css_alloc,
	.files = net_cls_files,
};
