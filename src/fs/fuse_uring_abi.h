/* fs/fuse_uring_abi.h — the kernel's FUSE-over-io_uring interface (Linux 6.14+), which
 * the system's <linux/fuse.h> (6.1 here) predates. The layouts and numbers are the
 * kernel's ABI (include/uapi/linux/fuse.h); the names are ours.
 *
 * A daemon registers ring entries with URING_CMD SQEs (128-byte SQEs: the command's
 * arguments sit in the SQE's command area). An entry is two buffers: a header block
 * and a payload. For a request the kernel fills the header block's in_out with the
 * fuse_in_header, op_in with the request's first argument (the operation's own
 * header, e.g. fuse_mkdir_in; empty for LOOKUP, RMDIR...) and ent.payload_sz with the
 * length of the rest (names, written data), which it puts in the payload. The daemon
 * answers with fuse_out_header in in_out, the reply's arguments in the payload and
 * their length in ent.payload_sz, then COMMIT_AND_FETCH (commit_id = the request's
 * unique), which also waits for the entry's next request.
 */
#ifndef UCGFS_FUSE_URING_ABI_H
#define UCGFS_FUSE_URING_ABI_H

#include <stdint.h>

/* INIT: the kernel offers it in flags2 (when its enable_uring parameter is Y); a reply
 * carrying it makes the connection wait for the rings (FUSE_INIT_EXT must be set for
 * flags2 to count). */
#define UCGFS_FUSE_OVER_IO_URING (1ULL << 41)

/* The kernel's smallest payload buffer; it also wants max_write and max_pages pages. */
#define UCGFS_FUSE_MIN_READ_BUFFER 8192
/* max_pages when INIT's reply does not set FUSE_MAX_PAGES. */
#define UCGFS_FUSE_DEFAULT_MAX_PAGES 32

enum ucgfs_fuse_uring_cmd {
	UCGFS_FUSE_URING_CMD_REGISTER = 1,         /* give the kernel an entry for qid */
	UCGFS_FUSE_URING_CMD_COMMIT_AND_FETCH = 2, /* answer commit_id, wait for the next */
};

#define UCGFS_FUSE_URING_IN_OUT_SZ 128
#define UCGFS_FUSE_URING_OP_IN_SZ 128

struct ucgfs_fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;  /* the request's unique, to be named in the commit */
	uint32_t payload_sz; /* bytes used in the payload buffer, either direction */
	uint32_t padding;
	uint64_t reserved;
};

/* The header block of an entry (the first of its two iovecs). */
struct ucgfs_fuse_uring_req_header {
	char in_out[UCGFS_FUSE_URING_IN_OUT_SZ]; /* fuse_in_header / fuse_out_header */
	char op_in[UCGFS_FUSE_URING_OP_IN_SZ];   /* the request's first argument */
	struct ucgfs_fuse_uring_ent_in_out ent;
};

/* The command area of the SQE (REGISTER: addr = the two iovecs, len = 2). */
struct ucgfs_fuse_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid; /* the queue: one per possible CPU, requests go to their caller's */
	uint8_t padding[6];
};

_Static_assert(sizeof(struct ucgfs_fuse_uring_ent_in_out) == 32, "kernel ABI");
_Static_assert(sizeof(struct ucgfs_fuse_uring_req_header) == 288, "kernel ABI");
_Static_assert(sizeof(struct ucgfs_fuse_uring_cmd_req) == 24, "kernel ABI");

#endif
