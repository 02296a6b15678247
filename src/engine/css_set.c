/* engine/css_set.c — css_sets, interned by their memberships.
 *
 * A set is the sorted list of (slot, cgroup) pairs for the hierarchies in which its
 * tasks are not in the root. Sets are interned in a hash table keyed by that list, so
 * equal memberships share one set and a fork costs a reference count. A set whose
 * live-task count goes 0 -> 1 or 1 -> 0 updates nr_populated_csets of each cgroup it
 * names; a cgroup that becomes empty gets its release check (docs/kernel/core.md §10.1 a).
 */
#include "engine/css_set.h"
#include "base/alloc.h"
#include "engine/cgroup.h"
#include "engine/release.h"

#include <errno.h>
#include <string.h>

struct link_key {
	int slot;
	struct ucg_cgroup *cg;
};

struct set_key {
	const struct link_key *links;
	int n;
};

static uint64_t key_hash(const struct link_key *k, int n)
{
	uint64_t h = 0x51ed270b27ull;
	int i;

	for (i = 0; i < n; i++)
		h = ucg_hash_u64(h ^ ((uint64_t)(uintptr_t)k[i].cg + (uint64_t)k[i].slot * 0x9e37ull));
	return h;
}

static int set_match(const struct ucg_hnode *n, const void *key)
{
	const struct ucg_css_set *cs = ucg_container_of(n, struct ucg_css_set, node);
	const struct set_key *k = key;
	int i;

	if (cs->nr_links != k->n)
		return 0;
	for (i = 0; i < k->n; i++)
		if (cs->links[i].slot != k->links[i].slot || cs->links[i].cg != k->links[i].cg)
			return 0;
	return 1;
}

static struct ucg_css_set *set_new(struct ucg_engine *e, const struct link_key *k, int n,
				   uint64_t hash)
{
	struct ucg_css_set *cs = ucg_calloc(1, sizeof(*cs) + (size_t)n * sizeof(cs->links[0]));
	int i;

	if (!cs)
		return NULL;
	if (ucg_htable_insert(&e->csets, &cs->node, hash) < 0) {
		ucg_free(cs);
		return NULL;
	}
	ucg_list_init(&cs->tasks);
	cs->serial = e->cset_serial++;
	cs->nr_links = n;
	for (i = 0; i < n; i++) {
		cs->links[i].slot = k[i].slot;
		cs->links[i].cg = k[i].cg;
		cs->links[i].cset = cs;
		ucg_list_add_tail(&k[i].cg->cset_links, &cs->links[i].cg_node);
		ucg_cgroup_get(k[i].cg);
	}
	ucg_list_add_tail(&e->cset_list, &cs->all);
	e->nr_csets++;
	return cs;
}

int ucg_css_set_init_empty(struct ucg_engine *e)
{
	struct ucg_css_set *cs = set_new(e, NULL, 0, key_hash(NULL, 0));

	if (!cs)
		return -ENOMEM;
	cs->refcnt = 1; /* the engine's own, so it always exists */
	e->empty_cset = cs;
	return 0;
}

int ucg_css_set_find(struct ucg_engine *e, const struct ucg_css_set *from,
		     const struct ucg_hierarchy *h, struct ucg_cgroup *cg,
		     struct ucg_css_set **ret)
{
	struct link_key k[UCG_MAX_HIERARCHIES];
	struct set_key sk;
	struct ucg_hnode *node;
	struct ucg_css_set *cs;
	uint64_t hash;
	int n = 0, i, placed = 0;

	if (cg->parent == NULL)
		cg = NULL; /* the root is named by absence */
	for (i = 0; i < from->nr_links; i++) {
		if (!placed && cg && from->links[i].slot > h->slot) {
			k[n].slot = h->slot;
			k[n++].cg = cg;
			placed = 1;
		}
		if (from->links[i].slot == h->slot)
			continue;
		k[n].slot = from->links[i].slot;
		k[n++].cg = from->links[i].cg;
	}
	if (!placed && cg) {
		k[n].slot = h->slot;
		k[n++].cg = cg;
	}
	hash = key_hash(k, n);
	sk.links = k;
	sk.n = n;
	node = ucg_htable_find(&e->csets, hash, set_match, &sk);
	cs = node ? ucg_container_of(node, struct ucg_css_set, node) : set_new(e, k, n, hash);
	if (!cs)
		return -ENOMEM;
	cs->refcnt++;
	*ret = cs;
	return 0;
}

void ucg_css_set_get(struct ucg_css_set *cset)
{
	cset->refcnt++;
}

void ucg_css_set_put(struct ucg_engine *e, struct ucg_css_set *cs)
{
	int i;

	if (--cs->refcnt > 0)
		return;
	ucg_htable_remove(&e->csets, &cs->node);
	ucg_list_del(&cs->all);
	e->nr_csets--;
	for (i = 0; i < cs->nr_links; i++) {
		ucg_list_del(&cs->links[i].cg_node);
		ucg_cgroup_put(cs->links[i].cg);
	}
	ucg_free(cs);
}

struct ucg_cgroup *ucg_css_set_cgroup(const struct ucg_css_set *cs, const struct ucg_hierarchy *h)
{
	int i;

	for (i = 0; i < cs->nr_links; i++)
		if (cs->links[i].slot == h->slot)
			return cs->links[i].cg;
	return h->root;
}

void ucg_css_set_add_task(struct ucg_css_set *cs, struct ucg_task *t)
{
	int i;

	ucg_list_add_tail(&cs->tasks, &t->cset_node);
	if (cs->nr_tasks++ == 0)
		for (i = 0; i < cs->nr_links; i++)
			cs->links[i].cg->nr_populated_csets++;
}

void ucg_css_set_del_task(struct ucg_css_set *cs, struct ucg_task *t)
{
	int i;

	ucg_list_del(&t->cset_node);
	if (--cs->nr_tasks == 0)
		for (i = 0; i < cs->nr_links; i++)
			if (--cs->links[i].cg->nr_populated_csets == 0)
				ucg_release_check(cs->links[i].cg);
}

size_t ucg_css_set_size(const struct ucg_css_set *cs)
{
	return sizeof(*cs) + (size_t)cs->nr_links * sizeof(cs->links[0]);
}
