/* sim/scenario.c — the scenario language: parser and command execution.
 *
 * A scenario is a text file of commands, one per line; '#' starts a comment, blanks
 * separate words, double quotes group them. Paths are NAME/relative/path, NAME being
 * the name a `mount` gave the hierarchy; `$task` anywhere in a word becomes the tid of
 * the newest task of that name.
 *
 *   the filesystem's words (through the engine's file API, as root)
 *     mount -o OPTIONS NAME      mkdir PATH      rmdir PATH      mv PATH PATH
 *     echo WORDS... > PATH       cat PATH        tc ARGS...      (the ntc model)
 *   the machine
 *     cpus N                     memory SIZE     set KEY VALUE   (dirty_ratio,
 *     dirty_background_ratio, dirty_expire, writeback_interval, sample, swap)
 *     device NAME MAJ:MIN [bps=SIZE] [iops=N]
 *     md NAME legs=DEV[,DEV...] [helper=TASK] [cpu=TIME] [major=MAJ:MIN]
 *     file NAME dev=DEV          iface NAME rate=RATE
 *   tasks and workloads
 *     spawn NAME [uid=N]         fork PARENT CHILD      exit NAME
 *     busy NAME [CPUS]           idle NAME
 *     taskset NAME CPULIST       (sched_setaffinity: "0", "0-1,3"; CPUs 0..63)
 *     alloc NAME SIZE            free NAME SIZE         hugetlb NAME N (N<0 frees)
 *     write NAME FILE|DEV SIZE [direct]                 read NAME FILE|DEV SIZE [direct]
 *     flow NAME IFACE pkts=N [size=BYTES] [rate=RATE] [dport=N]
 *     note TEXT...
 *   time
 *     at TIME COMMAND            (absolute; the command alone)
 *     run TIME                   (later commands happen TIME later)
 *
 * Times are "5s", "250ms", "1.5s", ...; sizes take K, M, G, T (powers of 1024);
 * rates are bytes/s with the same suffixes, or bits/s with "bit" ("10Mbit", 1000s).
 *
 * The whole file is parsed before anything runs: an unknown word, a wrong number of
 * arguments, a malformed number, time or size stops the load with file:line and the
 * reason. Runtime failures (a write the engine refuses, an unknown task) stop the run
 * with file:line, the command and the errno text, as a shell would print it.
 *
 * Limits: no variables besides $task, no loops (generate long scenarios instead), no
 * credentials other than root for file commands.
 */
#include "controllers/charge.h"
#include "sim/sim_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#define MAX_WORDS 64
#define MAX_LINE 4096
#define SIM_MAX_TIME (366LL * 24 * 3600 * SIM_SEC) /* a year of virtual time */

struct verb {
	const char *name;
	int min, max; /* argument counts, words after the verb */
	int (*check)(int argc, char **argv, char *why, size_t whylen);
	int (*exec)(struct sim *s, struct sim_cmd *c);
	int npaths; /* its first npaths arguments are NAME/path words (compiled at load) */
};

/* ---- numbers ---------------------------------------------------------------------- */

static int parse_size(const char *p, uint64_t *ret)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	case 't': case 'T': mult = 1ull << 40; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (v && mult > UINT64_MAX / v))
		return -EINVAL;
	*ret = v * mult;
	return 0;
}

/* Rates: "10Mbit" (bits/s, powers of 1000) or "100M" (bytes/s, powers of 1024). */
static int parse_rate(const char *p, uint64_t *ret)
{
	size_t len = strlen(p);
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (len > 3 && !strcmp(p + len - 3, "bit")) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno)
			return -EINVAL;
		switch (*end) {
		case 'k': case 'K': mult = 1000; end++; break;
		case 'm': case 'M': mult = 1000000; end++; break;
		case 'g': case 'G': mult = 1000000000; end++; break;
		default: break;
		}
		if (strcmp(end, "bit") || (v && mult > UINT64_MAX / v))
			return -EINVAL;
		*ret = v * mult / 8;
		return 0;
	}
	return parse_size(p, ret);
}

static int parse_uint(const char *p, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_cpus_frac(const char *p, double *ret)
{
	char *end;
	double v;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	v = strtod(p, &end);
	if (*end || !(v >= 0 && v <= 1))
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "key=value" among argv: the value, or NULL. */
static const char *opt(int argc, char **argv, const char *key)
{
	size_t kl = strlen(key);
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], key, kl) && argv[i][kl] == '=')
			return argv[i] + kl + 1;
	return NULL;
}

/* Every word from `from` on must be key=value with a known key. */
static int check_opts(int argc, char **argv, int from, const char *const *keys, char *why,
		      size_t whylen)
{
	int i;

	for (i = from; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t k;

		if (!eq) {
			snprintf(why, whylen, "expected KEY=VALUE, got '%s'", argv[i]);
			return -EINVAL;
		}
		for (k = 0; keys[k]; k++)
			if (strlen(keys[k]) == (size_t)(eq - argv[i]) &&
			    !strncmp(argv[i], keys[k], (size_t)(eq - argv[i])))
				break;
		if (!keys[k]) {
			snprintf(why, whylen, "unknown option '%.*s'", (int)(eq - argv[i]),
				 argv[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- parse-time checks --------------------------------------------------------------- */

static int ck_mount(int argc, char **argv, char *why, size_t n)
{
	if (strcmp(argv[0], "-o") || argc != 3) {
		snprintf(why, n, "usage: mount -o OPTIONS NAME");
		return -EINVAL;
	}
	if (strchr(argv[2], '/')) {
		snprintf(why, n, "a mount name has no '/'");
		return -EINVAL;
	}
	return 0;
}

static int ck_echo(int argc, char **argv, char *why, size_t n)
{
	if (argc < 2 || (strcmp(argv[argc - 2], ">") && strcmp(argv[argc - 2], ">>"))) {
		snprintf(why, n, "usage: echo WORDS... > PATH");
		return -EINVAL;
	}
	return 0;
}

static int ck_uint(const char *w, uint64_t max, const char *what, char *why, size_t n)
{
	uint64_t v;

	if (parse_uint(w, max, &v) < 0) {
		snprintf(why, n, "bad %s '%s'", what, w);
		return -EINVAL;
	}
	return 0;
}

static int ck_size(const char *w, const char *what, char *why, size_t n)
{
	uint64_t v;

	if (parse_size(w, &v) < 0) {
		snprintf(why, n, "bad %s '%s'", what, w);
		return -EINVAL;
	}
	return 0;
}

static int ck_cpus(int argc, char **argv, char *why, size_t n)
{
	uint64_t v;

	if (parse_uint(argv[0], 4096, &v) < 0 || v == 0) {
		snprintf(why, n, "bad CPU count '%s' (1..4096)", argv[0]);
		return -EINVAL;
	}
	return 0;
}

static int ck_memory(int argc, char **argv, char *why, size_t n)
{
	uint64_t v;

	if (parse_size(argv[0], &v) < 0 || v < 16 * SIM_PAGE || v > (64ull << 30)) {
		snprintf(why, n, "bad memory size '%s' (64K..64G)", argv[0]);
		return -EINVAL;
	}
	return 0;
}

static int ck_set(int argc, char **argv, char *why, size_t n)
{
	sim_time t;

	if (!strcmp(argv[0], "dirty_ratio") || !strcmp(argv[0], "dirty_background_ratio"))
		return ck_uint(argv[1], 100, "ratio", why, n);
	if (!strcmp(argv[0], "swap")) {
		uint64_t v;

		if (parse_size(argv[1], &v) < 0 || v > (64ull << 30)) {
			snprintf(why, n, "bad swap size '%s' (0..64G)", argv[1]);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(argv[0], "dirty_expire") || !strcmp(argv[0], "writeback_interval") ||
	    !strcmp(argv[0], "sample")) {
		if (sim_parse_time(argv[1], &t) < 0 || t < SIM_MSEC) {
			snprintf(why, n, "bad time '%s' (1ms or more)", argv[1]);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(why, n, "unknown setting '%s'", argv[0]);
	return -EINVAL;
}

static int ck_device(int argc, char **argv, char *why, size_t n)
{
	static const char *const keys[] = { "bps", "iops", NULL };
	unsigned maj, min;
	char tail;
	const char *v;
	uint64_t x;

	if (sscanf(argv[1], "%u:%u%c", &maj, &min, &tail) != 2) {
		snprintf(why, n, "bad device number '%s' (MAJ:MIN)", argv[1]);
		return -EINVAL;
	}
	if (check_opts(argc, argv, 2, keys, why, n) < 0)
		return -EINVAL;
	if ((v = opt(argc, argv, "bps")) && (parse_rate(v, &x) < 0 || x == 0)) {
		snprintf(why, n, "bad bps '%s'", v);
		return -EINVAL;
	}
	if ((v = opt(argc, argv, "iops")))
		return ck_uint(v, UINT32_MAX, "iops", why, n);
	return 0;
}

static int ck_md(int argc, char **argv, char *why, size_t n)
{
	static const char *const keys[] = { "legs", "helper", "cpu", "major", NULL };
	const char *v;
	sim_time t;

	if (check_opts(argc, argv, 1, keys, why, n) < 0)
		return -EINVAL;
	if (!opt(argc, argv, "legs")) {
		snprintf(why, n, "md needs legs=DEV[,DEV...]");
		return -EINVAL;
	}
	if ((v = opt(argc, argv, "cpu")) && sim_parse_time(v, &t) < 0) {
		snprintf(why, n, "bad time '%s'", v);
		return -EINVAL;
	}
	return 0;
}

static int ck_file(int argc, char **argv, char *why, size_t n)
{
	static const char *const keys[] = { "dev", NULL };

	if (check_opts(argc, argv, 1, keys, why, n) < 0)
		return -EINVAL;
	if (!opt(argc, argv, "dev")) {
		snprintf(why, n, "file needs dev=DEVICE");
		return -EINVAL;
	}
	return 0;
}

static int ck_iface(int argc, char **argv, char *why, size_t n)
{
	static const char *const keys[] = { "rate", NULL };
	const char *v;
	uint64_t x;

	if (check_opts(argc, argv, 1, keys, why, n) < 0)
		return -EINVAL;
	if ((v = opt(argc, argv, "rate")) && (parse_rate(v, &x) < 0 || x == 0)) {
		snprintf(why, n, "bad rate '%s'", v);
		return -EINVAL;
	}
	return 0;
}

static int ck_spawn(int argc, char **argv, char *why, size_t n)
{
	static const char *const keys[] = { "uid", NULL };
	const char *v;

	if (check_opts(argc, argv, 1, keys, why, n) < 0)
		return -EINVAL;
	if ((v = opt(argc, argv, "uid")))
		return ck_uint(v, UINT32_MAX - 1, "uid", why, n);
	return 0;
}

static int ck_busy(int argc, char **argv, char *why, size_t n)
{
	double d;

	if (argc == 2 && parse_cpus_frac(argv[1], &d) < 0) {
		snprintf(why, n, "bad CPU demand '%s' (0..1)", argv[1]);
		return -EINVAL;
	}
	return 0;
}

static int ck_taskset(int argc, char **argv, char *why, size_t n)
{
	uint64_t mask;

	(void)argc;
	if (sim_cpulist_parse(argv[1], &mask) < 0 || !mask) {
		snprintf(why, n, "bad CPU list '%s' (e.g. 0-1,3; CPUs 0..63)", argv[1]);
		return -EINVAL;
	}
	return 0;
}

static int ck_alloc(int argc, char **argv, char *why, size_t n)
{
	return ck_size(argv[1], "size", why, n);
}

static int ck_hugetlb(int argc, char **argv, char *why, size_t n)
{
	const char *p = argv[1][0] == '-' ? argv[1] + 1 : argv[1];

	return ck_uint(p, 1u << 20, "page count", why, n);
}

static int ck_io(int argc, char **argv, char *why, size_t n)
{
	if (ck_size(argv[2], "size", why, n) < 0)
		return -EINVAL;
	if (argc == 4 && strcmp(argv[3], "direct")) {
		snprintf(why, n, "expected 'direct', got '%s'", argv[3]);
		return -EINVAL;
	}
	return 0;
}

static int ck_flow(int argc, char **argv, char *why, size_t n)
{
	static const char *const keys[] = { "pkts", "size", "rate", "dport", NULL };
	const char *v;
	uint64_t x;

	if (check_opts(argc, argv, 2, keys, why, n) < 0)
		return -EINVAL;
	if (!(v = opt(argc, argv, "pkts")) || parse_uint(v, 1ull << 32, &x) < 0) {
		snprintf(why, n, "flow needs pkts=N");
		return -EINVAL;
	}
	if ((v = opt(argc, argv, "size")) && (parse_uint(v, 65535, &x) < 0 || x < 64)) {
		snprintf(why, n, "bad packet size '%s' (64..65535)", v);
		return -EINVAL;
	}
	if ((v = opt(argc, argv, "rate")) && (parse_rate(v, &x) < 0 || x == 0)) {
		snprintf(why, n, "bad rate '%s'", v);
		return -EINVAL;
	}
	if ((v = opt(argc, argv, "dport")))
		return ck_uint(v, 65535, "port", why, n);
	return 0;
}

/* ---- execution ----------------------------------------------------------------------- */

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

/* What resolve() makes of word, compiled at load: only for words it cannot refuse by
 * their shape (a NAME shorter than its buffer, a path that fits its buffer). */
static int compile_path(struct sim_cmd_path *cp, const char *word)
{
	const char *slash = strchr(word, '/');
	size_t nl = slash ? (size_t)(slash - word) : strlen(word);
	const char *rest = slash && slash[1] ? slash : "/";
	size_t rl = strlen(rest);

	if (strchr(word, '$') || nl >= 128 || rl >= 1024)
		return 0;
	while (rl > 1 && rest[rl - 1] == '/')
		rl--;
	cp->path = ucg_strndup(rest, rl);
	if (!cp->path)
		return -ENOMEM;
	cp->hlen = nl;
	return 0;
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
	s->cpu_dirty = true;
}

static void invalidate_subtree(struct sim_cg *cg)
{
	size_t i;

	cg->cfg_epoch = UINT64_MAX;
	for (i = 0; i < cg->nchildren; i++)
		invalidate_subtree(cg->children[i]);
}

static int ex_mount(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	struct ucg_hierarchy *h = NULL;
	struct ucg_err uerr;
	struct ucg_buf b;
	const char *p;
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
	ucg_htable_init(&hi->by_path);
	ucg_buf_init(&b);
	ucg_hierarchy_format_controllers(h, &b);
	for (p = b.data ? b.data : ""; *p;) {
		static const char *const names[SIM_SS_NR] = {
			"cpu", "cpuacct", "cpuset", "memory", "blkio", "freezer",
			"net_cls", "net_prio", "hugetlb", "pids"
		};
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < SIM_SS_NR; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				hi->ss_mask |= 1u << k;
		p += len;
		if (*p == ',')
			p++;
	}
	ucg_buf_fini(&b);
	s->hier[s->nhier++] = hi;
	r = sim_cg_add(s, hi, "/", NULL);
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
	r = sim_cg_add(s, hi, path, NULL);
	if (r < 0)
		return sim_fail(s, c->line, r, "mkdir");
	s->cpu_dirty = true;
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
	sim_cg_remove(s, hi, path);
	s->cpu_dirty = true;
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
	r = sim_cg_rename(s, h1, p1, p2);
	if (r < 0)
		return sim_fail(s, c->line, r, "mv");
	s->cpu_dirty = true;
	return 0;
}

/* Expands $name in template[0..len) into s->cmd_scratch (emptied first). */
static int expand_into_scratch(struct sim *s, struct sim_cmd *c, const char *tmpl, size_t len);

static int ex_echo(struct sim *s, struct sim_cmd *c)
{
	struct sim_hier *hi;
	const char *path, *value = c->value, *slash, *file;
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
	/* the written cgroup and its subtree re-read their control values */
	slash = strrchr(path, '/');
	file = slash ? slash + 1 : path;
	if (strcmp(file, "cgroup.procs") && strcmp(file, "tasks")) {
		char dir[1024];
		size_t dl = slash && slash != path ? (size_t)(slash - path) : 1;
		struct sim_cg *cg;

		memcpy(dir, slash && slash != path ? path : "/", dl);
		dir[dl] = '\0';
		cg = sim_cg_find(hi, dir);
		if (cg)
			invalidate_subtree(cg);
		else
			s->cfg_epoch++;
		s->cfg_writes++;
	}
	s->cpu_dirty = true;
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

	parse_uint(c->argv[1], 4096, &v);
	s->nr_cpus = (unsigned)v;
	s->cpu_dirty = true;
	return 0;
}

static int ex_memory(struct sim *s, struct sim_cmd *c)
{
	uint64_t v;

	parse_size(c->argv[1], &v);
	if (s->anon_used + s->cache_used > v / SIM_PAGE)
		return sim_fail(s, c->line, -EBUSY, "memory: %s: less than in use", c->argv[1]);
	s->mem_pages = v / SIM_PAGE;
	return 0;
}

static int ex_set(struct sim *s, struct sim_cmd *c)
{
	uint64_t v = 0;
	sim_time t = 0;

	parse_uint(c->argv[2], 100, &v);
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
	else if (!strcmp(c->argv[1], "swap") && parse_size(c->argv[2], &v) == 0)
		s->swap_pages = v / SIM_PAGE;
	return 0;
}

static int ex_device(struct sim *s, struct sim_cmd *c)
{
	unsigned maj, min;
	uint64_t bps = 100ull << 20, iops = 0;
	const char *v;
	int r;

	sscanf(c->argv[2], "%u:%u", &maj, &min);
	if ((v = opt(c->argc - 1, c->argv + 1, "bps")))
		parse_rate(v, &bps);
	if ((v = opt(c->argc - 1, c->argv + 1, "iops")))
		parse_uint(v, UINT32_MAX, &iops);
	r = sim_dev_add(s, c->argv[1], maj, min, bps, (uint32_t)iops, NULL);
	if (r < 0)
		return sim_fail(s, c->line, r, "device: %s", c->argv[1]);
	changed(s);
	return 0;
}

static int ex_md(struct sim *s, struct sim_cmd *c)
{
	const char *legs = opt(c->argc - 1, c->argv + 1, "legs");
	const char *helper = opt(c->argc - 1, c->argv + 1, "helper");
	const char *cpu = opt(c->argc - 1, c->argv + 1, "cpu");
	const char *num = opt(c->argc - 1, c->argv + 1, "major");
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
	struct sim_dev *d = sim_dev_find(s, opt(c->argc - 1, c->argv + 1, "dev"));
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
	const char *v = opt(c->argc - 1, c->argv + 1, "rate");

	if (v)
		parse_rate(v, &rate);
	return sim_net_iface(s, c->argv[1], rate * 8, c->line);
}

static int ex_spawn(struct sim *s, struct sim_cmd *c)
{
	const char *v = opt(c->argc - 1, c->argv + 1, "uid");
	uint64_t uid = 0;
	struct sim_task *t;
	int r;

	if (v)
		parse_uint(v, UINT32_MAX - 1, &uid);
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
		parse_cpus_frac(c->argv[2], &d);
	t->cpu_demand = d;
	s->cpu_dirty = true;
	return 0;
}

static int ex_taskset(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);

	if (!t)
		return s->run_err;
	sim_cpulist_parse(c->argv[2], &t->affinity);
	s->cpu_dirty = true;
	return 0;
}

static int ex_idle(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);

	if (!t)
		return s->run_err;
	t->cpu_demand = 0;
	s->cpu_dirty = true;
	return 0;
}

static int ex_alloc(struct sim *s, struct sim_cmd *c)
{
	struct sim_task *t = task_arg(s, c, c->argv[1]);
	uint64_t bytes;

	if (!t)
		return s->run_err;
	parse_size(c->argv[2], &bytes);
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
	parse_uint(neg ? c->argv[2] + 1 : c->argv[2], 1u << 20, &n);
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
	parse_size(c->argv[3], &bytes);
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
	parse_uint(opt(ac, av, "pkts"), 1ull << 32, &pkts);
	if ((v = opt(ac, av, "size")))
		parse_uint(v, 65535, &size);
	if ((v = opt(ac, av, "rate")))
		parse_rate(v, &rate);
	if ((v = opt(ac, av, "dport")))
		parse_uint(v, 65535, &dport);
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
	r = ucg_event_register(s->e, hi->h, path, c->argc > 2 ? c->argv[2] : "",
			       (uint64_t)c->line);
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

static const struct verb verbs[] = {
	{ "mount", 3, 3, ck_mount, ex_mount },
	{ "mkdir", 1, 1, NULL, ex_mkdir, 1 },
	{ "rmdir", 1, 1, NULL, ex_rmdir, 1 },
	{ "mv", 2, 2, NULL, ex_mv, 2 },
	{ "echo", 2, MAX_WORDS, ck_echo, ex_echo },
	{ "cat", 1, 1, NULL, ex_cat, 1 },
	{ "tc", 1, MAX_WORDS, NULL, ex_tc },
	{ "cpus", 1, 1, ck_cpus, ex_cpus },
	{ "memory", 1, 1, ck_memory, ex_memory },
	{ "set", 2, 2, ck_set, ex_set },
	{ "device", 2, 4, ck_device, ex_device },
	{ "md", 2, 5, ck_md, ex_md },
	{ "file", 2, 2, ck_file, ex_file },
	{ "iface", 1, 2, ck_iface, ex_iface },
	{ "spawn", 1, 2, ck_spawn, ex_spawn },
	{ "fork", 2, 2, NULL, ex_fork },
	{ "exit", 1, 1, NULL, ex_exit },
	{ "busy", 1, 2, ck_busy, ex_busy },
	{ "idle", 1, 1, NULL, ex_idle },
	{ "taskset", 2, 2, ck_taskset, ex_taskset },
	{ "alloc", 2, 2, ck_alloc, ex_alloc },
	{ "free", 2, 2, ck_alloc, ex_alloc },
	{ "hugetlb", 2, 2, ck_hugetlb, ex_hugetlb },
	{ "write", 3, 4, ck_io, ex_io },
	{ "read", 3, 4, ck_io, ex_io },
	{ "flow", 3, 6, ck_flow, ex_flow },
	{ "note", 0, MAX_WORDS, NULL, ex_note },
	{ "notify", 1, 2, NULL, ex_notify, 1 },
	{ "events", 0, 0, NULL, ex_events },
};

static const struct verb *verb_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

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
static int exec_expanded(struct sim *s, struct sim_cmd *c, const struct verb *v)
{
	char *tmp[MAX_WORDS + 1], **saved = c->argv;
	size_t off[MAX_WORDS];
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
	r = v->exec(s, c);
	c->argv = saved;
	return r;
}

int sim_cmd_exec(struct sim *s, struct sim_cmd *c)
{
	const struct verb *v = c->verb ? c->verb : verb_find(c->argv[0]);

	sim_cpu_flush(s); /* cpuacct files show the CPU time up to now */
	/* echo expands its own words (one template: they are joined anyway) */
	if (c->dollar && v->exec != ex_echo)
		return exec_expanded(s, c, v);
	return v->exec(s, c);
}

static void cmd_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	(void)arg;
	sim_cmd_exec(s, (struct sim_cmd *)src);
}

/* ---- parser ---------------------------------------------------------------------------- */

/* Splits a line into words; returns the count or -EINVAL (why says it). */
static int split(char *line, char **w, char *why, size_t whylen)
{
	char *p = line, *o;
	int n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		if (n == MAX_WORDS) {
			snprintf(why, whylen, "more than %d words", MAX_WORDS);
			return -EINVAL;
		}
		w[n++] = o = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r') {
			if (*p == '"') {
				p++;
				while (*p && *p != '"')
					*o++ = *p++;
				if (*p != '"') {
					snprintf(why, whylen, "unterminated quote");
					return -EINVAL;
				}
				p++;
			} else {
				*o++ = *p++;
			}
		}
		if (*p)
			p++;
		*o = '\0';
	}
	return n;
}

/* The parts of c that firing would otherwise work out each time (struct sim_cmd). */
static int compile_cmd(struct sim_cmd *c, const struct verb *v)
{
	int i, r;

	c->verb = v;
	for (i = 0; i < c->argc; i++)
		if (strchr(c->argv[i], '$'))
			c->dollar |= 1ull << i;
	for (i = 0; i < v->npaths; i++) {
		r = compile_path(&c->paths[i], c->argv[1 + i]);
		if (r < 0)
			return r;
	}
	if (v->exec == ex_echo) {
		struct ucg_buf b;

		ucg_buf_init(&b);
		for (i = 1; i < c->argc; i++) {
			if (i > 1)
				ucg_buf_putc(&b, ' ');
			ucg_buf_puts(&b, c->argv[i]);
		}
		ucg_buf_putc(&b, '\n');
		if (ucg_buf_error(&b)) {
			ucg_buf_fini(&b);
			return -ENOMEM;
		}
		c->value = ucg_buf_steal(&b, &c->value_len);
		return compile_path(&c->paths[0], c->redirect);
	}
	return 0;
}

static int add_cmd(struct sim *s, sim_time at, int line, int argc, char **argv,
		   const struct verb *verb)
{
	struct sim_cmd *c, *v;
	int i, echo = verb->exec == ex_echo;

	v = ucg_realloc(s->cmds, (s->ncmds + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->cmds = v;
	c = &s->cmds[s->ncmds];
	memset(c, 0, sizeof(*c));
	c->ev.fire = cmd_fire;
	c->at = at;
	c->line = line;
	if (echo) {
		c->redirect = ucg_strdup(argv[argc - 1]);
		if (!c->redirect)
			return -ENOMEM;
		argc -= 2;
	}
	c->argv = ucg_calloc((size_t)argc + 1, sizeof(char *));
	if (!c->argv) {
		ucg_free(c->redirect);
		return -ENOMEM;
	}
	c->argc = argc;
	s->ncmds++; /* from here sim_scenario_fini frees what was copied */
	for (i = 0; i < argc; i++) {
		c->argv[i] = ucg_strdup(argv[i]);
		if (!c->argv[i])
			return -ENOMEM;
	}
	return compile_cmd(c, verb);
}

int sim_scenario_parse(struct sim *s, const char *filename, const char *text, size_t len,
		       struct sim_err *err)
{
	const char *p = text, *end = text + len;
	sim_time cursor = 0, last = 0;
	char *line = NULL;
	int lineno = 0, r = 0;
	char why[256];

	ucg_free(s->filename);
	s->filename = ucg_strdup(filename ? filename : "scenario");
	line = ucg_malloc(MAX_LINE + 1);
	if (!s->filename || !line) {
		r = -ENOMEM;
		snprintf(why, sizeof(why), "out of memory");
		goto fail;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *w[MAX_WORDS];
		const struct verb *v;
		sim_time at;
		int n, argc0 = 0;

		lineno++;
		why[0] = '\0';
		if (ll > MAX_LINE) {
			r = -EINVAL;
			snprintf(why, sizeof(why), "line longer than %d bytes", MAX_LINE);
			goto fail;
		}
		memcpy(line, p, ll);
		line[ll] = '\0';
		p += ll + (nl ? 1 : 0);
		if (memchr(line, '\0', ll)) {
			r = -EINVAL;
			snprintf(why, sizeof(why), "NUL byte in line");
			goto fail;
		}
		n = split(line, w, why, sizeof(why));
		if (n < 0) {
			r = n;
			goto fail;
		}
		if (n == 0)
			continue;
		at = cursor;
		if (!strcmp(w[0], "run")) {
			sim_time d;

			if (n != 2 || sim_parse_time(w[1], &d) < 0) {
				r = -EINVAL;
				snprintf(why, sizeof(why), "usage: run TIME (e.g. 60s)");
				goto fail;
			}
			cursor += d;
			if (cursor > SIM_MAX_TIME) {
				r = -EINVAL;
				snprintf(why, sizeof(why), "virtual time past a year");
				goto fail;
			}
			if (cursor > last)
				last = cursor;
			continue;
		}
		if (!strcmp(w[0], "at")) {
			if (n < 3 || sim_parse_time(w[1], &at) < 0) {
				r = -EINVAL;
				snprintf(why, sizeof(why), "usage: at TIME COMMAND");
				goto fail;
			}
			if (at > SIM_MAX_TIME) {
				r = -EINVAL;
				snprintf(why, sizeof(why), "virtual time past a year");
				goto fail;
			}
			argc0 = 2;
			if (at > last)
				last = at;
		}
		v = verb_find(w[argc0]);
		if (!v) {
			r = -EINVAL;
			snprintf(why, sizeof(why), "unknown command '%s'", w[argc0]);
			goto fail;
		}
		if (n - argc0 - 1 < v->min || n - argc0 - 1 > v->max) {
			r = -EINVAL;
			snprintf(why, sizeof(why), "%s: wrong number of arguments", v->name);
			goto fail;
		}
		if (v->check && (r = v->check(n - argc0 - 1, w + argc0 + 1, why, sizeof(why))) < 0)
			goto fail;
		r = add_cmd(s, at, lineno, n - argc0, w + argc0, v);
		if (r < 0) {
			snprintf(why, sizeof(why), "out of memory");
			goto fail;
		}
	}
	s->end = last;
	ucg_free(line);
	return 0;
fail:
	if (err)
		snprintf(err->msg, sizeof(err->msg), "%s:%d: %s", filename ? filename : "scenario",
			 lineno, why[0] ? why : ucg_strerror(r));
	ucg_free(line);
	sim_scenario_fini(s);
	return r;
}

void sim_scenario_fini(struct sim *s)
{
	size_t i;
	int k;

	for (i = 0; i < s->ncmds; i++) {
		for (k = 0; k < s->cmds[i].argc; k++)
			ucg_free(s->cmds[i].argv[k]);
		ucg_free(s->cmds[i].argv);
		ucg_free(s->cmds[i].redirect);
		ucg_free(s->cmds[i].value);
		ucg_free(s->cmds[i].paths[0].path);
		ucg_free(s->cmds[i].paths[1].path);
	}
	ucg_free(s->cmds);
	ucg_buf_fini(&s->cmd_scratch);
	s->cmds = NULL;
	s->ncmds = 0;
}
