/* ntc/test_ntc_sched.c — hand-computed expectations for the qdisc algorithms.
 *
 * A small driver offers packets and dequeues them at the link rate of a device; rates
 * are measured from the dequeued layer-2 bytes over the run.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "harness.h"
#include "ntc/ntc.h"

#define NS 1000000000LL

static struct ntc *mk(void)
{
	struct ntc *n = NULL;

	if (ntc_new_default(&n) < 0)
		abort();
	return n;
}

static int tc(struct ntc *n, const char *line)
{
	struct ntc_err err;
	int r = ntc_tc_line(n, line, NULL, NULL, &err);

	if (r < 0)
		fprintf(stderr, "  tc %s: %s\n", line, err.msg);
	return r;
}

/* Offered load: flows[i] sends len bytes packets with the given fields, keeping the
 * device backlogged; dequeues at link rate until `dur`. bytes[i] = L2 bytes sent. */
struct flow {
	uint32_t len, priority, classid, mark;
	uint16_t dport;
	uint64_t bytes;
	double offered_bps; /* 0 = greedy: keeps 64 packets outstanding */
	int64_t next;
	int outstanding;
};

/* Packets come from a pool; released (dropped) and sent packets go back to its
 * free list, so no packet is reused while the model holds it. */
struct pool {
	struct ntc_pkt *p;
	size_t n, used;
	unsigned released;
	struct ntc_pkt **free;
	size_t nfree;
	struct flow *flows; /* during run(): outstanding counts */
};

static void rel(void *ctx, struct ntc_pkt *p)
{
	struct pool *pool = ctx;

	pool->released++;
	if (pool->free)
		pool->free[pool->nfree++] = p;
	if (pool->flows)
		pool->flows[p->cookie].outstanding--;
}


static void run(struct ntc *n, struct flow *f, int nf, int64_t dur, struct pool *pool)
{
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	uint64_t link = ntc_dev_rate(d) / 8;
	int64_t now = 0;

	pool->free = malloc(pool->n * sizeof(*pool->free));
	for (size_t i = 0; i < pool->n; i++)
		pool->free[i] = &pool->p[i];
	pool->nfree = pool->n;
	pool->flows = f;
	ntc_set_release(n, rel, pool);
	while (now < dur) {
		/* refill: greedy flows keep ~20 packets in the device */
		for (int i = 0; i < nf; i++) {
			int guard = 0;

			while (f[i].next <= now && guard++ < 64 && pool->nfree &&
			       (f[i].offered_bps > 0 || f[i].outstanding < 64)) {
				struct ntc_pkt *p = pool->free[--pool->nfree];

				memset(p, 0, sizeof(*p));
				p->len = f[i].len;
				p->priority = f[i].priority;
				p->classid = f[i].classid;
				p->mark = f[i].mark;
				p->protocol = 0x0800;
				p->ip_proto = 17;
				p->dport = f[i].dport;
				p->sport = (uint16_t)(1000 + i);
				p->cookie = (uint64_t)i;
				f[i].outstanding++;
				ntc_enqueue(d, p, now);
				if (f[i].offered_bps > 0)
					f[i].next += (int64_t)(f[i].len * 8 * 1e9 / f[i].offered_bps);
			}
		}
		{
			int64_t next = NTC_TIME_MAX;
			struct ntc_pkt *p = ntc_dequeue(d, now, &next);

			if (p) {
				f[p->cookie].bytes += p->len;
				f[p->cookie].outstanding--;
				pool->free[pool->nfree++] = p;
				now += (int64_t)((uint64_t)p->len * NS / link);
			} else {
				/* idle: until the model can send or a paced flow offers */
				int64_t t = next > now ? next : now + 1000;

				for (int i = 0; i < nf; i++)
					if (f[i].offered_bps > 0 && f[i].next > now && f[i].next < t)
						t = f[i].next;
				if (t == NTC_TIME_MAX)
					t = now + 1000;
				now = t;
			}
		}
	}
	ntc_set_release(n, NULL, NULL);
	free(pool->free);
	pool->free = NULL;
	pool->flows = NULL;
}

static double mbit(uint64_t bytes, int64_t dur)
{
	return bytes * 8.0 / (dur / 1e9) / 1e6;
}

static struct pool mkpool(void)
{
	struct pool p = { calloc(1 << 16, sizeof(struct ntc_pkt)), 1 << 16, 0, 0, NULL, 0, NULL };

	return p;
}

static void tbf_long_run_rate(void)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	struct flow f[1] = { { .len = 1514, .offered_bps = 40e6 } };
	double r;

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 32kb latency 50ms"), 0);
	run(n, f, 1, 10 * NS, &pool);
	r = mbit(f[0].bytes, 10 * NS);
	printf("     tbf 20mbit: %.3f Mbit/s\n", r);
	/* 20 Mbit/s plus at most one bucket (32 KiB) over 10 s */
	T_CHECK(r >= 19.98 && r <= 20.0 + 32768 * 8 / 10.0 / 1e6 + 0.01);
	ntc_free(n);
	free(pool.p);
}

static void tbf_burst_bounded(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();
	struct ntc_pkt *p;
	uint64_t sent = 0;
	int i;

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 10000 limit 100000"), 0);
	ntc_set_release(n, rel, &pool);
	for (i = 0; i < 50; i++) {
		pool.p[i].len = 1000;
		ntc_enqueue(d, &pool.p[i], 0);
	}
	/* at t=0 only the bucket's worth can leave: 10 packets of 1000 bytes */
	while ((p = ntc_dequeue(d, 0, NULL)))
		sent += p->len;
	T_EQ_INT(sent, 10000);
	{
		int64_t next = 0;

		T_CHECK(ntc_dequeue(d, 0, &next) == NULL);
		/* next packet after 1000 bytes at 125000 B/s = 8 ms */
		T_CHECK(next >= 7999000 && next <= 8000000);
		T_CHECK(ntc_dequeue(d, next, NULL) != NULL);
	}
	ntc_free(n);
	free(pool.p);
}

static void tbf_oversize_dropped(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 1000 limit 1000000"), 0);
	ntc_set_release(n, rel, &pool);
	for (int i = 0; i < 400; i++) {
		pool.p[i].len = i < 200 ? 1442 : 942;
		ntc_enqueue(d, &pool.p[i], 0);
	}
	T_EQ_INT(pool.released, 200);
	T_EQ_INT(ntc_dev_qlen(d), 200);
	ntc_free(n);
	free(pool.p);
}

static void htb_setup(struct ntc *n, const char *c10, const char *c20)
{
	char line[256];

	tc(n, "qdisc add dev eth0 root handle 1: htb default 30");
	tc(n, "class add dev eth0 parent 1: classid 1:1 htb rate 30mbit ceil 30mbit");
	snprintf(line, sizeof(line), "class add dev eth0 parent 1:1 classid 1:10 htb %s", c10);
	tc(n, line);
	snprintf(line, sizeof(line), "class add dev eth0 parent 1:1 classid 1:20 htb %s", c20);
	tc(n, line);
	tc(n, "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 10 0xffff flowid 1:10");
	tc(n, "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 20 0xffff flowid 1:20");
}

static void htb_case(const char *c10, const char *c20, bool both, double w10, double w20,
		     double tol)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	struct flow f[2] = { { .len = 1514, .dport = 10 }, { .len = 1514, .dport = 20 } };
	double r10, r20;

	htb_setup(n, c10, c20);
	run(n, f, both ? 2 : 1, 10 * NS, &pool);
	r10 = mbit(f[0].bytes, 10 * NS);
	r20 = mbit(f[1].bytes, 10 * NS);
	printf("     htb [%s] [%s]: %.3f / %.3f Mbit/s (want %.2f / %.2f)\n", c10, c20, r10, r20,
	       w10, w20);
	T_CHECK(r10 > w10 * (1 - tol) && r10 < w10 * (1 + tol));
	if (both)
		T_CHECK(r20 > w20 * (1 - tol) && r20 < w20 * (1 + tol));
	ntc_free(n);
	free(pool.p);
}

static void htb_rate_guarantee(void)
{
	htb_case("rate 10mbit ceil 30mbit", "rate 20mbit ceil 30mbit", true, 10, 20, 0.01);
}
static void htb_ceil_lending(void)
{
	htb_case("rate 10mbit ceil 30mbit", "rate 20mbit ceil 30mbit", false, 30, 0, 0.01);
}
static void htb_ceil_equals_rate(void)
{
	htb_case("rate 10mbit ceil 10mbit", "rate 20mbit ceil 30mbit", false, 10, 0, 0.01);
}
static void htb_quantum_share(void)
{
	htb_case("rate 5mbit ceil 30mbit", "rate 15mbit ceil 30mbit", true, 7.5, 22.5, 0.02);
}
static void htb_equal_share(void)
{
	htb_case("rate 5mbit ceil 30mbit", "rate 5mbit ceil 30mbit", true, 15, 15, 0.02);
}
static void htb_prio_first(void)
{
	htb_case("rate 5mbit ceil 30mbit prio 0", "rate 5mbit ceil 30mbit prio 1", true, 25, 5, 0.02);
}

static void htb_direct_queue(void)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	struct flow f[1] = { { .len = 1514, .dport = 99 } };
	double r;

	tc(n, "qdisc add dev eth0 root handle 1: htb default 99");
	tc(n, "class add dev eth0 parent 1: classid 1:10 htb rate 5mbit");
	run(n, f, 1, 1 * NS, &pool);
	r = mbit(f[0].bytes, 1 * NS);
	printf("     htb default to a missing class: %.1f Mbit/s (link 1000)\n", r);
	T_CHECK(r > 900);
	ntc_free(n);
	free(pool.p);
}

static void htb_priority_selects_class(void)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	struct flow f[2] = { { .len = 1514, .priority = 0x10010 }, { .len = 1514 } };

	tc(n, "qdisc add dev eth0 root handle 1: htb default 20");
	tc(n, "class add dev eth0 parent 1: classid 1:10 htb rate 8mbit");
	tc(n, "class add dev eth0 parent 1: classid 1:20 htb rate 2mbit");
	run(n, f, 2, 10 * NS, &pool);
	printf("     SO_PRIORITY 1:10 / default: %.3f / %.3f\n", mbit(f[0].bytes, 10 * NS),
	       mbit(f[1].bytes, 10 * NS));
	T_CHECK(mbit(f[0].bytes, 10 * NS) > 7.9 && mbit(f[0].bytes, 10 * NS) < 8.1);
	T_CHECK(mbit(f[1].bytes, 10 * NS) > 1.97 && mbit(f[1].bytes, 10 * NS) < 2.03);
	ntc_free(n);
	free(pool.p);
}

static void htb_cgroup_classid(void)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	struct flow f[3] = { { .len = 1514, .classid = 0x10010 },
			     { .len = 1514, .classid = 0x10020 },
			     { .len = 1514 } };

	tc(n, "qdisc add dev eth0 root handle 1: htb default 30");
	tc(n, "class add dev eth0 parent 1: classid 1:10 htb rate 10mbit");
	tc(n, "class add dev eth0 parent 1: classid 1:20 htb rate 20mbit");
	tc(n, "class add dev eth0 parent 1: classid 1:30 htb rate 2mbit");
	T_EQ_INT(tc(n, "filter add dev eth0 parent 1: protocol ip prio 10 handle 1: cgroup"), 0);
	run(n, f, 3, 10 * NS, &pool);
	printf("     net_cls 1:10 / 1:20 / 0: %.3f / %.3f / %.3f\n", mbit(f[0].bytes, 10 * NS),
	       mbit(f[1].bytes, 10 * NS), mbit(f[2].bytes, 10 * NS));
	T_CHECK(mbit(f[0].bytes, 10 * NS) > 9.9 && mbit(f[0].bytes, 10 * NS) < 10.1);
	T_CHECK(mbit(f[1].bytes, 10 * NS) > 19.8 && mbit(f[1].bytes, 10 * NS) < 20.2);
	T_CHECK(mbit(f[2].bytes, 10 * NS) > 1.98 && mbit(f[2].bytes, 10 * NS) < 2.02);
	ntc_free(n);
	free(pool.p);
}

static void pfifo_fast_strict(void)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	/* under a 20 Mbit/s tbf: bands 0/1/2 offered 15 Mbit/s each */
	struct flow f[3] = { { .len = 1442, .priority = 6, .offered_bps = 15e6 },
			     { .len = 1442, .priority = 0, .offered_bps = 15e6 },
			     { .len = 1442, .priority = 2, .offered_bps = 15e6 } };

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 32kb latency 50ms"), 0);
	T_EQ_INT(tc(n, "qdisc add dev eth0 parent 1:1 handle 10: pfifo_fast"), 0);
	run(n, f, 3, 10 * NS, &pool);
	printf("     pfifo_fast bands: %.2f / %.2f / %.2f\n", mbit(f[0].bytes, 10 * NS),
	       mbit(f[1].bytes, 10 * NS), mbit(f[2].bytes, 10 * NS));
	T_CHECK(mbit(f[0].bytes, 10 * NS) > 14.9);
	T_CHECK(mbit(f[1].bytes, 10 * NS) > 4.9 && mbit(f[1].bytes, 10 * NS) < 5.2);
	T_CHECK(mbit(f[2].bytes, 10 * NS) < 0.1);
	ntc_free(n);
	free(pool.p);
}

static void prio_strict(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();
	struct ntc_pkt *p;

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: prio"), 0);
	ntc_set_release(n, rel, &pool);
	for (int i = 0; i < 30; i++) {
		pool.p[i].len = 100;
		pool.p[i].priority = i % 3 == 0 ? 2 : i % 3 == 1 ? 0 : 6; /* bands 2, 1, 0 */
		pool.p[i].cookie = (uint64_t)(i % 3);
		ntc_enqueue(d, &pool.p[i], 0);
	}
	for (int i = 0; i < 30; i++) {
		p = ntc_dequeue(d, 0, NULL);
		T_CHECK(p != NULL);
		if (p)
			T_EQ_INT(p->cookie, i < 10 ? 2 : i < 20 ? 1 : 0);
	}
	/* priority naming a band directly */
	pool.p[40].len = 100;
	pool.p[40].priority = 0x10003;
	pool.p[40].cookie = 77;
	pool.p[41].len = 100;
	pool.p[41].priority = 6;
	pool.p[41].cookie = 78;
	ntc_enqueue(d, &pool.p[40], 0);
	ntc_enqueue(d, &pool.p[41], 0);
	T_EQ_INT(ntc_dequeue(d, 0, NULL)->cookie, 78);
	T_EQ_INT(ntc_dequeue(d, 0, NULL)->cookie, 77);
	ntc_free(n);
	free(pool.p);
}

static void backlog_returns_to_zero(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();
	int64_t now = 0, next;

	htb_setup(n, "rate 10mbit ceil 30mbit", "rate 20mbit ceil 30mbit");
	tc(n, "qdisc add dev eth0 parent 1:10 handle 10: pfifo limit 5");
	ntc_set_release(n, rel, &pool);
	for (int i = 0; i < 100; i++) {
		pool.p[i].len = 1000;
		pool.p[i].protocol = 0x0800;
		pool.p[i].dport = i % 2 ? 10 : 20;
		ntc_enqueue(d, &pool.p[i], 0);
	}
	T_EQ_INT(pool.released, 45);
	while (ntc_dev_qlen(d)) {
		if (!ntc_dequeue(d, now, &next))
			now = next;
	}
	T_EQ_INT(ntc_dev_backlog(d), 0);
	ntc_free(n);
	free(pool.p);
}

static void bad_input_changes_nothing(void)
{
	struct ntc *n = mk();
	struct ucg_buf a, b;
	struct ntc_err err;

	ucg_buf_init(&a);
	ucg_buf_init(&b);
	tc(n, "qdisc add dev eth0 root handle 1: htb default 20");
	tc(n, "class add dev eth0 parent 1: classid 1:10 htb rate 1mbit");
	ntc_tc_line(n, "-s -d class show dev eth0", &a, NULL, &err);
	T_CHECK(ntc_tc_line(n, "class add dev eth0 parent 1: classid 1:10 htb rate 2mbit", NULL, NULL, &err) < 0);
	T_CHECK(ntc_tc_line(n, "class change dev eth0 parent 1: classid 1:10 htb ceil 2mbit", NULL, NULL, &err) < 0);
	T_CHECK(ntc_tc_line(n, "qdisc replace dev eth0 root handle 1: tbf rate 1mbit", NULL, NULL, &err) < 0);
	ntc_tc_line(n, "-s -d class show dev eth0", &b, NULL, &err);
	T_EQ_STR(a.data, b.data);
	ucg_buf_fini(&a);
	ucg_buf_fini(&b);
	ntc_free(n);
}


static void sfq_equal_shares(void)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	/* four greedy flows of different packet sizes under a 20 Mbit/s tbf */
	struct flow f[4] = { { .len = 1514, .dport = 1 }, { .len = 1514, .dport = 2 },
			     { .len = 600, .dport = 3 }, { .len = 200, .dport = 4 } };

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 32kb latency 50ms"), 0);
	T_EQ_INT(tc(n, "qdisc add dev eth0 parent 1:1 handle 10: sfq perturb 1"), 0);
	run(n, f, 4, 10 * NS, &pool);
	printf("     sfq 4 flows: %.2f %.2f %.2f %.2f\n", mbit(f[0].bytes, 10 * NS),
	       mbit(f[1].bytes, 10 * NS), mbit(f[2].bytes, 10 * NS), mbit(f[3].bytes, 10 * NS));
	for (int i = 0; i < 4; i++)
		T_CHECK(mbit(f[i].bytes, 10 * NS) > 4.85 && mbit(f[i].bytes, 10 * NS) < 5.15);
	ntc_free(n);
	free(pool.p);
}

static void sfq_unclassified_dropped(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: sfq"), 0);
	T_EQ_INT(tc(n, "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 80 0xffff flowid 1:5"), 0);
	ntc_set_release(n, rel, &pool);
	pool.p[0].len = 100;
	pool.p[0].protocol = 0x0800;
	pool.p[0].dport = 80;
	pool.p[1] = pool.p[0];
	pool.p[1].dport = 81;
	T_EQ_INT(ntc_enqueue(d, &pool.p[0], 0), 0);
	T_EQ_INT(ntc_enqueue(d, &pool.p[1], 0), -ENOBUFS);
	T_EQ_INT(pool.released, 1);
	ntc_free(n);
	free(pool.p);
}

static void sfq_limit_drops_longest(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();
	int i;

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: sfq limit 10"), 0);
	ntc_set_release(n, rel, &pool);
	for (i = 0; i < 9; i++) { /* flow A: 9 packets */
		pool.p[i].len = 100;
		pool.p[i].dport = 1;
		pool.p[i].cookie = 1;
		ntc_enqueue(d, &pool.p[i], 0);
	}
	for (; i < 12; i++) { /* flow B: 3 packets; A loses its newest twice */
		pool.p[i].len = 100;
		pool.p[i].dport = 2;
		pool.p[i].cookie = 2;
		ntc_enqueue(d, &pool.p[i], 0);
	}
	T_EQ_INT(ntc_dev_qlen(d), 10);
	T_EQ_INT(pool.released, 2);
	T_EQ_INT(ntc_dev_backlog(d), 1000);
	ntc_free(n);
	free(pool.p);
}

static void drr_quantum_shares(void)
{
	struct ntc *n = mk();
	struct pool pool = mkpool();
	struct flow f[3] = { { .len = 1000, .priority = 0x10001 },
			     { .len = 1000, .priority = 0x10002 },
			     { .len = 1000, .priority = 0x10009 } };

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: tbf rate 30mbit burst 32kb latency 50ms"), 0);
	T_EQ_INT(tc(n, "qdisc add dev eth0 parent 1:1 handle 2: drr"), 0);
	T_EQ_INT(tc(n, "class add dev eth0 parent 2: classid 2:1 drr quantum 1000"), 0);
	T_EQ_INT(tc(n, "class add dev eth0 parent 2: classid 2:2 drr quantum 2000"), 0);
	f[0].priority = 0x20001;
	f[1].priority = 0x20002;
	f[2].priority = 0x20009; /* no such class: dropped */
	run(n, f, 3, 10 * NS, &pool);
	printf("     drr quantum 1000/2000: %.2f / %.2f (unclassified %.2f)\n",
	       mbit(f[0].bytes, 10 * NS), mbit(f[1].bytes, 10 * NS), mbit(f[2].bytes, 10 * NS));
	T_CHECK(mbit(f[0].bytes, 10 * NS) > 9.9 && mbit(f[0].bytes, 10 * NS) < 10.15);
	T_CHECK(mbit(f[1].bytes, 10 * NS) > 19.8 && mbit(f[1].bytes, 10 * NS) < 20.2);
	T_EQ_INT(f[2].bytes, 0);
	ntc_free(n);
	free(pool.p);
}

static void head_drop_keeps_newest(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: htb default 1"), 0);
	T_EQ_INT(tc(n, "class add dev eth0 parent 1: classid 1:1 htb rate 1mbit"), 0);
	T_EQ_INT(tc(n, "qdisc add dev eth0 parent 1:1 handle 2: pfifo_head_drop limit 3"), 0);
	ntc_set_release(n, rel, &pool);
	for (int i = 0; i < 5; i++) {
		pool.p[i].len = 100 + i;
		pool.p[i].cookie = (uint64_t)i;
		T_EQ_INT(ntc_enqueue(d, &pool.p[i], 0), i < 3 ? 0 : 2);
	}
	T_EQ_INT(ntc_dev_qlen(d), 3);
	T_EQ_INT(ntc_dev_backlog(d), 102 + 103 + 104);
	T_EQ_INT(ntc_dequeue(d, 0, NULL)->cookie, 2);
	{
		struct ucg_buf b;
		struct ntc_err err;

		ucg_buf_init(&b);
		ntc_tc_line(n, "-s qdisc show dev eth0", &b, NULL, &err);
		T_EQ_STR(b.data,
			 "qdisc htb 1: root refcnt 2 r2q 10 default 0x1 direct_packets_stat 0 direct_qlen 1000\n"
			 " Sent 102 bytes 1 pkt (dropped 2, overlimits 0 requeues 0) \n"
			 " backlog 207b 2p requeues 0\n"
			 "qdisc pfifo_head_drop 2: parent 1:1 limit 3p\n"
			 " Sent 102 bytes 1 pkt (dropped 2, overlimits 0 requeues 0) \n"
			 " backlog 207b 2p requeues 0\n");
		ucg_buf_fini(&b);
	}
	ntc_free(n);
	free(pool.p);
}

static void tbf_child_delete_leaves_noop(void)
{
	struct ntc *n = mk();
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	struct pool pool = mkpool();

	T_EQ_INT(tc(n, "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 10k latency 50ms"), 0);
	T_EQ_INT(tc(n, "qdisc add dev eth0 parent 1:1 handle 2: pfifo"), 0);
	T_EQ_INT(tc(n, "qdisc del dev eth0 parent 1:1"), 0);
	ntc_set_release(n, rel, &pool);
	for (int i = 0; i < 51; i++) {
		pool.p[i].len = 100;
		ntc_enqueue(d, &pool.p[i], 0);
	}
	T_EQ_INT(pool.released, 51);
	ntc_free(n);
	free(pool.p);
}

static void enomem_unwinds(void)
{
	static const char *const script[] = {
		"qdisc add dev eth0 root handle 1: htb default 20",
		"class add dev eth0 parent 1: classid 1:1 htb rate 30mbit",
		"class add dev eth0 parent 1:1 classid 1:10 htb rate 10mbit ceil 30mbit",
		"class add dev eth0 parent 1:1 classid 1:20 htb rate 20mbit ceil 30mbit",
		"qdisc add dev eth0 parent 1:10 handle 10: sfq perturb 10",
		"qdisc add dev eth0 parent 1:20 handle 20: tbf rate 5mbit burst 10k latency 10ms",
		"filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 80 0xffff flowid 1:10",
		"filter add dev eth0 parent 1: protocol ip prio 2 handle 1: cgroup",
		"class del dev eth0 classid 1:20",
		"qdisc replace dev eth0 root handle 2: prio",
		"qdisc add dev eth0 parent 2:1 handle 3: drr",
		"class add dev eth0 parent 3: classid 3:1 drr",
		"-s qdisc show",
	};
	for (long k = 0; k < 400; k++) {
		struct ntc *n = NULL;
		struct ucg_buf out;
		struct ntc_err err;
		int failed = 0;

		ucg_alloc_fail_after(k);
		if (ntc_new_default(&n) < 0) {
			ucg_alloc_fail_after(-1);
			continue;
		}
		ucg_buf_init(&out);
		for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++)
			if (ntc_tc_line(n, script[i], &out, NULL, &err) == -ENOMEM)
				failed = 1;
		ucg_alloc_fail_after(-1);
		ucg_buf_fini(&out);
		ntc_free(n);
		if (!failed && k > 0)
			break;
	}
	T_CHECK(1); /* leaks and crashes are caught by the sanitizers */
}

int main(void)
{
	T_RUN(tbf_long_run_rate);
	T_RUN(tbf_burst_bounded);
	T_RUN(tbf_oversize_dropped);
	T_RUN(htb_rate_guarantee);
	T_RUN(htb_ceil_lending);
	T_RUN(htb_ceil_equals_rate);
	T_RUN(htb_quantum_share);
	T_RUN(htb_equal_share);
	T_RUN(htb_prio_first);
	T_RUN(htb_direct_queue);
	T_RUN(htb_priority_selects_class);
	T_RUN(htb_cgroup_classid);
	T_RUN(pfifo_fast_strict);
	T_RUN(prio_strict);
	T_RUN(backlog_returns_to_zero);
	T_RUN(bad_input_changes_nothing);
	T_RUN(sfq_equal_shares);
	T_RUN(sfq_unclassified_dropped);
	T_RUN(sfq_limit_drops_longest);
	T_RUN(drr_quantum_shares);
	T_RUN(head_drop_keeps_newest);
	T_RUN(tbf_child_delete_leaves_noop);
	T_RUN(enomem_unwinds);
	return t_done();
}
