/* ntc/cls_basic.c — the basic classifier: every packet matches.
 *
 * It yields its classid; basic's ematch expressions are not modelled.
 *
 * cls_basic is not built into the reference kernel, so its `show` lines follow
 * iproute2's printing code and were not compared with a live kernel.
 */
#include "ntc/sch.h"

static int basic_parse(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
		       struct ntc_err *err)
{
	return ntc_cls_parse_classid(f, argc, argv, err, "basic");
}

static int basic_classify(const struct ntc_filter *f, const struct ntc_qdisc *q,
			const struct ntc_pkt *p, uint32_t *ret)
{
	*ret = f->classid;
	return 1;
}

static void basic_dump(const struct ntc_filter *f, struct ucg_buf *b)
{
	ucg_buf_printf(b, "handle 0x%x ", f->handle);
	if (f->classid) {
		ucg_buf_puts(b, "flowid ");
		ntc_print_handle(b, f->classid);
		ucg_buf_putc(b, ' ');
	}
	ucg_buf_putc(b, '\n');
}

const struct ntc_cls_ops ntc_cls_basic_ops = {
	.kind = "basic",
	.parse = basic_parse,
	.classify = basic_classify,
	.dump = basic_dump,
};
