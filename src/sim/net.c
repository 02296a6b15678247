/* sim/net.c — the network model: flows of packets from tasks' sockets through the
 * traffic-control model (src/ntc) of each interface, at the interface's link rate.
 *
 * Sockets. A packet sent by a task carries the net_cls.classid of the task's net_cls
 * cgroup and, as skb->priority, the net_prio.ifpriomap entry of its net_prio cgroup
 * for eth0 (looked up when each packet is sent, as if every packet opened a new
 * socket; the kernel tags a socket when it is created or when its cgroup's classid is
 * written). UDP over IPv4 from 10.0.0.1:(10000 + tid) to 10.0.0.2:dport.
 *
 * Flows. `flow TASK IFACE pkts=N size=B rate=R dport=P` sends N packets of B bytes
 * (layer-2 length), one every B*8/R seconds.
 *
 * Interfaces. `iface NAME rate=R` adds one (txqlen 1000, MTU 1500); eth0 at 1 Gbit/s
 * is added on first use if the scenario did not. The interface transmits one packet
 * at a time: a dequeued packet of L bytes occupies the link for L*8/rate seconds.
 * When the qdisc tree holds packets but none is eligible (tbf, htb waiting for
 * tokens), the model asks it when the next one will be and sleeps until then.
 *
 * Counting. Packets, bytes sent and drops (qdisc drops and overlimits that discard)
 * are counted to the sending task's cgroups in every hierarchy (the report shows
 * them in the net_cls / net_prio hierarchies).
 *
 * Limits. No receive side, no TCP (no congestion control reacting to drops: flows are
 * open-loop), no per-socket buffers or backpressure into the sender, no GSO.
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

#ifdef UCG_SIM_HAVE_NTC
#include "ntc/ntc.h"

#define MAX_IFACES 8

struct iface {
	struct sim_event_src ev;
	struct sim_net *net;
	struct ntc_dev *d;
	char name[16];
	uint64_t rate_bps;
	struct ntc_pkt *busy;
	bool wake_armed;
	sim_time wake_at;
	uint64_t tx_pkts, tx_bytes, drops;
};

struct flow {
	struct sim_event_src ev;
	struct sim_task *t;
	struct iface *ifc;
	uint64_t left;
	uint32_t size;
	sim_time gap;
	uint16_t dport;
	struct flow *next;
};

struct sim_net {
	struct sim *s;
	struct ntc *n;
	struct iface ifc[MAX_IFACES];
	size_t nifc;
	struct flow *flows;
};

bool sim_net_available(void)
{
	return true;
}

static void count(struct sim *s, struct ntc_pkt *p, bool sent)
{
	struct sim_task *t = (struct sim_task *)(uintptr_t)p->cookie;
	size_t h;

	if (!t)
		return;
	for (h = 0; h < s->nhier; h++) {
		struct sim_cg *cg;

		for (cg = t->cg[h]; cg; cg = cg->parent) {
			if (sent) {
				cg->pkts++;
				cg->net_bytes += p->len;
			} else {
				cg->drops++;
			}
		}
	}
}

static void release(void *ctx, struct ntc_pkt *p)
{
	struct sim_net *net = ctx;

	if (net->s)
		count(net->s, p, false);
	ucg_free(p);
}

int sim_net_init(struct sim *s)
{
	(void)s;
	return 0; /* the instance is made on first use */
}

void sim_net_fini(struct sim *s)
{
	struct sim_net *net = s->net;
	size_t i;

	if (!net)
		return;
	net->s = NULL; /* no counting while tearing down */
	for (i = 0; i < net->nifc; i++)
		ucg_free(net->ifc[i].busy);
	ntc_free(net->n);
	while (net->flows) {
		struct flow *f = net->flows;

		net->flows = f->next;
		ucg_free(f);
	}
	ucg_free(net);
	s->net = NULL;
}

static void tx_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);

static int add_iface(struct sim *s, struct sim_net *net, const char *name, uint64_t rate_bps,
		     struct iface **ret)
{
	struct iface *ifc;
	int r;

	if (net->nifc == MAX_IFACES)
		return -ENOSPC;
	if (strlen(name) >= sizeof(ifc->name))
		return -ENAMETOOLONG;
	ifc = &net->ifc[net->nifc];
	memset(ifc, 0, sizeof(*ifc));
	r = ntc_dev_add(net->n, name, rate_bps, 1000, 1500, 1, 0, &ifc->d);
	if (r < 0)
		return r;
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	ifc->ev.fire = tx_fire;
	ifc->net = net;
	ifc->rate_bps = rate_bps;
	net->nifc++;
	(void)s;
	if (ret)
		*ret = ifc;
	return 0;
}

/* The instance, made on first use (eth0 added unless default_eth0 is false). */
static int net_get(struct sim *s, bool default_eth0, struct sim_net **ret)
{
	struct sim_net *net = s->net;
	int r;

	if (!net) {
		net = ucg_calloc(1, sizeof(*net));
		if (!net)
			return -ENOMEM;
		r = ntc_new(&net->n);
		if (r < 0) {
			ucg_free(net);
			return r;
		}
		net->s = s;
		ntc_set_release(net->n, release, net);
		s->net = net;
		if (default_eth0) {
			r = add_iface(s, net, "eth0", 1000000000ull, NULL);
			if (r < 0)
				return r;
		}
	}
	*ret = net;
	return 0;
}

static struct iface *iface_find(struct sim_net *net, const char *name)
{
	size_t i;

	for (i = 0; i < net->nifc; i++)
		if (!strcmp(net->ifc[i].name, name))
			return &net->ifc[i];
	return NULL;
}

int sim_net_iface(struct sim *s, const char *name, uint64_t rate_bps, int line)
{
	struct sim_net *net;
	int r = net_get(s, false, &net);

	if (r == 0)
		r = add_iface(s, net, name, rate_bps, NULL);
	return r < 0 ? sim_fail(s, line, r, "iface: %s", name) : 0;
}

int sim_net_tc(struct sim *s, int argc, char **argv, int line)
{
	struct sim_net *net;
	struct ucg_buf out, warn;
	struct ntc_err err;
	int i, r = net_get(s, true, &net);

	if (r < 0)
		return sim_fail(s, line, r, "tc");
	ucg_buf_init(&out);
	ucg_buf_init(&warn);
	memset(&err, 0, sizeof(err));
	r = ntc_tc(net->n, argc, argv, &out, &warn, &err);
	if (out.len || warn.len) {
		ucg_buf_puts(&s->log, "[");
		sim_format_time(s->now, &s->log);
		ucg_buf_puts(&s->log, "] $ tc");
		for (i = 0; i < argc; i++)
			sim_logf(s, " %s", argv[i]);
		sim_logf(s, "\n%s%s", warn.data ? warn.data : "", out.data ? out.data : "");
	}
	ucg_buf_fini(&out);
	ucg_buf_fini(&warn);
	if (r < 0) {
		if (err.msg[0])
			return sim_fail(s, line, r, "tc: %s", err.msg);
		return sim_fail(s, line, r, "tc");
	}
	return 0;
}

static sim_time wire_time(uint32_t len, uint64_t rate_bps)
{
	if (!rate_bps)
		return 0;
	return (sim_time)((double)len * 8.0 * (double)SIM_SEC / (double)rate_bps + 0.5);
}

static void tx_kick(struct sim *s, struct iface *ifc)
{
	struct ntc_pkt *p;
	int64_t next = NTC_TIME_MAX;

	if (ifc->busy)
		return;
	p = ntc_dequeue(ifc->d, s->now, &next);
	if (p) {
		ifc->busy = p;
		sim_schedule(s, s->now + wire_time(p->len, ifc->rate_bps), &ifc->ev, 1);
		return;
	}
	if (next != NTC_TIME_MAX && (!ifc->wake_armed || next < ifc->wake_at)) {
		ifc->wake_armed = true;
		ifc->wake_at = next > s->now ? next : s->now + 1;
		sim_schedule(s, ifc->wake_at, &ifc->ev, 0);
	}
}

static void tx_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct iface *ifc = (struct iface *)src;

	if (arg == 1 && ifc->busy) {
		struct ntc_pkt *p = ifc->busy;

		ifc->busy = NULL;
		ifc->tx_pkts++;
		ifc->tx_bytes += p->len;
		count(s, p, true);
		ucg_free(p);
	} else if (arg == 0) {
		if (s->now < ifc->wake_at)
			return; /* superseded by an earlier wake-up */
		ifc->wake_armed = false;
	}
	tx_kick(s, ifc);
}

static void flow_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct flow *f = (struct flow *)src;
	struct sim_cg *cls, *pri;
	struct ntc_pkt *p;
	int r;

	(void)arg;
	if (!f->left || !f->t->alive)
		return;
	p = ucg_calloc(1, sizeof(*p));
	if (!p) {
		sim_fail(s, 0, -ENOMEM, "flow");
		return;
	}
	cls = sim_task_cg(s, f->t, UCG_SS_net_cls);
	pri = sim_task_cg(s, f->t, UCG_SS_net_prio);
	if (cls)
		sim_cg_refresh(s, cls);
	if (pri)
		sim_cg_refresh(s, pri);
	p->len = f->size;
	p->segs = 1;
	p->classid = cls ? cls->classid : 0;
	p->priority = pri ? pri->prio : 0;
	p->protocol = NTC_ETH_P_IP;
	p->ip_proto = 17;
	p->saddr = 0x0a000001;
	p->daddr = 0x0a000002;
	p->sport = (uint16_t)(10000 + f->t->tid % 50000);
	p->dport = f->dport;
	p->cookie = (uint64_t)(uintptr_t)f->t;
	r = ntc_enqueue(f->ifc->d, p, s->now);
	if (r == 1) {
		/* no queue: straight onto the wire (no link contention modelled) */
		f->ifc->tx_pkts++;
		f->ifc->tx_bytes += p->len;
		count(s, p, true);
		ucg_free(p);
	} else if (r < 0 && r != -ENOBUFS) {
		sim_fail(s, 0, r, "flow: enqueue");
		return;
	}
	tx_kick(s, f->ifc);
	if (--f->left)
		sim_schedule(s, s->now + f->gap, &f->ev, 0);
}

int sim_net_flow(struct sim *s, struct sim_task *t, const char *iface, uint64_t npkts,
		 uint32_t size, uint64_t rate_bps, uint16_t dport, int line)
{
	struct sim_net *net;
	struct flow *f;
	int r = net_get(s, true, &net);

	if (r < 0)
		return sim_fail(s, line, r, "flow");
	f = ucg_calloc(1, sizeof(*f));
	if (!f)
		return sim_fail(s, line, -ENOMEM, "flow");
	f->ifc = iface_find(net, iface);
	if (!f->ifc) {
		ucg_free(f);
		return sim_fail(s, line, -ENODEV, "flow: %s", iface);
	}
	f->ev.fire = flow_fire;
	f->t = t;
	f->left = npkts;
	f->size = size;
	f->gap = wire_time(size, rate_bps);
	if (f->gap <= 0)
		f->gap = 1;
	f->dport = dport;
	f->next = net->flows;
	net->flows = f;
	if (npkts)
		sim_schedule(s, s->now, &f->ev, 0);
	return 0;
}

int sim_net_format(struct sim *s, struct ucg_buf *out)
{
	struct sim_net *net = s->net;
	size_t i;

	if (!net)
		return 0;
	ucg_buf_printf(out, "\ninterfaces\n%-8s %12s %10s %14s %8s\n", "name", "rate_bit/s",
		       "tx_pkts", "tx_bytes", "queued");
	for (i = 0; i < net->nifc; i++) {
		struct iface *ifc = &net->ifc[i];

		ucg_buf_printf(out, "%-8s %12" PRIu64 " %10" PRIu64 " %14" PRIu64 " %8u\n",
			       ifc->name, ifc->rate_bps, ifc->tx_pkts, ifc->tx_bytes,
			       ntc_dev_qlen(ifc->d));
	}
	return ucg_buf_error(out);
}

#else /* the traffic-control model is not built in */

bool sim_net_available(void)
{
	return false;
}

int sim_net_init(struct sim *s)
{
	(void)s;
	return 0;
}

void sim_net_fini(struct sim *s)
{
	(void)s;
}

int sim_net_tc(struct sim *s, int argc, char **argv, int line)
{
	(void)argc;
	(void)argv;
	return sim_fail(s, line, -ENOSYS, "tc: the traffic-control model is not built in");
}

int sim_net_flow(struct sim *s, struct sim_task *t, const char *iface, uint64_t npkts,
		 uint32_t size, uint64_t rate_bps, uint16_t dport, int line)
{
	(void)t;
	(void)iface;
	(void)npkts;
	(void)size;
	(void)rate_bps;
	(void)dport;
	return sim_fail(s, line, -ENOSYS, "flow: the traffic-control model is not built in");
}

int sim_net_iface(struct sim *s, const char *name, uint64_t rate_bps, int line)
{
	(void)name;
	(void)rate_bps;
	return sim_fail(s, line, -ENOSYS, "iface: the traffic-control model is not built in");
}

int sim_net_format(struct sim *s, struct ucg_buf *out)
{
	(void)s;
	(void)out;
	return 0;
}

#endif
