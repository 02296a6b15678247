/* host/v2obs.c — v1 changes carried to the v2 subtree (see v2obs.h).
 *
 * Per cgroup the observer hangs a struct ucg_v1v2_state (the v1 values that other
 * files' translations need) off the engine's cgroup slot. A process's leaf is found
 * from its cgroups in the enforced hierarchies (ucg_task_cgroup_get), so nothing of
 * the membership is kept here: the engine and the kernel hold it.
 */
#include "host/v2obs.h"

#include "base/alloc.h"
#include "engine/subsys.h"
#include "host/v1v2.h"
#include "host/v2stat.h"
#include "host/v2sum.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* the layout's slots, priority order */
enum {
	SL_MEMORY,
	SL_PIDS,
	SL_IO,
	SL_CPU,
	SL_CPUSET,
	SL_HUGETLB,
	SL_FREEZER,
	SL_DEVICES,
	SL_NET_CLS,
	NR_SLOTS
};

static const struct {
	const char *name; /* in the layout's .ucg.NAME: levels */
	int ss;           /* the v1 controller */
	int v2;           /* the v2 controller, -1: none needed */
} slot[NR_SLOTS] = {
	[SL_MEMORY] = { "memory", UCG_SS_memory, UCG_V2_MEMORY },
	[SL_PIDS] = { "pids", UCG_SS_pids, UCG_V2_PIDS },
	[SL_IO] = { "io", UCG_SS_blkio, UCG_V2_IO },
	[SL_CPU] = { "cpu", UCG_SS_cpu, UCG_V2_CPU },
	[SL_CPUSET] = { "cpuset", UCG_SS_cpuset, UCG_V2_CPUSET },
	[SL_HUGETLB] = { "hugetlb", UCG_SS_hugetlb, UCG_V2_HUGETLB },
	[SL_FREEZER] = { "freezer", UCG_SS_freezer, -1 },
	/* a leaf holds one devices and one net_cls cgroup: its BPF programs' (bpf_obs.h) */
	[SL_DEVICES] = { "devices", UCG_SS_devices, -1 },
	[SL_NET_CLS] = { "net_cls", UCG_SS_net_cls, -1 },
};

struct freezing {
	int tid;
	char leaf[256];
};

struct ucg_v2obs {
	struct ucg_engine *e;
	struct ucg_cgv2 *b;
	int id;
	ucg_v2obs_log_fn log;
	void *logctx;
	struct freezing *fz; /* tasks asked to stop, not yet reported */
	size_t nfz, capfz;
	unsigned logged_missing; /* v2 controllers whose absence was logged */
	unsigned gone; /* v2 controllers that left the subtree while we ran (policy since) */
	unsigned long attaches, writes, refusals, skipped, restored, undone;
	unsigned long summed; /* an inner hierarchy's statistics read summed over leaves */
	int restoring; /* ucg_v2obs_restore: attaches mirror the kernel, write nothing */
	/* What can_write changed, until the engine commits the write (file_written) or
	 * refuses it (cancel_write): the v2 files' previous values, in write order, and the
	 * cgroup's translation state before. Writes come one at a time under the engine's
	 * lock, so one record does. */
	struct {
		struct ucg_cgroup *cg; /* NULL: nothing pending */
		struct ucg_v1v2_state st;
		int n;
		struct ucg_v2_set old[UCG_V2_SET_MAX];
		unsigned char written[UCG_V2_SET_MAX]; /* read, then written: to put back */
		char rel[PATH_MAX];
	} undo;
};

static void logf_(struct ucg_v2obs *o, const char *fmt, const char *a, const char *b, int err)
{
	char line[512];

	if (!o->log)
		return;
	snprintf(line, sizeof(line), fmt, a, b, err ? strerror(-err) : "");
	o->log(o->logctx, line);
}

/* the hierarchy of slot s if it is enforced, else NULL */
static struct ucg_hierarchy *slot_hier(struct ucg_v2obs *o, int s)
{
	struct ucg_hierarchy *h;

	if (slot[s].v2 >= 0 && !(ucg_cgv2_controllers(o->b) & (1u << slot[s].v2)))
		return NULL;
	for (h = ucg_hierarchy_next(o->e, NULL); h; h = ucg_hierarchy_next(o->e, h))
		if (ucg_hierarchy_subsys_mask(h) & (1u << slot[s].ss))
			return h;
	return NULL;
}

static int cg_path(const struct ucg_cgroup *cg, char *out, size_t size)
{
	struct ucg_buf b;
	int e;

	ucg_buf_init(&b);
	e = ucg_cgroup_path(cg, &b);
	if (e == 0 && (!b.data || b.len >= size))
		e = -ENAMETOOLONG;
	if (e == 0)
		memcpy(out, b.data, b.len + 1);
	ucg_buf_fini(&b);
	return e;
}

/* tid's leaf; in hierarchy `to`'s hierarchy, `to` instead of its cgroup there */
static int leaf_of(struct ucg_v2obs *o, int tid, const struct ucg_cgroup *to, char *out,
		   size_t size)
{
	char paths[NR_SLOTS][PATH_MAX];
	const char *names[NR_SLOTS], *p[NR_SLOTS];
	int s, e;

	for (s = 0; s < NR_SLOTS; s++) {
		struct ucg_hierarchy *h = slot_hier(o, s);
		struct ucg_cgroup *cg;

		names[s] = slot[s].name;
		p[s] = NULL;
		if (!h)
			continue;
		if (to && ucg_cgroup_hierarchy(to) == h) {
			cg = (struct ucg_cgroup *)to;
		} else {
			e = ucg_task_cgroup_get(o->e, tid, h, &cg);
			if (e < 0)
				return e;
		}
		e = cg_path(cg, paths[s], sizeof(paths[s]));
		if (e < 0)
			return e;
		p[s] = paths[s];
	}
	e = ucg_cgv2_leaf_path(names, p, NR_SLOTS, out, size);
	return e < 0 ? e : 0;
}

int ucg_v2obs_leaf(struct ucg_v2obs *o, int tid, const struct ucg_cgroup *to, char *out,
		   size_t size)
{
	return leaf_of(o, tid, to, out, size);
}

/* is hierarchy h one whose membership the layout follows? */
static int enforced_hier(struct ucg_v2obs *o, const struct ucg_hierarchy *h)
{
	int s;

	for (s = 0; s < NR_SLOTS; s++)
		if (slot_hier(o, s) == h)
			return 1;
	return 0;
}

static int can_attach(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n)
{
	struct ucg_v2obs *o = ctx;
	char leaf[PATH_MAX];
	size_t i, j;
	int e;

	if (!enforced_hier(o, ucg_cgroup_hierarchy(to)))
		return 0;
	for (i = 0; i < n; i++) {
		struct ucg_task_info ti;
		int dup = 0;

		if (ucg_task_get_info(o->e, tids[i], &ti) < 0 || (ti.flags & UCG_TASK_KTHREAD))
			continue;
		if (ti.tgid == getpid() || o->restoring)
			continue; /* never the daemon (it must not freeze itself); see restore */
		for (j = 0; j < i && !dup; j++) {
			struct ucg_task_info tj;

			dup = ucg_task_get_info(o->e, tids[j], &tj) == 0 && tj.tgid == ti.tgid;
		}
		if (dup)
			continue;
		e = leaf_of(o, ti.tid, to, leaf, sizeof(leaf));
		if (e == 0)
			e = ucg_cgv2_attach(o->b, leaf, ti.tgid);
		if (e < 0) {
			char pid[16];

			snprintf(pid, sizeof(pid), "%d", ti.tgid);
			o->refusals++;
			logf_(o, "enforce: moving %s to %s refused: %s", pid, leaf, e);
			return e;
		}
		o->attaches++;
	}
	return 0;
}

static struct ucg_v1v2_state *state_of(struct ucg_v2obs *o, struct ucg_cgroup *cg)
{
	struct ucg_v1v2_state *st = ucg_cgroup_priv(cg, o->id);

	if (st)
		return st;
	st = ucg_malloc(sizeof(*st));
	if (!st)
		return NULL;
	ucg_v1v2_state_init(st);
	if (ucg_cgroup_set_priv(cg, o->id, st) < 0) {
		ucg_free(st);
		return NULL;
	}
	return st;
}

/* the v2 controller a v2 file belongs to (-1: core file, always there) */
static int v2_ctrl_of(const char *file)
{
	int i;

	for (i = 0; i < UCG_V2_NR_CTRL; i++) {
		size_t len = strlen(ucg_v2_ctrl_name[i]);

		if (!strncmp(file, ucg_v2_ctrl_name[i], len) && file[len] == '.')
			return i;
	}
	return -1;
}

/* Reads what set's v2 file holds before it is written and keeps the value that puts
 * it back (ucg_v2_undo_value). An absent file is left to the write's own ENOENT;
 * nothing to undo is no error. */
static int save_old(struct ucg_v2obs *o, const char *rel, const struct ucg_v2_set *set)
{
	struct ucg_v2_set *u = &o->undo.old[o->undo.n];
	struct ucg_buf old;
	int e;

	ucg_buf_init(&old);
	e = ucg_cgv2_read(o->b, rel, set->file, &old);
	if (e == 0) {
		e = ucg_v2_undo_value(set, old.data ? old.data : "", u->value, sizeof(u->value));
		if (e == 0) {
			memcpy(u->file, set->file, sizeof(u->file));
			o->undo.written[o->undo.n++] = 0;
		}
		e = e == -ENOENT ? 0 : e;
	} else if (e == -ENOENT) {
		e = 0;
	}
	ucg_buf_fini(&old);
	return e;
}

/* Puts back, last first, the v2 files the pending write changed. */
static void undo_writes(struct ucg_v2obs *o, const char *rel)
{
	while (o->undo.n > 0) {
		struct ucg_v2_set *u = &o->undo.old[--o->undo.n];
		int e;

		if (!o->undo.written[o->undo.n])
			continue; /* read, never written */
		e = ucg_cgv2_write(o->b, rel, u->file, u->value);
		if (e < 0)
			logf_(o, "enforce: %s could not be put back (%s%s)", u->file, u->value, e);
		else
			o->undone++;
	}
}

static int can_write(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
		     size_t len)
{
	struct ucg_v2obs *o = ctx;
	struct ucg_v2_set set[UCG_V2_SET_MAX];
	struct ucg_v1v2_state *st, trial;
	char rel[PATH_MAX];
	int n, i, e;

	o->undo.cg = NULL;
	o->undo.n = 0;
	if (!strcmp(file, "freezer.state") || !ucg_cgroup_parent(cg))
		return 0; /* the freezer goes through freeze_task; roots hold no limits */
	st = state_of(o, cg);
	if (!st)
		return -ENOMEM;
	trial = *st;
	n = ucg_v1v2_translate(&trial, file, buf, len, set);
	if (n <= 0)
		return 0; /* policy only, or text the engine refuses itself */
	if (!strcmp(file, "memory.limit_in_bytes") || !strcmp(file, "memory.memsw.limit_in_bytes"))
		if (trial.memsw_limit < trial.mem_limit)
			return 0; /* v1 refuses the pair (EINVAL): leave v2 alone */
	e = cg_path(cg, rel, sizeof(rel));
	if (e < 0)
		return 0;
	for (i = 0; i < n; i++) {
		int c = v2_ctrl_of(set[i].file);

		if (c >= 0 && !(ucg_cgv2_controllers(o->b) & ~o->gone & (1u << c))) {
			if (!(o->logged_missing & (1u << c)))
				logf_(o,
				      "enforce: no v2 %s controller here: %s stays policy only%s",
				      ucg_v2_ctrl_name[c], file, 0);
			o->logged_missing |= 1u << c;
			o->skipped++;
			continue;
		}
		e = ucg_cgv2_mkdir(o->b, rel);
		if (e == 0)
			e = save_old(o, rel, &set[i]);
		if (e == 0)
			e = ucg_cgv2_write(o->b, rel, set[i].file, set[i].value);
		if (e == -ENOENT && set[i].optional)
			continue;
		if (e == -ENOENT && c >= 0) {
			/* The controller's files are gone: disabled in subtree_control by
			 * hand, or no longer delegated to us. Policy from now on, as if it had
			 * never been there; the v1 write stands. */
			o->gone |= 1u << c;
			o->logged_missing |= 1u << c;
			o->skipped++;
			logf_(o,
			      "enforce: the v2 %s controller left the subtree: %s stays policy "
			      "only%s",
			      ucg_v2_ctrl_name[c], file, 0);
			continue;
		}
		if (e < 0) {
			o->refusals++;
			logf_(o, "enforce: %s refused by the kernel (%s%s)", set[i].file,
			      set[i].value, 0);
			undo_writes(o, rel); /* the pair's first file, when its second fails */
			return e;
		}
		if (o->undo.n && !strcmp(o->undo.old[o->undo.n - 1].file, set[i].file))
			o->undo.written[o->undo.n - 1] = 1;
		o->writes++;
	}
	o->undo.cg = cg;
	o->undo.st = *st;
	snprintf(o->undo.rel, sizeof(o->undo.rel), "%s", rel);
	*st = trial;
	return 0;
}

/* A write the engine refused after can_write accepted it: the v2 files and the
 * translation state go back to what they were. */
static void cancel_write(void *ctx, struct ucg_cgroup *cg, const char *file)
{
	struct ucg_v2obs *o = ctx;
	struct ucg_v1v2_state *st;

	(void)file;
	if (o->undo.cg != cg)
		return; /* can_write changed nothing (policy only, a root, the freezer) */
	undo_writes(o, o->undo.rel);
	st = ucg_cgroup_priv(cg, o->id);
	if (st)
		*st = o->undo.st;
	o->undo.cg = NULL;
}

static void file_written(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
			 size_t len)
{
	struct ucg_v2obs *o = ctx;

	(void)cg;
	(void)file;
	(void)buf;
	(void)len;
	o->undo.cg = NULL; /* committed */
	o->undo.n = 0;
}

static void cgroup_created(void *ctx, struct ucg_cgroup *cg)
{
	struct ucg_v2obs *o = ctx;
	char rel[PATH_MAX];

	if (enforced_hier(o, ucg_cgroup_hierarchy(cg)) && cg_path(cg, rel, sizeof(rel)) == 0)
		ucg_cgv2_mkdir(o->b, rel);
}

static void cgroup_removed(void *ctx, struct ucg_cgroup *cg)
{
	struct ucg_v2obs *o = ctx;
	char rel[PATH_MAX], leaf[PATH_MAX + 8];
	int e;

	ucg_free(ucg_cgroup_priv(cg, o->id));
	ucg_cgroup_set_priv(cg, o->id, NULL);
	if (!enforced_hier(o, ucg_cgroup_hierarchy(cg)) || cg_path(cg, rel, sizeof(rel)) < 0)
		return;
	/* its own processes' leaf first, then the mirror (another hierarchy's cgroup of
	 * the same path may still use it: then the kernel says EBUSY and it stays) */
	snprintf(leaf, sizeof(leaf), "%s/" UCG_V2_LEAF, rel);
	ucg_cgv2_remove(o->b, leaf);
	e = ucg_cgv2_remove(o->b, rel);
	if (e < 0 && e != -ENOENT && e != -EBUSY)
		logf_(o, "enforce: rmdir %s: %s%s", rel, "", e);
}

static void hierarchy_unmounted(void *ctx, struct ucg_hierarchy *h, int destroying)
{
	(void)ctx;
	(void)h;
	(void)destroying; /* the cgroups' states go with cgroup_removed of each */
}

static const struct ucg_observer_ops ops = {
	.can_attach = can_attach,
	.can_write = can_write,
	.cancel_write = cancel_write,
	.file_written = file_written,
	.cgroup_created = cgroup_created,
	.cgroup_removed = cgroup_removed,
	.hierarchy_unmounted = hierarchy_unmounted,
};

int ucg_v2obs_new(struct ucg_engine *e, struct ucg_cgv2 *b, ucg_v2obs_log_fn log, void *logctx,
		  struct ucg_v2obs **ret)
{
	struct ucg_v2obs *o = ucg_calloc(1, sizeof(*o));
	int id;

	if (!o)
		return -ENOMEM;
	o->e = e;
	o->b = b;
	o->log = log;
	o->logctx = logctx;
	id = ucg_observer_add(e, &ops, o);
	if (id < 0) {
		ucg_free(o);
		return id;
	}
	o->id = id;
	*ret = o;
	return 0;
}

static void free_states(struct ucg_v2obs *o, struct ucg_cgroup *cg)
{
	struct ucg_cgroup *c = NULL;

	ucg_free(ucg_cgroup_priv(cg, o->id));
	while ((c = ucg_cgroup_next_child(cg, c)))
		free_states(o, c);
}

void ucg_v2obs_free(struct ucg_v2obs *o)
{
	struct ucg_hierarchy *h;

	if (!o)
		return;
	for (h = ucg_hierarchy_next(o->e, NULL); h; h = ucg_hierarchy_next(o->e, h))
		free_states(o, ucg_hierarchy_root(h));
	ucg_observer_remove(o->e, o->id);
	ucg_free(o->fz);
	ucg_free(o);
}

/* is tid (its process) in the v2 leaf rel? from /proc/TID/cgroup's 0:: line */
static int in_leaf(struct ucg_v2obs *o, int tid, const char *rel)
{
	char file[64], line[PATH_MAX + 8], want[PATH_MAX * 2];
	const char *root = ucg_cgv2_root(o->b);
	FILE *f;
	int found = 0;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", tid);
	f = fopen(file, "re");
	if (!f)
		return 0;
	/* the 0:: path is relative to the cgroup2 mount; compare the tail */
	snprintf(want, sizeof(want), "%s%s", strrchr(root, '/'), rel);
	while (fgets(line, sizeof(line), f)) {
		size_t ll, wl = strlen(want);

		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		ll = strlen(line);
		found = ll >= wl && !strcmp(line + ll - wl, want);
	}
	fclose(f);
	return found;
}

int ucg_v2obs_freeze_task(struct ucg_v2obs *o, int tid, int freeze)
{
	char leaf[PATH_MAX];
	size_t i;
	int e = leaf_of(o, tid, NULL, leaf, sizeof(leaf));

	if (e < 0 || strlen(leaf) >= sizeof(o->fz[0].leaf) || !in_leaf(o, tid, leaf) ||
	    tid == getpid())
		return -ENOENT;
	e = ucg_cgv2_freeze(o->b, leaf, freeze);
	if (e < 0)
		return -ENOENT;
	for (i = 0; i < o->nfz; i++)
		if (o->fz[i].tid == tid)
			break;
	if (!freeze) {
		if (i < o->nfz)
			o->fz[i] = o->fz[--o->nfz];
		return 0;
	}
	if (i == o->nfz) {
		if (o->nfz == o->capfz) {
			size_t cap = o->capfz ? o->capfz * 2 : 16;
			struct freezing *v = ucg_realloc(o->fz, cap * sizeof(*v));

			if (!v)
				return -ENOENT;
			o->fz = v;
			o->capfz = cap;
		}
		o->nfz++;
	}
	o->fz[i].tid = tid;
	snprintf(o->fz[i].leaf, sizeof(o->fz[i].leaf), "%s", leaf);
	return 0;
}

int ucg_v2obs_poll(struct ucg_v2obs *o)
{
	size_t i = 0;

	while (i < o->nfz) {
		struct ucg_buf ev;
		const char *p;
		int frozen = 0, gone;

		ucg_buf_init(&ev);
		gone = ucg_cgv2_read(o->b, o->fz[i].leaf, "cgroup.events", &ev) < 0;
		p = ev.data ? strstr(ev.data, "frozen ") : NULL;
		frozen = p && p[7] == '1';
		ucg_buf_fini(&ev);
		if (frozen)
			ucg_freezer_task_stopped(o->e, o->fz[i].tid, 1);
		if (frozen || gone)
			o->fz[i] = o->fz[--o->nfz];
		else
			i++;
	}
	return o->nfz > 0;
}

/* Slot index of a layout name ("pids"), -1 if none. */
static int slot_named(const char *name, size_t len)
{
	int s;

	for (s = 0; s < NR_SLOTS; s++)
		if (strlen(slot[s].name) == len && !strncmp(slot[s].name, name, len))
			return s;
	return -1;
}

/* Decodes a leaf ("/a/.ucg.pids:b:c/.ucg") into each slot's v1 path. 0 or -EINVAL. */
static int leaf_decode(const char *rel, char paths[NR_SLOTS][PATH_MAX])
{
	const char *lvl = strstr(rel, "/" UCG_V2_LEAF);
	char outer[PATH_MAX];
	int s;

	if (!lvl || (size_t)(lvl - rel) >= sizeof(outer))
		return -EINVAL;
	snprintf(outer, sizeof(outer), "%.*s", (int)(lvl - rel), rel);
	if (!outer[0])
		strcpy(outer, "/");
	for (s = 0; s < NR_SLOTS; s++)
		strcpy(paths[s], outer);
	while (lvl && !strncmp(lvl, "/" UCG_V2_LEAF ".", strlen(UCG_V2_LEAF) + 2)) {
		const char *name = lvl + strlen(UCG_V2_LEAF) + 2, *colon = strchr(name, ':');
		const char *end = strchr(name, '/');
		size_t i, n = 0;

		if (!colon || !end || colon > end)
			return -EINVAL;
		s = slot_named(name, (size_t)(colon - name));
		if (s < 0)
			return -EINVAL;
		paths[s][n++] = '/';
		for (i = (size_t)(colon - name) + 1; name + i < end && n < PATH_MAX - 1; i++)
			paths[s][n++] = name[i] == ':' ? '/' : name[i];
		if (n > 1 && paths[s][n - 1] == '/')
			n--;
		paths[s][n] = '\0';
		lvl = end;
	}
	return 0;
}

struct ucg_hierarchy *ucg_v2obs_hierarchy(struct ucg_v2obs *o, int ss)
{
	int s;

	for (s = 0; s < NR_SLOTS; s++)
		if (slot[s].ss == ss)
			return slot_hier(o, s);
	return NULL;
}

int ucg_v2obs_leaf_paths(struct ucg_v2obs *o, const char *leaf, int ss, char *outer, char *in,
			 size_t size)
{
	char paths[NR_SLOTS][PATH_MAX];
	struct ucg_hierarchy *h = ucg_v2obs_hierarchy(o, ss);
	int s, first = -1, mine = -1;

	for (s = 0; s < NR_SLOTS; s++) {
		if (first < 0 && slot_hier(o, s))
			first = s;
		if (slot[s].ss == ss)
			mine = s;
	}
	if (!h || first < 0 || mine < 0 || slot_hier(o, first) == h)
		return -ENOENT;
	if (leaf_decode(leaf, paths) < 0)
		return -EINVAL;
	if (strlen(paths[first]) >= size || strlen(paths[mine]) >= size)
		return -ENAMETOOLONG;
	strcpy(outer, paths[first]);
	strcpy(in, paths[mine]);
	return 0;
}

static void restore_one(void *ctx, const char *rel, pid_t pid)
{
	struct ucg_v2obs *o = ctx;
	char now[PATH_MAX], paths[NR_SLOTS][PATH_MAX], file[PATH_MAX + 16];
	struct ucg_cred root = ucg_cred_root();
	int s;

	if (leaf_of(o, pid, NULL, now, sizeof(now)) == 0 && !strcmp(now, rel))
		return; /* the engine already has it there (the state file said so) */
	if (leaf_decode(rel, paths) < 0)
		return;
	for (s = 0; s < NR_SLOTS; s++) {
		struct ucg_hierarchy *h = slot_hier(o, s);
		char num[16];

		if (!h)
			continue;
		if (snprintf(file, sizeof(file), "%s/cgroup.procs",
			     strcmp(paths[s], "/") ? paths[s] : "") >= (int)sizeof(file))
			continue;
		snprintf(num, sizeof(num), "%d", (int)pid);
		if (ucg_fs_write_all(o->e, h, file, &root, num, strlen(num)) == 0)
			o->restored++;
	}
}

int ucg_v2obs_restore(struct ucg_v2obs *o)
{
	int n;

	o->restoring = 1;
	n = ucg_cgv2_scan(o->b, restore_one, o);
	o->restoring = 0;
	return n;
}

static int read_mirror(void *ctx, const char *file, struct ucg_buf *out)
{
	struct ucg_v2obs *o = ((void **)ctx)[0];

	return ucg_cgv2_read(o->b, ((void **)ctx)[1], file, out);
}

struct events_sum {
	struct ucg_v2obs *o;
	uint64_t max;
	int err;
};

static void add_leaf_events(void *ctx, const char *leaf)
{
	struct events_sum *sum = ctx;
	struct ucg_buf b;
	uint64_t max;
	int e;

	ucg_buf_init(&b);
	e = ucg_cgv2_read(sum->o->b, leaf, "pids.events", &b);
	if (e == 0 && b.data && ucg_v2_keyed(b.data, "max", &max) == 0)
		sum->max += max;
	else if (e < 0 && e != -ENOENT)
		sum->err = e;
	ucg_buf_fini(&b);
}

/* pids.events "max": v1 counts a refused fork in the forking task's own cgroup
 * (whichever ancestor's limit refused it), as Linux 6.1's v2 does in the task's own
 * leaf; the mirror holding the limit counts nothing there. So the v1 figure is the
 * sum over the cgroup's own leaves. (6.14's v2 counts at the limiting cgroup and
 * keeps pids.events.local; a leaf then reads 0 unless its own limit refused.) */
static int pids_events(struct ucg_v2obs *o, const char *rel, struct ucg_buf *out)
{
	struct events_sum sum = { .o = o };
	int n = ucg_cgv2_own_leaves(o->b, rel, add_leaf_events, &sum);

	if (n < 0 && n != -ENOENT)
		return n;
	if (sum.err)
		return sum.err;
	ucg_buf_printf(out, "max %llu\n", (unsigned long long)sum.max);
	return 0;
}

/* ---- an inner hierarchy's statistics ----------------------------------------------
 *
 * The mirror of an inner hierarchy's v1 cgroup P holds the processes whose *outer*
 * path is P. While no leaf is under one of (the mirror, the leaves of P's subtree)
 * and not the other, that is exactly P's processes, and P's statistics are the
 * mirror's, as for the outer hierarchy. Otherwise each file whose figures add up
 * (v2sum.h) is the sum over the leaves of P's subtree, empty ones too (a counter
 * keeps what exited processes did; so the check counts empty leaves, where v2split's
 * counts only populated ones); pids.events over P's own leaves (see pids_events); the
 * others are the engine's. cpu.stat's throttling keys add the mirror's own: while all
 * of P's processes sat under it, v2split left P's quota on the mirror, and the kernel
 * counted those periods there (a leaf under a throttled parent counts nothing).
 */
struct inner {
	struct ucg_v2obs *o;
	int outer, mine;  /* the layout's slots: the outer hierarchy's, P's */
	const char *path; /* P */
	int exact;
	const char *file; /* summing: the v2 file, the sum, leaves added, an error */
	int own;          /* summing over P's own leaves only, not its subtree's */
	struct ucg_buf *acc;
	size_t n;
	int err;
};

/* p is path or below it */
static int path_within(const char *p, const char *path)
{
	size_t n = strlen(path);

	return !strcmp(path, "/") || (!strncmp(p, path, n) && (p[n] == '\0' || p[n] == '/'));
}

static void inner_check(void *ctx, const char *leaf)
{
	struct inner *c = ctx;
	char paths[NR_SLOTS][PATH_MAX];

	if (c->exact && leaf_decode(leaf, paths) == 0 &&
	    path_within(paths[c->mine], c->path) != path_within(paths[c->outer], c->path))
		c->exact = 0;
}

/* The mirror's cpu.stat throttling keys into c->acc. */
static int add_mirror_throttling(struct inner *c)
{
	static const char *const keys[] = { "nr_periods", "nr_throttled", "throttled_usec",
					    "nr_bursts", "burst_usec" };
	struct ucg_buf b, part;
	uint64_t v;
	size_t i;
	int e;

	ucg_buf_init(&b);
	ucg_buf_init(&part);
	e = ucg_cgv2_read(c->o->b, c->path, "cpu.stat", &b);
	for (i = 0; e == 0 && b.data && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (ucg_v2_keyed(b.data, keys[i], &v) == 0)
			ucg_buf_printf(&part, "%s %llu\n", keys[i], (unsigned long long)v);
	if (e == 0 && part.data)
		e = ucg_v2sum_add("cpu.stat", part.data, c->acc);
	ucg_buf_fini(&part);
	ucg_buf_fini(&b);
	return e == -ENOENT ? 0 : e;
}

static void inner_add(void *ctx, const char *leaf)
{
	struct inner *c = ctx;
	char paths[NR_SLOTS][PATH_MAX];
	struct ucg_buf b;
	int e;

	if (c->err || leaf_decode(leaf, paths) < 0 ||
	    !(c->own ? !strcmp(paths[c->mine], c->path) : path_within(paths[c->mine], c->path)))
		return;
	ucg_buf_init(&b);
	e = ucg_cgv2_read(c->o->b, leaf, c->file, &b);
	if (e == 0)
		e = ucg_v2sum_add(c->file, b.data ? b.data : "", c->acc);
	if (e == 0)
		c->n++;
	else if (e != -ENOENT)
		c->err = e;
	ucg_buf_fini(&b);
}

/* ucg_v2stat_show's reader: file summed over the leaves; -ENOENT when it does not add
 * up or no leaf has it (the engine's figure then). */
static int read_sum(void *ctx, const char *file, struct ucg_buf *out)
{
	struct inner *c = ctx;
	struct ucg_buf acc;
	int e;

	if (!ucg_v2sum_additive(file))
		return -ENOENT;
	ucg_buf_init(&acc);
	c->file = file;
	c->acc = &acc;
	c->n = 0;
	c->err = 0;
	e = ucg_cgv2_leaves(c->o->b, inner_add, c);
	if (e >= 0)
		e = c->err ? c->err : c->n ? 0 : -ENOENT;
	if (e == 0 && !strcmp(file, "cpu.stat"))
		e = add_mirror_throttling(c);
	if (e == 0)
		ucg_buf_puts(out, acc.data ? acc.data : "");
	ucg_buf_fini(&acc);
	return e < 0 ? e : ucg_buf_error(out);
}

/* 1 when P's statistics are the sums (c->exact 0 after the check), 0: the mirror's. */
static int inner_summed(struct ucg_v2obs *o, int outer, int mine, const char *path, struct inner *c)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->outer = outer;
	c->mine = mine;
	c->path = path;
	c->exact = 1;
	if (ucg_cgv2_leaves(o->b, inner_check, c) < 0)
		c->exact = 0;
	return !c->exact;
}

int ucg_v2obs_show(struct ucg_v2obs *o, struct ucg_hierarchy *h, const char *path,
		   struct ucg_buf *out)
{
	static const struct {
		const char *prefix;
		int ss;
	} owner[] = {
		{ "memory.", UCG_SS_memory },   { "pids.", UCG_SS_pids },
		{ "cpuacct.", UCG_SS_cpuacct }, { "cpu.", UCG_SS_cpu },
		{ "blkio.", UCG_SS_blkio },     { "hugetlb.", UCG_SS_hugetlb },
		{ "cpuset.", UCG_SS_cpuset },
	};
	const char *file = strrchr(path, '/');
	char rel[PATH_MAX];
	struct inner in;
	void *ctx[2];
	size_t i;
	int s, mine;

	if (!file || file == path)
		return -ENOENT; /* a root's files: the whole machine, not our subtree */
	/* the outer hierarchy's mirror holds exactly its cgroup's processes; an inner
	 * one's may not (above) */
	for (s = 0; s < NR_SLOTS && !slot_hier(o, s); s++)
		;
	for (mine = s; mine < NR_SLOTS && slot_hier(o, mine) != h; mine++)
		;
	if (mine >= NR_SLOTS)
		return -ENOENT;
	file++;
	for (i = 0; i < sizeof(owner) / sizeof(owner[0]); i++)
		if (!strncmp(file, owner[i].prefix, strlen(owner[i].prefix)))
			break;
	if (i == sizeof(owner) / sizeof(owner[0]) ||
	    !(ucg_hierarchy_subsys_mask(h) & (1u << owner[i].ss)))
		return -ENOENT;
	if ((size_t)(file - path) >= sizeof(rel))
		return -ENAMETOOLONG;
	snprintf(rel, sizeof(rel), "%.*s", (int)(file - path - 1), path);
	if (mine != s && inner_summed(o, s, mine, rel, &in)) {
		in.own = !strcmp(file, "pids.events");
		o->summed++;
		return ucg_v2stat_show(file, read_sum, &in, out);
	}
	if (!strcmp(file, "pids.events"))
		return pids_events(o, rel, out);
	ctx[0] = o;
	ctx[1] = rel;
	return ucg_v2stat_show(file, read_mirror, ctx, out);
}

void ucg_v2obs_describe(const struct ucg_v2obs *o, struct ucg_buf *out)
{
	ucg_buf_printf(out, "enforce %s\n", ucg_cgv2_describe(o->b));
	ucg_buf_printf(out,
		       "enforce_attaches %lu writes %lu refusals %lu policy_only %lu "
		       "restored %lu undone %lu summed_stats %lu\n",
		       o->attaches, o->writes, o->refusals, o->skipped, o->restored, o->undone,
		       o->summed);
	for (int c = 0; c < UCG_V2_NR_CTRL; c++)
		if (o->gone & (1u << c))
			ucg_buf_printf(out, "enforce_gone %s: left the subtree, policy only\n",
				       ucg_v2_ctrl_name[c]);
}
