/* base/heap.h — a binary min-heap of (key, sequence) entries.
 *
 * Entries with equal keys come out in the order they went in: every push takes the
 * next value of a 64-bit sequence counter and the comparison falls back on it. This
 * is what makes a discrete-event simulation deterministic when events share a time.
 * Each entry carries an opaque pointer and a 64-bit argument for the caller.
 */
#ifndef UCG_BASE_HEAP_H
#define UCG_BASE_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct ucg_heap_entry {
	int64_t key;
	uint64_t seq;
	void *ptr;
	uint64_t arg;
};

struct ucg_heap {
	struct ucg_heap_entry *v;
	size_t len, cap;
	uint64_t next_seq;
};

void ucg_heap_init(struct ucg_heap *h);
/* Frees the array; the entries' pointers belong to the caller. */
void ucg_heap_fini(struct ucg_heap *h);
/* Adds an entry. 0 or -ENOMEM (then the heap is unchanged). */
int ucg_heap_push(struct ucg_heap *h, int64_t key, void *ptr, uint64_t arg);
/* Removes the smallest entry into *ret: 1, or 0 when empty. */
int ucg_heap_pop(struct ucg_heap *h, struct ucg_heap_entry *ret);
/* The smallest entry without removing it, or NULL when empty. */
const struct ucg_heap_entry *ucg_heap_peek(const struct ucg_heap *h);

static inline size_t ucg_heap_len(const struct ucg_heap *h)
{
	return h->len;
}

#endif
