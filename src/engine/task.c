/* engine/task.c — tasks, thread groups, fork/exit and attach.
 *
 * A task is one thread. The engine learns of tasks from its provider (ucg_task_add
 * for those that already exist, ucg_task_fork, ucg_task_exit, ucg_task_reap) and
 * keeps them in a hash table by tid; thread groups are a second table by tgid. An
 * exited task stays as a zombie until reaped: it holds no css_set, so it is in no
 * cgroup (it does not block rmdir, is not listed, and /proc shows "/" everywhere),
 * and writing its id to cgroup.procs succeeds and moves nothing (docs/kernel/core.md §6.3, §8).
 */
#include "engine/task.h"
#include "base/alloc.h"
#include "engine/cgroup.h"
#include "engine/hierarchy.h"
#include "engine/observer.h"
#include "engine/css_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int tid_match(const struct ucg_hnode *n, const void *key)
{
	return ucg_container_of(n, struct ucg_task, node)->info.tid == *(const int *)key;
}

static int tgid_match(const struct ucg_hnode *n, const void *key)
{
	return ucg_container_of(n, struct ucg_tgroup, node)->tgid == *(const int *)key;
}

struct ucg_task *ucg_task_find(struct ucg_engine *e, int tid)
{
	struct ucg_hnode *n = ucg_htable_find(&e->tasks, ucg_hash_u64((uint64_t)tid), tid_match, &tid);

	return n ? ucg_container_of(n, struct ucg_task, node) : NULL;
}

struct ucg_tgroup *ucg_tgroup_find(struct ucg_engine *e, int tgid)
{
	struct ucg_hnode *n =
		ucg_htable_find(&e->tgroups, ucg_hash_u64((uint64_t)tgid), tgid_match, &tgid);

	return n ? ucg_container_of(n, struct ucg_tgroup, node) : NULL;
}

struct ucg_cgroup *ucg_task_cgroup(const struct ucg_task *t, const struct ucg_hierarchy *h)
{
	return t->cset ? ucg_css_set_cgroup(t->cset, h) : h->root;
}

int ucg_task_subsys_cgroup(struct ucg_engine *e, int tid, int id, struct ucg_cgroup **ret)
{
	struct ucg_task *t = ucg_task_find(e, tid);
	struct ucg_hierarchy *h;

	if (!t || t->exited)
		return -ESRCH;
	h = ucg_subsys_hierarchy(e, id);
	*ret = h ? ucg_task_cgroup(t, h) : NULL;
	return 0;
}

int ucg_task_cgroup_get(struct ucg_engine *e, int tid, const struct ucg_hierarchy *h,
			struct ucg_cgroup **ret)
{
	struct ucg_task *t = ucg_task_find(e, tid);

	if (!t)
		return -ESRCH;
	*ret = ucg_task_cgroup(t, h);
	return 0;
}

size_t ucg_task_count(const struct ucg_engine *e)
{
	return e->tasks.count;
}

static void sync_provider(struct ucg_engine *e)
{
	if (e->cfg.provider && e->cfg.provider->sync)
		e->cfg.provider->sync(e->cfg.provider_ctx, e);
}

static void notify_moved(struct ucg_engine *e, const struct ucg_task *t,
			 const struct ucg_hierarchy *h)
{
	if (e->cfg.provider && e->cfg.provider->task_moved)
		e->cfg.provider->task_moved(e->cfg.provider_ctx, e, t->info.tid, h->id);
}

/* Inserts a new task with css_set cs (a reference the task takes over). */
static int task_insert(struct ucg_engine *e, const struct ucg_task_info *info,
		       struct ucg_css_set *cs, struct ucg_task **ret)
{
	struct ucg_task *t;
	struct ucg_tgroup *tg;
	int new_tg = 0;

	if (info->tid <= 0 || info->tgid <= 0)
		return -EINVAL;
	if (ucg_task_find(e, info->tid))
		return -EEXIST;
	t = ucg_calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	tg = ucg_tgroup_find(e, info->tgid);
	if (!tg) {
		tg = ucg_calloc(1, sizeof(*tg));
		if (!tg)
			goto nomem;
		tg->tgid = info->tgid;
		ucg_list_init(&tg->threads);
		if (ucg_htable_insert(&e->tgroups, &tg->node, ucg_hash_u64((uint64_t)tg->tgid)) < 0) {
			ucg_free(tg);
			goto nomem;
		}
		new_tg = 1;
	}
	if (ucg_htable_insert(&e->tasks, &t->node, ucg_hash_u64((uint64_t)info->tid)) < 0) {
		if (new_tg) {
			ucg_htable_remove(&e->tgroups, &tg->node);
			ucg_free(tg);
		}
		goto nomem;
	}
	t->info = *info;
	t->tg = tg;
	ucg_list_add_tail(&tg->threads, &t->tg_node);
	tg->nr_threads++;
	t->cset = cs;
	ucg_css_set_add_task(cs, t);
	*ret = t;
	return 0;
nomem:
	ucg_free(t);
	return -ENOMEM;
}

int ucg_task_add(struct ucg_engine *e, const struct ucg_task_info *info)
{
	struct ucg_task *t;
	int r;

	ucg_css_set_get(e->empty_cset);
	r = task_insert(e, info, e->empty_cset, &t);
	if (r < 0)
		ucg_css_set_put(e, e->empty_cset);
	return r;
}

/* Runs can_fork of every controller bound to a live hierarchy, in the child's
 * cgroups; on refusal cancels those that accepted. */
static int fork_check(struct ucg_engine *e, struct ucg_task *child, struct ucg_css_set *cs,
		      int cancel_only, int upto)
{
	int i, r;

	for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
		const struct ucg_subsys *ss = ucg_subsys_table[i];
		struct ucg_hierarchy *h = NULL;
		struct ucg_css *css;

		if (cancel_only && i >= upto)
			break;
		if (!(e->bound_mask & (1u << i)) || (!ss->can_fork && !ss->cancel_fork))
			continue;
		h = ucg_subsys_hierarchy(e, i);
		if (!h)
			continue;
		css = ucg_css_set_cgroup(cs, h)->css[i];
		if (cancel_only) {
			if (ss->cancel_fork)
				ss->cancel_fork(child, css);
			continue;
		}
		if (ss->can_fork) {
			r = ss->can_fork(child, css);
			if (r < 0) {
				fork_check(e, child, cs, 1, i);
				return r;
			}
		}
	}
	return 0;
}

static void for_each_bound_css(struct ucg_engine *e, struct ucg_task *t, struct ucg_css_set *cs,
			       int exiting)
{
	struct ucg_hierarchy *h = NULL;
	int i;

	while ((h = ucg_hierarchy_next(e, h))) {
		struct ucg_cgroup *cg = ucg_css_set_cgroup(cs, h);

		for (i = 0; i < UCG_SUBSYS_COUNT; i++) {
			const struct ucg_subsys *ss = ucg_subsys_table[i];

			if (!(h->ss_mask & (1u << i)))
				continue;
			if (exiting && ss->exit)
				ss->exit(t, cg->css[i]);
			else if (!exiting && ss->fork)
				ss->fork(t, cg->css[i]);
		}
	}
}

static int task_fork(struct ucg_engine *e, int parent_tid, const struct ucg_task_info *child,
		     int forced)
{
	struct ucg_task *parent = ucg_task_find(e, parent_tid), *t;
	struct ucg_task probe;
	struct ucg_css_set *cs;
	struct ucg_hierarchy *h = NULL;
	int r;

	if (!parent)
		return -ESRCH;
	/* The creating thread decides, not the leader; a task forked by one that is
	 * already exiting lands in the roots. */
	cs = parent->cset ? parent->cset : e->empty_cset;
	memset(&probe, 0, sizeof(probe));
	probe.info = *child;
	probe.fork_forced = forced ? 1 : 0;
	r = fork_check(e, &probe, cs, 0, 0);
	if (r < 0)
		return r;
	ucg_css_set_get(cs);
	r = task_insert(e, child, cs, &t);
	if (r < 0) {
		ucg_css_set_put(e, cs);
		fork_check(e, &probe, cs, 1, UCG_SUBSYS_COUNT);
		return r;
	}
	for_each_bound_css(e, t, cs, 0);
	while ((h = ucg_hierarchy_next(e, h)))
		if (ucg_css_set_cgroup(cs, h) != h->root)
			notify_moved(e, t, h);
	UCG_OBSERVE(e, task_forked, parent_tid, child->tid);
	return 0;
}

int ucg_task_fork(struct ucg_engine *e, int parent_tid, const struct ucg_task_info *child)
{
	return task_fork(e, parent_tid, child, 0);
}

int ucg_task_forked(struct ucg_engine *e, int parent_tid, const struct ucg_task_info *child)
{
	return task_fork(e, parent_tid, child, 1);
}

int ucg_task_exit(struct ucg_engine *e, int tid)
{
	struct ucg_task *t = ucg_task_find(e, tid);
	struct ucg_css_set *cs;

	if (!t)
		return -ESRCH;
	if (t->exited)
		return 0;
	UCG_OBSERVE(e, task_exiting, tid);
	cs = t->cset;
	for_each_bound_css(e, t, cs, 1);
	t->exited = 1;
	t->cset = NULL;
	ucg_css_set_del_task(cs, t);
	t->dead_cset = cs; /* keeps the reference until the reap */
	return 0;
}

int ucg_task_reap(struct ucg_engine *e, int tid)
{
	struct ucg_task *t = ucg_task_find(e, tid);
	struct ucg_tgroup *tg;

	if (!t)
		return -ESRCH;
	ucg_task_exit(e, tid);
	if (t->dead_cset) {
		struct ucg_hierarchy *h = NULL;
		int i;

		while ((h = ucg_hierarchy_next(e, h)))
			for (i = 0; i < UCG_SUBSYS_COUNT; i++)
				if ((h->ss_mask & (1u << i)) && ucg_subsys_table[i]->release)
					ucg_subsys_table[i]->release(
						t, ucg_css_set_cgroup(t->dead_cset, h)->css[i]);
		ucg_css_set_put(e, t->dead_cset);
		t->dead_cset = NULL;
	}
	tg = t->tg;
	ucg_list_del(&t->tg_node);
	ucg_htable_remove(&e->tasks, &t->node);
	if (--tg->nr_threads == 0) {
		ucg_htable_remove(&e->tgroups, &tg->node);
		ucg_free(tg);
	}
	ucg_free(t);
	return 0;
}

int ucg_task_set_cred(struct ucg_engine *e, const struct ucg_task_info *info)
{
	struct ucg_task *t = ucg_task_find(e, info->tid);

	if (!t)
		return -ESRCH;
	t->info.ruid = info->ruid;
	t->info.euid = info->euid;
	t->info.suid = info->suid;
	t->info.fsuid = info->fsuid;
	t->info.rgid = info->rgid;
	t->info.egid = info->egid;
	t->info.sgid = info->sgid;
	t->info.fsgid = info->fsgid;
	/* The scheduling policy changes at run time too (sched_setscheduler); the cpu
	 * controller's RT attach rules read it from here. */
	t->info.flags = (t->info.flags & ~UCG_TASK_RT) | (info->flags & UCG_TASK_RT);
	return 0;
}

int ucg_task_get_info(struct ucg_engine *e, int tid, struct ucg_task_info *ret)
{
	struct ucg_task *t = ucg_task_find(e, tid);

	if (!t)
		return -ESRCH;
	*ret = t->info;
	return 0;
}

static int reap_one(struct ucg_hnode *n, void *ctx)
{
	ucg_task_reap(ctx, ucg_container_of(n, struct ucg_task, node)->info.tid);
	return 1; /* the table changed: restart */
}

struct tid_list {
	int *tid;
	size_t n;
};

static int note_tid(struct ucg_hnode *n, void *ctx)
{
	struct tid_list *l = ctx;

	l->tid[l->n++] = ucg_container_of(n, struct ucg_task, node)->info.tid;
	return 0;
}

void ucg_task_table_fini(struct ucg_engine *e)
{
	/* The tids in table order, then reaped in that order: the order the restarts
	 * below take (each reaps the first task left), without a scan from the first
	 * bucket per task, which made the teardown of 10,000 tasks take longer than a
	 * virtual minute of bench_sim_events' 64-CPU hour. Without memory for the
	 * list, the restarts. */
	struct tid_list l = { ucg_calloc(e->tasks.count ? e->tasks.count : 1, sizeof(int)), 0 };
	size_t i;

	if (l.tid) {
		ucg_htable_each(&e->tasks, note_tid, &l);
		for (i = 0; i < l.n; i++)
			ucg_task_reap(e, l.tid[i]);
		ucg_free(l.tid);
	}
	while (e->tasks.count)
		ucg_htable_each(&e->tasks, reap_one, e);
	ucg_htable_fini(&e->tasks);
	ucg_htable_fini(&e->tgroups);
}

/* ---- attach ------------------------------------------------------------------------ */

/* The credential rule (docs/kernel/core.md §7.1): writer euid 0, or equal to the target's real or
 * saved uid. Capabilities do not stand in for euid 0. */
/* The tids of ts for the observers, in inl when it has room (cap entries), else
 * allocated: *ret is inl or an allocation the caller frees. */
static int taskset_tids(const struct ucg_taskset *ts, int *inl, size_t cap, int **ret)
{
	int *tids = ts->nr_tasks <= cap ? inl : ucg_calloc(ts->nr_tasks, sizeof(*tids));
	size_t i;

	if (!tids)
		return -ENOMEM;
	for (i = 0; i < ts->nr_tasks; i++)
		tids[i] = ts->tasks[i]->info.tid;
	*ret = tids;
	return 0;
}

/* Asks the observers whether ts may move; on 0 (with observers) *ret holds the tids
 * for the report after the move, NULL with nobody listening. */
static int observe_can_attach(struct ucg_engine *e, const struct ucg_taskset *ts, int *inl,
			      size_t cap, int **ret)
{
	int r;

	*ret = NULL;
	if (!e->nr_observers)
		return 0;
	r = taskset_tids(ts, inl, cap, ret);
	if (r == 0)
		r = ucg_observe_can_attach(e, ts->dst, *ret, ts->nr_tasks);
	return r;
}

static int may_move(const struct ucg_cred *w, const struct ucg_task_info *t)
{
	return w->euid == 0 || w->euid == t->ruid || w->euid == t->suid;
}

/* Switches each task to its new css_set (news[i], whose reference the task takes
 * over), runs the controllers' attach and tells the provider. Cannot fail. */
static void migrate_commit(struct ucg_engine *e, const struct ucg_taskset *ts,
			   struct ucg_css_set **news)
{
	struct ucg_hierarchy *h = ts->dst->h;
	size_t i;
	int k;

	for (i = 0; i < ts->nr_tasks; i++) {
		struct ucg_task *t = ts->tasks[i];
		struct ucg_css_set *old = t->cset;

		ucg_css_set_del_task(old, t);
		t->cset = news[i];
		news[i] = NULL;
		ucg_css_set_add_task(t->cset, t);
		ucg_css_set_put(e, old);
	}
	for (k = 0; k < UCG_SUBSYS_COUNT; k++) {
		const struct ucg_subsys *ss = ucg_subsys_table[k];

		if ((h->ss_mask & (1u << k)) && ss->attach)
			ss->attach(ts, ts->dst->css[k]);
	}
	for (i = 0; i < ts->nr_tasks; i++)
		notify_moved(e, ts->tasks[i], h);
}

int ucg_attach_pid(struct ucg_engine *e, struct ucg_cgroup *dst, int pid, int threadgroup,
		   const struct ucg_cred *cred)
{
	/* A process of up to ATTACH_INLINE threads moves with its arrays on the stack (a
	 * write to cgroup.procs is the engine's most frequent call; three allocations
	 * and frees were a third of it). */
	enum { ATTACH_INLINE = 8 };
	struct ucg_task *tasks_inl[ATTACH_INLINE];
	struct ucg_cgroup *src_inl[ATTACH_INLINE];
	struct ucg_css_set *news_inl[ATTACH_INLINE];
	int tids_inl[ATTACH_INLINE], *tids = NULL;
	struct ucg_hierarchy *h = dst->h;
	struct ucg_task *t, **tasks = NULL;
	struct ucg_cgroup **src = NULL;
	struct ucg_css_set **news = NULL;
	struct ucg_taskset ts;
	const struct ucg_task_info *target;
	size_t n = 0, i, cap;
	int r, ss_done = 0, k;

	sync_provider(e);
	if (pid == 0)
		pid = threadgroup ? cred->tgid : cred->tid;
	t = ucg_task_find(e, pid);
	if (!t)
		return -ESRCH;
	if (t->info.flags & UCG_TASK_NO_SETAFFINITY)
		return -EINVAL;
	/* The thread group's credentials: any thread's will do, they share them. */
	target = &t->info;
	if (!may_move(cred, target))
		return -EACCES;

	/* Gather the live tasks that move. */
	cap = threadgroup ? (size_t)t->tg->nr_threads : 1;
	tasks = cap <= ATTACH_INLINE ? tasks_inl : ucg_calloc(cap, sizeof(*tasks));
	if (!tasks)
		return -ENOMEM;
	if (threadgroup) {
		struct ucg_list *pos;

		ucg_list_for_each(pos, &t->tg->threads) {
			struct ucg_task *th = ucg_container_of(pos, struct ucg_task, tg_node);

			if (!th->exited && ucg_css_set_cgroup(th->cset, h) != dst)
				tasks[n++] = th;
		}
	} else {
		if (!t->exited && ucg_css_set_cgroup(t->cset, h) != dst)
			tasks[n++] = t;
	}
	if (!n) {
		r = 0; /* a zombie, or already there: success, nothing moves */
		goto out;
	}
	if (n <= ATTACH_INLINE) {
		src = src_inl;
		news = news_inl;
		memset(news, 0, n * sizeof(*news));
	} else {
		src = ucg_calloc(n, sizeof(*src));
		news = ucg_calloc(n, sizeof(*news));
		if (!src || !news) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		src[i] = ucg_css_set_cgroup(tasks[i]->cset, h);
		r = ucg_css_set_find(e, tasks[i]->cset, h, dst, &news[i]);
		if (r < 0)
			goto out;
	}

	ts.e = e;
	ts.dst = dst;
	ts.tasks = tasks;
	ts.nr_tasks = n;
	ts.src = src;
	for (k = 0; k < UCG_SUBSYS_COUNT; k++) {
		const struct ucg_subsys *ss = ucg_subsys_table[k];

		if (!(h->ss_mask & (1u << k)))
			continue;
		if (ss->can_attach) {
			r = ss->can_attach(&ts, dst->css[k]);
			if (r < 0)
				goto cancel;
		}
		ss_done = k + 1;
	}
	r = observe_can_attach(e, &ts, tids_inl, ATTACH_INLINE, &tids);
	if (r < 0)
		goto cancel;

	migrate_commit(e, &ts, news);
	if (tids)
		UCG_OBSERVE(e, attached, dst, tids, n);
	r = 0;
	goto out;

cancel:
	for (k = 0; k < ss_done; k++) {
		const struct ucg_subsys *ss = ucg_subsys_table[k];

		if ((h->ss_mask & (1u << k)) && ss->cancel_attach)
			ss->cancel_attach(&ts, dst->css[k]);
	}
out:
	for (i = 0; news && i < n; i++)
		if (news[i])
			ucg_css_set_put(e, news[i]);
	if (news != news_inl)
		ucg_free(news);
	if (src != src_inl)
		ucg_free(src);
	if (tasks != tasks_inl)
		ucg_free(tasks);
	if (tids != tids_inl)
		ucg_free(tids);
	return r;
}

int ucg_task_transfer(struct ucg_engine *e, struct ucg_cgroup *from, struct ucg_cgroup *to)
{
	struct ucg_hierarchy *h = from->h;
	struct ucg_task **tasks = NULL;
	struct ucg_cgroup **src = NULL;
	struct ucg_css_set **news = NULL;
	struct ucg_taskset ts;
	struct ucg_list *pos;
	int *tids = NULL;
	size_t n = 0, cap = 0, i;
	int r = 0;

	if (from == to || to->h != h)
		return from == to ? 0 : -EINVAL;
	/* Collect first: moving changes the lists we walk. */
	ucg_list_for_each(pos, &e->cset_list) {
		struct ucg_css_set *cs = ucg_container_of(pos, struct ucg_css_set, all);
		struct ucg_list *tp;

		if (ucg_css_set_cgroup(cs, h) != from)
			continue;
		ucg_list_for_each(tp, &cs->tasks) {
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 16;
				struct ucg_task **nt = ucg_realloc(tasks, nc * sizeof(*nt));

				if (!nt) {
					r = -ENOMEM;
					goto out;
				}
				tasks = nt;
				cap = nc;
			}
			tasks[n++] = ucg_container_of(tp, struct ucg_task, cset_node);
		}
	}
	if (!n)
		goto out;
	src = ucg_calloc(n, sizeof(*src));
	news = ucg_calloc(n, sizeof(*news));
	if (!src || !news) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		src[i] = from;
		r = ucg_css_set_find(e, tasks[i]->cset, h, to, &news[i]);
		if (r < 0)
			goto out;
	}
	ts.e = e;
	ts.dst = to;
	ts.tasks = tasks;
	ts.nr_tasks = n;
	ts.src = src;
	r = observe_can_attach(e, &ts, NULL, 0, &tids);
	if (r < 0)
		goto out;
	migrate_commit(e, &ts, news);
	if (tids)
		UCG_OBSERVE(e, attached, to, tids, n);
	r = (int)n;
out:
	ucg_free(tids);
	for (i = 0; news && i < n; i++)
		if (news[i])
			ucg_css_set_put(e, news[i]);
	ucg_free(news);
	ucg_free(src);
	ucg_free(tasks);
	return r;
}

/* ---- listing ----------------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int collect(struct ucg_css_set *cs, int procs, int **ids, size_t *n, size_t *cap)
{
	struct ucg_list *pos;

	ucg_list_for_each(pos, &cs->tasks) {
		struct ucg_task *t = ucg_container_of(pos, struct ucg_task, cset_node);

		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			int *ni = ucg_realloc(*ids, nc * sizeof(int));

			if (!ni)
				return -ENOMEM;
			*ids = ni;
			*cap = nc;
		}
		(*ids)[(*n)++] = procs ? t->info.tgid : t->info.tid;
	}
	return 0;
}

int ucg_task_list(struct ucg_engine *e, struct ucg_cgroup *cg, int procs, struct ucg_buf *out)
{
	int *ids = NULL, r = 0, count = 0;
	size_t n = 0, cap = 0, i;
	struct ucg_list *pos;

	sync_provider(e);
	if (!cg->parent) {
		/* The root: every live task of every set that has no link in this slot. */
		ucg_list_for_each(pos, &e->cset_list) {
			struct ucg_css_set *cs = ucg_container_of(pos, struct ucg_css_set, all);

			if (ucg_css_set_cgroup(cs, cg->h) == cg && (r = collect(cs, procs, &ids, &n, &cap)) < 0)
				goto out;
		}
	} else {
		ucg_list_for_each(pos, &cg->cset_links) {
			struct ucg_cset_link *l = ucg_container_of(pos, struct ucg_cset_link, cg_node);

			if ((r = collect(l->cset, procs, &ids, &n, &cap)) < 0)
				goto out;
		}
	}
	if (n)
		qsort(ids, n, sizeof(int), cmp_int);
	for (i = 0; i < n; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		ucg_buf_printf(out, "%d\n", ids[i]);
		count++;
	}
	r = ucg_buf_error(out);
	if (!r)
		r = count;
out:
	ucg_free(ids);
	return r;
}
