/* engine/event.c — cgroup.event_control: the grammar, registration, the queue.
 *
 * Verified on 6.18 (docs/controllers-verified.md, "cgroup.event_control"): the file
 * is memory's (mode 0200, in the root and every child); a read is EINVAL. A write is
 * stripped, then "<efd> <cfd>[ <args>]": efd in decimal followed by exactly one
 * space, cfd in decimal followed by the end or one space; anything else EINVAL. Then,
 * in order: efd not open EBADF, efd no eventfd EINVAL, cfd not open EBADF, cfd not
 * readable EACCES, cfd not one of the four event files EINVAL, cfd of another cgroup
 * EINVAL, then the file's own check of args. The fds are the front end's business
 * (they live in the writer's process); the engine gets them resolved through the
 * provider's event_fds op and does the rest here.
 */
#include "engine/event.h"
#include "base/alloc.h"
#include "base/kctype.h"
#include "engine/cgroup.h"
#include "engine/perm.h"

#include <errno.h>
#include <string.h>

/* simple_strtoul(s, &end, 10): digits only, wrapping modulo 2^64. */
static size_t parse_fd(const char *s, size_t len, unsigned *ret)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < len && ucg_kisdigit((unsigned char)s[i]))
		v = v * 10 + (uint64_t)(s[i++] - '0');
	*ret = (unsigned)v; /* the kernel keeps it in an unsigned int */
	return i;
}

int ucg_event_control_parse(const char *buf, size_t len, unsigned *event_fd,
			    unsigned *control_fd, size_t *args_off, size_t *args_len)
{
	const char *s = buf;
	size_t n = len, i;
	unsigned efd, cfd;

	ucg_kstrip(&s, &n);
	/* No digits parse as 0 with the end pointer at the start: only the byte after
	 * counts, so " 5" after a strip cannot happen and "x" fails below. */
	i = parse_fd(s, n, &efd);
	if (i >= n || s[i] != ' ')
		return -EINVAL;
	s += i + 1;
	n -= i + 1;
	i = parse_fd(s, n, &cfd);
	if (i < n && s[i] != ' ')
		return -EINVAL;
	*event_fd = efd;
	*control_fd = cfd;
	*args_off = (size_t)(s - buf) + (i < n ? i + 1 : i);
	*args_len = i < n ? n - i - 1 : 0;
	return 0;
}

/* Adds n and queues reg; the provider hears of it last, so it may pop (and free a
 * final reg) from inside the callback: callers do not touch reg afterwards. */
static void queue(struct ucg_engine *e, struct ucg_event_reg *reg, uint64_t n)
{
	reg->pending += n;
	if (!reg->queued) {
		reg->queued = 1;
		ucg_list_add_tail(&e->events_pending, &reg->pend_node);
	}
	if (e->cfg.provider && e->cfg.provider->event_queued)
		e->cfg.provider->event_queued(e->cfg.provider_ctx, e);
}

void ucg_event_signal(struct ucg_event_reg *reg, uint64_t n)
{
	if (reg->cg)
		queue(reg->cg->h->e, reg, n);
}

void ucg_event_cgroup_removed(struct ucg_cgroup *cg)
{
	struct ucg_engine *e = cg->h->e;
	struct ucg_event_reg *reg, *next;

	for (reg = cg->events; reg; reg = next) {
		next = reg->cg_next;
		reg->cg_next = NULL;
		reg->final = 1;
		reg->cg = NULL;
		e->nr_event_regs--;
		queue(e, reg, 1); /* "the event is going away" */
	}
	cg->events = NULL;
}

int ucg_event_next(struct ucg_engine *e, struct ucg_event *ret)
{
	struct ucg_event_reg *reg;

	if (ucg_list_empty(&e->events_pending))
		return 0;
	reg = ucg_container_of(e->events_pending.next, struct ucg_event_reg, pend_node);
	ucg_list_del(&reg->pend_node);
	reg->queued = 0;
	ret->handle = reg->handle;
	ret->count = reg->pending;
	ret->final = reg->final;
	reg->pending = 0;
	if (reg->final)
		ucg_free(reg);
	return 1;
}

void ucg_event_flush(struct ucg_engine *e)
{
	struct ucg_event ev;

	while (ucg_event_next(e, &ev))
		;
}

/* Registration on the file at index fi of cg's directory: the kernel's checks from
 * file_permission on, with the writer's credentials (none: no permission check), and
 * want the cgroup whose cgroup.event_control was written (NULL: any). */
static int register_on(struct ucg_engine *e, struct ucg_cgroup *cg, int fi, const char *args,
		       uint64_t handle, const struct ucg_cred *cred, const struct ucg_cgroup *want)
{
	const struct ucg_dirfile *files;
	const struct ucg_cftype *cft;
	struct ucg_event_reg *reg;
	struct ucg_of of;
	int n, r;

	files = ucg_cgroup_files(cg, &n);
	cft = files[fi].cft;
	/* the kernel's file_permission(cfile, MAY_READ) */
	if (cred) {
		struct ucg_file_attr a = ucg_cgroup_file_attr(cg, fi);

		r = ucg_perm_check(cred, a.mode, a.uid, a.gid, 0, UCG_MAY_READ);
		if (r < 0)
			return r;
	}
	if (!cft->register_event)
		return -EINVAL; /* the name check comes before the cgroup check */
	if (want && cg != want)
		return -EINVAL;
	reg = ucg_calloc(1, sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	reg->cg = cg;
	reg->cft = cft;
	reg->handle = handle;
	memset(&of, 0, sizeof(of));
	of.e = e;
	of.cg = cg;
	of.css = files[fi].ss ? cg->css[files[fi].ss->id] : NULL;
	of.cft = cft;
	if (cred)
		of.cred = *cred;
	r = cft->register_event(&of, reg, args);
	if (r < 0) {
		ucg_free(reg);
		return r;
	}
	{
		struct ucg_event_reg **tail = &cg->events;

		while (*tail)
			tail = &(*tail)->cg_next;
		*tail = reg;
	}
	e->nr_event_regs++;
	return 0;
}

/* Splits "/a/b/file" into the cgroup and the index of the file in it. */
static int resolve_file(struct ucg_hierarchy *h, const char *path, struct ucg_cgroup **ret_cg,
			int *ret_fi)
{
	const char *slash = strrchr(path, '/');
	struct ucg_buf dir;
	int r, fi;

	if (!slash)
		return -EINVAL;
	ucg_buf_init(&dir);
	if (slash == path)
		ucg_buf_puts(&dir, "/");
	else
		ucg_buf_append(&dir, path, (size_t)(slash - path));
	if (ucg_buf_error(&dir)) {
		ucg_buf_fini(&dir);
		return -ENOMEM;
	}
	r = ucg_cgroup_lookup(h, dir.data, ret_cg);
	ucg_buf_fini(&dir);
	if (r < 0)
		return r;
	fi = ucg_cgroup_find_file(*ret_cg, slash + 1, strlen(slash + 1));
	if (fi < 0)
		return -ENOENT;
	*ret_fi = fi;
	return 0;
}

int ucg_event_register(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
		       const char *args, uint64_t handle)
{
	struct ucg_cgroup *cg;
	int fi, r;

	if (h->dead)
		return -ENOENT;
	r = resolve_file(h, path, &cg, &fi);
	if (r < 0)
		return r;
	return register_on(e, cg, fi, args ? args : "", handle, NULL, NULL);
}

int ucg_event_control_write(struct ucg_of *of, const char *buf, size_t len)
{
	const struct ucg_provider_ops *ops = of->e->cfg.provider;
	struct ucg_event_target t;
	struct ucg_cgroup *cg;
	size_t aoff, alen;
	unsigned efd, cfd;
	char *args;
	int fi, r;

	r = ucg_event_control_parse(buf, len, &efd, &cfd, &aoff, &alen);
	if (r < 0)
		return r;
	if (!ops || !ops->event_fds)
		return -EBADF;
	memset(&t, 0, sizeof(t));
	r = ops->event_fds(of->e->cfg.provider_ctx, of->e, efd, cfd, &t);
	if (r < 0)
		return r;
	args = ucg_strndup(buf + aoff, alen);
	if (!args) {
		r = -ENOMEM;
	} else if (!t.h || !t.path || t.h->dead) {
		r = -EINVAL; /* not a cgroup file: its name is none of the event files */
	} else {
		/* A removed cgroup or a vanished file: css_tryget_online fails, EINVAL. */
		r = resolve_file(t.h, t.path, &cg, &fi);
		if (r == 0)
			r = register_on(of->e, cg, fi, args, t.handle, &of->cred, of->cg);
		else if (r != -ENOMEM)
			r = -EINVAL;
	}
	ucg_free(args);
	if (r < 0 && ops->event_put)
		ops->event_put(of->e->cfg.provider_ctx, of->e, t.handle);
	return r;
}
