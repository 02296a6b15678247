/* view/mtab.c — the kernel's mount-table lines for ucg's hierarchies (view/mtab.h). */
#include "view/mtab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_field(char *dst, size_t size, const char *s, size_t len)
{
	if (len + 1 > size)
		return -ENAMETOOLONG;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

int view_hier_parse(const char *line, size_t len, struct view_hier *ret)
{
	const char *sp1 = memchr(line, ' ', len), *sp2;
	int r;

	/* the name comes first and the options last; the directory is what lies between
	 * (it may hold spaces, the options never do) */
	while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
		len--;
	if (!sp1)
		return -EINVAL;
	for (sp2 = line + len; sp2 > sp1 && sp2[-1] != ' '; sp2--)
		;
	if (sp2 <= sp1 + 1)
		return -EINVAL;
	r = copy_field(ret->dir, sizeof(ret->dir), sp1 + 1, (size_t)(sp2 - 1 - (sp1 + 1)));
	if (r == 0)
		r = copy_field(ret->opts, sizeof(ret->opts), sp2, (size_t)(line + len - sp2));
	return r;
}

/* Options that are flags of the hierarchy, not controllers. */
static int is_flag(const char *tok, size_t len)
{
	static const char *const flags[] = { "rw",
					     "ro",
					     "noprefix",
					     "xattr",
					     "cpuset_v2_mode",
					     "favordynmods",
					     "clone_children",
					     "none",
					     "all",
					     NULL };
	size_t i;

	if (memchr(tok, '=', len))
		return 1;
	for (i = 0; flags[i]; i++)
		if (strlen(flags[i]) == len && !strncmp(flags[i], tok, len))
			return 1;
	return 0;
}

/* Calls fn for every comma-separated token of opts; stops when fn returns nonzero. */
static int each_token(const char *opts, int (*fn)(void *, const char *, size_t), void *arg)
{
	const char *p = opts;
	int r;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len && (r = fn(arg, p, len)))
			return r;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

struct join {
	char *out;
	size_t size, n;
	int count;
	const char *want;
};

static int join_ctrl(void *arg, const char *tok, size_t len)
{
	struct join *j = arg;

	if (is_flag(tok, len))
		return 0;
	if (j->n + len + 2 > j->size)
		return -ENAMETOOLONG;
	if (j->n)
		j->out[j->n++] = ',';
	memcpy(j->out + j->n, tok, len);
	j->n += len;
	j->out[j->n] = '\0';
	j->count++;
	return 0;
}

static int find_name(void *arg, const char *tok, size_t len)
{
	struct join *j = arg;

	if (len > 5 && !strncmp(tok, "name=", 5)) {
		if (len - 5 + 1 > j->size)
			return -ENAMETOOLONG;
		memcpy(j->out, tok + 5, len - 5);
		j->out[len - 5] = '\0';
		return 1;
	}
	return 0;
}

int view_hier_name(const char *opts, char *out, size_t size)
{
	struct join j = { out, size, 0, 0, NULL };
	int r;

	if (size)
		out[0] = '\0';
	r = each_token(opts, join_ctrl, &j);
	if (r < 0 || j.count)
		return r;
	r = each_token(opts, find_name, &j);
	return r < 0 ? r : r ? 0 : -EINVAL;
}

static int match_tok(void *arg, const char *tok, size_t len)
{
	struct join *j = arg;

	return strlen(j->want) == len && !strncmp(tok, j->want, len) &&
	       (!strncmp(tok, "name=", 5) || !is_flag(tok, len));
}

int view_hier_has(const char *opts, const char *ctrl)
{
	struct join j = { NULL, 0, 0, 0, ctrl };

	return each_token(opts, match_tok, &j) > 0;
}

static int count_ctrl(void *arg, const char *tok, size_t len)
{
	if (!is_flag(tok, len))
		++*(int *)arg;
	return 0;
}

int view_hier_count(const char *opts)
{
	int n = 0;

	each_token(opts, count_ctrl, &n);
	return n;
}

/* The fields of one mountinfo line: [0..5] are id, parent, maj:min, root, mount point,
 * mount options; after the " - " separator come fstype, source, super options. */
struct mi_line {
	const char *f[6];
	size_t fl[6];
	const char *opt; /* optional fields, up to the separator */
	size_t optl;
	const char *type, *src, *super;
	size_t typel, srcl, superl;
};

static const char *next_field(const char *p, const char *end, const char **ret, size_t *ret_len)
{
	const char *s;

	while (p < end && *p == ' ')
		p++;
	s = p;
	while (p < end && *p != ' ')
		p++;
	*ret = s;
	*ret_len = (size_t)(p - s);
	return p;
}

static int parse_mi(const char *p, const char *end, struct mi_line *l)
{
	const char *sep;
	int i;

	for (i = 0; i < 6; i++) {
		p = next_field(p, end, &l->f[i], &l->fl[i]);
		if (!l->fl[i])
			return -EINVAL;
	}
	for (sep = p; sep + 3 <= end && strncmp(sep, " - ", 3); sep++)
		;
	if (sep + 3 > end)
		return -EINVAL;
	l->opt = p;
	l->optl = (size_t)(sep - p);
	p = next_field(sep + 3, end, &l->type, &l->typel);
	p = next_field(p, end, &l->src, &l->srcl);
	next_field(p, end, &l->super, &l->superl);
	return l->typel ? 0 : -EINVAL;
}

static const struct view_hier *match_dev(const struct mi_line *l, const struct view_hier *hs,
					 size_t n)
{
	char dev[32];
	size_t i;

	if (l->typel != 11 || strncmp(l->type, "fuse.cgroup", 11))
		return NULL;
	for (i = 0; i < n; i++) {
		snprintf(dev, sizeof(dev), "%u:%u", hs[i].major, hs[i].minor);
		if (strlen(dev) == l->fl[2] && !strncmp(dev, l->f[2], l->fl[2]))
			return &hs[i];
	}
	return NULL;
}

void view_mountinfo_rewrite(const char *in, size_t len, const struct view_hier *hs, size_t n,
			    struct ucg_buf *out)
{
	const char *p = in, *end = in + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const struct view_hier *h;
		struct mi_line l;

		if (!eol)
			eol = end;
		if (parse_mi(p, eol, &l) == 0 && (h = match_dev(&l, hs, n))) {
			/* everything up to the separator as it is, then the kernel's fields */
			ucg_buf_append(out, p, (size_t)(l.opt + l.optl - p));
			ucg_buf_printf(out, " - cgroup cgroup %s\n", h->opts);
		} else {
			ucg_buf_append(out, p, (size_t)(eol - p));
			ucg_buf_putc(out, '\n');
		}
		p = eol + 1;
	}
}

/* The superblock flags show_sb_opts prints in both files. */
static int is_sb_flag(const char *tok, size_t len)
{
	static const char *const sb[] = { "sync", "dirsync", "mand", "lazytime", NULL };
	size_t i;

	for (i = 0; sb[i]; i++)
		if (strlen(sb[i]) == len && !strncmp(sb[i], tok, len))
			return 1;
	return 0;
}

/* Appends the tokens of list[0..len) after the first, those that are (want_sb = 1) or
 * are not (0) superblock flags; each preceded by a comma. */
static void put_tokens(struct ucg_buf *out, const char *list, size_t len, int want_sb)
{
	const char *p = list, *end = list + len;
	int first = 1;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t tl = c ? (size_t)(c - p) : (size_t)(end - p);

		if (!first && tl && is_sb_flag(p, tl) == want_sb) {
			ucg_buf_putc(out, ',');
			ucg_buf_append(out, p, tl);
		}
		first = 0;
		p += tl + 1;
	}
}

void view_mounts_format(const char *in, size_t len, struct ucg_buf *out)
{
	const char *p = in, *end = in + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct mi_line l;

		if (!eol)
			eol = end;
		if (parse_mi(p, eol, &l) == 0) {
			size_t rw = strcspn(l.f[5], ",");

			if (rw > l.fl[5])
				rw = l.fl[5];
			ucg_buf_append(out, l.src, l.srcl);
			ucg_buf_putc(out, ' ');
			ucg_buf_append(out, l.f[4], l.fl[4]);
			ucg_buf_putc(out, ' ');
			ucg_buf_append(out, l.type, l.typel);
			ucg_buf_putc(out, ' ');
			/* ro if the mount or its superblock is read-only (__mnt_is_readonly) */
			if (l.superl >= 2 && !strncmp(l.super, "ro", 2) &&
			    (l.superl == 2 || l.super[2] == ','))
				ucg_buf_puts(out, "ro");
			else
				ucg_buf_append(out, l.f[5], rw);
			put_tokens(out, l.super, l.superl, 1);
			put_tokens(out, l.f[5], l.fl[5], 0);
			put_tokens(out, l.super, l.superl, 0);
			ucg_buf_puts(out, " 0 0\n");
		}
		p = eol + 1;
	}
}
