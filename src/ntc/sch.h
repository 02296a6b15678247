/* ntc/sch.h — internals shared by the model's core, its qdiscs and its classifiers.
 *
 * A qdisc is an ops table (struct ntc_qdisc_ops) plus private data that follows the
 * generic struct ntc_qdisc in one allocation. Classes are kind-specific structs that
 * begin with struct ntc_class; the owning qdisc keeps them in a sorted array so that
 * the core can find, list and delete them. Filters are kept in chains sorted by
 * preference (struct ntc_filter), one chain per qdisc and per HTB class.
 */
#ifndef UCG_NTC_SCH_H
#define UCG_NTC_SCH_H

#include <errno.h>
#include <stdbool.h>

#include "ntc/ntc.h"

#define NTC_H_ROOT 0xFFFFFFFFu
#define NTC_H_UNSPEC 0u
#define NTC_H_MAJ(h) ((h) & 0xFFFF0000u)
#define NTC_H_MIN(h) ((h) & 0x0000FFFFu)
#define NTC_H_MAKE(maj, min) (((maj) & 0xFFFF0000u) | ((min) & 0xFFFFu))

/* Enqueue results, as the kernel's NET_XMIT_*. */
#define NTC_XMIT_SUCCESS 0
#define NTC_XMIT_DROP 1 /* this packet was dropped */
#define NTC_XMIT_CN 2   /* congestion: the queue did not grow (this packet or another
			 * was dropped and released); the callee already fixed its own
			 * and its ancestors' backlog, the caller counts a drop and does
			 * not count the packet as queued (the kernel's NET_XMIT_CN) */

struct ntc_qdisc;
struct ntc_class;
struct ntc_filter;

struct ntc_stats {
	uint64_t bytes, packets;
	uint32_t drops, overlimits, requeues;
	uint32_t qlen;    /* packets queued here and below */
	uint64_t backlog; /* bytes queued here and below */
};

struct ntc {
	struct ntc_dev *devs; /* ifindex order */
	int next_ifindex;
	uint32_t auto_handle; /* last automatic qdisc major (8001.. wrapping), per instance */
	void (*release)(void *ctx, struct ntc_pkt *p);
	void *release_ctx;
	uint64_t seed; /* for sfq's hash keys (deterministic) */
	uint64_t seq;  /* qdisc creation counter */
	char disabled[16][16]; /* kinds this "kernel" lacks */
	int ndisabled;
};

struct ntc_dev {
	struct ntc_dev *next;
	struct ntc *ntc;
	char name[16];
	int ifindex;
	uint64_t rate; /* bytes per second of the link, 0 unknown */
	unsigned txqlen, mtu, ntxq, flags;
	struct ntc_qdisc *root; /* never NULL */
	int64_t wake;           /* dequeue pass: earliest time a throttled qdisc can send */
};

/* Parsed options of one kind; each kind casts it to its own struct. */
#define NTC_OPT_MAX 256

struct ntc_qdisc_ops {
	const char *kind;
	size_t priv_size;
	bool classful;
	/* tc-side parsing of KIND-OPTIONS into opt (NTC_OPT_MAX bytes, zeroed). 0, 1
	 * when tc would send no options at all, or -EINVAL with err filled (exit code
	 * as tc's). */
	int (*parse)(struct ntc_dev *d, int argc, char **argv, void *opt, struct ntc_err *err);
	/* Kernel side. init on a fresh qdisc (opt may be NULL for kernel-made ones). */
	int (*init)(struct ntc_qdisc *q, const void *opt, struct ntc_err *err);
	/* Validate everything before changing anything. NULL: no change operation. */
	int (*change)(struct ntc_qdisc *q, const void *opt, struct ntc_err *err);
	void (*destroy)(struct ntc_qdisc *q); /* release children and queued packets */
	int (*enqueue)(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now);
	struct ntc_pkt *(*dequeue)(struct ntc_qdisc *q, int64_t now);
	struct ntc_pkt *(*peek)(struct ntc_qdisc *q); /* head without removing */
	void (*dump)(struct ntc_qdisc *q, struct ucg_buf *b, bool details);
	void (*dump_xstats)(struct ntc_qdisc *q, struct ucg_buf *b); /* after backlog line */

	/* Classful kinds. */
	bool user_classes; /* classes may be added / deleted (htb, drr) */
	int (*class_parse)(struct ntc_dev *d, int argc, char **argv, void *opt,
			   struct ntc_err *err);
	/* Add (existing NULL) or change a class; validate first. warn may receive a
	 * warning line. */
	int (*class_change)(struct ntc_qdisc *q, uint32_t classid, uint32_t parentid,
			    struct ntc_class *existing, const void *opt, struct ucg_buf *warn,
			    struct ntc_err *err);
	int (*class_delete)(struct ntc_qdisc *q, struct ntc_class *cl, struct ntc_err *err);
	/* Replace cl's child by newq (NULL: the kind's default after a delete); returns
	 * the old child, which the caller destroys. */
	struct ntc_qdisc *(*graft)(struct ntc_qdisc *q, struct ntc_class *cl,
				   struct ntc_qdisc *newq);
	void (*class_dump)(struct ntc_qdisc *q, struct ntc_class *cl, struct ucg_buf *b,
			   bool details);
	void (*class_dump_xstats)(struct ntc_qdisc *q, struct ntc_class *cl,
				  struct ucg_buf *b);
	bool (*class_has_children)(struct ntc_class *cl);
	bool filters_on_classes; /* htb: filters may hang off classes */
	bool takes_filters;      /* the qdisc has a filter chain (classful and sfq) */
	bool class_stats;
	bool top_classes_root;   /* top-level classes show "root" (htb), else "parent M:" */        /* tc -s prints counters for its classes */
	bool no_tc_options;      /* tc has no option parser for it: sends no options, so a
				  * change without change op is a no-op instead of an error */
};

struct ntc_class {
	uint32_t classid;
	struct ntc_class *parent; /* NULL for top level */
	struct ntc_qdisc *leaf;   /* child qdisc, NULL for inner classes */
	struct ntc_stats st;
	struct ntc_filter *filters; /* chain used when classification reaches this class */
	unsigned filter_refs;       /* filters whose target is this class */
	struct ntc_class *hnext;    /* next in its class hash bucket (ntc_class_insert) */
};

struct ntc_qdisc {
	const struct ntc_qdisc_ops *ops;
	struct ntc_dev *dev;
	uint32_t handle;          /* M:0; 0 for kernel-made qdiscs */
	uint32_t parent;          /* NTC_H_ROOT or the class id */
	struct ntc_qdisc *parent_q; /* NULL at the root */
	struct ntc_stats st;
	struct ntc_filter *filters;
	unsigned u32_next_ht; /* u32 hash table ids handed out under this qdisc */
	struct ntc_class **classes; /* sorted by classid; owned by the kind */
	size_t nclasses, classes_cap;
	/* The kernel's class hash (Qdisc_class_hash) of the kinds whose classes come and
	 * go (htb, drr): buckets of classes newest first, doubled when more than 3/4
	 * full. `tc class show` lists in its walk order. NULL for fixed-class kinds. */
	struct ntc_class **clhash;
	unsigned clhash_size;
	size_t clhash_elems;
	uint64_t seq;  /* creation order, for the listing order */
	struct ntc_pkt *peeked; /* head taken by ntc_qdisc_peek from a kind without peek */
	bool hidden;   /* never listed (the noop left under a tbf) */
	void *priv; /* kind data (follows the struct) */
};

/* ---- classifiers ---- */

struct ntc_cls_ops {
	const char *kind;
	/* Parses KIND-ARGS into f (handle, classid, priv). */
	int (*parse)(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
		     struct ntc_err *err);
	/* 1 and *ret_classid on a match, 0 otherwise. */
	int (*classify)(const struct ntc_filter *f, const struct ntc_qdisc *q,
			const struct ntc_pkt *p, uint32_t *ret_classid);
	/* Prints the element line(s) after the common "filter parent ... KIND chain 0 ". */
	void (*dump)(const struct ntc_filter *f, struct ucg_buf *b);
	void (*dump_head)(const struct ntc_filter *f, struct ucg_buf *b); /* extra group lines */
	void (*destroy)(struct ntc_filter *f);
	bool needs_handle;
};

struct ntc_filter {
	struct ntc_filter *next; /* chain: ascending prio, then insertion order */
	const struct ntc_cls_ops *ops;
	uint16_t prio;
	uint16_t protocol; /* ethertype, NTC_ETH_P_ALL for all */
	uint32_t handle;
	uint32_t classid; /* target, 0 when none */
	struct ntc_class *target; /* class counted as referenced, or NULL */
	uint32_t ht;              /* u32: hash table id of the group */
	void *priv;
};

/* ---- core helpers (qdisc.c) ---- */

int ntc_err_set(struct ntc_err *err, int exit_code, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline uint32_t ntc_pkt_segs(const struct ntc_pkt *p)
{
	return p->segs ? p->segs : 1;
}
void ntc_drop_pkt(struct ntc_qdisc *q, struct ntc_pkt *p); /* counts and releases */
void ntc_release(struct ntc_dev *d, struct ntc_pkt *p);
/* After a qdisc removed n packets of len bytes on its own (head drop, overflow),
 * reduce every ancestor's queue and count n drops there. len may be "negative"
 * (two's complement) when a smaller packet replaced a larger one. */
void ntc_tree_reduce_backlog(struct ntc_qdisc *q, uint32_t n, uint64_t len);
/* A throttled qdisc says when it can next send. */
static inline void ntc_wake_at(struct ntc_dev *d, int64_t t)
{
	if (t < d->wake)
		d->wake = t;
}

struct ntc_qdisc *ntc_qdisc_lookup(struct ntc_dev *d, uint32_t handle); /* NULL if absent */
/* A 64-bit pseudo-random value from the instance's seeded generator. */
uint64_t ntc_random(struct ntc *n);
/* Creates a qdisc of ops for d (handle 0 = kernel made). opt NULL = defaults. */
int ntc_qdisc_create(struct ntc_dev *d, const struct ntc_qdisc_ops *ops, uint32_t handle,
		     uint32_t parent, const void *opt, struct ntc_err *err,
		     struct ntc_qdisc **ret);
void ntc_qdisc_destroy(struct ntc_qdisc *q); /* whole subtree, NULL fine */
/* Kernel default child: pfifo with the device queue length. NULL on ENOMEM (then
 * callers fall back to noop, which needs no memory beyond the struct... or fail). */
struct ntc_qdisc *ntc_qdisc_default_child(struct ntc_dev *d, uint32_t parent);
struct ntc_qdisc *ntc_qdisc_noop(struct ntc_dev *d, uint32_t parent);

/* Class index kept by classful kinds. */
int ntc_class_insert(struct ntc_qdisc *q, struct ntc_class *cl); /* -ENOMEM */
void ntc_class_remove(struct ntc_qdisc *q, struct ntc_class *cl);
struct ntc_class *ntc_class_find(const struct ntc_qdisc *q, uint32_t classid);
int ntc_class_reserve(struct ntc_qdisc *q, size_t more); /* make insert infallible */

/* Runs a filter chain: 1 and *ret_classid at the first match, else 0. */
int ntc_classify(const struct ntc_filter *chain, const struct ntc_qdisc *q,
		 const struct ntc_pkt *p, uint32_t *ret_classid);
void ntc_filters_destroy(struct ntc_qdisc *q, struct ntc_filter **chain);

/* Generic enqueue into a class's child with parent accounting: returns the child's
 * verdict; counts drops on cl and q. */
int ntc_class_enqueue(struct ntc_qdisc *q, struct ntc_class *cl, struct ntc_pkt *p,
		      int64_t now);
/* Enqueue into child qdisc c with accounting on the caller q (no class). */
int ntc_child_enqueue(struct ntc_qdisc *q, struct ntc_qdisc *c, struct ntc_pkt *p,
		      int64_t now);
static inline void ntc_stats_sent(struct ntc_stats *s, const struct ntc_pkt *p)
{
	s->bytes += p->len;
	s->packets += ntc_pkt_segs(p);
}
/* Each qdisc keeps its own qlen/backlog: +1 in its enqueue on success, and this
 * bookkeeping (qlen/backlog/Sent) in its dequeue. */
static inline void ntc_qdisc_queued(struct ntc_qdisc *q, const struct ntc_pkt *p)
{
	q->st.qlen++;
	q->st.backlog += p->len;
}
static inline void ntc_qdisc_dequeued(struct ntc_qdisc *q, const struct ntc_pkt *p)
{
	q->st.qlen--;
	q->st.backlog -= p->len;
	ntc_stats_sent(&q->st, p);
}

/* Peek/dequeue a child through the stash (kinds without a peek op are dequeued and
 * the packet kept aside, as the kernel's qdisc_peek_dequeued). */
struct ntc_pkt *ntc_qdisc_peek(struct ntc_qdisc *q, int64_t now);
struct ntc_pkt *ntc_qdisc_dequeue(struct ntc_qdisc *q, int64_t now);

/* A rate as the kernel keeps it: bytes/s with a multiply-shift reciprocal, so that
 * transmission times truncate exactly as psched_l2t_ns does. */
struct ntc_rate {
	uint64_t rate; /* bytes per second */
	uint32_t mult;
	uint8_t shift;
	uint8_t atm;   /* linklayer atm: 48-byte cells charged 53 */
	uint16_t overhead, mpu;
};
void ntc_rate_init(struct ntc_rate *r, uint64_t rate, uint16_t overhead, uint16_t mpu, bool atm);
static inline int64_t ntc_rate_l2t(const struct ntc_rate *r, uint32_t len)
{
	uint64_t l = (uint64_t)len + r->overhead;

	if (l < r->mpu)
		l = r->mpu;
	if (r->atm)
		l = ((l + 47) / 48) * 53;
	return (int64_t)((l * r->mult) >> r->shift);
}

/* ---- units and formats (util.c) ---- */

bool ntc_matches(const char *arg, const char *word); /* arg is a prefix of word */
int ntc_get_rate(const char *s, uint64_t *ret_bytes_per_sec);    /* -EINVAL */
int ntc_get_size(const char *s, uint32_t *ret_bytes);           /* -EINVAL */
int ntc_get_time(const char *s, uint32_t *ret_usec);             /* -EINVAL */
int ntc_get_u32(const char *s, int base, uint32_t *ret);
int ntc_get_handle(const char *s, uint32_t *ret);  /* class id grammar */
int ntc_get_qhandle(const char *s, uint32_t *ret); /* qdisc handle grammar */
void ntc_print_rate(struct ucg_buf *b, uint64_t bytes_per_sec);
void ntc_print_size(struct ucg_buf *b, uint32_t bytes);
void ntc_print_time(struct ucg_buf *b, uint32_t usec);
void ntc_print_handle(struct ucg_buf *b, uint32_t h);
/* tc's rate-table arithmetic: bytes at rate → psched ticks (64 ns) as tc computes
 * them, and back to the size tc displays. */
uint32_t ntc_xmittime(uint64_t rate, uint32_t size);
uint32_t ntc_xmitsize(uint64_t rate, uint32_t ticks);
uint32_t ntc_tick2time(uint32_t ticks); /* usec, truncated as tc does */
uint32_t ntc_d2u32(double v);           /* tc's double -> unsigned, without UB */
static inline int64_t ntc_ticks2ns(uint32_t ticks)
{
	return (int64_t)ticks << 6;
}
/* Time to send len bytes at rate bytes/s, in ns (the kernel's psched_l2t_ns). */
static inline int64_t ntc_l2t(uint64_t rate, uint32_t len)
{
	return rate ? (int64_t)(((unsigned __int128)len * NTC_NSEC_PER_SEC) / rate) : 0;
}
void ntc_print_stats(struct ucg_buf *b, const struct ntc_stats *s);
/* A classifier's arguments when they can only be "classid ID" or "flowid ID": sets
 * f->classid; errors name kind. 0 or -EINVAL with err set. */
int ntc_cls_parse_classid(struct ntc_filter *f, int argc, char **argv, struct ntc_err *err,
			  const char *kind);

/* ---- the kinds ---- */

extern const struct ntc_qdisc_ops ntc_pfifo_ops, ntc_bfifo_ops, ntc_pfifo_head_drop_ops,
	ntc_pfifo_fast_ops, ntc_noqueue_ops, ntc_noop_ops, ntc_prio_ops, ntc_tbf_ops,
	ntc_sfq_ops, ntc_htb_ops, ntc_drr_ops;
extern const struct ntc_cls_ops ntc_cls_u32_ops, ntc_cls_cgroup_ops, ntc_cls_fw_ops,
	ntc_cls_basic_ops, ntc_cls_matchall_ops;

const struct ntc_qdisc_ops *ntc_qdisc_ops_find(const char *kind);
const struct ntc_cls_ops *ntc_cls_ops_find(const char *kind);
bool ntc_kind_disabled(const struct ntc *n, const char *kind);

/* fifo helpers used by kinds with internal queues */
struct ntc_fifo {
	struct ntc_pkt *head, *tail;
	uint32_t qlen;
	uint64_t bytes;
};
static inline void ntc_fifo_push(struct ntc_fifo *f, struct ntc_pkt *p)
{
	p->next = NULL;
	if (f->tail)
		f->tail->next = p;
	else
		f->head = p;
	f->tail = p;
	f->qlen++;
	f->bytes += p->len;
}
static inline struct ntc_pkt *ntc_fifo_pop(struct ntc_fifo *f)
{
	struct ntc_pkt *p = f->head;

	if (p) {
		f->head = p->next;
		if (!f->head)
			f->tail = NULL;
		p->next = NULL;
		f->qlen--;
		f->bytes -= p->len;
	}
	return p;
}
/* fifo limit setter for tbf's child (change of tbf limit updates a fifo child). */
void ntc_fifo_set_limit(struct ntc_qdisc *q, uint32_t limit);
int ntc_fifo_create_bfifo(struct ntc_dev *d, uint32_t parent, uint32_t limit,
			  struct ntc_qdisc **ret);

#endif
