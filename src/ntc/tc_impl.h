/* ntc/tc_impl.h — what the tc command's two files share: tc.c holds the grammar
 * (options, objects and verbs, add/change/replace/delete of qdiscs, classes and
 * filters), tc_show.c the listings in tc's output format. Private to src/ntc/tc*.c.
 */
#ifndef UCG_NTC_TC_IMPL_H
#define UCG_NTC_TC_IMPL_H

#include "ntc/sch.h"

/* One command's context: the model, where output and warnings go, the error. */
struct tc_ctx {
	struct ntc *n;
	struct ucg_buf *out, *warn;
	struct ntc_err *err;
	bool stats, details;
};

#define INCOMPLETE(e) \
	ntc_err_set(e, 255, -EINVAL, "Command line is not complete. Try option \"help\"")

#define INCOMPLETE(e) \
	ntc_err_set(e, 255, -EINVAL, "Command line is not complete. Try option \"help\"")

/* tc qdisc|class|filter show ARGS: 0 or -errno with c->err set as tc reports it. */
int tc_qdisc_show(struct tc_ctx *c, int argc, char **argv);
int tc_class_show(struct tc_ctx *c, int argc, char **argv);
int tc_filter_show(struct tc_ctx *c, int argc, char **argv);

/* The chain of filters parent addresses on d, and its qdisc; -errno with the kernel's
 * message in e (which may be NULL) when there is none. */
int tc_filter_chain(struct ntc_dev *d, uint32_t parent, struct ntc_qdisc **ret_q,
		    struct ntc_filter ***ret_chain, struct ntc_err *e);
/* tc's name for an ethernet protocol id, or NULL if it has none. */
const char *tc_proto_name(uint16_t id);

#endif
