/* ntc/cls_cgroup.c — the cgroup classifier.
 *
 * The packet's net_cls classid (filled by the caller from the sending socket), used
 * whole as the class id: 0x00010010 → 1:10; 0 → no match. The major is not replaced
 * by the qdisc's. A handle is required; one per preference.
 *
 * cls_cgroup is not built into the reference kernel, so its `show` lines follow
 * iproute2's printing code and were not compared with a live kernel.
 */
#include "ntc/sch.h"

static int cgroup_parse(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
			struct ntc_err *err)
{
	if (argc)
		return ntc_err_set(err, 1, -EINVAL, "What is \"%s\"?", argv[0]);
	return 0;
}

static int cgroup_classify(const struct ntc_filter *f, const struct ntc_qdisc *q,
			   const struct ntc_pkt *p, uint32_t *ret)
{
	if (!p->classid)
		return 0;
	*ret = p->classid;
	return 1;
}

static void cgroup_dump(const struct ntc_filter *f, struct ucg_buf *b)
{
	ucg_buf_printf(b, "handle 0x%x \n", f->handle);
}

const struct ntc_cls_ops ntc_cls_cgroup_ops = {
	.kind = "cgroup",
	.parse = cgroup_parse,
	.classify = cgroup_classify,
	.dump = cgroup_dump,
	.needs_handle = true,
};
