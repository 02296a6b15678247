/* tests/fuzz/fuzz_ctl_server.c — the daemon's side of the control protocol (fs/ctl.h):
 * request decoding and the dispatch of every command (ucgfs_ctl_answer), on the
 * in-process sandbox daemon of fuzz_daemon.h, without a socket.
 *
 * The input is up to 16 requests separated by 0xff bytes (a byte no request needs),
 * answered in turn on one daemon, so that a mount or a remount is followed by more.
 * Commands that would touch the host are harmless there: mount and umount stop before
 * mount(2) and umount(2), stop only sets the flag of a main loop that does not run.
 *
 * Invariants: every reply starts "<n>\n", n a decimal int, 0 or a count on success,
 * -errno (1..4095) on failure, never ENOMEM; the reply stays small (the text of one
 * request: no unbounded allocation); sanitizers catch the rest (leaks included). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_daemon.h"

#define MAX_REQUESTS 16
#define MAX_REPLY (1 << 20)

static void check_reply(const struct ucg_buf *reply)
{
	const char *p = reply->data;
	long n = 0;
	int neg = 0, digits = 0;

	if (ucg_buf_error(reply) < 0 || !p || reply->len > MAX_REPLY)
		abort();
	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (; *p >= '0' && *p <= '9' && digits < 11; p++, digits++)
		n = n * 10 + (*p - '0');
	if (!digits || *p != '\n' || (digits > 1 && reply->data[neg] == '0'))
		abort();
	if (neg && (n < 1 || n > 4095 || n == ENOMEM))
		abort();
	if (!neg && n > 0x7fffffff)
		abort();
}

int ucg_fuzz_ctl_server(const uint8_t *data, size_t size)
{
	struct ucg_fuzzd *z = ucg_fuzzd_start(0);
	struct ucg_buf reply;
	size_t at = 0;
	int i;

	ucg_buf_init(&reply);
	for (i = 0; i < MAX_REQUESTS && at <= size; i++) {
		const uint8_t *end = memchr(data + at, 0xff, size - at);
		size_t len = end ? (size_t)(end - (data + at)) : size - at;

		ucg_buf_reset(&reply);
		ucgfs_ctl_answer(&z->d, (const char *)data + at, len, &reply);
		check_reply(&reply);
		if (getenv("UCG_FUZZ_TRACE")) /* what a seed does, for whoever writes one */
			fprintf(stderr, "%.*s", (int)reply.len, reply.data);
		at += len + 1;
	}
	ucg_buf_fini(&reply);
	ucg_fuzzd_stop(z);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_ctl_server(data, size);
}
#endif
