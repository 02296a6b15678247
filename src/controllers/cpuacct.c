/* controllers/cpuacct.c — the cpuacct controller: CPU time used by the tasks of each
 * cgroup, per CPU, split into user and system time (docs/kernel/controllers.md §3).
 *
 * Model. Each cgroup keeps, per possible CPU, the user and system nanoseconds charged
 * to it or to any descendant: ucg_cpuacct_charge() adds to the cgroup and to
 * every ancestor up to the root (O(depth)), as the kernel's cpuacct_charge does, so a
 * read is O(nr_cpus) and removing a cgroup leaves its time in its ancestors.
 *
 *   usage[cpu]      = user[cpu] + sys[cpu]
 *   cpuacct.usage   = sum over cpus of usage[cpu]
 *   cpuacct.stat    = user/system in USER_HZ ticks (ns / 10^7), passed through the
 *                     kernel's cputime_adjust(): the pair is scaled to the usage and
 *                     never goes backwards (prev_utime/prev_stime)
 *
 * Writing 0 to cpuacct.usage clears this cgroup's own per-CPU counters only (not its
 * ancestors', not its children's); cpuacct.stat does not drop, because cputime_adjust
 * keeps the previous pair while the usage is below it. Any other value is EINVAL.
 *
 * Limits: the kernel counts user time at tick granularity and usage at every context
 * switch, so its usage and usage_user+usage_sys differ slightly; here they are equal.
 * nice time counts as user, irq and softirq time as system (the caller decides).
 */
#include "base/alloc.h"
#include "controllers/charge.h"
#include "engine/cgroup.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>

#define NSEC_PER_USER_HZ 10000000ull /* USER_HZ = 100 */

struct cpuacct_css {
	struct ucg_css css;
	unsigned nr_cpus;
	/* Per CPU, ns, this cgroup and its descendants; owned here, changed by
	 * ucg_cpuacct_charge() and the usage reset. */
	uint64_t *user, *sys;
	/* cputime_adjust()'s memory: the last user/system pair shown by cpuacct.stat. */
	uint64_t prev_utime, prev_stime;
};

static struct cpuacct_css *ca_of(struct ucg_css *css)
{
	return (struct cpuacct_css *)css;
}

/* ---- charge helpers --------------------------------------------------------------------- */

static void ca_charge(struct cpuacct_css *ca, unsigned cpu, uint64_t user_ns, uint64_t sys_ns)
{
	struct ucg_cgroup *cg;

	for (cg = ca->css.cgroup; cg; cg = cg->parent) {
		struct cpuacct_css *c = ca_of(cg->css[UCG_SS_cpuacct]);

		c->user[cpu] += user_ns;
		c->sys[cpu] += sys_ns;
	}
}

static uint64_t sum(const uint64_t *a, unsigned n)
{
	uint64_t s = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* The kernel's cputime_adjust() for this model, where the sample's user + system
 * equals its runtime: the shown pair follows the sample but never goes backwards, and
 * while the runtime is below the pair shown last (after a usage reset) it stays. */
static void cputime_adjust(struct cpuacct_css *ca, uint64_t utime, uint64_t stime,
			   uint64_t *ut, uint64_t *st)
{
	uint64_t rtime = utime + stime;

	if (ca->prev_stime + ca->prev_utime < rtime) {
		if (stime < ca->prev_stime)
			stime = ca->prev_stime;
		utime = rtime - stime;
		if (utime < ca->prev_utime) {
			utime = ca->prev_utime;
			stime = rtime - utime;
		}
		ca->prev_stime = stime;
		ca->prev_utime = utime;
	}
	*ut = ca->prev_utime;
	*st = ca->prev_stime;
}

/* ---- life cycle --------------------------------------------------------------------- */

static int cpuacct_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	struct cpuacct_css *ca = ca_of(css);

	ca->nr_cpus = css->cgroup->h->e->cfg.nr_cpus;
	ca->user = ucg_calloc(2 * (size_t)ca->nr_cpus, sizeof(uint64_t));
	if (!ca->user)
		return -ENOMEM;
	ca->sys = ca->user + ca->nr_cpus;
	return 0;
}

static void cpuacct_css_free(struct ucg_css *css)
{
	ucg_free(ca_of(css)->user);
}

/* ---- files ----------------------------------------------------------------------------- */

int ucg_cpuacct_get(const struct ucg_cgroup *cg, struct ucg_cpuacct_usage *ret)
{
	const struct cpuacct_css *ca;

	if (!cg->css[UCG_SS_cpuacct])
		return -EINVAL;
	ca = ca_of(cg->css[UCG_SS_cpuacct]);
	ret->user_ns = sum(ca->user, ca->nr_cpus);
	ret->sys_ns = sum(ca->sys, ca->nr_cpus);
	return 0;
}

static uint64_t usage_read(struct ucg_of *of)
{
	struct ucg_cpuacct_usage u;

	ucg_cpuacct_get(of->cg, &u);
	return u.user_ns + u.sys_ns;
}

static int usage_write(struct ucg_of *of, uint64_t v)
{
	struct cpuacct_css *ca = ca_of(of->css);
	unsigned i;

	if (v)
		return -EINVAL;
	for (i = 0; i < ca->nr_cpus; i++)
		ca->user[i] = ca->sys[i] = 0;
	return 0;
}

static uint64_t usage_user_read(struct ucg_of *of)
{
	struct ucg_cpuacct_usage u;

	ucg_cpuacct_get(of->cg, &u);
	return u.user_ns;
}

static uint64_t usage_sys_read(struct ucg_of *of)
{
	struct ucg_cpuacct_usage u;

	ucg_cpuacct_get(of->cg, &u);
	return u.sys_ns;
}

enum { PERCPU_ALL, PERCPU_USER, PERCPU_SYS };

static int percpu_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct cpuacct_css *ca = ca_of(of->css);
	unsigned i;

	for (i = 0; i < ca->nr_cpus; i++) {
		uint64_t v = of->cft->private == PERCPU_USER ? ca->user[i]
			     : of->cft->private == PERCPU_SYS ? ca->sys[i]
							      : ca->user[i] + ca->sys[i];

		ucg_buf_printf(out, "%llu ", (unsigned long long)v);
	}
	ucg_buf_putc(out, '\n');
	return 0;
}

static int all_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct cpuacct_css *ca = ca_of(of->css);
	unsigned i;

	ucg_buf_puts(out, "cpu user system\n");
	for (i = 0; i < ca->nr_cpus; i++)
		ucg_buf_printf(out, "%u %llu %llu\n", i, (unsigned long long)ca->user[i],
			       (unsigned long long)ca->sys[i]);
	return 0;
}

static int stat_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct cpuacct_css *ca = ca_of(of->css);
	uint64_t u = sum(ca->user, ca->nr_cpus), s = sum(ca->sys, ca->nr_cpus), ut, st;

	cputime_adjust(ca, u, s, &ut, &st);
	ucg_buf_printf(out, "user %llu\nsystem %llu\n", (unsigned long long)(ut / NSEC_PER_USER_HZ),
		       (unsigned long long)(st / NSEC_PER_USER_HZ));
	return 0;
}

/* ---- public calls (charge.h) ------------------------------------------------------ */

int ucg_cpuacct_charge(struct ucg_cgroup *cg, unsigned cpu, uint64_t user_ns, uint64_t sys_ns)
{
	if (!cg)
		return 0;
	if (!cg->css[UCG_SS_cpuacct] || cpu >= cg->h->e->cfg.nr_cpus)
		return -EINVAL;
	ca_charge(ca_of(cg->css[UCG_SS_cpuacct]), cpu, user_ns, sys_ns);
	return 0;
}

static const struct ucg_cftype cpuacct_files[] = {
	{ .name = "usage", .mode = 0644, .read_u64 = usage_read, .write_u64 = usage_write },
	{ .name = "usage_user", .mode = 0444, .read_u64 = usage_user_read },
	{ .name = "usage_sys", .mode = 0444, .read_u64 = usage_sys_read },
	{ .name = "usage_percpu", .mode = 0444, .show = percpu_show, .private = PERCPU_ALL },
	{ .name = "usage_percpu_user", .mode = 0444, .show = percpu_show,
	  .private = PERCPU_USER },
	{ .name = "usage_percpu_sys", .mode = 0444, .show = percpu_show, .private = PERCPU_SYS },
	{ .name = "usage_all", .mode = 0444, .show = all_show },
	{ .name = "stat", .mode = 0444, .show = stat_show },
	{ 0 },
};

const struct ucg_subsys ucg_cpuacct_subsys = {
	.name = "cpuacct",
	.id = UCG_SS_cpuacct,
	.css_size = sizeof(struct cpuacct_css),
	.css_alloc = cpuacct_css_alloc,
	.css_free = cpuacct_css_free,
	.files = cpuacct_files,
};
