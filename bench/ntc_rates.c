/* bench/ntc_rates.c — the model's side of bench/ntc-vs-kernel.sh.
 *
 *   ntc_rates SECONDS FILE DPORT...
 *
 * Runs the tc lines of FILE on a fresh instance whose eth0 is veth-like (1 Gbit/s,
 * queue length 1000), then offers one greedy UDP flow per DPORT (1400-byte payload,
 * 1442 bytes at layer 2, a sender blocked by back-pressure rather than dropping, as
 * a local UDP socket is) for SECONDS of model time, and prints one line per flow:
 *   model.DPORT_mbit RATE Mbit/s
 * where RATE is the flow's layer-2 bytes dequeued from eth0 after the first second
 * (the initial buckets drained, as in the kernel measurement) divided by the time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntc/ntc.h"

#define WARMUP 1000000000LL
#define INFLIGHT 64 /* packets a blocked sender keeps queued (socket buffer ~ 90 KiB) */

struct flow {
	uint16_t dport;
	int outstanding;
	uint64_t bytes;
};

struct ctx {
	struct flow *f;
	struct ntc_pkt **free;
	size_t nfree;
};

static void rel(void *c, struct ntc_pkt *p)
{
	struct ctx *x = c;

	x->f[p->cookie].outstanding--;
	x->free[x->nfree++] = p;
}

int main(int argc, char **argv)
{
	struct ntc *n;
	struct ntc_dev *d;
	struct ctx x;
	struct flow f[16];
	struct ntc_pkt *pkts;
	char line[4096];
	FILE *in;
	int nf, i;
	int64_t now = 0, end;

	if (argc < 4 || argc - 3 > 16) {
		fprintf(stderr, "usage: ntc_rates SECONDS FILE DPORT...\n");
		return 2;
	}
	end = (int64_t)(atof(argv[1]) * 1e9) + WARMUP;
	if (ntc_new(&n) < 0 ||
	    ntc_dev_add(n, "lo", 0, 1000, 65536, 1, NTC_DEV_NOQUEUE, NULL) < 0 ||
	    ntc_dev_add(n, "eth0", 1000000000ull, 1000, 1500, 1, NTC_DEV_NOQUEUE, &d) < 0)
		return 1;
	in = fopen(argv[2], "r");
	if (!in) {
		perror(argv[2]);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		struct ntc_err err;

		if (ntc_tc_line(n, line, NULL, NULL, &err) < 0) {
			fprintf(stderr, "ntc_rates: %s: %s\n", line, err.msg);
			return 1;
		}
	}
	fclose(in);
	nf = argc - 3;
	pkts = calloc((size_t)nf * INFLIGHT, sizeof(*pkts));
	x.free = calloc((size_t)nf * INFLIGHT, sizeof(*x.free));
	x.f = f;
	x.nfree = 0;
	for (i = 0; i < nf * INFLIGHT; i++)
		x.free[x.nfree++] = &pkts[i];
	for (i = 0; i < nf; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].dport = (uint16_t)atoi(argv[3 + i]);
	}
	ntc_set_release(n, rel, &x);
	while (now < end) {
		struct ntc_pkt *p;
		int64_t next;

		for (i = 0; i < nf; i++)
			while (f[i].outstanding < INFLIGHT && x.nfree) {
				p = x.free[--x.nfree];
				memset(p, 0, sizeof(*p));
				p->len = 1442;
				p->protocol = 0x0800;
				p->ip_proto = 17;
				p->saddr = 0x0a4d0001;
				p->daddr = 0x0a4d0002;
				p->sport = (uint16_t)(40000 + i);
				p->dport = f[i].dport;
				p->cookie = (uint64_t)i;
				int r;

				f[i].outstanding++;
				r = ntc_enqueue(d, p, now);
				if (r == 1) { /* no queue: sent at once */
					if (now >= WARMUP)
						f[i].bytes += p->len;
					f[i].outstanding--;
					x.free[x.nfree++] = p;
				} else if (r != 0) {
					break; /* dropped: the sender tries again next step */
				}
			}
		p = ntc_dequeue(d, now, &next);
		if (p) {
			if (now >= WARMUP)
				f[p->cookie].bytes += p->len;
			f[p->cookie].outstanding--;
			x.free[x.nfree++] = p;
			now += (int64_t)p->len * 8; /* 1 Gbit/s: 8 ns per byte */
		} else {
			now = next != NTC_TIME_MAX && next > now ? next : now + 1000;
		}
	}
	for (i = 0; i < nf; i++)
		printf("model.%u_mbit %.3f Mbit/s\n", f[i].dport, f[i].bytes * 8.0 / ((end - WARMUP) / 1e9) / 1e6);
	ntc_free(n);
	free(pkts);
	free(x.free);
	return 0;
}
