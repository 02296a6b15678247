/* cli/cgconfig_apply.c — a parsed cgconfig.conf made real on ucg's mounts, as
 * cgconfigparser makes it on the kernel's (`ucg up -f FILE`).
 *
 * Order: the mount section's hierarchies are mounted (directories sharing a path are
 * one hierarchy, "cpu" and "cpuacct" at one path mount "cpu,cpuacct"); every group's
 * controllers are then found among the daemon's mounts and every user and group name
 * resolved, before anything is created, so a file naming something that is not there
 * changes nothing. Then each group, in file order, in each of its hierarchies: the
 * directory and its missing parents (mode 0755, root's), the perm section (each field
 * left out taken from the default section's) and the parameters, in file order. A value the filesystem refuses
 * undoes the whole run: values and modes of groups that existed before are put back,
 * the groups made are removed, the hierarchies mounted are unmounted.
 *
 * Permissions follow what libcgroup 2.0.2 does on the kernel (tests/fs/fs_cgconfig.sh
 * compares the two): the admin user and group own the directory and every file but
 * `tasks`, which the task user and group own; dperm and fperm are masked by the owner
 * bits of the current mode (ucg_cgc_masked_mode).
 */
#include "cli/cgconfig.h"
#include "cli/cgconfig_apply.h"
#include "cli/fs_client.h"

#include "base/buf.h"
#include "fs/ctl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One change made, to be undone if a later one fails. */
struct undo {
	enum { U_UMOUNT, U_RMDIR, U_VALUE, U_ATTR } kind;
	char path[PATH_MAX];
	char *value;     /* U_VALUE: the content before */
	struct stat old; /* U_ATTR: mode and owner before */
};

struct run {
	struct undo *undo;
	int nr_undo, cap_undo;
	char **dirs, **opts; /* the daemon's mounts: directory and option list */
	int nr_mounts;
};

static struct undo *push(struct run *run, int kind, const char *path)
{
	struct undo *u;

	if (run->nr_undo == run->cap_undo) {
		int cap = run->cap_undo ? 2 * run->cap_undo : 16;
		struct undo *p = realloc(run->undo, (size_t)cap * sizeof(*p));

		if (!p)
			return NULL;
		run->undo = p;
		run->cap_undo = cap;
	}
	u = &run->undo[run->nr_undo++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	snprintf(u->path, sizeof(u->path), "%s", path);
	return u;
}

static char *read_all(const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

static int write_value(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) < 0)
		r = -errno;
	close(fd);
	return r;
}

static void undo_all(struct run *run)
{
	while (run->nr_undo > 0) {
		struct undo *u = &run->undo[--run->nr_undo];

		switch (u->kind) {
		case U_UMOUNT: ucg_fs_do_umount(u->path, 1); break;
		case U_RMDIR: rmdir(u->path); break;
		case U_VALUE:
			/* the first line is what a write takes back (a list file has none) */
			if (u->value && strchr(u->value, '\n'))
				*strchr(u->value, '\n') = '\0';
			if (u->value && u->value[0])
				write_value(u->path, u->value);
			break;
		case U_ATTR:
			chown(u->path, u->old.st_uid, u->old.st_gid);
			chmod(u->path, u->old.st_mode & 07777);
			break;
		}
		free(u->value);
	}
}

/* The daemon's mount table: "NAME DIR OPTIONS" lines. */
static int load_mounts(struct run *run)
{
	struct ucg_buf out;
	char *line, *save = NULL;
	int r;

	ucg_buf_init(&out);
	r = ucgfs_ctl_request(1, (const char *const[]){ "mounts" }, &out);
	for (line = r == 0 && out.data ? strtok_r(out.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[256], dir[PATH_MAX], opts[1024];
		char **d, **o;

		if (sscanf(line, "%255s %4095s %1023s", name, dir, opts) != 3)
			continue;
		d = realloc(run->dirs, (size_t)(run->nr_mounts + 1) * sizeof(*d));
		if (d)
			run->dirs = d;
		o = realloc(run->opts, (size_t)(run->nr_mounts + 1) * sizeof(*o));
		if (o)
			run->opts = o;
		if (!d || !o) {
			r = -ENOMEM;
			break;
		}
		run->dirs[run->nr_mounts] = strdup(dir);
		run->opts[run->nr_mounts] = strdup(opts);
		if (!run->dirs[run->nr_mounts] || !run->opts[run->nr_mounts]) {
			free(run->dirs[run->nr_mounts]);
			free(run->opts[run->nr_mounts]);
			r = -ENOMEM;
			break;
		}
		run->nr_mounts++;
	}
	ucg_buf_fini(&out);
	return r;
}

static int has_opt(const char *list, const char *opt)
{
	size_t n = strlen(opt);
	const char *p = list;

	while (p && *p) {
		if (!strncmp(p, opt, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* The directory of the hierarchy holding ctrl ("cpu", "name=x"), or NULL. */
static const char *hierarchy_dir(const struct run *run, const char *ctrl)
{
	int i;

	for (i = 0; i < run->nr_mounts; i++)
		if (has_opt(run->opts[i], ctrl))
			return run->dirs[i];
	return NULL;
}

static int lookup_id(const char *name, int group, unsigned *ret)
{
	char *end;
	unsigned long v;

	if (!name) {
		*ret = (unsigned)-1;
		return 0;
	}
	v = strtoul(name, &end, 10);
	if (*name && !*end) {
		*ret = (unsigned)v;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(name);

		if (!g)
			return -EINVAL;
		*ret = g->gr_gid;
	} else {
		struct passwd *p = getpwnam(name);

		if (!p)
			return -EINVAL;
		*ret = p->pw_uid;
	}
	return 0;
}

struct ids {
	unsigned tuid, tgid, auid, agid;
};

static int resolve_perm(const struct ucg_cgc_perm *p, struct ids *ids, const char **bad)
{
	if ((*bad = p->task_uid, lookup_id(p->task_uid, 0, &ids->tuid) < 0) ||
	    (*bad = p->task_gid, lookup_id(p->task_gid, 1, &ids->tgid) < 0) ||
	    (*bad = p->admin_uid, lookup_id(p->admin_uid, 0, &ids->auid) < 0) ||
	    (*bad = p->admin_gid, lookup_id(p->admin_gid, 1, &ids->agid) < 0))
		return -EINVAL;
	return 0;
}

/* chown + masked chmod of one path, remembered for undo. */
static int set_attr(struct run *run, const char *path, unsigned uid, unsigned gid, int perm)
{
	struct stat st;
	struct undo *u;

	if (stat(path, &st) < 0)
		return -errno;
	u = push(run, U_ATTR, path);
	if (!u)
		return -ENOMEM;
	u->old = st;
	if ((uid != (unsigned)-1 || gid != (unsigned)-1) && chown(path, uid, gid) < 0)
		return -errno;
	if (perm >= 0 && chmod(path, ucg_cgc_masked_mode(st.st_mode & 07777, (unsigned)perm)) < 0)
		return -errno;
	return 0;
}

static int apply_perm(struct run *run, const char *dir, const struct ucg_cgc_perm *p,
		      const struct ids *ids)
{
	DIR *d;
	struct dirent *de;
	char path[PATH_MAX];
	int r = set_attr(run, dir, ids->auid, ids->agid, p->admin_dperm);

	if (r < 0 || !(d = opendir(dir)))
		return r < 0 ? r : -errno;
	while (r == 0 && (de = readdir(d))) {
		int tasks = !strcmp(de->d_name, "tasks");

		if (de->d_type != DT_REG)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    sizeof(path)) {
			r = -ENAMETOOLONG;
			break;
		}
		r = tasks ? set_attr(run, path, ids->tuid, ids->tgid, p->task_fperm)
			  : set_attr(run, path, ids->auid, ids->agid, p->admin_fperm);
	}
	closedir(d);
	return r;
}

/* mkdir -p below a hierarchy's directory; made directories are remembered. */
static int make_group(struct run *run, const char *hdir, const char *name, char *out, size_t size)
{
	char *p;

	if (!strcmp(name, ".") || !strcmp(name, "/") || !name[0]) {
		snprintf(out, size, "%s", hdir);
		return 0;
	}
	if ((size_t)snprintf(out, size, "%s/%s", hdir, name[0] == '/' ? name + 1 : name) >= size)
		return -ENAMETOOLONG;
	for (p = out + strlen(hdir) + 1;; p++) {
		char c = *p;

		if (c != '/' && c)
			continue;
		*p = '\0';
		if (mkdir(out, 0755) == 0) {
			if (!push(run, U_RMDIR, out))
				return -ENOMEM;
		} else if (errno != EEXIST) {
			int r = -errno;

			*p = c;
			return r;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

/* A group's perm: each field its own where given, else the default section's (what
 * libcgroup 2.0.2 does: a perm section giving only admin's owner still gets the
 * default section's fperm). */
static struct ucg_cgc_perm effective_perm(const struct ucg_cgconfig *cfg,
					  const struct ucg_cgc_group *g)
{
	struct ucg_cgc_perm p = g->perm;
	const struct ucg_cgc_perm *d = &cfg->dflt;

	if (!d->present)
		return p;
	p.present = 1;
	p.task_uid = p.task_uid ? p.task_uid : d->task_uid;
	p.task_gid = p.task_gid ? p.task_gid : d->task_gid;
	p.admin_uid = p.admin_uid ? p.admin_uid : d->admin_uid;
	p.admin_gid = p.admin_gid ? p.admin_gid : d->admin_gid;
	p.task_fperm = p.task_fperm >= 0 ? p.task_fperm : d->task_fperm;
	p.admin_fperm = p.admin_fperm >= 0 ? p.admin_fperm : d->admin_fperm;
	p.admin_dperm = p.admin_dperm >= 0 ? p.admin_dperm : d->admin_dperm;
	return p;
}

static int apply_group(struct run *run, const struct ucg_cgconfig *cfg,
		       const struct ucg_cgc_group *g, FILE *msg)
{
	const struct ucg_cgc_perm eff = effective_perm(cfg, g), *perm = &eff;
	struct ids ids = { (unsigned)-1, (unsigned)-1, (unsigned)-1, (unsigned)-1 };
	const char *bad;
	char dir[PATH_MAX], path[PATH_MAX];
	int i, j, r;

	if (perm->present && resolve_perm(perm, &ids, &bad) < 0)
		return -EINVAL; /* checked before the run began */
	for (i = 0; i < g->nr_ctrls; i++) {
		const char *hdir = hierarchy_dir(run, g->ctrls[i].name);

		r = make_group(run, hdir, g->name, dir, sizeof(dir));
		if (r == 0 && perm->present)
			r = apply_perm(run, dir, perm, &ids);
		if (r < 0) {
			fprintf(msg, "ucg: up: group %s (%s): %s\n", g->name, g->ctrls[i].name,
				strerror(-r));
			return r;
		}
		for (j = 0; j < g->ctrls[i].nr_params; j++) {
			const struct ucg_cgc_param *pa = &g->ctrls[i].params[j];
			struct undo *u;

			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, pa->name) >=
			    sizeof(path))
				return -ENAMETOOLONG;
			u = push(run, U_VALUE, path);
			if (!u)
				return -ENOMEM;
			u->value = read_all(path);
			r = write_value(path, pa->value);
			if (r < 0) {
				fprintf(msg, "ucg: up: group %s: %s = %s: %s\n", g->name, pa->name,
					pa->value, strerror(-r));
				return r;
			}
		}
	}
	return 0;
}

/* Does a mount option list name a controller (anything but name=, none and the
 * generic flags)? */
static int has_controller(const char *opts)
{
	static const char *const not_ctrl[] = { "name=",  "none", "nosuid", "nodev",
						"noexec", "ro",   "rw" };
	const char *p = opts;

	while (*p) {
		size_t n = strcspn(p, ","), k;
		int ctrl = 1;

		for (k = 0; k < sizeof(not_ctrl) / sizeof(not_ctrl[0]); k++) {
			size_t l = strlen(not_ctrl[k]);

			if (not_ctrl[k][l - 1] == '=' ? !strncmp(p, not_ctrl[k], l)
						      : n == l && !strncmp(p, not_ctrl[k], l))
				ctrl = 0;
		}
		if (ctrl)
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* The mount section: one mount per distinct path, its controllers joined. */
static int mount_section(struct run *run, const struct ucg_cgconfig *cfg, FILE *msg)
{
	int i, j;

	for (i = 0; i < cfg->nr_mounts; i++) {
		char opts[1024] = "";
		int first = 1;

		for (j = 0; j < i; j++)
			if (!strcmp(cfg->mounts[j].path, cfg->mounts[i].path))
				break;
		if (j < i)
			continue; /* mounted with the first controller at this path */
		for (j = i; j < cfg->nr_mounts; j++) {
			if (strcmp(cfg->mounts[j].path, cfg->mounts[i].path))
				continue;
			if (strlen(opts) + strlen(cfg->mounts[j].ctrl) + 2 > sizeof(opts))
				return -E2BIG;
			strcat(opts, first ? "" : ",");
			strcat(opts, cfg->mounts[j].ctrl);
			first = 0;
		}
		/* named hierarchies alone: the kernel (and so ucg) wants "none" said */
		if (!has_controller(opts) && strlen(opts) + 6 <= sizeof(opts)) {
			memmove(opts + 5, opts, strlen(opts) + 1);
			memcpy(opts, "none,", 5);
		}
		if (mkdir(cfg->mounts[i].path, 0755) == 0 &&
		    !push(run, U_RMDIR, cfg->mounts[i].path))
			return -ENOMEM;
		if (ucg_fs_do_mount("cgroup", cfg->mounts[i].path, opts, 0)) {
			fprintf(msg, "ucg: up: mount %s on %s failed\n", opts, cfg->mounts[i].path);
			return -EINVAL;
		}
		if (!push(run, U_UMOUNT, cfg->mounts[i].path))
			return -ENOMEM;
	}
	return 0;
}

int ucg_cgconfig_apply(const struct ucg_cgconfig *cfg, FILE *msg)
{
	struct run run;
	int i, j, r;

	memset(&run, 0, sizeof(run));
	r = mount_section(&run, cfg, msg);
	if (r == 0)
		r = load_mounts(&run);
	/* everything a group names must be there before anything is made */
	for (i = 0; r == 0 && i < cfg->nr_groups; i++) {
		const struct ucg_cgc_group *g = &cfg->groups[i];
		const struct ucg_cgc_perm eff = effective_perm(cfg, g), *perm = &eff;
		struct ids ids;
		const char *bad;

		if (perm->present && resolve_perm(perm, &ids, &bad) < 0) {
			fprintf(msg, "ucg: up: group %s (line %d): no user or group '%s': %s\n",
				g->name, g->line, bad, strerror(EINVAL));
			r = -EINVAL;
		}
		for (j = 0; r == 0 && j < cfg->groups[i].nr_ctrls; j++)
			if (!hierarchy_dir(&run, cfg->groups[i].ctrls[j].name)) {
				fprintf(msg,
					"ucg: up: group %s (line %d): no hierarchy with %s is "
					"mounted: %s\n",
					cfg->groups[i].name, cfg->groups[i].line,
					cfg->groups[i].ctrls[j].name, strerror(ENOENT));
				r = -ENOENT;
			}
	}
	for (i = 0; r == 0 && i < cfg->nr_groups; i++)
		r = apply_group(&run, cfg, &cfg->groups[i], msg);
	if (r < 0)
		undo_all(&run);
	for (i = 0; i < run.nr_undo; i++)
		free(run.undo[i].value);
	free(run.undo);
	for (i = 0; i < run.nr_mounts; i++) {
		free(run.dirs[i]);
		free(run.opts[i]);
	}
	free(run.dirs);
	free(run.opts);
	return r;
}
