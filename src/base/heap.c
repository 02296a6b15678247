/* base/heap.c — binary min-heap ordered by (key, insertion sequence); see heap.h. */
#include "base/heap.h"

#include <errno.h>

#include "base/alloc.h"

void ucg_heap_init(struct ucg_heap *h)
{
	h->v = NULL;
	h->len = h->cap = 0;
	h->next_seq = 0;
}

void ucg_heap_fini(struct ucg_heap *h)
{
	ucg_free(h->v);
	ucg_heap_init(h);
}

static inline int before(const struct ucg_heap_entry *a, const struct ucg_heap_entry *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

int ucg_heap_push(struct ucg_heap *h, int64_t key, void *ptr, uint64_t arg)
{
	struct ucg_heap_entry e;
	size_t i;

	if (h->len == h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 64;
		struct ucg_heap_entry *nv = ucg_realloc(h->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		h->v = nv;
		h->cap = ncap;
	}
	e.key = key;
	e.seq = h->next_seq++;
	e.ptr = ptr;
	e.arg = arg;
	i = h->len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(&e, &h->v[parent]))
			break;
		h->v[i] = h->v[parent];
		i = parent;
	}
	h->v[i] = e;
	return 0;
}

int ucg_heap_pop(struct ucg_heap *h, struct ucg_heap_entry *ret)
{
	struct ucg_heap_entry last;
	size_t i = 0;

	if (h->len == 0)
		return 0;
	*ret = h->v[0];
	last = h->v[--h->len];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->len)
			break;
		if (c + 1 < h->len && before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->len)
		h->v[i] = last;
	return 1;
}

const struct ucg_heap_entry *ucg_heap_peek(const struct ucg_heap *h)
{
	return h->len ? &h->v[0] : NULL;
}
