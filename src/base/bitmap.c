/* base/bitmap.c — fixed-capacity bitmaps and the kernel's cpu/node list grammar.
 *
 * The list parser follows the structure of lib/bitmap-str.c's bitmap_parselist():
 * find a region (skip separators, stop at end of text or '\n'), parse it, check it,
 * set it, and repeat. Checking region by region is what makes "5,x" ERANGE but
 * "x,5" EINVAL on a 2-CPU machine. Numbers are unsigned int in the kernel, and the
 * implicit pattern of a plain region is ":(end+1)/(end+1)" computed in unsigned
 * int: for end = 4294967295 that wraps to a zero group length and the region is
 * EINVAL. We keep those 32-bit fields so the quirk comes out the same.
 */
#include "base/bitmap.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "base/kctype.h"

void ucg_bitmap_init(struct ucg_bitmap *b, unsigned nbits)
{
	memset(b, 0, sizeof(*b));
	b->nbits = nbits > UCG_BITMAP_MAX_BITS ? UCG_BITMAP_MAX_BITS : nbits;
}

void ucg_bitmap_zero(struct ucg_bitmap *b)
{
	memset(b->w, 0, sizeof(b->w));
}

void ucg_bitmap_set(struct ucg_bitmap *b, unsigned bit)
{
	if (bit < b->nbits)
		b->w[bit / 64] |= UINT64_C(1) << (bit % 64);
}

void ucg_bitmap_clear(struct ucg_bitmap *b, unsigned bit)
{
	if (bit < b->nbits)
		b->w[bit / 64] &= ~(UINT64_C(1) << (bit % 64));
}

bool ucg_bitmap_test(const struct ucg_bitmap *b, unsigned bit)
{
	return bit < b->nbits && (b->w[bit / 64] >> (bit % 64)) & 1;
}

/* Sets count bits from start; the caller has checked start + count <= nbits. */
static void set_range(struct ucg_bitmap *b, unsigned start, unsigned count)
{
	while (count) {
		unsigned bit = start % 64, n = 64 - bit;
		uint64_t mask;

		if (n > count)
			n = count;
		mask = n == 64 ? UINT64_MAX : ((UINT64_C(1) << n) - 1) << bit;
		b->w[start / 64] |= mask;
		start += n;
		count -= n;
	}
}

void ucg_bitmap_fill(struct ucg_bitmap *b)
{
	ucg_bitmap_zero(b);
	set_range(b, 0, b->nbits);
}

bool ucg_bitmap_empty(const struct ucg_bitmap *b)
{
	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++)
		if (b->w[i])
			return false;
	return true;
}

bool ucg_bitmap_equal(const struct ucg_bitmap *a, const struct ucg_bitmap *b)
{
	return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

bool ucg_bitmap_subset(const struct ucg_bitmap *a, const struct ucg_bitmap *b)
{
	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

bool ucg_bitmap_intersects(const struct ucg_bitmap *a, const struct ucg_bitmap *b)
{
	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

unsigned ucg_bitmap_weight(const struct ucg_bitmap *b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++)
		n += (unsigned)__builtin_popcountll(b->w[i]);
	return n;
}

/* Clears the bits at or above dst->nbits, keeping the invariant after a binary op
 * whose operands were wider than dst. */
static void trim(struct ucg_bitmap *b)
{
	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++) {
		unsigned lo = i * 64;

		if (lo >= b->nbits)
			b->w[i] = 0;
		else if (b->nbits - lo < 64)
			b->w[i] &= (UINT64_C(1) << (b->nbits - lo)) - 1;
	}
}

void ucg_bitmap_and(struct ucg_bitmap *dst, const struct ucg_bitmap *a, const struct ucg_bitmap *b)
{
	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++)
		dst->w[i] = a->w[i] & b->w[i];
	trim(dst);
}

void ucg_bitmap_or(struct ucg_bitmap *dst, const struct ucg_bitmap *a, const struct ucg_bitmap *b)
{
	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++)
		dst->w[i] = a->w[i] | b->w[i];
	trim(dst);
}

void ucg_bitmap_andnot(struct ucg_bitmap *dst, const struct ucg_bitmap *a,
		       const struct ucg_bitmap *b)
{
	for (unsigned i = 0; i < UCG_BITMAP_WORDS; i++)
		dst->w[i] = a->w[i] & ~b->w[i];
	trim(dst);
}

int ucg_bitmap_next(const struct ucg_bitmap *b, unsigned from)
{
	for (unsigned bit = from; bit < b->nbits;) {
		uint64_t word = b->w[bit / 64] >> (bit % 64);

		if (word)
			return (int)(bit + (unsigned)__builtin_ctzll(word));
		bit = (bit / 64 + 1) * 64;
	}
	return -1;
}

/* ---- list parser ---- */

struct cursor {
	const char *s;
	size_t len, pos;
};

/* The byte at the cursor, or '\0' past the end: the kernel's text is a C string. */
static unsigned char peek(const struct cursor *c)
{
	return c->pos < c->len ? (unsigned char)c->s[c->pos] : '\0';
}

static bool end_of_str(unsigned char ch)
{
	return ch == '\0' || ch == '\n';
}

static bool separator(unsigned char ch)
{
	return ch == ',' || ucg_kisspace(ch);
}

static bool end_of_region(unsigned char ch)
{
	return separator(ch) || end_of_str(ch);
}

struct region {
	uint32_t start, end, off, group_len;
};

/* One number: "N" for the last bit, else decimal digits that fit in 32 bits. */
static int get_num(struct cursor *c, uint32_t lastbit, uint32_t *ret)
{
	uint64_t v = 0;
	size_t digits = 0;
	bool overflow = false;

	if (peek(c) == 'N') {
		c->pos++;
		*ret = lastbit;
		return 0;
	}
	while (ucg_kisdigit(peek(c))) {
		unsigned d = peek(c) - '0';

		if (v > (UINT64_MAX - d) / 10)
			overflow = true;
		v = v * 10 + d;
		c->pos++;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	if (overflow || v > UINT32_MAX)
		return -EOVERFLOW;
	*ret = (uint32_t)v;
	return 0;
}

/* Parses one region at the cursor. Sets *done when the text ends right after a plain
 * region (the kernel returns NULL there and stops after this region). */
static int parse_region(struct cursor *c, uint32_t lastbit, struct region *r, bool *done)
{
	int err;

	*done = false;
	if (c->len - c->pos >= 3 && strncasecmp(c->s + c->pos, "all", 3) == 0) {
		r->start = 0;
		r->end = lastbit;
		c->pos += 3;
	} else {
		err = get_num(c, lastbit, &r->start);
		if (err)
			return err;
		if (end_of_region(peek(c))) {
			r->end = r->start;
			goto no_pattern;
		}
		if (peek(c) != '-')
			return -EINVAL;
		c->pos++;
		err = get_num(c, lastbit, &r->end);
		if (err)
			return err;
	}
	if (end_of_region(peek(c)))
		goto no_pattern;
	if (peek(c) != ':')
		return -EINVAL;
	c->pos++;
	err = get_num(c, lastbit, &r->off);
	if (err)
		return err;
	if (peek(c) != '/')
		return -EINVAL;
	c->pos++;
	return get_num(c, lastbit, &r->group_len);

no_pattern:
	/* 32-bit on purpose: end 4294967295 gives group_len 0, hence EINVAL. */
	r->off = r->end + 1;
	r->group_len = r->end + 1;
	*done = end_of_str(peek(c));
	return 0;
}

static int check_region(const struct region *r, unsigned nbits)
{
	if (r->start > r->end || r->group_len == 0 || r->off > r->group_len)
		return -EINVAL;
	if (r->end >= nbits)
		return -ERANGE;
	return 0;
}

static void set_region(struct ucg_bitmap *b, const struct region *r)
{
	/* 64-bit stepping: a group length near 2^32 must not wrap back into range. */
	for (uint64_t start = r->start; start <= r->end; start += r->group_len) {
		uint64_t n = r->end - start + 1;

		if (n > r->off)
			n = r->off;
		set_range(b, (unsigned)start, (unsigned)n);
	}
}

int ucg_bitmap_parse_list(const char *data, size_t len, unsigned nbits, struct ucg_bitmap *ret)
{
	struct ucg_bitmap trial;
	struct cursor c = { .s = data, .pos = 0 };
	const char *nul = memchr(data, '\0', len);
	/* The kernel's lastbit is unsigned int nbits - 1; wrapping at nbits 0 is harmless
	 * because check_region then refuses every end with ERANGE. */
	uint32_t lastbit = (uint32_t)nbits - 1;
	bool done = false;
	int err;

	if (nbits > UCG_BITMAP_MAX_BITS)
		return -EINVAL;
	if (nul)
		len = (size_t)(nul - data);
	ucg_kstrip(&c.s, &len);
	c.len = len;
	ucg_bitmap_init(&trial, nbits);

	while (!done) {
		struct region r;

		/* Find the next region: skip separators, stop at end of text or '\n'. */
		while (separator(peek(&c))) {
			if (end_of_str(peek(&c)))
				goto out;
			c.pos++;
		}
		if (end_of_str(peek(&c)))
			goto out;
		err = parse_region(&c, lastbit, &r, &done);
		if (err)
			return err;
		err = check_region(&r, nbits);
		if (err)
			return err;
		set_region(&trial, &r);
	}
out:
	*ret = trial;
	return 0;
}

int ucg_bitmap_format_list(const struct ucg_bitmap *b, struct ucg_buf *out)
{
	bool first = true;

	for (int i = ucg_bitmap_next(b, 0); i >= 0;) {
		int j = i;

		while ((unsigned)j + 1 < b->nbits && ucg_bitmap_test(b, (unsigned)j + 1))
			j++;
		if (j > i)
			ucg_buf_printf(out, "%s%d-%d", first ? "" : ",", i, j);
		else
			ucg_buf_printf(out, "%s%d", first ? "" : ",", i);
		first = false;
		i = ucg_bitmap_next(b, (unsigned)j + 1);
	}
	return ucg_buf_error(out);
}
