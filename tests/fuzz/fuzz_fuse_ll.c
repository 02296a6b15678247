/* tests/fuzz/fuzz_fuse_ll.c — FUSE requests on the daemon's side: from a ring entry's
 * bytes (fs/uring.c's ucgfs_uring_rebuild) through libfuse's decoding to the handlers
 * of fs/ll_ops.c, ll_io.c and ll_dir.c (node id to path, lookup, getattr, setattr,
 * mkdir, rmdir, rename, open, read, write, release, opendir, readdir, access, create,
 * unlink, forget...) and the engine, on the sandbox daemon of fuzz_daemon.h with three
 * mounts of two hierarchies.
 *
 * The input: a first byte (bit 0: cache mode), then requests of 9 bytes and a text:
 *   op, mount, node (index into the node ids replies gave; 0xff: 8 raw bytes
 *   follow), caller (0 root, 1 uid 1000, else uid/gid = the byte), flags (4 bytes
 *   little-endian: mode, open flags, mask, setattr's valid bits, read size...),
 *   text length, text (a name, "old\0new" for rename, or written data).
 * The frame is built as the kernel builds it (lengths consistent, names
 * NUL-terminated, file handles only those the daemon gave): the kernel is trusted for
 * that much. Node ids, names, flags, modes, ids and payloads are the fuzzer's. An op
 * byte with bit 7 set corrupts the ring header's lengths instead, and only the
 * decoder's verdict is checked; with bit 6 set, the reply's write fails as the
 * kernel's does for an interrupted request (the handler must then free what the
 * reply would have handed over: an open file or directory).
 *
 * Invariants: each request but FORGET gets exactly one reply, whose error is 0 or
 * -errno (fuzz_daemon.c checks); a reply's arguments have the operation's size; a read
 * returns at most the size asked; an unknown node id or a bad name gets an errno.
 * Sanitizers catch the rest, leaks included (every file is released at the end, as
 * the kernel does at umount). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fuse_uring_abi.h"
#include "fs/uring.h"
#include "fuzz.h"
#include "fuzz_daemon.h"

#define MAX_IDS 64
#define MAX_FH 32
#define PAYLOAD_CAP 8192

enum {
	OP_LOOKUP,
	OP_GETATTR,
	OP_SETATTR,
	OP_MKDIR,
	OP_RMDIR,
	OP_RENAME,
	OP_OPEN,
	OP_READ,
	OP_WRITE,
	OP_RELEASE,
	OP_OPENDIR,
	OP_READDIR,
	OP_RELEASEDIR,
	OP_ACCESS,
	OP_CREATE,
	OP_UNLINK,
	OP_FORGET,
	OP_BATCH_FORGET,
	OP_MKNOD,
	OP_SYMLINK,
	OP_LINK,
	OP_STATFS,
	OP_COUNT
};

struct fh {
	uint64_t fh, node;
	int mount;
};

struct run {
	struct ucg_fuzzd *z;
	struct ucg_fuzzd_reply rep;
	uint64_t ids[MAX_IDS];
	int nids;
	struct fh files[MAX_FH], dirs[MAX_FH];
	int nfiles, ndirs;
	uint64_t unique;
	/* a ring entry: header block, then the payload with room before it */
	struct ucgfs_fuse_uring_req_header hdr;
	char mem[UCGFS_URING_HEAD_ROOM + PAYLOAD_CAP];
};

struct input {
	const uint8_t *p;
	size_t left;
};

static int take(struct input *in, void *out, size_t n)
{
	if (in->left < n)
		return -1;
	memcpy(out, in->p, n);
	in->p += n;
	in->left -= n;
	return 0;
}

static void add_id(struct run *r, uint64_t id)
{
	int i;

	for (i = 0; i < r->nids; i++)
		if (r->ids[i] == id)
			return;
	if (r->nids < MAX_IDS)
		r->ids[r->nids++] = id;
}

/* Sends op with its operation header and payload on mount mi, as a ring entry. */
static void send_req(struct run *r, int mi, uint32_t opcode, uint64_t node, uint32_t uid,
		     uint32_t pid, const void *op, size_t op_len, const void *pl, size_t pl_len,
		     int corrupt, uint32_t bad)
{
	struct fuse_in_header in = { 0 };
	char *payload = r->mem + UCGFS_URING_HEAD_ROOM, *start;
	size_t expect_ok;

	if (op_len > UCGFS_FUSE_URING_OP_IN_SZ || pl_len > PAYLOAD_CAP)
		abort();
	in.len = (uint32_t)(sizeof(in) + op_len + pl_len);
	in.opcode = opcode;
	in.unique = ++r->unique * 2; /* libfuse takes odd uniques for interrupts */
	in.nodeid = node;
	in.uid = uid;
	in.gid = uid;
	in.pid = pid;
	memset(&r->hdr, 0, sizeof(r->hdr));
	if (op_len) /* op and pl may be NULL when empty */
		memcpy(r->hdr.op_in, op, op_len);
	if (pl_len)
		memcpy(payload, pl, pl_len);
	r->hdr.ent.payload_sz = (uint32_t)pl_len;
	if (corrupt) { /* the decoder alone, on lengths a kernel would not send */
		if (bad & 1)
			in.len = bad >> 1;
		else
			r->hdr.ent.payload_sz = bad >> 1;
	}
	memcpy(r->hdr.in_out, &in, sizeof(in));
	start = ucgfs_uring_rebuild(&r->hdr, payload, PAYLOAD_CAP);
	expect_ok = in.len >= sizeof(in) + r->hdr.ent.payload_sz &&
		    r->hdr.ent.payload_sz <= PAYLOAD_CAP &&
		    in.len - sizeof(in) - r->hdr.ent.payload_sz <= UCGFS_FUSE_URING_OP_IN_SZ;
	if (!start != !expect_ok)
		abort();
	if (!start)
		return;
	if (start + in.len != payload + r->hdr.ent.payload_sz || memcmp(start, &in, sizeof(in)))
		abort();
	if (corrupt)
		return; /* lengths that add up but are not this request's */
	ucg_fuzzd_request(r->z, mi, start, in.len, &r->rep);
	if (getenv("UCG_FUZZ_TRACE")) /* what a seed does, for whoever writes one */
		fprintf(stderr, "mount %d op %u node %llu: %s %d, %zu bytes\n", mi, opcode,
			(unsigned long long)node, r->rep.replied ? "error" : "no reply",
			r->rep.error, r->rep.len);
	if (opcode == FUSE_FORGET || opcode == FUSE_BATCH_FORGET) {
		if (r->rep.replied)
			abort();
	} else if (!r->rep.replied) {
		abort();
	}
}

/* The reply's arguments must be the operation's (entry, attr, open, write). */
static void check_size(const struct run *r, size_t want)
{
	if (r->rep.error == 0 && r->rep.len != want)
		abort();
}

static void got_entry(struct run *r)
{
	struct fuse_entry_out e;

	check_size(r, sizeof(e));
	if (r->rep.error)
		return; /* a lost entry's id is still a valid id to try */
	memcpy(&e, r->rep.data, sizeof(e));
	if (!e.nodeid)
		abort();
	add_id(r, e.nodeid);
}

static void got_open(struct run *r, struct fh *tab, int *n, int mi, uint64_t node)
{
	struct fuse_open_out o;

	check_size(r, sizeof(o));
	if (r->rep.error || r->rep.lose)
		return; /* no file: a lost reply's opener was gone, no release comes */
	memcpy(&o, r->rep.data, sizeof(o));
	if (*n < MAX_FH)
		tab[(*n)++] = (struct fh){ o.fh, node, mi };
	else
		abort(); /* the caller makes room first */
}

static void release(struct run *r, struct fh *tab, int *n, int i, int dir)
{
	struct fuse_release_in rel = { .fh = tab[i].fh };

	r->rep.lose = 0; /* not interruptible: the kernel sends it for the last close */
	send_req(r, tab[i].mount, dir ? FUSE_RELEASEDIR : FUSE_RELEASE, tab[i].node, 0,
		 UCG_FUZZD_TID_ROOT, &rel, sizeof(rel), NULL, 0, 0, 0);
	if (r->rep.error)
		abort(); /* release never fails */
	tab[i] = tab[--*n];
}

/* One request from the input; -1 when the input ran out. */
static int one(struct run *r, struct input *in)
{
	uint8_t h[4], tlen;
	uint32_t f, uid, pid;
	uint64_t node;
	char text[256 + 1];
	int op, mi, corrupt, lose;

	if (take(in, h, 4) || take(in, &f, 4) || take(in, &tlen, 1))
		return -1;
	op = (h[0] & 0x3f) % OP_COUNT;
	corrupt = h[0] >> 7;
	lose = (h[0] >> 6) & 1;
	mi = h[1] % UCG_FUZZD_MOUNTS;
	if (h[2] == 0xff) {
		if (take(in, &node, 8))
			return -1;
	} else {
		node = r->ids[h[2] % r->nids];
	}
	uid = h[3] == 0 ? 0 : h[3] == 1 ? 1000 : h[3];
	pid = h[3] == 0 ? UCG_FUZZD_TID_ROOT : h[3] == 1 ? UCG_FUZZD_TID_USER : 99999;
	if (take(in, text, tlen))
		return -1;
	text[tlen] = '\0';
	r->rep.lose = lose;

	switch (op) {
	case OP_LOOKUP:
	case OP_RMDIR:
	case OP_UNLINK: {
		static const uint32_t ops[] = { FUSE_LOOKUP, FUSE_RMDIR, FUSE_UNLINK };
		uint32_t code = ops[op == OP_LOOKUP ? 0 : op == OP_RMDIR ? 1 : 2];

		send_req(r, mi, code, node, uid, pid, NULL, 0, text, strlen(text) + 1, corrupt, f);
		if (!corrupt && code == FUSE_LOOKUP)
			got_entry(r);
		break;
	}
	case OP_GETATTR: {
		struct fuse_getattr_in g = { 0 };

		if (f & 1) { /* fh 0: a file opened without a round trip (cache mode) */
			g.getattr_flags = FUSE_GETATTR_FH;
			g.fh = r->nfiles ? r->files[(f >> 1) % r->nfiles].fh : 0;
		}
		send_req(r, mi, FUSE_GETATTR, node, uid, pid, &g, sizeof(g), NULL, 0, corrupt, f);
		if (!corrupt)
			check_size(r, sizeof(struct fuse_attr_out));
		break;
	}
	case OP_SETATTR: {
		struct fuse_setattr_in s = { 0 };

		s.valid = f & (FATTR_MODE | FATTR_UID | FATTR_GID | FATTR_SIZE | FATTR_ATIME |
			       FATTR_MTIME | FATTR_ATIME_NOW | FATTR_MTIME_NOW);
		s.mode = (uint32_t)text[0] << 4 | (f >> 16 & 0xfff);
		s.uid = (f >> 8) & 1 ? 1000 : 0;
		s.gid = (f >> 9) & 1 ? 1000 : 0;
		s.size = (uint8_t)text[1];
		if ((f >> 28) & 1) {
			s.valid |= FATTR_FH;
			s.fh = r->nfiles ? r->files[(f >> 29) % r->nfiles].fh : 0;
		}
		send_req(r, mi, FUSE_SETATTR, node, uid, pid, &s, sizeof(s), NULL, 0, corrupt, f);
		if (!corrupt)
			check_size(r, sizeof(struct fuse_attr_out));
		break;
	}
	case OP_MKDIR: {
		struct fuse_mkdir_in m = { .mode = S_IFDIR | (f & 07777),
					   .umask = (f >> 12) & 0777 };

		send_req(r, mi, FUSE_MKDIR, node, uid, pid, &m, sizeof(m), text, strlen(text) + 1,
			 corrupt, f);
		if (!corrupt)
			got_entry(r);
		break;
	}
	case OP_MKNOD: {
		struct fuse_mknod_in m = { .mode = S_IFREG | (f & 0777) };

		send_req(r, mi, FUSE_MKNOD, node, uid, pid, &m, sizeof(m), text, strlen(text) + 1,
			 corrupt, f);
		break;
	}
	case OP_CREATE: {
		struct fuse_create_in c = { .flags = O_CREAT | (f & O_ACCMODE),
					    .mode = S_IFREG | 0644 };

		send_req(r, mi, FUSE_CREATE, node, uid, pid, &c, sizeof(c), text, strlen(text) + 1,
			 corrupt, f);
		if (!corrupt && !r->rep.error)
			abort(); /* a cgroup filesystem creates no file */
		break;
	}
	case OP_RENAME: {
		struct fuse_rename2_in rn = { .newdir = r->ids[(f & 0xff) % r->nids],
					      .flags = (f >> 8) & 7 };
		size_t a = strlen(text), b = tlen > a ? strlen(text + a + 1) : 0;

		if (tlen <= a)
			text[a + 1] = '\0'; /* "old\0" alone: the new name is empty */
		send_req(r, mi, FUSE_RENAME2, node, uid, pid, &rn, sizeof(rn), text, a + b + 2,
			 corrupt, f);
		break;
	}
	case OP_SYMLINK: {
		size_t a = strlen(text);

		if (tlen <= a)
			text[a + 1] = '\0';
		send_req(r, mi, FUSE_SYMLINK, node, uid, pid, NULL, 0, text,
			 a + 1 + strlen(text + a + 1) + 1, corrupt, f);
		break;
	}
	case OP_LINK: {
		struct fuse_link_in l = { .oldnodeid = r->ids[f % r->nids] };

		send_req(r, mi, FUSE_LINK, node, uid, pid, &l, sizeof(l), text, strlen(text) + 1,
			 corrupt, f);
		break;
	}
	case OP_OPEN:
	case OP_OPENDIR: {
		struct fuse_open_in o = { .flags = f &
						   (O_ACCMODE | O_TRUNC | O_APPEND | O_NONBLOCK) };
		int dir = op == OP_OPENDIR;

		if (dir ? r->ndirs == MAX_FH : r->nfiles == MAX_FH)
			release(r, dir ? r->dirs : r->files, dir ? &r->ndirs : &r->nfiles, 0, dir);
		r->rep.lose = lose;
		send_req(r, mi, dir ? FUSE_OPENDIR : FUSE_OPEN, node, uid, pid, &o, sizeof(o), NULL,
			 0, corrupt, f);
		if (!corrupt)
			got_open(r, dir ? r->dirs : r->files, dir ? &r->ndirs : &r->nfiles, mi,
				 node);
		break;
	}
	case OP_READ:
	case OP_READDIR: {
		struct fuse_read_in rd = { .size = (f & 0xffff) + 1, .offset = (f >> 16) & 0xff };
		int dir = op == OP_READDIR;
		struct fh *t = NULL;

		if (dir && !r->ndirs)
			break; /* the kernel reads no directory it has not opened */
		if (dir) {
			t = &r->dirs[h[2] % r->ndirs];
		} else if (r->nfiles && !(f & (1u << 31))) {
			t = &r->files[h[2] % r->nfiles];
		}
		rd.fh = t ? t->fh : 0; /* 0: a file of a mount without open (cache mode) */
		rd.flags = O_RDONLY;
		send_req(r, t ? t->mount : mi, dir ? FUSE_READDIR : FUSE_READ, t ? t->node : node,
			 uid, pid, &rd, sizeof(rd), NULL, 0, corrupt, f);
		if (!corrupt && !r->rep.error && r->rep.len > rd.size)
			abort();
		break;
	}
	case OP_WRITE: {
		struct fuse_write_in w = { .size = tlen, .offset = (f >> 8) & 0xff };
		struct fh *t = r->nfiles && !(f & 1) ? &r->files[h[2] % r->nfiles] : NULL;

		w.fh = t ? t->fh : 0;
		w.flags = O_WRONLY;
		send_req(r, t ? t->mount : mi, FUSE_WRITE, t ? t->node : node, uid, pid, &w,
			 sizeof(w), text, tlen, corrupt, f);
		if (!corrupt) {
			struct fuse_write_out wo;

			check_size(r, sizeof(wo));
			memcpy(&wo, r->rep.data, sizeof(wo));
			if (!r->rep.error && wo.size > tlen)
				abort();
		}
		break;
	}
	case OP_RELEASE:
		if (r->nfiles)
			release(r, r->files, &r->nfiles, h[2] % r->nfiles, 0);
		break;
	case OP_RELEASEDIR:
		if (r->ndirs)
			release(r, r->dirs, &r->ndirs, h[2] % r->ndirs, 1);
		break;
	case OP_ACCESS: {
		struct fuse_access_in a = { .mask = f & 7 };

		send_req(r, mi, FUSE_ACCESS, node, uid, pid, &a, sizeof(a), NULL, 0, corrupt, f);
		break;
	}
	case OP_FORGET: {
		struct fuse_forget_in fg = { .nlookup = f & 0xff };

		send_req(r, mi, FUSE_FORGET, node, 0, 0, &fg, sizeof(fg), NULL, 0, corrupt, f);
		break;
	}
	case OP_BATCH_FORGET: {
		struct {
			struct fuse_batch_forget_in b;
			struct fuse_forget_one one[2];
		} bf = { { 2, 0 }, { { node, f & 0xff }, { r->ids[(f >> 8) % r->nids], 1 } } };

		send_req(r, mi, FUSE_BATCH_FORGET, 0, 0, 0, NULL, 0, &bf, sizeof(bf), corrupt, f);
		break;
	}
	case OP_STATFS:
		send_req(r, mi, FUSE_STATFS, node, uid, pid, NULL, 0, NULL, 0, corrupt, f);
		break;
	}
	return 0;
}

int ucg_fuzz_fuse_ll(const uint8_t *data, size_t size)
{
	static struct run r;
	struct input in = { data, size };
	uint8_t mode = 0;

	take(&in, &mode, 1);
	r.z = ucg_fuzzd_start(mode & 1);
	r.nids = r.nfiles = r.ndirs = 0;
	r.unique = 0;
	add_id(&r, FUSE_ROOT_ID);
	while (one(&r, &in) == 0)
		;
	while (r.nfiles)
		release(&r, r.files, &r.nfiles, 0, 0);
	while (r.ndirs)
		release(&r, r.dirs, &r.ndirs, 0, 1);
	ucg_fuzzd_stop(r.z);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_fuse_ll(data, size);
}
#endif
