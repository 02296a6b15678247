/* base/memparse.h — the MEM input class (docs/kernel/controllers.md §0.1).
 *
 * Used by memory.*limit_in_bytes, memory.soft_limit_in_bytes, hugetlb limits and the
 * memory usage thresholds. The text is cut at its first NUL, stripped of (kernel)
 * whitespace, and then is either the literal "-1" (unlimited) or a number in the
 * kernel's memparse() syntax:
 *
 *   digits   base auto-detected as strtoull(s, 0) does ("0x1F" hex only when a hex digit
 *            follows the x, a leading 0 octal, else decimal) but with NO sign: "+1" and
 *            "-0" are EINVAL. No digits at all counts as 0, so "", "k" and a lone "\n"
 *            all mean 0 bytes.
 *   suffix   at most one of k K m M g G t T p P e E, each a power of 1024. In hex, e/E
 *            is a digit, not a suffix ("0x1e" is 30).
 *   end      nothing may follow.
 *
 * There is no ERANGE: digits and suffix shifts wrap modulo 2^64, so "16E" and
 * "18446744073709551616" are 0. The only error is -EINVAL.
 */
#ifndef UCG_BASE_MEMPARSE_H
#define UCG_BASE_MEMPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Page size of the reference machine: the memory counters count 4 KiB pages, and a
 * control-file write is at most one page. */
#define UCG_PAGE_SIZE 4096u

/* What "-1" parses to. The literal 18446744073709551615 gives the same bytes; both
 * clamp to a counter's maximum in ucg_mem_to_units(), so 6.18 cannot tell them apart.
 * A caller that must (3.16 rounded the literal up to 0) asks for ret_unlimited. */
#define UCG_MEM_UNLIMITED UINT64_MAX

/* Parses a MEM value from (data, len). On success returns 0, writes the byte count
 * (UCG_MEM_UNLIMITED for "-1") to *ret_bytes and, if ret_unlimited is not NULL,
 * whether the text was "-1". Returns -EINVAL on bad syntax, writing nothing. */
int ucg_parse_mem(const char *data, size_t len, uint64_t *ret_bytes, bool *ret_unlimited);

/* Converts bytes to whole units of unit_size (> 0), rounding down, and clamps the
 * result to max_units — how 6.18 turns a MEM value into pages (unit 4096, max
 * PAGE_COUNTER_MAX), so UCG_MEM_UNLIMITED becomes max_units. */
uint64_t ucg_mem_to_units(uint64_t bytes, uint64_t unit_size, uint64_t max_units);

#endif
