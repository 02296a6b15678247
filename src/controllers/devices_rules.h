/* controllers/devices_rules.h — the devices cgroup's exception-list algebra, without
 * the cgroup tree (docs/kernel/controllers.md §5).
 *
 * A ucg_devrules is one cgroup's state: a default behaviour (allow-all or deny-all)
 * and an ordered list of exceptions (type, major, minor, access). The devices
 * controller keeps one per cgroup and calls ucg_devrules_write() for writes to
 * devices.allow / devices.deny, passing the parent's rules and a walker over the
 * descendants; everything else (locking, CAP_SYS_ADMIN, zero-length writes) is the
 * caller's.
 */
#ifndef UCG_CONTROLLERS_DEVICES_RULES_H
#define UCG_CONTROLLERS_DEVICES_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Device types; a rule of type UCG_DEV_ALL is the "a" command. */
#define UCG_DEV_BLOCK 1u
#define UCG_DEV_CHAR 2u
#define UCG_DEV_ALL 4u

/* Access bits. */
#define UCG_DEV_ACC_MKNOD 1u
#define UCG_DEV_ACC_READ 2u
#define UCG_DEV_ACC_WRITE 4u
#define UCG_DEV_ACC_ALL (UCG_DEV_ACC_MKNOD | UCG_DEV_ACC_READ | UCG_DEV_ACC_WRITE)

/* The "*" major or minor. The number 4294967295 is the same value, and the kernel
 * indeed treats "c 4294967295:1 r" as "c *:1 r" (and lists it so). */
#define UCG_DEV_ANY UINT32_MAX

struct ucg_dev_rule {
	unsigned type;   /* UCG_DEV_BLOCK, UCG_DEV_CHAR, or UCG_DEV_ALL for "a" */
	uint32_t major;  /* or UCG_DEV_ANY */
	uint32_t minor;  /* or UCG_DEV_ANY */
	unsigned access; /* UCG_DEV_ACC_* bits; may be 0 ("c 1:3 \nr") */
};

enum ucg_dev_behavior {
	UCG_DEV_DEFAULT_ALLOW, /* allowed unless an exception matches */
	UCG_DEV_DEFAULT_DENY,  /* denied unless an exception allows */
};

enum ucg_dev_file {
	UCG_DEV_FILE_ALLOW, /* devices.allow */
	UCG_DEV_FILE_DENY,  /* devices.deny */
};

struct ucg_devrules {
	enum ucg_dev_behavior behavior;
	struct ucg_dev_rule *ex; /* exceptions in the order first added; keys unique */
	size_t n, cap;
};

/* Walks the descendants of the cgroup being written, in pre-order (each parent before
 * its children). next(ctx, NULL, ...) returns the first descendant, next(ctx, pos,
 * ...) the one after pos, NULL at the end; each call stores the returned cgroup's
 * parent's rules in *ret_parent. The walk may be restarted from NULL (writes make a
 * reservation pass and then an apply pass) and must not change while a write runs.
 * Only live (online) descendants are walked. */
struct ucg_devrules_walk {
	struct ucg_devrules *(*next)(void *ctx, struct ucg_devrules *pos,
				     const struct ucg_devrules **ret_parent);
	void *ctx;
};

/* Parses one write to devices.allow/deny: cut at the first NUL, kernel-stripped,
 * then "a..." (only the 'a' counts) or "T MAJ:MIN ACC" (§5.1; the separators are one
 * kernel-space byte each, a number is at most 11 digits and at most 4294967295, ACC
 * is read for at most 3 bytes and ends at '\n'). Returns 0 and fills *ret, or
 * -EINVAL writing nothing. */
int ucg_dev_rule_parse(const char *data, size_t len, struct ucg_dev_rule *ret);

/* An allow-all set with no exceptions: the root's state. */
void ucg_devrules_init(struct ucg_devrules *r);
/* Frees the exceptions; accepts NULL. */
void ucg_devrules_fini(struct ucg_devrules *r);
/* mkdir: dst (initialised) becomes a copy of src's behaviour and exceptions.
 * Returns 0 or -ENOMEM leaving dst unchanged. */
int ucg_devrules_copy(struct ucg_devrules *dst, const struct ucg_devrules *src);

/* A write of rule to file of the cgroup whose rules are self. parent is the parent's
 * rules (NULL at the root); desc walks self's descendants (NULL if it has none).
 * Returns 0, -EINVAL ("a" while self has children), -EPERM (the parent does not allow
 * it), or -ENOMEM. A refused write changes nothing anywhere. A deny write's new
 * restriction is propagated to every descendant (ucg_devrules_propagate). */
int ucg_devrules_write(struct ucg_devrules *self, const struct ucg_devrules *parent,
		       enum ucg_dev_file file, const struct ucg_dev_rule *rule,
		       const struct ucg_devrules_walk *desc);

/* Applies a restriction that writer (already updated) just took, rule, to every
 * descendant: an allow-all descendant under an allow-all writer gains the deny
 * exception, any other loses the exact-match bits; then each descendant drops every
 * exception its (updated) parent no longer allows. Returns 0 or -ENOMEM, in which
 * case no descendant was changed. ucg_devrules_write() calls this itself. */
int ucg_devrules_propagate(const struct ucg_devrules *writer, const struct ucg_dev_rule *rule,
			   const struct ucg_devrules_walk *desc);

/* Whether a task in a cgroup with rules r may access the device: type UCG_DEV_BLOCK
 * or UCG_DEV_CHAR, access the requested UCG_DEV_ACC_* bits. */
bool ucg_devrules_may_access(const struct ucg_devrules *r, unsigned type, uint32_t major,
			     uint32_t minor, unsigned access);

/* Appends devices.list: "a *:* rwm\n" in allow-all mode, else one "T MAJ:MIN ACC\n"
 * line per exception (nothing when there are none). Returns ucg_buf_error(out). */
int ucg_devrules_format(const struct ucg_devrules *r, struct ucg_buf *out);

#endif
