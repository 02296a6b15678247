/* host/bpf_compile.h — v1 settings compiled to BPF instructions (pure: no syscalls).
 *
 * Two programs enforce v1 controllers through a cgroup v2 directory:
 *
 *   devices   BPF_PROG_TYPE_CGROUP_DEVICE: a cgroup's effective devices.list (the
 *             default behaviour plus its exceptions, controllers/devices_rules.h)
 *             as a straight-line compare list over struct bpf_cgroup_dev_ctx.
 *             Returns 1 (allow) or 0 (the kernel answers EPERM).
 *   classid   BPF_PROG_TYPE_CGROUP_SOCK at BPF_CGROUP_INET_SOCK_CREATE: stores
 *             net_cls.classid in the new socket's priority and returns 1.
 *
 * The kernel asks the device program once per access with every requested bit at
 * once (open O_RDWR asks r and w together): ctx->access_type is (ACC << 16) | TYPE,
 * with the same bit values as UCG_DEV_ACC_* and UCG_DEV_BLOCK / UCG_DEV_CHAR. The
 * program decides exactly as ucg_devrules_may_access(): in allow-all mode the
 * exceptions are denials and one that matches the device and shares a requested bit
 * denies; in deny-all mode one exception that matches the device and covers every
 * requested bit allows. Comparisons are 32-bit (BPF_JMP32, Linux 5.1+), so majors
 * and minors above 2^31 compare exactly.
 */
#ifndef UCG_HOST_BPF_COMPILE_H
#define UCG_HOST_BPF_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

#include "controllers/devices_rules.h"

/* Instructions a device program of n exceptions needs at most. */
#define UCG_BPF_DEV_INSNS(n) (8 + 14 * (size_t)(n))

/* Whether r allows every access (allow-all, no exceptions): no program is needed. */
int ucg_bpf_devices_trivial(const struct ucg_devrules *r);

/* Compiles r into out (cap instructions). Returns the number written, or -E2BIG when
 * cap is below what r needs (UCG_BPF_DEV_INSNS(r->n) is always enough). */
int ucg_bpf_devices_compile(const struct ucg_devrules *r, struct bpf_insn *out, size_t cap);

/* Compiles the socket-create program giving new sockets priority classid. Returns the
 * number of instructions (4), or -E2BIG when cap is smaller. */
int ucg_bpf_classid_compile(uint32_t classid, struct bpf_insn *out, size_t cap);

#endif
