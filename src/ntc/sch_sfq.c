/* ntc/sch_sfq.c — sfq, stochastic fairness queueing.
 *
 * Model. Packets are spread over `divisor` hash buckets; a bucket with packets is
 * bound to one of `flows` slots (a free slot is needed, else the packet is dropped).
 * The bucket comes from, in order: a priority whose major is this qdisc's and whose
 * minor is 1..divisor; the first matching filter's classid minor when filters are
 * attached (no match, minor 0 or minor > divisor: the packet is dropped); otherwise a
 * keyed hash of (source, destination, protocol, ports). The key comes from the
 * instance's seeded generator and is replaced every `perturb` seconds (checked at
 * each enqueue/dequeue against the caller's time); a re-key moves every queued
 * packet to its new bucket, slot by slot, keeping each flow's order.
 *
 * Enqueue: a flow already holding `depth` packets drops the new one (headdrop: its
 * oldest, and keeps the new). A flow that was empty joins the end of the round-robin
 * ring with an allowance of one quantum. If the total then exceeds `limit`, one packet
 * goes from the longest flow (its newest, or oldest with headdrop; among equally long
 * flows the lowest slot — the kernel takes the one that reached that depth last);
 * when every flow holds one packet, the flow after the ring's tail loses it.
 * Dequeue (deficit round robin in bytes): look at the flow after the tail; if its
 * allowance is <= 0 it gains a quantum, becomes the tail and the next flow is tried;
 * otherwise its oldest packet leaves and the allowance drops by its length. An
 * emptied flow leaves the ring. Each backlogged flow thus gets an equal byte share.
 *
 * Defaults: limit 127, depth 127, flows 128, divisor 1024, quantum MTU + 14, no
 * perturbation. limit is cut to depth x flows and flows to limit and divisor.
 * Limits of the model: no RED (redflowlimit), no per-bucket `tc class show` listing,
 * and sfq has no change operation (as on current kernels).
 */
#include "ntc/sch.h"

#include <string.h>

#include "base/alloc.h"

#define SFQ_MAX_DEPTH 127
#define SFQ_MAX_FLOWS 65408
#define SFQ_EMPTY 0xFFFFu

struct sfq_opt {
	uint32_t limit, depth, flows, divisor, quantum;
	int perturb;
	bool headdrop;
};

struct sfq_slot {
	struct ntc_fifo f;
	uint16_t next; /* ring */
	uint32_t hash;
	int32_t allot;
};

struct sfq_priv {
	uint32_t limit, maxdepth, maxflows, divisor, quantum;
	int perturb;
	bool headdrop;
	uint64_t key;
	int64_t next_perturb;
	uint16_t *ht;            /* divisor entries: slot or SFQ_EMPTY */
	struct sfq_slot *slots;  /* maxflows */
	int tail;                /* slot index or -1 */
};

static const char sfq_usage[] =
	"Usage: ... sfq\t[ limit NUMBER ] [ perturb SECS ] [ quantum BYTES ]\n"
	"\t[ divisor NUMBER ] [ flows NUMBER] [ depth NUMBER ]\n"
	"\t[ headdrop ]\n"
	"\t[ redflowlimit BYTES ] [ min BYTES ] [ max BYTES ]\n"
	"\t[ avpkt BYTES ] [ burst PACKETS ] [ probability P ]\n"
	"\t[ ecn ] [ harddrop ]";

static int sfq_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	struct sfq_opt *opt = o;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		uint32_t v;

		if (!strcmp(a, "headdrop")) {
			opt->headdrop = true;
			continue;
		}
		if (!strcmp(a, "help"))
			return ntc_err_set(err, 1, -EINVAL, "%s", sfq_usage);
		if (strcmp(a, "quantum") && strcmp(a, "perturb") && strcmp(a, "limit") &&
		    strcmp(a, "depth") && strcmp(a, "divisor") && strcmp(a, "flows"))
			return ntc_err_set(err, 1, -EINVAL, "What is \"%s\"?\n%s", a, sfq_usage);
		if (++i >= argc)
			return ntc_err_set(err, 255, -EINVAL,
					   "Command line is not complete. Try option \"help\"");
		if (!strcmp(a, "quantum") ? ntc_get_size(argv[i], &v) < 0
					   : ntc_get_u32(argv[i], 0, &v) < 0)
			return ntc_err_set(err, 1, -EINVAL, "Illegal \"%s\"", a);
		if (!strcmp(a, "quantum"))
			opt->quantum = v;
		else if (!strcmp(a, "perturb"))
			opt->perturb = (int)v;
		else if (!strcmp(a, "limit")) {
			if (v < 2)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"limit\", must be > 1");
			opt->limit = v;
		} else if (!strcmp(a, "depth"))
			opt->depth = v;
		else if (!strcmp(a, "divisor")) {
			if (v > 65536)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"divisor\", must be <= 65536");
			opt->divisor = v;
		} else
			opt->flows = v;
	}
	return 0;
}

static uint32_t sfq_hash(const struct sfq_priv *pr, const struct ntc_pkt *p)
{
	uint64_t h = pr->key;

	h ^= ((uint64_t)p->saddr << 32) | p->daddr;
	h *= 0x9E3779B97F4A7C15ull;
	h ^= ((uint64_t)p->ip_proto << 48) | ((uint64_t)p->protocol << 32) |
	     ((uint32_t)p->sport << 16) | p->dport;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 31;
	return (uint32_t)(h & (pr->divisor - 1));
}

static int sfq_init(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	struct sfq_priv *pr = q->priv;
	const struct sfq_opt *opt = o;
	struct sfq_opt def = { 0 };

	if (!opt)
		opt = &def;
	pr->limit = SFQ_MAX_DEPTH;
	pr->maxdepth = SFQ_MAX_DEPTH;
	pr->maxflows = 128;
	pr->divisor = 1024;
	pr->quantum = q->dev->mtu + 14;
	if (opt->quantum)
		pr->quantum = opt->quantum;
	pr->perturb = opt->perturb;
	if (opt->flows)
		pr->maxflows = opt->flows < SFQ_MAX_FLOWS ? opt->flows : SFQ_MAX_FLOWS;
	if (opt->divisor) {
		if (opt->divisor & (opt->divisor - 1))
			return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
		pr->divisor = opt->divisor;
		if (pr->maxflows > pr->divisor)
			pr->maxflows = pr->divisor;
	}
	if (opt->depth)
		pr->maxdepth = opt->depth < SFQ_MAX_DEPTH ? opt->depth : SFQ_MAX_DEPTH;
	pr->headdrop = opt->headdrop;
	if (opt->limit) {
		uint64_t cap = (uint64_t)pr->maxdepth * pr->maxflows;

		pr->limit = opt->limit < cap ? opt->limit : (uint32_t)cap;
		if (pr->maxflows > pr->limit)
			pr->maxflows = pr->limit;
	}
	if (!pr->maxflows || !pr->maxdepth)
		return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	pr->ht = ucg_malloc(pr->divisor * sizeof(*pr->ht));
	pr->slots = ucg_calloc(pr->maxflows, sizeof(*pr->slots));
	if (!pr->ht || !pr->slots) {
		ucg_free(pr->ht);
		ucg_free(pr->slots);
		return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
	}
	memset(pr->ht, 0xFF, pr->divisor * sizeof(*pr->ht));
	pr->tail = -1;
	pr->key = ntc_random(q->dev->ntc);
	pr->next_perturb = pr->perturb ? (int64_t)pr->perturb * NTC_NSEC_PER_SEC : NTC_TIME_MAX;
	return 0;
}

static void sfq_destroy(struct ntc_qdisc *q)
{
	struct sfq_priv *pr = q->priv;
	struct ntc_pkt *p;

	for (uint32_t i = 0; pr->slots && i < pr->maxflows; i++)
		while ((p = ntc_fifo_pop(&pr->slots[i].f)))
			ntc_release(q->dev, p);
	ucg_free(pr->ht);
	ucg_free(pr->slots);
}

/* Removes slot x (empty) from the ring; prev is the slot before it. */
static void ring_unlink(struct sfq_priv *pr, int prev, int x)
{
	struct sfq_slot *s = &pr->slots[x];

	pr->ht[s->hash] = SFQ_EMPTY;
	if (s->next == x) {
		pr->tail = -1;
		return;
	}
	pr->slots[prev].next = s->next;
	if (pr->tail == x)
		pr->tail = prev;
}

static int ring_prev(struct sfq_priv *pr, int x)
{
	int p = x;

	while (pr->slots[p].next != x)
		p = pr->slots[p].next;
	return p;
}

/* Drops one packet to get under the limit; returns its length (0 if none). */
static uint32_t sfq_drop_one(struct ntc_qdisc *q, uint32_t *ret_slot)
{
	struct sfq_priv *pr = q->priv;
	uint32_t best = 0, maxq = 0, len;
	struct ntc_pkt *p;

	for (uint32_t i = 0; i < pr->maxflows; i++)
		if (pr->slots[i].f.qlen > maxq) {
			maxq = pr->slots[i].f.qlen;
			best = i;
		}
	if (!maxq)
		return 0;
	if (maxq == 1)
		best = pr->slots[pr->tail].next;
	if (pr->headdrop) {
		p = ntc_fifo_pop(&pr->slots[best].f);
	} else {
		/* newest: walk to the tail of the slot's fifo */
		struct ntc_fifo *f = &pr->slots[best].f;
		struct ntc_pkt *prev = NULL;

		for (p = f->head; p->next; p = p->next)
			prev = p;
		if (prev)
			prev->next = NULL;
		else
			f->head = NULL;
		f->tail = prev;
		f->qlen--;
		f->bytes -= p->len;
	}
	len = p->len;
	q->st.qlen--;
	q->st.backlog -= len;
	if (!pr->slots[best].f.qlen)
		ring_unlink(pr, ring_prev(pr, (int)best), (int)best);
	ntc_drop_pkt(q, p);
	*ret_slot = best;
	return len;
}

/* Queues p in bucket hash; returns the slot, or -1 when p was dropped. */
static int sfq_insert(struct ntc_qdisc *q, struct ntc_pkt *p, uint32_t hash, bool *ret_cn)
{
	struct sfq_priv *pr = q->priv;
	uint16_t x = pr->ht[hash];
	struct sfq_slot *s;

	*ret_cn = false;
	if (x == SFQ_EMPTY) {
		uint32_t i;

		for (i = 0; i < pr->maxflows && pr->slots[i].f.qlen; i++)
			;
		if (i == pr->maxflows) {
			ntc_drop_pkt(q, p);
			return -1;
		}
		x = (uint16_t)i;
		pr->ht[hash] = x;
		pr->slots[x].hash = hash;
	}
	s = &pr->slots[x];
	if (s->f.qlen >= pr->maxdepth) {
		struct ntc_pkt *old;

		if (!pr->headdrop) {
			ntc_drop_pkt(q, p);
			return -1;
		}
		old = ntc_fifo_pop(&s->f);
		ntc_fifo_push(&s->f, p);
		q->st.backlog += (uint64_t)p->len - old->len;
		ntc_tree_reduce_backlog(q, 0, (uint64_t)old->len - p->len);
		ntc_drop_pkt(q, old);
		*ret_cn = true;
		return x;
	}
	ntc_fifo_push(&s->f, p);
	ntc_qdisc_queued(q, p);
	if (s->f.qlen == 1) {
		if (pr->tail < 0) {
			s->next = x;
		} else {
			s->next = pr->slots[pr->tail].next;
			pr->slots[pr->tail].next = x;
		}
		pr->tail = x;
		s->allot = (int32_t)pr->quantum;
	}
	return x;
}

static void sfq_rehash(struct ntc_qdisc *q)
{
	struct sfq_priv *pr = q->priv;
	struct ntc_fifo all = { 0 };
	struct ntc_pkt *p;
	bool cn;

	for (uint32_t i = 0; i < pr->maxflows; i++)
		while ((p = ntc_fifo_pop(&pr->slots[i].f))) {
			q->st.qlen--;
			q->st.backlog -= p->len;
			ntc_fifo_push(&all, p);
		}
	memset(pr->ht, 0xFF, pr->divisor * sizeof(*pr->ht));
	pr->tail = -1;
	pr->key = ntc_random(q->dev->ntc);
	while ((p = ntc_fifo_pop(&all))) {
		uint32_t len = p->len;

		if (sfq_insert(q, p, sfq_hash(pr, p), &cn) < 0)
			ntc_tree_reduce_backlog(q, 1, len);
	}
}

static void sfq_maybe_perturb(struct ntc_qdisc *q, int64_t now)
{
	struct sfq_priv *pr = q->priv;

	if (now < pr->next_perturb)
		return;
	while (pr->next_perturb <= now)
		pr->next_perturb += (int64_t)pr->perturb * NTC_NSEC_PER_SEC;
	sfq_rehash(q);
}

static int sfq_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct sfq_priv *pr = q->priv;
	uint32_t hash, res, dropped, victim = 0, len = p->len;
	bool cn;
	int x;

	sfq_maybe_perturb(q, now);
	if (NTC_H_MAJ(p->priority) == q->handle && NTC_H_MIN(p->priority) > 0 &&
	    NTC_H_MIN(p->priority) <= pr->divisor) {
		hash = NTC_H_MIN(p->priority) - 1;
	} else if (q->filters) {
		if (!ntc_classify(q->filters, q, p, &res) || !NTC_H_MIN(res) ||
		    NTC_H_MIN(res) > pr->divisor) {
			ntc_drop_pkt(q, p);
			return NTC_XMIT_DROP;
		}
		hash = NTC_H_MIN(res) - 1;
	} else {
		hash = sfq_hash(pr, p);
	}
	x = sfq_insert(q, p, hash, &cn);
	if (x < 0)
		return NTC_XMIT_DROP;
	if (cn)
		return NTC_XMIT_CN;
	if (q->st.qlen <= pr->limit)
		return NTC_XMIT_SUCCESS;
	dropped = sfq_drop_one(q, &victim);
	if (victim == (uint32_t)x) {
		/* this flow lost a packet (the new one, or its oldest with headdrop) */
		ntc_tree_reduce_backlog(q, 0, (uint64_t)dropped - len);
		return NTC_XMIT_CN;
	}
	ntc_tree_reduce_backlog(q, 1, dropped);
	return NTC_XMIT_SUCCESS;
}

static struct ntc_pkt *sfq_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct sfq_priv *pr = q->priv;
	struct sfq_slot *s;
	struct ntc_pkt *p;
	int a;

	sfq_maybe_perturb(q, now);
	if (pr->tail < 0)
		return NULL;
	for (;;) {
		a = pr->slots[pr->tail].next;
		s = &pr->slots[a];
		if (s->allot <= 0) {
			pr->tail = a;
			s->allot += (int32_t)pr->quantum;
			continue;
		}
		break;
	}
	p = ntc_fifo_pop(&s->f);
	ntc_qdisc_dequeued(q, p);
	if (!s->f.qlen) {
		pr->ht[s->hash] = SFQ_EMPTY;
		if (s->next == a)
			pr->tail = -1;
		else
			pr->slots[pr->tail].next = s->next;
	} else {
		s->allot -= (int32_t)p->len;
	}
	return p;
}

static void sfq_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
	struct sfq_priv *pr = q->priv;

	ucg_buf_printf(b, "limit %up quantum ", pr->limit);
	ntc_print_size(b, pr->quantum);
	ucg_buf_printf(b, " depth %u ", pr->maxdepth);
	if (pr->headdrop)
		ucg_buf_puts(b, "headdrop ");
	if (details)
		ucg_buf_printf(b, "flows %u ", pr->maxflows);
	ucg_buf_printf(b, "divisor %u ", pr->divisor);
	if (pr->perturb)
		ucg_buf_printf(b, "perturb %dsec ", pr->perturb);
}

const struct ntc_qdisc_ops ntc_sfq_ops = {
	.kind = "sfq",
	.priv_size = sizeof(struct sfq_priv),
	.takes_filters = true,
	.parse = sfq_parse,
	.init = sfq_init,
	.destroy = sfq_destroy,
	.enqueue = sfq_enqueue,
	.dequeue = sfq_dequeue,
	.dump = sfq_dump,
};
