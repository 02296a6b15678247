/* tests/fuzz/fuzz_daemon.h — an in-process daemon for the fuzz targets of its two
 * request decoders (fuzz_ctl_server.c, fuzz_fuse_ll.c): the daemon's structs as
 * fs/daemon.c builds them, with no socket, no /dev/fuse and nothing of the host.
 *
 *  - the daemon is a sandbox (struct daemon's sandbox flag): no host, so a caller's
 *    credentials are the FUSE header's ids and no host event is drained; a control
 *    request to mount or umount stops before mount(2)/umount(2), and "stop" only sets
 *    the flag the main loop (not running here) would read;
 *  - the engine has no provider: nothing it does reaches a real process (no freeze,
 *    no affinity); its tasks are fake ones (UCG_FUZZD_TID_*) added by the fixture;
 *  - each mount has a real libfuse session, never mounted: fuse_session_custom_io
 *    hands every reply and notification to a writev of the fixture, which checks the
 *    reply's header (and aborts on a second reply to one request); requests go in
 *    through fuse_session_process_buf, as fs/uring.c hands them; each mount has its
 *    notifier thread, whose notes go to the same writev. Sessions and threads are
 *    made once and kept; each run has its own engine.
 * The mounts: 0 and 1 are two mounts of cpu,cpuacct (so changes are sent as notes),
 * 2 is cpuset,memory,pids,freezer.
 */
#ifndef UCG_TESTS_FUZZ_DAEMON_H
#define UCG_TESTS_FUZZ_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "fs/daemon_impl.h"

#define UCG_FUZZD_MOUNTS 3
#define UCG_FUZZD_TID_ROOT 100 /* uid 0; its thread 101 */
#define UCG_FUZZD_TID_USER 200 /* uid 1000 */

struct ucg_fuzzd {
	struct daemon d;
	struct mnt *m[UCG_FUZZD_MOUNTS];
};

/* The reply a request got (fuse_out_header, then up to sizeof(data) bytes). */
struct ucg_fuzzd_reply {
	int lose; /* set by the caller: the reply's write fails with ENOENT, as the
		   * kernel's does for a request interrupted meanwhile */
	int replied;
	int32_t error;
	size_t len; /* of the reply's arguments, whole even if data holds less */
	unsigned char data[1 << 17];
};

/* The daemon with a new engine (cache mode if cache) under its mounts; the daemon,
 * its sessions (INITed) and notifier threads are made at the first call and kept.
 * Aborts on failure: the fixture itself must work. */
struct ucg_fuzzd *ucg_fuzzd_start(int cache);
/* Once the notifiers sent every note: the hierarchies unmounted (as the kernel would
 * after releasing every open file), the engine freed. */
void ucg_fuzzd_stop(struct ucg_fuzzd *z);
/* Hands one whole FUSE request (fuse_in_header first) to mount i's session; rep gets
 * its reply (replied 0: none, as for FORGET), lost if rep->lose. */
void ucg_fuzzd_request(struct ucg_fuzzd *z, int i, const void *req, size_t len,
		       struct ucg_fuzzd_reply *rep);

#endif
