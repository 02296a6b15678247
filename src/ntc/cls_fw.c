/* ntc/cls_fw.c — the fw classifier: by the packet's firewall mark.
 *
 * The element with handle H (mask M, default all ones) matches when (mark & M) == H
 * and yields its classid; without a classid the mark itself is the class id when its
 * major is 0 (taken as the qdisc's) or equals the qdisc's.
 *
 * cls_fw is not built into the reference kernel, so its `show` lines follow
 * iproute2's printing code and were not compared with a live kernel.
 */
#include "ntc/sch.h"

static int fw_parse(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
		    struct ntc_err *err)
{
	f->ht = 0xFFFFFFFFu; /* mask, replaced by the caller for "handle H/M" */
	return ntc_cls_parse_classid(f, argc, argv, err, "fw");
}

static int fw_classify(const struct ntc_filter *f, const struct ntc_qdisc *q,
		       const struct ntc_pkt *p, uint32_t *ret)
{
	if (f->handle) {
		if ((p->mark & f->ht) != f->handle)
			return 0;
		if (f->classid) {
			*ret = f->classid;
			return 1;
		}
	}
	if (!p->mark)
		return 0;
	if (NTC_H_MAJ(p->mark) && NTC_H_MAJ(p->mark) != q->handle)
		return 0;
	*ret = NTC_H_MAKE(q->handle, p->mark);
	return 1;
}

static void fw_dump(const struct ntc_filter *f, struct ucg_buf *b)
{
	ucg_buf_printf(b, "handle 0x%x", f->handle);
	if (f->ht != 0xFFFFFFFFu)
		ucg_buf_printf(b, "/0x%x", f->ht);
	ucg_buf_putc(b, ' ');
	if (f->classid) {
		ucg_buf_puts(b, "classid ");
		ntc_print_handle(b, f->classid);
		ucg_buf_putc(b, ' ');
	}
	ucg_buf_putc(b, '\n');
}

const struct ntc_cls_ops ntc_cls_fw_ops = {
	.kind = "fw",
	.parse = fw_parse,
	.classify = fw_classify,
	.dump = fw_dump,
};
