/* host/bpf_load.h — loading BPF programs and attaching them to cgroup v2 directories
 * over the raw bpf(2) system call.
 *
 * Why not libbpf: the programs are short straight-line lists built by
 * host/bpf_compile.c, with no maps, no relocations and no BTF, so all that is needed
 * is BPF_PROG_LOAD, BPF_PROG_ATTACH / DETACH / QUERY and BPF_PROG_GET_FD_BY_ID: four
 * commands over one union. libbpf's bpf_prog_load() issues the same BPF_PROG_LOAD
 * (bench/bench_bpf.c measures both); it would add a shared library and nothing the
 * daemon uses.
 *
 * Attachment. Always BPF_F_ALLOW_MULTI: every program attached above (systemd's
 * DevicePolicy=, a container runtime's) still runs and must allow too, so the
 * daemon can only narrow what the host allows, never widen it. A program is replaced
 * in one step with BPF_F_REPLACE (Linux 5.6+), so no open(2) ever runs with neither
 * or both. Needs CAP_SYS_ADMIN (or CAP_BPF with CAP_NET_ADMIN).
 */
#ifndef UCG_HOST_BPF_LOAD_H
#define UCG_HOST_BPF_LOAD_H

#include <stddef.h>

#include <linux/bpf.h>

/* Loads n instructions as a program of type, for attach type expected (0 when the
 * type needs none). Returns its fd, or the kernel's -errno; the verifier's complaint
 * goes to log (loglen bytes, may be NULL). */
int ucg_bpf_prog_load(enum bpf_prog_type type, enum bpf_attach_type expected,
		      const struct bpf_insn *insns, size_t n, char *log, size_t loglen);

/* Attaches prog_fd to the cgroup directory cg_fd at type (BPF_F_ALLOW_MULTI). With
 * old_fd >= 0, prog_fd takes old_fd's place in one step (BPF_F_REPLACE). 0 or
 * -errno. */
int ucg_bpf_cgroup_attach(int cg_fd, int prog_fd, enum bpf_attach_type type, int old_fd);

/* Detaches prog_fd from cg_fd at type. 0 or -errno (-ENOENT: was not attached). */
int ucg_bpf_cgroup_detach(int cg_fd, int prog_fd, enum bpf_attach_type type);

/* Detaches every program attached to cg_fd itself (not to its ancestors) at type,
 * except keep_fd's program (-1: keep none): those a previous daemon left. Returns the
 * number detached or -errno. */
int ucg_bpf_cgroup_detach_others(int cg_fd, enum bpf_attach_type type, int keep_fd);

#endif
