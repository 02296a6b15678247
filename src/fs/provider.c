/* fs/provider.c — the engine's provider callbacks for the daemon: host events
 * drained before pids are resolved, the main loop woken for release and event
 * notifications, freezer and cpuset enforcement (host/enforce.h), and the writer's
 * fds of cgroup.event_control (fs/events.c).
 */
#include "fs/daemon_impl.h"

#include "engine/ucg.h"
#include "fs/events.h"
#include "fs/kenforce.h"
#include "host/cpuhold.h"
#include "host/enforce.h"
#include "host/host.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* Under d->lock: host events change membership, so the files showing it. The
 * counters, not the return value: exits taskstats reported early are not counted
 * there. */
int ucgfs_drain(struct daemon *d)
{
	struct ucg_host_stats before, after;
	int r;

	if (!d->host) /* a sandbox (fs/daemon_impl.h): no host events */
		return 0;
	ucg_host_get_stats(d->host, &before);
	r = ucg_host_drain(d->host, d->e);
	ucg_host_get_stats(d->host, &after);
	after.quiet = before.quiet; /* a drain that read nothing changed nothing */
	if (r != 0 || memcmp(&before, &after, sizeof(before)))
		d->content_dirty = 1;
	return r;
}

/* ---- provider glue ------------------------------------------------------------------- */

static void prov_sync(void *ctx, struct ucg_engine *e)
{
	struct daemon *d = ctx;

	/* A snapshot is of the engine as it stands: one catch-up before it, not one per
	 * tasks file listed (fs/journal.c). */
	if (d->serializing)
		return;
	ucgfs_drain(d);
	/* A leader reaped a moment ago is gone from the kernel's /proc at once; the
	 * table's zombies are otherwise reaped on the main loop's 100 ms timer, so a
	 * lookup or a listing right after a wait() would still find it. O(zombies). */
	ucg_host_reap_check(d->host, e);
	/* Without process events the rescan placed new tasks by their parents; the
	 * kernel's leaves know better where a process of the subtree is. With events,
	 * each fork was placed with its creator as the kernel placed it. Only after a
	 * scan that added tasks (since the last look, by whichever drain): the leaves of
	 * the tasks already placed are the ones their attaches wrote. */
	if (ucg_host_polled(d->host)) {
		struct ucg_host_stats s;

		ucg_host_get_stats(d->host, &s);
		if (s.found != d->v2_found) {
			d->v2_found = s.found;
			ucgfs_kenforce_sync(d->kenforce);
		}
	}
}

static void prov_release_queued(void *ctx, struct ucg_engine *e)
{
	struct daemon *d = ctx;
	uint64_t one = 1;

	if (write(d->wake_fd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: a wake-up is pending anyway */
	}
}

static void prov_freeze_task(void *ctx, struct ucg_engine *e, int tid, int freeze)
{
	struct daemon *d = ctx;

	if (ucgfs_kenforce_freeze(d->kenforce, tid, freeze) < 0) /* not through v2 */
		ucg_enforce_freeze(d->enforce, e, tid, freeze);
	prov_release_queued(ctx, e); /* wake the main loop: it confirms the stop */
}

static void prov_cpus_changed(void *ctx, struct ucg_engine *e, int tid, const unsigned char *mask,
			      size_t nbytes)
{
	struct daemon *d = ctx;

	if (d->cpuhold)
		ucg_cpuhold_cpus(d->cpuhold, tid, mask, nbytes);
	else
		ucg_enforce_cpus(e, tid, mask, nbytes);
}

static void prov_mems_migrate(void *ctx, struct ucg_engine *e, int tid, const unsigned char *from,
			      const unsigned char *to, size_t nbytes)
{
	ucg_enforce_migrate(e, tid, from, to, nbytes);
}

/* cgroup.event_control (fs/events.c): the mount an absolute path is under. */
static struct ucg_hierarchy *events_find(void *ctx, const char *abs, const char **ret_rel)
{
	struct daemon *d = ctx;
	struct mnt *m;

	for (m = d->mounts; m; m = m->next) {
		size_t n = strlen(m->dir);

		if (!strncmp(abs, m->dir, n) && (abs[n] == '/' || !abs[n])) {
			*ret_rel = abs[n] ? abs + n : "/";
			return m->h;
		}
	}
	return NULL;
}

static int prov_event_fds(void *ctx, struct ucg_engine *e, unsigned efd, unsigned cfd,
			  struct ucg_event_target *ret)
{
	static char path[4096]; /* used under d->lock only */
	struct daemon *d = ctx;

	return ucgfs_events_fds(d->writer, efd, cfd, events_find, d, path, sizeof(path), ret);
}

static void prov_event_put(void *ctx, struct ucg_engine *e, uint64_t handle)
{
	ucgfs_events_put(handle);
}

const struct ucg_provider_ops ucgfs_provider_ops = {
	.event_fds = prov_event_fds,
	.event_put = prov_event_put,
	.event_queued = prov_release_queued, /* wakes the main loop */
	.sync = prov_sync,
	.release_queued = prov_release_queued,
	.cpus_changed = prov_cpus_changed,
	.mems_migrate = prov_mems_migrate,
	.freeze_task = prov_freeze_task,
};
