/* ntc/sch_htb.c — htb, the hierarchical token bucket.
 *
 * Model. Classes form a tree (at most 8 levels); leaves (level 0) own a child qdisc
 * that holds packets, inner classes have level parent-1 (top-level inner: 7). Each
 * class has two token buckets kept as time: tokens for `rate` (depth burst/rate) and
 * ctokens for `ceil` (depth cburst/ceil); credit since the last update is capped at
 * 60 s and so is debt. A class's mode at time now (with d = min(now - t_c, 60 s)):
 *     ctokens + d < 0  → cannot send;  tokens + d >= 0 → can send;  else may borrow.
 * Modes are evaluated lazily at `now`, which equals the kernel's exact event-driven
 * mode changes (it schedules each change for the moment the debt is repaid).
 *
 * Enqueue: a priority equal to the qdisc handle → direct queue; equal to a leaf →
 * that leaf; to an inner class → its filters; else the qdisc's filters, following
 * inner classes' filters (at most 8 hops); a result M:0 → direct queue; no match or
 * a missing class → class M:default if it is a leaf, else the direct queue, a FIFO of
 * direct_qlen packets that is sent first and unshaped.
 *
 * Dequeue: the direct queue first; otherwise the active leaf with the smallest
 * (level, prio) where level is that of the first class on its path (from the leaf
 * up) in "can send" mode, all classes before it "may borrow" (a "cannot send" class
 * on the way, or no lender, makes the leaf ineligible). Candidates of equal (level,
 * prio) share by deficit round robin in class id order: the chosen leaf keeps its turn
 * while its deficit for that level stays >= 0; when it goes negative it gains its
 * quantum and the turn moves to the next class id. The packet is then charged along
 * the path: classes at or above the lending level pay L/rate from tokens (the one at
 * that level counts a lend), lower ones borrow (tokens only refilled, a borrow
 * counted); all pay L/ceil from ctokens; a transition into "cannot send" counts an
 * overlimit on the class and the qdisc. With nothing eligible the device is told the
 * earliest time any class on an active path changes mode.
 *
 * Limits: the kernel's DRR walks a per-level tree of round-robin pointers (one per
 * inner class); this model keeps one pointer per (level, prio) over the flat class id
 * order, which gives the same shares among siblings but may interleave subtrees
 * differently. Hysteresis is off, as by default in the kernel.
 */
#include "ntc/sch.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

#define HTB_MAXDEPTH 8
#define HTB_NUMPRIO 8
#define HTB_MBUFFER (60LL * NTC_NSEC_PER_SEC)

enum htb_mode { HTB_CANT_SEND, HTB_MAY_BORROW, HTB_CAN_SEND };

struct htb_class {
	struct ntc_class c;
	struct htb_class *parent;
	int level;
	unsigned children;
	uint32_t prio, quantum;
	bool quantum_set;
	struct ntc_rate rate, ceil;
	int64_t buffer, cbuffer;
	int64_t tokens, ctokens, t_c;
	uint32_t lends, borrows;
	int32_t deficit[HTB_MAXDEPTH];
	bool active;
	int elig;        /* scratch for dequeue */
	int64_t memo_t;  /* mode memo: valid for time memo_t until the next charge */
	uint8_t memo_mode;
};

struct htb_copt {
	uint64_t rate, ceil;
	uint32_t buffer, cbuffer; /* ticks */
	uint32_t prio, quantum, mtu, mpu;
	int overhead;
	bool atm;
};

struct htb_qopt {
	uint32_t defcls, r2q, direct_qlen;
	bool has_direct_qlen;
};

struct htb_priv {
	uint32_t defcls, r2q, direct_qlen;
	struct ntc_fifo direct;
	uint32_t direct_pkts;
	struct htb_class **active; /* sorted by class id */
	size_t nactive, active_cap;
	uint32_t rr[HTB_MAXDEPTH][HTB_NUMPRIO]; /* next class id to serve */
};

static const char htb_usage[] =
	"Usage: ... qdisc add ... htb [default N] [r2q N]\n"
	"                      [direct_qlen P] [offload]\n"
	" default  minor id of class to which unclassified packets are sent {0}\n"
	" r2q      DRR quantums are computed as rate in Bps/r2q {10}\n"
	" debug    string of 16 numbers each 0-3 {0}\n"
	"\n"
	" direct_qlen  Limit of the direct queue {in packets}\n"
	" offload  enable hardware offload\n"
	"... class add ... htb rate R1 [burst B1] [mpu B] [overhead O]\n"
	"                      [prio P] [slot S] [pslot PS]\n"
	"                      [ceil R2] [cburst B2] [mtu MTU] [quantum Q]\n"
	" rate     rate allocated to this class (class can still borrow)\n"
	" burst    max bytes burst which can be accumulated during idle period {computed}\n"
	" mpu      minimum packet size used in rate computations\n"
	" overhead per-packet size overhead used in rate computations\n"
	" linklay  adapting to a linklayer e.g. atm\n"
	" ceil     definite upper class rate (no borrows) {rate}\n"
	" cburst   burst but for ceil {computed}\n"
	" mtu      max packet size we create rate map for {1600}\n"
	" prio     priority of leaf; lower are served first {0}\n"
	" quantum  how much bytes to serve from leaf at once {use r2q}\n"
	"\n"
	"TC HTB version 3.3";

#define INCOMPLETE(err) \
	ntc_err_set(err, 255, -EINVAL, "Command line is not complete. Try option \"help\"")

static int htb_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	struct htb_qopt *opt = o;

	opt->r2q = 10;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "r2q") || !strcmp(a, "default") || !strcmp(a, "direct_qlen")) {
			uint32_t v;

			if (++i >= argc)
				return INCOMPLETE(err);
			if (ntc_get_u32(argv[i], !strcmp(a, "default") ? 16 : 10, &v) < 0)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"%s\"\n%s", a, htb_usage);
			if (!strcmp(a, "r2q"))
				opt->r2q = v;
			else if (!strcmp(a, "default"))
				opt->defcls = v;
			else {
				opt->direct_qlen = v;
				opt->has_direct_qlen = true;
			}
		} else if (!strcmp(a, "help")) {
			return ntc_err_set(err, 1, -EINVAL, "%s", htb_usage);
		} else {
			return ntc_err_set(err, 1, -EINVAL, "What is \"%s\"?\n%s", a, htb_usage);
		}
	}
	return 0;
}

static int htb_class_parse(struct ntc_dev *d, int argc, char **argv, void *o,
			   struct ntc_err *err)
{
	struct htb_copt *opt = o;
	uint32_t buffer = 0, cbuffer = 0;

	opt->mtu = 1600;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;
		int r = 0;

		if (!strcmp(a, "help"))
			return ntc_err_set(err, 1, -EINVAL, "%s", htb_usage);
		if (!strcmp(a, "prio") || !strcmp(a, "mtu") || !strcmp(a, "mpu") ||
		    !strcmp(a, "quantum") || !strcmp(a, "overhead") || !strcmp(a, "burst") ||
		    !strcmp(a, "buffer") || !strcmp(a, "maxburst") || !strcmp(a, "cburst") ||
		    !strcmp(a, "cbuffer") || !strcmp(a, "cmaxburst") || !strcmp(a, "rate") ||
		    !strcmp(a, "ceil") || !strcmp(a, "linklayer")) {
			uint32_t u;

			if (++i >= argc)
				return INCOMPLETE(err);
			v = argv[i];
			if (!strcmp(a, "prio"))
				r = ntc_get_u32(v, 10, &opt->prio);
			else if (!strcmp(a, "mtu"))
				r = ntc_get_u32(v, 10, &opt->mtu);
			else if (!strcmp(a, "mpu"))
				r = ntc_get_u32(v, 10, &opt->mpu) < 0 || opt->mpu > 0xFFFF ? -1 : 0;
			else if (!strcmp(a, "quantum"))
				r = ntc_get_u32(v, 10, &opt->quantum);
			else if (!strcmp(a, "overhead")) {
				r = ntc_get_u32(v, 10, &u) < 0 || u > 0xFFFF ? -1 : 0;
				opt->overhead = (int)u;
			} else if (!strcmp(a, "burst") || !strcmp(a, "buffer") || !strcmp(a, "maxburst"))
				r = strchr(v, '/') ? -1 : ntc_get_size(v, &buffer);
			else if (!strcmp(a, "cburst") || !strcmp(a, "cbuffer") || !strcmp(a, "cmaxburst"))
				r = strchr(v, '/') ? -1 : ntc_get_size(v, &cbuffer);
			else if (!strcmp(a, "rate"))
				r = opt->rate ? -1 : ntc_get_rate(v, &opt->rate);
			else if (!strcmp(a, "ceil"))
				r = opt->ceil ? -1 : ntc_get_rate(v, &opt->ceil);
			else if (!strcmp(v, "atm") || !strcmp(v, "adsl"))
				opt->atm = true;
			else if (strcmp(v, "ethernet"))
				r = -1;
			if (r < 0) {
				if (!strcmp(a, "rate") || !strcmp(a, "ceil") || !strcmp(a, "burst") ||
				    !strcmp(a, "cburst"))
					return ntc_err_set(err, 1, -EINVAL, "Illegal \"%s\"", a);
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"%s\"\n%s", a, htb_usage);
			}
		} else {
			return ntc_err_set(err, 1, -EINVAL, "What is \"%s\"?\n%s", a, htb_usage);
		}
	}
	if (!opt->rate)
		return ntc_err_set(err, 1, -EINVAL, "\"rate\" is required.");
	if (!opt->ceil)
		opt->ceil = opt->rate;
	if (!buffer)
		buffer = (uint32_t)(opt->rate / 1000000000ull) + opt->mtu;
	if (!cbuffer)
		cbuffer = (uint32_t)(opt->ceil / 1000000000ull) + opt->mtu;
	opt->buffer = ntc_xmittime(opt->rate, buffer);
	opt->cbuffer = ntc_xmittime(opt->ceil, cbuffer);
	return 0;
}

static int htb_init(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	struct htb_priv *pr = q->priv;
	const struct htb_qopt *opt = o;

	pr->defcls = opt ? opt->defcls : 0;
	pr->r2q = opt && opt->r2q ? opt->r2q : 1;
	if (!opt)
		pr->r2q = 10;
	pr->direct_qlen = opt && opt->has_direct_qlen ? opt->direct_qlen : q->dev->txqlen;
	q->st.qlen = 0;
	return 0;
}

static inline struct htb_class *H(struct ntc_class *c)
{
	return (struct htb_class *)c;
}

static void htb_deactivate(struct htb_priv *pr, struct htb_class *cl)
{
	size_t i;

	if (!cl->active)
		return;
	for (i = 0; i < pr->nactive && pr->active[i] != cl; i++)
		;
	if (i < pr->nactive) {
		memmove(pr->active + i, pr->active + i + 1,
			(pr->nactive - i - 1) * sizeof(*pr->active));
		pr->nactive--;
	}
	cl->active = false;
}

/* The active array has room for every class (reserved at class creation). */
static void htb_activate(struct htb_priv *pr, struct htb_class *cl)
{
	size_t i;

	if (cl->active)
		return;
	for (i = pr->nactive; i > 0 && pr->active[i - 1]->c.classid > cl->c.classid; i--)
		pr->active[i] = pr->active[i - 1];
	pr->active[i] = cl;
	pr->nactive++;
	cl->active = true;
}

static void htb_destroy(struct ntc_qdisc *q)
{
	struct htb_priv *pr = q->priv;
	struct ntc_pkt *p;
	size_t i;

	for (i = 0; i < q->nclasses; i++)
		ntc_filters_destroy(q, &q->classes[i]->filters);
	ntc_filters_destroy(q, &q->filters);
	for (i = 0; i < q->nclasses; i++) {
		ntc_qdisc_destroy(q->classes[i]->leaf);
		ucg_free(q->classes[i]);
	}
	q->nclasses = 0;
	while ((p = ntc_fifo_pop(&pr->direct)))
		ntc_release(q->dev, p);
	ucg_free(pr->active);
}

static struct htb_class *htb_find(struct ntc_qdisc *q, uint32_t classid)
{
	if (NTC_H_MAJ(classid) != q->handle)
		return NULL;
	return H(ntc_class_find(q, classid));
}

#define HTB_DIRECT ((struct htb_class *)-1)

static struct htb_class *htb_classify(struct ntc_qdisc *q, const struct ntc_pkt *p)
{
	struct htb_priv *pr = q->priv;
	const struct ntc_filter *tcf;
	struct htb_class *cl;
	uint32_t res;
	int hops = 0;

	if (p->priority == q->handle)
		return HTB_DIRECT;
	cl = htb_find(q, p->priority);
	if (cl) {
		if (cl->level == 0)
			return cl;
		tcf = cl->c.filters;
	} else {
		tcf = q->filters;
	}
	while (tcf && hops++ < HTB_MAXDEPTH && ntc_classify(tcf, q, p, &res)) {
		if (res == q->handle)
			return HTB_DIRECT;
		cl = htb_find(q, res);
		if (!cl)
			break;
		if (!cl->level)
			return cl;
		tcf = cl->c.filters;
	}
	cl = htb_find(q, NTC_H_MAKE(q->handle, pr->defcls));
	if (!cl || cl->level)
		return HTB_DIRECT;
	return cl;
}

static int htb_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct htb_priv *pr = q->priv;
	struct htb_class *cl = htb_classify(q, p);
	int r;

	if (cl == HTB_DIRECT) {
		if (pr->direct.qlen >= pr->direct_qlen) {
			ntc_drop_pkt(q, p);
			return NTC_XMIT_DROP;
		}
		ntc_fifo_push(&pr->direct, p);
		pr->direct_pkts++;
	} else {
		r = ntc_class_enqueue(q, &cl->c, p, now);
		if (r != NTC_XMIT_SUCCESS)
			return r;
		htb_activate(pr, cl);
	}
	ntc_qdisc_queued(q, p);
	return NTC_XMIT_SUCCESS;
}

static inline int64_t htb_diff(const struct htb_class *cl, int64_t now)
{
	int64_t d = now - cl->t_c;

	return d > HTB_MBUFFER ? HTB_MBUFFER : d;
}

static inline enum htb_mode htb_mode_at(const struct htb_class *cl, int64_t diff)
{
	if (cl->ctokens + diff < 0)
		return HTB_CANT_SEND;
	if (cl->tokens + diff >= 0)
		return HTB_CAN_SEND;
	return HTB_MAY_BORROW;
}

static inline enum htb_mode htb_mode_memo(struct htb_class *cl, int64_t now)
{
	if (cl->memo_t != now) {
		cl->memo_mode = (uint8_t)htb_mode_at(cl, htb_diff(cl, now));
		cl->memo_t = now;
	}
	return (enum htb_mode)cl->memo_mode;
}

/* Level at which leaf can send now, HTB_MAXDEPTH if it cannot. */
static int htb_elig(struct htb_class *cl, int64_t now)
{
	for (; cl; cl = cl->parent) {
		enum htb_mode m = htb_mode_memo(cl, now);

		if (m == HTB_CANT_SEND)
			return HTB_MAXDEPTH;
		if (m == HTB_CAN_SEND)
			return cl->level;
	}
	return HTB_MAXDEPTH;
}

static void htb_charge(struct ntc_qdisc *q, struct htb_class *cl, int level,
		       const struct ntc_pkt *p, int64_t now)
{
	for (; cl; cl = cl->parent) {
		int64_t diff = htb_diff(cl, now), toks;
		enum htb_mode old = htb_mode_at(cl, diff);

		if (cl->level >= level) {
			if (cl->level == level)
				cl->lends++;
			toks = diff + cl->tokens;
			if (toks > cl->buffer)
				toks = cl->buffer;
			toks -= ntc_rate_l2t(&cl->rate, p->len);
			if (toks <= -HTB_MBUFFER)
				toks = 1 - HTB_MBUFFER;
			cl->tokens = toks;
		} else {
			cl->borrows++;
			cl->tokens += diff;
		}
		toks = diff + cl->ctokens;
		if (toks > cl->cbuffer)
			toks = cl->cbuffer;
		toks -= ntc_rate_l2t(&cl->ceil, p->len);
		if (toks <= -HTB_MBUFFER)
			toks = 1 - HTB_MBUFFER;
		cl->ctokens = toks;
		cl->t_c = now;
		cl->memo_t = INT64_MIN;
		if (old != HTB_CANT_SEND && htb_mode_at(cl, 0) == HTB_CANT_SEND) {
			cl->c.st.overlimits++;
			q->st.overlimits++;
		}
		ntc_stats_sent(&cl->c.st, p);
	}
}

static int64_t htb_next_event(struct htb_priv *pr, int64_t now)
{
	int64_t best = NTC_TIME_MAX;

	for (size_t i = 0; i < pr->nactive; i++) {
		for (struct htb_class *cl = pr->active[i]; cl; cl = cl->parent) {
			int64_t diff = htb_diff(cl, now), t;
			enum htb_mode m = htb_mode_at(cl, diff);

			if (m == HTB_CAN_SEND)
				break;
			t = m == HTB_CANT_SEND ? -(cl->ctokens + diff) : -(cl->tokens + diff);
			if (now + t < best)
				best = now + t;
			if (m == HTB_CANT_SEND)
				break;
		}
	}
	return best;
}

/* Index of the first active leaf with class id >= id (0 if none: wrap around). */
static size_t htb_rr_start(const struct htb_priv *pr, uint32_t id)
{
	size_t lo = 0, hi = pr->nactive;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pr->active[mid]->c.classid < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == pr->nactive ? 0 : lo;
}

/* Sends cl's head packet as the (lv, prio) choice: DRR bookkeeping and charging.
 * false when the leaf's child gave nothing (not work conserving). */
static bool htb_send(struct ntc_qdisc *q, struct htb_class *cl, int lv, uint32_t prio,
		     int64_t now, struct ntc_pkt **ret)
{
	struct htb_priv *pr = q->priv;
	struct ntc_pkt *p = ntc_qdisc_dequeue(cl->c.leaf, now);

	if (!p)
		return false;
	cl->deficit[lv] -= (int32_t)p->len;
	if (cl->deficit[lv] < 0) {
		cl->deficit[lv] += (int32_t)cl->quantum;
		pr->rr[lv][prio] = cl->c.classid + 1;
	} else {
		pr->rr[lv][prio] = cl->c.classid;
	}
	if (!cl->c.leaf->st.qlen)
		htb_deactivate(pr, cl);
	htb_charge(q, cl, lv, p, now);
	*ret = p;
	return true;
}

static struct ntc_pkt *htb_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct htb_priv *pr = q->priv;
	struct ntc_pkt *p = ntc_fifo_pop(&pr->direct);
	int best_lv = HTB_MAXDEPTH;
	uint32_t best_prio = HTB_NUMPRIO;
	size_t n = pr->nactive, start;
	struct htb_class *cand_ge = NULL, *cand_min = NULL;

	if (p)
		goto out;
	/* One pass in round-robin order from the (0, 0) position: the first leaf that
	 * can send at level 0 with prio 0 is the answer; otherwise find the best
	 * (level, prio) and pick among its candidates below. */
	start = htb_rr_start(pr, pr->rr[0][0]);
	for (size_t k = 0; k < n; k++) {
		struct htb_class *cl = pr->active[(start + k) % n];

		cl->elig = htb_elig(cl, now);
		if (cl->elig == 0 && cl->prio == 0) {
			best_lv = 0;
			best_prio = 0;
			if (htb_send(q, cl, 0, 0, now, &p))
				goto out;
		}
		if (cl->elig < best_lv || (cl->elig == best_lv && cl->prio < best_prio)) {
			best_lv = cl->elig;
			best_prio = cl->prio;
			cand_ge = cand_min = NULL;
		}
		if (cl->elig == best_lv && cl->prio == best_prio && best_lv < HTB_MAXDEPTH) {
			/* DRR position: smallest id >= rr, else the smallest id */
			if (cl->c.classid >= pr->rr[best_lv][best_prio] &&
			    (!cand_ge || cl->c.classid < cand_ge->c.classid))
				cand_ge = cl;
			if (!cand_min || cl->c.classid < cand_min->c.classid)
				cand_min = cl;
		}
	}
	if (best_lv == HTB_MAXDEPTH) {
		int64_t t = htb_next_event(pr, now);

		if (t != NTC_TIME_MAX)
			ntc_wake_at(q->dev, t);
		return NULL;
	}
	if (htb_send(q, cand_ge ? cand_ge : cand_min, best_lv, best_prio, now, &p))
		goto out;
	/* the first candidate at or after the round-robin position */
	n = pr->nactive;
	start = htb_rr_start(pr, pr->rr[best_lv][best_prio]);
	for (size_t k = 0; k < n; k++) {
		struct htb_class *cl = pr->active[(start + k) % n];

		if (cl->elig != best_lv || cl->prio != best_prio)
			continue;
		if (htb_send(q, cl, best_lv, best_prio, now, &p))
			goto out;
	}
	return NULL;
out:
	ntc_qdisc_dequeued(q, p);
	return p;
}

static void htb_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
	struct htb_priv *pr = q->priv;

	ucg_buf_printf(b, "r2q %u default %#x direct_packets_stat %u direct_qlen %u", pr->r2q,
		       pr->defcls, pr->direct_pkts, pr->direct_qlen);
}

/* ---- classes ---- */

static void htb_set_params(struct ntc_qdisc *q, struct htb_class *cl, const struct htb_copt *o,
			   struct ucg_buf *warn)
{
	struct htb_priv *pr = q->priv;

	ntc_rate_init(&cl->rate, o->rate, (uint16_t)o->overhead, (uint16_t)o->mpu, o->atm);
	ntc_rate_init(&cl->ceil, o->ceil, (uint16_t)o->overhead, (uint16_t)o->mpu, o->atm);
	cl->buffer = ntc_ticks2ns(o->buffer);
	cl->cbuffer = ntc_ticks2ns(o->cbuffer);
	cl->memo_t = INT64_MIN;
	cl->prio = o->prio >= HTB_NUMPRIO ? HTB_NUMPRIO - 1 : o->prio;
	cl->quantum_set = o->quantum != 0;
	if (!cl->level) {
		uint64_t quantum = o->quantum;

		if (!quantum) {
			quantum = cl->rate.rate / pr->r2q;
			if (quantum < 1000) {
				if (warn)
					ucg_buf_printf(warn, "Warning: sch_htb: quantum of class %X is small. Consider r2q change.\n",
						       cl->c.classid);
				quantum = 1000;
			}
			if (quantum > 200000) {
				if (warn)
					ucg_buf_printf(warn, "Warning: sch_htb: quantum of class %X is big. Consider r2q change.\n",
						       cl->c.classid);
				quantum = 200000;
			}
		}
		cl->quantum = (uint32_t)quantum;
	}
}

static int htb_class_change(struct ntc_qdisc *q, uint32_t classid, uint32_t parentid,
			    struct ntc_class *existing, const void *o, struct ucg_buf *warn,
			    struct ntc_err *err)
{
	struct htb_priv *pr = q->priv;
	const struct htb_copt *opt = o;
	struct htb_class *cl, *parent = NULL;
	struct ntc_qdisc *leaf = NULL;
	struct htb_class **act;
	int r;

	if (existing) {
		cl = H(existing);
		htb_set_params(q, cl, opt, warn);
		return 0;
	}
	if (NTC_H_MAJ(classid) != q->handle || !NTC_H_MIN(classid))
		return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	if (parentid != NTC_H_ROOT && parentid != q->handle)
		parent = htb_find(q, parentid);
	if (parent && parent->level == 0 && parent->parent && parent->parent->level <= 1)
		return ntc_err_set(err, 2, -EOPNOTSUPP, "Error: sch_htb: tree is too deep.");
	if (opt->rate == 0 || opt->ceil == 0)
		return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	/* allocate everything first */
	cl = ucg_calloc(1, sizeof(*cl));
	if (!cl)
		goto nomem;
	cl->c.classid = classid;
	leaf = ntc_qdisc_default_child(q->dev, classid);
	if (!leaf)
		goto nomem;
	if (ntc_class_reserve(q, 1) < 0)
		goto nomem;
	if (pr->active_cap < q->nclasses + 1) {
		act = ucg_realloc(pr->active, (q->nclasses + 8) * sizeof(*act));
		if (!act)
			goto nomem;
		pr->active = act;
		pr->active_cap = q->nclasses + 8;
	}
	/* commit */
	leaf->parent_q = q;
	cl->c.leaf = leaf;
	cl->parent = parent;
	cl->c.parent = parent ? &parent->c : NULL;
	if (parent && parent->level == 0) {
		/* the parent turns inner: its queue is dropped, its child destroyed */
		struct ntc_qdisc *old = parent->c.leaf;

		htb_deactivate(pr, parent);
		ntc_tree_reduce_backlog(old, old->st.qlen, old->st.backlog);
		ntc_qdisc_destroy(old);
		parent->c.leaf = NULL;
		parent->level = (parent->parent ? parent->parent->level : HTB_MAXDEPTH) - 1;
	}
	if (parent)
		parent->children++;
	htb_set_params(q, cl, opt, warn);
	cl->tokens = cl->buffer;
	cl->ctokens = cl->cbuffer;
	cl->t_c = 0;
	r = ntc_class_insert(q, &cl->c);
	(void)r; /* reserved above */
	return 0;
nomem:
	ntc_qdisc_destroy(leaf);
	ucg_free(cl);
	return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
}

static int htb_class_delete(struct ntc_qdisc *q, struct ntc_class *c, struct ntc_err *err)
{
	struct htb_priv *pr = q->priv;
	struct htb_class *cl = H(c), *parent = cl->parent;
	struct ntc_qdisc *newleaf = NULL;

	if (cl->children || c->filter_refs)
		return ntc_err_set(err, 2, -EBUSY, "Error: HTB class in use.");
	if (parent && parent->children == 1) {
		newleaf = ntc_qdisc_default_child(q->dev, parent->c.classid);
		if (!newleaf)
			return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
		newleaf->parent_q = q;
	}
	htb_deactivate(pr, cl);
	if (c->leaf) {
		ntc_tree_reduce_backlog(c->leaf, c->leaf->st.qlen, c->leaf->st.backlog);
		ntc_qdisc_destroy(c->leaf);
	}
	ntc_filters_destroy(q, &c->filters);
	ntc_class_remove(q, c);
	if (parent) {
		parent->children--;
		if (!parent->children) {
			parent->level = 0;
			parent->c.leaf = newleaf;
			memset(parent->deficit, 0, sizeof(parent->deficit));
			parent->tokens = parent->buffer;
			parent->ctokens = parent->cbuffer;
			parent->memo_t = INT64_MIN;
		}
	}
	ucg_free(cl);
	return 0;
}

static struct ntc_qdisc *htb_graft(struct ntc_qdisc *q, struct ntc_class *c,
				   struct ntc_qdisc *newq)
{
	struct ntc_qdisc *old = c->leaf;

	if (!newq)
		newq = ntc_qdisc_default_child(q->dev, c->classid);
	if (!newq)
		return NULL;
	newq->parent_q = q;
	c->leaf = newq;
	htb_deactivate(q->priv, H(c));
	return old;
}

static bool htb_class_has_children(struct ntc_class *c)
{
	return H(c)->children != 0;
}

static void htb_class_dump(struct ntc_qdisc *q, struct ntc_class *c, struct ucg_buf *b,
			   bool details)
{
	struct htb_class *cl = H(c);

	if (!cl->level) {
		ucg_buf_printf(b, "prio %u ", cl->prio);
		if (details)
			ucg_buf_printf(b, "quantum %u ", cl->quantum);
	}
	ucg_buf_puts(b, "rate ");
	ntc_print_rate(b, cl->rate.rate);
	if (details && cl->rate.overhead)
		ucg_buf_printf(b, " overhead %u", cl->rate.overhead);
	ucg_buf_puts(b, " ceil ");
	ntc_print_rate(b, cl->ceil.rate);
	if (details)
		ucg_buf_printf(b, " linklayer %s", cl->rate.atm ? "atm" : "ethernet");
	ucg_buf_puts(b, " burst ");
	ntc_print_size(b, ntc_xmitsize(cl->rate.rate, (uint32_t)(cl->buffer >> 6)));
	if (details) {
		ucg_buf_puts(b, "/1 mpu ");
		ntc_print_size(b, cl->rate.mpu);
	}
	ucg_buf_puts(b, " cburst ");
	ntc_print_size(b, ntc_xmitsize(cl->ceil.rate, (uint32_t)(cl->cbuffer >> 6)));
	if (details) {
		ucg_buf_puts(b, "/1 mpu ");
		ntc_print_size(b, cl->ceil.mpu);
		ucg_buf_printf(b, " level %d", cl->level);
	}
	ucg_buf_putc(b, ' ');
}

static void htb_class_xstats(struct ntc_qdisc *q, struct ntc_class *c, struct ucg_buf *b)
{
	struct htb_class *cl = H(c);

	ucg_buf_printf(b, "\n lended: %u borrowed: %u giants: 0\n tokens: %d ctokens: %d",
		       cl->lends, cl->borrows, (int)(cl->tokens >> 6), (int)(cl->ctokens >> 6));
}

const struct ntc_qdisc_ops ntc_htb_ops = {
	.kind = "htb",
	.priv_size = sizeof(struct htb_priv),
	.classful = true,
	.user_classes = true,
	.class_stats = true,
	.top_classes_root = true,
	.takes_filters = true,
	.filters_on_classes = true,
	.parse = htb_parse,
	.init = htb_init,
	.destroy = htb_destroy,
	.enqueue = htb_enqueue,
	.dequeue = htb_dequeue,
	.dump = htb_dump,
	.class_parse = htb_class_parse,
	.class_change = htb_class_change,
	.class_delete = htb_class_delete,
	.graft = htb_graft,
	.class_dump = htb_class_dump,
	.class_dump_xstats = htb_class_xstats,
	.class_has_children = htb_class_has_children,
};
