/* base/htable.c — intrusive chained hash table (see htable.h). */
#include "base/htable.h"
#include "base/alloc.h"

#include <errno.h>

void ucg_htable_init(struct ucg_htable *t)
{
	t->buckets = NULL;
	t->nbuckets = 0;
	t->count = 0;
}

void ucg_htable_fini(struct ucg_htable *t)
{
	ucg_free(t->buckets);
	ucg_htable_init(t);
}

static int grow(struct ucg_htable *t, size_t nb)
{
	struct ucg_hnode **nbk = ucg_calloc(nb, sizeof(*nbk));
	size_t i;

	if (!nbk)
		return -ENOMEM;
	for (i = 0; i < t->nbuckets; i++) {
		struct ucg_hnode *n = t->buckets[i], *next;

		for (; n; n = next) {
			next = n->next;
			n->next = nbk[n->hash & (nb - 1)];
			nbk[n->hash & (nb - 1)] = n;
		}
	}
	ucg_free(t->buckets);
	t->buckets = nbk;
	t->nbuckets = nb;
	return 0;
}

int ucg_htable_reserve(struct ucg_htable *t)
{
	if (t->count + 1 <= t->nbuckets)
		return 0;
	return grow(t, t->nbuckets ? t->nbuckets * 2 : 8);
}

int ucg_htable_insert(struct ucg_htable *t, struct ucg_hnode *n, uint64_t hash)
{
	int r = ucg_htable_reserve(t);
	size_t b;

	if (r < 0)
		return r;
	n->hash = hash;
	b = hash & (t->nbuckets - 1);
	n->next = t->buckets[b];
	t->buckets[b] = n;
	t->count++;
	return 0;
}

void ucg_htable_remove(struct ucg_htable *t, struct ucg_hnode *n)
{
	struct ucg_hnode **pp;

	if (!t->nbuckets)
		return;
	for (pp = &t->buckets[n->hash & (t->nbuckets - 1)]; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			n->next = NULL;
			t->count--;
			return;
		}
	}
}

struct ucg_hnode *ucg_htable_find(const struct ucg_htable *t, uint64_t hash,
				  ucg_hmatch_fn match, const void *key)
{
	struct ucg_hnode *n;

	if (!t->nbuckets)
		return NULL;
	for (n = t->buckets[hash & (t->nbuckets - 1)]; n; n = n->next)
		if (n->hash == hash && match(n, key))
			return n;
	return NULL;
}

int ucg_htable_each(const struct ucg_htable *t, int (*fn)(struct ucg_hnode *n, void *ctx),
		    void *ctx)
{
	size_t i;

	for (i = 0; i < t->nbuckets; i++) {
		struct ucg_hnode *n, *next;

		for (n = t->buckets[i]; n; n = next) {
			int r;

			next = n->next;
			r = fn(n, ctx);
			if (r)
				return r;
		}
	}
	return 0;
}
