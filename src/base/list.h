/* base/list.h — intrusive doubly linked circular lists.
 *
 * A list head is a node pointing to itself when empty. Members embed a node and are
 * recovered with ucg_container_of. Insertion order is kept, which is how siblings keep
 * creation order and equal-time events keep insertion order.
 */
#ifndef UCG_BASE_LIST_H
#define UCG_BASE_LIST_H

#include <stddef.h>

struct ucg_list {
	struct ucg_list *next, *prev;
};

#define ucg_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

static inline void ucg_list_init(struct ucg_list *l)
{
	l->next = l->prev = l;
}

static inline int ucg_list_empty(const struct ucg_list *l)
{
	return l->next == l;
}

/* Appends n before head, i.e. at the tail. */
static inline void ucg_list_add_tail(struct ucg_list *head, struct ucg_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static inline void ucg_list_del(struct ucg_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define ucg_list_for_each(pos, head) for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

/* Safe against removal of pos. */
#define ucg_list_for_each_safe(pos, tmp, head)                                                 \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head);                       \
	     (pos) = (tmp), (tmp) = (pos)->next)

#endif
