/* view/answer.c — the files the view hands out, asked from the daemon at each open
 * (view/view.h). */
#include "view/view.h"

#include "fs/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads the kernel's /proc/PID[/task/TID]/mountinfo into out. */
static int read_mountinfo(const struct view_target *t, struct ucg_buf *out)
{
	char path[96], buf[8192];
	int fd, r = 0;
	ssize_t n;

	if (t->tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/mountinfo", t->pid, t->tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		ucg_buf_append(out, buf, (size_t)n);
	if (n < 0)
		r = -errno;
	close(fd);
	return r < 0 ? r : ucg_buf_error(out);
}

/* The hierarchies with their options as the daemon has them now (release_agent,
 * clone_children and the like change after mount). */
static void refresh_opts(const struct view *v, struct view_hier *hs)
{
	struct ucg_buf out;
	const char *p, *end;
	size_t i;

	memcpy(hs, v->hs, v->n * sizeof(*hs));
	ucg_buf_init(&out);
	if (ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &out) < 0)
		goto out;
	for (p = out.data, end = out.data + out.len; p && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct view_hier h;

		if (!eol)
			eol = end;
		if (view_hier_parse(p, (size_t)(eol - p), &h) == 0)
			for (i = 0; i < v->n; i++)
				if (!strcmp(hs[i].dir, h.dir))
					memcpy(hs[i].opts, h.opts, sizeof(h.opts));
		p = eol + 1;
	}
out:
	ucg_buf_fini(&out);
}

int view_answer(void *ctx, const struct view_target *t, struct ucg_buf *out)
{
	static struct view_hier hs[VIEW_MAX_HIER]; /* the supervisor is one thread */
	const struct view *v = ctx;
	struct ucg_buf mi;
	char pid[16], tid[16];
	int r;

	switch (t->kind) {
	case VIEW_CGROUP:
		/* the daemon shows the task named by its first id: the thread's own */
		snprintf(pid, sizeof(pid), "%d", t->tid ? t->tid : t->pid);
		snprintf(tid, sizeof(tid), "%d", t->tid);
		r = ucgfs_ctl_request(3, (const char *const[]){ "proc", pid, tid }, out);
		return r < 0 ? r : 0;
	case VIEW_CGROUPS:
		r = ucgfs_ctl_request(1, (const char *const[]){ "cgroups" }, out);
		return r < 0 ? r : 0;
	case VIEW_MOUNTINFO:
	case VIEW_MOUNTS:
		ucg_buf_init(&mi);
		r = read_mountinfo(t, &mi);
		if (r == 0) {
			refresh_opts(v, hs);
			if (t->kind == VIEW_MOUNTINFO) {
				view_mountinfo_rewrite(mi.data, mi.len, hs, v->n, out);
			} else {
				struct ucg_buf rw;

				ucg_buf_init(&rw);
				view_mountinfo_rewrite(mi.data, mi.len, hs, v->n, &rw);
				view_mounts_format(rw.data, rw.len, out);
				ucg_buf_fini(&rw);
			}
		}
		ucg_buf_fini(&mi);
		return r;
	default: return -EINVAL;
	}
}

int view_is_hier_dev(void *ctx, unsigned major, unsigned minor)
{
	const struct view *v = ctx;
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->hs[i].major == major && v->hs[i].minor == minor)
			return 1;
	return 0;
}
