/* ntc/qdisc.c — the model instance, its devices, and what all qdiscs share.
 *
 * A device always has a root qdisc: the one the user attached, or a kernel default
 * (handle 0): noqueue for devices whose driver asks for no queue (loopback, veth),
 * pfifo_fast otherwise. Deleting the user root restores the default.
 *
 * Accounting follows the kernel: every qdisc counts in its own stats the packets
 * queued below it (qlen, backlog), what it dequeued (Sent) and every drop below it.
 * A classful qdisc enqueues into a class's child with ntc_class_enqueue, which counts
 * a drop on the class and the qdisc when the child refuses the packet; a qdisc that
 * drops packets other than the one being enqueued (head drop, sfq overflow) calls
 * ntc_tree_reduce_backlog so that its ancestors stay exact.
 *
 * Dequeue at the root starts a pass: throttled qdiscs lower dev->wake to the time they
 * could next send, and ntc_dequeue reports it to the caller when nothing was sent.
 */
#include "ntc/sch.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static const struct ntc_qdisc_ops *const all_qdiscs[] = {
	&ntc_pfifo_ops, &ntc_bfifo_ops, &ntc_pfifo_head_drop_ops, &ntc_pfifo_fast_ops,
	&ntc_noqueue_ops, &ntc_prio_ops, &ntc_tbf_ops, &ntc_sfq_ops, &ntc_htb_ops,
	&ntc_drr_ops,
};

static const struct ntc_cls_ops *const all_cls[] = {
	&ntc_cls_u32_ops, &ntc_cls_cgroup_ops, &ntc_cls_fw_ops, &ntc_cls_basic_ops,
	&ntc_cls_matchall_ops,
};

const struct ntc_qdisc_ops *ntc_qdisc_ops_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(all_qdiscs) / sizeof(all_qdiscs[0]); i++)
		if (!strcmp(all_qdiscs[i]->kind, kind))
			return all_qdiscs[i];
	return NULL;
}

const struct ntc_cls_ops *ntc_cls_ops_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(all_cls) / sizeof(all_cls[0]); i++)
		if (!strcmp(all_cls[i]->kind, kind))
			return all_cls[i];
	return NULL;
}

int ntc_disable_kinds(struct ntc *n, const char *kinds)
{
	const char *p = kinds;

	while (*p) {
		size_t len;

		while (*p == ' ')
			p++;
		len = strcspn(p, " ");
		if (!len)
			break;
		if (len >= sizeof(n->disabled[0]))
			return -EINVAL;
		if (n->ndisabled == (int)(sizeof(n->disabled) / sizeof(n->disabled[0])))
			return -E2BIG;
		memcpy(n->disabled[n->ndisabled], p, len);
		n->disabled[n->ndisabled++][len] = 0;
		p += len;
	}
	return 0;
}

bool ntc_kind_disabled(const struct ntc *n, const char *kind)
{
	for (int i = 0; i < n->ndisabled; i++)
		if (!strcmp(n->disabled[i], kind))
			return true;
	return false;
}

uint64_t ntc_random(struct ntc *n)
{
	/* splitmix64: deterministic per instance */
	uint64_t z = (n->seed += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* ---- instance and devices ---- */

int ntc_new(struct ntc **ret)
{
	struct ntc *n = ucg_calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->next_ifindex = 1;
	n->auto_handle = 0x80000000u;
	n->seed = 0x5EED5EEDull;
	*ret = n;
	return 0;
}

int ntc_new_default(struct ntc **ret)
{
	struct ntc *n;
	int r;

	r = ntc_new(&n);
	if (r < 0)
		return r;
	r = ntc_dev_add(n, "lo", 0, 1000, 65536, 1, NTC_DEV_NOQUEUE, NULL);
	if (r < 0)
		goto fail;
	r = ntc_dev_add(n, "eth0", 1000000000ull, 1000, 1500, 1, 0, NULL);
	if (r < 0)
		goto fail;
	*ret = n;
	return 0;
fail:
	ntc_free(n);
	return r;
}

void ntc_set_release(struct ntc *n, void (*fn)(void *ctx, struct ntc_pkt *p), void *ctx)
{
	n->release = fn;
	n->release_ctx = ctx;
}

void ntc_release(struct ntc_dev *d, struct ntc_pkt *p)
{
	p->next = NULL;
	if (d->ntc->release)
		d->ntc->release(d->ntc->release_ctx, p);
}

static int default_root(struct ntc_dev *d, struct ntc_qdisc **ret)
{
	const struct ntc_qdisc_ops *ops =
		(d->flags & NTC_DEV_NOQUEUE) ? &ntc_noqueue_ops : &ntc_pfifo_fast_ops;

	return ntc_qdisc_create(d, ops, 0, NTC_H_ROOT, NULL, NULL, ret);
}

int ntc_dev_add(struct ntc *n, const char *name, uint64_t rate_bps, unsigned txqlen,
		unsigned mtu, unsigned ntxq, unsigned flags, struct ntc_dev **ret)
{
	struct ntc_dev *d, **pp;
	int r;

	if (!name || !*name || strlen(name) >= sizeof(d->name) || !mtu)
		return -EINVAL;
	if (ntc_dev_find(n, name))
		return -EEXIST;
	d = ucg_calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	memcpy(d->name, name, strlen(name) + 1);
	d->ntc = n;
	d->rate = rate_bps / 8;
	d->txqlen = txqlen;
	d->mtu = mtu;
	d->ntxq = ntxq ? ntxq : 1;
	d->flags = flags;
	d->wake = NTC_TIME_MAX;
	r = default_root(d, &d->root);
	if (r < 0) {
		ucg_free(d);
		return r;
	}
	d->ifindex = n->next_ifindex++;
	for (pp = &n->devs; *pp; pp = &(*pp)->next)
		;
	*pp = d;
	if (ret)
		*ret = d;
	return 0;
}

struct ntc_dev *ntc_dev_find(struct ntc *n, const char *name)
{
	for (struct ntc_dev *d = n ? n->devs : NULL; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

uint64_t ntc_dev_rate(const struct ntc_dev *d)
{
	return d->rate * 8;
}

void ntc_free(struct ntc *n)
{
	struct ntc_dev *d, *next;

	if (!n)
		return;
	for (d = n->devs; d; d = next) {
		next = d->next;
		ntc_qdisc_destroy(d->root);
		ucg_free(d);
	}
	ucg_free(n);
}

/* ---- packets ---- */

int ntc_enqueue(struct ntc_dev *d, struct ntc_pkt *p, int64_t now)
{
	struct ntc_qdisc *q = d->root;
	int r;

	p->next = NULL;
	if (q->ops == &ntc_noqueue_ops)
		return 1;
	r = q->ops->enqueue(q, p, now);
	return r == NTC_XMIT_DROP ? -ENOBUFS : r == NTC_XMIT_CN ? 2 : 0;
}

struct ntc_pkt *ntc_dequeue(struct ntc_dev *d, int64_t now, int64_t *ret_next)
{
	struct ntc_qdisc *q = d->root;
	struct ntc_pkt *p = NULL;

	d->wake = NTC_TIME_MAX;
	if (q->st.qlen)
		p = ntc_qdisc_dequeue(q, now);
	if (!p && ret_next) {
		*ret_next = q->st.qlen ? (d->wake > now ? d->wake : now) : NTC_TIME_MAX;
		if (q->st.qlen && d->wake == NTC_TIME_MAX)
			*ret_next = NTC_TIME_MAX;
	}
	return p;
}

unsigned ntc_dev_qlen(const struct ntc_dev *d)
{
	return d->root->st.qlen;
}

uint64_t ntc_dev_backlog(const struct ntc_dev *d)
{
	return d->root->st.backlog;
}

void ntc_drop_pkt(struct ntc_qdisc *q, struct ntc_pkt *p)
{
	q->st.drops++;
	ntc_release(q->dev, p);
}

void ntc_tree_reduce_backlog(struct ntc_qdisc *q, uint32_t n, uint64_t len)
{
	for (struct ntc_qdisc *a = q->parent_q; a; a = a->parent_q) {
		a->st.qlen -= n;
		a->st.backlog -= len;
		a->st.drops += n;
	}
}

int ntc_child_enqueue(struct ntc_qdisc *q, struct ntc_qdisc *c, struct ntc_pkt *p,
		      int64_t now)
{
	int r = c->ops->enqueue(c, p, now);

	if (r != NTC_XMIT_SUCCESS)
		q->st.drops++;
	return r;
}

int ntc_class_enqueue(struct ntc_qdisc *q, struct ntc_class *cl, struct ntc_pkt *p,
		      int64_t now)
{
	int r = cl->leaf->ops->enqueue(cl->leaf, p, now);

	if (r != NTC_XMIT_SUCCESS) {
		cl->st.drops++;
		q->st.drops++;
	}
	return r;
}

/* ---- qdisc lifecycle ---- */

int ntc_qdisc_create(struct ntc_dev *d, const struct ntc_qdisc_ops *ops, uint32_t handle,
		     uint32_t parent, const void *opt, struct ntc_err *err,
		     struct ntc_qdisc **ret)
{
	struct ntc_qdisc *q;
	int r;

	q = ucg_calloc(1, sizeof(*q) + ops->priv_size + 15);
	if (!q)
		return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
	q->ops = ops;
	q->dev = d;
	q->handle = handle;
	q->parent = parent;
	q->priv = (void *)(((uintptr_t)(q + 1) + 15) & ~(uintptr_t)15);
	q->seq = ++d->ntc->seq;
	if (ops->init) {
		r = ops->init(q, opt, err);
		if (r < 0) {
			ucg_free(q->classes);
			ucg_free(q);
			return r;
		}
	}
	*ret = q;
	return 0;
}

struct ntc_pkt *ntc_qdisc_peek(struct ntc_qdisc *q, int64_t now)
{
	struct ntc_pkt *p;

	if (q->peeked)
		return q->peeked;
	if (q->ops->peek)
		return q->ops->peek(q);
	p = q->ops->dequeue(q, now);
	if (p) {
		q->peeked = p;
		ntc_qdisc_queued(q, p);
	}
	return p;
}

struct ntc_pkt *ntc_qdisc_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct ntc_pkt *p = q->peeked;

	if (!p)
		return q->ops->dequeue(q, now);
	q->peeked = NULL;
	q->st.qlen--;
	q->st.backlog -= p->len;
	return p;
}

void ntc_qdisc_destroy(struct ntc_qdisc *q)
{
	if (!q)
		return;
	if (q->peeked)
		ntc_release(q->dev, q->peeked);
	ntc_filters_destroy(q, &q->filters);
	if (q->ops->destroy)
		q->ops->destroy(q);
	ucg_free(q->classes);
	ucg_free(q->clhash);
	ucg_free(q);
}

struct ntc_qdisc *ntc_qdisc_default_child(struct ntc_dev *d, uint32_t parent)
{
	struct ntc_qdisc *q = NULL;

	if (ntc_qdisc_create(d, &ntc_pfifo_ops, 0, parent, NULL, NULL, &q) < 0)
		return NULL;
	return q;
}

struct ntc_qdisc *ntc_qdisc_noop(struct ntc_dev *d, uint32_t parent)
{
	struct ntc_qdisc *q = NULL;

	if (ntc_qdisc_create(d, &ntc_noop_ops, 0, parent, NULL, NULL, &q) < 0)
		return NULL;
	q->hidden = true;
	return q;
}

static struct ntc_qdisc *lookup_in(struct ntc_qdisc *q, uint32_t handle)
{
	if (!q)
		return NULL;
	if (q->handle == handle)
		return q;
	for (size_t i = 0; i < q->nclasses; i++) {
		struct ntc_qdisc *f = lookup_in(q->classes[i]->leaf, handle);

		if (f)
			return f;
	}
	return NULL;
}

struct ntc_qdisc *ntc_qdisc_lookup(struct ntc_dev *d, uint32_t handle)
{
	if (!handle)
		return NULL;
	return lookup_in(d->root, handle);
}

/* ---- class index ---- */

static size_t class_pos(const struct ntc_qdisc *q, uint32_t classid)
{
	size_t lo = 0, hi = q->nclasses;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (q->classes[mid]->classid < classid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ntc_class_reserve(struct ntc_qdisc *q, size_t more)
{
	size_t want = q->nclasses + more;
	struct ntc_class **c;

	/* The class hash's first table too, so an insert after a reserve cannot fail. */
	if (!q->clhash) {
		q->clhash = ucg_calloc(4, sizeof(*q->clhash));
		if (!q->clhash)
			return -ENOMEM;
		q->clhash_size = 4;
	}
	if (want <= q->classes_cap)
		return 0;
	if (want < 8)
		want = 8;
	if (want < q->classes_cap * 2)
		want = q->classes_cap * 2;
	c = ucg_realloc(q->classes, want * sizeof(*c));
	if (!c)
		return -ENOMEM;
	q->classes = c;
	q->classes_cap = want;
	return 0;
}

/* The kernel's class hash (sch_api.c's qdisc_class_hash): the class id folded into
 * the bucket index. The walk order of `tc class show` follows from it, the insertion
 * at the head of a bucket, and the rehash when the table doubles, which visits the
 * old buckets in order and so reverses each chain (checked against real tc on a veth:
 * tests/ntc/golden/class_order). */
static unsigned clhash_bucket(uint32_t id, unsigned size)
{
	id ^= id >> 8;
	id ^= id >> 4;
	return id & (size - 1);
}

static void clhash_add(struct ntc_class **buckets, unsigned size, struct ntc_class *cl)
{
	unsigned b = clhash_bucket(cl->classid, size);

	cl->hnext = buckets[b];
	buckets[b] = cl;
}

/* Doubles the table once more than 3/4 of its size is used; as in the kernel, a
 * failed allocation keeps the old table. */
static void clhash_grow(struct ntc_qdisc *q)
{
	unsigned size = q->clhash_size * 2, i;
	struct ntc_class **nb;

	if (q->clhash_elems * 4 <= (size_t)q->clhash_size * 3)
		return;
	nb = ucg_calloc(size, sizeof(*nb));
	if (!nb)
		return;
	for (i = 0; i < q->clhash_size; i++) {
		struct ntc_class *cl = q->clhash[i], *next;

		for (; cl; cl = next) {
			next = cl->hnext;
			clhash_add(nb, size, cl);
		}
	}
	ucg_free(q->clhash);
	q->clhash = nb;
	q->clhash_size = size;
}

int ntc_class_insert(struct ntc_qdisc *q, struct ntc_class *cl)
{
	size_t pos;
	int r;

	r = ntc_class_reserve(q, 1);
	if (r < 0)
		return r;
	pos = class_pos(q, cl->classid);
	memmove(q->classes + pos + 1, q->classes + pos,
		(q->nclasses - pos) * sizeof(*q->classes));
	q->classes[pos] = cl;
	q->nclasses++;
	clhash_add(q->clhash, q->clhash_size, cl);
	q->clhash_elems++;
	clhash_grow(q);
	return 0;
}

void ntc_class_remove(struct ntc_qdisc *q, struct ntc_class *cl)
{
	size_t pos = class_pos(q, cl->classid);

	if (pos < q->nclasses && q->classes[pos] == cl) {
		struct ntc_class **pp = &q->clhash[clhash_bucket(cl->classid, q->clhash_size)];

		memmove(q->classes + pos, q->classes + pos + 1,
			(q->nclasses - pos - 1) * sizeof(*q->classes));
		q->nclasses--;
		while (*pp && *pp != cl)
			pp = &(*pp)->hnext;
		if (*pp) {
			*pp = cl->hnext;
			q->clhash_elems--;
		}
	}
}

struct ntc_class *ntc_class_find(const struct ntc_qdisc *q, uint32_t classid)
{
	size_t pos = class_pos(q, classid);

	if (pos < q->nclasses && q->classes[pos]->classid == classid)
		return q->classes[pos];
	return NULL;
}

/* ---- filters ---- */

int ntc_classify(const struct ntc_filter *f, const struct ntc_qdisc *q,
		 const struct ntc_pkt *p, uint32_t *ret_classid)
{
	for (; f; f = f->next) {
		if (f->protocol != NTC_ETH_P_ALL && f->protocol != p->protocol)
			continue;
		if (f->ops->classify(f, q, p, ret_classid))
			return 1;
	}
	return 0;
}

void ntc_filters_destroy(struct ntc_qdisc *q, struct ntc_filter **chain)
{
	struct ntc_filter *f, *next;

	for (f = *chain; f; f = next) {
		next = f->next;
		if (f->target)
			f->target->filter_refs--;
		if (f->ops->destroy)
			f->ops->destroy(f);
		ucg_free(f);
	}
	*chain = NULL;
}
