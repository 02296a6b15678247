/* view/notify.c — the supervisor side of the view's seccomp filter (view/notify.h). */
#include "view/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS /* Linux 6.7 */
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#define VIEW_CGROUP_SUPER_MAGIC 0x27e0eb

#if defined(__x86_64__)
#define VIEW_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define VIEW_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "view/notify.c: add this architecture's AUDIT_ARCH"
#endif

int view_notify_install(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, VIEW_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mount, 6, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_statfs, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fstatfs, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 2, 0),
#ifdef __NR_open
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 1, 0),
#else
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 1, 0),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			  &prog);

	return fd < 0 ? -errno : (int)fd;
}

void view_notify_tune(int listener)
{
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0) <
	    0) {
		/* older kernel: wake-ups go through the scheduler as usual */
	}
}

/* Reads a NUL-terminated string at addr in tid's memory, a page at a time (a string
 * may end just before an unmapped page). */
static int read_string(int tid, unsigned long addr, char *buf, size_t size)
{
	size_t got = 0;

	while (got + 1 < size) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		struct iovec local, remote;
		ssize_t n;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		local = (struct iovec){ buf + got, chunk };
		remote = (struct iovec){ (void *)(addr + got), chunk };
		n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return n < 0 ? -errno : -EFAULT;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int read_link(const char *path, char *buf, size_t size)
{
	ssize_t n = readlink(path, buf, size - 1);

	if (n < 0)
		return -errno;
	if ((size_t)n == size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return buf[0] == '/' ? 0 : -EINVAL; /* "pipe:[..]" and the like */
}

static int tgid_of(int tid)
{
	char path[64], buf[512], *p;
	int fd, tgid = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	if (p)
		tgid = atoi(p + 6);
	return tgid;
}

/* The open's flags, path and directory, from the syscall's arguments. */
static int open_args(const struct seccomp_notif *req, int *ret_dirfd, unsigned long *ret_path,
		     unsigned long long *ret_flags)
{
	const struct seccomp_data *d = &req->data;

	*ret_dirfd = AT_FDCWD;
#ifdef __NR_open
	if (d->nr == __NR_open) {
		*ret_path = d->args[0];
		*ret_flags = d->args[1];
		return 0;
	}
#endif
	*ret_dirfd = (int)d->args[0];
	*ret_path = d->args[1];
	if (d->nr == __NR_openat2) {
		struct open_how how;
		struct iovec local = { &how, sizeof(how) };
		struct iovec remote = { (void *)(unsigned long)d->args[2], sizeof(how) };

		if (d->args[3] < sizeof(how) ||
		    process_vm_readv(req->pid, &local, 1, &remote, 1, 0) != sizeof(how))
			return -EFAULT;
		if (how.resolve)
			return -EINVAL; /* RESOLVE_* changes the walk: let the kernel do it */
		*ret_flags = how.flags;
		return 0;
	}
	*ret_flags = d->args[2];
	return 0;
}

/* Decides whether the open in req is one of ours; fills *t. */
static int decide(const struct seccomp_notif *req, struct view_target *t)
{
	char path[PATH_MAX], base[PATH_MAX], abs[PATH_MAX], link[64];
	unsigned long long flags;
	unsigned long addr;
	int dirfd, tgid, r;

	r = open_args(req, &dirfd, &addr, &flags);
	if (r < 0)
		return 0;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_PATH | O_DIRECTORY | O_CREAT)))
		return 0;
	if (read_string((int)req->pid, addr, path, sizeof(path)) < 0)
		return 0;
	if (!view_path_maybe(path))
		return 0;
	if (path[0] != '/') {
		/* only opens relative to a directory of /proc can be ours */
		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof(link), "/proc/%u/cwd", req->pid);
		else
			snprintf(link, sizeof(link), "/proc/%u/fd/%d", req->pid, dirfd);
		if (read_link(link, base, sizeof(base)) < 0 || strncmp(base, "/proc", 5))
			return 0;
	}
	if (view_path_join(path[0] == '/' ? NULL : base, path, abs, sizeof(abs)) < 0 ||
	    strncmp(abs, "/proc/", 6))
		return 0;
	tgid = tgid_of((int)req->pid);
	if (!tgid)
		return 0;
	return view_path_classify(abs, tgid, (int)req->pid, t) != VIEW_NONE ? 1 : 0;
}

/* A read-only file holding data: a memfd, reopened read-only through /proc/self/fd. */
static int make_file(const struct ucg_buf *data)
{
	char path[64];
	int mfd, fd = -1;
	size_t off = 0;

	mfd = memfd_create("ucg-view", MFD_CLOEXEC);
	if (mfd < 0)
		return -errno;
	while (off < data->len) {
		ssize_t n = write(mfd, data->data + off, data->len - off);

		if (n <= 0)
			goto out;
		off += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
out:
	close(mfd);
	return fd;
}

static int let_through(int listener, __u64 id)
{
	struct seccomp_notif_resp resp = { .id = id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };

	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
		return -errno;
	return 0;
}

/* The caller's path argument made absolute (against its working directory if
 * relative); 0 or -errno. */
static int caller_path(const struct seccomp_notif *req, int dirfd, unsigned long addr, char *abs,
		       size_t size)
{
	char path[PATH_MAX], base[PATH_MAX], link[64];
	int r = read_string((int)req->pid, addr, path, sizeof(path));

	if (r < 0)
		return r;
	if (path[0] != '/') {
		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof(link), "/proc/%u/cwd", req->pid);
		else
			snprintf(link, sizeof(link), "/proc/%u/fd/%d", req->pid, dirfd);
		r = read_link(link, base, sizeof(base));
		if (r < 0)
			return r;
	}
	return view_path_join(path[0] == '/' ? NULL : base, path, abs, size);
}

/* statfs/fstatfs: the supervisor's own call on the same file; 1 if it answered (the
 * file is in a hierarchy), 0 to let the call through. */
static int serve_statfs(int listener, const struct seccomp_notif *req,
			const struct view_notify_ops *ops, void *ctx)
{
	struct seccomp_notif_resp resp = { .id = req->id };
	struct statfs sfs;
	struct stat st;
	struct iovec local = { &sfs, sizeof(sfs) };
	struct iovec remote = { (void *)(unsigned long)req->data.args[1], sizeof(sfs) };
	int ok;

	if (req->data.nr == __NR_fstatfs) {
		int pidfd = (int)syscall(__NR_pidfd_open, req->pid, 0), fd;

		if (pidfd < 0)
			return 0;
		fd = (int)syscall(__NR_pidfd_getfd, pidfd, (int)req->data.args[0], 0);
		close(pidfd);
		if (fd < 0)
			return 0;
		ok = fstat(fd, &st) == 0 && fstatfs(fd, &sfs) == 0;
		close(fd);
	} else {
		char abs[PATH_MAX];

		ok = caller_path(req, AT_FDCWD, req->data.args[0], abs, sizeof(abs)) == 0 &&
		     stat(abs, &st) == 0 && statfs(abs, &sfs) == 0;
	}
	if (!ok || !ops->is_hier_dev(ctx, major(st.st_dev), minor(st.st_dev)))
		return 0;
	sfs.f_type = VIEW_CGROUP_SUPER_MAGIC;
	/* the caller may have been interrupted meanwhile: then its buffer is not ours */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0)
		return 1;
	if (process_vm_writev((pid_t)req->pid, &local, 1, &remote, 1, 0) != sizeof(sfs)) {
		resp.error = -EFAULT;
		resp.val = -1;
	}
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return 1;
}

/* mount(2): ours if its type is "cgroup"; 1 if answered, 0 to let it through. */
static int serve_mount(int listener, const struct seccomp_notif *req,
		       const struct view_notify_ops *ops, void *ctx)
{
	struct seccomp_notif_resp resp = { .id = req->id };
	char type[16], abs[PATH_MAX], data[4096];
	int r;

	if (!req->data.args[2] ||
	    read_string((int)req->pid, req->data.args[2], type, sizeof(type)) < 0 ||
	    strcmp(type, "cgroup"))
		return 0;
	data[0] = '\0';
	if (caller_path(req, AT_FDCWD, req->data.args[1], abs, sizeof(abs)) < 0 ||
	    (req->data.args[4] &&
	     read_string((int)req->pid, req->data.args[4], data, sizeof(data)) < 0))
		return 0;
	r = ops->mount(ctx, (int)req->pid, abs, (unsigned long)req->data.args[3], data);
	if (r == 1)
		return 0;
	if (r < 0) {
		resp.error = r;
		resp.val = -1;
	}
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return 1;
}

int view_notify_serve(int listener, const struct view_notify_ops *ops, void *ctx)
{
	struct seccomp_notif req;
	struct seccomp_notif_addfd add;
	struct view_target t;
	struct ucg_buf out;
	unsigned long long flags;
	unsigned long addr;
	int dirfd, fd, r;

	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return -errno;
	if (req.data.nr == __NR_mount)
		return serve_mount(listener, &req, ops, ctx) ? 1 : let_through(listener, req.id);
	if (req.data.nr == __NR_statfs || req.data.nr == __NR_fstatfs)
		return serve_statfs(listener, &req, ops, ctx) ? 1 : let_through(listener, req.id);
	if (!decide(&req, &t))
		return let_through(listener, req.id);
	ucg_buf_init(&out);
	r = ops->answer(ctx, &t, &out);
	if (r < 0 || ucg_buf_error(&out) < 0) {
		ucg_buf_fini(&out);
		return let_through(listener, req.id);
	}
	fd = make_file(&out);
	ucg_buf_fini(&out);
	if (fd < 0)
		return let_through(listener, req.id);
	open_args(&req, &dirfd, &addr, &flags);
	add = (struct seccomp_notif_addfd){
		.id = req.id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.srcfd = (__u32)fd,
		.newfd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0,
	};
	r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 ? -errno : 1;
	close(fd);
	return r;
}
