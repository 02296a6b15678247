/* cli/cmd_ls.c — `ucg ls [DIR]`: the cgroup trees under DIR, with process counts.
 *
 * DIR is a hierarchy's mount point (it has a cgroup.procs) or a directory of mount
 * points, such as the one `ucg up` fills (default /run/ucgroups-fs); symlinks (the
 * cpu -> cpu,cpuacct aliases) are skipped. It reads the filesystem like any tool
 * would, so it works on kernel cgroup mounts as well. Entries are sorted by name.
 */
#include "cli/commands.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LS_ROOT_DEFAULT "/run/ucgroups-fs"

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int c, n = 0;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's subdirectories (not symlinks), sorted; caller frees. */
static char **subdirs(const char *dir, size_t *ret_n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	while (d && (de = readdir(d))) {
		char p[4096];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= (int)sizeof(p) ||
		    lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*nn));

			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	*ret_n = n;
	return names;
}

static void tree(const char *dir, const char *label, int depth)
{
	char procs[4200];
	char **names;
	size_t n, i;
	int count;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	count = count_lines(procs);
	printf("%*s%s  [%d process%s]\n", depth * 2, "", label, count, count == 1 ? "" : "es");
	names = subdirs(dir, &n);
	for (i = 0; i < n; i++) {
		char sub[4096];

		if (snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]) < (int)sizeof(sub))
			tree(sub, names[i], depth + 1);
		free(names[i]);
	}
	free(names);
}

int cmd_ls(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : LS_ROOT_DEFAULT;
	char probe[4200];
	char **names;
	size_t n, i;
	struct stat st;

	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ucg: ls: %s: %s\n", root, strerror(errno ? errno : ENOTDIR));
		return 1;
	}
	snprintf(probe, sizeof(probe), "%s/cgroup.procs", root);
	if (access(probe, F_OK) == 0) {
		tree(root, root, 0);
		return 0;
	}
	names = subdirs(root, &n);
	for (i = 0; i < n; i++) {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/%s", root, names[i]);
		snprintf(probe, sizeof(probe), "%s/cgroup.procs", sub);
		if (access(probe, F_OK) == 0)
			tree(sub, names[i], 0);
		free(names[i]);
	}
	free(names);
	return 0;
}
