/* ntc/cls_simple.c — the classifiers that need no tables: cgroup, fw, basic, matchall.
 *
 * cgroup: the packet's net_cls classid (filled by the caller from the sending
 * socket), used whole as the class id: 0x00010010 → 1:10; 0 → no match. The major
 * is not replaced by the qdisc's. A handle is required; one per preference.
 * fw: the element with handle H (mask M, default all ones) matches when
 * (mark & M) == H and yields its classid; without a classid the mark itself is the
 * class id when its major is 0 (taken as the qdisc's) or equals the qdisc's.
 * basic and matchall: match every packet (basic's ematch expressions are not
 * modelled) and yield their classid.
 *
 * None of these four is built into the reference kernel, so their `show` lines
 * follow iproute2's printing code and were not compared with a live kernel.
 */
#include "ntc/sch.h"

#include <string.h>

static int classid_parse(struct ntc_filter *f, int argc, char **argv, struct ntc_err *err,
			 const char *kind, bool allow_none)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "classid") || !strcmp(argv[i], "flowid")) {
			if (++i >= argc)
				return ntc_err_set(err, 255, -EINVAL,
						   "Command line is not complete. Try option \"help\"");
			if (ntc_get_handle(argv[i], &f->classid) < 0)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"classid\"");
		} else {
			return ntc_err_set(err, 1, -EINVAL, "%s: unknown parameter \"%s\"", kind,
					   argv[i]);
		}
	}
	return 0;
}

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

static int fw_parse(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
		    struct ntc_err *err)
{
	f->ht = 0xFFFFFFFFu; /* mask, replaced by the caller for "handle H/M" */
	return classid_parse(f, argc, argv, err, "fw", true);
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

static int all_parse(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
		     struct ntc_err *err)
{
	return classid_parse(f, argc, argv, err, "basic", false);
}

static int all_classify(const struct ntc_filter *f, const struct ntc_qdisc *q,
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

const struct ntc_cls_ops ntc_cls_basic_ops = {
	.kind = "basic",
	.parse = all_parse,
	.classify = all_classify,
	.dump = basic_dump,
};

const struct ntc_cls_ops ntc_cls_matchall_ops = {
	.kind = "matchall",
	.parse = all_parse,
	.classify = all_classify,
	.dump = matchall_dump,
};
