/* ntc/sch_tbf.c — tbf, the token bucket filter.
 *
 * Model. Tokens are kept as time: the bucket holds at most B = burst/rate (ns), the
 * optional peak bucket M = mtu/peakrate. For the child's head packet of length L at
 * time now, with t(L) and tp(L) the kernel's truncated transmission times:
 *     delta = min(now - t_c, B)
 *     T = min(tokens + delta, B) - t(L)
 *     P = min(ptokens + delta, M) - tp(L)        (0 without a peak rate)
 * If T >= 0 and P >= 0 the packet leaves and tokens = T, ptokens = P, t_c = now.
 * Otherwise nothing leaves, one overlimit is counted and the device is told the
 * earliest time it could succeed: now + max(-T, -P). Packets are never reordered.
 *
 * An arriving packet longer than max_size (the burst in bytes, or the peak bucket if
 * smaller) is dropped: it could never gather enough tokens. Limits: offload packets
 * are not split into segments (the kernel does, when they exceed the burst); a model
 * that sends one MTU packet per queue entry is unaffected.
 *
 * Structure: one class M:1 whose child is by default a bfifo of `limit` bytes (handle
 * 0, hidden from the listing). A change sets the limit of a fifo child (even a pfifo
 * child, which then counts packets: the kernel's trap); deleting a user child leaves
 * noop, which drops everything, and the next change creates a fresh bfifo.
 *
 * Numbers cross tc as 64 ns ticks; tc computes the limit from a latency as
 * rate x latency + burst (the smaller of that and peakrate x latency + mtu), and
 * prints "lat" recomputed from the limit, or "limit" when that is negative.
 */
#include "ntc/sch.h"

#include <stdio.h>
#include <string.h>

struct tbf_opt {
	uint64_t rate, prate;
	uint32_t limit, latency, buffer, mtu, mpu;
	int overhead;
	bool atm;
	bool has_limit, has_latency;
};

struct tbf_priv {
	struct ntc_class cl; /* M:1 */
	struct ntc_rate rate, peak;
	bool peak_present;
	uint32_t limit;
	uint32_t max_size;
	int64_t buffer, mtu; /* bucket depths, ns */
	int64_t tokens, ptokens, t_c;
	struct ntc_class *clp;
};

static const char tbf_usage[] =
	"Usage: ... tbf limit BYTES burst BYTES[/BYTES] rate KBPS [ mtu BYTES[/BYTES] ]\n"
	"\t[ peakrate KBPS ] [ latency TIME ] [ overhead BYTES ] [ linklayer TYPE ]";

static int tbf_parse(struct ntc_dev *d, int argc, char **argv, void *o, struct ntc_err *err)
{
	struct tbf_opt *opt = o;
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "help"))
			return ntc_err_set(err, 1, -EINVAL, "%s", tbf_usage);
		if (!v)
			return ntc_err_set(err, 255, -EINVAL,
					   "Command line is not complete. Try option \"help\"");
		i++;
		if (!strcmp(a, "limit")) {
			if (opt->has_latency)
				return ntc_err_set(err, 1, -EINVAL,
						   "tbf: specifying both \"latency\" and \"limit\" is not allowed");
			if (opt->has_limit)
				return ntc_err_set(err, 1, -EINVAL, "tbf: duplicate \"limit\" specification");
			if (ntc_get_size(v, &opt->limit) < 0)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"limit\": \"%s\"", v);
			opt->has_limit = true;
		} else if (!strcmp(a, "latency")) {
			if (opt->has_limit)
				return ntc_err_set(err, 1, -EINVAL,
						   "tbf: specifying both \"limit\" and \"/latency\" is not allowed");
			if (opt->has_latency)
				return ntc_err_set(err, 1, -EINVAL, "tbf: duplicate \"latency\" specification");
			if (ntc_get_time(v, &opt->latency) < 0)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"latency\": \"%s\"", v);
			opt->has_latency = true;
		} else if (!strcmp(a, "burst") || !strcmp(a, "buffer") || !strcmp(a, "maxburst")) {
			if (opt->buffer)
				return ntc_err_set(err, 1, -EINVAL, "tbf: duplicate \"buffer/burst/maxburst\" specification");
			if (strchr(v, '/') || ntc_get_size(v, &opt->buffer) < 0)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"burst\": \"%s\"", v);
		} else if (!strcmp(a, "mtu") || !strcmp(a, "minburst")) {
			if (opt->mtu)
				return ntc_err_set(err, 1, -EINVAL, "tbf: duplicate \"mtu/minburst\" specification");
			if (strchr(v, '/') || ntc_get_size(v, &opt->mtu) < 0)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"mtu\": \"%s\"", v);
		} else if (!strcmp(a, "mpu")) {
			if (ntc_get_size(v, &opt->mpu) < 0)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"mpu\": \"%s\"", v);
		} else if (!strcmp(a, "rate")) {
			if (opt->rate)
				return ntc_err_set(err, 1, -EINVAL, "tbf: duplicate \"rate\" specification");
			if (ntc_get_rate(v, &opt->rate) < 0)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"rate\": \"%s\"", v);
		} else if (!strcmp(a, "peakrate")) {
			if (opt->prate)
				return ntc_err_set(err, 1, -EINVAL, "tbf: duplicate \"peakrate\" specification");
			if (ntc_get_rate(v, &opt->prate) < 0)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"peakrate\": \"%s\"", v);
		} else if (!strcmp(a, "overhead")) {
			uint32_t ov;

			if (ntc_get_u32(v, 10, &ov) < 0 || ov > 0xFFFF)
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"overhead\": \"%s\"", v);
			opt->overhead = (int)ov;
		} else if (!strcmp(a, "linklayer")) {
			if (!strcmp(v, "atm") || !strcmp(v, "adsl"))
				opt->atm = true;
			else if (strcmp(v, "ethernet"))
				return ntc_err_set(err, 1, -EINVAL, "tbf: illegal value for \"linklayer\": \"%s\"", v);
		} else {
			return ntc_err_set(err, 1, -EINVAL, "tbf: unknown parameter \"%s\"\n%s", a,
					   tbf_usage);
		}
	}
	if (!opt->rate)
		return ntc_err_set(err, 1, -EINVAL, "tbf: the \"rate\" parameter is mandatory.\n%s",
				   tbf_usage);
	if (!opt->buffer)
		return ntc_err_set(err, 1, -EINVAL, "tbf: the \"burst\" parameter is mandatory.\n%s",
				   tbf_usage);
	if (opt->prate && !opt->mtu)
		return ntc_err_set(err, 1, -EINVAL,
				   "tbf: when \"peakrate\" is specified, \"mtu\" must also be specified.\n%s",
				   tbf_usage);
	if (!opt->has_limit && !opt->has_latency)
		return ntc_err_set(err, 1, -EINVAL,
				   "tbf: either \"limit\" or \"latency\" is required.\n%s", tbf_usage);
	if (!opt->has_limit) {
		double lim = opt->rate * (double)opt->latency / 1000000.0 + opt->buffer;

		if (opt->prate) {
			double lim2 = opt->prate * (double)opt->latency / 1000000.0 + opt->mtu;

			if (lim2 < lim)
				lim = lim2;
		}
		opt->limit = ntc_d2u32(lim);
	}
	return 0;
}

/* Kernel side: validate into a trial state, then commit. */
static int tbf_change(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	struct tbf_priv *pr = q->priv;
	const struct tbf_opt *opt = o;
	struct ntc_rate rate, peak;
	struct ntc_qdisc *child = NULL;
	uint64_t max_size;
	int64_t buffer, mtu = 0;
	int r;

	ntc_rate_init(&rate, opt->rate, (uint16_t)opt->overhead, (uint16_t)opt->mpu, opt->atm);
	max_size = opt->buffer;
	buffer = ntc_rate_l2t(&rate, opt->buffer);
	if (opt->prate) {
		ntc_rate_init(&peak, opt->prate, (uint16_t)opt->overhead, (uint16_t)opt->mpu,
			      opt->atm);
		if (opt->mtu < max_size)
			max_size = opt->mtu;
		mtu = ntc_rate_l2t(&peak, opt->mtu);
		if (rate.rate >= peak.rate)
			return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	}
	if (!max_size || buffer > 0xFFFFFFFFll * 64)
		return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	if (pr->cl.leaf && pr->cl.leaf->ops == &ntc_noop_ops && opt->limit > 0) {
		r = ntc_fifo_create_bfifo(q->dev, NTC_H_MAKE(q->handle, 1), opt->limit, &child);
		if (r < 0)
			return ntc_err_set(err, 2, r, "RTNETLINK answers: Cannot allocate memory");
		child->parent_q = q;
	}
	/* commit */
	if (child) {
		ntc_qdisc_destroy(pr->cl.leaf);
		pr->cl.leaf = child;
	} else if (pr->cl.leaf) {
		ntc_fifo_set_limit(pr->cl.leaf, opt->limit);
	}
	pr->rate = rate;
	pr->peak_present = opt->prate != 0;
	if (pr->peak_present)
		pr->peak = peak;
	pr->limit = opt->limit;
	pr->max_size = (uint32_t)max_size;
	pr->buffer = buffer;
	pr->mtu = mtu;
	pr->tokens = buffer;
	pr->ptokens = mtu;
	return 0;
}

static int tbf_init(struct ntc_qdisc *q, const void *o, struct ntc_err *err)
{
	struct tbf_priv *pr = q->priv;
	int r;

	if (!o)
		return ntc_err_set(err, 2, -EINVAL, "RTNETLINK answers: Invalid argument");
	pr->clp = &pr->cl;
	pr->cl.classid = NTC_H_MAKE(q->handle, 1);
	pr->cl.leaf = ntc_qdisc_noop(q->dev, pr->cl.classid);
	if (!pr->cl.leaf)
		return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
	pr->cl.leaf->parent_q = q;
	q->classes = &pr->clp;
	q->nclasses = 1;
	q->classes_cap = 0;
	r = tbf_change(q, o, err);
	if (r < 0)
		ntc_qdisc_destroy(pr->cl.leaf);
	q->classes = NULL; /* not owned: restored below on success */
	if (r == 0)
		q->classes = &pr->clp;
	else
		q->nclasses = 0;
	return r;
}

static void tbf_destroy(struct ntc_qdisc *q)
{
	struct tbf_priv *pr = q->priv;

	ntc_qdisc_destroy(pr->cl.leaf);
	q->classes = NULL; /* points into priv */
	q->nclasses = 0;
}

static int tbf_enqueue(struct ntc_qdisc *q, struct ntc_pkt *p, int64_t now)
{
	struct tbf_priv *pr = q->priv;
	int r;

	if (p->len > pr->max_size) {
		ntc_drop_pkt(q, p);
		return NTC_XMIT_DROP;
	}
	r = ntc_child_enqueue(q, pr->cl.leaf, p, now);
	if (r != NTC_XMIT_SUCCESS)
		return r;
	ntc_qdisc_queued(q, p);
	return r;
}

static struct ntc_pkt *tbf_dequeue(struct ntc_qdisc *q, int64_t now)
{
	struct tbf_priv *pr = q->priv;
	struct ntc_pkt *p = ntc_qdisc_peek(pr->cl.leaf, now);
	int64_t toks, ptoks = 0;

	if (!p)
		return NULL;
	toks = now - pr->t_c;
	if (toks > pr->buffer)
		toks = pr->buffer;
	if (pr->peak_present) {
		ptoks = toks + pr->ptokens;
		if (ptoks > pr->mtu)
			ptoks = pr->mtu;
		ptoks -= ntc_rate_l2t(&pr->peak, p->len);
	}
	toks += pr->tokens;
	if (toks > pr->buffer)
		toks = pr->buffer;
	toks -= ntc_rate_l2t(&pr->rate, p->len);
	if ((toks | ptoks) >= 0) {
		p = ntc_qdisc_dequeue(pr->cl.leaf, now);
		if (!p)
			return NULL;
		pr->t_c = now;
		pr->tokens = toks;
		pr->ptokens = ptoks;
		ntc_qdisc_dequeued(q, p);
		return p;
	}
	ntc_wake_at(q->dev, now + (-toks > -ptoks ? -toks : -ptoks));
	q->st.overlimits++;
	return NULL;
}

static void tbf_dump(struct ntc_qdisc *q, struct ucg_buf *b, bool details)
{
	struct tbf_priv *pr = q->priv;
	uint32_t buffer = (uint32_t)(pr->buffer >> 6), mtu = (uint32_t)(pr->mtu >> 6);
	double latency;

	ucg_buf_puts(b, "rate ");
	ntc_print_rate(b, pr->rate.rate);
	ucg_buf_puts(b, " burst ");
	ntc_print_size(b, ntc_xmitsize(pr->rate.rate, buffer));
	if (details) {
		ucg_buf_puts(b, "/1 mpu ");
		ntc_print_size(b, pr->rate.mpu);
	}
	ucg_buf_putc(b, ' ');
	if (pr->peak_present) {
		ucg_buf_puts(b, "peakrate ");
		ntc_print_rate(b, pr->peak.rate);
		ucg_buf_puts(b, " minburst ");
		ntc_print_size(b, ntc_xmitsize(pr->peak.rate, mtu));
		if (details) {
			ucg_buf_puts(b, "/1 mpu ");
			ntc_print_size(b, pr->peak.mpu);
		}
		ucg_buf_putc(b, ' ');
	}
	latency = 1000000.0 * (pr->limit / (double)pr->rate.rate) - ntc_tick2time(buffer);
	if (pr->peak_present) {
		double lat2 = 1000000.0 * (pr->limit / (double)pr->peak.rate) - ntc_tick2time(mtu);

		if (lat2 > latency)
			latency = lat2;
	}
	if (latency >= 0.0) {
		ucg_buf_puts(b, "lat ");
		ntc_print_time(b, ntc_d2u32(latency));
	} else {
		ucg_buf_puts(b, "limit ");
		ntc_print_size(b, pr->limit);
	}
	ucg_buf_putc(b, ' ');
	if (details && pr->rate.overhead)
		ucg_buf_printf(b, "overhead %u ", pr->rate.overhead);
}

static struct ntc_qdisc *tbf_graft(struct ntc_qdisc *q, struct ntc_class *cl,
				   struct ntc_qdisc *newq)
{
	struct tbf_priv *pr = q->priv;
	struct ntc_qdisc *old = pr->cl.leaf;

	if (!newq)
		newq = ntc_qdisc_noop(q->dev, pr->cl.classid);
	if (!newq)
		return NULL;
	newq->parent_q = q;
	pr->cl.leaf = newq;
	return old;
}

static void tbf_class_dump(struct ntc_qdisc *q, struct ntc_class *cl, struct ucg_buf *b,
			   bool details)
{
}

const struct ntc_qdisc_ops ntc_tbf_ops = {
	.kind = "tbf",
	.priv_size = sizeof(struct tbf_priv),
	.classful = true,
	.parse = tbf_parse,
	.init = tbf_init,
	.change = tbf_change,
	.destroy = tbf_destroy,
	.enqueue = tbf_enqueue,
	.dequeue = tbf_dequeue,
	.dump = tbf_dump,
	.graft = tbf_graft,
	.class_dump = tbf_class_dump,
};
