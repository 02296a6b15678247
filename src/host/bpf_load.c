/* host/bpf_load.c — bpf(2) for cgroup programs (see bpf_load.h). */
#include "host/bpf_load.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	long r = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return r < 0 ? -errno : (int)r;
}

int ucg_bpf_prog_load(enum bpf_prog_type type, enum bpf_attach_type expected,
		      const struct bpf_insn *insns, size_t n, char *log, size_t loglen)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.expected_attach_type = expected;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = (uint32_t)n;
	a.license = (uint64_t)(uintptr_t) "GPL";
	if (log && loglen > 1) {
		log[0] = '\0';
		a.log_buf = (uint64_t)(uintptr_t)log;
		a.log_size = (uint32_t)loglen;
		a.log_level = 1;
	}
	memcpy(a.prog_name, "ucg", 4);
	return sys_bpf(BPF_PROG_LOAD, &a);
}

int ucg_bpf_cgroup_attach(int cg_fd, int prog_fd, enum bpf_attach_type type, int old_fd)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)cg_fd;
	a.attach_bpf_fd = (uint32_t)prog_fd;
	a.attach_type = type;
	a.attach_flags = BPF_F_ALLOW_MULTI;
	if (old_fd >= 0) {
		a.attach_flags |= BPF_F_REPLACE;
		a.replace_bpf_fd = (uint32_t)old_fd;
	}
	return sys_bpf(BPF_PROG_ATTACH, &a);
}

int ucg_bpf_cgroup_detach(int cg_fd, int prog_fd, enum bpf_attach_type type)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)cg_fd;
	a.attach_bpf_fd = (uint32_t)prog_fd;
	a.attach_type = type;
	return sys_bpf(BPF_PROG_DETACH, &a);
}

static int prog_id(int fd, uint32_t *ret)
{
	struct bpf_prog_info info;
	union bpf_attr a;
	int e;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	e = sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
	if (e == 0)
		*ret = info.id;
	return e;
}

int ucg_bpf_cgroup_detach_others(int cg_fd, enum bpf_attach_type type, int keep_fd)
{
	uint32_t ids[64], keep = 0, i;
	union bpf_attr a;
	int e, n = 0;

	if (keep_fd >= 0 && (e = prog_id(keep_fd, &keep)) < 0)
		return e;
	memset(&a, 0, sizeof(a));
	a.query.target_fd = (uint32_t)cg_fd;
	a.query.attach_type = type;
	a.query.prog_ids = (uint64_t)(uintptr_t)ids;
	a.query.prog_cnt = sizeof(ids) / sizeof(ids[0]);
	e = sys_bpf(BPF_PROG_QUERY, &a);
	if (e < 0)
		return e;
	for (i = 0; i < a.query.prog_cnt; i++) {
		union bpf_attr g;
		int fd;

		if (ids[i] == keep)
			continue;
		memset(&g, 0, sizeof(g));
		g.prog_id = ids[i];
		fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &g);
		if (fd < 0)
			continue; /* gone meanwhile */
		if (ucg_bpf_cgroup_detach(cg_fd, fd, type) == 0)
			n++;
		close(fd);
	}
	return n;
}
