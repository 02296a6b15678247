/* view/path.c — the view's path decisions (view/path.h). */
#include "view/path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int view_path_join(const char *base, const char *path, char *out, size_t size)
{
	const char *parts[2] = { path[0] == '/' ? NULL : base, path };
	size_t n = 0;
	int i;

	if (!parts[0] && path[0] != '/')
		return -EINVAL;
	if (size < 2)
		return -ENAMETOOLONG;
	out[0] = '\0';
	for (i = 0; i < 2; i++) {
		const char *p = parts[i];

		if (!p)
			continue;
		while (*p) {
			size_t len;

			while (*p == '/')
				p++;
			len = strcspn(p, "/");
			if (len == 0)
				break;
			if (len == 1 && p[0] == '.') {
				/* nothing */
			} else if (len == 2 && p[0] == '.' && p[1] == '.') {
				while (n > 0 && out[n - 1] != '/')
					n--;
				if (n > 0)
					n--; /* the slash before it */
				out[n] = '\0';
			} else {
				if (n + 1 + len + 1 > size)
					return -ENAMETOOLONG;
				out[n++] = '/';
				memcpy(out + n, p, len);
				n += len;
				out[n] = '\0';
			}
			p += len;
		}
	}
	if (n == 0) {
		out[0] = '/';
		out[1] = '\0';
	}
	return 0;
}

/* A decimal id without sign or leading zero, as /proc names its entries; else 0. */
static int parse_id(const char *s, size_t len)
{
	long v = 0;
	size_t i;

	if (len == 0 || len > 9 || s[0] == '0')
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return (int)v;
}

static enum view_kind leaf_kind(const char *leaf)
{
	if (!strcmp(leaf, "cgroup"))
		return VIEW_CGROUP;
	if (!strcmp(leaf, "mountinfo"))
		return VIEW_MOUNTINFO;
	if (!strcmp(leaf, "mounts"))
		return VIEW_MOUNTS;
	return VIEW_NONE;
}

enum view_kind view_path_classify(const char *abs, int tgid, int tid, struct view_target *ret)
{
	struct view_target t = { VIEW_NONE, 0, 0 };
	const char *p, *rest;
	size_t len;

	if (strncmp(abs, "/proc/", 6))
		return VIEW_NONE;
	p = abs + 6;
	if (!strcmp(p, "cgroups")) {
		t.kind = VIEW_CGROUPS;
		goto out;
	}
	if (!strcmp(p, "mounts")) { /* a symlink to self/mounts */
		t.kind = VIEW_MOUNTS;
		t.pid = tgid;
		goto out;
	}
	len = strcspn(p, "/");
	if (p[len] != '/')
		return VIEW_NONE;
	rest = p + len + 1;
	if (len == 4 && !strncmp(p, "self", 4)) {
		t.pid = tgid;
	} else if (len == 11 && !strncmp(p, "thread-self", 11)) {
		t.pid = tgid;
		t.tid = tid;
	} else {
		t.pid = parse_id(p, len);
		if (!t.pid)
			return VIEW_NONE;
	}
	if (!t.tid && !strncmp(rest, "task/", 5)) {
		len = strcspn(rest + 5, "/");
		if (rest[5 + len] != '/')
			return VIEW_NONE;
		t.tid = parse_id(rest + 5, len);
		if (!t.tid)
			return VIEW_NONE;
		rest += 5 + len + 1;
	}
	t.kind = leaf_kind(rest);
	if (t.kind == VIEW_NONE)
		return VIEW_NONE;
out:
	*ret = t;
	return t.kind;
}

int view_path_maybe(const char *path)
{
	const char *p = path;

	if (*p != '/')
		return 1; /* relative: depends on the directory */
	while (*p == '/')
		p++;
	/* "/./proc" and "/../proc" are rare; the join decides those */
	if (*p == '.')
		return 1;
	return !strncmp(p, "proc", 4) && (p[4] == '/' || p[4] == '\0');
}
