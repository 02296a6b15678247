/* host/v2sum.c — a v2 statistics file summed over several cgroups (see v2sum.h).
 *
 * Both texts are read into one list of (key, subkey, value) entries, equal keys
 * summed, then the list is formatted again in the file's own shape. The files are a
 * few dozen lines: a linear search per entry is cheaper than anything cleverer.
 */
#include "host/v2sum.h"

#include "base/alloc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum shape { SINGLE, FLAT, NESTED };

struct entry {
	char key[64], sub[32]; /* FLAT: key; NESTED: device, key; SINGLE: neither */
	uint64_t value;
};

struct sum {
	struct entry *v;
	size_t n, cap;
};

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static int shape_of(const char *file)
{
	if (!strcmp(file, "io.stat"))
		return NESTED;
	if (ends_with(file, ".current"))
		return SINGLE;
	if (!strcmp(file, "cpu.stat") || !strcmp(file, "memory.stat") || ends_with(file, ".events"))
		return FLAT;
	return -1;
}

int ucg_v2sum_additive(const char *file)
{
	return shape_of(file) >= 0;
}

static int parse_u64(const char *s, size_t len, uint64_t *ret)
{
	char num[32], *end;

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	errno = 0;
	*ret = strtoull(num, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int add_entry(struct sum *s, const char *key, size_t klen, const char *sub, size_t slen,
		     uint64_t value)
{
	size_t i;

	if (klen >= sizeof(s->v[0].key) || slen >= sizeof(s->v[0].sub))
		return -EINVAL;
	for (i = 0; i < s->n; i++)
		if (strlen(s->v[i].key) == klen && !strncmp(s->v[i].key, key, klen) &&
		    strlen(s->v[i].sub) == slen && !strncmp(s->v[i].sub, sub, slen)) {
			s->v[i].value += value;
			return 0;
		}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		struct entry *v = ucg_realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	memcpy(s->v[s->n].key, key, klen);
	s->v[s->n].key[klen] = '\0';
	memcpy(s->v[s->n].sub, sub, slen);
	s->v[s->n].sub[slen] = '\0';
	s->v[s->n].value = value;
	s->n++;
	return 0;
}

/* One line (without its newline) of a file of the given shape. */
static int add_line(struct sum *s, int shape, const char *p, size_t len)
{
	const char *sp = memchr(p, ' ', len), *end = p + len;
	size_t dlen;
	uint64_t v;
	int e;

	if (!len)
		return 0;
	if (shape == SINGLE) {
		e = parse_u64(p, len, &v);
		return e < 0 ? e : add_entry(s, "", 0, "", 0, v);
	}
	if (!sp)
		return shape == NESTED ? 0 : -EINVAL; /* io.stat: a device with no key yet */
	if (shape == FLAT) {
		e = parse_u64(sp + 1, (size_t)(end - sp - 1), &v);
		return e < 0 ? e : add_entry(s, p, (size_t)(sp - p), "", 0, v);
	}
	dlen = (size_t)(sp - p);
	while (sp < end) { /* NESTED: "DEV k=v k=v" */
		const char *tok = sp + 1, *eq, *next = memchr(tok, ' ', (size_t)(end - tok));

		if (!next)
			next = end;
		if (next > tok) {
			eq = memchr(tok, '=', (size_t)(next - tok));
			if (!eq)
				return -EINVAL;
			e = parse_u64(eq + 1, (size_t)(next - eq - 1), &v);
			if (e == 0)
				e = add_entry(s, p, dlen, tok, (size_t)(eq - tok), v);
			if (e < 0)
				return e;
		}
		sp = next;
	}
	return 0;
}

static int add_text(struct sum *s, int shape, const char *text)
{
	const char *p = text;
	int e;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		e = add_line(s, shape, p, len);
		if (e < 0)
			return e;
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

static void format(const struct sum *s, int shape, struct ucg_buf *out)
{
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		const struct entry *x = &s->v[i];

		if (shape == SINGLE) {
			ucg_buf_printf(out, "%llu\n", (unsigned long long)x->value);
		} else if (shape == FLAT) {
			ucg_buf_printf(out, "%s %llu\n", x->key, (unsigned long long)x->value);
		} else {
			for (j = 0; j < i && strcmp(s->v[j].key, x->key); j++)
				;
			if (j < i)
				continue; /* this device's line is out already */
			ucg_buf_puts(out, x->key);
			for (j = i; j < s->n; j++)
				if (!strcmp(s->v[j].key, x->key))
					ucg_buf_printf(out, " %s=%llu", s->v[j].sub,
						       (unsigned long long)s->v[j].value);
			ucg_buf_putc(out, '\n');
		}
	}
}

int ucg_v2sum_add(const char *file, const char *text, struct ucg_buf *acc)
{
	struct sum s = { 0 };
	struct ucg_buf out;
	int shape = shape_of(file), e;

	if (shape < 0)
		return -EINVAL;
	e = add_text(&s, shape, acc->data ? acc->data : "");
	if (e == 0)
		e = add_text(&s, shape, text);
	if (e < 0)
		goto out;
	ucg_buf_init(&out);
	format(&s, shape, &out);
	if (!out.data)
		ucg_buf_puts(&out, "");
	e = ucg_buf_error(&out);
	if (e == 0) { /* the sum becomes acc; acc's old text goes */
		struct ucg_buf old = *acc;

		*acc = out;
		out = old;
	}
	ucg_buf_fini(&out);
out:
	ucg_free(s.v);
	return e;
}
