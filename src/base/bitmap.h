/* base/bitmap.h — fixed-capacity bitmaps for CPU and memory-node sets.
 *
 * A bitmap holds nbits bits (nbits <= UCG_BITMAP_MAX_BITS), chosen at run time: the
 * number of possible CPUs (nr_cpu_ids) for cpus, MAX_NUMNODES for mems. Bits at or
 * above nbits are always zero, so two bitmaps compare by content even when their
 * nbits differ. The storage is inline (512 bytes), so a bitmap can be copied by
 * assignment and a trial copy costs no allocation.
 */
#ifndef UCG_BASE_BITMAP_H
#define UCG_BASE_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define UCG_BITMAP_MAX_BITS 4096u
#define UCG_BITMAP_WORDS (UCG_BITMAP_MAX_BITS / 64u)

struct ucg_bitmap {
	unsigned nbits;
	uint64_t w[UCG_BITMAP_WORDS];
};

/* Empties b and gives it nbits bits; nbits above UCG_BITMAP_MAX_BITS is clamped. */
void ucg_bitmap_init(struct ucg_bitmap *b, unsigned nbits);
void ucg_bitmap_zero(struct ucg_bitmap *b);
/* Sets bits 0..nbits-1. */
void ucg_bitmap_fill(struct ucg_bitmap *b);
/* Bit operations; a bit >= nbits is ignored by set/clear and reads as 0. */
void ucg_bitmap_set(struct ucg_bitmap *b, unsigned bit);
void ucg_bitmap_clear(struct ucg_bitmap *b, unsigned bit);
bool ucg_bitmap_test(const struct ucg_bitmap *b, unsigned bit);

bool ucg_bitmap_empty(const struct ucg_bitmap *b);
bool ucg_bitmap_equal(const struct ucg_bitmap *a, const struct ucg_bitmap *b);
/* a is a subset of b (every bit of a is in b). The empty set is a subset of all. */
bool ucg_bitmap_subset(const struct ucg_bitmap *a, const struct ucg_bitmap *b);
/* a and b share at least one bit. */
bool ucg_bitmap_intersects(const struct ucg_bitmap *a, const struct ucg_bitmap *b);
unsigned ucg_bitmap_weight(const struct ucg_bitmap *b);
/* dst = a & b, a | b, a & ~b; dst keeps its own nbits and may alias a or b. */
void ucg_bitmap_and(struct ucg_bitmap *dst, const struct ucg_bitmap *a, const struct ucg_bitmap *b);
void ucg_bitmap_or(struct ucg_bitmap *dst, const struct ucg_bitmap *a, const struct ucg_bitmap *b);
void ucg_bitmap_andnot(struct ucg_bitmap *dst, const struct ucg_bitmap *a,
		       const struct ucg_bitmap *b);
/* First set bit at or after from, or -1. Iterate with
 * for (i = ucg_bitmap_next(b, 0); i >= 0; i = ucg_bitmap_next(b, i + 1)). */
int ucg_bitmap_next(const struct ucg_bitmap *b, unsigned from);

/* Parses the kernel's list grammar (bitmap_parselist after strstrip), as written to
 * cpuset.cpus / cpuset.mems, into a bitmap of nbits bits.
 *
 * The text ends at len or its first NUL; kernel whitespace at both ends is stripped
 * and an empty text is the empty set. Regions are separated by commas and/or
 * whitespace, and a '\n' after a region ends the list ("0\n1" is {0}). A region is
 *   N | N-M | N-M:G/S | all | all:G/S
 * where a number is decimal digits or "N" (= nbits-1), and ":G/S" takes the first G
 * bits of every S starting at N. Errors, reported for the first bad region in order:
 *   -EINVAL     syntax ("1-0", "0-", "0x1", "+1", "0-1:1", "0:1/2"), S == 0, G > S;
 *               also an end of 4294967295 without ":G/S" (the implied S = end+1
 *               wraps to 0 in the kernel's unsigned int)
 *   -EOVERFLOW  a number above 4294967295
 *   -ERANGE     an end >= nbits
 * Returns 0 and writes *ret only on success. */
int ucg_bitmap_parse_list(const char *data, size_t len, unsigned nbits, struct ucg_bitmap *ret);

/* Appends the canonical list ("0,2-4,7"; a run of two or more is "a-b"; the empty set
 * is "") to out, without a newline. Returns ucg_buf_error(out). */
int ucg_bitmap_format_list(const struct ucg_bitmap *b, struct ucg_buf *out);

#endif
