/* host/v2stat.c — v1 statistics from v2 files (see v2stat.h for the sources).
 *
 * v2's memory.stat and io.stat count a cgroup with its descendants; v1's plain keys
 * count the cgroup alone. A v2 leaf has no descendants, so for the leaves the daemon
 * makes (one per combination of v1 cgroups) both agree; memory.stat's plain and total_
 * keys therefore carry the same v2 figure.
 */
#include "host/v2stat.h"

#include "host/v1v2.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ucg_v2_keyed(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *p = text;
	char *end;
	unsigned long long v;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			errno = 0;
			v = strtoull(p + klen + 1, &end, 10);
			if (errno || end == p + klen + 1 || (*end && *end != '\n'))
				return -EINVAL;
			*ret = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

struct reader {
	ucg_v2_read_fn read;
	void *ctx;
	struct ucg_buf b;
};

/* Reads file whole into r->b (replacing it). */
static int get(struct reader *r, const char *file)
{
	int e;

	ucg_buf_reset(&r->b);
	e = r->read(r->ctx, file, &r->b);
	if (e < 0)
		return e;
	if (ucg_buf_error(&r->b))
		return -ENOMEM;
	if (!r->b.data)
		ucg_buf_puts(&r->b, "");
	return ucg_buf_error(&r->b);
}

/* A single-value file, "max" reading as UCG_V1_MEM_MAX. */
static int get_u64(struct reader *r, const char *file, uint64_t *ret)
{
	char *end;
	int e = get(r, file);

	if (e < 0)
		return e;
	if (!strncmp(r->b.data, "max", 3)) {
		*ret = UCG_V1_MEM_MAX;
		return 0;
	}
	errno = 0;
	*ret = strtoull(r->b.data, &end, 10);
	if (errno || end == r->b.data)
		return -EINVAL;
	return 0;
}

static int get_key(struct reader *r, const char *file, const char *key, uint64_t *ret)
{
	int e = get(r, file);

	return e < 0 ? e : ucg_v2_keyed(r->b.data, key, ret);
}

/* memory.stat: v1 names in 6.18's order, each from a v2 key (NULL: not in v2, 0) */
static const struct {
	const char *v1, *v2;
} mem_stat_map[] = {
	{ "cache", "file" },
	{ "rss", "anon" },
	{ "rss_huge", "anon_thp" },
	{ "shmem", "shmem" },
	{ "mapped_file", "file_mapped" },
	{ "dirty", "file_dirty" },
	{ "writeback", "file_writeback" },
	{ "workingset_refault_anon", "workingset_refault_anon" },
	{ "workingset_refault_file", "workingset_refault_file" },
	{ "swap", NULL }, /* memory.swap.current */
	{ "swapcached", "swapcached" },
	{ "pgpgin", NULL },
	{ "pgpgout", NULL },
	{ "pgfault", "pgfault" },
	{ "pgmajfault", "pgmajfault" },
	{ "inactive_anon", "inactive_anon" },
	{ "active_anon", "active_anon" },
	{ "inactive_file", "inactive_file" },
	{ "active_file", "active_file" },
	{ "unevictable", "unevictable" },
};
#define NR_MEM_STAT (sizeof(mem_stat_map) / sizeof(mem_stat_map[0]))

static int show_memory_stat(struct reader *r, struct ucg_buf *out)
{
	uint64_t v[NR_MEM_STAT], swap = 0, mem_max, swap_max = UCG_V1_MEM_MAX;
	size_t i;
	int e;

	e = get_u64(r, "memory.max", &mem_max);
	if (e < 0)
		return e;
	if (get_u64(r, "memory.swap.current", &swap) < 0)
		swap = 0;
	if (get_u64(r, "memory.swap.max", &swap_max) < 0)
		swap_max = UCG_V1_MEM_MAX;
	e = get(r, "memory.stat");
	if (e < 0)
		return e;
	for (i = 0; i < NR_MEM_STAT; i++) {
		v[i] = 0;
		if (mem_stat_map[i].v2)
			ucg_v2_keyed(r->b.data, mem_stat_map[i].v2, &v[i]);
		else if (!strcmp(mem_stat_map[i].v1, "swap"))
			v[i] = swap;
		ucg_buf_printf(out, "%s %" PRIu64 "\n", mem_stat_map[i].v1, v[i]);
	}
	ucg_buf_printf(out, "hierarchical_memory_limit %" PRIu64 "\n", mem_max);
	ucg_buf_printf(out, "hierarchical_memsw_limit %" PRIu64 "\n",
		       mem_max >= UCG_V1_MEM_MAX || swap_max >= UCG_V1_MEM_MAX
			       ? (uint64_t)UCG_V1_MEM_MAX
			       : mem_max + swap_max);
	for (i = 0; i < NR_MEM_STAT; i++)
		ucg_buf_printf(out, "total_%s %" PRIu64 "\n", mem_stat_map[i].v1, v[i]);
	return 0;
}

static int show_memory(struct reader *r, const char *f, struct ucg_buf *out)
{
	uint64_t a, b;
	int e;

	if (!strcmp(f, "memory.usage_in_bytes") || !strcmp(f, "memory.max_usage_in_bytes")) {
		e = get_u64(r, f[7] == 'u' ? "memory.current" : "memory.peak", &a);
		goto one;
	}
	if (!strcmp(f, "memory.failcnt")) {
		e = get_key(r, "memory.events", "max", &a);
		goto one;
	}
	if (!strcmp(f, "memory.memsw.failcnt")) {
		e = get_key(r, "memory.swap.events", "max", &a);
		goto one;
	}
	if (!strcmp(f, "memory.memsw.usage_in_bytes")) {
		e = get_u64(r, "memory.current", &a);
		if (e < 0)
			return e;
		e = get_u64(r, "memory.swap.current", &b);
		a += b;
		goto one;
	}
	if (!strcmp(f, "memory.oom_control")) {
		uint64_t oom = 0, kill = 0;

		e = get_key(r, "memory.events", "oom_kill", &kill);
		if (e < 0)
			return e;
		ucg_v2_keyed(r->b.data, "oom", &oom);
		ucg_buf_printf(out, "oom_kill_disable 0\nunder_oom %d\noom_kill %" PRIu64 "\n",
			       oom > kill, kill);
		return 0;
	}
	if (!strcmp(f, "memory.stat"))
		return show_memory_stat(r, out);
	return -ENOENT;
one:
	if (e < 0)
		return e;
	ucg_buf_printf(out, "%" PRIu64 "\n", a);
	return 0;
}

static int show_cpu(struct reader *r, const char *f, struct ucg_buf *out)
{
	static const struct {
		const char *v1, *v2;
	} acct[] = {
		{ "cpuacct.usage", "usage_usec" },
		{ "cpuacct.usage_user", "user_usec" },
		{ "cpuacct.usage_sys", "system_usec" },
	};
	uint64_t a = 0, b = 0, c = 0;
	size_t i;
	int e;

	for (i = 0; i < sizeof(acct) / sizeof(acct[0]); i++) {
		if (strcmp(f, acct[i].v1))
			continue;
		e = get_key(r, "cpu.stat", acct[i].v2, &a);
		if (e < 0)
			return e;
		ucg_buf_printf(out, "%" PRIu64 "\n", a * 1000);
		return 0;
	}
	if (!strcmp(f, "cpuacct.stat")) {
		e = get_key(r, "cpu.stat", "user_usec", &a);
		if (e == 0)
			e = ucg_v2_keyed(r->b.data, "system_usec", &b);
		if (e < 0)
			return e;
		ucg_buf_printf(out, "user %" PRIu64 "\nsystem %" PRIu64 "\n", a / 10000, b / 10000);
		return 0;
	}
	if (!strcmp(f, "cpu.stat")) {
		e = get(r, "cpu.stat");
		if (e < 0)
			return e;
		/* without the cpu controller (hybrid hosts) cpu.stat has only the usage */
		if (ucg_v2_keyed(r->b.data, "nr_periods", &a) < 0)
			return -ENOENT;
		ucg_v2_keyed(r->b.data, "nr_throttled", &b);
		ucg_v2_keyed(r->b.data, "throttled_usec", &c);
		ucg_buf_printf(out,
			       "nr_periods %" PRIu64 "\nnr_throttled %" PRIu64
			       "\nthrottled_time %" PRIu64 "\n",
			       a, b, c * 1000);
		if (ucg_v2_keyed(r->b.data, "nr_bursts", &a) == 0 &&
		    ucg_v2_keyed(r->b.data, "burst_usec", &b) == 0)
			ucg_buf_printf(out, "nr_bursts %" PRIu64 "\nburst_time %" PRIu64 "\n", a,
				       b * 1000);
		return 0;
	}
	return -ENOENT;
}

/* io.stat lines "MAJ:MIN rbytes=.. wbytes=.. rios=.. wios=.. dbytes=.. dios=.." */
static int show_io(struct reader *r, int bytes, struct ucg_buf *out)
{
	const char *p, *rk = bytes ? "rbytes=" : "rios=", *wk = bytes ? "wbytes=" : "wios=",
		       *dk = bytes ? "dbytes=" : "dios=";
	uint64_t total = 0;
	int e = get(r, "io.stat");

	if (e < 0)
		return e;
	for (p = r->b.data; *p;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p), *q;
		unsigned int maj, min;
		uint64_t rd = 0, wr = 0, dc = 0;

		if (sscanf(p, "%u:%u", &maj, &min) == 2) {
			for (q = strchr(p, ' '); q && q < end; q = strchr(q + 1, ' ')) {
				if (!strncmp(q + 1, rk, strlen(rk)))
					rd = strtoull(q + 1 + strlen(rk), NULL, 10);
				else if (!strncmp(q + 1, wk, strlen(wk)))
					wr = strtoull(q + 1 + strlen(wk), NULL, 10);
				else if (!strncmp(q + 1, dk, strlen(dk)))
					dc = strtoull(q + 1 + strlen(dk), NULL, 10);
			}
			/* v2 does not split sync from async: reads are counted as sync,
			 * writes as async (docs/enforcement.md) */
			ucg_buf_printf(out,
				       "%u:%u Read %" PRIu64 "\n%u:%u Write %" PRIu64
				       "\n%u:%u Sync %" PRIu64 "\n%u:%u Async %" PRIu64
				       "\n%u:%u Discard %" PRIu64 "\n%u:%u Total %" PRIu64 "\n",
				       maj, min, rd, maj, min, wr, maj, min, rd, maj, min, wr, maj,
				       min, dc, maj, min, rd + wr + dc);
			total += rd + wr + dc;
		}
		p = nl ? nl + 1 : end;
	}
	ucg_buf_printf(out, "Total %" PRIu64 "\n", total);
	return 0;
}

static int show_misc(struct reader *r, const char *f, struct ucg_buf *out)
{
	uint64_t a, b;
	int e;

	if (!strcmp(f, "pids.current") || !strcmp(f, "pids.events")) {
		e = get(r, f);
		if (e == 0)
			ucg_buf_puts(out, r->b.data);
		return e;
	}
	if (!strcmp(f, "freezer.state") || !strcmp(f, "freezer.self_freezing")) {
		e = get_u64(r, "cgroup.freeze", &a);
		if (e < 0)
			return e;
		if (f[8] == 's' && f[9] == 'e') {
			ucg_buf_printf(out, "%d\n", a == 1);
			return 0;
		}
		e = get_key(r, "cgroup.events", "frozen", &b);
		if (e < 0)
			return e;
		ucg_buf_puts(out, b ? "FROZEN\n" : a ? "FREEZING\n" : "THAWED\n");
		return 0;
	}
	if (!strcmp(f, "cpuset.effective_cpus") || !strcmp(f, "cpuset.effective_mems")) {
		e = get(r, f[17] == 'c' ? "cpuset.cpus.effective" : "cpuset.mems.effective");
		if (e == 0)
			ucg_buf_puts(out, r->b.data);
		return e;
	}
	if (!strncmp(f, "hugetlb.", 8)) {
		const char *dot = strchr(f + 8, '.');
		char v2[UCG_V2_FILE_MAX];

		if (!dot || dot - f > 32)
			return -ENOENT;
		if (!strcmp(dot, ".usage_in_bytes")) {
			snprintf(v2, sizeof(v2), "%.*s.current", (int)(dot - f), f);
			e = get_u64(r, v2, &a);
		} else if (!strcmp(dot, ".failcnt")) {
			snprintf(v2, sizeof(v2), "%.*s.events", (int)(dot - f), f);
			e = get_key(r, v2, "max", &a);
		} else {
			return -ENOENT;
		}
		if (e < 0)
			return e;
		ucg_buf_printf(out, "%" PRIu64 "\n", a);
		return 0;
	}
	return -ENOENT;
}

int ucg_v2stat_show(const char *f, ucg_v2_read_fn read, void *ctx, struct ucg_buf *out)
{
	struct reader r = { .read = read, .ctx = ctx };
	size_t start = out->len;
	int e;

	ucg_buf_init(&r.b);
	if (!strncmp(f, "memory.", 7))
		e = show_memory(&r, f, out);
	else if (!strncmp(f, "cpu.", 4) || !strncmp(f, "cpuacct.", 8))
		e = show_cpu(&r, f, out);
	else if (!strcmp(f, "blkio.io_service_bytes") ||
		 !strcmp(f, "blkio.throttle.io_service_bytes"))
		e = show_io(&r, 1, out);
	else if (!strcmp(f, "blkio.io_serviced") || !strcmp(f, "blkio.throttle.io_serviced"))
		e = show_io(&r, 0, out);
	else
		e = show_misc(&r, f, out);
	ucg_buf_fini(&r.b);
	if (e == 0 && ucg_buf_error(out))
		e = -ENOMEM;
	if (e < 0 && out->data && !out->failed) {
		out->len = start; /* nothing of a failed show stays */
		out->data[start] = '\0';
	}
	return e;
}
