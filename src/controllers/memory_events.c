/* controllers/memory_events.c — the memory controller's notifications: usage
 * thresholds, memory.oom_control and memory.pressure_level (cgroup.event_control).
 *
 * Model (engine/event.c holds the registrations and signals them): usage thresholds on
 * memory.usage_in_bytes and memory.memsw.usage_in_bytes fire when usage crosses them
 * either way, in the charged cgroup and its ancestors, checked as memcg1_check_events
 * does: when the charged (or uncharged) cgroup's page events pass a target that then
 * moves 128 events on (one CPU's counter). memory.oom_control fires on every refused
 * charge in the refusing cgroup and its descendants (and at registration if
 * under_oom is set). memory.pressure_level follows vmpressure: each reclaim round
 * reports (pages scanned, pages reclaimed) for its target (the limit's cgroup; the
 * root for global reclaim), windows of 512 scanned are rated low / medium (60%) /
 * critical (95% not reclaimed), and a round that fell short adds the critical
 * windows of vmpressure_prio(). Here only clean cache is reclaimed (every page
 * scanned is freed); the simulator reports its own LRU scan
 * (ucg_memory_vmpressure). Levels and modes (default, hierarchy, local) follow
 * vmpressure_event(); the kernel's work item is run at once.
 */
#include "controllers/memory_impl.h"

#include "base/kctype.h"
#include "base/memparse.h"
#include "engine/event.h"
#include "engine/hierarchy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int memcg_oom_control_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct memcg *m = css_memcg(of->css);

	ucg_buf_printf(out, "oom_kill_disable %d\nunder_oom %d\noom_kill %" PRIu64 "\n",
		       m->oom_kill_disable, m->under_oom, m->oom_kill);
	return 0;
}

int memcg_oom_control_write(struct ucg_of *of, uint64_t v)
{
	struct memcg *m = css_memcg(of->css);

	if (!m->parent || v > 1)
		return -EINVAL;
	m->oom_kill_disable = (int)v;
	if (!v)
		m->under_oom = 0; /* waiters are woken and go to the OOM killer */
	return 0;
}

#define REG_EACH(reg, cg) for ((reg) = (cg)->events; (reg); (reg) = (reg)->cg_next)

/* Usage changed in m: every threshold of m and its ancestors that usage crossed,
 * upward or downward since the last check, signals once (reg->state: usage was at or
 * above the threshold). */
static void memcg_event_usage(struct memcg *m)
{
	struct ucg_event_reg *reg;
	struct memcg *it;

	if (!m->css.cgroup->h->e->nr_event_regs)
		return;
	for (it = m; it; it = it->parent) {
		REG_EACH(reg, it->css.cgroup) {
			int above;

			if (reg->cft->register_event != memcg_usage_register)
				continue;
			above = reg->value <= memcg_counter(it, reg->cft->private)->usage;
			if (above != reg->state) {
				reg->state = above;
				ucg_event_signal(reg, 1);
			}
		}
	}
}

/* The kernel's mem_cgroup_oom_notify(): over and every cgroup below it. */
void memcg_event_oom(struct memcg *over)
{
	struct ucg_cgroup *top = over->css.cgroup, *cg;
	struct ucg_event_reg *reg;

	if (!top->h->e->nr_event_regs)
		return;
	for (cg = top; cg; cg = memcg_preorder_next(cg, top))
		REG_EACH(reg, cg)
			if (reg->cft->register_event == memcg_oom_register)
				ucg_event_signal(reg, 1);
}

enum { MODE_DEFAULT, MODE_HIERARCHY, MODE_LOCAL };

/* vmpressure's walk: from m up; a registration hears levels at or above its own;
 * "local" ones only for their own cgroup, "default" ones only while nothing below
 * has been signalled, "hierarchy" ones always. */
static void memcg_event_pressure(struct memcg *m, int level)
{
	struct ucg_event_reg *reg;
	int ancestor = 0, signalled = 0;
	struct memcg *it;

	if (!m->css.cgroup->h->e->nr_event_regs)
		return;
	for (it = m; it; it = it->parent) {
		int any = 0;

		REG_EACH(reg, it->css.cgroup) {
			if (reg->cft->register_event != memcg_pressure_register || level < reg->level)
				continue;
			if ((ancestor && reg->mode == MODE_LOCAL) ||
			    (signalled && reg->mode == MODE_DEFAULT))
				continue;
			ucg_event_signal(reg, 1);
			any = 1;
		}
		signalled |= any;
		ancestor = 1;
	}
}

/* The kernel's memcg1_check_events(): thresholds are looked at only when the charged
 * (or uncharged) cgroup's page events pass a target, which then moves 128 events on
 * (THRESHOLDS_EVENTS_TARGET; "(long)(next - val) < 0": the check after one at v
 * comes at v + 129). The first event of a new cgroup checks (targets start at 0). */
#define THRESHOLDS_EVENTS_TARGET 128
void memcg_check_events(struct memcg *m, uint64_t pages)
{
	m->nr_page_events += pages;
	if ((int64_t)(m->thresh_next - m->nr_page_events) >= 0)
		return;
	m->thresh_next = m->nr_page_events + THRESHOLDS_EVENTS_TARGET;
	memcg_event_usage(m);
}

/* vmpressure (mm/vmpressure.c): a window of 512 pages scanned (SWAP_CLUSTER_MAX * 16)
 * is rated 100 * (1 - reclaimed / scanned), in the kernel's integer steps: low below
 * 60, medium below 95, critical from 95. */
#define VMPRESSURE_WIN 512
#define VMPRESSURE_CRITICAL_PRIO 3 /* ilog2(100 / 10) */
static int vmpressure_level(uint64_t scanned, uint64_t reclaimed)
{
	uint64_t scale = scanned + reclaimed, pressure = 0;

	if (reclaimed < scanned) {
		pressure = scale - reclaimed * scale / scanned;
		pressure = pressure * 100 / scale;
	}
	if (pressure >= 95)
		return PRESSURE_CRITICAL;
	if (pressure >= 60)
		return PRESSURE_MEDIUM;
	return PRESSURE_LOW;
}

/* vmpressure(tree = true) plus its work item, run at once: v1 only hears the
 * reclaim target's subtree figures. Nothing scanned says nothing ("keep calm"). */
void memcg_vmpressure(struct memcg *m, uint64_t scanned, uint64_t reclaimed)
{
	if (!scanned)
		return;
	m->vmp_scanned += scanned;
	m->vmp_reclaimed += reclaimed;
	if (m->vmp_scanned < VMPRESSURE_WIN)
		return;
	scanned = m->vmp_scanned;
	reclaimed = m->vmp_reclaimed;
	m->vmp_scanned = m->vmp_reclaimed = 0;
	memcg_event_pressure(m, vmpressure_level(scanned, reclaimed));
}

/* vmpressure_prio(): a reclaim that fell short went through priorities 3..0, each
 * adding a window of nothing reclaimed; the kernel's work item (queued once) sees
 * them together, so they are added at once and rated once. */
void memcg_vmpressure_prio(struct memcg *m)
{
	memcg_vmpressure(m, (VMPRESSURE_CRITICAL_PRIO + 1) * VMPRESSURE_WIN, 0);
}

/* page_counter_memparse(args, "-1"): "-1" is no limit, else memparse with nothing
 * around it (a space after the cfd's separator is EINVAL; "" is 0). Pages. */
int memcg_usage_register(struct ucg_of *of, struct ucg_event_reg *reg, const char *args)
{
	struct memcg *m = css_memcg(of->css);
	size_t len = strlen(args);
	uint64_t bytes;

	if (len && ucg_kisspace((unsigned char)args[0]))
		return -EINVAL;
	if (ucg_parse_mem(args, len, &bytes, NULL) < 0)
		return -EINVAL;
	reg->value = ucg_mem_to_units(bytes, UCG_PAGE_SIZE, UCG_PAGE_COUNTER_MAX);
	/* No signal now: the kernel starts a new threshold on the side usage is on. */
	reg->state = reg->value <= memcg_counter(m, of->cft->private)->usage;
	return 0;
}

/* oom_control ignores its args; a cgroup already under OOM signals at once. */
int memcg_oom_register(struct ucg_of *of, struct ucg_event_reg *reg, const char *args)
{
	(void)args;
	if (css_memcg(of->css)->under_oom)
		ucg_event_signal(reg, 1);
	return 0;
}

/* "<level>[,<mode>[,ignored]]", exact names; the kernel reads at most 19 bytes. */
int memcg_pressure_register(struct ucg_of *of, struct ucg_event_reg *reg, const char *args)
{
	static const char *const levels[] = { "low", "medium", "critical" };
	static const char *const modes[] = { "default", "hierarchy", "local" };
	char spec[20], *mode;
	size_t i;

	(void)of;
	snprintf(spec, sizeof(spec), "%s", args);
	mode = strchr(spec, ',');
	if (mode) {
		*mode++ = '\0';
		if (strchr(mode, ','))
			*strchr(mode, ',') = '\0';
	}
	reg->level = -1;
	for (i = 0; i < 3; i++)
		if (!strcmp(spec, levels[i]))
			reg->level = (int)i;
	if (reg->level < 0)
		return -EINVAL;
	reg->mode = MODE_DEFAULT;
	if (mode) {
		reg->mode = -1;
		for (i = 0; i < 3; i++)
			if (!strcmp(mode, modes[i]))
				reg->mode = (int)i;
		if (reg->mode < 0)
			return -EINVAL;
	}
	return 0;
}
