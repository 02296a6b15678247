/* sim/scenario_exec.c — running a scenario's commands as they fire: each verb's action
 * (through the engine's file API as root for the filesystem's words, on the models for
 * the others), NAME/path words resolved to a hierarchy and a path, and "$task" words
 * expanded to tids. The language and its parser are in scenario_parse.c; a command
 * reaches here checked, so an action reads its numbers again without failing.
 *
 * A runtime failure (a write the engine refuses, an unknown task) stops the run with
 * file:line, the command and the errno text, as a shell would print it.
 */
#include "controllers/charge.h"
#include "sim/scenario_impl.h"
#include "sim/v2split.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

/* Splits "NAME/rest" into the hierarchy and "/rest". */
static int resolve(struct sim *s, struct sim_cmd *c, const char *word, struct sim_hier **hi,
		   char *path, size_t plen)
{
	const char *slash = strchr(word, '/');
	char name[128];
	size_t nl = slash ? (size_t)(slash - word) : strlen(word);

	if (nl >= sizeof(name))
		return sim_fail(s, c->line, -ENOENT, "%s: %s", c->argv[0], word);
	memcpy(name, word, nl);
	name[nl] = '\0';
	*hi = sim_hier_by_name(s, name);
	if (!*hi)
		return sim_fail(s, c->line, -ENOENT, "%s: %s: no hierarchy mounted as '%s'",
				c->argv[0], word, name);
	snprintf(path, plen, "%s", slash && slash[1] ? slash : "/");
	/* strip a trailing '/' */
	nl = strlen(path);
	while (nl > 1 && path[nl - 1] == '/')
		path[--nl] = '\0';
	return 0;
}

/* resolve() for argument k of c: its compiled path when the word had one (k: 0 for
 * the first path word or echo's redirect, 1 for mv's second). The hierarchy is looked
 * up by name once; until it is mounted, and for words not compiled, resolve() does
 * the work (and words the error). */
static int resolve_arg(struct sim *s, struct sim_cmd *c, int k, const char *word,
		       struct sim_hier **hi, const char **path, char *buf, size_t blen)
{
	struct sim_cmd_path *cp = &c->paths[k];
	int r;

	if (cp->path && !cp->hi) {
		char name[128];

		memcpy(name, word, cp->hlen);
		name[cp->hlen] = '\0';
		cp->hi = sim_hier_by_name(s, name);
	}
	if (cp->path && cp->hi) {
		*hi = cp->hi;
		*path = cp->path;
		return 0;
	}
	r = resolve(s, c, word, hi, buf, blen);
	*path = buf;
	return r;
}

static struct sim_task *task_arg(struct sim *s, struct sim_cmd *c, const char *name)
{
	struct sim_task *t = sim_task_by_name(s, name);

	if (!t || !t->alive) {
		sim_fail(s, c->line, -ESRCH, "%s: %s", c->argv[0], name);
		return NULL;
	}
	return t;
}

/* Something global changed (a mount, a device): every cached value is re-read. */
static void changed(struct sim *s)
{
	s->cfg_epoch++;
	s->cfg_writes++;
	s->memb_epoch++;
	sim_cpu_changed(s);
}

static int ex_mount(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	struct ucg_hierarchy *h = NULL;
	struct ucg_err uerr;
	size_t i;
	int r;

	if (sim_hier_by_name(s, c->argv[3]))
		return sim_fail(s, c->line, -EBUSY, "mount: %s", c->argv[3]);
	if (s->nhier == SIM_MAX_HIER)
		return sim_fail(s, c->line, -ENOSPC, "mount: %s", c->argv[3]);
	memset(&uerr, 0, sizeof(uerr));
	r = ucg_mount(s->e, c->argv[2], &h, &uerr);
	if (r < 0) {
		if (uerr.msg[0])
			sim_logf(s, "mount: %s\n", uerr.msg);
		return sim_fail(s, c->line, r, "mount: %s", c->argv[3]);
	}
	for (i = 0; i < s->nhier; i++)
		if (s->hier[i]->h == h) {
			ucg_umount(s->e, h);
			return sim_fail(s, c->line, -EBUSY, "mount: %s: already mounted as %s",
					c->argv[3], s->hier[i]->name);
		}
	hi = ucg_calloc(1, sizeof(*hi));
	if (!hi || !(hi->name = ucg_strdup(c->argv[3]))) {
		ucg_free(hi);
		return sim_fail(s, c->line, -ENOMEM, "mount");
	}
	hi->h = h;
	hi->index = (int)s->nhier;
	hi->ss_mask = ucg_hierarchy_subsys_mask(h);
	s->hier[s->nhier++] = hi;
	r = sim_cgroups_mounted(s, hi); /* the observer hung the root's data at the mount */
	if (r < 0)
		return sim_fail(s, c->line, r, "mount");
	changed(s);
	return 0;
}

static int ex_mkdir(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	char buf[1024];
	const char *path;
	int r = resolve_arg(s, c, 0, c->argv[1], &hi, &path, buf, sizeof(buf));

	if (r < 0)
		return r;
	r = ucg_fs_mkdir(s->e, hi->h, path, 0755, &s->root_cred);
	if (r < 0)
		return sim_fail(s, c->line, r, "mkdir: cannot create directory '%s'", c->argv[1]);
	if (s->view_err) /* the observer could not hang the new cgroup's data */
		return sim_fail(s, c->line, s->view_err, "mkdir");
	sim_cpu_changed(s);
	return 0;
}

static int ex_rmdir(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	char buf[1024];
	const char *path;
	int r = resolve_arg(s, c, 0, c->argv[1], &hi, &path, buf, sizeof(buf));

	if (r < 0)
		return r;
	r = ucg_fs_rmdir(s->e, hi->h, path, &s->root_cred);
	if (r < 0)
		return sim_fail(s, c->line, r, "rmdir: failed to remove '%s'", c->argv[1]);
	sim_cpu_changed(s);
	return 0;
}

static int ex_mv(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *h1, *h2;
	char b1[1024], b2[1024];
	const char *p1, *p2;
	int r = resolve_arg(s, c, 0, c->argv[1], &h1, &p1, b1, sizeof(b1));

	if (r < 0 || (r = resolve_arg(s, c, 1, c->argv[2], &h2, &p2, b2, sizeof(b2))) < 0)
		return r;
	if (h1 != h2)
		return sim_fail(s, c->line, -EXDEV, "mv: cannot move '%s' to '%s'", c->argv[1],
				c->argv[2]);
	r = ucg_fs_rename(s->e, h1->h, p1, p2, &s->root_cred);
	if (r < 0)
		return sim_fail(s, c->line, r, "mv: cannot move '%s' to '%s'", c->argv[1],
				c->argv[2]);
	sim_cpu_changed(s);
	return 0;
}

/* Expands $name in template[0..len) into s->cmd_scratch (emptied first). */
static int expand_into_scratch(struct sim *s, struct sim_cmd *c, const char *tmpl, size_t len);

static int ex_echo(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	const char *path, *value = c->value;
	size_t vlen = c->value_len;
	char buf[1024];
	int r;

	if (c->dollar) { /* the words first, as a shell expands before it opens */
		r = expand_into_scratch(s, c, c->value, c->value_len);
		if (r < 0)
			return r;
		value = s->cmd_scratch.data;
		vlen = s->cmd_scratch.len;
	}
	r = resolve_arg(s, c, 0, c->redirect, &hi, &path, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = ucg_fs_write_all(s->e, hi->h, path, &s->root_cred, value, vlen);
	if (r < 0)
		return sim_fail(s, c->line, r, "echo: write error");
	/* the written cgroup and its subtree read their control values again: the
	 * engine tells the observer (cgroups.c) */
	sim_cpu_changed(s);
	return 0;
}

static int ex_cat(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	struct ucg_buf b;
	char buf[1024];
	const char *path;
	int r = resolve_arg(s, c, 0, c->argv[1], &hi, &path, buf, sizeof(buf));

	if (r < 0)
		return r;
	ucg_buf_init(&b);
	ucg_cpuset_clock(s->e, (uint64_t)(s->now / SIM_SEC)); /* cpuset.memory_pressure decays */
	r = ucg_fs_read_all(s->e, hi->h, path, &s->root_cred, &b);
	if (r == 0) {
		ucg_buf_puts(&s->log, "[");
		sim_format_time(s->now, &s->log);
		sim_logf(s, "] $ cat %s\n%s", c->argv[1], b.data ? b.data : "");
	}
	ucg_buf_fini(&b);
	if (r < 0)
		return sim_fail(s, c->line, r, "cat: %s", c->argv[1]);
	return 0;
}

static int ex_tc(struct sim *s, struct sim_cmd *c)
{
	return sim_net_tc(s, c->argc - 1, c->argv + 1, c->line);
}

static int ex_cpus(struct sim *s, struct sim_cmd *c)
{
	uint64_t v;

	sim_parse_uint(c->argv[1], 4096, &v);
	s->nr_cpus = (unsigned)v;
	sim_cpu_changed(s);
	return 0;
}

static int ex_memory(struct sim *s, struct sim_cmd *c)
{
	uint64_t v;

	sim_parse_size(c->argv[1], &v);
	if (s->anon_used + s->cache_used > v / SIM_PAGE)
		return sim_fail(s, c->line, -EBUSY, "memory: %s: less than in use", c->argv[1]);
	s->mem_pages = v / SIM_PAGE;
	return 0;
}

static int ex_set(struct sim *s, struct sim_cmd *c)
{
	uint64_t v = 0;
	sim_time t = 0;

	sim_parse_uint(c->argv[2], 100, &v);
	sim_parse_time(c->argv[2], &t);
	if (!strcmp(c->argv[1], "dirty_ratio"))
		s->dirty_ratio = (unsigned)v;
	else if (!strcmp(c->argv[1], "dirty_background_ratio"))
		s->dirty_bg_ratio = (unsigned)v;
	else if (!strcmp(c->argv[1], "dirty_expire"))
		s->dirty_expire = t;
	else if (!strcmp(c->argv[1], "writeback_interval"))
		s->wb_interval = t;
	else if (!strcmp(c->argv[1], "sample"))
		s->sample_every = t;
	else if (!strcmp(c->argv[1], "swap") && sim_parse_size(c->argv[2], &v) == 0)
		s->swap_pages = v / SIM_PAGE;
	else if (!strcmp(c->argv[1], "weight_refresh") && sim_parse_uint(c->argv[2], 1000, &v) == 0)
		/* from the next weight kept stale on (a refresh due stays due) */
		s->lz_ticks = (unsigned)v;
	else if (!strcmp(c->argv[1], "cpu_model") || !strcmp(c->argv[1], "hz") ||
		 !strcmp(c->argv[1], "cfs_slice")) {
		sim_cpu_settle(s);
		if (!strcmp(c->argv[1], "cpu_model")) {
			s->cpu_tick = !strcmp(c->argv[2], "tick");
		} else if (!strcmp(c->argv[1], "hz") &&
			   sim_parse_uint(c->argv[2], 10000, &v) == 0) {
			s->hz = (unsigned)v;
			s->tick_ns = SIM_SEC / s->hz;
		} else {
			s->cfs_slice = t;
		}
		/* every quota is read again: a model change restarts its periods */
		s->cfg_writes++;
		sim_cpu_changed(s);
	}
	return 0;
}

static int ex_device(struct sim *s, struct sim_cmd *c)
{
	unsigned maj, min;
	uint64_t bps = 100ull << 20, iops = 0;
	const char *v;
	int r;

	sscanf(c->argv[2], "%u:%u", &maj, &min);
	if ((v = sim_opt_find(c->argc - 1, c->argv + 1, "bps")))
		sim_parse_rate(v, &bps);
	if ((v = sim_opt_find(c->argc - 1, c->argv + 1, "iops")))
		sim_parse_uint(v, UINT32_MAX, &iops);
	r = sim_dev_add(s, c->argv[1], maj, min, bps, (uint32_t)iops, NULL);
	if (r < 0)
		return sim_fail(s, c->line, r, "device: %s", c->argv[1]);
	changed(s);
	return 0;
}

static int ex_md(struct sim *s, struct sim_cmd *c)
{
	const char *legs = sim_opt_find(c->argc - 1, c->argv + 1, "legs");
	const char *helper = sim_opt_find(c->argc - 1, c->argv + 1, "helper");
	const char *cpu = sim_opt_find(c->argc - 1, c->argv + 1, "cpu");
	const char *num = sim_opt_find(c->argc - 1, c->argv + 1, "major");
	unsigned maj = 9, min = (unsigned)s->ndevs;
	struct sim_dev *md;
	char buf[256], *save = NULL, *tok;
	int r;

	if (num)
		sscanf(num, "%u:%u", &maj, &min);
	r = sim_dev_add(s, c->argv[1], maj, min, 0, 0, &md);
	if (r < 0)
		return sim_fail(s, c->line, r, "md: %s", c->argv[1]);
	md->is_md = true;
	snprintf(buf, sizeof(buf), "%s", legs);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct sim_dev *leg = sim_dev_find(s, tok);

		if (!leg || leg->is_md)
			return sim_fail(s, c->line, -ENODEV, "md: %s: leg %s", c->argv[1], tok);
		if (md->nlegs == 4)
			return sim_fail(s, c->line, -E2BIG, "md: %s: more than 4 legs", c->argv[1]);
		md->legs[md->nlegs++] = leg;
	}
	if (cpu)
		sim_parse_time(cpu, &md->helper_cpu_ns);
	if (helper) {
		r = sim_task_new(s, helper, 0, NULL, true, &md->helper);
		if (r < 0)
			return sim_fail(s, c->line, r, "md: helper %s", helper);
	}
	changed(s);
	return 0;
}

static int ex_file(struct sim *s, struct sim_cmd *c)
{
	struct sim_dev *d = sim_dev_find(s, sim_opt_find(c->argc - 1, c->argv + 1, "dev"));
	struct sim_file *f, **v;
	size_t i;

	if (!d)
		return sim_fail(s, c->line, -ENODEV, "file: %s", c->argv[1]);
	for (i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i]->name, c->argv[1]))
			return sim_fail(s, c->line, -EEXIST, "file: %s", c->argv[1]);
	v = ucg_realloc(s->files, (s->nfiles + 1) * sizeof(*v));
	if (!v)
		return sim_fail(s, c->line, -ENOMEM, "file");
	s->files = v;
	f = ucg_calloc(1, sizeof(*f));
	if (!f || !(f->name = ucg_strdup(c->argv[1]))) {
		ucg_free(f);
		return sim_fail(s, c->line, -ENOMEM, "file");
	}
	f->dev = d;
	s->files[s->nfiles++] = f;
	return 0;
}

static int ex_iface(struct sim *s, struct sim_cmd *c)
{
	uint64_t rate = 125000000;
	const char *v = sim_opt_find(c->argc - 1, c->argv + 1, "rate");

	if (v)
		sim_parse_rate(v, &rate);
	return sim_net_iface(s, c->argv[1], rate * 8, c->line);
}

static int ex_spawn(struct sim *s, struct sim_cmd *c)
{
	const char *v = sim_opt_find(c->argc - 1, c->argv + 1, "uid");
	uint64_t uid = 0;
	struct sim_task *t;
	int r;

	if (v)
		sim_parse_uint(v, UINT32_MAX - 1, &uid);
	r = sim_task_new(s, c->argv[1], (uint32_t)uid, NULL, false, &t);
	if (r < 0)
		return sim_fail(s, c->line, r, "spawn: %s", c->argv[1]);
	return 0;
}

static int ex_fork(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *p = task_arg(s, c, c->argv[1]), *t;
	int r;

	if (!p)
		return s->run_err;
	r = sim_task_new(s, c->argv[2], p->uid, p, false, &t);
	if (r < 0)
		return sim_fail(s, c->line, r, "fork: %s", c->argv[1]);
	return 0;
}

static int ex_exit(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);
	int r;

	if (!t)
		return s->run_err;
	r = sim_task_exit(s, t);
	return r < 0 ? sim_fail(s, c->line, r, "exit: %s", c->argv[1]) : 0;
}

static int ex_busy(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);
	double d = 1;

	if (!t)
		return s->run_err;
	if (c->argc == 3)
		sim_parse_cpus_frac(c->argv[2], &d);
	sim_task_set_demand(s, t, d);
	return 0;
}

static int ex_taskset(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);

	if (!t)
		return s->run_err;
	sim_cpulist_parse(c->argv[2], &t->affinity);
	sim_cpu_changed(s);
	return 0;
}

static int ex_idle(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);

	if (!t)
		return s->run_err;
	sim_task_set_demand(s, t, 0);
	return 0;
}

static int ex_alloc(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);
	uint64_t bytes;

	if (!t)
		return s->run_err;
	sim_parse_size(c->argv[2], &bytes);
	if (!strcmp(c->argv[0], "free"))
		return sim_mem_free(s, t, (bytes + SIM_PAGE - 1) / SIM_PAGE);
	return sim_mem_alloc(s, t, (bytes + SIM_PAGE - 1) / SIM_PAGE, c->line);
}

static int ex_hugetlb(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);
	bool neg = c->argv[2][0] == '-';
	uint64_t n;

	if (!t)
		return s->run_err;
	sim_parse_uint(neg ? c->argv[2] + 1 : c->argv[2], 1u << 20, &n);
	return sim_mem_hugetlb(s, t, neg ? -(int64_t)n : (int64_t)n, c->line);
}

static int ex_io(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);
	bool direct = c->argc == 5;
	bool wr = !strcmp(c->argv[0], "write");
	struct sim_file *f = NULL;
	struct sim_dev *d = NULL;
	uint64_t bytes;
	size_t i;
	int kind;

	if (!t)
		return s->run_err;
	for (i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i]->name, c->argv[2]))
			f = s->files[i];
	if (!f) {
		d = sim_dev_find(s, c->argv[2]);
		if (!d)
			return sim_fail(s, c->line, -ENOENT, "%s: %s", c->argv[0], c->argv[2]);
		direct = true; /* a raw device: no page cache here */
	}
	sim_parse_size(c->argv[3], &bytes);
	kind = wr ? (direct ? SIM_IO_WRITE_DIRECT : SIM_IO_WRITE)
		  : (direct ? SIM_IO_READ_DIRECT : SIM_IO_READ);
	return sim_io_start(s, t, kind, f, f ? f->dev : d, bytes, c->line);
}

static int ex_flow(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);
	int ac = c->argc - 1;
	char **av = c->argv + 1;
	uint64_t pkts = 0, size = 1500, rate = 1250000, dport = 5001;
	const char *v;

	if (!t)
		return s->run_err;
	sim_parse_uint(sim_opt_find(ac, av, "pkts"), 1ull << 32, &pkts);
	if ((v = sim_opt_find(ac, av, "size")))
		sim_parse_uint(v, 65535, &size);
	if ((v = sim_opt_find(ac, av, "rate")))
		sim_parse_rate(v, &rate);
	if ((v = sim_opt_find(ac, av, "dport")))
		sim_parse_uint(v, 65535, &dport);
	return sim_net_flow(s, t, c->argv[2], pkts, (uint32_t)size, rate * 8, (uint16_t)dport,
			    c->line);
}

static int ex_note(struct sim *s, struct sim_cmd *c)
{
	int i;

	ucg_buf_puts(&s->log, "[");
	sim_format_time(s->now, &s->log);
	ucg_buf_puts(&s->log, "] #");
	for (i = 1; i < c->argc; i++)
		sim_logf(s, " %s", c->argv[i]);
	ucg_buf_putc(&s->log, '\n');
	return 0;
}

/* notify FILE [ARGS]: what writing "<efd> <cfd of FILE> ARGS" to the cgroup's
 * cgroup.event_control registers (memory.usage_in_bytes thresholds, oom_control,
 * pressure_level); the registration is named by its line. "events" logs what fired
 * since the last "events": each registration's count, "(removed)" for the last. */
static int ex_notify(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	char buf[1024];
	const char *path;
	int r = resolve_arg(s, c, 0, c->argv[1], &hi, &path, buf, sizeof(buf));

	if (r < 0)
		return r;
	r = ucg_event_register(s->e, hi->h, path, c->argc > 2 ? c->argv[2] : "", (uint64_t)c->line);
	if (r < 0)
		return sim_fail(s, c->line, r, "notify: %s", c->argv[1]);
	return 0;
}

static int ex_events(struct sim *s, struct sim_cmd *c)
{
	struct ucg_event ev;

	ucg_buf_puts(&s->log, "[");
	sim_format_time(s->now, &s->log);
	ucg_buf_puts(&s->log, "] $ events\n");
	while (ucg_event_next(s->e, &ev) == 1)
		sim_logf(s, "notify of line %" PRIu64 ": %" PRIu64 "%s\n", ev.handle, ev.count,
			 ev.final ? " (removed)" : "");
	return 0;
}

/* split NAME [quota=US] [period=US] [shares=N] LEAF... (v2split.c) */
static int ex_split(struct sim *s, struct sim_cmd *c)
{
	struct sim_cg *leaves[SIM_SCN_MAX_WORDS];
	const char *v;
	int64_t quota = -1;
	uint64_t period = 100000, shares = 1024, x;
	size_t n = 0;
	int i, r;

	if ((v = sim_opt_find(c->argc - 1, c->argv + 1, "quota")) && strcmp(v, "-1") &&
	    sim_parse_uint(v, 1000000000, &x) == 0)
		quota = (int64_t)x;
	if ((v = sim_opt_find(c->argc - 1, c->argv + 1, "period")))
		sim_parse_uint(v, 1000000, &period);
	if ((v = sim_opt_find(c->argc - 1, c->argv + 1, "shares")))
		sim_parse_uint(v, 262144, &shares);
	for (i = 2; i < c->argc; i++) {
		struct sim_hier *hi;
		char path[1024];

		if (strchr(c->argv[i], '='))
			continue;
		r = resolve(s, c, c->argv[i], &hi, path, sizeof(path));
		if (r < 0)
			return r;
		leaves[n] = sim_cg_find(s, hi, path);
		if (!leaves[n] || !(hi->ss_mask & (1u << UCG_SS_cpu)))
			return sim_fail(s, c->line, -ENOENT, "split: %s: no cpu cgroup",
					c->argv[i]);
		n++;
	}
	r = sim_v2split_add(s, c->line, c->argv[1], quota, period, shares, leaves, n);
	if (r < 0)
		return sim_fail(s, c->line, r, "split %s", c->argv[1]);
	return 0;
}

#define EXEC_VERB(id, name, min, max, check, exec, npaths) [SIM_VERB_##id] = exec,
static int (*const verb_exec[])(struct sim *s, struct sim_cmd *c) = { SIM_VERBS(EXEC_VERB) };
#undef EXEC_VERB

/* A task name's characters: letters, digits, '_', '-' and '.'. */
static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* Appends w[0..len) to s->cmd_scratch with each $name replaced by the tid of the
 * newest task of that name; a '$' not followed by a name stays. -ESRCH (the run
 * stopped) for an unknown name. */
static int expand_append(struct sim *s, struct sim_cmd *c, const char *w, size_t len)
{
	struct ucg_buf *b = &s->cmd_scratch;
	const char *p = w, *end = w + len;

	while (p < end) {
		const char *d = memchr(p, '$', (size_t)(end - p));
		char name[128];
		struct sim_task *t;
		size_t n;

		if (!d) {
			ucg_buf_append(b, p, (size_t)(end - p));
			break;
		}
		ucg_buf_append(b, p, (size_t)(d - p));
		for (n = 0; d + 1 + n < end && is_name_char(d[1 + n]); n++)
			;
		if (n == 0 || n >= sizeof(name)) {
			ucg_buf_putc(b, '$');
			p = d + 1;
			continue;
		}
		memcpy(name, d + 1, n);
		name[n] = '\0';
		t = sim_task_by_name(s, name);
		if (!t)
			return sim_fail(s, c->line, -ESRCH, "%s: $%s", c->argv[0], name);
		ucg_buf_put_s64(b, t->tid);
		p = d + 1 + n;
	}
	return 0;
}

static int expand_into_scratch(struct sim *s, struct sim_cmd *c, const char *tmpl, size_t len)
{
	int r;

	ucg_buf_reset(&s->cmd_scratch);
	r = expand_append(s, c, tmpl, len);
	if (r == 0 && ucg_buf_error(&s->cmd_scratch))
		r = sim_fail(s, c->line, -ENOMEM, "%s", c->argv[0]);
	return r;
}

/* Runs c with its '$' words expanded: each into s->cmd_scratch (NUL-separated), the
 * argument vector on the stack; the command sees the expansions in c->argv. */
static int exec_expanded(struct sim *s, struct sim_cmd *c)
{
	char *tmp[SIM_SCN_MAX_WORDS + 1], **saved = c->argv;
	size_t off[SIM_SCN_MAX_WORDS];
	int i, r;

	ucg_buf_reset(&s->cmd_scratch);
	for (i = 0; i < c->argc; i++) {
		if (!(c->dollar & (1ull << i)))
			continue;
		off[i] = s->cmd_scratch.len;
		r = expand_append(s, c, c->argv[i], strlen(c->argv[i]));
		if (r < 0)
			return r;
		ucg_buf_putc(&s->cmd_scratch, '\0');
	}
	if (ucg_buf_error(&s->cmd_scratch))
		return sim_fail(s, c->line, -ENOMEM, "%s", c->argv[0]);
	for (i = 0; i < c->argc; i++)
		tmp[i] = c->dollar & (1ull << i) ? s->cmd_scratch.data + off[i] : saved[i];
	tmp[c->argc] = NULL;
	c->argv = tmp;
	r = verb_exec[c->verb](s, c);
	c->argv = saved;
	return r;
}

/* Whether command c neither reads CPU time (cpuacct and cpu files, the reports) nor
 * changes whom it is charged to (a task's cgroups, its life: an exit flushes
 * itself). Before such a command the tasks' time only accrues, rounded at this
 * instant as before any command, and waits in them: passing it on and charging
 * cpuacct adds integers, the same sums whenever they are formed, so the next
 * command that reads or moves, a sample, an exit or the end does it. On the
 * hour's host (bench/sim_bench.c) the alloc, free, write and cpu.shares commands
 * each passed and charged ~1,100 tasks, on lines long out of the cache. */
static bool cmd_keeps_time(const struct sim_cmd *c)
{
	/* an echo into a file that only configures a limit or a weight: the hour
	 * writes cpu.shares every 10 s (not cgroup.procs or tasks, which move a task,
	 * nor cpuacct.usage, which resets what was charged) */
	static const char *const limits[] = {
		"cpu.shares",
		"cpu.cfs_quota_us",
		"cpu.cfs_period_us",
		"memory.limit_in_bytes",
		"memory.soft_limit_in_bytes",
		"memory.memsw.limit_in_bytes",
	};
	const char *base;
	size_t i;

	switch (c->verb) {
	case SIM_VERB_ECHO:
		base = c->redirect ? strrchr(c->redirect, '/') : NULL;
		base = base ? base + 1 : c->redirect;
		for (i = 0; base && i < sizeof(limits) / sizeof(limits[0]); i++)
			if (!strcmp(base, limits[i]))
				return true;
		return false;
	case SIM_VERB_ALLOC:
	case SIM_VERB_FREE:
	case SIM_VERB_WRITE:
	case SIM_VERB_READ:
	case SIM_VERB_BUSY:
	case SIM_VERB_IDLE:
	case SIM_VERB_NOTE: return true;
	default: return false;
	}
}

int sim_cmd_exec(struct sim *s, struct sim_cmd *c)
{
	if (cmd_keeps_time(c))
		sim_cpu_accrue(s);
	else
		sim_cpu_flush(s); /* cpuacct files show the CPU time up to now */
	/* echo expands its own words (one template: they are joined anyway) */
	if (c->dollar && c->verb != SIM_VERB_ECHO)
		return exec_expanded(s, c);
	return verb_exec[c->verb](s, c);
}

void sim_cmd_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	(void)arg;
	sim_cmd_exec(s, (struct sim_cmd *)src);
}
