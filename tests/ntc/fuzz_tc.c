/* tests/ntc/fuzz_tc.c — fuzz target for the tc command grammar on a model instance.
 *
 * The input is a list of lines, run in order on one fresh instance (lo, eth0). After
 * each line a few packets go through eth0 so that enqueue/dequeue meet every
 * configuration the grammar can build. Invariants (abort on violation):
 *   - a command that fails leaves the listing (qdiscs, classes, filters, with -s -d)
 *     exactly as it was: bad input changes nothing;
 *   - every packet handed to the device is eventually released or dequeued, and once
 *     the device is drained its backlog is 0 bytes / 0 packets.
 * Built as a libFuzzer target with -Dfuzz=true and clang; replay_tc.c replays the
 * corpus in tests/ntc/corpus on every test run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "ntc/ntc.h"

int ucg_fuzz_tc(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct box {
	struct ntc_pkt pkts[64];
	unsigned released;
};

static void rel(void *ctx, struct ntc_pkt *p)
{
	((struct box *)ctx)->released++;
}

static void listing(struct ntc *n, struct ucg_buf *b)
{
	static const char *const shows[] = { "-s -d qdisc show invisible",
					     "-s -d class show dev eth0",
					     "filter show dev eth0" };
	struct ntc_err err;

	ucg_buf_reset(b);
	for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++)
		ntc_tc_line(n, shows[i], b, NULL, &err);
}

static void traffic(struct ntc *n, struct box *box, unsigned round)
{
	struct ntc_dev *d = ntc_dev_find(n, "eth0");
	unsigned handed = 0, out = 0;
	int64_t now = (int64_t)round * 1000000000LL, next;

	box->released = 0;
	for (unsigned i = 0; i < 64; i++) {
		struct ntc_pkt *p = &box->pkts[i];
		int r;

		memset(p, 0, sizeof(*p));
		p->len = 60 + (i * 97) % 1455;
		p->protocol = i % 7 ? 0x0800 : 0x86DD;
		p->priority = i % 5 == 0 ? 0x10000u | (i % 4) : i % 8;
		p->classid = i % 3 ? 0x10010u + (i % 2) * 0x10 : 0;
		p->mark = i % 4;
		p->ip_proto = i % 2 ? 6 : 17;
		p->dport = (uint16_t)(80 + i % 3);
		p->sport = (uint16_t)(1000 + i);
		r = ntc_enqueue(d, p, now);
		handed++;
		if (r == 1)
			out++; /* noqueue: sent at once */
	}
	for (int guard = 0; ntc_dev_qlen(d) && guard < 100000; guard++) {
		if (ntc_dequeue(d, now, &next))
			out++;
		else if (next == NTC_TIME_MAX)
			break; /* only a drop-everything path could hold it: impossible */
		else
			now = next > now ? next : now + 1;
	}
	if (ntc_dev_qlen(d) || ntc_dev_backlog(d))
		abort();
	if (out + box->released != handed)
		abort();
}

int ucg_fuzz_tc(const uint8_t *data, size_t size)
{
	struct ucg_buf before, after, out;
	struct box box;
	struct ntc *n;
	char *text, *line, *save = NULL;
	unsigned round = 0;

	if (size > 1 << 16)
		return 0;
	if (ntc_new_default(&n) < 0)
		return 0;
	ntc_set_release(n, rel, &box);
	text = malloc(size + 1);
	if (!text) {
		ntc_free(n);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = 0;
	ucg_buf_init(&before);
	ucg_buf_init(&after);
	ucg_buf_init(&out);
	for (line = strtok_r(text, "\n", &save); line && round < 64;
	     line = strtok_r(NULL, "\n", &save), round++) {
		struct ntc_err err;
		int r;

		listing(n, &before);
		ucg_buf_reset(&out);
		r = ntc_tc_line(n, line, &out, NULL, &err);
		if (r < 0) {
			listing(n, &after);
			if (before.len != after.len ||
			    (before.len && memcmp(before.data, after.data, before.len)))
				abort();
		}
		traffic(n, &box, round);
	}
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
	ucg_buf_fini(&out);
	free(text);
	ntc_free(n);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_tc(data, size);
}
