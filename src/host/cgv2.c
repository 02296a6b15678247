/* host/cgv2.c — the cgroup v2 subtree the daemon owns (see cgv2.h).
 *
 * Every operation is a file operation on the cgroup2 mount: mkdir/rmdir of
 * directories, writes of cgroup.procs, cgroup.freeze, cgroup.subtree_control and the
 * translated limits, reads of cgroup.events and the statistics. The kernel's errno is
 * returned unchanged, so a v2 write the kernel refuses becomes the v1 write's errno.
 */
#include "host/cgv2.h"

#include "base/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const ucg_v2_ctrl_name[UCG_V2_NR_CTRL] = {
	[UCG_V2_MEMORY] = "memory", [UCG_V2_PIDS] = "pids",     [UCG_V2_IO] = "io",
	[UCG_V2_CPU] = "cpu",       [UCG_V2_CPUSET] = "cpuset", [UCG_V2_HUGETLB] = "hugetlb",
};

struct ucg_cgv2 {
	char root[PATH_MAX];  /* the subtree, absolute */
	char mount[PATH_MAX]; /* the cgroup2 mount point */
	unsigned ctrl;        /* controllers enabled for the subtree's children */
	int made_root;        /* the subtree was made by us (removed at close) */
	char describe[256];
};

static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return (int)n;
}

static int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		e = -errno;
	else if ((size_t)n != len)
		e = -EIO;
	close(fd);
	return e;
}

/* the first cgroup2 mount point */
static int find_mount(char *out, size_t size)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int e = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - "), mnt[PATH_MAX], fstype[64];

		if (!sep || sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		snprintf(out, size, "%s", mnt);
		e = 0;
		break;
	}
	fclose(f);
	return e;
}

/* the daemon's own v2 cgroup: /proc/self/cgroup's "0::PATH" */
static int own_cgroup(char *out, size_t size)
{
	char buf[8192], *p;
	int n = read_text("/proc/self/cgroup", buf, sizeof(buf));

	if (n < 0)
		return n;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "0::", 3)) {
			char *nl = strchr(p, '\n');

			snprintf(out, size, "%.*s", (int)(nl ? nl - p - 3 : (long)strlen(p + 3)),
				 p + 3);
			return 0;
		}
	}
	return -ENOENT;
}

static int path_of(const struct ucg_cgv2 *b, const char *rel, const char *file, char *out,
		   size_t size)
{
	int n;

	while (*rel == '/')
		rel++;
	n = snprintf(out, size, "%s%s%s%s%s", b->root, *rel ? "/" : "", rel, file ? "/" : "",
		     file ? file : "");
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Enables in dir's subtree_control each wanted controller dir offers; returns the
 * bits enabled (already or now). *err: the first refusal's errno. */
static unsigned enable_in(const char *dir, unsigned want, int *err)
{
	char path[PATH_MAX], have[512], cmd[32];
	unsigned got = 0;
	int i, e;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	if (read_text(path, have, sizeof(have)) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	for (i = 0; i < UCG_V2_NR_CTRL; i++) {
		const char *name = ucg_v2_ctrl_name[i], *p;
		size_t len = strlen(name);
		int offered = 0;

		if (!(want & (1u << i)))
			continue;
		for (p = have; (p = strstr(p, name)); p += len)
			if ((p == have || p[-1] == ' ') &&
			    (p[len] == ' ' || p[len] == '\n' || !p[len]))
				offered = 1;
		if (!offered)
			continue;
		snprintf(cmd, sizeof(cmd), "+%s", name);
		e = write_text(path, cmd);
		if (e == 0)
			got |= 1u << i;
		else if (err && !*err)
			*err = e;
	}
	return got;
}

static int is_leaf_name(const char *name)
{
	return !strcmp(name, UCG_V2_LEAF);
}

int ucg_cgv2_mkdir(struct ucg_cgv2 *b, const char *rel)
{
	char path[PATH_MAX], *p;
	size_t base;
	int e = path_of(b, rel, NULL, path, sizeof(path));

	if (e < 0)
		return e;
	base = strlen(b->root);
	/* each component after the root, parents first */
	for (p = path + base + 1; p <= path + strlen(path); p++) {
		if (*p != '/' && *p != '\0')
			continue;
		{
			char save = *p;
			const char *name;

			*p = '\0';
			if (mkdir(path, 0755) < 0 && errno != EEXIST) {
				e = -errno;
				*p = save;
				return e;
			}
			name = strrchr(path, '/') + 1;
			if (!is_leaf_name(name) && b->ctrl)
				enable_in(path, b->ctrl, NULL);
			*p = save;
			if (!save)
				break;
		}
	}
	return 0;
}

int ucg_cgv2_write(struct ucg_cgv2 *b, const char *rel, const char *file, const char *value)
{
	char path[PATH_MAX];
	int e = path_of(b, rel, file, path, sizeof(path));

	return e < 0 ? e : write_text(path, value);
}

int ucg_cgv2_read(struct ucg_cgv2 *b, const char *rel, const char *file, struct ucg_buf *out)
{
	char path[PATH_MAX], chunk[4096];
	ssize_t n;
	int fd, e = path_of(b, rel, file, path, sizeof(path));

	if (e < 0)
		return e;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		ucg_buf_append(out, chunk, (size_t)n);
	e = n < 0 ? -errno : ucg_buf_error(out);
	close(fd);
	return e;
}

int ucg_cgv2_attach(struct ucg_cgv2 *b, const char *rel, pid_t pid)
{
	char num[24];
	int e;

	snprintf(num, sizeof(num), "%d", (int)pid);
	e = ucg_cgv2_write(b, rel, "cgroup.procs", num);
	if (e != -ENOENT)
		return e;
	e = ucg_cgv2_mkdir(b, rel); /* the leaf's first process */
	return e < 0 ? e : ucg_cgv2_write(b, rel, "cgroup.procs", num);
}

int ucg_cgv2_remove(struct ucg_cgv2 *b, const char *rel)
{
	char path[PATH_MAX], *slash;
	size_t base = strlen(b->root);
	int e = path_of(b, rel, NULL, path, sizeof(path));

	if (e < 0)
		return e;
	if (strlen(path) <= base)
		return -EINVAL;
	if (rmdir(path) < 0)
		return -errno;
	/* the backend's own levels above go when they are empty */
	while ((slash = strrchr(path, '/')) && (size_t)(slash - path) > base) {
		*slash = '\0';
		slash = strrchr(path, '/');
		if (!slash || strncmp(slash + 1, UCG_V2_LEAF, strlen(UCG_V2_LEAF)))
			break;
		if (rmdir(path) < 0)
			break;
	}
	return 0;
}

int ucg_cgv2_freeze(struct ucg_cgv2 *b, const char *rel, int freeze)
{
	struct ucg_buf ev;
	const char *p;
	int e = ucg_cgv2_write(b, rel, "cgroup.freeze", freeze ? "1" : "0");

	if (e < 0)
		return e;
	ucg_buf_init(&ev);
	e = ucg_cgv2_read(b, rel, "cgroup.events", &ev);
	if (e == 0) {
		p = ev.data ? strstr(ev.data, "frozen ") : NULL;
		e = p && p[7] == '1';
	}
	ucg_buf_fini(&ev);
	return e;
}

/* Walks the directories below rel (a buffer of size bytes, extended in place) and
 * calls leaf(ctx, rel) for each leaf, adding up what it returns. own_only: descend
 * only into the backend's own names (the leaf and the divergent levels ".ucg.*"),
 * so the leaves of one v1 cgroup and not those of its v1 children. Returns the sum
 * or -errno. */
static int walk_leaves(struct ucg_cgv2 *b, char *rel, size_t size, int own_only,
		       int (*leaf)(void *ctx, const char *rel), void *ctx)
{
	char path[PATH_MAX];
	size_t len = strlen(rel);
	struct dirent *d;
	DIR *dir;
	int count = 0, e;

	e = path_of(b, rel, NULL, path, sizeof(path));
	if (e < 0)
		return e;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (d->d_type != DT_DIR || !strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (own_only && strncmp(d->d_name, UCG_V2_LEAF, strlen(UCG_V2_LEAF)))
			continue;
		if (len + 1 + strlen(d->d_name) >= size)
			continue;
		snprintf(rel + len, size - len, "/%s", d->d_name);
		e = is_leaf_name(d->d_name) ? leaf(ctx, rel)
					    : walk_leaves(b, rel, size, own_only, leaf, ctx);
		if (e > 0)
			count += e;
		rel[len] = '\0';
	}
	closedir(dir);
	return count;
}

struct scan_ctx {
	struct ucg_cgv2 *b;
	void (*fn)(void *ctx, const char *rel, pid_t pid);
	void *ctx;
};

/* walk_leaves' callback for ucg_cgv2_scan: fn for each process of the leaf. */
static int scan_leaf(void *ctx, const char *rel)
{
	struct scan_ctx *sc = ctx;
	struct ucg_buf procs;
	char *p, *end;
	int count = 0;

	ucg_buf_init(&procs);
	if (ucg_cgv2_read(sc->b, rel, "cgroup.procs", &procs) == 0 && procs.data)
		for (p = procs.data; *p; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			sc->fn(sc->ctx, rel, (pid_t)pid);
			count++;
			while (*end == '\n')
				end++;
		}
	ucg_buf_fini(&procs);
	return count;
}

int ucg_cgv2_scan(struct ucg_cgv2 *b, void (*fn)(void *ctx, const char *rel, pid_t pid), void *ctx)
{
	struct scan_ctx sc = { b, fn, ctx };
	char rel[PATH_MAX] = "";

	return walk_leaves(b, rel, sizeof(rel), 0, scan_leaf, &sc);
}

struct own_ctx {
	void (*fn)(void *ctx, const char *leaf);
	void *ctx;
};

static int own_leaf(void *ctx, const char *rel)
{
	struct own_ctx *oc = ctx;

	oc->fn(oc->ctx, rel);
	return 1;
}

int ucg_cgv2_own_leaves(struct ucg_cgv2 *b, const char *rel,
			void (*fn)(void *ctx, const char *leaf), void *ctx)
{
	struct own_ctx oc = { fn, ctx };
	char buf[PATH_MAX];

	if (strlen(rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, strcmp(rel, "/") ? rel : "");
	return walk_leaves(b, buf, sizeof(buf), 1, own_leaf, &oc);
}

int ucg_cgv2_leaves(struct ucg_cgv2 *b, void (*fn)(void *ctx, const char *leaf), void *ctx)
{
	struct own_ctx oc = { fn, ctx };
	char rel[PATH_MAX] = "";

	return walk_leaves(b, rel, sizeof(rel), 0, own_leaf, &oc);
}

/* Removes every empty directory below path (deepest first), then path. */
static void remove_tree(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir(path);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_type != DT_DIR || !strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name) < (int)sizeof(sub))
			remove_tree(sub);
	}
	closedir(dir);
	rmdir(path);
}

void ucg_cgv2_close(struct ucg_cgv2 *b, int remove)
{
	if (!b)
		return;
	if (remove)
		remove_tree(b->root);
	ucg_free(b);
}

const char *ucg_cgv2_root(const struct ucg_cgv2 *b)
{
	return b->root;
}

unsigned ucg_cgv2_controllers(const struct ucg_cgv2 *b)
{
	return b->ctrl;
}

const char *ucg_cgv2_describe(const struct ucg_cgv2 *b)
{
	return b->describe;
}

static void describe(struct ucg_cgv2 *b, const char *parent, int refused)
{
	char have[512] = "";
	size_t n;
	int i;

	n = (size_t)snprintf(b->describe, sizeof(b->describe), "cgroup2 %s:", b->root);
	for (i = 0; i < UCG_V2_NR_CTRL && n < sizeof(b->describe); i++)
		if (b->ctrl & (1u << i))
			n += (size_t)snprintf(b->describe + n, sizeof(b->describe) - n, " %s",
					      ucg_v2_ctrl_name[i]);
	if (n >= sizeof(b->describe))
		return;
	if (!b->ctrl) {
		char path[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s/cgroup.controllers", parent) <
		    (int)sizeof(path))
			read_text(path, have, sizeof(have));
		have[strcspn(have, "\n")] = '\0';
		snprintf(b->describe + n, sizeof(b->describe) - n,
			 " none (%.120s offers \"%.60s\"%s%.40s); membership and freezing only",
			 parent, have, refused ? ", enabling refused: " : "",
			 refused ? strerror(-refused) : "");
	}
}

int ucg_cgv2_open(const char *root, struct ucg_cgv2 **ret, char *why, size_t whylen)
{
	struct ucg_cgv2 *b = ucg_calloc(1, sizeof(*b));
	char own[PATH_MAX], parent[PATH_MAX], *slash;
	unsigned all = (1u << UCG_V2_NR_CTRL) - 1;
	int e, refused = 0;

	if (!b)
		return -ENOMEM;
	e = find_mount(b->mount, sizeof(b->mount));
	if (e < 0) {
		snprintf(why, whylen, "no cgroup2 mount in /proc/self/mountinfo");
		goto fail;
	}
	if (root && root[0] == '/' && !strncmp(root, b->mount, strlen(b->mount))) {
		snprintf(b->root, sizeof(b->root), "%s", root);
	} else if (root && root[0]) {
		snprintf(b->root, sizeof(b->root), "%s/%s", b->mount,
			 root[0] == '/' ? root + 1 : root);
	} else {
		e = own_cgroup(own, sizeof(own));
		if (e < 0) {
			snprintf(why, whylen, "no 0:: line in /proc/self/cgroup");
			goto fail;
		}
		/* Already in the daemon's own leaf (systemd 254+'s DelegateSubgroup= in
		 * dist/ucgroups.service starts it there): the subtree goes beside it,
		 * so the unit's cgroup holds no process and can enable controllers, and
		 * a restarted daemon lands in the leaf again. */
		slash = strrchr(own, '/');
		if (slash && !strcmp(slash + 1, UCG_V2_DAEMON_LEAF))
			*(slash == own ? slash + 1 : slash) = '\0';
		if (snprintf(b->root, sizeof(b->root), "%s%s/ucgroups", b->mount,
			     strcmp(own, "/") ? own : "") >= (int)sizeof(b->root)) {
			e = -ENAMETOOLONG;
			snprintf(why, whylen, "own cgroup path too long");
			goto fail;
		}
	}
	while (strlen(b->root) > 1 && b->root[strlen(b->root) - 1] == '/')
		b->root[strlen(b->root) - 1] = '\0';
	snprintf(parent, sizeof(parent), "%s", b->root);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent) {
		e = -EINVAL;
		snprintf(why, whylen, "%s: not a directory under %s", b->root, b->mount);
		goto fail;
	}
	*slash = '\0';
	if (mkdir(b->root, 0755) == 0) {
		b->made_root = 1;
	} else if (errno != EEXIST) {
		e = -errno;
		snprintf(why, whylen, "%s: %s", b->root, strerror(errno));
		goto fail;
	}
	/* the parent enables the controllers for the subtree; if it holds processes
	 * (the daemon's own cgroup), the daemon moves itself into a leaf beside it */
	b->ctrl = enable_in(parent, all, &refused);
	if (refused == -EBUSY && strcmp(parent, b->mount)) {
		char leaf[PATH_MAX + 32];

		snprintf(leaf, sizeof(leaf), "%s/" UCG_V2_DAEMON_LEAF, parent);
		if ((mkdir(leaf, 0755) == 0 || errno == EEXIST) &&
		    (strcat(leaf, "/cgroup.procs"), write_text(leaf, "0")) == 0) {
			refused = 0;
			b->ctrl = enable_in(parent, all, &refused);
		}
	}
	b->ctrl = enable_in(b->root, b->ctrl, NULL);
	describe(b, parent, refused);
	*ret = b;
	return 0;
fail:
	ucg_free(b);
	return e;
}

int ucg_cgv2_leaf_path(const char *const *names, const char *const *paths, size_t n, char *out,
		       size_t outsz)
{
	const char *outer = NULL;
	size_t i, len = 0;
	int w;

	for (i = 0; i < n && !outer; i++)
		outer = paths[i];
	if (!outer)
		outer = "/";
#define PUT(...)                                                                                   \
	do {                                                                                       \
		w = snprintf(out + len, outsz - len, __VA_ARGS__);                                 \
		if (w < 0 || (size_t)w >= outsz - len)                                             \
			return -ENAMETOOLONG;                                                      \
		len += (size_t)w;                                                                  \
	} while (0)
	if (strcmp(outer, "/"))
		PUT("%s", outer);
	for (i = 0; i < n; i++) {
		const char *p = paths[i];

		if (!p || !strcmp(p, outer))
			continue;
		PUT("/" UCG_V2_LEAF ".%s:", names[i]);
		for (p += (*p == '/'); *p; p++)
			PUT("%c", *p == '/' ? ':' : *p);
	}
	PUT("/" UCG_V2_LEAF);
#undef PUT
	return (int)len;
}
