/* tests/kernel/kdiff.c — see kdiff.h. */
#include "kdiff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int kdiff_have_v1(const char **why)
{
	if (geteuid() != 0) {
		*why = "needs root";
		return 0;
	}
	if (access("/proc/cgroups", R_OK) != 0) {
		*why = "no /proc/cgroups (cgroup v1 not in this kernel)";
		return 0;
	}
	return 1;
}

int kdiff_write(const char *path, const char *data, size_t len)
{
	int fd, r = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) < 0)
		r = -errno;
	close(fd);
	return r;
}

void kdiff_read(const char *path, char *out, size_t n)
{
	size_t got = 0;
	ssize_t r = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(out, n, "<errno %d>", errno);
		return;
	}
	/* A large file (memory.stat) may take more than one read. */
	while (got < n - 1 && (r = read(fd, out + got, n - 1 - got)) > 0)
		got += (size_t)r;
	if (r < 0)
		snprintf(out, n, "<errno %d>", errno);
	else
		out[got] = '\0';
	close(fd);
}

void kdiff_e_read(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, char *out,
		  size_t n)
{
	struct ucg_cred c = ucg_cred_root();
	struct ucg_buf b;
	int r;

	ucg_buf_init(&b);
	r = ucg_fs_read_all(e, h, path, &c, &b);
	if (r < 0)
		snprintf(out, n, "<errno %d>", -r);
	else
		snprintf(out, n, "%s", b.data ? b.data : "");
	ucg_buf_fini(&b);
}

int kdiff_mount(const char *dir, const char *opts)
{
	int r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (mount("cgroup", dir, "cgroup", 0, opts) < 0) {
		r = -errno;
		rmdir(dir);
		return r;
	}
	return 0;
}

void kdiff_unmount(const char *dir)
{
	umount2(dir, 0);
	rmdir(dir);
}

/* Whether this process's /proc/self/cgroup lists the hierarchy name=name. */
static int named_listed(const char *name)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[512], want[160];
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), ":name=%s:", name);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	fclose(f);
	return found;
}

void kdiff_unmount_named(const char *dir, const char *opts, const char *name)
{
	int i;

	umount2(dir, 0);
	for (i = 0; i < 200 && named_listed(name); i++) {
		usleep(10000);
		if (mount("cgroup", dir, "cgroup", 0, opts) == 0)
			umount2(dir, 0);
	}
	rmdir(dir);
}
