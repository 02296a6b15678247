/* fs/state.c — saving and restoring the daemon's state (format in state.h). */
#include "fs/state.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "fs/ctl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- encoding -------------------------------------------------------------------- */

void ucgfs_state_put_enc(struct ucg_buf *b, const char *s, size_t len)
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
	char *dir;   /* the directory being listed */
	int recurse; /* 0: the first directory's records only */
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
		if (!w->recurse)
			return 0;
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
	ucgfs_state_put_enc(w->out, path, strlen(path));
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
				ucgfs_state_put_enc(w->out, w->dir, strlen(w->dir));
				ucg_buf_printf(w->out, " %ld %llu\n", tid,
					       (unsigned long long)info.start_time);
			}
			ucg_buf_fini(&data);
			return 0;
		}
	} else if ((st->mode & 0200) && strcmp(name, "tasks") && strcmp(name, "cgroup.procs") &&
		   ucg_fs_read_all(w->e, w->h, path, &w->root, &data) == 0) {
		ucgfs_state_put_enc(w->out, data.data ? data.data : "", data.len);
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
	ucgfs_state_put_enc(w->out, dir, strlen(dir));
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

int ucgfs_state_put_dir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *dir, int recurse,
			struct ucg_buf *out)
{
	struct walk w = { .e = e, .h = h, .idx = ucg_hierarchy_id(h), .out = out };
	size_t k;
	int r;

	w.root = ucg_cred_root();
	w.recurse = recurse;
	r = walk_dir(&w, dir);
	for (k = 0; k < w.nr_subdirs; k++)
		ucg_free(w.subdirs[k]);
	ucg_free(w.subdirs);
	return r;
}

/* "rw,cpu,release_agent=/x,clone_children,name=n" -> "cpu,name=n": what ucg_mount
 * takes back; the agent and clone_children come back through the root's files. */
void ucgfs_state_put_opts(const struct ucg_hierarchy *h, struct ucg_buf *out)
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

uint32_t ucgfs_state_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

int ucgfs_state_serialize(struct ucg_engine *e, const struct ucgfs_state_mount *mounts, int n,
			  uint64_t gen, struct ucg_buf *out)
{
	struct ucg_hierarchy *h = NULL;
	int i, r;

	ucg_buf_printf(out, "g %" PRIu64 "\n", gen);
	while ((h = ucg_hierarchy_next(e, h))) {
		ucg_buf_printf(out, "h %d ", ucg_hierarchy_id(h));
		{
			struct ucg_buf opts;

			ucg_buf_init(&opts);
			ucgfs_state_put_opts(h, &opts);
			ucgfs_state_put_enc(out, opts.data ? opts.data : "", opts.len);
			ucg_buf_fini(&opts);
		}
		ucg_buf_putc(out, '\n');
		r = ucgfs_state_put_dir(e, h, "/", 1, out);
		if (r < 0)
			return r;
		for (i = n - 1; i >= 0; i--) /* oldest mount first */
			if (mounts[i].h == h) {
				ucg_buf_printf(out, "m %d ", ucg_hierarchy_id(h));
				ucgfs_state_put_enc(out, mounts[i].name, strlen(mounts[i].name));
				ucg_buf_putc(out, ' ');
				ucgfs_state_put_enc(out, mounts[i].dir, strlen(mounts[i].dir));
				if (mounts[i].conn)
					ucg_buf_printf(out, " %u", mounts[i].conn);
				ucg_buf_putc(out, '\n');
			}
	}
	return ucg_buf_error(out);
}

void ucgfs_state_sync_dir(void)
{
	const char *dir = ucgfs_ctl_runtime_dir();
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int ucgfs_state_write(const struct ucg_buf *snap)
{
	char path[4096], tmp[4096];
	size_t off = 0;
	int r = 0, fd;

	if ((r = ucgfs_ctl_path(path, sizeof(path), "state")) < 0 ||
	    (r = ucgfs_ctl_path(tmp, sizeof(tmp), "state.tmp")) < 0)
		return r;
	/* O_NOFOLLOW: a symlink planted at state.tmp is refused, not written through. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (off < snap->len) {
		ssize_t w = write(fd, snap->data + off, snap->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = w < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)w;
	}
	/* The journals before this snapshot are removed once it is in place: its bytes
	 * must be on disk before its name is. */
	if (r == 0 && fdatasync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	ucgfs_state_sync_dir();
	return 0;
}

/* The generations of the journals in the runtime directory, ascending, in *ret
 * (ucg_free it). Their number, or -errno. */
static long list_journals(uint64_t **ret)
{
	DIR *dir = opendir(ucgfs_ctl_runtime_dir());
	struct dirent *de;
	uint64_t *gens = NULL, *ng;
	size_t n = 0, cap = 0, i, j;

	*ret = NULL;
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char *end;
		uint64_t g;

		if (strncmp(de->d_name, "journal.", 8) || !de->d_name[8])
			continue;
		g = strtoull(de->d_name + 8, &end, 10);
		if (*end)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			ng = ucg_realloc(gens, cap * sizeof(*gens));
			if (!ng) {
				ucg_free(gens);
				closedir(dir);
				return -ENOMEM;
			}
			gens = ng;
		}
		gens[n++] = g;
	}
	closedir(dir);
	for (i = 1; i < n; i++) /* a few, unless snapshots keep failing: insertion sort */
		for (j = i; j > 0 && gens[j - 1] > gens[j]; j--) {
			uint64_t t = gens[j];

			gens[j] = gens[j - 1];
			gens[j - 1] = t;
		}
	*ret = gens;
	return (long)n;
}

void ucgfs_state_drop_journals(uint64_t gen)
{
	uint64_t *gens;
	long n = list_journals(&gens), i;
	char leaf[32], path[4096];

	for (i = 0; i < n && gens[i] < gen; i++) {
		snprintf(leaf, sizeof(leaf), "journal.%" PRIu64, gens[i]);
		if (ucgfs_ctl_path(path, sizeof(path), leaf) == 0)
			unlink(path);
	}
	ucg_free(gens);
}

void ucgfs_state_forget(void)
{
	char path[4096];

	if (ucgfs_ctl_path(path, sizeof(path), "state") == 0)
		unlink(path);
	if (ucgfs_ctl_path(path, sizeof(path), "state.tmp") == 0)
		unlink(path);
	ucgfs_state_drop_journals(UINT64_MAX);
}

/* ---- restoring ------------------------------------------------------------------- */

#define MAX_MAP 256

struct ucgfs_restore {
	struct ucg_engine *e;
	struct {
		int id; /* the writer's hierarchy id */
		struct ucg_hierarchy *h;
	} map[MAX_MAP];
	int nmap;
	struct pending {
		int id;
		char *name, *dir;
		struct ucg_hierarchy *h;
		unsigned conn;
	} * mounts;
	struct ucgfs_state_mount *view; /* for ucgfs_restore_mounts */
	size_t nm, capm;
	uint64_t snap_gen, next_gen;
};

static struct ucg_hierarchy **map_find(struct ucgfs_restore *rs, int id, int add)
{
	int i, free = -1;

	for (i = 0; i < rs->nmap; i++) {
		if (rs->map[i].h && rs->map[i].id == id)
			return &rs->map[i].h;
		if (!rs->map[i].h && free < 0)
			free = i;
	}
	if (!add)
		return NULL;
	if (free < 0) {
		if (rs->nmap == MAX_MAP)
			return NULL;
		free = rs->nmap++;
	}
	rs->map[free].id = id;
	return &rs->map[free].h;
}

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

static void set_attrs(struct ucg_engine *e, struct ucg_hierarchy *h, char **fld)
{
	struct ucg_cred root = ucg_cred_root();

	ucg_fs_chmod(e, h, fld[2], (uint32_t)strtoul(fld[3], NULL, 8), &root);
	ucg_fs_chown(e, h, fld[2], (uint32_t)strtoul(fld[4], NULL, 10),
		     (uint32_t)strtoul(fld[5], NULL, 10), &root);
}

static void add_mount(struct ucgfs_restore *rs, int id, struct ucg_hierarchy *h, const char *name,
		      const char *dir, unsigned conn)
{
	if (rs->nm == rs->capm) {
		size_t nc = rs->capm ? rs->capm * 2 : 8;
		struct pending *np = ucg_realloc(rs->mounts, nc * sizeof(*np));

		if (!np)
			return;
		rs->mounts = np;
		rs->capm = nc;
	}
	rs->mounts[rs->nm].id = id;
	rs->mounts[rs->nm].h = h;
	rs->mounts[rs->nm].name = ucg_strdup(name);
	rs->mounts[rs->nm].dir = ucg_strdup(dir);
	rs->mounts[rs->nm].conn = conn;
	rs->nm++;
}

/* The newest mount of id at dir: its connection is now conn. */
static void set_conn(struct ucgfs_restore *rs, int id, const char *dir, unsigned conn)
{
	size_t k;

	for (k = rs->nm; k-- > 0;)
		if (rs->mounts[k].id == id && rs->mounts[k].dir &&
		    !strcmp(rs->mounts[k].dir, dir)) {
			rs->mounts[k].conn = conn;
			return;
		}
}

static void drop_mount(struct ucgfs_restore *rs, int id, const char *dir)
{
	size_t k;

	for (k = rs->nm; k-- > 0;)
		if (rs->mounts[k].id == id && rs->mounts[k].dir &&
		    !strcmp(rs->mounts[k].dir, dir)) {
			ucg_free(rs->mounts[k].name);
			ucg_free(rs->mounts[k].dir);
			memmove(&rs->mounts[k], &rs->mounts[k + 1],
				(rs->nm - k - 1) * sizeof(rs->mounts[0]));
			rs->nm--;
			return;
		}
}

/* Applies one record (its line split into nf fields, decoded); as every record says
 * what is, not what to do, one that fails (a cgroup already there) changes nothing. */
static void apply(struct ucgfs_restore *rs, char **fld, int nf)
{
	struct ucg_engine *e = rs->e;
	struct ucg_cred root = ucg_cred_root();
	struct ucg_hierarchy **hp, *h;
	struct ucg_err err;
	int id = atoi(fld[1]);
	char kind = fld[0][0];

	if (kind == 'h') {
		hp = map_find(rs, id, 1);
		if (hp && !*hp && ucg_mount(e, fld[2], hp, &err) < 0)
			*hp = NULL;
		return;
	}
	hp = map_find(rs, id, 0);
	h = hp ? *hp : NULL;
	if (!h)
		return;
	if (kind == 'x') {
		size_t k = 0;

		while (k < rs->nm) /* none expected: its mounts went first (u records) */
			if (rs->mounts[k].id == id) {
				ucg_free(rs->mounts[k].name);
				ucg_free(rs->mounts[k].dir);
				memmove(&rs->mounts[k], &rs->mounts[k + 1],
					(rs->nm - k - 1) * sizeof(rs->mounts[0]));
				rs->nm--;
			} else {
				k++;
			}
		ucg_umount(e, h); /* the restore's own mount: it was the last */
		*hp = NULL;
	} else if (kind == 'R' && nf == 3) {
		ucg_remount(e, h, fld[2], &err);
	} else if (kind == 'd' && nf == 6) {
		/* made as its owner, whose its files are until chown'ed (f records) */
		struct ucg_cred c = root;

		c.uid = c.euid = c.suid = c.fsuid = (uint32_t)strtoul(fld[4], NULL, 10);
		c.gid = c.egid = c.sgid = c.fsgid = (uint32_t)strtoul(fld[5], NULL, 10);
		if (strcmp(fld[2], "/"))
			ucg_fs_mkdir(e, h, fld[2], 0755, &c);
		set_attrs(e, h, fld);
	} else if (kind == 'f' && nf == 7) {
		if (strcmp(fld[6], "-"))
			write_lines(e, h, fld[2], &root, fld[6]);
		set_attrs(e, h, fld);
	} else if (kind == 't' && nf == 5) {
		struct ucg_task_info info;
		int tid = atoi(fld[3]);
		char tasks[4096];

		if (ucg_task_get_info(e, tid, &info) == 0 &&
		    info.start_time == strtoull(fld[4], NULL, 10)) {
			join(tasks, sizeof(tasks), fld[2], "tasks");
			ucg_fs_write_all(e, h, tasks, &root, fld[3], strlen(fld[3]));
		}
	} else if (kind == 'r' && nf == 3) {
		ucg_fs_rmdir(e, h, fld[2], &root);
	} else if (kind == 'n' && nf == 4) {
		ucg_fs_rename(e, h, fld[2], fld[3], &root);
	} else if (kind == 'w' && nf == 4) {
		ucg_fs_write_all(e, h, fld[2], &root, fld[3], strlen(fld[3]));
	} else if (kind == 'm' && (nf == 4 || nf == 5)) {
		add_mount(rs, id, h, fld[2], fld[3],
			  nf == 5 ? (unsigned)strtoul(fld[4], NULL, 10) : 0);
	} else if (kind == 'u' && nf == 3) {
		drop_mount(rs, id, fld[2]);
	} else if (kind == 'c' && nf == 4) {
		set_conn(rs, id, fld[2], (unsigned)strtoul(fld[3], NULL, 10));
	}
}

/* Replays the file at path: the snapshot (journal 0) or a journal, whose lines must
 * end with their hash. Returns the number of bytes ignored at its end (a torn
 * record), or -errno. */
static long replay(struct ucgfs_restore *rs, const char *path, int journal, pthread_mutex_t *lock)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long off = 0, size;
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return -EINVAL;
	}
	size = (long)st.st_size;
	pthread_mutex_lock(lock);
	while ((len = getline(&line, &cap, f)) > 0) {
		char *fld[8], *save = NULL, *tok;
		int nf = 0, i;

		if (line[len - 1] != '\n')
			break; /* cut by a crash in the write */
		line[--len] = '\0';
		if (journal) {
			char want[16];

			if (len < 10)
				break;
			snprintf(want, sizeof(want), " ~%08x",
				 ucgfs_state_hash(line, (size_t)len - 10));
			if (strcmp(line + len - 10, want))
				break; /* a torn record: nothing after it can be trusted */
			line[len - 10] = '\0';
		}
		off += (long)len + 1;
		for (tok = strtok_r(line, " ", &save); tok && nf < 8; tok = strtok_r(NULL, " ", &save))
			fld[nf++] = tok;
		if (nf == 2 && !strcmp(fld[0], "g")) {
			rs->snap_gen = strtoull(fld[1], NULL, 10);
			continue;
		}
		if (nf < 2)
			continue;
		for (i = 2; i < nf; i++)
			dec(fld[i]);
		apply(rs, fld, nf);
	}
	pthread_mutex_unlock(lock);
	fclose(f);
	free(line);
	return size - off;
}

int ucgfs_state_restore(struct ucg_engine *e, pthread_mutex_t *lock, struct ucgfs_restore **ret)
{
	struct ucgfs_restore *rs = ucg_calloc(1, sizeof(*rs));
	uint64_t *gens;
	char path[4096], leaf[32];
	long r, n, i;

	*ret = rs;
	if (!rs)
		return -ENOMEM;
	rs->e = e;
	if (ucgfs_ctl_path(path, sizeof(path), "state") < 0)
		return -ENAMETOOLONG;
	r = replay(rs, path, 0, lock);
	if (r < 0)
		return (int)r;
	rs->next_gen = rs->snap_gen + 1;
	n = list_journals(&gens);
	if (n < 0) /* what the snapshot holds is all there is */
		fprintf(stderr, "ucg: daemon: journals: %s: not replayed\n", strerror((int)-n));
	for (i = 0; i < n; i++) {
		if (gens[i] >= rs->next_gen)
			rs->next_gen = gens[i] + 1;
		if (gens[i] < rs->snap_gen)
			continue; /* the snapshot holds it: a crash came before its removal */
		snprintf(leaf, sizeof(leaf), "journal.%" PRIu64, gens[i]);
		if (ucgfs_ctl_path(path, sizeof(path), leaf) < 0)
			continue;
		r = replay(rs, path, 1, lock);
		if (r > 0)
			fprintf(stderr,
				"ucg: daemon: %s: the last %ld bytes are a record cut by a crash: "
				"ignored\n",
				leaf, r);
		else if (r < 0)
			fprintf(stderr, "ucg: daemon: %s: %s: ignored\n", leaf, strerror((int)-r));
	}
	ucg_free(gens);
	return 0;
}

uint64_t ucgfs_restore_next_gen(const struct ucgfs_restore *rs)
{
	return rs->next_gen;
}

int ucgfs_restore_mounts(const struct ucgfs_restore *rs, const struct ucgfs_state_mount **ret)
{
	struct ucgfs_restore *w = (struct ucgfs_restore *)rs;
	size_t k;
	int n = 0;

	ucg_free(w->view);
	w->view = rs->nm ? ucg_calloc(rs->nm, sizeof(*w->view)) : NULL;
	/* serialized newest first (the daemon's mount list): the restore's order reversed */
	for (k = rs->nm; w->view && k-- > 0;)
		if (rs->mounts[k].name && rs->mounts[k].dir) {
			w->view[n].name = rs->mounts[k].name;
			w->view[n].dir = rs->mounts[k].dir;
			w->view[n].h = rs->mounts[k].h;
			w->view[n].conn = rs->mounts[k].conn;
			n++;
		}
	*ret = w->view;
	return n;
}

void ucgfs_restore_finish(struct ucgfs_restore *rs, ucgfs_state_mount_fn mount_fn, void *ctx,
			  pthread_mutex_t *lock)
{
	size_t k;
	int i;

	if (!rs)
		return;
	for (k = 0; k < rs->nm; k++) {
		struct ucg_buf o;

		if (rs->mounts[k].name && rs->mounts[k].dir) {
			ucg_buf_init(&o);
			pthread_mutex_lock(lock);
			ucgfs_state_put_opts(rs->mounts[k].h, &o);
			pthread_mutex_unlock(lock);
			if (o.data)
				mount_fn(ctx, rs->mounts[k].h, rs->mounts[k].name,
					 rs->mounts[k].dir, o.data);
			ucg_buf_fini(&o);
		}
		ucg_free(rs->mounts[k].name);
		ucg_free(rs->mounts[k].dir);
	}
	ucg_free(rs->mounts);
	ucg_free(rs->view);
	/* Drop the restore's own mount of each hierarchy: those left unmounted and
	 * without children go away, as after a last umount. */
	pthread_mutex_lock(lock);
	for (i = 0; i < rs->nmap; i++)
		if (rs->map[i].h)
			ucg_umount(rs->e, rs->map[i].h);
	pthread_mutex_unlock(lock);
	ucg_free(rs);
}
