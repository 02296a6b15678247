/* ntc/cls_u32.c — u32: match 32-bit words of the IPv4 header under a mask.
 *
 * Model: a filter holds up to 32 keys (value, mask, offset), offsets 4-aligned from
 * the start of the IP header; all keys must hold (logical AND). tc's clauses are
 * packed as tc packs them (ip src/dst prefixes at 12/16, sport/dport as the high/low
 * half of the word at 20, protocol in the word at 8, tos in the word at 0; u32/u16/u8
 * at explicit offsets, merging keys that share a word). The packet is seen as a
 * 20-byte IPv4 header without options followed by the two ports, built from the
 * packet's fields (so port clauses read offsets 20-23 whatever the protocol, as in
 * the kernel). Each new preference group gets the next hash table id (800:, 801:, ...)
 * of the qdisc; elements are numbered 800, 801, ... inside it.
 */
#include "ntc/sch.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

#define U32_MAXKEYS 32

struct u32_key {
	uint32_t val, mask;
	int off;
};

struct u32_priv {
	int nkeys;
	struct u32_key keys[U32_MAXKEYS];
};

static int pack_key(struct u32_priv *s, uint32_t key, uint32_t mask, int off)
{
	key &= mask;
	for (int i = 0; i < s->nkeys; i++)
		if (s->keys[i].off == off) {
			if ((key ^ s->keys[i].val) & (mask & s->keys[i].mask))
				return -1;
			s->keys[i].val |= key;
			s->keys[i].mask |= mask;
			return 0;
		}
	if (s->nkeys >= U32_MAXKEYS || off % 4 || off < 0)
		return -1;
	s->keys[s->nkeys].val = key;
	s->keys[s->nkeys].mask = mask;
	s->keys[s->nkeys].off = off;
	s->nkeys++;
	return 0;
}

static int pack_key16(struct u32_priv *s, uint32_t key, uint32_t mask, int off)
{
	if (key > 0xFFFF || mask > 0xFFFF)
		return -1;
	if ((off & 3) == 0) {
		key <<= 16;
		mask <<= 16;
	}
	return pack_key(s, key, mask, off & ~3);
}

static int pack_key8(struct u32_priv *s, uint32_t key, uint32_t mask, int off)
{
	if (key > 0xFF || mask > 0xFF)
		return -1;
	key <<= 8 * (3 - (off & 3));
	mask <<= 8 * (3 - (off & 3));
	return pack_key(s, key, mask, off & ~3);
}

static int parse_prefix(const char *s, uint32_t *ret_addr, uint32_t *ret_mask)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	struct in_addr a;
	uint32_t len = 32;

	if (strlen(s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	if (slash) {
		buf[slash - s] = 0;
		if (ntc_get_u32(slash + 1, 10, &len) < 0 || len > 32)
			return -1;
	}
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -1;
	*ret_mask = len ? 0xFFFFFFFFu << (32 - len) : 0;
	*ret_addr = ntohl(a.s_addr) & *ret_mask;
	return 0;
}

static int u32_parse(struct ntc_qdisc *q, struct ntc_filter *f, int argc, char **argv,
		     struct ntc_err *err)
{
	struct u32_priv *s = ucg_calloc(1, sizeof(*s));
	int i;

	if (!s)
		return ntc_err_set(err, 2, -ENOMEM, "RTNETLINK answers: Cannot allocate memory");
	f->priv = s;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "match")) {
			const char *t = i + 1 < argc ? argv[i + 1] : NULL;
			uint32_t v, m, off;
			int bad = 0, used = 0;

			if (!t)
				return ntc_err_set(err, 255, -EINVAL,
						   "Command line is not complete. Try option \"help\"");
			if (!strcmp(t, "ip") && i + 2 < argc) {
				const char *w = argv[i + 2];

				if ((!strcmp(w, "src") || !strcmp(w, "dst")) && i + 3 < argc) {
					bad = parse_prefix(argv[i + 3], &v, &m) < 0 ||
					      pack_key(s, v, m, !strcmp(w, "src") ? 12 : 16) < 0;
					used = 3;
				} else if ((!strcmp(w, "sport") || !strcmp(w, "dport") ||
					    !strcmp(w, "protocol") || !strcmp(w, "tos") ||
					    !strcmp(w, "dsfield")) && i + 4 < argc) {
					bad = ntc_get_u32(argv[i + 3], 0, &v) < 0 ||
					      ntc_get_u32(argv[i + 4], 16, &m) < 0;
					if (!bad) {
						if (!strcmp(w, "sport"))
							bad = pack_key16(s, v, m, 20) < 0;
						else if (!strcmp(w, "dport"))
							bad = pack_key16(s, v, m, 22) < 0;
						else if (!strcmp(w, "protocol"))
							bad = pack_key8(s, v, m, 9) < 0;
						else
							bad = pack_key8(s, v, m, 1) < 0;
					}
					used = 4;
				} else {
					bad = 1;
				}
			} else if ((!strcmp(t, "u32") || !strcmp(t, "u16") || !strcmp(t, "u8")) &&
				   i + 5 < argc && !strcmp(argv[i + 4], "at")) {
				bad = ntc_get_u32(argv[i + 2], 0, &v) < 0 ||
				      ntc_get_u32(argv[i + 3], 0, &m) < 0 ||
				      ntc_get_u32(argv[i + 5], 0, &off) < 0 || off > 0xFFFF;
				if (!bad) {
					if (!strcmp(t, "u32"))
						bad = pack_key(s, v, m, (int)off) < 0;
					else if (!strcmp(t, "u16"))
						bad = pack_key16(s, v, m, (int)off) < 0;
					else
						bad = pack_key8(s, v, m, (int)off) < 0;
				}
				used = 5;
			} else {
				bad = 1;
			}
			if (bad)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"match\"");
			i += used;
		} else if (!strcmp(a, "flowid") || !strcmp(a, "classid")) {
			if (++i >= argc)
				return ntc_err_set(err, 255, -EINVAL,
						   "Command line is not complete. Try option \"help\"");
			if (ntc_get_handle(argv[i], &f->classid) < 0)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"classid\"");
		} else {
			return ntc_err_set(err, 1, -EINVAL, "What is \"%s\"?", a);
		}
	}
	if (!s->nkeys)
		return ntc_err_set(err, 2, -EINVAL,
				   "Error: cls_u32: Selector not specified.\nWe have an error talking to the kernel");
	return 0;
}

static uint32_t pkt_word(const struct ntc_pkt *p, int off)
{
	switch (off) {
	case 0:
		return 0x45000000u | ((uint32_t)p->tos << 16) | ((p->len > 14 ? p->len - 14 : 0) & 0xFFFF);
	case 8:
		return (64u << 24) | ((uint32_t)p->ip_proto << 16);
	case 12:
		return p->saddr;
	case 16:
		return p->daddr;
	case 20:
		return ((uint32_t)p->sport << 16) | p->dport;
	default:
		return 0;
	}
}

static int u32_classify(const struct ntc_filter *f, const struct ntc_qdisc *q,
			const struct ntc_pkt *p, uint32_t *ret)
{
	const struct u32_priv *s = f->priv;

	for (int i = 0; i < s->nkeys; i++)
		if ((pkt_word(p, s->keys[i].off) & s->keys[i].mask) != s->keys[i].val)
			return 0;
	*ret = f->classid;
	return 1;
}

static void u32_dump_head(const struct ntc_filter *f, struct ucg_buf *b)
{
	ucg_buf_printf(b, "fh %x: ht divisor 1 \n", f->ht);
}

static void u32_dump(const struct ntc_filter *f, struct ucg_buf *b)
{
	const struct u32_priv *s = f->priv;
	uint32_t node = f->handle & 0xFFF;

	ucg_buf_printf(b, "fh %x::%x order %u key ht %x bkt 0 ", f->ht, node, node, f->ht);
	if (f->classid) {
		ucg_buf_puts(b, "*flowid ");
		ntc_print_handle(b, f->classid);
		ucg_buf_putc(b, ' ');
	}
	ucg_buf_puts(b, "not_in_hw \n");
	for (int i = 0; i < s->nkeys; i++)
		ucg_buf_printf(b, "  match %08x/%08x at %d\n", s->keys[i].val, s->keys[i].mask,
			       s->keys[i].off);
}

static void u32_destroy(struct ntc_filter *f)
{
	ucg_free(f->priv);
	f->priv = NULL;
}

const struct ntc_cls_ops ntc_cls_u32_ops = {
	.kind = "u32",
	.parse = u32_parse,
	.classify = u32_classify,
	.dump = u32_dump,
	.dump_head = u32_dump_head,
	.destroy = u32_destroy,
};
