/* base/kctype.h — the kernel's idea of "space", for parsers that must match it.
 *
 * The kernel's ctype table (lib/ctype.c) marks \t \n \v \f \r, ' ' and also 0xA0
 * (Latin-1 no-break space) as space. strstrip() and the list/rule parsers use it, so
 * "\xa04096" written to memory.limit_in_bytes is 4096 and "0\xa01" is the cpu list
 * {0,1}. C's isspace() in the C locale does not know 0xA0, hence this header.
 */
#ifndef UCG_BASE_KCTYPE_H
#define UCG_BASE_KCTYPE_H

#include <stdbool.h>
#include <stddef.h>

static inline bool ucg_kisspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xA0;
}

static inline bool ucg_kisdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* The kernel's strstrip() on [*s, *s + *len): trims ucg_kisspace() bytes at both
 * ends. The caller has already cut the text at its first NUL. */
static inline void ucg_kstrip(const char **s, size_t *len)
{
	while (*len && ucg_kisspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && ucg_kisspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

#endif
