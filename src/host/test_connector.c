/* host/test_connector.c — the process-events connector's parser on messages recorded
 * from the kernel (src/host/testdata/connector.hex, made by testdata/record.c: a child
 * of the recorder that makes a thread, changes its uid, execs and exits), alone, in
 * one datagram, and cut or altered.
 */
#include "host/host_impl.h"

#include "harness.h"

#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MSGS 16

static unsigned char msgs[MAX_MSGS][256] __attribute__((aligned(8)));
static size_t msg_len[MAX_MSGS];
static size_t nmsgs;

/* Reads the recorded messages (hex lines; '#' lines say what each is). */
static int load(void)
{
	const char *root = getenv("UCG_SOURCE_ROOT");
	char path[4096], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/src/host/testdata/connector.hex", root ? root : ".");
	f = fopen(path, "r");
	if (!f)
		return -1;
	nmsgs = 0;
	while (fgets(line, sizeof(line), f) && nmsgs < MAX_MSGS) {
		size_t n = 0;

		if (line[0] == '#')
			continue;
		for (const char *p = line; p[0] && p[1] && p[0] != '\n' && n < sizeof(msgs[0]); p += 2) {
			unsigned v;

			if (sscanf(p, "%2x", &v) != 1)
				break;
			msgs[nmsgs][n++] = (unsigned char)v;
		}
		msg_len[nmsgs++] = n;
	}
	fclose(f);
	return 0;
}

#define LOAD()                                                                         \
	do {                                                                           \
		if (load() < 0)                                                        \
			T_SKIP("testdata not found (set UCG_SOURCE_ROOT)");            \
	} while (0)

static struct proc_event got[MAX_MSGS * 2];
static int ngot;

static void collect(void *ctx, const struct proc_event *ev)
{
	(void)ctx;
	if (ngot < (int)(sizeof(got) / sizeof(got[0])))
		got[ngot++] = *ev;
}

static int parse(const void *buf, size_t len)
{
	ngot = 0;
	return connector_parse(buf, len, collect, NULL);
}

/* The recording, message by message: what the provider's handlers are given. */
static void each_recorded_message(void)
{
	LOAD();
	T_EQ_INT(nmsgs, 6);
	if (nmsgs != 6)
		return;
	for (size_t i = 0; i < nmsgs; i++) {
		const struct nlmsghdr *nh = (const void *)msgs[i];

		T_EQ_INT(nh->nlmsg_len, msg_len[i]);
		T_EQ_INT(parse(msgs[i], msg_len[i]), 1);
		T_EQ_INT(ngot, 1);
	}

	parse(msgs[0], msg_len[0]); /* the child forked by the recorder */
	T_EQ_INT(got[0].what, PROC_EVENT_FORK);
	T_EQ_INT(got[0].event_data.fork.parent_pid, 10880);
	T_EQ_INT(got[0].event_data.fork.parent_tgid, 10880);
	T_EQ_INT(got[0].event_data.fork.child_pid, 11013);
	T_EQ_INT(got[0].event_data.fork.child_tgid, 11013);

	/* its thread: the event names the process's parent, not the creating thread */
	parse(msgs[1], msg_len[1]);
	T_EQ_INT(got[0].what, PROC_EVENT_FORK);
	T_EQ_INT(got[0].event_data.fork.parent_pid, 10880);
	T_EQ_INT(got[0].event_data.fork.child_pid, 11014);
	T_EQ_INT(got[0].event_data.fork.child_tgid, 11013);

	parse(msgs[2], msg_len[2]);
	T_EQ_INT(got[0].what, PROC_EVENT_EXIT);
	T_EQ_INT(got[0].event_data.exit.process_pid, 11014);
	T_EQ_INT(got[0].event_data.exit.process_tgid, 11013);
	T_EQ_INT(got[0].event_data.exit.exit_code, 0);

	parse(msgs[3], msg_len[3]);
	T_EQ_INT(got[0].what, PROC_EVENT_UID);
	T_EQ_INT(got[0].event_data.id.process_pid, 11013);
	T_EQ_INT(got[0].event_data.id.r.ruid, 1001);
	T_EQ_INT(got[0].event_data.id.e.euid, 1001);

	parse(msgs[4], msg_len[4]);
	T_EQ_INT(got[0].what, PROC_EVENT_EXEC);
	T_EQ_INT(got[0].event_data.exec.process_pid, 11013);
	T_EQ_INT(got[0].event_data.exec.process_tgid, 11013);

	parse(msgs[5], msg_len[5]);
	T_EQ_INT(got[0].what, PROC_EVENT_EXIT);
	T_EQ_INT(got[0].event_data.exit.process_pid, 11013);
	T_EQ_INT(got[0].event_data.exit.exit_signal, 17); /* SIGCHLD to the parent */
}

static unsigned char batch[MAX_MSGS * 256] __attribute__((aligned(8)));

/* All of them in one datagram, as a busy connector delivers them: in order. */
static size_t make_batch(void)
{
	size_t len = 0;

	for (size_t i = 0; i < nmsgs; i++) {
		memcpy(batch + len, msgs[i], msg_len[i]);
		len += NLMSG_ALIGN(msg_len[i]);
	}
	return len;
}

static void one_datagram(void)
{
	static const unsigned want[] = { PROC_EVENT_FORK, PROC_EVENT_FORK, PROC_EVENT_EXIT,
					 PROC_EVENT_UID,  PROC_EVENT_EXEC, PROC_EVENT_EXIT };
	size_t len;

	LOAD();
	len = make_batch();
	T_EQ_INT(parse(batch, len), 6);
	T_EQ_INT(ngot, 6);
	for (int i = 0; i < ngot && i < 6; i++)
		T_EQ_INT(got[i].what, want[i]);
}

/* A datagram cut inside a message: the messages before it, nothing read past it. */
static void cut_datagram(void)
{
	size_t len;

	LOAD();
	len = make_batch();
	T_EQ_INT(parse(batch, len - 1), 5);
	T_EQ_INT(parse(batch, NLMSG_ALIGN(msg_len[0]) + NLMSG_HDRLEN), 1);
	T_EQ_INT(parse(batch, NLMSG_HDRLEN - 1), 0);
	T_EQ_INT(parse(batch, 0), 0);
}

/* Skipped: NOOP and ERROR messages, other connectors' messages, a cn_msg whose
 * length or whose netlink length is too short for an event. The rest still count. */
static void skipped_messages(void)
{
	struct nlmsghdr *nh;
	struct cn_msg *cn;
	size_t len, second;

	LOAD();
	second = NLMSG_ALIGN(msg_len[0]);

	len = make_batch();
	nh = (struct nlmsghdr *)batch;
	nh->nlmsg_type = NLMSG_NOOP;
	T_EQ_INT(parse(batch, len), 5);
	nh->nlmsg_type = NLMSG_ERROR;
	T_EQ_INT(parse(batch, len), 5);
	T_EQ_INT(got[0].event_data.fork.child_pid, 11014); /* the first one went */

	len = make_batch();
	cn = NLMSG_DATA((struct nlmsghdr *)(batch + second));
	cn->id.idx = CN_IDX_PROC + 1;
	T_EQ_INT(parse(batch, len), 5);
	cn->id.idx = CN_IDX_PROC;
	cn->len = sizeof(struct proc_event) - 1;
	T_EQ_INT(parse(batch, len), 5);

	/* a message too short to hold its event: skipped, the next one still found */
	len = make_batch();
	nh = (struct nlmsghdr *)batch;
	memmove(batch + NLMSG_LENGTH(sizeof(*cn)), batch + second, len - second);
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*cn));
	len -= second - NLMSG_LENGTH(sizeof(*cn));
	T_EQ_INT(parse(batch, len), 5);
	T_EQ_INT(got[0].event_data.fork.child_pid, 11014);
}

/* A length field that points past the datagram ends the walk. */
static void bad_length(void)
{
	struct nlmsghdr *nh;
	size_t len;

	LOAD();
	len = make_batch();
	nh = (struct nlmsghdr *)(batch + NLMSG_ALIGN(msg_len[0]));
	nh->nlmsg_len = 0xffff;
	T_EQ_INT(parse(batch, len), 1);
	nh->nlmsg_len = 3; /* shorter than its own header */
	T_EQ_INT(parse(batch, len), 1);
}

int main(void)
{
	T_RUN(each_recorded_message);
	T_RUN(one_datagram);
	T_RUN(cut_datagram);
	T_RUN(skipped_messages);
	T_RUN(bad_length);
	return t_done();
}
