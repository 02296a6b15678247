/* fs/state.c — saving and restoring the daemon's state (format in state.h). */
#include "fs/state.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "fs/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- encoding -------------------------------------------------------------------- */

static void put_enc(struct ucg_buf *b, const char *s, size_t len)
{
	size_t i;

	if (!len) {
		ucg_buf_puts(b, "%");
		return;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c == 0x7f || c == '%')
			ucg_buf_printf(b, "%%%02x", c);
		else
			ucg_buf_putc(b, (char)c);
	}
}

/* Decodes in place; a lone "%" is the empty string. Returns the length. */
static size_t dec(char *s)
{
	char *r = s, *w = s;

	if (!strcmp(s, "%")) {
		*s = '\0';
		return 0;
	}
	while (*r) {
		if (r[0] == '%' && r[1] && r[2]) {
			char hex[3] = { r[1], r[2], 0 };

			*w++ = (char)strtoul(hex, NULL, 16);
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* ---- saving ---------------------------------------------------------------------- */

struct walk {
	struct ucg_engine *e;
	struct ucg_hierarchy *h;
	int idx;
	struct ucg_buf *out;
	struct ucg_cred root;
	char *dir;          /* the directory being listed */
	char **subdirs;
	size_t nr_subdirs, cap_subdirs;
};

static void join(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
}

static int walk_entry(void *ctx, const char *name, const struct ucg_stat *st)
{
	struct walk *w = ctx;
	char path[4096];
	struct ucg_buf data;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	join(path, sizeof(path), w->dir, name);
	if ((st->mode & S_IFMT) == S_IFDIR) {
		if (w->nr_subdirs == w->cap_subdirs) {
			size_t nc = w->cap_subdirs ? w->cap_subdirs * 2 : 16;
			char **ns = ucg_realloc(w->subdirs, nc * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			w->subdirs = ns;
			w->cap_subdirs = nc;
		}
		if (!(w->subdirs[w->nr_subdirs] = ucg_strdup(path)))
			return -ENOMEM;
		w->nr_subdirs++;
		return 0;
	}
	ucg_buf_printf(w->out, "f %d ", w->idx);
	put_enc(w->out, path, strlen(path));
	ucg_buf_printf(w->out, " %o %u %u ", st->mode & 07777, st->uid, st->gid);
	ucg_buf_init(&data);
	if (!strcmp(name, "tasks") && strcmp(w->dir, "/")) {
		/* membership: only tasks in non-root cgroups need saving */
		if (ucg_fs_read_all(w->e, w->h, path, &w->root, &data) == 0 && data.data) {
			char *p = data.data, *end;

			ucg_buf_puts(w->out, "-\n");
			for (;;) {
				long tid = strtol(p, &end, 10);
				struct ucg_task_info info;

				if (end == p)
					break;
				p = end;
				if (ucg_task_get_info(w->e, (int)tid, &info) < 0)
					continue;
				ucg_buf_printf(w->out, "t %d ", w->idx);
				put_enc(w->out, w->dir, strlen(w->dir));
				ucg_buf_printf(w->out, " %ld %llu\n", tid,
					       (unsigned long long)info.start_time);
			}
			ucg_buf_fini(&data);
			return 0;
		}
	} else if ((st->mode & 0200) && strcmp(name, "tasks") && strcmp(name, "cgroup.procs") &&
		   ucg_fs_read_all(w->e, w->h, path, &w->root, &data) == 0) {
		put_enc(w->out, data.data ? data.data : "", data.len);
		ucg_buf_putc(w->out, '\n');
		ucg_buf_fini(&data);
		return 0;
	}
	ucg_buf_fini(&data);
	ucg_buf_puts(w->out, "-\n");
	return 0;
}

static int walk_dir(struct walk *w, const char *dir)
{
	struct ucg_stat st;
	size_t first, i, end;
	int r;

	r = ucg_fs_getattr(w->e, w->h, dir, &w->root, &st);
	if (r < 0)
		return r;
	ucg_buf_printf(w->out, "d %d ", w->idx);
	put_enc(w->out, dir, strlen(dir));
	ucg_buf_printf(w->out, " %o %u %u\n", st.mode & 07777, st.uid, st.gid);
	first = w->nr_subdirs;
	w->dir = (char *)dir;
	r = ucg_fs_readdir(w->e, w->h, dir, &w->root, walk_entry, w);
	if (r < 0)
		return r;
	end = w->nr_subdirs;
	for (i = first; i < end && r >= 0; i++)
		r = walk_dir(w, w->subdirs[i]);
	return r;
}

/* "rw,cpu,release_agent=/x,clone_children,name=n" -> "cpu,name=n": what ucg_mount
 * takes back; the agent and clone_children come back through the root's files. */
static void mount_opts_of(const struct ucg_hierarchy *h, struct ucg_buf *out)
{
	struct ucg_buf o;
	char *tok, *save = NULL;
	int first = 1, any = 0;

	ucg_buf_init(&o);
	ucg_hierarchy_format_options(h, &o);
	for (tok = o.data ? strtok_r(o.data, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "rw") || !strncmp(tok, "release_agent=", 14) ||
		    !strcmp(tok, "clone_children"))
			continue;
		if (strncmp(tok, "name=", 5) && strcmp(tok, "noprefix") && strcmp(tok, "xattr") &&
		    strcmp(tok, "cpuset_v2_mode") && strcmp(tok, "favordynmods"))
			any = 1; /* a controller */
		ucg_buf_printf(out, "%s%s", first ? "" : ",", tok);
		first = 0;
	}
	if (!any)
		ucg_buf_printf(out, "%snone", first ? "" : ",");
	ucg_buf_fini(&o);
}

int ucgfs_state_save(struct ucg_engine *e, const struct ucgfs_state_mount *mounts, int n)
{
	struct ucg_buf out, opts;
	struct ucg_hierarchy *h = NULL;
	char path[4096], tmp[4096];
	int idx = 0, i, r = 0, fd;
	FILE *f;

	if ((r = ucgfs_ctl_path(path, sizeof(path), "state")) < 0 ||
	    (r = ucgfs_ctl_path(tmp, sizeof(tmp), "state.tmp")) < 0)
		return r;
	ucg_buf_init(&out);
	while ((h = ucg_hierarchy_next(e, h))) {
		struct walk w = { .e = e, .h = h, .idx = ++idx, .out = &out };
		size_t k;

		w.root = ucg_cred_root();
		ucg_buf_init(&opts);
		mount_opts_of(h, &opts);
		ucg_buf_printf(&out, "h %d ", idx);
		put_enc(&out, opts.data ? opts.data : "", opts.len);
		ucg_buf_putc(&out, '\n');
		ucg_buf_fini(&opts);
		r = walk_dir(&w, "/");
		for (k = 0; k < w.nr_subdirs; k++)
			ucg_free(w.subdirs[k]);
		ucg_free(w.subdirs);
		if (r < 0)
			goto out;
		for (i = n - 1; i >= 0; i--) /* oldest mount first */
			if (mounts[i].h == h) {
				ucg_buf_printf(&out, "m %d ", idx);
				put_enc(&out, mounts[i].name, strlen(mounts[i].name));
				ucg_buf_putc(&out, ' ');
				put_enc(&out, mounts[i].dir, strlen(mounts[i].dir));
				ucg_buf_putc(&out, '\n');
			}
	}
	if ((r = ucg_buf_error(&out)) < 0)
		goto out;
	/* O_NOFOLLOW: a symlink planted at state.tmp is refused, not written through. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (out.len && fwrite(out.data, 1, out.len, f) != out.len)
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
out:
	ucg_buf_fini(&out);
	return r;
}

void ucgfs_state_forget(void)
{
	char path[4096];

	if (ucgfs_ctl_path(path, sizeof(path), "state") == 0)
		unlink(path);
	if (ucgfs_ctl_path(path, sizeof(path), "state.tmp") == 0)
		unlink(path);
}

/* ---- restoring ------------------------------------------------------------------- */

#define MAX_RESTORE 256

static void write_lines(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
			const struct ucg_cred *root, const char *data)
{
	const char *p = data;

	if (!*p) /* an empty value (release_agent unset): one newline clears it */
		p = "\n";
	while (*p) {
		size_t len = strcspn(p, "\n");

		ucg_fs_write_all(e, h, path, root, p, len + (p[len] == '\n'));
		p += len + (p[len] == '\n');
		if (!len && !*p)
			break;
	}
}

int ucgfs_state_restore(struct ucg_engine *e, ucgfs_state_mount_fn mount_fn, void *ctx,
			pthread_mutex_t *lock)
{
	struct ucg_hierarchy *hs[MAX_RESTORE + 1] = { 0 };
	struct ucg_cred root = ucg_cred_root();
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int i, fd;
	struct pending {
		int idx;
		char *name, *dir;
	} *mounts = NULL;
	size_t nm = 0, capm = 0;

	if (ucgfs_ctl_path(path, sizeof(path), "state") < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -errno;
	}
	pthread_mutex_lock(lock);
	while ((len = getline(&line, &cap, f)) > 0) {
		char *fld[8], *save = NULL, *tok;
		int nf = 0, idx;
		struct ucg_hierarchy *h;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		for (tok = strtok_r(line, " ", &save); tok && nf < 8; tok = strtok_r(NULL, " ", &save))
			fld[nf++] = tok;
		if (nf < 3)
			continue;
		idx = atoi(fld[1]);
		if (idx < 1 || idx > MAX_RESTORE)
			continue;
		h = hs[idx];
		for (i = 2; i < nf; i++)
			dec(fld[i]);
		if (fld[0][0] == 'h') {
			struct ucg_err err;

			if (!h && ucg_mount(e, fld[2], &hs[idx], &err) < 0)
				hs[idx] = NULL;
		} else if (!h) {
			continue;
		} else if (fld[0][0] == 'd' && nf == 6) {
			if (strcmp(fld[2], "/"))
				ucg_fs_mkdir(e, h, fld[2], 0755, &root);
			ucg_fs_chmod(e, h, fld[2], (uint32_t)strtoul(fld[3], NULL, 8), &root);
			ucg_fs_chown(e, h, fld[2], (uint32_t)strtoul(fld[4], NULL, 10),
				     (uint32_t)strtoul(fld[5], NULL, 10), &root);
		} else if (fld[0][0] == 'f' && nf == 7) {
			if (strcmp(fld[6], "-"))
				write_lines(e, h, fld[2], &root, fld[6]);
			ucg_fs_chmod(e, h, fld[2], (uint32_t)strtoul(fld[3], NULL, 8), &root);
			ucg_fs_chown(e, h, fld[2], (uint32_t)strtoul(fld[4], NULL, 10),
				     (uint32_t)strtoul(fld[5], NULL, 10), &root);
		} else if (fld[0][0] == 't' && nf == 5) {
			struct ucg_task_info info;
			int tid = atoi(fld[3]);
			char tasks[4096];

			if (ucg_task_get_info(e, tid, &info) == 0 &&
			    info.start_time == strtoull(fld[4], NULL, 10)) {
				join(tasks, sizeof(tasks), fld[2], "tasks");
				ucg_fs_write_all(e, h, tasks, &root, fld[3], strlen(fld[3]));
			}
		} else if (fld[0][0] == 'm' && nf == 4) {
			if (nm == capm) {
				size_t nc = capm ? capm * 2 : 8;
				struct pending *np = ucg_realloc(mounts, nc * sizeof(*np));

				if (!np)
					continue;
				mounts = np;
				capm = nc;
			}
			mounts[nm].idx = idx;
			mounts[nm].name = ucg_strdup(fld[2]);
			mounts[nm].dir = ucg_strdup(fld[3]);
			nm++;
		}
	}
	pthread_mutex_unlock(lock);
	fclose(f);
	free(line);
	for (size_t k = 0; k < nm; k++) {
		struct ucg_buf o;

		if (mounts[k].name && mounts[k].dir && hs[mounts[k].idx]) {
			ucg_buf_init(&o);
			pthread_mutex_lock(lock);
			mount_opts_of(hs[mounts[k].idx], &o);
			pthread_mutex_unlock(lock);
			if (o.data)
				mount_fn(ctx, mounts[k].name, mounts[k].dir, o.data);
			ucg_buf_fini(&o);
		}
		ucg_free(mounts[k].name);
		ucg_free(mounts[k].dir);
	}
	ucg_free(mounts);
	/* Drop the restore's own mount of each hierarchy: those left unmounted and
	 * without children go away, as after a last umount. */
	pthread_mutex_lock(lock);
	for (i = 1; i <= MAX_RESTORE; i++)
		if (hs[i])
			ucg_umount(e, hs[i]);
	pthread_mutex_unlock(lock);
	return 0;
}
