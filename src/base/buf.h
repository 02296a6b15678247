/* base/buf.h — a growable byte buffer, always NUL-terminated.
 *
 * Used to build file contents and messages. After an allocation failure the buffer
 * is marked failed, later appends are no-ops, and ucg_buf_error() returns -ENOMEM, so
 * a formatter can append freely and check once at the end.
 */
#ifndef UCG_BASE_BUF_H
#define UCG_BASE_BUF_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

struct ucg_buf {
	char *data; /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t cap;
	int failed;
};

void ucg_buf_init(struct ucg_buf *b);
void ucg_buf_fini(struct ucg_buf *b);
void ucg_buf_reset(struct ucg_buf *b);
void ucg_buf_append(struct ucg_buf *b, const void *data, size_t len);
void ucg_buf_puts(struct ucg_buf *b, const char *s);
void ucg_buf_putc(struct ucg_buf *b, char c);
void ucg_buf_printf(struct ucg_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ucg_buf_vprintf(struct ucg_buf *b, const char *fmt, va_list ap);
/* Decimal, as printf's %llu / %lld would print it, without printf's cost. */
void ucg_buf_put_u64(struct ucg_buf *b, uint64_t v);
void ucg_buf_put_s64(struct ucg_buf *b, int64_t v);
/* 0, or -ENOMEM if any append failed. */
int ucg_buf_error(const struct ucg_buf *b);
/* Hands the data to the caller (who frees it with ucg_free) and empties b. */
char *ucg_buf_steal(struct ucg_buf *b, size_t *ret_len);

#endif
