/* ntc/sch_drr.c — drr, deficit round robin among user-created classes.
 *
 * Model: classes are flat (parent is the qdisc), each with a pfifo child (device
 * queue length) and a quantum (default MTU + 14 bytes). Classification: a priority
 * naming an existing class of this qdisc; else the filters (the classid must name an
 * existing class); anything else is dropped — drr has no default class. A class that
 * becomes backlogged joins the tail of the active list with deficit = quantum.
 * Dequeue: the first active class sends its head packet if the packet fits in its
 * deficit (deficit -= len; it leaves the list when empty); otherwise it gains a
 * quantum and moves to the tail, and the next class is tried. Work conserving; no
 * qdisc options, no change of the qdisc. `drr` is not built into the reference
 * kernel, so its show format follows iproute2's printing code only.
 */
#include "ntc/sch.h"

#include <string.h>

#include "base/alloc.h"

struct drr_class {
	struct ntc_class c;
	uint32_t quantum, deficit;
	struct drr_class *next_active;
	bool active;
};

struct drr_copt {
	uint32_t quantum;
};

struct drr_priv {
	struct drr_class *head, *tail; /* active list */
};

static int drr_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	if (argc && !strcmp(argv[0], "help"))
		return ntc_err_set(err, 1, -EINVAL, "Usage: ... drr");
	if (argc)
		return ntc_err_set(err, 1, -EINVAL, "What is \"%s\"?\nUsage: ... drr", argv[0]);
	return 0;
}

static int drr_class_parse(struct ntc_dev *d, int argc, char **argv, void *o,
			   struct ntc_err *err)
{
	struct drr_copt *opt = o;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "quantum")) {
			if (++i >= argc)
				return ntc_err_set(err, 255, -EINVAL,
						   "Command line is not complete. Try option \"help\"");
			if (ntc_get_size(argv[i], &opt->quantum) < 0 || !opt->quantum)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"quantum\"");
		} else {
			return ntc_err_set(err, 1, -EINVAL,
					   "What is \"%s\"?\nUsage: ... drr quantum SIZE", argv[i]);
		}
	}
	return 0;
}

static inline struct drr_class *D(struct ntc_class *c)
{
	return (struct drr_class *)c;
}

static void drr_unlink(struct drr_priv *pr, struct drr_class *cl)
{
	struct drr_class **pp, *prev = NULL;

	if (!cl->active)
		return;
	for (pp = &pr->head; *pp != cl; pp = &(*pp)->next_active)
		prev = *pp;
	*pp = cl->next_active;
	if (pr->tail == cl)
		pr->tail = prev;
	cl->next_active = NULL;
	cl->active = false;
}

static void drr_push_tail(struct drr_priv *pr, struct drr_class *cl)
{
	cl->next_active = NULL;
	if (pr->tail)
		pr->tail->next_active = cl;
	else
		pr->head = cl;
	pr->tail = cl;
	cl->active = true;
}

static void drr_destroy(struct ntc_qdisc *q)
{
	for (size_t i = 0; i < q->nclasses; i++)
		ntc_filters_destroy(q, &q->classes[i]->filters);
	ntc_filters_destroy(q, &q->filters);
	for (size_t i = 0; i < q->nclasses; i++) {
		ntc_qdisc_destroy(q->classes[i]->leaf);
		ucg_free(q->classes[i]);
	}
	q->nclasses = 0;
}

static int drr_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct drr_priv *pr = q->priv;
	struct ntc_class *c = NULL;
	uint32_t res;
	bool first;
	int r;

	if (NTC_H_MAJ(p->priority) == q->handle)
		c = ntc_class_find(q, p->priority);
	if (!c && ntc_classify(q->filters, q, p, &res))
		c = ntc_class_find(q, res);
	if (!c) {
		ntc_drop_pkt(q, p);
		return NTC_XMIT_DROP;
	}
	first = c->leaf->st.qlen == 0;
	r = ntc_class_enqueue(q, c, p, now);
	if (r != NTC_XMIT_SUCCESS)
		return r;
	if (first && !D(c)->active) {
		drr_push_tail(pr, D(c));
		D(c)->deficit = D(c)->quantum;
	}
	ntc_qdisc_queued(q, p);
	return r;
}

static struct ntc_pkt *drr_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct drr_priv *pr = q->priv;

	while (pr->head) {
		struct drr_class *cl = pr->head;
		struct ntc_pkt *p = ntc_qdisc_peek(cl->c.leaf, now);

		if (!p)
			return NULL; /* child not work conserving */
		if (p->len <= cl->deficit) {
			cl->deficit -= p->len;
			p = ntc_qdisc_dequeue(cl->c.leaf, now);
			if (!p)
				return NULL;
			if (!cl->c.leaf->st.qlen)
				drr_unlink(pr, cl);
			ntc_stats_sent(&cl->c.st, p);
			ntc_qdisc_dequeued(q, p);
			return p;
		}
		cl->deficit += cl->quantum;
		drr_unlink(pr, cl);
		drr_push_tail(pr, cl);
	}
	return NULL;
}

static void drr_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
}

static int drr_class_change(struct ntc_qdisc *q, uint32_t classid, uint32_t parentid,
			    struct ntc_class *existing, const void *o, struct ucg_buf *warn,
			    struct ntc_err *err)
{
	const struct drr_copt *opt = o;
	uint32_t quantum = opt && opt->quantum ? opt->quantum : q->dev->mtu + 14;
	struct drr_class *cl;

	if (existing) {
		D(existing)->quantum = quantum;
		return 0;
	}
	if (NTC_H_MAJ(classid) != q->handle || !NTC_H_MIN(classid) ||
	    (parentid != NTC_H_ROOT && parentid != q->handle))
		return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	cl = ucg_calloc(1, sizeof(*cl));
	if (!cl || ntc_class_reserve(q, 1) < 0)
		goto nomem;
	cl->c.classid = classid;
	cl->c.leaf = ntc_qdisc_default_child(q->dev, classid);
	if (!cl->c.leaf)
		goto nomem;
	cl->c.leaf->parent_q = q;
	cl->quantum = quantum;
	ntc_class_insert(q, &cl->c);
	return 0;
nomem:
	ucg_free(cl);
	return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
}

static int drr_class_delete(struct ntc_qdisc *q, struct ntc_class *c, struct ntc_err *err)
{
	if (c->filter_refs)
		return ntc_err_set(err, 2, -EBUSY, "RTNETLINK answers: Device or resource busy");
	drr_unlink(q->priv, D(c));
	ntc_tree_reduce_backlog(c->leaf, c->leaf->st.qlen, c->leaf->st.backlog);
	ntc_qdisc_destroy(c->leaf);
	ntc_class_remove(q, c);
	ucg_free(c);
	return 0;
}

static struct ntc_qdisc *drr_graft(struct ntc_qdisc *q, struct ntc_class *c,
				   struct ntc_qdisc *newq)
{
	struct ntc_qdisc *old = c->leaf;

	if (!newq)
		newq = ntc_qdisc_default_child(q->dev, c->classid);
	if (!newq)
		return NULL;
	newq->parent_q = q;
	c->leaf = newq;
	drr_unlink(q->priv, D(c));
	return old;
}

static void drr_class_dump(struct ntc_qdisc *q, struct ntc_class *c, struct ucg_buf *b,
			   bool details)
{
	ucg_buf_puts(b, "quantum ");
	ntc_print_size(b, D(c)->quantum);
	ucg_buf_putc(b, ' ');
}

static void drr_class_xstats(struct ntc_qdisc *q, struct ntc_class *c, struct ucg_buf *b)
{
	ucg_buf_puts(b, "\n deficit ");
	ntc_print_size(b, D(c)->deficit);
	ucg_buf_putc(b, ' ');
}

const struct ntc_qdisc_ops ntc_drr_ops = {
	.kind = "drr",
	.priv_size = sizeof(struct drr_priv),
	.classful = true,
	.user_classes = true,
	.class_stats = true,
	.top_classes_root = true,
	.takes_filters = true,
	.parse = drr_parse,
	.destroy = drr_destroy,
	.enqueue = drr_enqueue,
	.dequeue = drr_dequeue,
	.dump = drr_dump,
	.class_parse = drr_class_parse,
	.class_change = drr_class_change,
	.class_delete = drr_class_delete,
	.graft = drr_graft,
	.class_dump = drr_class_dump,
	.class_dump_xstats = drr_class_xstats,
};
