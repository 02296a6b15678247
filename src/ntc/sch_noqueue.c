/* ntc/sch_noqueue.c — noqueue and noop, the two qdiscs that hold nothing.
 *
 * noqueue is the default root of devices whose driver needs no queue (loopback,
 * veth): at the root the packet bypasses queueing and goes straight to the driver
 * (ntc_enqueue returns 1 and the caller transmits it). Used below a class it has no
 * queue to offer and drops, like the kernel's. Its counters stay zero.
 *
 * noop drops every packet. The kernel leaves it under a tbf whose user child was
 * deleted; it is never listed.
 */
#include "ntc/sch.h"

static int drop_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	ntc_drop_pkt(q, p);
	return NTC_XMIT_DROP;
}

static struct ntc_pkt *none_dequeue(struct ntc_qdisc *q, int64_t now)
{
	return NULL;
}

static struct ntc_pkt *none_peek(struct ntc_qdisc *q)
{
	return NULL;
}

static int noqueue_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	if (argc)
		return ntc_err_set(err, 1, -EINVAL,
				   "Unknown qdisc \"noqueue\", hence option \"%s\" is unparsable",
				   argv[0]);
	return 1; /* tc has no options to send */
}

static void none_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
}

const struct ntc_qdisc_ops ntc_noqueue_ops = {
	.kind = "noqueue",
	.no_tc_options = true,
	.parse = noqueue_parse,
	.enqueue = drop_enqueue,
	.dequeue = none_dequeue,
	.peek = none_peek,
	.dump = none_dump,
};

const struct ntc_qdisc_ops ntc_noop_ops = {
	.kind = "noop",
	.enqueue = drop_enqueue,
	.dequeue = none_dequeue,
	.peek = none_peek,
	.dump = none_dump,
};
