/* ntc/tc.c — the tc(8) command grammar on a model instance (listings: tc_show.c).
 *
 * Each command is split as tc splits it: the client-side part (keyword matching,
 * units, the kind's option parser, "Cannot find device") fails with tc's own message
 * and exit status 1 or 255; the kernel-side part (tc_modify_qdisc, tc_ctl_tclass,
 * tc_new_tfilter) fails with the kernel's extack text ("Error: ...") or "RTNETLINK
 * answers: ..." and status 2. Every kernel-side operation validates and allocates
 * before it changes anything, so a failed command leaves no trace.
 */
#include "ntc/tc_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

enum { CMD_ADD, CMD_CHANGE, CMD_REPLACE, CMD_DEL, CMD_SHOW };

static int kerr(struct ntc_err *e, int ret, const char *msg)
{
	return ntc_err_set(e, 2, ret, "Error: %s.", msg);
}

/* ---- qdisc add / change / replace / del ---- */

#define F_CREATE 1
#define F_EXCL 2
#define F_REPLACE 4

static uint32_t alloc_handle(struct ntc_dev *d)
{
	struct ntc *n = d->ntc;

	for (int i = 0; i < 0x8000; i++) {
		n->auto_handle += 0x10000u;
		if (n->auto_handle == 0xFFFF0000u)
			n->auto_handle = 0x80000000u;
		if (!ntc_qdisc_lookup(d, n->auto_handle))
			return n->auto_handle;
	}
	return 0;
}

/* Finds the child slot of class clid in p: -ENOENT with a message if absent. */
static int find_leaf(struct ntc_qdisc *p, uint32_t clid, struct ntc_class **ret,
		     struct ntc_err *e)
{
	struct ntc_class *cl;

	if (!p->ops->classful)
		return kerr(e, -EINVAL, "Specified qdisc not classful");
	cl = ntc_class_find(p, clid);
	if (!cl)
		return kerr(e, -ENOENT, "Specified class not found");
	if (!cl->leaf) /* an inner class holds no qdisc */
		return ntc_err_set(e, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	*ret = cl;
	return 0;
}

/* Attaches newq (NULL: the kind's default after a delete) at the root or under cl;
 * the old qdisc and its packets are destroyed. -ENOMEM leaves everything as it was
 * (newq stays the caller's). */
static int graft(struct ntc_dev *d, struct ntc_qdisc *p, struct ntc_class *cl,
		 struct ntc_qdisc *newq, struct ntc_err *e)
{
	struct ntc_qdisc *old;

	if (!p) {
		old = d->root;
		d->root = newq;
		newq->parent_q = NULL;
		ntc_qdisc_destroy(old);
		return 0;
	}
	old = p->ops->graft(p, cl, newq);
	if (!old)
		return ntc_err_set(e, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
	ntc_tree_reduce_backlog(old, old->st.qlen, old->st.backlog);
	ntc_qdisc_destroy(old);
	return 0;
}

static int qdisc_modify(struct tc_ctx *c, int cmd, int argc, char **argv)
{
	struct ntc_err *e = c->err;
	const char *dev = NULL, *kind = NULL;
	uint32_t handle = 0, parent = 0;
	bool has_handle = false, has_parent = false;
	const struct ntc_qdisc_ops *ops = NULL;
	unsigned char opt[NTC_OPT_MAX];
	bool has_opt = false;
	struct ntc_qdisc *p = NULL, *q = NULL, *newq;
	struct ntc_class *cl = NULL;
	struct ntc_dev *d;
	int flags = cmd == CMD_ADD ? F_CREATE | F_EXCL : cmd == CMD_REPLACE ? F_CREATE | F_REPLACE : 0;
	int i, r;

	memset(opt, 0, sizeof(opt));
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "dev")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (dev)
				return ntc_err_set(e, 255, -EINVAL, "Error: duplicate \"dev\": \"%s\" is the second value.", argv[i]);
			dev = argv[i];
		} else if (!strcmp(a, "handle")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (handle)
				return ntc_err_set(e, 255, -EINVAL, "Error: duplicate \"handle\": \"%s\" is the second value.", argv[i]);
			if (ntc_get_qhandle(argv[i], &handle) < 0)
				return ntc_err_set(e, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid qdisc ID", argv[i]);
			has_handle = handle != 0;
		} else if (!strcmp(a, "root")) {
			if (parent)
				return ntc_err_set(e, 255, -EINVAL, "Error: \"root\" is duplicate parent ID");
			parent = NTC_H_ROOT;
			has_parent = true;
		} else if (!strcmp(a, "parent")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (parent)
				return ntc_err_set(e, 255, -EINVAL, "Error: duplicate \"parent\": \"%s\" is the second value.", argv[i]);
			if (ntc_get_handle(argv[i], &parent) < 0)
				return ntc_err_set(e, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid parent ID", argv[i]);
			has_parent = parent != 0;
		} else if (ntc_matches(a, "help")) {
			return ntc_err_set(e, 255, -EINVAL, "Usage: tc qdisc [ add | del | replace | change | show ] dev STRING");
		} else {
			kind = a;
			i++;
			break;
		}
	}
	if (kind) {
		ops = ntc_qdisc_ops_find(kind);
		if (ops && ops->parse) {
			r = ops->parse(NULL, argc - i, argv + i, opt, e);
			if (r < 0)
				return r;
			has_opt = r == 0;
		} else if (ops && argc - i > 0) {
			return ntc_err_set(e, 255, -EINVAL, "qdisc '%s' does not support option parsing", kind);
		} else if (!ops && argc - i > 0) {
			return ntc_err_set(e, 1, -EINVAL,
					   "Unknown qdisc \"%s\", hence option \"%s\" is unparsable", kind,
					   argv[i]);
		}
	}
	if (!dev)
		return ntc_err_set(e, 2, -ENODEV, "RTNETLINK answers: No such device");
	d = ntc_dev_find(c->n, dev);
	if (!d)
		return ntc_err_set(e, 1, -ENODEV, "Cannot find device \"%s\"", dev);
	(void)has_handle;

	if (cmd == CMD_DEL) {
		if (has_parent) {
			if (parent != NTC_H_ROOT) {
				p = ntc_qdisc_lookup(d, NTC_H_MAJ(parent));
				if (!p)
					return kerr(e, -ENOENT, "Failed to find qdisc with specified classid");
				r = find_leaf(p, parent, &cl, e);
				if (r < 0)
					return r;
				q = cl->leaf;
			} else {
				q = d->root;
			}
			if (!q || q->hidden)
				return kerr(e, -ENOENT, "Cannot find specified qdisc on specified device");
			if (handle && q->handle != handle)
				return kerr(e, -EINVAL, "Invalid handle");
		} else {
			q = ntc_qdisc_lookup(d, handle);
			if (!q)
				return kerr(e, -ENOENT, "Failed to find qdisc with specified handle");
		}
		if (kind && strcmp(kind, q->ops->kind))
			return kerr(e, -EINVAL, "Invalid qdisc name");
		if (!has_parent)
			return kerr(e, -EINVAL, "Classid cannot be zero");
		if (q->handle == 0)
			return kerr(e, -ENOENT, "Cannot delete qdisc with handle of zero");
		if (!p) {
			const struct ntc_qdisc_ops *dops =
				(d->flags & NTC_DEV_NOQUEUE) ? &ntc_noqueue_ops : &ntc_pfifo_fast_ops;

			r = ntc_qdisc_create(d, dops, 0, NTC_H_ROOT, NULL, e, &newq);
			if (r < 0)
				return r;
			return graft(d, NULL, NULL, newq, e);
		}
		return graft(d, p, cl, NULL, e);
	}

	if (has_parent) {
		if (parent != NTC_H_ROOT) {
			p = ntc_qdisc_lookup(d, NTC_H_MAJ(parent));
			if (!p)
				return kerr(e, -ENOENT, "Failed to find specified qdisc");
			r = find_leaf(p, parent, &cl, e);
			if (r < 0)
				return r;
			q = cl->leaf;
		} else {
			q = d->root;
		}
		if (q && (q->handle == 0 || q->hidden))
			q = NULL;
		if (!q || !handle || q->handle != handle) {
			if (handle) {
				if (q && !(flags & F_REPLACE))
					return kerr(e, -EEXIST, "NLM_F_REPLACE needed to override");
				q = ntc_qdisc_lookup(d, handle);
				if (!q)
					goto create_n_graft;
				if (flags & F_EXCL)
					return kerr(e, -EEXIST, "Exclusivity flag on, cannot override");
				if (kind && strcmp(kind, q->ops->kind))
					return kerr(e, -EINVAL, "Invalid qdisc name");
				/* moving an existing qdisc elsewhere is not modelled */
				return kerr(e, -EINVAL, "Qdisc parent/child loop detected");
			}
			if (!q)
				goto create_n_graft;
			if ((flags & F_CREATE) && (flags & F_REPLACE) &&
			    ((flags & F_EXCL) || (kind && strcmp(kind, q->ops->kind))))
				goto create_n_graft;
		}
	} else {
		if (!handle)
			return kerr(e, -EINVAL, "Handle cannot be zero");
		q = ntc_qdisc_lookup(d, handle);
	}
	if (!q)
		return kerr(e, -ENOENT, "Specified qdisc not found");
	if (flags & F_EXCL)
		return kerr(e, -EEXIST, "Exclusivity flag on, cannot modify");
	if (kind && strcmp(kind, q->ops->kind))
		return kerr(e, -EINVAL, "Invalid qdisc name: must match existing qdisc");
	/* the kernel changes only when options were sent */
	if (!has_opt)
		return 0;
	if (!q->ops->change)
		return kerr(e, -EINVAL, "Change operation not supported by specified qdisc");
	return q->ops->change(q, opt, e);

create_n_graft:
	if (!(flags & F_CREATE))
		return kerr(e, -ENOENT, "Qdisc not found. To create specify NLM_F_CREATE flag");
	if (!ops || ops == &ntc_noop_ops || ntc_kind_disabled(d->ntc, ops->kind))
		return kerr(e, -ENOENT, "Specified qdisc kind is unknown");
	if (!handle) {
		handle = alloc_handle(d);
		if (!handle)
			return ntc_err_set(e, 2, -ENOSPC, "RTNETLINK answers: No space left on device");
	}
	r = ntc_qdisc_create(d, ops, handle, p ? parent : NTC_H_ROOT, has_opt ? opt : NULL, e, &newq);
	if (r < 0)
		return r;
	newq->parent_q = p;
	r = graft(d, p, cl, newq, e);
	if (r < 0)
		ntc_qdisc_destroy(newq);
	return r;
}

/* ---- classes ---- */

static int class_modify(struct tc_ctx *c, int cmd, int argc, char **argv)
{
	struct ntc_err *e = c->err;
	const char *dev = NULL, *kind = NULL;
	uint32_t classid = 0, parent = 0;
	unsigned char opt[NTC_OPT_MAX];
	const struct ntc_qdisc_ops *ops = NULL;
	struct ntc_qdisc *q;
	struct ntc_class *cl;
	struct ntc_dev *d;
	int i, r;

	memset(opt, 0, sizeof(opt));
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "dev")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			dev = argv[i];
		} else if (!strcmp(a, "classid")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (ntc_get_handle(argv[i], &classid) < 0)
				return ntc_err_set(e, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid class ID", argv[i]);
		} else if (!strcmp(a, "root")) {
			parent = NTC_H_ROOT;
		} else if (!strcmp(a, "parent")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (ntc_get_handle(argv[i], &parent) < 0)
				return ntc_err_set(e, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid parent ID", argv[i]);
		} else {
			kind = a;
			i++;
			break;
		}
	}
	if (kind) {
		ops = ntc_qdisc_ops_find(kind);
		if (!ops || !ops->classful || !ops->class_parse) {
			if (!ops)
				return ntc_err_set(e, 1, -EINVAL, "Error: Qdisc \"%s\" is classless.", kind);
			if (!ops->classful)
				return ntc_err_set(e, 1, -EINVAL, "Error: Qdisc \"%s\" is classless.", kind);
			if (argc - i > 0)
				return ntc_err_set(e, 1, -EINVAL, "Unknown class options \"%s\"", argv[i]);
		} else {
			r = ops->class_parse(NULL, argc - i, argv + i, opt, e);
			if (r < 0)
				return r;
		}
	}
	if (!dev)
		return ntc_err_set(e, 2, -ENODEV, "RTNETLINK answers: No such device");
	d = ntc_dev_find(c->n, dev);
	if (!d)
		return ntc_err_set(e, 1, -ENODEV, "Cannot find device \"%s\"", dev);

	/* kernel: tc_ctl_tclass */
	{
		uint32_t qid = NTC_H_MAJ(classid);

		if (parent != NTC_H_ROOT && parent) {
			uint32_t pid = NTC_H_MAJ(parent);

			if (qid && qid != pid)
				return ntc_err_set(e, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
			qid = pid;
		} else if (!qid) {
			qid = d->root->handle;
		}
		q = ntc_qdisc_lookup(d, qid);
		if (!q)
			return ntc_err_set(e, 2, -ENOENT, "RTNETLINK answers: No such file or directory");
		if (!q->ops->classful)
			return ntc_err_set(e, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
		if (parent == NTC_H_ROOT)
			classid = classid ? NTC_H_MAKE(qid, classid) : qid;
		else if (classid)
			classid = NTC_H_MAKE(qid, classid);
	}
	cl = classid ? ntc_class_find(q, classid) : NULL;
	if (cmd == CMD_DEL) {
		if (!cl)
			return ntc_err_set(e, 2, -ENOENT, "RTNETLINK answers: No such file or directory");
		if (!q->ops->class_delete)
			return ntc_err_set(e, 2, -EOPNOTSUPP, "RTNETLINK answers: Operation not supported");
		return q->ops->class_delete(q, cl, e);
	}
	if (cl) {
		if (cmd == CMD_ADD)
			return ntc_err_set(e, 2, -EEXIST, "RTNETLINK answers: File exists");
	} else if (cmd == CMD_CHANGE) {
		return ntc_err_set(e, 2, -ENOENT, "RTNETLINK answers: No such file or directory");
	}
	if (kind && strcmp(kind, q->ops->kind))
		return ntc_err_set(e, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	if (!q->ops->class_change || (!cl && !q->ops->user_classes))
		return ntc_err_set(e, 2, -EOPNOTSUPP, "RTNETLINK answers: Operation not supported");
	if (!classid)
		return ntc_err_set(e, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	return q->ops->class_change(q, classid, parent, cl, opt, c->warn, e);
}

/* ---- filters ---- */

static const struct {
	const char *name;
	uint16_t id;
} protos[] = {
	{ "all", NTC_ETH_P_ALL }, { "ip", NTC_ETH_P_IP },       { "ipv6", NTC_ETH_P_IPV6 },
	{ "arp", NTC_ETH_P_ARP }, { "802.1q", NTC_ETH_P_8021Q }, { "802_1Q", NTC_ETH_P_8021Q },
};

static int proto_parse(const char *s, uint16_t *ret)
{
	uint32_t v;

	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcmp(s, protos[i].name)) {
			*ret = protos[i].id;
			return 0;
		}
	if (ntc_get_u32(s, 0, &v) == 0 && v <= 0xFFFF) {
		*ret = (uint16_t)v;
		return 0;
	}
	return -EINVAL;
}

const char *tc_proto_name(uint16_t id)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].id == id)
			return protos[i].name;
	return NULL;
}

/* Resolves the chain a filter command addresses. */
int tc_filter_chain(struct ntc_dev *d, uint32_t parent, struct ntc_qdisc **ret_q,
			struct ntc_filter ***ret_chain, struct ntc_err *e)
{
	struct ntc_qdisc *q;
	struct ntc_class *cl;

	if (!parent || parent == NTC_H_ROOT) {
		q = d->root;
	} else {
		q = ntc_qdisc_lookup(d, NTC_H_MAJ(parent));
		if (!q)
			return ntc_err_set(e, 2, -EINVAL,
					   "Error: Parent Qdisc doesn't exists.\nWe have an error talking to the kernel");
	}
	if (!q->ops->takes_filters)
		return ntc_err_set(e, 2, -EOPNOTSUPP,
				   "Error: Qdisc not classful.\nWe have an error talking to the kernel");
	if (parent && parent != NTC_H_ROOT && NTC_H_MIN(parent)) {
		cl = ntc_class_find(q, parent);
		if (!cl)
			return ntc_err_set(e, 2, -ENOENT,
					   "Error: Specified class doesn't exist.\nWe have an error talking to the kernel");
		if (!q->ops->filters_on_classes)
			return ntc_err_set(e, 2, -EINVAL,
					   "Error: Cannot find specified filter chain.\nWe have an error talking to the kernel");
		*ret_chain = &cl->filters;
	} else {
		*ret_chain = &q->filters;
	}
	*ret_q = q;
	return 0;
}

static int filter_modify(struct tc_ctx *c, int cmd, int argc, char **argv)
{
	struct ntc_err *e = c->err;
	const char *dev = NULL, *kind = NULL, *fhandle = NULL;
	uint32_t parent = 0, prio = 0;
	uint16_t proto = NTC_ETH_P_ALL;
	bool has_proto = false;
	const struct ntc_cls_ops *ops = NULL;
	struct ntc_filter *f = NULL, **chain, **pp, *g;
	struct ntc_qdisc *q;
	struct ntc_dev *d;
	int i, r;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "dev")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			dev = argv[i];
		} else if (!strcmp(a, "root")) {
			parent = NTC_H_ROOT;
		} else if (!strcmp(a, "parent")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (ntc_get_handle(argv[i], &parent) < 0)
				return ntc_err_set(e, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: Invalid parent ID", argv[i]);
		} else if (!strcmp(a, "handle")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			fhandle = argv[i];
		} else if (!strcmp(a, "protocol")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (proto_parse(argv[i], &proto) < 0)
				return ntc_err_set(e, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid protocol", argv[i]);
			has_proto = true;
		} else if (ntc_matches(a, "priority") || ntc_matches(a, "preference")) {
			if (++i >= argc)
				return INCOMPLETE(e);
			if (ntc_get_u32(argv[i], 0, &prio) < 0 || prio > 0xFFFF)
				return ntc_err_set(e, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid priority value", argv[i]);
		} else {
			kind = a;
			i++;
			break;
		}
	}
	if (kind) {
		ops = ntc_cls_ops_find(kind);
		if (!ops && argc - i > 0)
			return ntc_err_set(e, 1, -EINVAL,
					   "Unknown filter \"%s\", hence option \"%s\" is unparsable",
					   kind, argv[i]);
	}
	if (!dev)
		return ntc_err_set(e, 2, -ENODEV, "RTNETLINK answers: No such device\nWe have an error talking to the kernel");
	d = ntc_dev_find(c->n, dev);
	if (!d)
		return ntc_err_set(e, 1, -ENODEV, "Cannot find device \"%s\"", dev);
	if (ops && ntc_kind_disabled(c->n, ops->kind))
		ops = NULL;
	r = tc_filter_chain(d, parent, &q, &chain, e);
	if (r < 0)
		return r;

	if (cmd == CMD_DEL) {
		bool found = false;

		if (!prio) {
			ntc_filters_destroy(q, chain);
			return 0;
		}
		for (pp = chain; *pp;) {
			g = *pp;
			if (g->prio == prio && (!has_proto || g->protocol == proto)) {
				found = true;
				*pp = g->next;
				g->next = NULL;
				ntc_filters_destroy(q, &g);
				continue;
			}
			pp = &g->next;
		}
		if (!found)
			return ntc_err_set(e, 2, -ENOENT,
					   "Error: Filter with specified priority/protocol not found.\nWe have an error talking to the kernel");
		return 0;
	}
	/* add / change / replace: a new element */
	if (!prio) {
		prio = *chain ? (*chain)->prio - 1u : 49152u;
		if (*chain && (*chain)->prio == 0)
			prio = 0;
	}
	for (g = *chain; g; g = g->next)
		if (g->prio == prio) {
			if (g->protocol != proto)
				return ntc_err_set(e, 2, -EINVAL,
						   "Error: Protocol mismatch for filter with specified priority.\nWe have an error talking to the kernel");
			if (!ops || g->ops != ops)
				return ntc_err_set(e, 2, -EINVAL,
						   "Error: Specified filter kind does not match existing one.\nWe have an error talking to the kernel");
			break;
		}
	if (!ops)
		return ntc_err_set(e, 2, -ENOENT,
				   "Error: TC classifier not found.\nWe have an error talking to the kernel");
	f = ucg_calloc(1, sizeof(*f));
	if (!f)
		return ntc_err_set(e, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
	f->ops = ops;
	f->prio = (uint16_t)prio;
	f->protocol = proto;
	f->ht = g ? g->ht : 0;
	if (fhandle && !strcmp(ops->kind, "u32")) {
		/* user-chosen u32 handles are not modelled */
		ucg_free(f);
		return ntc_err_set(e, 2, -EINVAL, "RTNETLINK answers: Invalid argument\nWe have an error talking to the kernel");
	}
	if (fhandle) {
		char *end;
		unsigned long h = strtoul(fhandle, &end, 0);

		if (end == fhandle || (*end && strcmp(end, ":") && *end != '/')) {
			ucg_free(f);
			return ntc_err_set(e, 1, -EINVAL, "Illegal \"handle\"");
		}
		f->handle = (uint32_t)h;
		if (*end == '/')
			f->priv = NULL; /* mask parsed by fw itself */
	}
	r = ops->parse(q, f, argc - i, argv + i, e);
	if (r == 0 && fhandle && !strcmp(ops->kind, "fw")) {
		/* fw: handle H/MASK */
		const char *slash = strchr(fhandle, '/');
		uint32_t mask = 0xFFFFFFFFu;

		if (slash && ntc_get_u32(slash + 1, 0, &mask) < 0)
			r = ntc_err_set(e, 1, -EINVAL, "Illegal \"handle\"");
		f->classid = f->classid; /* set by parse */
		if (r == 0)
			f->ht = mask;
	}
	if (r < 0) {
		if (f->ops->destroy)
			f->ops->destroy(f);
		ucg_free(f);
		return r;
	}
	if (ops->needs_handle && !f->handle) {
		if (f->ops->destroy)
			f->ops->destroy(f);
		ucg_free(f);
		return ntc_err_set(e, 2, -EINVAL, "RTNETLINK answers: Invalid argument\nWe have an error talking to the kernel");
	}
	if (!strcmp(ops->kind, "u32")) {
		if (!g)
			f->ht = 0x800 + q->u32_next_ht++;
		/* node handle: lowest free from 0x800 in this table */
		f->handle = (f->ht << 20) | 0x800;
		for (bool again = true; again;) {
			again = false;
			for (struct ntc_filter *h = *chain; h; h = h->next)
				if (h->ops == ops && h->ht == f->ht && h->handle == f->handle) {
					f->handle++;
					again = true;
				}
		}
	} else if (!f->handle) {
		f->handle = 1;
		for (bool again = true; again;) {
			again = false;
			for (struct ntc_filter *h = *chain; h; h = h->next)
				if (h->prio == f->prio && h->handle == f->handle) {
					f->handle++;
					again = true;
				}
		}
	} else if (g) {
		for (struct ntc_filter *h = *chain; h; h = h->next)
			if (h->prio == f->prio && h->handle == f->handle) {
				if (f->ops->destroy)
					f->ops->destroy(f);
				ucg_free(f);
				return ntc_err_set(e, 2, -EEXIST, "RTNETLINK answers: File exists\nWe have an error talking to the kernel");
			}
		if (!strcmp(ops->kind, "cgroup")) {
			if (f->ops->destroy)
				f->ops->destroy(f);
			ucg_free(f);
			return ntc_err_set(e, 2, -EEXIST, "RTNETLINK answers: File exists\nWe have an error talking to the kernel");
		}
	}
	/* bind the target class if it exists now */
	if (f->classid && NTC_H_MAJ(f->classid) == q->handle) {
		struct ntc_class *cl = ntc_class_find(q, f->classid);

		if (cl) {
			f->target = cl;
			cl->filter_refs++;
		}
	}
	/* insert after the last element with prio <= f->prio */
	for (pp = chain; *pp && (*pp)->prio <= f->prio; pp = &(*pp)->next)
		;
	f->next = *pp;
	*pp = f;
	return 0;
}

/* ---- entry ---- */

int ntc_tc(struct ntc *n, int argc, char **argv, struct ucg_buf *out, struct ucg_buf *warn,
	   struct ntc_err *err)
{
	struct tc_ctx c = { .n = n, .out = out, .warn = warn, .err = err };
	const char *obj, *verb;
	int cmd;

	if (err) {
		err->exit_code = 0;
		err->msg[0] = 0;
	}
	while (argc > 0 && argv[0][0] == '-' && argv[0][1]) {
		const char *o = argv[0] + 1;

		if (*o == '-')
			o++;
		if (ntc_matches(o, "stats") || ntc_matches(o, "statistics"))
			c.stats = true;
		else if (ntc_matches(o, "details"))
			c.details = true;
		else if (ntc_matches(o, "raw") || ntc_matches(o, "iec") || ntc_matches(o, "pretty"))
			;
		else
			return ntc_err_set(err, 255, -EINVAL,
					   "Option \"%s\" is unknown, try \"tc -help\".", argv[0]);
		argc--;
		argv++;
	}
	if (argc < 1)
		return ntc_err_set(err, 255, -EINVAL,
				   "Usage: tc [ OPTIONS ] OBJECT { COMMAND | help }");
	obj = argv[0];
	verb = argc > 1 ? argv[1] : "list";
	if (ntc_matches(verb, "add"))
		cmd = CMD_ADD;
	else if (ntc_matches(verb, "change"))
		cmd = CMD_CHANGE;
	else if (ntc_matches(verb, "replace"))
		cmd = CMD_REPLACE;
	else if (ntc_matches(verb, "delete"))
		cmd = CMD_DEL;
	else if (ntc_matches(verb, "list") || ntc_matches(verb, "show") || ntc_matches(verb, "lst"))
		cmd = CMD_SHOW;
	else
		cmd = -1;
	argc -= 2;
	argv += 2;
	if (argc < 0)
		argc = 0;
	if (ntc_matches(obj, "qdisc")) {
		if (cmd < 0)
			return ntc_err_set(err, 255, -EINVAL,
					   "Command \"%s\" is unknown, try \"tc qdisc help\".", verb);
		return cmd == CMD_SHOW ? tc_qdisc_show(&c, argc, argv) : qdisc_modify(&c, cmd, argc, argv);
	}
	if (ntc_matches(obj, "class")) {
		if (cmd < 0)
			return ntc_err_set(err, 255, -EINVAL,
					   "Command \"%s\" is unknown, try \"tc class help\".", verb);
		return cmd == CMD_SHOW ? tc_class_show(&c, argc, argv) : class_modify(&c, cmd, argc, argv);
	}
	if (ntc_matches(obj, "filter")) {
		if (cmd < 0)
			return ntc_err_set(err, 255, -EINVAL,
					   "Command \"%s\" is unknown, try \"tc filter help\".", verb);
		return cmd == CMD_SHOW ? tc_filter_show(&c, argc, argv) : filter_modify(&c, cmd, argc, argv);
	}
	return ntc_err_set(err, 255, -EINVAL, "Object \"%s\" is unknown, try \"tc help\".", obj);
}

int ntc_tc_line(struct ntc *n, const char *line, struct ucg_buf *out, struct ucg_buf *warn,
		struct ntc_err *err)
{
	char *copy, *argv[128], *p, *w;
	int argc = 0, r;

	copy = ucg_strdup(line);
	if (!copy)
		return ntc_err_set(err, 1, -ENOMEM, "out of memory");
	p = copy;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		if (argc == 127) {
			ucg_free(copy);
			return ntc_err_set(err, 1, -E2BIG, "Too many arguments on line");
		}
		if (*p == '"') {
			w = ++p;
			while (*p && *p != '"')
				p++;
		} else {
			w = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
				p++;
		}
		argv[argc++] = w;
		if (*p)
			*p++ = 0;
	}
	argv[argc] = NULL;
	r = argc ? ntc_tc(n, argc, argv, out, warn, err) : 0;
	ucg_free(copy);
	return r;
}
