/* sim/ilist.h — doubly linked lists threaded by index through an array: the page
 * frames' LRU, the memcgs' act lists and the dirty list (mem_pagecache.c) are each
 * one. An element holds a struct sim_ilink, which an accessor finds for an index;
 * SIM_ILIST_END ends a list.
 * Indexes rather than pointers because the arrays move when they grow; one set of
 * list operations for all of them, inline so that each accessor folds in. */
#ifndef UCG_SIM_ILIST_H
#define UCG_SIM_ILIST_H

#include <stdint.h>

#define SIM_ILIST_END UINT32_MAX

struct sim;

struct sim_ilink {
	uint32_t prev, next;
};

struct sim_ilist {
	uint32_t head, tail;
};

/* The link of element i of the array the list threads through. */
typedef struct sim_ilink *(*sim_ilink_at)(const struct sim *s, uint32_t i);

static inline void sim_ilist_init(struct sim_ilist *l)
{
	l->head = l->tail = SIM_ILIST_END;
}

/* Takes i off l (its own link is left as it was). */
static inline void sim_ilist_unlink(const struct sim *s, struct sim_ilist *l, sim_ilink_at at,
				    uint32_t i)
{
	struct sim_ilink *k = at(s, i);

	if (k->prev != SIM_ILIST_END)
		at(s, k->prev)->next = k->next;
	else
		l->head = k->next;
	if (k->next != SIM_ILIST_END)
		at(s, k->next)->prev = k->prev;
	else
		l->tail = k->prev;
}

/* Puts i on l before element `before`, or at the tail when before is SIM_ILIST_END. */
static inline void sim_ilist_insert(const struct sim *s, struct sim_ilist *l, sim_ilink_at at,
				    uint32_t i, uint32_t before)
{
	struct sim_ilink *k = at(s, i);

	k->next = before;
	k->prev = before != SIM_ILIST_END ? at(s, before)->prev : l->tail;
	if (k->prev != SIM_ILIST_END)
		at(s, k->prev)->next = i;
	else
		l->head = i;
	if (before != SIM_ILIST_END)
		at(s, before)->prev = i;
	else
		l->tail = i;
}

static inline void sim_ilist_append(const struct sim *s, struct sim_ilist *l, sim_ilink_at at,
				    uint32_t i)
{
	sim_ilist_insert(s, l, at, i, SIM_ILIST_END);
}

#endif
