/* ntc/ntc.h — the Network Traffic Control model: public interface.
 *
 * A model instance (struct ntc) holds network devices; each device holds a tree of
 * queueing disciplines (qdiscs), classes and filters, configured with the tc(8)
 * grammar (ntc_tc) and driven packet by packet (ntc_enqueue / ntc_dequeue).
 *
 * The model has no clock, no I/O, no threads and no global mutable state: the caller
 * passes the current time (int64 nanoseconds) to every packet operation, and a
 * throttled device reports the earliest time it could next send instead of being
 * polled. Packets are caller-owned memory; the model links queued packets through
 * pkt->next and hands every packet it discards to the instance's release callback.
 */
#ifndef UCG_NTC_NTC_H
#define UCG_NTC_NTC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define NTC_TIME_MAX INT64_MAX
#define NTC_NSEC_PER_SEC 1000000000LL

/* Ethertypes the filters know (host order). */
#define NTC_ETH_P_ALL 0x0003
#define NTC_ETH_P_IP 0x0800
#define NTC_ETH_P_ARP 0x0806
#define NTC_ETH_P_8021Q 0x8100
#define NTC_ETH_P_IPV6 0x86DD

/* A packet as handed to the device. The simulator fills these fields (from the
 * sending socket, its cgroup's net_cls classid and net_prio priority); the model
 * never looks anything up elsewhere. */
struct ntc_pkt {
	struct ntc_pkt *next; /* owned by the model while queued */
	uint32_t len;         /* layer-2 length in bytes (Ethernet header + IP packet) */
	uint32_t segs;        /* segments (offload packets); 0 counts as 1 */
	uint32_t priority;    /* skb->priority */
	uint32_t classid;     /* net_cls classid of the sending socket, 0 if none */
	uint32_t mark;        /* skb->mark */
	uint16_t protocol;    /* ethertype, NTC_ETH_P_IP for IPv4 */
	uint8_t ip_proto;     /* 6 TCP, 17 UDP, 1 ICMP */
	uint8_t tos;
	uint32_t saddr, daddr; /* IPv4, host order */
	uint16_t sport, dport;
	uint64_t cookie;       /* free for the caller */
};

/* What a failed command would print: the text (without trailing newline) and tc's
 * exit status for it (1 for tc's own parse errors, 2 for kernel refusals, 255 for
 * tc's "invalid argument" exits). */
struct ntc_err {
	int exit_code;
	char msg[2048];
};

struct ntc;
struct ntc_dev;

/* Device flags. */
#define NTC_DEV_NOQUEUE 0x1 /* driver asks for no queue (loopback, veth): default root noqueue */

/* Creates an empty model instance. Returns 0 or -ENOMEM. */
int ntc_new(struct ntc **ret);
/* Creates the standard instance: lo (noqueue) and eth0 (1 Gbit/s Ethernet, qlen 1000,
 * MTU 1500, default root pfifo_fast). */
int ntc_new_default(struct ntc **ret);
/* Destroys the instance; queued packets go to the release callback. NULL is fine. */
void ntc_free(struct ntc *n);
/* Makes the instance behave like a kernel built without the listed qdisc and
 * classifier kinds (space-separated, e.g. "sfq prio drr cgroup"): they are refused as
 * unknown. At most 16 names. -EINVAL if a name is too long, -E2BIG if too many. */
int ntc_disable_kinds(struct ntc *n, const char *kinds);
/* Sets the callback that receives every packet the model drops or discards. */
void ntc_set_release(struct ntc *n, void (*fn)(void *ctx, struct ntc_pkt *p), void *ctx);
/* Adds a device. rate_bps: link rate in bit/s (0 unknown); txqlen: queue length in
 * packets; mtu: bytes without the 14-byte link header; ntxq: transmit queues (shown
 * in the root's refcnt). -EEXIST, -EINVAL, -ENOMEM. */
int ntc_dev_add(struct ntc *n, const char *name, uint64_t rate_bps, unsigned txqlen,
		unsigned mtu, unsigned ntxq, unsigned flags, struct ntc_dev **ret);
/* NULL if absent. */
struct ntc_dev *ntc_dev_find(struct ntc *n, const char *name);
uint64_t ntc_dev_rate(const struct ntc_dev *d); /* bit/s */

/* Enqueues p at time now. Returns 0 when queued; 1 when the device has no queue
 * (noqueue root: the caller transmits p at once); 2 on congestion: the queue did not
 * grow because a packet was dropped to make room (p itself or an older one; whichever
 * it was has already gone to the release callback); -ENOBUFS when p was dropped (it
 * has already gone to the release callback). */
int ntc_enqueue(struct ntc_dev *d, struct ntc_pkt *p, int64_t now);
/* Dequeues the next packet eligible at time now, or NULL. When NULL and packets are
 * queued, *ret_next (if given) is the earliest time one could be sent (NTC_TIME_MAX
 * if none: empty, or only a drop-everything qdisc). */
struct ntc_pkt *ntc_dequeue(struct ntc_dev *d, int64_t now, int64_t *ret_next);
/* Packets / bytes currently queued on the device. */
unsigned ntc_dev_qlen(const struct ntc_dev *d);
uint64_t ntc_dev_backlog(const struct ntc_dev *d);

/* Runs one tc command (argv[0] is the object: "qdisc", "class", "filter"; global
 * options such as -s may precede it). Output of show goes to out, warnings too (as
 * tc prints them on stderr they are returned in warn, which may be NULL).
 * Returns 0 or -errno with err filled; a failed command changes nothing. */
int ntc_tc(struct ntc *n, int argc, char **argv, struct ucg_buf *out, struct ucg_buf *warn,
	   struct ntc_err *err);
/* Splits line into words (tc -batch rules: blanks separate, '#' starts a comment,
 * double quotes group) and runs it; an empty line returns 0. */
int ntc_tc_line(struct ntc *n, const char *line, struct ucg_buf *out, struct ucg_buf *warn,
		struct ntc_err *err);

#endif
