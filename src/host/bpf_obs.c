/* host/bpf_obs.c — devices and net_cls programs on the v2 leaves (see bpf_obs.h).
 *
 * State: one record per leaf the observer has given programs to, found by a linear
 * search (leaves are as many as distinct css_sets of attached processes: hundreds,
 * and each search is a string compare per leaf, far below the bpf(2) calls around
 * it). A record names the leaf's devices and net_cls cgroups, the program fd of
 * each (-1: none attached) and what it was compiled from, so a rewrite replaces
 * only the programs whose instructions changed.
 */
#include "host/bpf_obs.h"

#include "base/alloc.h"
#include "controllers/charge.h"
#include "engine/subsys.h"
#include "host/bpf_compile.h"
#include "host/bpf_load.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct leaf {
	char *rel;              /* owned; the leaf, relative to the subtree */
	struct ucg_cgroup *dev; /* its devices cgroup; NULL: no devices hierarchy */
	struct ucg_cgroup *cls; /* its net_cls cgroup; NULL: none */
	int dir;                /* the leaf directory, open */
	int dev_fd;             /* attached device program, -1: none */
	struct bpf_insn *insns; /* owned; what dev_fd runs */
	size_t ninsns;
	int cls_fd;       /* attached socket-create program, -1: none */
	uint32_t classid; /* what cls_fd stores */
};

struct ucg_bpfobs {
	struct ucg_engine *e;
	struct ucg_cgv2 *b;
	struct ucg_v2obs *layout;
	int id; /* observer id, -1: not registered (policy only) */
	ucg_bpfobs_log_fn log;
	void *logctx;
	char why[160]; /* why policy only */
	struct leaf *lv;
	size_t n, cap;
	unsigned long loads, replaces, refusals;
};

static void logf_(struct ucg_bpfobs *o, const char *what, const char *rel, int err)
{
	char line[PATH_MAX + 128];

	if (!o->log)
		return;
	snprintf(line, sizeof(line), "enforce: %s on %s: %s", what, rel, strerror(-err));
	o->log(o->logctx, line);
}

/* the cgroup of tid in the hierarchy bound to ss, `to` if that is the hierarchy */
static struct ucg_cgroup *cgroup_for(struct ucg_bpfobs *o, int tid, struct ucg_cgroup *to, int ss)
{
	struct ucg_hierarchy *h;
	struct ucg_cgroup *cg;

	for (h = ucg_hierarchy_next(o->e, NULL); h; h = ucg_hierarchy_next(o->e, h))
		if (ucg_hierarchy_subsys_mask(h) & (1u << ss))
			break;
	if (!h)
		return NULL;
	if (ucg_cgroup_hierarchy(to) == h)
		return to;
	return ucg_task_cgroup_get(o->e, tid, h, &cg) == 0 ? cg : NULL;
}

/* Puts n instructions (n = 0: none) of ptype at type on dir in place of *slot (a
 * program fd, -1: none attached), in one step; *slot becomes the new fd. 0 or -errno
 * with nothing changed. */
static int install(struct ucg_bpfobs *o, int dir, enum bpf_prog_type ptype,
		   enum bpf_attach_type type, const struct bpf_insn *insns, int n, int *slot)
{
	int fd = -1, e;

	if (n > 0) {
		fd = ucg_bpf_prog_load(ptype, type == BPF_CGROUP_DEVICE ? 0 : type, insns,
				       (size_t)n, NULL, 0);
		e = fd < 0 ? fd : ucg_bpf_cgroup_attach(dir, fd, type, *slot);
		if (e < 0) {
			if (fd >= 0)
				close(fd);
			return e;
		}
		o->loads++;
	} else if (*slot >= 0) {
		ucg_bpf_cgroup_detach(dir, *slot, type);
	}
	if (*slot >= 0) {
		close(*slot);
		o->replaces++;
	}
	*slot = fd;
	return 0;
}

/* Brings lf's device program in line with its cgroup's list. 0 or -errno. */
static int sync_devices(struct ucg_bpfobs *o, struct leaf *lf)
{
	const struct ucg_devrules *r;
	struct bpf_insn *insns = NULL;
	int n = 0, e;

	if (lf->dev && ucg_devices_rules_get(lf->dev, &r) == 0 && !ucg_bpf_devices_trivial(r)) {
		insns = ucg_malloc(UCG_BPF_DEV_INSNS(r->n) * sizeof(*insns));
		if (!insns)
			return -ENOMEM;
		n = ucg_bpf_devices_compile(r, insns, UCG_BPF_DEV_INSNS(r->n));
	}
	if (n == (int)lf->ninsns && (!n || !memcmp(insns, lf->insns, (size_t)n * sizeof(*insns)))) {
		ucg_free(insns);
		return 0; /* unchanged */
	}
	e = install(o, lf->dir, BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE, insns, n,
		    &lf->dev_fd);
	if (e < 0) {
		ucg_free(insns);
		return e;
	}
	ucg_free(lf->insns);
	lf->insns = insns;
	lf->ninsns = (size_t)n;
	return 0;
}

/* Brings lf's socket-create program in line with its cgroup's classid. */
static int sync_classid(struct ucg_bpfobs *o, struct leaf *lf)
{
	struct bpf_insn insns[4];
	uint32_t id = 0;
	int n = 0, e;

	if (lf->cls)
		ucg_net_cls_classid_get(lf->cls, &id);
	if (id == lf->classid)
		return 0;
	if (id)
		n = ucg_bpf_classid_compile(id, insns, 4);
	e = install(o, lf->dir, BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE, insns, n,
		    &lf->cls_fd);
	if (e == 0)
		lf->classid = id;
	return e;
}

static void leaf_drop(struct ucg_bpfobs *o, size_t i)
{
	struct leaf *lf = &o->lv[i];

	if (lf->dev_fd >= 0)
		close(lf->dev_fd);
	if (lf->cls_fd >= 0)
		close(lf->cls_fd);
	if (lf->dir >= 0)
		close(lf->dir);
	ucg_free(lf->insns);
	ucg_free(lf->rel);
	o->lv[i] = o->lv[--o->n];
}

/* A new record for rel: the directory made and opened, whatever programs a previous
 * daemon attached there detached (none are attached yet by this one). */
static int leaf_add(struct ucg_bpfobs *o, const char *rel, struct leaf **ret)
{
	char path[PATH_MAX * 2];
	struct leaf *lf;
	int e;

	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct leaf *v = ucg_realloc(o->lv, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->lv = v;
		o->cap = cap;
	}
	e = ucg_cgv2_mkdir(o->b, rel);
	if (e < 0)
		return e;
	lf = &o->lv[o->n];
	memset(lf, 0, sizeof(*lf));
	lf->dev_fd = lf->cls_fd = -1;
	lf->rel = ucg_strdup(rel);
	if (!lf->rel)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s%s", ucg_cgv2_root(o->b), rel);
	lf->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lf->dir < 0) {
		e = -errno;
		ucg_free(lf->rel);
		return e;
	}
	ucg_bpf_cgroup_detach_others(lf->dir, BPF_CGROUP_DEVICE, -1);
	ucg_bpf_cgroup_detach_others(lf->dir, BPF_CGROUP_INET_SOCK_CREATE, -1);
	o->n++;
	*ret = lf;
	return 0;
}

static int can_attach(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n)
{
	struct ucg_bpfobs *o = ctx;
	char rel[PATH_MAX];
	size_t i, k;
	int e;

	if (!o->layout)
		return 0;
	for (i = 0; i < n; i++) {
		struct ucg_task_info ti;
		struct ucg_cgroup *dev, *cls;
		struct leaf *lf = NULL;

		if (ucg_task_get_info(o->e, tids[i], &ti) < 0 || (ti.flags & UCG_TASK_KTHREAD) ||
		    ti.tgid == getpid())
			continue; /* as host/v2obs.c: these are not moved */
		if (ucg_v2obs_leaf(o->layout, ti.tid, to, rel, sizeof(rel)) < 0)
			continue; /* v2obs refuses it itself */
		dev = cgroup_for(o, ti.tid, to, UCG_SS_devices);
		cls = cgroup_for(o, ti.tid, to, UCG_SS_net_cls);
		for (k = 0; k < o->n && !lf; k++)
			if (!strcmp(o->lv[k].rel, rel))
				lf = &o->lv[k];
		if (lf && lf->dev == dev && lf->cls == cls)
			continue; /* the usual case: programs in place */
		if (!lf && (e = leaf_add(o, rel, &lf)) < 0)
			goto refuse;
		lf->dev = dev;
		lf->cls = cls;
		e = sync_devices(o, lf);
		if (e == 0)
			e = sync_classid(o, lf);
		if (e < 0)
			goto refuse;
	}
	return 0;
refuse:
	o->refusals++;
	logf_(o, "BPF program for an attach", rel, e);
	return e;
}

/* After a write to a devices or net_cls file: every leaf's programs recompiled. */
static void file_written(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
			 size_t len)
{
	struct ucg_bpfobs *o = ctx;
	int dev = !strncmp(file, "devices.", 8), e;
	size_t i;

	(void)cg;
	(void)buf;
	(void)len;
	if (!dev && strcmp(file, "net_cls.classid"))
		return;
	for (i = 0; i < o->n; i++) {
		e = dev ? sync_devices(o, &o->lv[i]) : sync_classid(o, &o->lv[i]);
		if (e < 0) {
			o->refusals++;
			logf_(o, dev ? "device program" : "net_cls program", o->lv[i].rel, e);
		}
	}
}

static void cgroup_removed(void *ctx, struct ucg_cgroup *cg)
{
	struct ucg_bpfobs *o = ctx;
	size_t i = 0;

	while (i < o->n)
		if (o->lv[i].dev == cg || o->lv[i].cls == cg)
			leaf_drop(o, i); /* its cgroup is empty, so is the leaf */
		else
			i++;
}

static void hierarchy_unmounted(void *ctx, struct ucg_hierarchy *h, int destroying)
{
	struct ucg_bpfobs *o = ctx;
	size_t i = 0;

	if (!destroying)
		return;
	while (i < o->n)
		if ((o->lv[i].dev && ucg_cgroup_hierarchy(o->lv[i].dev) == h) ||
		    (o->lv[i].cls && ucg_cgroup_hierarchy(o->lv[i].cls) == h))
			leaf_drop(o, i);
		else
			i++;
}

static const struct ucg_observer_ops ops = {
	.can_attach = can_attach,
	.file_written = file_written,
	.cgroup_removed = cgroup_removed,
	.hierarchy_unmounted = hierarchy_unmounted,
};

/* Can this process load a device program? 0, or the kernel's -errno. */
static int probe(void)
{
	struct bpf_insn insns[UCG_BPF_DEV_INSNS(0)];
	struct ucg_devrules r;
	int n, fd;

	ucg_devrules_init(&r);
	n = ucg_bpf_devices_compile(&r, insns, UCG_BPF_DEV_INSNS(0));
	fd = ucg_bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, 0, insns, (size_t)n, NULL, 0);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

int ucg_bpfobs_new(struct ucg_engine *e, struct ucg_cgv2 *b, ucg_bpfobs_log_fn log, void *logctx,
		   struct ucg_bpfobs **ret)
{
	struct ucg_bpfobs *o = ucg_calloc(1, sizeof(*o));
	int r;

	if (!o)
		return -ENOMEM;
	o->e = e;
	o->b = b;
	o->log = log;
	o->logctx = logctx;
	o->id = -1;
	r = probe();
	if (r < 0) {
		snprintf(o->why, sizeof(o->why), "bpf(2) refused a device program: %s",
			 strerror(-r));
		if (log) {
			char line[256];

			snprintf(line, sizeof(line), "enforce: devices, net_cls policy only: %s",
				 o->why);
			log(logctx, line);
		}
		*ret = o;
		return 0;
	}
	r = ucg_observer_add(e, &ops, o);
	if (r < 0) {
		ucg_free(o);
		return r;
	}
	o->id = r;
	*ret = o;
	return 0;
}

void ucg_bpfobs_bind(struct ucg_bpfobs *o, struct ucg_v2obs *layout)
{
	o->layout = layout;
}

void ucg_bpfobs_free(struct ucg_bpfobs *o)
{
	if (!o)
		return;
	while (o->n)
		leaf_drop(o, o->n - 1);
	if (o->id >= 0)
		ucg_observer_remove(o->e, o->id);
	ucg_free(o->lv);
	ucg_free(o);
}

int ucg_bpfobs_active(const struct ucg_bpfobs *o)
{
	return o && o->id >= 0;
}

void ucg_bpfobs_describe(const struct ucg_bpfobs *o, struct ucg_buf *out)
{
	if (!ucg_bpfobs_active(o)) {
		ucg_buf_printf(out, "enforce_bpf none: %s\n", o ? o->why : "out of memory");
		return;
	}
	ucg_buf_printf(out,
		       "enforce_bpf devices net_cls leaves %zu loads %lu replaces %lu "
		       "refusals %lu\n",
		       o->n, o->loads, o->replaces, o->refusals);
}
