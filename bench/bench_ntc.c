/* bench/bench_ntc.c — packets per second through enqueue+dequeue of the NTC model.
 *
 * Prints one "name value unit" line per figure:
 *   ntc.pfifo_pps   pfifo root
 *   ntc.tbf_pps     tbf root (rate high enough that the bucket never runs dry)
 *   ntc.sfq_pps     sfq root with 1000 flows
 *   ntc.htb_pps     3-level htb: 1 root class, 10 inner classes, 100 leaves, a
 *                   filter chain of 4 non-matching u32 filters then a cgroup filter
 *                   whose classid names the leaf
 * and ntc.*_ns_per_pkt (ns per enqueue+dequeue pair). Each run keeps 64 packets in
 * the device and does one enqueue and one dequeue per step, the model's clock
 * advancing 1.2 us per packet (10 Gbit/s for 1514-byte frames).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ntc/ntc.h"

#define NPKT 4096
#define STEPS 4000000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setup(struct ntc *n, const char *const *cmds)
{
	for (; *cmds; cmds++) {
		struct ntc_err err;

		if (ntc_tc_line(n, *cmds, NULL, NULL, &err) < 0) {
			fprintf(stderr, "bench_ntc: %s: %s\n", *cmds, err.msg);
			exit(1);
		}
	}
}

static void run(const char *name, const char *const *cmds, unsigned nflows, bool leaf_classid)
{
	static struct ntc_pkt pkts[NPKT];
	struct ntc_pkt *free_list[NPKT];
	size_t nfree = 0;
	struct ntc *n;
	struct ntc_dev *d;
	int64_t now = 0;
	double t0, t;
	unsigned long sent = 0;

	if (ntc_new_default(&n) < 0)
		exit(1);
	setup(n, cmds);
	d = ntc_dev_find(n, "eth0");
	srand(1);
	for (unsigned i = 0; i < NPKT; i++) {
		struct ntc_pkt *p = &pkts[i];
		unsigned f = (unsigned)rand() % nflows;

		memset(p, 0, sizeof(*p));
		p->len = 1514;
		p->protocol = 0x0800;
		p->ip_proto = 17;
		p->saddr = 0x0a000000u + f;
		p->daddr = 0x0a0000ffu;
		p->sport = (uint16_t)(1024 + f);
		p->dport = 5001;
		if (leaf_classid) /* leaves 1:1000 .. 1:1009, 1:1100 .., ... 1:1909 */
			p->classid = 0x10000u | (0x1000 + (f % 10) * 0x100 + (f / 10) % 10);
		free_list[nfree++] = p;
	}
	/* prefill */
	for (int i = 0; i < 64; i++)
		ntc_enqueue(d, free_list[--nfree], now);
	t0 = now_s();
	for (long s = 0; s < STEPS; s++) {
		struct ntc_pkt *p;
		int64_t next;

		now += 1200;
		if (nfree)
			ntc_enqueue(d, free_list[--nfree], now);
		p = ntc_dequeue(d, now, &next);
		if (p) {
			free_list[nfree++] = p;
			sent++;
		}
	}
	t = now_s() - t0;
	if (ntc_dev_qlen(d) > NPKT || sent < STEPS / 2) {
		fprintf(stderr, "bench_ntc: %s: only %lu of %d steps sent a packet\n", name, sent,
			STEPS);
	}
	printf("ntc.%s_pps %.0f pps\n", name, STEPS / t);
	printf("ntc.%s_ns_per_pkt %.1f ns\n", name, t * 1e9 / STEPS);
	ntc_free(n);
}

int main(void)
{
	static const char *const pfifo[] = { "qdisc add dev eth0 root handle 1: pfifo limit 10000",
					     NULL };
	static const char *const tbf[] = {
		"qdisc add dev eth0 root handle 1: tbf rate 20gbit burst 1mb latency 10ms", NULL
	};
	static const char *const sfq[] = {
		"qdisc add dev eth0 root handle 1: sfq limit 10000 depth 127 flows 1024 divisor 1024",
		NULL
	};
	static char lines[200][160];
	static const char *htb[200];
	int k = 0;

	run("pfifo", pfifo, 1, false);
	run("tbf", tbf, 1, false);
	run("sfq", sfq, 1000, false);

	snprintf(lines[k], sizeof(lines[k]), "qdisc add dev eth0 root handle 1: htb");
	k++;
	snprintf(lines[k], sizeof(lines[k]),
		 "class add dev eth0 parent 1: classid 1:1 htb rate 10gbit ceil 10gbit");
	k++;
	for (int m = 0; m < 10; m++) {
		snprintf(lines[k++], sizeof(lines[0]),
			 "class add dev eth0 parent 1:1 classid 1:%x htb rate 1gbit ceil 10gbit",
			 0x100 + m);
		for (int l = 0; l < 10; l++)
			snprintf(lines[k++], sizeof(lines[0]),
				 "class add dev eth0 parent 1:%x classid 1:%x htb rate 100mbit ceil 10gbit",
				 0x100 + m, 0x1000 + m * 0x100 + l);
	}
	for (int i = 0; i < 4; i++)
		snprintf(lines[k++], sizeof(lines[0]),
			 "filter add dev eth0 parent 1: protocol ip prio %d u32 match ip dport %d 0xffff flowid 1:1000",
			 i + 1, 80 + i);
	snprintf(lines[k++], sizeof(lines[0]),
		 "filter add dev eth0 parent 1: protocol ip prio 10 handle 1: cgroup");
	for (int i = 0; i < k; i++)
		htb[i] = lines[i];
	htb[k] = NULL;
	run("htb", htb, 1000, true);
	return 0;
}
