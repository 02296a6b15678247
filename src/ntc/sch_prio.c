/* ntc/sch_prio.c — prio: strict priority among N bands (classes M:1 .. M:N).
 *
 * Model: band = minor(priority) - 1 when the priority's major is this qdisc's;
 * else the first matching filter's minor - 1; else priomap[priority & 15] (a priority
 * with a non-zero major counts as 0); an out-of-range band falls back to
 * priomap[0]'s band. Each band's child is a pfifo of the device queue length, which
 * the user may replace; deleting a user child brings back a fresh pfifo (Linux 5.1+).
 * Dequeue: band 0 until it is empty, then band 1, ... Options: bands 2..16 (3),
 * priomap (1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1). The model creates the band set once;
 * a change keeps the band count and only replaces the priomap.
 */
#include "ntc/sch.h"

#include <string.h>

#include "base/alloc.h"

#define PRIO_MAX 16

struct prio_opt {
	uint32_t bands;
	uint8_t map[16];
};

struct prio_priv {
	uint32_t bands;
	uint8_t map[16];
	struct ntc_class cl[PRIO_MAX];
	struct ntc_class *clp[PRIO_MAX];
};

static const uint8_t default_map[16] = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };

static int prio_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	struct prio_opt *opt = o;
	int i, n = -1;

	opt->bands = 3;
	memcpy(opt->map, default_map, 16);
	for (i = 0; i < argc; i++) {
		uint32_t v;

		if (!strcmp(argv[i], "bands")) {
			if (++i >= argc || ntc_get_u32(argv[i], 10, &opt->bands) < 0)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"bands\"");
		} else if (!strcmp(argv[i], "priomap")) {
			n = 0;
		} else if (n >= 0 && ntc_get_u32(argv[i], 10, &v) == 0) {
			if (n >= 16 || v > 15)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"priomap\" element");
			opt->map[n++] = (uint8_t)v;
		} else {
			return ntc_err_set(err, 1, -EINVAL, "What is \"%s\"?\nUsage: ... prio bands NUMBER priomap P1 P2...[multiqueue]", argv[i]);
		}
	}
	for (i = 0; i < 16; i++)
		if (opt->map[i] >= opt->bands)
			return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	if (opt->bands < 2 || opt->bands > PRIO_MAX)
		return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	return 0;
}

static int prio_change(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	struct prio_priv *pr = q->priv;
	const struct prio_opt *opt = o;

	if (opt->bands != pr->bands)
		return ntc_err_set(err, 2, -EOPNOTSUPP, "RTNETLINK answers: Operation not supported");
	memcpy(pr->map, opt->map, 16);
	return 0;
}

static void prio_destroy(struct ntc_qdisc *q)
{
	struct prio_priv *pr = q->priv;

	for (uint32_t i = 0; i < pr->bands; i++)
		ntc_qdisc_destroy(pr->cl[i].leaf);
	q->classes = NULL;
	q->nclasses = 0;
}

static int prio_init(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	struct prio_priv *pr = q->priv;
	struct prio_opt def = { 3, { 0 } };
	const struct prio_opt *opt = o;
	uint32_t i;

	if (!opt) {
		memcpy(def.map, default_map, 16);
		opt = &def;
	}
	for (i = 0; i < opt->bands; i++) {
		pr->cl[i].classid = NTC_H_MAKE(q->handle, i + 1);
		pr->cl[i].leaf = ntc_qdisc_default_child(q->dev, pr->cl[i].classid);
		if (!pr->cl[i].leaf) {
			pr->bands = i;
			prio_destroy(q);
			return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
		}
		pr->cl[i].leaf->parent_q = q;
		pr->clp[i] = &pr->cl[i];
	}
	pr->bands = opt->bands;
	memcpy(pr->map, opt->map, 16);
	q->classes = pr->clp;
	q->nclasses = pr->bands;
	return 0;
}

static int prio_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct prio_priv *pr = q->priv;
	uint32_t band, res, prio = p->priority;
	int r;

	if (NTC_H_MAJ(prio) == q->handle) {
		band = NTC_H_MIN(prio) - 1;
	} else if (q->filters && ntc_classify(q->filters, q, p, &res)) {
		band = NTC_H_MIN(res) - 1;
	} else {
		if (NTC_H_MAJ(prio))
			prio = 0;
		band = pr->map[prio & 15];
	}
	if (band >= pr->bands)
		band = pr->map[0];
	r = ntc_class_enqueue(q, &pr->cl[band], p, now);
	if (r != NTC_XMIT_SUCCESS)
		return r;
	ntc_qdisc_queued(q, p);
	return r;
}

static struct ntc_pkt *prio_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct prio_priv *pr = q->priv;

	for (uint32_t i = 0; i < pr->bands; i++) {
		struct ntc_pkt *p;

		if (!pr->cl[i].leaf->st.qlen)
			continue;
		p = ntc_qdisc_dequeue(pr->cl[i].leaf, now);
		if (p) {
			ntc_stats_sent(&pr->cl[i].st, p);
			ntc_qdisc_dequeued(q, p);
			return p;
		}
	}
	return NULL;
}

static void prio_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
	struct prio_priv *pr = q->priv;

	ucg_buf_printf(b, "bands %u priomap", pr->bands);
	for (int i = 0; i < 16; i++)
		ucg_buf_printf(b, " %u", pr->map[i]);
}

static struct ntc_qdisc *prio_graft(struct ntc_qdisc *q, struct ntc_class *cl,
				    struct ntc_qdisc *newq)
{
	struct ntc_qdisc *old = cl->leaf;

	if (!newq)
		newq = ntc_qdisc_default_child(q->dev, cl->classid);
	if (!newq)
		return NULL;
	newq->parent_q = q;
	cl->leaf = newq;
	return old;
}

static void prio_class_dump(struct ntc_qdisc *q, struct ntc_class *cl, struct ucg_buf *b,
			    bool details)
{
}

const struct ntc_qdisc_ops ntc_prio_ops = {
	.kind = "prio",
	.priv_size = sizeof(struct prio_priv),
	.classful = true,
	.class_stats = true,
	.takes_filters = true,
	.parse = prio_parse,
	.init = prio_init,
	.change = prio_change,
	.destroy = prio_destroy,
	.enqueue = prio_enqueue,
	.dequeue = prio_dequeue,
	.dump = prio_dump,
	.graft = prio_graft,
	.class_dump = prio_class_dump,
};
