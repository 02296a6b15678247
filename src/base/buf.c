/* base/buf.c — growable byte buffer. */
#include "base/buf.h"
#include "base/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void ucg_buf_init(struct ucg_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}

void ucg_buf_fini(struct ucg_buf *b)
{
	if (!b)
		return;
	ucg_free(b->data);
	ucg_buf_init(b);
}

void ucg_buf_reset(struct ucg_buf *b)
{
	b->len = 0;
	b->failed = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int reserve(struct ucg_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->failed)
		return -1;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	p = ucg_realloc(b->data, cap);
	if (!p) {
		b->failed = 1;
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void ucg_buf_append(struct ucg_buf *b, const void *data, size_t len)
{
	if (reserve(b, len) < 0)
		return;
	/* an empty source may be NULL (an empty buffer's data): memcpy may not see it */
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void ucg_buf_puts(struct ucg_buf *b, const char *s)
{
	ucg_buf_append(b, s, strlen(s));
}

void ucg_buf_putc(struct ucg_buf *b, char c)
{
	ucg_buf_append(b, &c, 1);
}

/* The conversions simple_format handles: %%, %s, %.*s, and %d %u %x with an optional
 * l, ll or z (z: %zu only). Nothing else (flags, widths, floats) — vsnprintf does those. */
static int simple_fmt(const char *f)
{
	for (; *f; f++) {
		if (*f != '%')
			continue;
		f++;
		if (*f == '%' || *f == 's')
			continue;
		if (f[0] == '.' && f[1] == '*' && f[2] == 's') {
			f += 2;
			continue;
		}
		if (*f == 'z') {
			if (f[1] != 'u')
				return 0;
			f++;
			continue;
		}
		if (*f == 'l')
			f += f[1] == 'l' ? 2 : 1;
		if (*f != 'd' && *f != 'u' && *f != 'x')
			return 0;
	}
	return 1;
}

static void put_hex(struct ucg_buf *b, unsigned long long v)
{
	char tmp[16], *p = tmp + sizeof(tmp);

	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	ucg_buf_append(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* printf for the formats simple_fmt accepts, the same output as vsnprintf's: control
 * files are mostly "%u\n" or "%s %llu\n", and vsnprintf's set-up cost more than the
 * formatting. */
static void simple_format(struct ucg_buf *b, const char *f, va_list ap)
{
	while (*f) {
		const char *lit = f;
		int len = 0;

		while (*f && *f != '%')
			f++;
		if (f > lit)
			ucg_buf_append(b, lit, (size_t)(f - lit));
		if (!*f)
			break;
		f++;
		if (*f == '%') {
			ucg_buf_putc(b, '%');
			f++;
			continue;
		}
		if (*f == 's' || *f == '.') {
			int prec = -1;
			const char *str;

			if (*f == '.') {
				prec = va_arg(ap, int);
				f += 2;
			}
			str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			ucg_buf_append(b, str, prec < 0 ? strlen(str) : strnlen(str, (size_t)prec));
			f++;
			continue;
		}
		if (*f == 'z') {
			ucg_buf_put_u64(b, va_arg(ap, size_t));
			f += 2;
			continue;
		}
		while (*f == 'l') {
			len++;
			f++;
		}
		if (*f == 'd')
			ucg_buf_put_s64(b, len == 2 ? va_arg(ap, long long)
					   : len == 1 ? va_arg(ap, long) : va_arg(ap, int));
		else if (*f == 'u')
			ucg_buf_put_u64(b, len == 2 ? va_arg(ap, unsigned long long)
					   : len == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned));
		else
			put_hex(b, len == 2 ? va_arg(ap, unsigned long long)
				   : len == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned));
		f++;
	}
}

/* One vsnprintf into the spare room when it fits (the usual case), a second only when
 * it did not: formatting was the largest cost of reading a small control file. */
void ucg_buf_vprintf(struct ucg_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	size_t room;
	int n;

	if (reserve(b, 0) < 0)
		return;
	if (simple_fmt(fmt)) {
		simple_format(b, fmt, ap);
		return;
	}
	room = b->cap - b->len;
	va_copy(aq, ap);
	n = vsnprintf(b->data + b->len, room, fmt, aq);
	va_end(aq);
	if (n < 0) {
		b->data[b->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		b->data[b->len] = '\0';
		if (reserve(b, (size_t)n) < 0)
			return;
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
}

void ucg_buf_printf(struct ucg_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ucg_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void ucg_buf_put_u64(struct ucg_buf *b, uint64_t v)
{
	char tmp[20], *p = tmp + sizeof(tmp);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	ucg_buf_append(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void ucg_buf_put_s64(struct ucg_buf *b, int64_t v)
{
	if (v < 0) {
		ucg_buf_putc(b, '-');
		ucg_buf_put_u64(b, -(uint64_t)v);
	} else {
		ucg_buf_put_u64(b, (uint64_t)v);
	}
}

int ucg_buf_error(const struct ucg_buf *b)
{
	return b->failed ? -ENOMEM : 0;
}

char *ucg_buf_steal(struct ucg_buf *b, size_t *ret_len)
{
	char *p;

	if (!b->data && reserve(b, 0) < 0)
		return NULL;
	p = b->data;
	if (ret_len)
		*ret_len = b->len;
	ucg_buf_init(b);
	return p;
}
