/* ntc/util.c — tc's units and number formats.
 *
 * Parsing follows tc(8): rates are a decimal number (fractions allowed) with an
 * optional case-insensitive unit (bit, kbit, kibit, ..., bps, kbps, ...), stored as
 * bytes per second; sizes take b, k/kb, m/mb, g/gb, kbit/mbit/gbit; times take s, ms,
 * us and their long forms and are stored in microseconds. Handles are hexadecimal.
 *
 * Token buckets travel between tc and the kernel as "psched ticks" of 64 ns, computed
 * by tc in floating point from whole microseconds; the functions ntc_xmittime and
 * ntc_xmitsize reproduce that arithmetic exactly (with /proc/net/psched reporting
 * 1000 ns per us and 64 ns per tick, i.e. 15.625 ticks per microsecond), which is why
 * a configured burst of 1600 bytes at 30 Mbit/s reads back as 1593 bytes.
 *
 * Also here: the classid/flowid argument list that fw, basic and matchall share.
 */
#include "ntc/sch.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TIME_UNITS_PER_SEC 1000000.0
#define TICK_IN_USEC 15.625

bool ntc_matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len > 0 && len <= strlen(word) && memcmp(arg, word, len) == 0;
}

static int parse_double(const char *s, double *ret, const char **ret_end)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || isnan(v) || isinf(v))
		return -EINVAL;
	*ret = v;
	*ret_end = end;
	return 0;
}

static const struct {
	const char *name;
	double scale;
} rate_units[] = {
	{ "bit", 1. },
	{ "Kibit", 1024. },
	{ "kbit", 1000. },
	{ "mibit", 1024. * 1024. },
	{ "mbit", 1000000. },
	{ "gibit", 1024. * 1024. * 1024. },
	{ "gbit", 1000000000. },
	{ "tibit", 1024. * 1024. * 1024. * 1024. },
	{ "tbit", 1000000000000. },
	{ "Bps", 8. },
	{ "KiBps", 8. * 1024. },
	{ "KBps", 8000. },
	{ "MiBps", 8. * 1024 * 1024 },
	{ "MBps", 8000000. },
	{ "GiBps", 8. * 1024 * 1024 * 1024 },
	{ "GBps", 8000000000. },
	{ "TiBps", 8. * 1024 * 1024 * 1024 * 1024 },
	{ "TBps", 8000000000000. },
};

int ntc_get_rate(const char *s, uint64_t *ret)
{
	const char *p;
	double bps;
	size_t i;

	if (parse_double(s, &bps, &p) < 0 || bps < 0)
		return -EINVAL;
	if (*p) {
		for (i = 0; i < sizeof(rate_units) / sizeof(rate_units[0]); i++)
			if (strcasecmp(p, rate_units[i].name) == 0)
				break;
		if (i == sizeof(rate_units) / sizeof(rate_units[0]))
			return -EINVAL;
		bps *= rate_units[i].scale;
	}
	bps /= 8.;
	if (bps >= 18446744073709551615.0)
		return -EINVAL;
	*ret = (uint64_t)bps;
	return 0;
}

int ntc_get_size(const char *s, uint32_t *ret)
{
	const char *p;
	double sz;

	if (parse_double(s, &sz, &p) < 0 || sz < 0)
		return -EINVAL;
	if (*p) {
		if (!strcasecmp(p, "kb") || !strcasecmp(p, "k"))
			sz *= 1024;
		else if (!strcasecmp(p, "gb") || !strcasecmp(p, "g"))
			sz *= 1024 * 1024 * 1024;
		else if (!strcasecmp(p, "gbit"))
			sz *= 1024 * 1024 * 1024 / 8;
		else if (!strcasecmp(p, "mb") || !strcasecmp(p, "m"))
			sz *= 1024 * 1024;
		else if (!strcasecmp(p, "mbit"))
			sz *= 1024 * 1024 / 8;
		else if (!strcasecmp(p, "kbit"))
			sz *= 1024 / 8;
		else if (strcasecmp(p, "b"))
			return -EINVAL;
	}
	if (sz > 4294967295.0)
		return -EINVAL;
	*ret = (uint32_t)sz;
	return 0;
}

int ntc_get_time(const char *s, uint32_t *ret)
{
	const char *p;
	double t;

	if (parse_double(s, &t, &p) < 0 || t < 0)
		return -EINVAL;
	if (*p) {
		if (!strcasecmp(p, "s") || !strcasecmp(p, "sec") || !strcasecmp(p, "secs"))
			t *= TIME_UNITS_PER_SEC;
		else if (!strcasecmp(p, "ms") || !strcasecmp(p, "msec") || !strcasecmp(p, "msecs"))
			t *= TIME_UNITS_PER_SEC / 1000;
		else if (!strcasecmp(p, "us") || !strcasecmp(p, "usec") || !strcasecmp(p, "usecs"))
			t *= TIME_UNITS_PER_SEC / 1000000;
		else
			return -EINVAL;
	}
	if (t > 4294967295.0)
		return -EINVAL;
	*ret = (uint32_t)t;
	return 0;
}

int ntc_get_u32(const char *s, int base, uint32_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end || errno || v > 0xFFFFFFFFull)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

static int hex_part(const char *s, const char **ret_end, unsigned long *ret)
{
	char *end;
	unsigned long v;

	if (*s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	v = strtoul(s, &end, 16);
	*ret_end = end;
	*ret = v;
	return end == s ? 1 : 0;
}

int ntc_get_handle(const char *s, uint32_t *ret)
{
	unsigned long maj, min;
	const char *p;
	int r;

	if (!strcmp(s, "root")) {
		*ret = NTC_H_ROOT;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*ret = NTC_H_UNSPEC;
		return 0;
	}
	r = hex_part(s, &p, &maj);
	if (r < 0)
		return -EINVAL;
	if (r == 1) {
		maj = 0;
		if (*p != ':')
			return -EINVAL;
	}
	if (*p == ':') {
		if (maj >= (1u << 16))
			return -EINVAL;
		maj <<= 16;
		r = hex_part(p + 1, &p, &min);
		if (r < 0 || *p || min >= (1u << 16))
			return -EINVAL;
		maj |= min;
	} else if (*p) {
		return -EINVAL;
	} else if (maj > 0xFFFFFFFFul) {
		return -EINVAL;
	}
	*ret = (uint32_t)maj;
	return 0;
}

int ntc_get_qhandle(const char *s, uint32_t *ret)
{
	unsigned long maj;
	const char *p;

	if (!strcmp(s, "none")) {
		*ret = 0;
		return 0;
	}
	if (hex_part(s, &p, &maj) != 0 || maj >= (1u << 16))
		return -EINVAL;
	if (*p != ':' && *p)
		return -EINVAL;
	*ret = (uint32_t)(maj << 16);
	return 0;
}

void ntc_print_rate(struct ucg_buf *b, uint64_t bytes_per_sec)
{
	static const char *const units[] = { "", "K", "M", "G", "T" };
	uint64_t rate = bytes_per_sec * 8, kilo = 1000;
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++) {
		if (rate < kilo)
			break;
		if ((rate % kilo) != 0 && rate < 1000 * kilo)
			break;
		rate /= kilo;
	}
	ucg_buf_printf(b, "%.0f%sbit", (double)rate, units[i]);
}

void ntc_print_size(struct ucg_buf *b, uint32_t sz)
{
	double tmp = sz;

	if (sz >= 1024 * 1024 && fabs(1024 * 1024 * rint(tmp / (1024 * 1024)) - sz) < 1024)
		ucg_buf_printf(b, "%gMb", rint(tmp / (1024 * 1024)));
	else if (sz >= 1024 && fabs(1024 * rint(tmp / 1024) - sz) < 16)
		ucg_buf_printf(b, "%gKb", rint(tmp / 1024));
	else
		ucg_buf_printf(b, "%ub", sz);
}

void ntc_print_time(struct ucg_buf *b, uint32_t t)
{
	if (t >= TIME_UNITS_PER_SEC)
		ucg_buf_printf(b, "%.3gs", (double)t / TIME_UNITS_PER_SEC);
	else if (t >= TIME_UNITS_PER_SEC / 1000)
		ucg_buf_printf(b, "%.3gms", (double)t / (TIME_UNITS_PER_SEC / 1000));
	else
		ucg_buf_printf(b, "%uus", t);
}

void ntc_print_handle(struct ucg_buf *b, uint32_t h)
{
	if (h == NTC_H_ROOT)
		ucg_buf_puts(b, "root");
	else if (h == NTC_H_UNSPEC)
		ucg_buf_puts(b, "none");
	else if (NTC_H_MAJ(h) == 0)
		ucg_buf_printf(b, ":%x", NTC_H_MIN(h));
	else if (NTC_H_MIN(h) == 0)
		ucg_buf_printf(b, "%x:", NTC_H_MAJ(h) >> 16);
	else
		ucg_buf_printf(b, "%x:%x", NTC_H_MAJ(h) >> 16, NTC_H_MIN(h));
}

uint32_t ntc_d2u32(double v)
{
	/* what tc's implicit double -> unsigned conversion yields on x86-64: the low 32
	 * bits of the 64-bit truncation (defined here instead of undefined behaviour) */
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709551615.0)
		return 0xFFFFFFFFu;
	return (uint32_t)(uint64_t)v;
}

static uint32_t time2tick(uint32_t t)
{
	return ntc_d2u32(t * TICK_IN_USEC);
}

uint32_t ntc_tick2time(uint32_t ticks)
{
	return (uint32_t)(ticks / TICK_IN_USEC);
}

uint32_t ntc_xmittime(uint64_t rate, uint32_t size)
{
	double t;

	if (!rate)
		return 0;
	t = TIME_UNITS_PER_SEC * ((double)size / (double)rate);
	if (t > 4294967295.0)
		t = 4294967295.0;
	return time2tick((uint32_t)t);
}

uint32_t ntc_xmitsize(uint64_t rate, uint32_t ticks)
{
	return ntc_d2u32(((double)rate * ntc_tick2time(ticks)) / TIME_UNITS_PER_SEC);
}

void ntc_print_stats(struct ucg_buf *b, const struct ntc_stats *s)
{
	ucg_buf_printf(b, " Sent %llu bytes %llu pkt (dropped %u, overlimits %u requeues %u) \n",
		       (unsigned long long)s->bytes, (unsigned long long)s->packets, s->drops,
		       s->overlimits, s->requeues);
	ucg_buf_puts(b, " backlog ");
	ntc_print_size(b, (uint32_t)s->backlog);
	ucg_buf_printf(b, " %up requeues %u", s->qlen, s->requeues);
}

int ntc_err_set(struct ntc_err *err, int exit_code, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->exit_code = exit_code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return ret;
}

void ntc_rate_init(struct ntc_rate *r, uint64_t rate, uint16_t overhead, uint16_t mpu, bool atm)
{
	uint64_t factor = NTC_NSEC_PER_SEC;

	r->rate = rate ? rate : 1;
	r->overhead = overhead;
	r->mpu = mpu;
	r->atm = atm;
	r->mult = 1;
	r->shift = 0;
	for (;;) {
		uint64_t m = factor / r->rate;

		r->mult = (uint32_t)m;
		if ((m & (1ull << 31)) || (factor & (1ull << 63)) || m > 0xFFFFFFFFull)
			break;
		factor <<= 1;
		r->shift++;
	}
}

int ntc_cls_parse_classid(struct ntc_filter *f, int argc, char **argv, struct ntc_err *err,
			  const char *kind)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "classid") || !strcmp(argv[i], "flowid")) {
			if (++i >= argc)
				return ntc_err_set(err, 255, -EINVAL,
						   "Command line is not complete. Try option \"help\"");
			if (ntc_get_handle(argv[i], &f->classid) < 0)
				return ntc_err_set(err, 1, -EINVAL, "Illegal \"classid\"");
		} else {
			return ntc_err_set(err, 1, -EINVAL, "%s: unknown parameter \"%s\"", kind,
					   argv[i]);
		}
	}
	return 0;
}
