/* ntc/cls_matchall.c — the matchall classifier: every packet matches.
 *
 * It yields its classid; hardware offload is not modelled (`show` says not_in_hw).
 *
 * cls_matchall is not built into the reference kernel, so its `show` lines follow
 * iproute2's printing code and were not compared with a live kernel.
 */
#include "ntc/sch.h"

static int matchall_parse(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
			  struct ntc_err *err)
{
	/* its errors name "basic", as they did when the two shared one parser */
	return ntc_cls_parse_classid(f, argc, argv, err, "basic");
}

static int matchall_classify(const struct ntc_filter *f, const struct ntc_qdisc *q,
			const struct ntc_pkt *p, uint32_t *ret)
{
	*ret = f->classid;
	return 1;
}

static void matchall_dump(const struct ntc_filter *f, struct ucg_buf *b)
{
	ucg_buf_printf(b, "handle 0x%x ", f->handle);
	if (f->classid) {
		ucg_buf_puts(b, "flowid ");
		ntc_print_handle(b, f->classid);
		ucg_buf_putc(b, ' ');
	}
	ucg_buf_puts(b, "\n  not_in_hw\n");
}

const struct ntc_cls_ops ntc_cls_matchall_ops = {
	.kind = "matchall",
	.parse = matchall_parse,
	.classify = matchall_classify,
	.dump = matchall_dump,
};
