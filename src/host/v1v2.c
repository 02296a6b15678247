/* host/v1v2.c — v1 settings to v2 files (see v1v2.h for the formulas).
 *
 * Pure: no I/O. Per-device files take the line written ("8:0 1048576"); the memory
 * files take the kernel's memparse syntax, as the engine accepted it.
 */
#include "host/v1v2.h"

#include "base/memparse.h"
#include "base/parse.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void ucg_v1v2_state_init(struct ucg_v1v2_state *st)
{
	st->mem_limit = UCG_V1_MEM_MAX;
	st->memsw_limit = UCG_V1_MEM_MAX;
	st->cfs_quota_us = -1;
	st->cfs_period_us = 100000;
}

uint64_t ucg_v1v2_io_weight(uint64_t weight)
{
	if (weight == 0)
		return 0;
	if (weight < 10)
		weight = 10;
	if (weight > 1000)
		weight = 1000;
	return 1 + (weight - 10) * 9999 / 990;
}

static void set(struct ucg_v2_set *s, const char *file, int optional, const char *fmt,
		const char *a, uint64_t b)
{
	snprintf(s->file, sizeof(s->file), "%s", file);
	if (a)
		snprintf(s->value, sizeof(s->value), fmt, a, (unsigned long long)b);
	else
		snprintf(s->value, sizeof(s->value), fmt, (unsigned long long)b);
	s->optional = optional;
}

/* bytes as memory.max/low/swap.max take them: whole pages, "max" when unlimited */
static void set_mem(struct ucg_v2_set *s, const char *file, uint64_t bytes)
{
	if (bytes >= UCG_V1_MEM_MAX)
		set(s, file, 0, "max", NULL, 0);
	else
		set(s, file, 0, "%llu", NULL, bytes & ~4095ULL);
}

/* memory.swap.max from the two v1 limits */
static void set_swap(struct ucg_v2_set *s, const struct ucg_v1v2_state *st)
{
	if (st->memsw_limit >= UCG_V1_MEM_MAX)
		set(s, "memory.swap.max", 1, "max", NULL, 0);
	else if (st->mem_limit >= UCG_V1_MEM_MAX || st->memsw_limit < st->mem_limit)
		set_mem(s, "memory.swap.max", st->memsw_limit); /* v1 refuses this pair */
	else
		set(s, "memory.swap.max", 1, "%llu", NULL,
		    (st->memsw_limit & ~4095ULL) - (st->mem_limit & ~4095ULL));
	s->optional = 1; /* no swap accounting: nothing to limit */
}

static int parse_mem(const char *buf, size_t len, uint64_t *ret)
{
	uint64_t v;
	int r = ucg_parse_mem(buf, len, &v, NULL);

	if (r < 0)
		return r;
	*ret = v >= UCG_V1_MEM_MAX ? UCG_V1_MEM_MAX : v & ~4095ULL;
	return 0;
}

/* "MAJ:MIN VALUE" -> dev "MAJ:MIN", value */
static int parse_dev_line(const char *buf, size_t len, char *dev, size_t devsz, uint64_t *val)
{
	char line[128];
	unsigned int maj, min;
	unsigned long long v;
	int end = 0;

	len = ucg_text_len(buf, len);
	if (len >= sizeof(line))
		return -EINVAL;
	memcpy(line, buf, len);
	line[len] = '\0';
	if (sscanf(line, " %u:%u %llu %n", &maj, &min, &v, &end) != 3 || line[end] != '\0')
		return -EINVAL;
	snprintf(dev, devsz, "%u:%u", maj, min);
	*val = v;
	return 0;
}

static int translate_blkio(const char *file, const char *buf, size_t len, struct ucg_v2_set *out)
{
	static const struct {
		const char *v1, *key;
	} throttle[] = {
		{ "blkio.throttle.read_bps_device", "rbps" },
		{ "blkio.throttle.write_bps_device", "wbps" },
		{ "blkio.throttle.read_iops_device", "riops" },
		{ "blkio.throttle.write_iops_device", "wiops" },
	};
	char dev[32], val[UCG_V2_VALUE_MAX];
	uint64_t v;
	size_t i;
	int r;

	if (!strcmp(file, "blkio.weight")) {
		r = ucg_parse_u64(buf, ucg_text_len(buf, len), &v);
		if (r < 0)
			return r;
		set(&out[0], "io.bfq.weight", 1, "default %llu", NULL, v);
		set(&out[1], "io.weight", 1, "default %llu", NULL, ucg_v1v2_io_weight(v));
		return 2;
	}
	if (!strcmp(file, "blkio.weight_device")) {
		r = parse_dev_line(buf, len, dev, sizeof(dev), &v);
		if (r < 0)
			return r;
		if (v == 0) {
			set(&out[0], "io.bfq.weight", 1, "%s default", dev, 0);
			set(&out[1], "io.weight", 1, "%s default", dev, 0);
		} else {
			set(&out[0], "io.bfq.weight", 1, "%s %llu", dev, v);
			set(&out[1], "io.weight", 1, "%s %llu", dev, ucg_v1v2_io_weight(v));
		}
		return 2;
	}
	for (i = 0; i < sizeof(throttle) / sizeof(throttle[0]); i++) {
		if (strcmp(file, throttle[i].v1))
			continue;
		r = parse_dev_line(buf, len, dev, sizeof(dev), &v);
		if (r < 0)
			return r;
		if (v == 0)
			snprintf(val, sizeof(val), "%s %s=max", dev, throttle[i].key);
		else
			snprintf(val, sizeof(val), "%s %s=%llu", dev, throttle[i].key,
				 (unsigned long long)v);
		set(&out[0], "io.max", 0, "%s", val, 0);
		return 1;
	}
	return -ENOENT;
}

static void set_cpu_max(struct ucg_v2_set *s, const struct ucg_v1v2_state *st)
{
	snprintf(s->file, sizeof(s->file), "cpu.max");
	s->optional = 0;
	if (st->cfs_quota_us < 0)
		snprintf(s->value, sizeof(s->value), "max %llu",
			 (unsigned long long)st->cfs_period_us);
	else
		snprintf(s->value, sizeof(s->value), "%lld %llu", (long long)st->cfs_quota_us,
			 (unsigned long long)st->cfs_period_us);
}

static int translate_cpu(struct ucg_v1v2_state *st, const char *file, const char *buf, size_t len,
			 struct ucg_v2_set *out)
{
	uint64_t v;
	int64_t q;
	int r;

	len = ucg_text_len(buf, len);
	if (!strcmp(file, "cpu.shares")) {
		r = ucg_parse_u64(buf, len, &v);
		if (r < 0)
			return r;
		set(&out[0], "cpu.weight", 0, "%llu", NULL, ucg_v1v2_cpu_weight(v < 2 ? 2 : v));
		return 1;
	}
	if (!strcmp(file, "cpu.cfs_quota_us")) {
		r = ucg_parse_s64(buf, len, &q);
		if (r < 0)
			return r;
		st->cfs_quota_us = q < 0 ? -1 : q;
		set_cpu_max(&out[0], st);
		return 1;
	}
	if (!strcmp(file, "cpu.cfs_period_us")) {
		r = ucg_parse_u64(buf, len, &v);
		if (r < 0)
			return r;
		st->cfs_period_us = v;
		set_cpu_max(&out[0], st);
		return 1;
	}
	if (!strcmp(file, "cpu.cfs_burst_us")) {
		r = ucg_parse_u64(buf, len, &v);
		if (r < 0)
			return r;
		set(&out[0], "cpu.max.burst", 0, "%llu", NULL, v);
		return 1;
	}
	return -ENOENT;
}

static int translate_memory(struct ucg_v1v2_state *st, const char *file, const char *buf,
			    size_t len, struct ucg_v2_set *out)
{
	uint64_t v;
	int r;

	if (!strcmp(file, "memory.force_empty")) {
		set(&out[0], "memory.reclaim", 0, "%llu", NULL, UCG_V1_MEM_MAX);
		return 1;
	}
	if (strcmp(file, "memory.limit_in_bytes") && strcmp(file, "memory.memsw.limit_in_bytes") &&
	    strcmp(file, "memory.soft_limit_in_bytes"))
		return -ENOENT;
	r = parse_mem(buf, len, &v);
	if (r < 0)
		return r;
	if (!strcmp(file, "memory.soft_limit_in_bytes")) {
		set_mem(&out[0], "memory.low", v >= UCG_V1_MEM_MAX ? 0 : v);
		return 1;
	}
	if (!strcmp(file, "memory.limit_in_bytes")) {
		st->mem_limit = v;
		set_mem(&out[0], "memory.max", v);
		set_swap(&out[1], st);
		return 2;
	}
	st->memsw_limit = v;
	set_swap(&out[0], st);
	return 1;
}

/* cpuset files and freezer.state */
static int translate_text(const char *file, const char *buf, size_t len, struct ucg_v2_set *out)
{
	char text[UCG_V2_VALUE_MAX];

	len = ucg_text_len(buf, len);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	while (len && (*buf == ' ' || *buf == '\t')) {
		buf++;
		len--;
	}
	if (len >= sizeof(text))
		return -EINVAL;
	memcpy(text, buf, len);
	text[len] = '\0';
	if (!strcmp(file, "freezer.state")) {
		if (!strcmp(text, "FROZEN"))
			set(&out[0], "cgroup.freeze", 0, "1", NULL, 0);
		else if (!strcmp(text, "THAWED"))
			set(&out[0], "cgroup.freeze", 0, "0", NULL, 0);
		else
			return -EINVAL;
		return 1;
	}
	if (!strcmp(file, "cpuset.cpus") || !strcmp(file, "cpuset.mems")) {
		set(&out[0], file, 0, "%s", text, 0);
		return 1;
	}
	if (!strcmp(file, "cpuset.cpu_exclusive")) {
		if (strcmp(text, "0") && strcmp(text, "1"))
			return -EINVAL;
		set(&out[0], "cpuset.cpus.partition", 0, "%s", text[0] == '1' ? "root" : "member",
		    0);
		return 1;
	}
	if (!strcmp(file, "pids.max")) {
		uint64_t v;

		if (strcmp(text, "max") && ucg_parse_u64(text, strlen(text), &v) < 0)
			return -EINVAL;
		set(&out[0], "pids.max", 0, "%s", text, 0);
		return 1;
	}
	return -ENOENT;
}

/* hugetlb.SIZE.limit_in_bytes and hugetlb.SIZE.rsvd.limit_in_bytes */
static int translate_hugetlb(const char *file, const char *buf, size_t len, struct ucg_v2_set *out)
{
	const char *dot = strchr(file + 8, '.');
	char v2[UCG_V2_FILE_MAX];
	uint64_t v;
	int r;

	if (!dot || (strcmp(dot, ".limit_in_bytes") && strcmp(dot, ".rsvd.limit_in_bytes")))
		return -ENOENT;
	if ((size_t)(dot - file) + 10 >= sizeof(v2))
		return -ENOENT;
	r = parse_mem(buf, len, &v);
	if (r < 0)
		return r;
	snprintf(v2, sizeof(v2), "%.*s%s", (int)(dot - file), file,
		 strcmp(dot, ".limit_in_bytes") ? ".rsvd.max" : ".max");
	set_mem(&out[0], v2, v);
	return 1;
}

int ucg_v1v2_translate(struct ucg_v1v2_state *st, const char *file, const char *buf, size_t len,
		       struct ucg_v2_set *out)
{
	struct ucg_v1v2_state trial = *st;
	struct ucg_v2_set tmp[UCG_V2_SET_MAX];
	int n;

	memset(tmp, 0, sizeof(tmp));
	if (!strncmp(file, "memory.", 7))
		n = translate_memory(&trial, file, buf, len, tmp);
	else if (!strncmp(file, "cpu.", 4))
		n = translate_cpu(&trial, file, buf, len, tmp);
	else if (!strncmp(file, "blkio.", 6))
		n = translate_blkio(file, buf, len, tmp);
	else if (!strncmp(file, "hugetlb.", 8))
		n = translate_hugetlb(file, buf, len, tmp);
	else
		n = translate_text(file, buf, len, tmp);
	if (n < 0)
		return n;
	*st = trial;
	memcpy(out, tmp, (size_t)n * sizeof(*out));
	return n;
}

int ucg_v2_undo_value(const struct ucg_v2_set *set, const char *old, char *out, size_t size)
{
	size_t klen = strcspn(set->value, " "), n;
	const char *line;
	int w;

	if (!strcmp(set->file, "memory.reclaim"))
		return -ENOENT;
	if (set->value[klen] == ' ' &&
	    (memchr(set->value, ':', klen) || (klen == 7 && !memcmp(set->value, "default", 7)))) {
		for (line = old; *line; line += n + (line[n] == '\n')) {
			n = strcspn(line, "\n");
			if (n <= klen || strncmp(line, set->value, klen + 1))
				continue;
			if (n >= size)
				return -ENAMETOOLONG;
			memcpy(out, line, n);
			out[n] = '\0';
			return 0;
		}
		w = snprintf(out, size, "%.*s %s", (int)klen, set->value,
			     !strcmp(set->file, "io.max") ? "rbps=max wbps=max riops=max wiops=max"
							  : "default");
		return w < 0 || (size_t)w >= size ? -ENAMETOOLONG : 0;
	}
	n = strcspn(old, "\n");
	if (n == 0)
		return snprintf(out, size, "\n") >= (int)size ? -ENAMETOOLONG : 0;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(out, old, n);
	out[n] = '\0';
	return 0;
}
