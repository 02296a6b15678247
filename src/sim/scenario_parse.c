/* sim/scenario_parse.c — the scenario language and its parser: a file becomes an array
 * of compiled commands (struct sim_cmd), each checked in full before anything runs;
 * scenario_exec.c runs them as they fire.
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
 *     dirty_background_ratio, dirty_expire, writeback_interval, sample, swap;
 *     cpu_model fluid|tick, hz N, cfs_slice TIME: CFS bandwidth, cpu_tick.c;
 *     weight_refresh N: the tick model's lazy group weights, every N ticks, cpu_rq.c)
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
 *   ucgroups' v2 enforcement of a divergent layout (v2split.c)
 *     split NAME [quota=US] [period=US] [shares=N] LEAF...
 *                                (v1 cpu group NAME's settings divided over the leaves
 *                                of a v2-shaped cpu tree, once a virtual second)
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
 * with file:line, the command and the errno text, as a shell would print it
 * (scenario_exec.c).
 *
 * Limits: no variables besides $task, no loops (generate long scenarios instead), no
 * credentials other than root for file commands.
 */
#include "sim/scenario_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#define MAX_LINE 4096
#define SIM_MAX_TIME (366LL * 24 * 3600 * SIM_SEC) /* a year of virtual time */

/* A verb as the parser knows it (SIM_VERBS); its index is its enum sim_verb. */
struct verb {
	const char *name;
	int min, max; /* argument counts, words after the verb */
	int (*check)(int argc, char **argv, char *why, size_t whylen);
	int npaths; /* its first npaths arguments are NAME/path words (compiled at load) */
};

/* ---- numbers ---------------------------------------------------------------------- */

int sim_parse_size(const char *p, uint64_t *ret)
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
	case 'k':
	case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ull << 30;
		end++;
		break;
	case 't':
	case 'T':
		mult = 1ull << 40;
		end++;
		break;
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
int sim_parse_rate(const char *p, uint64_t *ret)
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
		case 'k':
		case 'K':
			mult = 1000;
			end++;
			break;
		case 'm':
		case 'M':
			mult = 1000000;
			end++;
			break;
		case 'g':
		case 'G':
			mult = 1000000000;
			end++;
			break;
		default: break;
		}
		if (strcmp(end, "bit") || (v && mult > UINT64_MAX / v))
			return -EINVAL;
		*ret = v * mult / 8;
		return 0;
	}
	return sim_parse_size(p, ret);
}

int sim_parse_uint(const char *p, uint64_t max, uint64_t *ret)
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

int sim_parse_cpus_frac(const char *p, double *ret)
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

/* A CPU list, "0-1,3", into bits (CPUs 0..63); 0 or -EINVAL. */
int sim_cpulist_parse(const char *p, uint64_t *ret)
{
	uint64_t m = 0;

	if (!*p)
		return -EINVAL;
	while (*p) {
		char *end;
		unsigned long a, z;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = z = strtoul(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -EINVAL;
			z = strtoul(end + 1, &end, 10);
		}
		if (a > z || z > 63)
			return -EINVAL;
		for (; a <= z; a++)
			m |= 1ull << a;
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	*ret = m;
	return 0;
}

/* "key=value" among argv: the value, or NULL. */
const char *sim_opt_find(int argc, char **argv, const char *key)
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

	if (sim_parse_uint(w, max, &v) < 0) {
		snprintf(why, n, "bad %s '%s'", what, w);
		return -EINVAL;
	}
	return 0;
}

/* A decimal integer from lo to hi: "bad WHAT 'w' (lo..hiUNIT)" else */
static int ck_range(const char *w, uint64_t lo, uint64_t hi, const char *what, const char *unit,
		    char *why, size_t n)
{
	uint64_t v;

	if (sim_parse_uint(w, hi, &v) < 0 || v < lo) {
		snprintf(why, n, "bad %s '%s' (%llu..%llu%s)", what, w, (unsigned long long)lo,
			 (unsigned long long)hi, unit);
		return -EINVAL;
	}
	return 0;
}

static int ck_size(const char *w, const char *what, char *why, size_t n)
{
	uint64_t v;

	if (sim_parse_size(w, &v) < 0) {
		snprintf(why, n, "bad %s '%s'", what, w);
		return -EINVAL;
	}
	return 0;
}

static int ck_cpus(int argc, char **argv, char *why, size_t n)
{
	uint64_t v;

	if (sim_parse_uint(argv[0], 4096, &v) < 0 || v == 0) {
		snprintf(why, n, "bad CPU count '%s' (1..4096)", argv[0]);
		return -EINVAL;
	}
	return 0;
}

static int ck_memory(int argc, char **argv, char *why, size_t n)
{
	uint64_t v;

	if (sim_parse_size(argv[0], &v) < 0 || v < 16 * SIM_PAGE || v > (64ull << 30)) {
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

		if (sim_parse_size(argv[1], &v) < 0 || v > (64ull << 30)) {
			snprintf(why, n, "bad swap size '%s' (0..64G)", argv[1]);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(argv[0], "cpu_model")) {
		if (strcmp(argv[1], "fluid") && strcmp(argv[1], "tick")) {
			snprintf(why, n, "bad CPU model '%s' (fluid or tick)", argv[1]);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(argv[0], "hz"))
		return ck_range(argv[1], 10, 10000, "HZ", "", why, n);
	if (!strcmp(argv[0], "weight_refresh"))
		return ck_range(argv[1], 1, 1000, "refresh", " ticks", why, n);
	if (!strcmp(argv[0], "cfs_slice")) {
		/* sched_cfs_bandwidth_slice_us: 1 us or more */
		if (sim_parse_time(argv[1], &t) < 0 || t < SIM_USEC || t > SIM_SEC) {
			snprintf(why, n, "bad slice '%s' (1us..1s)", argv[1]);
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
	if ((v = sim_opt_find(argc, argv, "bps")) && (sim_parse_rate(v, &x) < 0 || x == 0)) {
		snprintf(why, n, "bad bps '%s'", v);
		return -EINVAL;
	}
	if ((v = sim_opt_find(argc, argv, "iops")))
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
	if (!sim_opt_find(argc, argv, "legs")) {
		snprintf(why, n, "md needs legs=DEV[,DEV...]");
		return -EINVAL;
	}
	if ((v = sim_opt_find(argc, argv, "cpu")) && sim_parse_time(v, &t) < 0) {
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
	if (!sim_opt_find(argc, argv, "dev")) {
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
	if ((v = sim_opt_find(argc, argv, "rate")) && (sim_parse_rate(v, &x) < 0 || x == 0)) {
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
	if ((v = sim_opt_find(argc, argv, "uid")))
		return ck_uint(v, UINT32_MAX - 1, "uid", why, n);
	return 0;
}

static int ck_busy(int argc, char **argv, char *why, size_t n)
{
	double d;

	if (argc == 2 && sim_parse_cpus_frac(argv[1], &d) < 0) {
		snprintf(why, n, "bad CPU demand '%s' (0..1)", argv[1]);
		return -EINVAL;
	}
	return 0;
}

/* split NAME [quota=US] [period=US] [shares=N] LEAF...: the options are v1 cpu
 * settings (a quota of -1 or none: no quota), every other word a leaf's path. */
static int ck_split(int argc, char **argv, char *why, size_t n)
{
	const char *v;
	uint64_t x;
	int i, leaves = 0;

	for (i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (!eq) {
			leaves++;
			continue;
		}
		if (strncmp(argv[i], "quota=", 6) && strncmp(argv[i], "period=", 7) &&
		    strncmp(argv[i], "shares=", 7)) {
			snprintf(why, n, "unknown option '%.*s'", (int)(eq - argv[i]), argv[i]);
			return -EINVAL;
		}
	}
	if (!leaves) {
		snprintf(why, n, "no leaf to split over");
		return -EINVAL;
	}
	v = sim_opt_find(argc, argv, "quota");
	if (v && strcmp(v, "-1") && (sim_parse_uint(v, 1000000000, &x) < 0 || x < 1000)) {
		snprintf(why, n, "bad quota '%s' (-1, or 1000..1000000000 us)", v);
		return -EINVAL;
	}
	v = sim_opt_find(argc, argv, "period");
	if (v && (sim_parse_uint(v, 1000000, &x) < 0 || x < 1000)) {
		snprintf(why, n, "bad period '%s' (1000..1000000 us)", v);
		return -EINVAL;
	}
	v = sim_opt_find(argc, argv, "shares");
	if (v && (sim_parse_uint(v, 262144, &x) < 0 || x < 2)) {
		snprintf(why, n, "bad shares '%s' (2..262144)", v);
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
	if (!(v = sim_opt_find(argc, argv, "pkts")) || sim_parse_uint(v, 1ull << 32, &x) < 0) {
		snprintf(why, n, "flow needs pkts=N");
		return -EINVAL;
	}
	if ((v = sim_opt_find(argc, argv, "size")) &&
	    (sim_parse_uint(v, 65535, &x) < 0 || x < 64)) {
		snprintf(why, n, "bad packet size '%s' (64..65535)", v);
		return -EINVAL;
	}
	if ((v = sim_opt_find(argc, argv, "rate")) && (sim_parse_rate(v, &x) < 0 || x == 0)) {
		snprintf(why, n, "bad rate '%s'", v);
		return -EINVAL;
	}
	if ((v = sim_opt_find(argc, argv, "dport")))
		return ck_uint(v, 65535, "port", why, n);
	return 0;
}

#define PARSE_VERB(id, name, min, max, check, exec, npaths)                                        \
	[SIM_VERB_##id] = { name, min, max, check, npaths },
static const struct verb verbs[] = { SIM_VERBS(PARSE_VERB) };
#undef PARSE_VERB

static const struct verb *verb_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
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
		if (n == SIM_SCN_MAX_WORDS) {
			snprintf(why, whylen, "more than %d words", SIM_SCN_MAX_WORDS);
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

	c->verb = (int)(v - verbs);
	for (i = 0; i < c->argc; i++)
		if (strchr(c->argv[i], '$'))
			c->dollar |= 1ull << i;
	for (i = 0; i < v->npaths; i++) {
		r = compile_path(&c->paths[i], c->argv[1 + i]);
		if (r < 0)
			return r;
	}
	if (c->verb == SIM_VERB_ECHO) {
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
	int i, echo = verb == &verbs[SIM_VERB_ECHO];

	v = ucg_realloc(s->cmds, (s->ncmds + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->cmds = v;
	c = &s->cmds[s->ncmds];
	memset(c, 0, sizeof(*c));
	c->ev.fire = sim_cmd_fire;
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
		char *w[SIM_SCN_MAX_WORDS];
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
