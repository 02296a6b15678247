/* engine/cftype.h — control-file descriptors (the kernel's cftype, our own shape).
 *
 * A controller (or the core) describes each of its files once, in a const table. The
 * core owns parsing: it enforces the one-page write limit, cuts the text at the first
 * NUL, parses by the handler kind chosen (u64, s64 or raw text) and only then calls
 * the handler, which receives a typed value. A file with no write handler refuses
 * writes with EINVAL (root gets past the 0444 mode at open and fails here).
 */
#ifndef UCG_ENGINE_CFTYPE_H
#define UCG_ENGINE_CFTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/ucg.h"

struct ucg_cgroup;
struct ucg_css;
struct ucg_cftype;

/* What a handler sees of the open file. */
struct ucg_of {
	struct ucg_engine *e;
	struct ucg_cgroup *cg;
	struct ucg_css *css; /* the controller's state for cg; NULL for core files */
	const struct ucg_cftype *cft;
	struct ucg_cred cred; /* the opener's credentials (captured at open) */
};

#define UCG_CFT_ONLY_ON_ROOT 0x1u
#define UCG_CFT_NOT_ON_ROOT 0x2u
/* The name has no "<controller>." prefix (cgroup.event_control, listed by memory). */
#define UCG_CFT_NO_PREFIX 0x4u

/* What write_mem receives for "-1" (unlimited); equal to UCG_MEM_UNLIMITED. */
#define UCG_CFT_MEM_UNLIMITED UINT64_MAX
/* Bits of a parsed node list: the kernel's MAX_NUMNODES (CONFIG_NODES_SHIFT=10). */
#define UCG_CFT_MAX_NUMNODES 1024u

struct ucg_bitmap;
struct ucg_event_reg;

struct ucg_cftype {
	const char *name; /* without the "<controller>." prefix */
	unsigned flags;   /* UCG_CFT_* */
	uint32_t mode;    /* permission bits: 0644, 0444, 0200 */
	/* Largest accepted write; 0 means one page (4096). Longer writes: E2BIG. */
	size_t max_write_len;
	/* Appends the file's content. NULL: reading fails with EINVAL (write-only file). */
	int (*show)(struct ucg_of *of, struct ucg_buf *out);
	/* At most one write handler is set. */
	int (*write_u64)(struct ucg_of *of, uint64_t v);
	int (*write_s64)(struct ucg_of *of, int64_t v);
	/* Raw text up to the first NUL (not stripped); returns 0 or -errno. */
	int (*write)(struct ucg_of *of, const char *buf, size_t len);
	/* MEM class (docs/kernel/controllers.md §0.1): the core strips the text and parses it with
	 * ucg_parse_mem(); the handler gets bytes, or UCG_CFT_MEM_UNLIMITED for "-1"
	 * (the same value as the literal 18446744073709551615). Syntax errors are EINVAL
	 * before the handler runs. */
	int (*write_mem)(struct ucg_of *of, uint64_t bytes);
	/* STR class: the text stripped of kernel whitespace (base/kctype.h) at both ends;
	 * may be empty. Not NUL-terminated. */
	int (*write_str)(struct ucg_of *of, const char *s, size_t len);
	/* "max" or S64 after stripping (pids.max): is_max is 1 for the literal "max"
	 * (then v is 0), else v is the integer. Syntax errors are EINVAL, ERANGE beyond
	 * int64, before the handler runs. */
	int (*write_max)(struct ucg_of *of, int64_t v, int is_max);
	/* CPU list / node list (cpuset.cpus, cpuset.mems; docs/kernel/controllers.md §1.1): parsed
	 * with ucg_bitmap_parse_list() into a bitmap of the engine's nr_cpus bits
	 * (cpulist) or UCG_CFT_MAX_NUMNODES bits (nodelist); its errors (EINVAL, ERANGE,
	 * EOVERFLOW) come before the handler runs. */
	int (*write_cpulist)(struct ucg_of *of, const struct ucg_bitmap *set);
	int (*write_nodelist)(struct ucg_of *of, const struct ucg_bitmap *set);
	/* Read conveniences, used when show is NULL: the core prints "%llu\n" / "%lld\n". */
	uint64_t (*read_u64)(struct ucg_of *of);
	int64_t (*read_s64)(struct ucg_of *of);
	unsigned long private; /* handler-specific (which field, which page size...) */
	/* cgroup.event_control may name this file: validates args (the text after the two
	 * fds, NUL-terminated, possibly empty) and arms reg, which is already on
	 * of->cg's list; returns 0 or -errno (then reg is dropped). */
	int (*register_event)(struct ucg_of *of, struct ucg_event_reg *reg, const char *args);
};

#endif
