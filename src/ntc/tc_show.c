/* ntc/tc_show.c — tc's listings: `tc qdisc show`, `tc class show`, `tc filter show`
 * in iproute2's output format (with -s, the statistics; with -d, the details).
 *
 * Listing order: the root qdisc, then the others in the order of the kernel's
 * 16-bucket qdisc hash (hash_32 of the handle, newest first in a bucket); classes in
 * the walk order of the kernel's class hash (ntc_class_insert), or id order for the
 * kinds with fixed classes; filters
 * in preference order.
 */
#include "ntc/tc_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static uint32_t qhash(uint32_t h)
{
	return (h * 0x61C88647u) >> 28;
}

static void collect(struct ntc_qdisc *q, struct ntc_qdisc ***arr, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < q->nclasses; i++) {
		struct ntc_qdisc *c = q->classes[i]->leaf;

		if (!c)
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct ntc_qdisc **a = ucg_realloc(*arr, nc * sizeof(*a));

			if (!a)
				return;
			*arr = a;
			*cap = nc;
		}
		(*arr)[(*n)++] = c;
		collect(c, arr, n, cap);
	}
}

static int by_hash(const void *a, const void *b)
{
	const struct ntc_qdisc *x = *(struct ntc_qdisc *const *)a;
	const struct ntc_qdisc *y = *(struct ntc_qdisc *const *)b;
	uint32_t hx = qhash(x->handle), hy = qhash(y->handle);

	if (hx != hy)
		return hx < hy ? -1 : 1;
	return x->seq > y->seq ? -1 : (x->seq < y->seq);
}

/* All qdiscs of d in listing order (root first). Caller frees. */
static size_t qdisc_list(struct ntc_dev *d, struct ntc_qdisc ***ret)
{
	struct ntc_qdisc **arr = NULL;
	size_t n = 0, cap = 0;

	collect(d->root, &arr, &n, &cap);
	if (n)
		qsort(arr, n, sizeof(*arr), by_hash);
	*ret = arr;
	return n;
}

static void print_qdisc(struct tc_ctx *c, struct ntc_qdisc *q, bool devname)
{
	struct ucg_buf *b = c->out;

	ucg_buf_printf(b, "qdisc %s %x: ", q->ops->kind, q->handle >> 16);
	if (devname)
		ucg_buf_printf(b, "dev %s ", q->dev->name);
	if (q->parent == NTC_H_ROOT) {
		ucg_buf_puts(b, "root ");
		ucg_buf_printf(b, "refcnt %d ", q->handle && (q->dev->flags & NTC_DEV_NOQUEUE) ? 3 : 2);
	} else {
		ucg_buf_puts(b, "parent ");
		ntc_print_handle(b, q->parent);
		ucg_buf_putc(b, ' ');
	}
	q->ops->dump(q, b, c->details);
	ucg_buf_putc(b, '\n');
	if (c->stats) {
		ntc_print_stats(b, &q->st);
		if (q->ops->dump_xstats)
			q->ops->dump_xstats(q, b);
		ucg_buf_putc(b, '\n');
	}
}

int tc_qdisc_show(struct tc_ctx *c, int argc, char **argv)
{
	const char *dev = NULL;
	bool invisible = false;
	struct ntc_dev *d;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "dev")) {
			if (++i >= argc)
				return INCOMPLETE(c->err);
			dev = argv[i];
		} else if (!strcmp(argv[i], "invisible")) {
			invisible = true;
		} else if (!strcmp(argv[i], "root") || !strcmp(argv[i], "ingress")) {
			/* accepted, all roots are shown */
		} else {
			return ntc_err_set(c->err, 255, -EINVAL,
					   "What is \"%s\"? Try \"tc qdisc help\".", argv[i]);
		}
	}
	if (dev && !ntc_dev_find(c->n, dev))
		return ntc_err_set(c->err, 1, -ENODEV, "Cannot find device \"%s\"", dev);
	for (d = c->n->devs; d; d = d->next) {
		struct ntc_qdisc **arr;
		size_t n;

		if (dev && strcmp(dev, d->name))
			continue;
		print_qdisc(c, d->root, !dev);
		n = qdisc_list(d, &arr);
		for (size_t i = 0; i < n; i++)
			if (!arr[i]->hidden && (arr[i]->handle || invisible))
				print_qdisc(c, arr[i], !dev);
		ucg_free(arr);
	}
	return 0;
}

/* ---- classes ---- */

static void print_class(struct tc_ctx *c, struct ntc_qdisc *q, struct ntc_class *cl)
{
	struct ucg_buf *b = c->out;

	ucg_buf_printf(b, "class %s ", q->ops->kind);
	ntc_print_handle(b, cl->classid);
	ucg_buf_putc(b, ' ');
	if (cl->parent) {
		ucg_buf_puts(b, "parent ");
		ntc_print_handle(b, cl->parent->classid);
		ucg_buf_putc(b, ' ');
	} else if (q->ops->top_classes_root) {
		ucg_buf_puts(b, "root ");
	} else {
		ucg_buf_puts(b, "parent ");
		ntc_print_handle(b, q->handle);
		ucg_buf_putc(b, ' ');
	}
	if (cl->leaf && cl->leaf->handle)
		ucg_buf_printf(b, "leaf %x: ", cl->leaf->handle >> 16);
	q->ops->class_dump(q, cl, b, c->details);
	if (c->stats && q->ops->class_stats) {
		struct ntc_stats st = cl->st;

		st.qlen = cl->leaf ? cl->leaf->st.qlen : 0;
		st.backlog = cl->leaf ? cl->leaf->st.backlog : 0;
		ucg_buf_putc(b, '\n');
		ntc_print_stats(b, &st);
		if (q->ops->class_dump_xstats)
			q->ops->class_dump_xstats(q, cl, b);
	}
	ucg_buf_putc(b, '\n');
	if (c->stats)
		ucg_buf_putc(b, '\n');
}

/* Prints cl unless the command's classid or parent selects others. */
static void show_class_if(struct tc_ctx *c, struct ntc_qdisc *q, struct ntc_class *cl,
			  uint32_t classid, uint32_t parent)
{
	if (classid && cl->classid != classid)
		return;
	if (parent == NTC_H_ROOT && cl->parent)
		return;
	if (parent && parent != NTC_H_ROOT &&
	    !(cl->parent ? cl->parent->classid == parent : q->handle == parent))
		return;
	print_class(c, q, cl);
}

int tc_class_show(struct tc_ctx *c, int argc, char **argv)
{
	const char *dev = NULL;
	uint32_t classid = 0, parent = 0;
	struct ntc_qdisc **arr;
	struct ntc_dev *d;
	size_t n;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "dev") || !strcmp(argv[i], "classid") ||
		    !strcmp(argv[i], "parent")) {
			if (i + 1 >= argc)
				return INCOMPLETE(c->err);
			if (!strcmp(argv[i], "dev")) {
				dev = argv[++i];
			} else if (ntc_get_handle(argv[i + 1],
						  !strcmp(argv[i], "classid") ? &classid : &parent) < 0) {
				return ntc_err_set(c->err, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid %s ID",
						   argv[i + 1], !strcmp(argv[i], "classid") ? "class" : "parent");
			} else {
				i++;
			}
		} else if (!strcmp(argv[i], "root")) {
			parent = NTC_H_ROOT;
		} else {
			return ntc_err_set(c->err, 255, -EINVAL,
					   "What is \"%s\"? Try \"tc class help\".", argv[i]);
		}
	}
	if (!dev)
		return ntc_err_set(c->err, 255, -EINVAL, "Must specify a device");
	d = ntc_dev_find(c->n, dev);
	if (!d)
		return ntc_err_set(c->err, 1, -ENODEV, "Cannot find device \"%s\"", dev);
	n = qdisc_list(d, &arr);
	for (size_t k = 0; k <= n; k++) {
		struct ntc_qdisc *q = k == 0 ? d->root : arr[k - 1];

		if (!q->ops->classful)
			continue;
		/* The kernel's walk: the class hash where the kind has one, else the
		 * fixed classes in id order. */
		if (q->clhash) {
			for (unsigned b = 0; b < q->clhash_size; b++)
				for (struct ntc_class *cl = q->clhash[b]; cl; cl = cl->hnext)
					show_class_if(c, q, cl, classid, parent);
		} else {
			for (size_t i = 0; i < q->nclasses; i++)
				show_class_if(c, q, q->classes[i], classid, parent);
		}
	}
	ucg_free(arr);
	return 0;
}

/* ---- filters ---- */

static void proto_print(struct ucg_buf *b, uint16_t id)
{
	const char *name = tc_proto_name(id);

	if (name)
		ucg_buf_puts(b, name);
	else
		ucg_buf_printf(b, "[%04x]", id);
}

int tc_filter_show(struct tc_ctx *c, int argc, char **argv)
{
	const char *dev = NULL;
	uint32_t parent = 0;
	bool has_parent = false;
	struct ntc_filter **chain;
	struct ntc_qdisc *q;
	struct ntc_dev *d;
	int r;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "dev")) {
			if (++i >= argc)
				return INCOMPLETE(c->err);
			dev = argv[i];
		} else if (!strcmp(argv[i], "parent")) {
			if (++i >= argc)
				return INCOMPLETE(c->err);
			if (ntc_get_handle(argv[i], &parent) < 0)
				return ntc_err_set(c->err, 255, -EINVAL,
						   "Error: argument \"%s\" is wrong: invalid parent ID", argv[i]);
			has_parent = true;
		} else if (!strcmp(argv[i], "root")) {
			parent = NTC_H_ROOT;
			has_parent = true;
		} else {
			return ntc_err_set(c->err, 255, -EINVAL,
					   "What is \"%s\"? Try \"tc filter help\"", argv[i]);
		}
	}
	if (!dev)
		return ntc_err_set(c->err, 1, -EINVAL, "Must specify a device");
	d = ntc_dev_find(c->n, dev);
	if (!d)
		return ntc_err_set(c->err, 1, -ENODEV, "Cannot find device \"%s\"", dev);
	r = tc_filter_chain(d, parent, &q, &chain, NULL);
	if (r < 0)
		return 0; /* nothing to list */
	for (struct ntc_filter *f = *chain; f; f = f->next) {
		struct ucg_buf pre;

		ucg_buf_init(&pre);
		ucg_buf_puts(&pre, "filter ");
		if (!has_parent) {
			ucg_buf_puts(&pre, "parent ");
			ntc_print_handle(&pre, q->handle);
			ucg_buf_putc(&pre, ' ');
		}
		ucg_buf_puts(&pre, "protocol ");
		proto_print(&pre, f->protocol);
		ucg_buf_printf(&pre, " pref %u %s chain 0 ", f->prio, f->ops->kind);
		if (ucg_buf_error(&pre) == 0) {
			bool first = f == *chain || !(f != *chain && 0);
			struct ntc_filter *prev = NULL;

			for (struct ntc_filter *h = *chain; h != f; h = h->next)
				prev = h;
			first = !prev || prev->prio != f->prio;
			if (first) {
				ucg_buf_printf(c->out, "%s\n", pre.data);
				if (f->ops->dump_head) {
					ucg_buf_puts(c->out, pre.data);
					f->ops->dump_head(f, c->out);
				}
			}
			ucg_buf_puts(c->out, pre.data);
			f->ops->dump(f, c->out);
		}
		ucg_buf_fini(&pre);
	}
	return 0;
}
