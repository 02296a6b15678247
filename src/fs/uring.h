/* fs/uring.h — FUSE over io_uring for a libfuse 3.14 low-level session.
 *
 * With the kernel's fuse module parameter enable_uring set to Y (Linux 6.14+), a FUSE
 * connection can take its requests from one io_uring queue per possible CPU instead of
 * read(2) on /dev/fuse: a request goes to the queue of the CPU its caller runs on, and
 * that queue's thread, pinned to the same CPU, answers it with one io_uring_enter —
 * no wake-up of a thread on another CPU, no separate read and writev.
 *
 *   ucgfs_uring_new(se, name, &u)    after fuse_session_mount; NULL u: /dev/fuse only
 *   ucgfs_uring_loop(u, se)          instead of fuse_session_loop
 *   ucgfs_uring_free(u)              after the loop returned (or instead of it)
 *
 * Used when the kernel offers it; UCG_FUSE_URING=0 in the environment keeps /dev/fuse.
 * Whenever the rings are not used, one line on stderr says why. Handlers must reply
 * before they return (a reply sent later from another thread would go to /dev/fuse,
 * where the kernel does not know the request).
 */
#ifndef UCGFS_URING_H
#define UCGFS_URING_H

#include <stddef.h>

struct fuse_session;
struct ucgfs_uring;

/* Prepares the rings of mounted session se (name is for log lines): per-CPU threads,
 * each with its io_uring, wait for INIT. 0, or -errno with *ret NULL and a line on
 * stderr saying why the session stays on /dev/fuse. */
int ucgfs_uring_new(struct fuse_session *se, const char *name, struct ucgfs_uring **ret);

/* Runs se until its connection ends: libfuse's loop on /dev/fuse (INIT, FORGET,
 * INTERRUPT, anything before every queue has registered) and, with u, the rings on
 * their threads, which are joined before it returns. u NULL: fuse_session_loop. */
int ucgfs_uring_loop(struct ucgfs_uring *u, struct fuse_session *se);
/* Names every queue thread (pthread_setname_np; at most 15 bytes). */
void ucgfs_uring_name_threads(struct ucgfs_uring *u, const char *name);

void ucgfs_uring_free(struct ucgfs_uring *u);

/* Whether u's rings were registered with the kernel and no registration failed. */
int ucgfs_uring_active(struct ucgfs_uring *u);

/* The bytes a rebuilt request needs in front of its payload: fuse_in_header and the
 * largest operation header a ring entry carries. */
#define UCGFS_URING_HEAD_ROOM (40 + 128)

/* The request of a ring entry (hdr: its struct ucgfs_fuse_uring_req_header) whose
 * payload, at most cap bytes, is at payload, rebuilt as /dev/fuse delivers it
 * (fuse_in_header, the operation's header, the rest) in the UCGFS_URING_HEAD_ROOM bytes
 * right before the payload: its start (the length is the header's len), or NULL when
 * the header's lengths do not add up. */
char *ucgfs_uring_rebuild(const void *hdr, char *payload, size_t cap);

/* Requests answered through a ring, by every session of the process so far. */
unsigned long long ucgfs_uring_requests_total(void);

#endif
