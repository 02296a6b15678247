/* fs/kenforce.c — the kernel backend chosen from the environment (see kenforce.h). */
#include "fs/kenforce.h"

#include "base/alloc.h"
#include "host/bpf_obs.h"
#include "host/cgv2.h"
#include "host/v2obs.h"
#include "host/v2split.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ucgfs_kenforce {
	struct ucg_cgv2 *b; /* NULL: policy only */
	struct ucg_v2obs *o;
	struct ucg_bpfobs *bo; /* devices, net_cls; registered before o, so it runs first */
	struct ucg_v2split *sp; /* an inner cpu hierarchy's quotas over divergent leaves */
	char why[384]; /* why policy only */
	int syncing;   /* inside ucgfs_kenforce_sync */
	int split_err; /* the last round's error, logged once */
};

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "ucg: %s\n", line);
}

struct ucgfs_kenforce *ucgfs_kenforce_start(struct ucg_engine *e)
{
	struct ucgfs_kenforce *k = ucg_calloc(1, sizeof(*k));
	const char *env = getenv("UCG_ENFORCE");
	char why[256];
	int r;

	if (!k)
		return NULL;
	if (env && !strcmp(env, "0")) {
		snprintf(k->why, sizeof(k->why), "policy only (UCG_ENFORCE=0)");
		goto policy;
	}
	r = ucg_cgv2_open(getenv("UCG_V2_ROOT"), &k->b, why, sizeof(why));
	if (r < 0) {
		snprintf(k->why, sizeof(k->why), "policy only: %s", why);
		goto policy;
	}
	if (!ucg_cgv2_controllers(k->b) && !(env && !strcmp(env, "1"))) {
		snprintf(k->why, sizeof(k->why),
			 "policy only: no v2 controller delegated (%.200s; UCG_ENFORCE=1 for "
			 "membership and freezing through v2)",
			 ucg_cgv2_describe(k->b));
		ucg_cgv2_close(k->b, 1);
		k->b = NULL;
		goto policy;
	}
	r = ucg_bpfobs_new(e, k->b, log_line, NULL, &k->bo);
	if (r == 0)
		r = ucg_v2obs_new(e, k->b, log_line, NULL, &k->o);
	if (r < 0) {
		ucg_bpfobs_free(k->bo);
		k->bo = NULL;
		snprintf(k->why, sizeof(k->why), "policy only: observer: %s", strerror(-r));
		ucg_cgv2_close(k->b, 0);
		k->b = NULL;
		goto policy;
	}
	ucg_bpfobs_bind(k->bo, k->o);
	if (ucg_v2split_new(k->o, k->b, &k->sp) < 0)
		k->sp = NULL; /* quotas stay on the mirrors (logged by the stats) */
	fprintf(stderr, "ucg: enforce through %s\n", ucg_cgv2_describe(k->b));
	return k;
policy:
	fprintf(stderr, "ucg: enforce: %s\n", k->why);
	return k;
}

void ucgfs_kenforce_restore(struct ucgfs_kenforce *k)
{
	if (k && k->o)
		ucg_v2obs_restore(k->o);
}

void ucgfs_kenforce_sync(struct ucgfs_kenforce *k)
{
	if (!k || !k->o || k->syncing)
		return;
	k->syncing = 1;
	ucg_v2obs_restore(k->o);
	k->syncing = 0;
}

int ucgfs_kenforce_freeze(struct ucgfs_kenforce *k, int tid, int freeze)
{
	return k && k->o ? ucg_v2obs_freeze_task(k->o, tid, freeze) : -ENOENT;
}

int ucgfs_kenforce_holds_cpus(const struct ucgfs_kenforce *k)
{
	return k && k->o && (ucg_cgv2_controllers(k->b) & (1u << UCG_V2_CPUSET));
}

int ucgfs_kenforce_poll(struct ucgfs_kenforce *k)
{
	return k && k->o ? ucg_v2obs_poll(k->o) : 0;
}

void ucgfs_kenforce_tick(struct ucgfs_kenforce *k, uint64_t now_us)
{
	int r;

	if (!k || !k->sp)
		return;
	r = ucg_v2split_run(k->sp, now_us);
	if (r < 0 && r != k->split_err)
		fprintf(stderr, "ucg: enforce: dividing cpu quotas: %s\n", strerror(-r));
	k->split_err = r < 0 ? r : 0;
}

int ucgfs_kenforce_show(struct ucgfs_kenforce *k, struct ucg_hierarchy *h, const char *path,
			struct ucg_buf *out)
{
	return k && k->o ? ucg_v2obs_show(k->o, h, path, out) : -ENOENT;
}

void ucgfs_kenforce_stats(const struct ucgfs_kenforce *k, struct ucg_buf *out)
{
	unsigned ctrl;
	int i;

	if (!k || !k->o) {
		ucg_buf_printf(out, "enforce none: %s\n", k ? k->why : "out of memory");
		return;
	}
	ctrl = ucg_cgv2_controllers(k->b);
	ucg_buf_puts(out, "enforce");
	for (i = 0; i < UCG_V2_NR_CTRL; i++)
		if (ctrl & (1u << i))
			ucg_buf_printf(out, " %s", ucg_v2_ctrl_name[i]);
	ucg_buf_puts(out, " freezer membership");
	if (ucg_bpfobs_active(k->bo))
		ucg_buf_puts(out, " devices net_cls");
	ucg_buf_puts(out, "\n");
	ucg_v2obs_describe(k->o, out);
	if (k->sp)
		ucg_v2split_describe(k->sp, out);
	else
		ucg_buf_puts(out, "enforce_split none: out of memory\n");
	ucg_bpfobs_describe(k->bo, out);
}

void ucgfs_kenforce_stop(struct ucgfs_kenforce *k)
{
	if (!k)
		return;
	ucg_v2split_free(k->sp);
	ucg_v2obs_free(k->o);
	ucg_bpfobs_free(k->bo);
	ucg_cgv2_close(k->b, 0);
	ucg_free(k);
}
