/* ntc/sch_fifo.c — pfifo, bfifo and pfifo_head_drop: the plain first-in first-out
 * queues.
 *
 * Model: one queue, dequeue from the head. The limit is in packets for pfifo and
 * pfifo_head_drop and in bytes for bfifo; by default it is the device queue length,
 * times (MTU + link header) for bfifo (1000 x 1514 = 1514000 bytes on Ethernet).
 * pfifo drops an arriving packet when qlen >= limit; bfifo when backlog + len > limit;
 * pfifo_head_drop drops the oldest packet instead and queues the new one (one drop,
 * "congestion" to the caller), or everything when the limit is 0.
 *
 * A change keeps the queue and only sets the new limit (no trimming, as the kernel).
 * tc parses the limit with its size parser for all three kinds, so "limit 1k" is 1024.
 */
#include "ntc/sch.h"

#include <stdio.h>
#include <string.h>

struct fifo_priv {
	struct ntc_fifo f;
	uint32_t limit;
};

struct fifo_opt {
	bool has_limit;
	uint32_t limit;
};

static const char fifo_usage[] = "Usage: ... <[p|b]fifo | pfifo_head_drop> [ limit NUMBER ]";

static int fifo_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err,
		      const char *kind)
{
	struct fifo_opt *opt = o;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "limit")) {
			if (++i >= argc)
				return ntc_err_set(err, 255, -EINVAL,
						   "Command line is not complete. Try option \"help\"");
			if (ntc_get_size(argv[i], &opt->limit) < 0)
				return ntc_err_set(err, 1, -EINVAL,
						   "%s: Illegal value for \"limit\": \"%s\"", kind,
						   argv[i]);
			opt->has_limit = true;
		} else if (!strcmp(argv[i], "help")) {
			return ntc_err_set(err, 1, -EINVAL, "%s", fifo_usage);
		} else {
			return ntc_err_set(err, 1, -EINVAL, "%s: unknown parameter \"%s\"\n%s", kind,
					   argv[i], fifo_usage);
		}
	}
	return opt->has_limit ? 0 : 1; /* tc sends no options without a limit */
}

static int pfifo_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	return fifo_parse(d, argc, argv, o, err, "pfifo");
}
static int bfifo_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	return fifo_parse(d, argc, argv, o, err, "bfifo");
}
static int phd_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	return fifo_parse(d, argc, argv, o, err, "pfifo_head_drop");
}

static int fifo_change(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	struct fifo_priv *pr = q->priv;
	const struct fifo_opt *opt = o;

	if (opt && opt->has_limit) {
		pr->limit = opt->limit;
	} else {
		pr->limit = q->dev->txqlen;
		if (q->ops == &ntc_bfifo_ops)
			pr->limit *= q->dev->mtu + 14;
	}
	return 0;
}

static int fifo_init(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	return fifo_change(q, o, err);
}

void ntc_fifo_set_limit(struct ntc_qdisc *q, uint32_t limit)
{
	if (q->ops == &ntc_pfifo_ops || q->ops == &ntc_bfifo_ops ||
	    q->ops == &ntc_pfifo_head_drop_ops)
		((struct fifo_priv *)q->priv)->limit = limit;
}

int ntc_fifo_create_bfifo(struct ntc_dev *d, uint32_t parent, uint32_t limit,
			  struct ntc_qdisc **ret)
{
	struct fifo_opt opt = { true, limit };

	return ntc_qdisc_create(d, &ntc_bfifo_ops, 0, parent, &opt, NULL, ret);
}

static void fifo_destroy(struct ntc_qdisc *q)
{
	struct fifo_priv *pr = q->priv;
	struct ntc_pkt *p;

	while ((p = ntc_fifo_pop(&pr->f)))
		ntc_release(q->dev, p);
}

static int pfifo_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct fifo_priv *pr = q->priv;

	if (pr->f.qlen < pr->limit) {
		ntc_fifo_push(&pr->f, p);
		ntc_qdisc_queued(q, p);
		return NTC_XMIT_SUCCESS;
	}
	ntc_drop_pkt(q, p);
	return NTC_XMIT_DROP;
}

static int bfifo_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct fifo_priv *pr = q->priv;

	if (pr->f.bytes + p->len <= pr->limit) {
		ntc_fifo_push(&pr->f, p);
		ntc_qdisc_queued(q, p);
		return NTC_XMIT_SUCCESS;
	}
	ntc_drop_pkt(q, p);
	return NTC_XMIT_DROP;
}

static int phd_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct fifo_priv *pr = q->priv;
	struct ntc_pkt *old;

	if (pr->f.qlen < pr->limit) {
		ntc_fifo_push(&pr->f, p);
		ntc_qdisc_queued(q, p);
		return NTC_XMIT_SUCCESS;
	}
	if (!pr->limit) {
		ntc_drop_pkt(q, p);
		return NTC_XMIT_DROP;
	}
	old = ntc_fifo_pop(&pr->f);
	ntc_fifo_push(&pr->f, p);
	q->st.backlog += (uint64_t)p->len - old->len;
	ntc_tree_reduce_backlog(q, 0, (uint64_t)old->len - p->len);
	ntc_drop_pkt(q, old);
	return NTC_XMIT_CN;
}

static struct ntc_pkt *fifo_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct fifo_priv *pr = q->priv;
	struct ntc_pkt *p = ntc_fifo_pop(&pr->f);

	if (p)
		ntc_qdisc_dequeued(q, p);
	return p;
}

static struct ntc_pkt *fifo_peek(struct ntc_qdisc *q)
{
	return ((struct fifo_priv *)q->priv)->f.head;
}

static void pfifo_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
	ucg_buf_printf(b, "limit %up", ((struct fifo_priv *)q->priv)->limit);
}

static void bfifo_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
	ucg_buf_puts(b, "limit ");
	ntc_print_size(b, ((struct fifo_priv *)q->priv)->limit);
}

#define FIFO_OPS(name, kindstr, parsefn, enq, dumpfn)                                       \
	const struct ntc_qdisc_ops name = {                                                 \
		.kind = kindstr,                                                            \
		.priv_size = sizeof(struct fifo_priv),                                      \
		.parse = parsefn,                                                           \
		.init = fifo_init,                                                          \
		.change = fifo_change,                                                      \
		.destroy = fifo_destroy,                                                    \
		.enqueue = enq,                                                             \
		.dequeue = fifo_dequeue,                                                    \
		.peek = fifo_peek,                                                          \
		.dump = dumpfn,                                                             \
	}

FIFO_OPS(ntc_pfifo_ops, "pfifo", pfifo_parse, pfifo_enqueue, pfifo_dump);
FIFO_OPS(ntc_bfifo_ops, "bfifo", bfifo_parse, bfifo_enqueue, bfifo_dump);
FIFO_OPS(ntc_pfifo_head_drop_ops, "pfifo_head_drop", phd_parse, phd_enqueue, pfifo_dump);
