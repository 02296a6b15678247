/* ntc/sch_pfifo_fast.c — pfifo_fast: three strict-priority bands.
 *
 * Model: the band of a packet is priomap[skb->priority & 15] with the fixed map
 * 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 (TOS "minimise delay" → priority 6 → band 0; best
 * effort → band 1; bulk → band 2). Each band is a FIFO of at most the device queue
 * length (the lockless implementation since Linux 4.16; older kernels shared one
 * limit). Dequeue is strict: band 0 until empty, then 1, then 2, so a busy band 0
 * starves the others. No filters, no options (tc refuses any), no change operation
 * (a change without options is accepted and does nothing).
 */
#include "ntc/sch.h"

static const uint8_t prio2band[16] = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };

struct pff_priv {
	struct ntc_fifo band[3];
};

static int pff_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	if (argc)
		return ntc_err_set(err, 255, -EINVAL,
				   "qdisc 'pfifo_fast' does not support option parsing");
	return 1; /* tc has no options to send */
}

static int pff_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct pff_priv *pr = q->priv;
	struct ntc_fifo *f = &pr->band[prio2band[p->priority & 15]];

	if (f->qlen < q->dev->txqlen) {
		ntc_fifo_push(f, p);
		ntc_qdisc_queued(q, p);
		return NTC_XMIT_SUCCESS;
	}
	ntc_drop_pkt(q, p);
	return NTC_XMIT_DROP;
}

static struct ntc_pkt *pff_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct pff_priv *pr = q->priv;

	for (int i = 0; i < 3; i++) {
		struct ntc_pkt *p = ntc_fifo_pop(&pr->band[i]);

		if (p) {
			ntc_qdisc_dequeued(q, p);
			return p;
		}
	}
	return NULL;
}

static struct ntc_pkt *pff_peek(struct ntc_qdisc *q)
{
	struct pff_priv *pr = q->priv;

	for (int i = 0; i < 3; i++)
		if (pr->band[i].head)
			return pr->band[i].head;
	return NULL;
}

static void pff_destroy(struct ntc_qdisc *q)
{
	struct pff_priv *pr = q->priv;
	struct ntc_pkt *p;

	for (int i = 0; i < 3; i++)
		while ((p = ntc_fifo_pop(&pr->band[i])))
			ntc_release(q->dev, p);
}

static void pff_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
	ucg_buf_puts(b, "bands 3 priomap");
	for (int i = 0; i < 16; i++)
		ucg_buf_printf(b, " %u", prio2band[i]);
}

const struct ntc_qdisc_ops ntc_pfifo_fast_ops = {
	.kind = "pfifo_fast",
	.priv_size = sizeof(struct pff_priv),
	.no_tc_options = true,
	.parse = pff_parse,
	.destroy = pff_destroy,
	.enqueue = pff_enqueue,
	.dequeue = pff_dequeue,
	.peek = pff_peek,
	.dump = pff_dump,
};
