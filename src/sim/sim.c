/* sim/sim.c — the simulation object: event loop, simulated task provider, and the
 * tasks' and hierarchies' place in the engine.
 *
 * Event loop. Events sit in a binary heap ordered by (time, insertion sequence), so
 * equal-time events fire in the order they were scheduled. Before an event fires the
 * CPU model accrues usage up to its time at the rates it computed last (the CPU is a
 * fluid model whose rates change only at events); after it fires, anything that
 * changed demand or configuration makes the CPU model recompute its rates once. A
 * caller's progress hook (cfg.progress) is called every cfg.progress_every events with
 * the virtual time and the count; the wall clock, and what to show, are its business.
 *
 * Task provider. Simulated tasks are added, forked, exited and reaped through the
 * engine's provider calls, exactly as the host provider does for real processes. tids
 * are handed out in increasing order from 100 (the flusher kthread is 2), so a run
 * never depends on anything outside the scenario.
 *
 * Hierarchies and memberships. The scenario names each hierarchy it mounts (struct
 * sim_hier); the data of each cgroup hangs off the engine's cgroup (cgroups.c). A
 * task's cgroups are asked of the engine by handle (ucg_task_cgroup_get) and cached
 * until the engine reports the task moved (the provider's task_moved) or a
 * hierarchy is mounted.
 */
#include "sim/sim_impl.h"
#include "sim/v2split.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

static const char *const charging_names[SIM_CHARGING_NR] = {
	[SIM_CHARGING_KERNEL] = "kernel",
	[SIM_CHARGING_PID] = "pid",
	[SIM_CHARGING_CONSUMER] = "consumer",
	[SIM_CHARGING_DUAL] = "dual",
	[SIM_CHARGING_INODE] = "inode",
};

const char *sim_charging_name(enum sim_charging c)
{
	return (unsigned)c < SIM_CHARGING_NR ? charging_names[c] : NULL;
}

int sim_charging_parse(const char *name, enum sim_charging *ret)
{
	int i;

	for (i = 0; i < SIM_CHARGING_NR; i++)
		if (!strcmp(name, charging_names[i])) {
			*ret = (enum sim_charging)i;
			return 0;
		}
	return -EINVAL;
}

/* ---- time ------------------------------------------------------------------------- */

int sim_parse_time(const char *str, sim_time *ret)
{
	static const struct {
		const char *unit;
		int64_t mult;
	} units[] = { { "ns", 1 }, { "us", SIM_USEC }, { "ms", SIM_MSEC }, { "s", SIM_SEC },
		      { "m", 60 * SIM_SEC }, { "h", 3600 * SIM_SEC } };
	const char *p = str;
	int64_t whole = 0, frac = 0, fracdiv = 1;
	size_t i;

	if (!*p)
		return -EINVAL;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		if (whole > INT64_MAX / 10 - 10)
			return -EINVAL;
		whole = whole * 10 + (*p++ - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		while (*p >= '0' && *p <= '9') {
			if (fracdiv < 1000000000LL) {
				frac = frac * 10 + (*p - '0');
				fracdiv *= 10;
			}
			p++;
		}
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		if (whole > INT64_MAX / units[i].mult / 2)
			return -EINVAL;
		*ret = whole * units[i].mult + frac * units[i].mult / fracdiv;
		return 0;
	}
	return -EINVAL;
}

void sim_format_time(sim_time t, struct ucg_buf *out)
{
	char frac[16];
	int n;

	if (t < 0) {
		ucg_buf_putc(out, '-');
		t = -t;
	}
	n = snprintf(frac, sizeof(frac), "%09" PRId64, t % SIM_SEC);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	if (n)
		ucg_buf_printf(out, "%" PRId64 ".%ss", t / SIM_SEC, frac);
	else
		ucg_buf_printf(out, "%" PRId64 "s", t / SIM_SEC);
}

/* ---- log and errors ---------------------------------------------------------------- */

void sim_logf(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ucg_buf_vprintf(&s->log, fmt, ap);
	va_end(ap);
}

int sim_fail(struct sim *s, int line, int r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (s->err && !s->run_err)
		snprintf(s->err->msg, sizeof(s->err->msg), "%s:%d: %s: %s",
			 s->filename ? s->filename : "scenario", line, what, ucg_strerror(r));
	if (!s->run_err)
		s->run_err = r;
	s->stopped = true;
	return r;
}

const char *sim_log(const struct sim *s)
{
	return s->log.data ? s->log.data : "";
}

sim_time sim_now(const struct sim *s)
{
	return s->now;
}

uint64_t sim_events(const struct sim *s)
{
	return s->nevents;
}

sim_time sim_end(const struct sim *s)
{
	return s->cfg.until > 0 ? s->cfg.until : s->end;
}

int sim_schedule(struct sim *s, sim_time at, struct sim_event_src *src, uint64_t arg)
{
	if (at < s->now)
		at = s->now;
	return ucg_heap_push(&s->events, at, src, arg);
}

/* ---- hierarchies ------------------------------------------------------------------ */

/* The index in hier[] of the hierarchy carrying ss, -1; a table rebuilt after each
 * mount, since every task event asks. */
static int ss_index(struct sim *s, int ss)
{
	if (s->ss_hier_n != s->nhier) {
		int k;
		size_t i;

		for (k = 0; k < UCG_SUBSYS_COUNT; k++) {
			s->ss_hier[k] = -1;
			for (i = 0; i < s->nhier; i++)
				if (s->hier[i]->ss_mask & (1u << k)) {
					s->ss_hier[k] = (signed char)i;
					break;
				}
		}
		s->ss_hier_n = s->nhier;
	}
	return s->ss_hier[ss];
}

struct sim_hier *sim_hier_of(struct sim *s, int ss)
{
	int i = ss_index(s, ss);

	return i < 0 ? NULL : s->hier[i];
}

struct sim_hier *sim_hier_by_name(struct sim *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nhier; i++)
		if (!strcmp(s->hier[i]->name, name))
			return s->hier[i];
	return NULL;
}

/* ---- tasks ----------------------------------------------------------------------- */

static int task_match(const struct ucg_hnode *n, const void *key)
{
	const struct sim_task *t = (const struct sim_task *)((const char *)n -
							     offsetof(struct sim_task, hnode));

	return t->tid == *(const int *)key;
}

struct sim_task *sim_task_find(struct sim *s, int tid)
{
	struct ucg_hnode *n = ucg_htable_find(&s->tasks_by_tid, ucg_hash_u64((uint64_t)tid),
					      task_match, &tid);

	return n ? (struct sim_task *)((char *)n - offsetof(struct sim_task, hnode)) : NULL;
}

#define NAME_NONE UINT32_MAX

/* The slot of name in s->name_slots: the one holding its newest task, else the empty
 * one where it would go */
static size_t name_slot(const struct sim *s, const char *name)
{
	size_t mask = s->name_cap - 1, i;

	i = (size_t)ucg_hash_bytes(name, strlen(name), 0) & mask;
	while (s->name_slots[i] != NAME_NONE && strcmp(s->tasks[s->name_slots[i]]->name, name))
		i = (i + 1) & mask;
	return i;
}

/* Lists task idx (the newest) by its name; false when out of memory. */
static bool name_add(struct sim *s, uint32_t idx)
{
	size_t i;

	if (idx >= s->name_prev_cap) {
		size_t n = s->name_prev_cap ? 2 * s->name_prev_cap : 64;
		uint32_t *v = ucg_realloc(s->name_prev, n * sizeof(*v));

		if (!v)
			return false;
		s->name_prev = v;
		s->name_prev_cap = n;
	}
	if (2 * (s->name_used + 1) > s->name_cap) {
		size_t n = s->name_cap ? 2 * s->name_cap : 64, old_cap = s->name_cap;
		uint32_t *old = s->name_slots, *v = ucg_malloc(n * sizeof(*v));

		if (!v)
			return false;
		for (i = 0; i < n; i++)
			v[i] = NAME_NONE;
		s->name_slots = v;
		s->name_cap = n;
		for (i = 0; i < old_cap; i++)
			if (old[i] != NAME_NONE)
				v[name_slot(s, s->tasks[old[i]]->name)] = old[i];
		ucg_free(old);
	}
	i = name_slot(s, s->tasks[idx]->name);
	s->name_prev[idx] = s->name_slots[i];
	if (s->name_slots[i] == NAME_NONE)
		s->name_used++;
	s->name_slots[i] = idx;
	return true;
}

struct sim_task *sim_task_by_name_walk(struct sim *s, const char *name)
{
	size_t i;

	for (i = s->ntasks; i-- > 0;)
		if (s->tasks[i]->alive && !strcmp(s->tasks[i]->name, name))
			return s->tasks[i];
	for (i = s->ntasks; i-- > 0;)
		if (!strcmp(s->tasks[i]->name, name))
			return s->tasks[i];
	return NULL;
}

struct sim_task *sim_task_by_name(struct sim *s, const char *name)
{
	/* the newest live task of that name, else the newest of that name: a walk of
	 * every task (10,000 cache lines and more) on each scenario line naming one
	 * made the index */
	if (!s->names_lost) {
		uint32_t k, first;

		if (!s->name_cap)
			return NULL;
		first = s->name_slots[name_slot(s, name)];
		for (k = first; k != NAME_NONE; k = s->name_prev[k])
			if (s->tasks[k]->alive)
				return s->tasks[k];
		return first != NAME_NONE ? s->tasks[first] : NULL;
	}
	return sim_task_by_name_walk(s, name); /* the index could not be kept */
}

/* The consumer for a tuple of cgroups (one per hierarchy): found or added. A
 * consumer is never removed, so an id on a page stays meaningful forever. */
static uint32_t consumer_intern(struct sim *s, struct sim_cg *const *cg)
{
	size_t i;

	for (i = s->nconsumers; i-- > 0;)
		if (!memcmp(s->consumers[i].cg, cg, sizeof(s->consumers[i].cg)))
			return (uint32_t)i;
	if (s->nconsumers == s->cconsumers) {
		size_t n = s->cconsumers ? s->cconsumers * 2 : 16;
		struct sim_consumer *v = ucg_realloc(s->consumers, n * sizeof(*v));

		if (!v)
			return UINT32_MAX;
		s->consumers = v;
		s->cconsumers = n;
	}
	memcpy(s->consumers[s->nconsumers].cg, cg, sizeof(s->consumers[0].cg));
	return (uint32_t)s->nconsumers++;
}

int sim_task_new(struct sim *s, const char *name, uint32_t uid, struct sim_task *parent,
		 bool kthread, struct sim_task **ret)
{
	struct ucg_task_info ti;
	struct sim_task *t;
	int r = -ENOMEM;
	void *mem;

	if (s->ntasks == s->ctasks) {
		size_t n = s->ctasks ? s->ctasks * 2 : 64;
		struct sim_task **v = ucg_realloc(s->tasks, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->tasks = v;
		s->ctasks = n;
	}
	/* aligned to a cache line (struct sim_task's first) */
	t = ucg_alloc_aligned(sizeof(*t), _Alignof(struct sim_task), 1, &mem);
	if (!t)
		return -ENOMEM;
	t->mem = mem;
	t->name = ucg_strdup(name);
	if (!t->name)
		goto fail;
	t->tid = t->tgid = kthread && !s->flusher ? 2 : s->next_tid++;
	t->uid = uid;
	t->kthread = kthread;
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = t->tid;
	ti.ruid = ti.euid = ti.suid = ti.fsuid = uid;
	ti.rgid = ti.egid = ti.sgid = ti.fsgid = uid;
	ti.flags = kthread ? UCG_TASK_KTHREAD : 0;
	ti.start_time = (uint64_t)s->now;
	r = ucg_htable_reserve(&s->tasks_by_tid);
	if (r < 0)
		goto fail;
	r = parent ? ucg_task_fork(s->e, parent->tid, &ti) : ucg_task_add(s->e, &ti);
	if (r < 0)
		goto fail;
	ucg_htable_insert(&s->tasks_by_tid, &t->hnode, ucg_hash_u64((uint64_t)t->tid));
	t->alive = true;
	t->memb_epoch = UINT64_MAX;
	t->consumer = UINT32_MAX;
	t->cpu = -1;
	t->idx = s->ntasks;
	s->tasks[s->ntasks++] = t;
	if (!s->names_lost && !name_add(s, (uint32_t)t->idx))
		s->names_lost = true;
	*ret = t;
	return 0;
fail:
	ucg_free(t->name);
	ucg_free(t->mem);
	return r;
}

int sim_task_exit(struct sim *s, struct sim_task *t)
{
	int r;

	if (!t->alive)
		return -ESRCH;
	sim_task_refresh(s, t);
	sim_cpu_flush(s); /* its CPU time reaches cpuacct while it is still there */
	sim_io_cancel(s, t);
	sim_task_release_mem(s, t);
	if (t->cpu_demand > 0)
		sim_cpu_changed(s);
	t->cpu_demand = 0;
	r = ucg_task_exit(s->e, t->tid);
	if (r == 0)
		r = ucg_task_reap(s->e, t->tid);
	t->alive = false;
	sim_cpu_task_exited(s, t);
	/* the tid is gone: a later pid lookup must not find this task */
	ucg_htable_remove(&s->tasks_by_tid, &t->hnode);
	return r;
}

void sim_task_set_demand(struct sim *s, struct sim_task *t, double d)
{
	t->cpu_demand = d;
	sim_cpu_changed(s);
	if (d > 0 && !t->cpu_listed) {
		size_t j;

		if (s->ncpu_tasks == s->ccpu_tasks) {
			size_t n = s->ccpu_tasks ? 2 * s->ccpu_tasks : 64;
			int *v = ucg_realloc(s->cpu_tasks, n * sizeof(*v));

			if (!v) {
				s->cpu_list_lost = true;
				return;
			}
			s->cpu_tasks = v;
			s->ccpu_tasks = n;
		}
		/* ascending index: tasks are mostly made busy in creation order */
		for (j = s->ncpu_tasks; j > 0 && (size_t)s->cpu_tasks[j - 1] > t->idx; j--)
			s->cpu_tasks[j] = s->cpu_tasks[j - 1];
		s->cpu_tasks[j] = (int)t->idx;
		s->ncpu_tasks++;
		t->cpu_listed = true;
	}
}

void sim_task_refresh(struct sim *s, struct sim_task *t)
{
	size_t i;

	if (!t->alive || t->memb_epoch == s->memb_epoch)
		return;
	t->memb_epoch = s->memb_epoch;
	sim_cpu_cg_push(s, t); /* the time it ran where it was */
	memset(t->cg, 0, sizeof(t->cg));
	for (i = 0; i < s->nhier; i++) {
		struct ucg_cgroup *ucg;

		if (ucg_task_cgroup_get(s->e, t->tid, s->hier[i]->h, &ucg) < 0) {
			/* the engine does not know t: no cgroups, no consumer */
			memset(t->cg, 0, sizeof(t->cg));
			return;
		}
		t->cg[i] = sim_cg_of(s, ucg);
	}
	/* the consumer: the interned tuple of the task's cgroups */
	t->consumer = consumer_intern(s, t->cg);
}

struct sim_cg *sim_task_cg(struct sim *s, struct sim_task *t, int ss)
{
	int i = ss_index(s, ss);

	sim_task_refresh(s, t); /* callers rely on t->cg[] being current after this */
	return i < 0 ? NULL : t->cg[i];
}

struct ucg_cgroup *sim_task_ucg(struct sim *s, const struct sim_task *t, int ss)
{
	struct ucg_cgroup *cg;

	return ucg_task_subsys_cgroup(s->e, t->tid, ss, &cg) < 0 ? NULL : cg;
}

/* ---- provider --------------------------------------------------------------------- */

static void prov_task_moved(void *ctx, struct ucg_engine *e, int tid, int hierarchy_id)
{
	struct sim *s = ctx;
	struct sim_task *t = sim_task_find(s, tid);

	(void)e;
	(void)hierarchy_id;
	/* only this task's memberships changed: it asks the engine again */
	if (t)
		t->memb_epoch = UINT64_MAX;
	sim_cpu_changed(s);
}

static const struct ucg_provider_ops sim_provider = {
	.task_moved = prov_task_moved,
};

/* ---- object ----------------------------------------------------------------------- */

/* Creates the engine and the flusher once the scenario's block devices are known. */
static int engine_start(struct sim *s)
{
	struct ucg_engine_config ecfg;
	int r;

	if (s->e)
		return 0;
	memset(&ecfg, 0, sizeof(ecfg));
	ecfg.provider = &sim_provider;
	ecfg.provider_ctx = s;
	ecfg.nr_cpus = 64; /* the engine's machine; the scenario's `cpus N` uses 0..N-1 */
	if (s->nblkdevs) {
		ecfg.blkdevs = s->blkdevs;
		ecfg.nr_blkdevs = s->nblkdevs;
	}
	r = ucg_engine_new(&ecfg, &s->e);
	if (r < 0)
		return r;
	r = sim_cgroups_init(s);
	if (r < 0)
		return r;
	return sim_mem_init(s);
}

int sim_new(const struct sim_config *cfg, struct sim **ret)
{
	struct sim *s;
	int r;

	s = ucg_calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (cfg)
		s->cfg = *cfg;
	if (!s->cfg.max_events)
		s->cfg.max_events = 200000000ull;
	if (!s->cfg.progress_every)
		s->cfg.progress_every = SIM_PROGRESS_EVERY;
	ucg_buf_init(&s->log);
	ucg_buf_init(&s->csv_name);
	ucg_heap_init(&s->events);
	ucg_htable_init(&s->tasks_by_tid);
	ucg_prng_seed(&s->prng, s->cfg.seed);
	s->root_cred = ucg_cred_root();
	s->next_tid = 100;
	s->ss_hier_n = SIZE_MAX; /* built on first use */
	s->nr_cpus = 1;
	s->sample_every = SIM_SEC;
	sim_cpu_init(s);
	r = sim_net_init(s);
	if (r < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	sim_free(s);
	return r;
}

void sim_free(struct sim *s)
{
	size_t i;

	if (!s)
		return;
	sim_v2split_free(s->v2split);
	sim_net_fini(s);
	sim_blk_fini(s);
	sim_mem_fini(s);
	sim_scenario_fini(s);
	sim_samples_fini(s);
	sim_cpu_fini(s);
	for (i = 0; i < s->ntasks; i++) {
		ucg_free(s->tasks[i]->name);
		ucg_free(s->tasks[i]->mem);
	}
	ucg_free(s->tasks);
	ucg_free(s->name_slots);
	ucg_free(s->name_prev);
	ucg_free(s->anon_tasks);
	ucg_free(s->cpu_tasks);
	ucg_htable_fini(&s->tasks_by_tid);
	sim_cgroups_fini(s);
	for (i = 0; i < s->nhier; i++) {
		ucg_free(s->hier[i]->name);
		ucg_free(s->hier[i]);
	}
	ucg_free(s->consumers);
	ucg_engine_free(s->e);
	ucg_heap_fini(&s->events);
	ucg_free(s->cmd_order);
	ucg_buf_fini(&s->log);
	ucg_buf_fini(&s->csv_name);
	ucg_free(s->filename);
	ucg_free(s);
}

int sim_load(struct sim *s, const char *filename, const char *text, size_t len,
	     struct sim_err *err)
{
	size_t i;
	int r;

	if (s->e) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "%s: a simulation loads one scenario",
				 filename ? filename : "scenario");
		return -EBUSY;
	}
	r = sim_scenario_parse(s, filename, text, len, err);
	if (r < 0)
		return r;
	/* the engine must know the block devices blkio rules may name */
	for (i = 0; i < s->ncmds && s->nblkdevs < SIM_MAX_DEV; i++) {
		struct sim_cmd *c = &s->cmds[i];
		unsigned maj = 0, min = 0;
		int k;

		if (!strcmp(c->argv[0], "device")) {
			sscanf(c->argv[2], "%u:%u", &maj, &min);
		} else if (!strcmp(c->argv[0], "md")) {
			maj = 9;
			min = (unsigned)s->nblkdevs;
			for (k = 2; k < c->argc; k++)
				if (!strncmp(c->argv[k], "major=", 6))
					sscanf(c->argv[k] + 6, "%u:%u", &maj, &min);
		} else {
			continue;
		}
		s->blkdevs[s->nblkdevs].major = maj;
		s->blkdevs[s->nblkdevs].minor = min;
		s->blkdevs[s->nblkdevs].bfq = 1;
		s->nblkdevs++;
	}
	r = engine_start(s);
	if (r < 0 && err)
		snprintf(err->msg, sizeof(err->msg), "%s: %s", filename ? filename : "scenario",
			 ucg_strerror(r));
	return r;
}

static void sample_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	(void)src;
	(void)arg;
	sim_cpu_settle(s); /* the samples read cgroups' CPU time */
	sim_sample_take(s);
	if (s->now + s->sample_every <= s->end)
		sim_schedule(s, s->now + s->sample_every, &s->sample_ev, 0);
}

static bool cmd_before(const struct sim_cmd_at *a, const struct sim_cmd_at *b)
{
	return a->at < b->at || (a->at == b->at && a->i < b->i);
}

static int cmd_cmp(const void *pa, const void *pb)
{
	const struct sim_cmd_at *a = pa, *b = pb;

	return cmd_before(a, b) ? -1 : cmd_before(b, a);
}

/* The commands due by the end in the order of their heap entries, had they been
 * pushed now in index order: by instant (clamped to now, as sim_schedule does),
 * then index. A scenario lists them mostly in order (the hour's 31 k at 0 s, then
 * its timed lines nearly so), so only what follows the ordered head is sorted,
 * then merged with it. */
static int cmds_order(struct sim *s)
{
	struct sim_cmd_at *v, *t = NULL;
	size_t i, n = 0, p, nt;

	ucg_free(s->cmd_order);
	s->cmd_order = NULL;
	s->ncmd_order = s->cmd_pos = 0;
	s->cmd_seq = s->events.next_seq;
	if (!s->ncmds)
		return 0;
	v = ucg_malloc(s->ncmds * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->ncmds; i++) {
		if (s->cmds[i].at > s->end)
			continue;
		v[n].at = s->cmds[i].at < s->now ? s->now : s->cmds[i].at;
		v[n++].i = i;
	}
	for (p = 1; p < n && !cmd_before(&v[p], &v[p - 1]); p++)
		;
	if (p < n) {
		nt = n - p;
		t = ucg_malloc(nt * sizeof(*t));
		if (!t) {
			ucg_free(v);
			return -ENOMEM;
		}
		memcpy(t, v + p, nt * sizeof(*t));
		qsort(t, nt, sizeof(*t), cmd_cmp);
		/* merged from the back: v[0..p) and t, into v */
		for (i = n; nt;) {
			if (p && cmd_before(&t[nt - 1], &v[p - 1]))
				v[--i] = v[--p];
			else
				v[--i] = t[--nt];
		}
		ucg_free(t);
	}
	s->cmd_order = v;
	s->ncmd_order = n;
	return 0;
}

/* Takes the next event, the next command's or the heap's top, into *ev: false when
 * there is none by the end. A command comes first at the same instant unless the
 * heap's event was pushed before the commands were ordered (cmd_seq). */
static bool next_event(struct sim *s, struct ucg_heap_entry *ev)
{
	const struct ucg_heap_entry *top = ucg_heap_peek(&s->events);
	const struct sim_cmd_at *c = s->cmd_pos < s->ncmd_order ? &s->cmd_order[s->cmd_pos] : NULL;

	if (c && (!top || c->at < top->key || (c->at == top->key && top->seq >= s->cmd_seq))) {
		if (c->at > s->end)
			return false;
		ev->key = c->at;
		ev->seq = 0;
		ev->ptr = &s->cmds[c->i].ev;
		ev->arg = c->i;
		s->cmd_pos++;
		return true;
	}
	if (!top || top->key > s->end)
		return false;
	ucg_heap_pop(&s->events, ev);
	return true;
}

/* Whether an event is due at now still (the CPU model recomputes after the last) */
static bool more_now(const struct sim *s)
{
	const struct ucg_heap_entry *top = ucg_heap_peek(&s->events);

	return (top && top->key <= s->now) ||
	       (s->cmd_pos < s->ncmd_order && s->cmd_order[s->cmd_pos].at <= s->now);
}

int sim_run(struct sim *s, struct sim_err *err)
{
	struct ucg_heap_entry ev;
	int r;

	s->err = err;
	if (err)
		err->msg[0] = '\0';
	if (!s->e)
		return -EINVAL; /* nothing loaded */
	if (s->cfg.until > 0)
		s->end = s->cfg.until;
	r = cmds_order(s);
	if (r < 0)
		return r;
	s->sample_ev.fire = sample_fire;
	sim_schedule(s, 0, &s->sample_ev, 0);
	/* the loop compares one counter; without a hook it never matches */
	s->progress_next = s->cfg.progress ? s->nevents + s->cfg.progress_every : UINT64_MAX;
	while (!s->stopped) {
		if (!next_event(s, &ev))
			break;
		sim_cpu_advance(s, ev.key);
		s->now = ev.key;
		((struct sim_event_src *)ev.ptr)->fire(s, ev.ptr, ev.arg);
		if (++s->nevents > s->cfg.max_events) {
			if (err)
				snprintf(err->msg, sizeof(err->msg),
					 "%s: stopped after %" PRIu64 " events at virtual time "
					 "%" PRId64 " ns (event limit)",
					 s->filename ? s->filename : "scenario", s->cfg.max_events,
					 s->now);
			s->run_err = -E2BIG;
			break;
		}
		/* the CPU model recomputes once per instant, after its last event */
		if (s->cpu_dirty && !more_now(s))
			sim_cpu_update(s);
		if (s->nevents == s->progress_next) {
			s->progress_next += s->cfg.progress_every;
			s->cfg.progress(s->cfg.progress_ctx, s->now, s->end, s->nevents);
		}
	}
	if (!s->stopped && s->run_err == 0) {
		sim_cpu_advance(s, s->end);
		s->now = s->end;
		sim_cpu_settle(s);
		if (s->samples && s->nsamples && s->samples[s->nsamples - 1].t != s->end)
			sim_sample_take(s);
	}
	sim_cpu_flush(s);
	s->err = NULL;
	return s->run_err;
}
