/* sim/cpu_account.c — the CPU model's time accounting: a task accrues time lazily at
 * its rate on its CPU, settled (rounded to whole ns) into the task, its cgroups in
 * every hierarchy and idle_ns when its rate or CPU changes and whenever the time is
 * read; cpuacct is charged through the controller, on the task's CPU, when a command
 * runs, a task exits and at the end. The rules are described at the top of cpu.c
 * ("Accounting").
 */
#include "sim/cpu_impl.h"

#include "controllers/charge.h"

static void flush_task(struct sim *s, struct sim_task *t)
{
	if (t->cpuacct_pend > 0 && t->alive)
		ucg_cpuacct_charge(sim_task_ucg(s, t, UCG_SS_cpuacct), (unsigned)t->pend_cpu,
				   (uint64_t)t->cpuacct_pend, 0);
	t->cpuacct_pend = 0;
}

static void task_pass(struct sim *s, struct cpu_state *st, int k);

void sim_cpu_cg_push(struct sim *s, struct sim_task *t)
{
	struct cpu_state *st = s->cpu_state;
	size_t h;

	if (st && t->idx < st->ntk && st->tk[t->idx].pend)
		task_pass(s, st, (int)t->idx); /* the time it settled, first */
	if (!t->cg_pend)
		return;
	for (h = 0; h < s->nhier; h++)
		SIM_CG_UP(t->cg[h], cpu_ns, t->cg_pend);
	t->cg_pend = 0;
}

/* Passes the time task k settled (tk.pend, all of it run on acc_cpu) to its
 * sim_task: to cpu_ns, to cg_pend for its cgroups in every hierarchy (as they are
 * now: whatever moves a task settles every task first; they get it at the next
 * sim_cpu_settle) and to cpuacct's pending charge. Sums of integers: the same
 * whenever they are formed, as long as every reader comes after sim_cpu_settle
 * (samples, the v2 split, the reports, a command) and a CPU change passes the time
 * run on the old CPU first. */
static void task_pass(struct sim *s, struct cpu_state *st, int k)
{
	struct cpu_task *x = &st->tk[k];
	struct sim_task *t = s->tasks[k];
	int64_t ns = x->pend;

	x->pend = 0;
	if (ns <= 0)
		return;
	t->cpu_ns += ns;
	/* Its cgroups' cpu_ns, in every hierarchy up to the root, are read only after
	 * sim_cpu_settle (samples, the v2 split, the reports) and change in no other
	 * way than by these sums; so the time waits in the task and is added to them
	 * there, or before the task changes cgroups. The walks up the hierarchies,
	 * their steps cold cgroups, were a third of the settling: 60 virtual seconds
	 * of the hour's host settle 2,152,280 times and push 26,400. */
	t->cg_pend += ns;
	if (!t->cg_listed) {
		size_t need = st->ncgl + 1;

		if (sim_cpu_grow((void **)&st->cgl, &st->ccgl, need, sizeof(*st->cgl)) < 0) {
			sim_cpu_cg_push(s, t); /* no room to wait: now */
		} else {
			st->cgl[st->ncgl++] = t;
			t->cg_listed = true;
		}
	}
	/* cpuacct through the controller, on the task's CPU, all of it user time:
	 * gathered here and charged by sim_cpu_flush (before a command runs, a task
	 * exits, and at the end); time run on another CPU is charged there first */
	if (t->cpuacct_pend && t->pend_cpu != x->acc_cpu)
		flush_task(s, t);
	if (!t->cpuacct_pend)
		t->pend_cpu = x->acc_cpu > 0 ? x->acc_cpu : 0;
	t->cpuacct_pend += ns;
	if (!t->pend_listed) {
		if (sim_cpu_grow((void **)&st->pl, &st->cpl, st->npl + 1, sizeof(*st->pl)) < 0) {
			flush_task(s, t); /* no room to wait: charge now */
		} else {
			st->pl[st->npl++] = t;
			t->pend_listed = true;
		}
	}
}

/* Lists task k as having pending time (once between two sim_cpu_settle): out of
 * line, the settling's inlines call it once per task between two. */
__attribute__((noinline)) void sim_cpu_task_list(struct sim *s, struct cpu_state *st, int k)
{
	if (sim_cpu_grow((void **)&st->pk, &st->cpk, st->npk + 1, sizeof(*st->pk)) < 0) {
		task_pass(s, st, k); /* no room to wait: now */
	} else {
		st->pk[st->npk++] = k;
		st->tk[k].plisted = 1;
	}
}

void sim_cpu_task_pass(struct sim *s, struct cpu_state *st, int k)
{
	task_pass(s, st, k);
}

static inline __attribute__((always_inline)) void task_settle(struct sim *s, struct cpu_state *st,
							      int k)
{
	s->idle_ns -= cpu_task_accrue(s, st, &st->tk[k], k, s->now);
}

/* The end of a recompute: each task whose rate or CPU changed settles. */
void sim_cpu_settle_touched(struct sim *s, struct cpu_state *st)
{
	sim_cpu_settle_shared(s, st, 0);
}

/* After some CPUs' shares: the tasks they touched (those listed from entry n0 on,
 * the list's length when the shares began) settle. Once the shares begin a task's
 * rate is written only by its CPU's share, so theirs are final, and settling them
 * while the shares' tasks are in the cache saves the miss on each task's line
 * that the settling at the recompute's end took (1.2 M of the 2.1 M settled in
 * the hour's first virtual minute). The tasks listed before the shares (rates
 * taken by a dequeue) wait for the end: their CPU's share may give one back, and
 * a task that comes back to the rate and CPU it accrues at must not settle (its
 * stretch would be rounded in two).
 *
 * The list, the instant and the idle time lost are locals: the stores to a
 * task's line (int64_t, a byte) may alias the list's length and s->now, which
 * were loaded again at each task. */
void sim_cpu_settle_shared(struct sim *s, struct cpu_state *st, size_t n0)
{
	const int *l = st->touched + n0, *e = st->touched + st->ntouched;
	sim_time now = s->now;
	int64_t ran = 0;

	for (; l < e; l++) {
		struct cpu_task *x = &st->tk[*l];

		x->touched = 0;
		ran += cpu_task_settle(s, st, x, *l, now);
	}
	st->ntouched = n0;
	s->idle_ns -= ran;
}

void sim_cpu_task_exited(struct sim *s, struct sim_task *t)
{
	struct cpu_state *st = s->cpu_state;

	if (st && t->idx < st->ntk)
		st->tk[t->idx].dead = 1;
}

void sim_cpu_accrue(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t c, i;

	/* a task that starts accruing later in this instant starts from now */
	if (!st || st->settled_at == s->now)
		return;
	st->settled_at = s->now;
	/* every task with a rate is in its CPU's list (maybe in an older one too:
	 * settling twice adds nothing) */
	for (c = 0; c < st->ccpu; c++)
		for (i = 0; i < st->runs[c].n; i++)
			task_settle(s, st, st->runs[c].k[i]);
}

void sim_cpu_settle(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t i;

	if (!st)
		return;
	sim_cpu_accrue(s);
	for (i = 0; i < st->npk; i++) {
		task_pass(s, st, st->pk[i]);
		st->tk[st->pk[i]].plisted = 0;
	}
	st->npk = 0;
	for (i = 0; i < st->ncgl; i++) {
		sim_cpu_cg_push(s, st->cgl[i]);
		st->cgl[i]->cg_listed = false;
	}
	st->ncgl = 0;
}

void sim_cpu_flush(struct sim *s)
{
	struct cpu_state *st = s->cpu_state;
	size_t i;

	sim_cpu_settle(s);
	for (i = 0; st && i < st->npl; i++) {
		flush_task(s, st->pl[i]);
		st->pl[i]->pend_listed = false;
	}
	if (st)
		st->npl = 0;
}

void sim_cpu_advance(struct sim *s, sim_time now)
{
	sim_time dt = now - s->cpu_last;

	if (dt <= 0)
		return;
	s->cpu_last = now;
	s->idle_ns += (int64_t)s->nr_cpus * dt; /* less what the tasks ran, as settled */
}
