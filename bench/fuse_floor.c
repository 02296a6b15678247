/* bench/fuse_floor.c — the FUSE round-trip floor: a trivial filesystem that answers
 * bench_fs's operations at once, from a table, with the daemon's FUSE settings.
 *
 *   fuse_floor MOUNT      (foreground; unmount it to stop it)
 *
 * The root holds directories made by mkdir (up to MAX_DIRS); every directory shows
 * the files cgroup.procs, tasks and notify_on_release, which read "0\n" and accept
 * any write. Mounted like the daemon's mounts (allow_other, no default_permissions, one
 * thread, entries and attributes cached, files direct_io and noflush), so bench_fs on
 * it makes the same requests as on ours and measures what they cost with no work
 * behind them: no FUSE filesystem can be faster than this on the same machine.
 */
#define FUSE_USE_VERSION 35

#include "fs/uring.h"

#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DIRS 256
#define TIMEOUT_S 30.0
#define DIR_INO0 16 /* directory i is inode DIR_INO0 + i */

static const char *const file_names[] = { "cgroup.procs", "tasks", "notify_on_release" };
#define NR_FILES 3 /* file j is inode 2 + j, the same in every directory */

static char dirs[MAX_DIRS][256];

static int find_dir(const char *name)
{
	int i;

	for (i = 0; i < MAX_DIRS; i++)
		if (dirs[i][0] && !strcmp(dirs[i], name))
			return i;
	return -1;
}

static int find_file(const char *name)
{
	int j;

	for (j = 0; j < NR_FILES; j++)
		if (!strcmp(file_names[j], name))
			return j;
	return -1;
}

static void fill(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino >= 2 && ino < 2 + NR_FILES) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
	} else {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	}
}

static void reply_ino(fuse_req_t req, fuse_ino_t ino)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.entry_timeout = e.attr_timeout = TIMEOUT_S;
	if (ino)
		fill(ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int i = parent == FUSE_ROOT_ID ? find_dir(name) : -1, j = find_file(name);

	reply_ino(req, i >= 0 ? (fuse_ino_t)(DIR_INO0 + i) : j >= 0 ? (fuse_ino_t)(2 + j) : 0);
}

static void ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	fill(ino, &st);
	fuse_reply_attr(req, &st, TIMEOUT_S);
}

static void ll_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	int i;

	if (parent != FUSE_ROOT_ID || strlen(name) >= sizeof(dirs[0])) {
		fuse_reply_err(req, EPERM);
		return;
	}
	if (find_dir(name) >= 0 || find_file(name) >= 0) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	for (i = 0; i < MAX_DIRS && dirs[i][0]; i++)
		;
	if (i == MAX_DIRS) {
		fuse_reply_err(req, ENOSPC);
		return;
	}
	snprintf(dirs[i], sizeof(dirs[i]), "%s", name);
	reply_ino(req, (fuse_ino_t)(DIR_INO0 + i));
}

static void ll_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int i = parent == FUSE_ROOT_ID ? find_dir(name) : -1;

	if (i >= 0)
		dirs[i][0] = '\0';
	fuse_reply_err(req, i >= 0 ? 0 : ENOENT);
}

static void ll_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		      const char *newname, unsigned int flags)
{
	int i = parent == FUSE_ROOT_ID ? find_dir(name) : -1;

	if (i < 0 || newparent != FUSE_ROOT_ID || find_dir(newname) >= 0 ||
	    strlen(newname) >= sizeof(dirs[0])) {
		fuse_reply_err(req, i < 0 ? ENOENT : EINVAL);
		return;
	}
	snprintf(dirs[i], sizeof(dirs[i]), "%s", newname);
	fuse_reply_err(req, 0);
}

static void ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fi->direct_io = 1;
	fi->noflush = 1;
	fuse_reply_open(req, fi);
}

static void ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	fuse_reply_buf(req, "0\n", off == 0 && size >= 2 ? 2 : 0);
}

static void ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	fuse_reply_write(req, size);
}

static void ll_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = ll_lookup,
	.getattr = ll_getattr,
	.mkdir = ll_mkdir,
	.rmdir = ll_rmdir,
	.rename = ll_rename,
	.open = ll_open,
	.read = ll_read,
	.write = ll_write,
	.release = ll_release,
};

int main(int argc, char **argv)
{
	char *args_v[] = { argv[0], "-o", "allow_other,fsname=floor", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, args_v);
	struct fuse_session *se;
	struct ucgfs_uring *u;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: fuse_floor MOUNT\n");
		return 2;
	}
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se)
		return 1;
	if (fuse_session_mount(se, argv[1]) != 0) {
		fuse_session_destroy(se);
		return 1;
	}
	ucgfs_uring_new(se, argv[1], &u);
	r = ucgfs_uring_loop(u, se);
	ucgfs_uring_free(u);
	fprintf(stderr, "uring_requests %llu\n", ucgfs_uring_requests_total());
	fuse_session_unmount(se);
	fuse_session_destroy(se);
	return r < 0 ? 1 : 0;
}
