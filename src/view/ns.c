/* view/ns.c — the view's mount namespace (view/view.h). */
#include "view/view.h"

#include "fs/ctl.h"
#include "view/mount_api.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int view_collect(struct view *v)
{
	struct ucg_buf out;
	const char *p, *end;
	int r;

	v->n = 0;
	v->host_ns = v->view_ns = -1;
	v->made = 0;
	v->made_mask = 0;
	ucg_buf_init(&out);
	r = ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &out);
	if (r < 0)
		goto out;
	r = 0;
	for (p = out.data, end = out.data + out.len; p && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct view_hier *h = &v->hs[v->n];
		struct stat st;
		size_t i;

		if (!eol)
			eol = end;
		char dir[PATH_MAX];

		/* inside a view the daemon's directory is gone: /sys/fs/cgroup/<name> */
		if (v->n < VIEW_MAX_HIER && view_hier_parse(p, (size_t)(eol - p), h) == 0 &&
		    view_hier_name(h->opts, h->name, sizeof(h->name)) == 0 &&
		    view_hier_dir(h, dir, sizeof(dir)) == 0 && stat(dir, &st) == 0) {
			h->major = major(st.st_dev);
			h->minor = minor(st.st_dev);
			for (i = 0; i < v->n; i++)
				if (v->hs[i].major == h->major && v->hs[i].minor == h->minor)
					break;
			if (i == v->n)
				v->n++;
		}
		p = eol + 1;
	}
out:
	ucg_buf_fini(&out);
	return r;
}

const struct view_hier *view_find(const struct view *v, const char *ctrl)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (view_hier_has(v->hs[i].opts, ctrl))
			return &v->hs[i];
	return NULL;
}

int view_hier_dir(const struct view_hier *h, char *out, size_t size)
{
	char probe[PATH_MAX];

	snprintf(probe, sizeof(probe), "%s/cgroup.procs", h->dir);
	if (access(probe, F_OK) == 0) {
		snprintf(out, size, "%s", h->dir);
		return 0;
	}
	snprintf(out, size, "%s/%s", VIEW_ROOT, h->name);
	snprintf(probe, sizeof(probe), "%s/cgroup.procs", out);
	return access(probe, F_OK) == 0 ? 0 : -ENOENT;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Detaches, deepest first, every cgroup, cgroup2 and fuse.cgroup mount and whatever
 * is mounted at or below /sys/fs/cgroup. */
static int detach_cgroup_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, **dirs = NULL;
	size_t cap = 0, n = 0, len = strlen(VIEW_ROOT);
	int r = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char mp[PATH_MAX], *sep = strstr(line, " - "), type[64];
		char **grown;

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 ||
		    sscanf(sep + 3, "%63s", type) != 1)
			continue;
		unescape(mp);
		if (strcmp(type, "cgroup") && strcmp(type, "cgroup2") &&
		    strcmp(type, "fuse.cgroup") &&
		    !(strncmp(mp, VIEW_ROOT, len) == 0 && (mp[len] == '/' || !mp[len])))
			continue;
		grown = realloc(dirs, (n + 1) * sizeof(*dirs));
		if (!grown || !(grown[n] = strdup(mp))) {
			dirs = grown ? grown : dirs;
			r = -ENOMEM;
			break;
		}
		dirs = grown;
		n++;
	}
	free(line);
	fclose(f);
	while (n > 0) {
		n--;
		if (r == 0 && umount2(dirs[n], MNT_DETACH) < 0 && errno != EINVAL &&
		    errno != ENOENT)
			r = -errno;
		free(dirs[n]);
	}
	free(dirs);
	return r;
}

/* A symlink per controller of each hierarchy holding several. */
static void link_controllers(const struct view *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		const char *p = v->hs[i].name;

		if (view_hier_count(v->hs[i].opts) < 2)
			continue;
		while (*p) {
			char ctrl[256], path[PATH_MAX];
			size_t l = strcspn(p, ",");

			snprintf(ctrl, sizeof(ctrl), "%.*s", (int)l, p);
			snprintf(path, sizeof(path), "%s/%s", VIEW_ROOT, ctrl);
			if (symlink(v->hs[i].name, path) < 0) {
				/* a name taken already: leave the first */
			}
			p += l;
			if (*p == ',')
				p++;
		}
	}
}

int view_enter(struct view *v, const char **ret_step)
{
	int fds[VIEW_MAX_HIER];
	size_t i, opened = 0;
	int r = 0;

	*ret_step = "unshare";
	v->host_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (v->host_ns < 0 || unshare(CLONE_NEWNS) < 0)
		return -errno;
	v->view_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (v->view_ns < 0)
		return -errno;
	*ret_step = "make / private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	*ret_step = "open_tree";
	for (; opened < v->n; opened++) {
		long fd = syscall(SYS_open_tree, AT_FDCWD, v->hs[opened].dir,
				  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

		if (fd < 0) {
			r = -errno;
			goto out;
		}
		fds[opened] = (int)fd;
	}
	*ret_step = "detach cgroup mounts";
	r = detach_cgroup_mounts();
	if (r < 0)
		goto out;
	*ret_step = "tmpfs on " VIEW_ROOT;
	if (mount("tmpfs", VIEW_ROOT, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755") < 0) {
		r = -errno;
		goto out;
	}
	for (i = 0; i < v->n; i++) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/%s", VIEW_ROOT, v->hs[i].name);
		*ret_step = "mkdir under " VIEW_ROOT;
		if (mkdir(dir, 0755) < 0) {
			r = -errno;
			goto out;
		}
		*ret_step = "move_mount";
		if (syscall(SYS_move_mount, fds[i], "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH) <
		    0) {
			r = -errno;
			goto out;
		}
		/* the flags systemd mounts its hierarchies with */
		*ret_step = "remount hierarchy";
		if (mount(NULL, dir, NULL,
			  MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME,
			  NULL) < 0) {
			r = -errno;
			goto out;
		}
	}
	link_controllers(v);
	*ret_step = "read-only " VIEW_ROOT;
	if (mount(NULL, VIEW_ROOT, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=755") < 0)
		r = -errno;
out:
	while (opened > 0)
		close(fds[--opened]);
	return r;
}
