/* host/bpf_obs.h — the engine observer that enforces devices and net_cls through BPF
 * programs on the v2 leaves.
 *
 * Each v2 leaf of the backend's layout (host/cgv2.h, host/v2obs.h) holds processes
 * of exactly one devices cgroup and one net_cls cgroup (both are levels of the
 * layout). This observer keeps on each leaf it has seen:
 *
 *   devices   a BPF_PROG_TYPE_CGROUP_DEVICE program compiled from that cgroup's
 *             devices.list (host/bpf_compile.h), so an access the v1 list denies
 *             fails with EPERM in the kernel (open(2), mknod(2)); none when the
 *             list allows everything (allow-all, no exception).
 *   net_cls   a BPF_CGROUP_INET_SOCK_CREATE program giving every new AF_INET/INET6
 *             socket the cgroup's classid as its priority (SO_PRIORITY), which an
 *             htb or prio qdisc whose handle is the classid's major takes as the
 *             class with no filter; none when the classid is 0.
 *
 * When: at can_attach, before host/v2obs.c moves the process (so it is registered
 * first: observers run in registration order), the leaf is made and gets its
 * programs; a write to devices.allow, devices.deny or net_cls.classid recompiles
 * every known leaf (a deny reaches descendants) and replaces, in one step, each
 * program whose instructions changed. Programs are attached with BPF_F_ALLOW_MULTI
 * (the host's own programs above still apply) and replaced with BPF_F_REPLACE; a
 * leaf seen first (after a restart) loses any program a previous daemon left.
 *
 * Where bpf(2) is refused (no CAP_SYS_ADMIN, a kernel without cgroup BPF) the
 * observer is not registered and devices and net_cls stay policy only, with the
 * reason in ucg_bpfobs_describe(). Call everything with the engine lock held.
 */
#ifndef UCG_HOST_BPF_OBS_H
#define UCG_HOST_BPF_OBS_H

#include "base/buf.h"
#include "engine/ucg.h"
#include "host/cgv2.h"
#include "host/v2obs.h"

struct ucg_bpfobs;

/* log(ctx, line) receives one line per refusal or fallback (may be NULL). */
typedef void (*ucg_bpfobs_log_fn)(void *ctx, const char *line);

/* Makes the observer for backend b and probes bpf(2); registers it on e when BPF
 * works. Call before ucg_v2obs_new, then ucg_bpfobs_bind. 0 (also when BPF is not
 * usable: policy only) or -ENOMEM / -ENOSPC. */
int ucg_bpfobs_new(struct ucg_engine *e, struct ucg_cgv2 *b, ucg_bpfobs_log_fn log, void *logctx,
		   struct ucg_bpfobs **ret);
/* The layout the leaves come from (not owned). */
void ucg_bpfobs_bind(struct ucg_bpfobs *o, struct ucg_v2obs *layout);
/* Unregisters and frees (NULL is fine); attached programs stay with their leaves. */
void ucg_bpfobs_free(struct ucg_bpfobs *o);
/* 1 when programs are being attached, 0 when policy only. */
int ucg_bpfobs_active(const struct ucg_bpfobs *o);
/* "enforce_bpf ..." lines for `ucg ctl stats`. */
void ucg_bpfobs_describe(const struct ucg_bpfobs *o, struct ucg_buf *out);

#endif
