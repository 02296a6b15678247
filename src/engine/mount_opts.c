/* engine/mount_opts.c — parse and validate cgroup v1 mount data, table-driven.
 *
 * Tokens are comma-separated; empty tokens are ignored (6.x). The tokens without a
 * value map to an action through one table; `name=` and `release_agent=` carry values;
 * anything else must be a controller name. Validation then runs in the kernel's
 * order (docs/kernel/core.md §1.1), so the same input yields the same errno and log line.
 */
#include "engine/mount_opts.h"
#include "base/alloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum flag_token { TOK_NONE, TOK_ALL, TOK_FLAG, TOK_CLONE_CHILDREN };

static const struct {
	const char *name;
	enum flag_token tok;
	unsigned flag;
} flag_tokens[] = {
	{ "none", TOK_NONE, 0 },
	{ "all", TOK_ALL, 0 },
	{ "noprefix", TOK_FLAG, UCG_HF_NOPREFIX },
	{ "xattr", TOK_FLAG, UCG_HF_XATTR },
	{ "cpuset_v2_mode", TOK_FLAG, UCG_HF_CPUSET_V2_MODE },
	{ "favordynmods", TOK_FLAG, UCG_HF_FAVORDYNMODS },
	{ "clone_children", TOK_CLONE_CHILDREN, 0 },
};

static int fail(struct ucg_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int valid_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static int parse_token(const char *tok, size_t len, struct ucg_mount_opts *o,
		       struct ucg_err *err)
{
	size_t i;
	int ss;

	for (i = 0; i < sizeof(flag_tokens) / sizeof(flag_tokens[0]); i++) {
		if (strlen(flag_tokens[i].name) != len || memcmp(flag_tokens[i].name, tok, len))
			continue;
		switch (flag_tokens[i].tok) {
		case TOK_NONE:
			o->none = 1;
			break;
		case TOK_ALL:
			o->all = 1;
			break;
		case TOK_FLAG:
			o->flags |= flag_tokens[i].flag;
			break;
		case TOK_CLONE_CHILDREN:
			o->clone_children = 1;
			break;
		}
		return 0;
	}
	if (len >= 5 && !memcmp(tok, "name=", 5)) {
		const char *v = tok + 5;
		size_t vl = len - 5;

		if (o->has_name)
			return fail(err, "cgroup: name respecified");
		if (!vl)
			return fail(err, "cgroup: Bad value for 'name'");
		if (vl > UCG_NAME_MAX)
			return fail(err, "cgroup: Name too long");
		for (i = 0; i < vl; i++)
			if (!valid_name_char(v[i]))
				return fail(err, "cgroup: Invalid name");
		memcpy(o->name, v, vl);
		o->name[vl] = '\0';
		o->has_name = 1;
		return 0;
	}
	if (len >= 14 && !memcmp(tok, "release_agent=", 14)) {
		if (o->release_agent)
			return fail(err, "cgroup: release_agent respecified");
		if (len == 14)
			return fail(err, "cgroup: Bad value for 'release_agent'");
		o->release_agent = ucg_strndup(tok + 14, len - 14);
		if (!o->release_agent)
			return -ENOMEM;
		return 0;
	}
	ss = ucg_subsys_find(tok, len);
	if (ss < 0)
		return fail(err, "cgroup: Unknown subsys name '%.*s'", (int)len, tok);
	o->ss_mask |= 1u << ss;
	return 0;
}

int ucg_mount_opts_parse(const char *opts, struct ucg_mount_opts *ret, struct ucg_err *err)
{
	struct ucg_mount_opts o;
	const uint32_t all_mask = (1u << UCG_SUBSYS_COUNT) - 1;
	const char *p = opts ? opts : "";
	int r;

	memset(&o, 0, sizeof(o));
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len) {
			r = parse_token(p, len, &o, err);
			if (r < 0)
				goto fail;
		}
		p += len;
		if (*p == ',')
			p++;
	}

	/* The kernel's order of checks (check_cgroupfs_options). */
	if (!o.ss_mask && !o.none && !o.has_name)
		o.all = 1;
	if (o.all) {
		if (o.ss_mask) {
			r = fail(err, "cgroup: subsys name conflicts with all");
			goto fail;
		}
		o.ss_mask = all_mask;
	}
	if (!o.ss_mask && !o.has_name) {
		r = fail(err, "cgroup: Need name or subsystem set");
		goto fail;
	}
	if ((o.flags & UCG_HF_NOPREFIX) && (o.ss_mask & ~(1u << UCG_SS_cpuset))) {
		r = fail(err, "cgroup: noprefix used incorrectly");
		goto fail;
	}
	if (o.ss_mask && o.none) {
		r = fail(err, "cgroup: none used incorrectly");
		goto fail;
	}
	*ret = o;
	return 0;
fail:
	ucg_free(o.release_agent);
	return r;
}

void ucg_mount_opts_fini(struct ucg_mount_opts *o)
{
	if (!o)
		return;
	ucg_free(o->release_agent);
	o->release_agent = NULL;
}
