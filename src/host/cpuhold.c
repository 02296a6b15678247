/* host/cpuhold.c — a member's own affinity clamped back into its cpuset (see cpuhold.h).
 *
 * Cost. A pass costs one sched_getaffinity per held thread plus two engine lookups
 * (its cpuset, that cpuset's effective cpus); bench_cpuhold measures it per task. The
 * period stretches to 20 times the last pass so that holding never takes more than 5%
 * of a CPU, whatever the number of held tasks: an escape lasts at most one period.
 */
#include "host/cpuhold.h"

#include "base/alloc.h"
#include "base/htable.h"
#include "controllers/charge.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOLD_DEFAULT_MS 50
#define HOLD_DUTY 20 /* the period is at least this many times the last pass */

struct held {
	struct ucg_hnode node;
	int tid;
	int has_req;   /* the task asked for req itself (seen while held) */
	size_t idx;    /* in c->v */
	cpu_set_t set; /* what it was given: its mask unless it asked since */
	cpu_set_t req;
};

struct ucg_cpuhold {
	struct ucg_engine *e;
	int obs_id;
	struct ucg_htable by_tid;
	struct held **v;
	size_t n, cap;
	unsigned base_ms, period_ms;
	uint64_t next_ms;
	struct ucg_cpuhold_stats st;
};

static int match_tid(const struct ucg_hnode *n, const void *key)
{
	return ((const struct held *)n)->tid == *(const int *)key;
}

static struct held *find(const struct ucg_cpuhold *c, int tid)
{
	return (struct held *)ucg_htable_find(&c->by_tid, ucg_hash_u64((uint64_t)tid), match_tid,
					      &tid);
}

static struct held *add(struct ucg_cpuhold *c, int tid)
{
	struct held *h = find(c, tid);

	if (h)
		return h;
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 64;
		struct held **nv = ucg_realloc(c->v, nc * sizeof(*nv));

		if (!nv)
			return NULL;
		c->v = nv;
		c->cap = nc;
	}
	h = ucg_calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->tid = tid;
	if (ucg_htable_insert(&c->by_tid, &h->node, ucg_hash_u64((uint64_t)tid)) < 0) {
		ucg_free(h);
		return NULL;
	}
	h->idx = c->n;
	c->v[c->n++] = h;
	return h;
}

static void drop(struct ucg_cpuhold *c, struct held *h)
{
	ucg_htable_remove(&c->by_tid, &h->node);
	c->v[h->idx] = c->v[--c->n];
	c->v[h->idx]->idx = h->idx;
	ucg_free(h);
}

/* The engine's bit array (bit i of byte i / 8) as a cpu_set_t. */
static void to_set(const unsigned char *mask, size_t nbytes, cpu_set_t *out)
{
	size_t i;

	CPU_ZERO(out);
	for (i = 0; i < nbytes * 8 && i < CPU_SETSIZE; i++) {
		if (!(i % 8) && !mask[i / 8]) {
			i += 7; /* a byte of no CPU: a pass converts one set per task */
			continue;
		}
		if (mask[i / 8] & (1u << (i % 8)))
			CPU_SET(i, out);
	}
}

/* cg's effective cpus; 0 or -errno. */
static int cpuset_of(const struct ucg_cgroup *cg, cpu_set_t *out)
{
	unsigned char cpus[CPU_SETSIZE / 8], mems[CPU_SETSIZE / 8];
	int r = ucg_cpuset_get(cg, 1, cpus, sizeof(cpus), mems, sizeof(mems));

	if (r == 0)
		to_set(cpus, sizeof(cpus), out);
	return r;
}

/* The root cpuset's cpus (every online one): a cpuset with all of them holds nothing
 * a task could escape, so its tasks are not polled. -ENOENT if cpuset is not bound. */
static int root_set(struct ucg_engine *e, cpu_set_t *out)
{
	struct ucg_hierarchy *h = NULL;

	while ((h = ucg_hierarchy_next(e, h)))
		if (ucg_hierarchy_subsys_mask(h) & (1u << UCG_SS_cpuset))
			return cpuset_of(ucg_hierarchy_root(h), out);
	return -ENOENT;
}

/* The 6.18 rule for a cpuset change: what the task asked for within cs, else cs. */
static void give(struct held *h, const cpu_set_t *cs, cpu_set_t *out)
{
	if (h && h->has_req) {
		CPU_AND(out, &h->req, cs);
		if (CPU_COUNT(out))
			return;
	}
	*out = *cs;
}

void ucg_cpuhold_cpus(struct ucg_cpuhold *c, int tid, const unsigned char *mask, size_t nbytes)
{
	struct ucg_task_info info;
	struct held *h = find(c, tid);
	cpu_set_t cs, root, to;

	if (ucg_task_get_info(c->e, tid, &info) < 0 || (info.flags & UCG_TASK_KTHREAD))
		return;
	to_set(mask, nbytes, &cs);
	if (!CPU_COUNT(&cs))
		return;
	give(h, &cs, &to);
	if (sched_setaffinity(tid, sizeof(to), &to) < 0) {
		if (h)
			drop(c, h); /* gone meanwhile (ESRCH) */
		return;
	}
	if (root_set(c->e, &root) == 0 && CPU_EQUAL(&cs, &root) && !(h && h->has_req)) {
		if (h)
			drop(c, h); /* nothing to hold, no request to keep */
		return;
	}
	h = h ? h : add(c, tid);
	if (h)
		h->set = to;
	if (c->n == 1)
		c->next_ms = 0; /* the first held task: a pass at the next poll */
}

/* One held task: 1 to keep it, 0 to forget it. */
static int check(struct ucg_cpuhold *c, struct held *h, const cpu_set_t *root)
{
	struct ucg_cgroup *cg;
	cpu_set_t cs, cur, to;

	if (ucg_task_subsys_cgroup(c->e, h->tid, UCG_SS_cpuset, &cg) < 0 || !cg)
		return 0;
	/* With every CPU there is nothing to escape: not polled, but a request stays
	 * known (the kernel keeps it) until the task exits. */
	if (cpuset_of(cg, &cs) < 0 || CPU_EQUAL(&cs, root))
		return h->has_req;
	c->st.polled++;
	if (sched_getaffinity(h->tid, sizeof(cur), &cur) < 0)
		return 0; /* gone: the exit reaches the engine on its own */
	if (CPU_EQUAL(&cur, &h->set))
		return 1;
	/* Someone called sched_setaffinity(tid): the kernel would have checked it
	 * against the cpuset there and then. */
	CPU_AND(&to, &cur, &cs);
	if (CPU_COUNT(&to)) {
		h->req = cur;
		h->has_req = 1;
	} else {
		/* EINVAL in the kernel: the mask the task had stays, and so does its
		 * earlier request */
		c->st.refused++;
		CPU_AND(&to, &h->set, &cs);
		if (!CPU_COUNT(&to))
			to = cs;
	}
	if (!CPU_EQUAL(&to, &cur)) {
		if (sched_setaffinity(h->tid, sizeof(to), &to) < 0)
			return 0;
		c->st.clamped++;
	}
	h->set = to;
	return 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long ucg_cpuhold_poll(struct ucg_cpuhold *c, uint64_t now_ms)
{
	uint64_t t0, ns;
	cpu_set_t root;
	size_t i = 0;

	if (!c->n)
		return -1;
	if (now_ms < c->next_ms)
		return (long)(c->next_ms - now_ms);
	t0 = now_ns();
	if (root_set(c->e, &root) < 0)
		CPU_ZERO(&root); /* cpuset unbound: every check forgets its task */
	while (i < c->n) {
		struct held *h = c->v[i];

		if (check(c, h, &root))
			i++;
		else
			drop(c, h); /* the last one moved to i */
	}
	ns = now_ns() - t0;
	c->st.passes++;
	c->st.pass_ns += ns;
	/* Bounded cost: a pass takes at most 1/HOLD_DUTY of the time. */
	c->period_ms = c->base_ms;
	if (ns * HOLD_DUTY / 1000000u > c->period_ms)
		c->period_ms = (unsigned)(ns * HOLD_DUTY / 1000000u);
	c->next_ms = now_ms + c->period_ms;
	return c->n ? (long)c->period_ms : -1;
}

/* ---- the observer: forks inherit the hold (and the request), exits end it ---- */

static void obs_task_forked(void *ctx, int parent_tid, int child_tid)
{
	struct ucg_cpuhold *c = ctx;
	struct held *p = find(c, parent_tid), *h;
	cpu_set_t set, req;
	int has_req;

	if (!p)
		return;
	/* the kernel copies the parent's mask and request into the child */
	set = p->set;
	req = p->req;
	has_req = p->has_req;
	h = add(c, child_tid); /* may move p's slot: copied above */
	if (!h)
		return;
	h->set = set;
	h->req = req;
	h->has_req = has_req;
}

static void obs_task_exiting(void *ctx, int tid)
{
	struct ucg_cpuhold *c = ctx;
	struct held *h = find(c, tid);

	if (h)
		drop(c, h);
}

static const struct ucg_observer_ops hold_observer = {
	.task_forked = obs_task_forked,
	.task_exiting = obs_task_exiting,
};

int ucg_cpuhold_new(struct ucg_engine *e, unsigned period_ms, struct ucg_cpuhold **ret)
{
	struct ucg_cpuhold *c = ucg_calloc(1, sizeof(*c));
	const char *env = getenv("UCG_CPUSET_HOLD_MS");

	if (!c)
		return -ENOMEM;
	c->e = e;
	ucg_htable_init(&c->by_tid);
	c->base_ms = period_ms ? period_ms : HOLD_DEFAULT_MS;
	if (env && atoi(env) > 0)
		c->base_ms = (unsigned)atoi(env);
	c->period_ms = c->base_ms;
	c->obs_id = ucg_observer_add(e, &hold_observer, c);
	if (c->obs_id < 0) {
		int r = c->obs_id;

		ucg_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

void ucg_cpuhold_free(struct ucg_cpuhold *c)
{
	if (!c)
		return;
	ucg_observer_remove(c->e, c->obs_id);
	while (c->n)
		drop(c, c->v[c->n - 1]);
	ucg_htable_fini(&c->by_tid);
	ucg_free(c->v);
	ucg_free(c);
}

size_t ucg_cpuhold_count(const struct ucg_cpuhold *c)
{
	return c ? c->n : 0;
}

void ucg_cpuhold_get_stats(const struct ucg_cpuhold *c, struct ucg_cpuhold_stats *ret)
{
	*ret = c->st;
	ret->period_ms = c->period_ms;
}

void ucg_cpuhold_describe(const struct ucg_cpuhold *c, struct ucg_buf *out)
{
	ucg_buf_printf(out,
		       "cpuset_hold tasks %zu period_ms %u passes %llu ns_per_task %llu "
		       "clamped %llu refused %llu\n",
		       c->n, c->period_ms, (unsigned long long)c->st.passes,
		       (unsigned long long)(c->st.polled ? c->st.pass_ns / c->st.polled : 0),
		       (unsigned long long)c->st.clamped, (unsigned long long)c->st.refused);
}
