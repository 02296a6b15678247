/* fs/daemon.c — the filesystem daemon's setup and main loop (see daemon.h).
 *
 * Threads: the main thread polls the control socket, the process-events connector,
 * an eventfd rung by the engine when a release notification is queued, and a
 * signalfd (SIGTERM/SIGINT to stop, SIGCHLD to reap release agents). Each mount has
 * one thread running its FUSE session (fs/mounts.c), and one notifier thread tells
 * the kernel about changes it cannot see (fs/notify.c). Every engine call is made with
 * d->lock held; the engine's sync callback drains the connector under that same lock,
 * so a task forked just before a write to cgroup.procs is known when the write is
 * resolved. The daemon's structs and its other files: fs/daemon_impl.h.
 */
#include "fs/daemon.h"

#include "base/buf.h"
#include "engine/ucg.h"
#include "fs/ctl.h"
#include "fs/deadconn.h"
#include "fs/daemon_impl.h"
#include "fs/events.h"
#include "fs/guard.h"
#include "fs/setup.h"
#include "fs/state.h"
#include "fs/kenforce.h"
#include "host/cpuhold.h"
#include "host/enforce.h"
#include "host/host.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int restore_mount(void *ctx, struct ucg_hierarchy *h, const char *name, const char *dir,
			 const char *opts)
{
	struct daemon *d = ctx;
	struct ucg_buf out;
	int r;

	ucg_buf_init(&out);
	r = ucgfs_mount(d, name, dir, opts, &out);
	ucg_buf_fini(&out);
	if (r < 0) {
		/* the snapshot names it: the next restore should not try again */
		pthread_mutex_lock(&d->lock);
		ucgfs_journal_mount(d, h, name, dir, 'u', 0);
		pthread_mutex_unlock(&d->lock);
	}
	return r;
}

/* The dead daemon's mounts may hang instead of answering ENOTCONN (fs/deadconn.h):
 * abort the connections it recorded, still mounted where it recorded them; then its
 * process, if it could not finish dying, can. */
static void end_dead_connections(const struct ucgfs_state_mount *ms, int n, pid_t dying)
{
	int i, r, aborted = 0;

	for (i = 0; i < n; i++) {
		r = ucgfs_conn_abort(ms[i].conn, ms[i].dir);
		if (r > 0)
			aborted++;
		else if (r < 0)
			fprintf(stderr,
				"ucg: daemon: %s: cannot abort the dead FUSE connection %u (%s): "
				"the mount may hang until it is aborted\n",
				ms[i].dir, ms[i].conn, strerror(-r));
	}
	if (aborted)
		fprintf(stderr,
			"ucg: daemon: aborted %d FUSE connection%s of the previous daemon\n",
			aborted, aborted == 1 ? "" : "s");
	if (!dying)
		return;
	if (ucgfs_pid_wait_exit(dying, 5000) == 0)
		fprintf(stderr, "ucg: daemon: the previous daemon, pid %d, has exited\n",
			(int)dying);
	else
		fprintf(stderr,
			"ucg: daemon: the previous daemon, pid %d, is still dying after "
			"5 s\n",
			(int)dying);
}

/* The file-serving mode (fs/ll_ops.c): cache mode only when UCG_FUSE_CACHE says
 * so (1, on, yes); exact otherwise. */
static int cache_mode_wanted(void)
{
	const char *env = getenv("UCG_FUSE_CACHE");

	return env && (!strcmp(env, "1") || !strcmp(env, "on") || !strcmp(env, "yes"));
}

/* Notes where the setup failed, for the starter and the foreground command. */
#define FAILED(o, ...) snprintf((o)->failed, sizeof((o)->failed), __VA_ARGS__)

int ucgfs_daemon_run(struct ucgfs_daemon_opts *o)
{
	struct ucg_engine_config cfg = { 0 };
	struct daemon d;
	struct timespec now;
	long long next_reap_ms = 0, next_cpu_ms = 0;
	struct ucgfs_restore *rs = NULL;
	const struct ucgfs_state_mount *rms = NULL;
	int nrms;
	char sock[PATH_MAX];
	int freezing = 0, stale = 0, pidfile_made = 0;
	pid_t dying = 0;
	long hold_ms = -1; /* until the next cpuset hold pass; -1: nothing held */
	sigset_t mask;
	int r;

	memset(&d, 0, sizeof(d));
	o->failed[0] = '\0';
	d.cache = cache_mode_wanted();
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.note_sent, NULL);
	d.listen_fd = d.sig_fd = d.wake_fd = d.guard_fd = -1;
	d.journal.fd = d.journal.child_fd = -1;
	ucg_buf_init(&d.journal.forks);
	r = ucgfs_runtime_prepare(o->failed, sizeof(o->failed));
	if (r < 0)
		goto out;
	if (o->log && (r = ucgfs_log_open()) < 0) {
		FAILED(o, "log %s/daemon.log", ucgfs_ctl_runtime_dir());
		goto out;
	}
	/* Hold no directory busy (a umount of it would fail) and read no terminal. */
	if ((r = ucgfs_detach_stdio()) < 0) {
		FAILED(o, "chdir / and stdin from /dev/null");
		goto out;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	d.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	d.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d.sig_fd < 0 || d.wake_fd < 0) {
		r = -errno;
		FAILED(o, "signalfd/eventfd");
		goto out;
	}
	r = ucg_host_new(&d.host);
	if (r < 0) {
		FAILED(o, "host process events (connector, taskstats)");
		goto out;
	}
	r = ucg_enforce_new(&d.enforce);
	if (r < 0) {
		FAILED(o, "enforcement");
		goto out;
	}
	cfg.provider = &ucgfs_provider_ops;
	cfg.provider_ctx = &d;
	cfg.nr_cpus = (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	cfg.nr_mems = (unsigned)ucg_enforce_nr_mems();
	r = ucg_engine_new(&cfg, &d.e);
	if (r < 0) {
		FAILED(o, "engine");
		goto out;
	}
	/* Before the tree is populated: every change after this is heard (fs/observer.c). */
	r = ucg_observer_add(d.e, &ucgfs_observer_ops, &d);
	if (r < 0) {
		FAILED(o, "engine observer");
		goto out;
	}
	r = ucg_host_populate(d.host, d.e);
	if (r < 0) {
		FAILED(o, "scanning /proc");
		goto out;
	}
	r = ucgfs_ctl_listen(&d.listen_fd, &stale, &dying);
	if (r < 0) {
		ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock");
		if (r == -EADDRINUSE)
			FAILED(o, "control socket %.400s: a daemon answers there", sock);
		else
			FAILED(o, "control socket %.400s", sock);
		goto out;
	}
	fprintf(stderr, "ucg: daemon %d serving %s\n", (int)getpid(), ucgfs_ctl_runtime_dir());
	if (ucg_host_polled(d.host))
		fprintf(stderr, "ucg: the kernel sends no process events (no CONFIG_PROC_EVENTS?): "
				"tasks are read from /proc at a sync when /proc/loadavg shows some "
				"came or went\n");
	if (dying)
		fprintf(stderr,
			"ucg: daemon: the previous daemon, pid %d, was killed but has not "
			"finished dying: restoring its state\n",
			(int)dying);
	else if (stale)
		fprintf(stderr, "ucg: daemon: the previous daemon did not stop cleanly (its "
				"ctl.sock was left behind): restoring its state\n");
	d.kenforce = ucgfs_kenforce_start(d.e); /* after the socket: one daemon per dir */
	/* Forked where the daemon will stay (kenforce may have moved it) and before any
	 * mount, so that it holds no /dev/fuse. */
	d.guard_fd = ucgfs_guard_start();
	if (d.guard_fd < 0)
		fprintf(stderr,
			"ucg: daemon: no guard (%s): a kill -9 that leaves a thread "
			"behind may hang the mounts until the next start\n",
			strerror(-d.guard_fd));
	/* Without a v2 cpuset controller nothing refuses a member's own affinity outside
	 * its cpuset: poll and clamp (host/cpuhold.h). Before the restore's attaches. */
	if (!ucgfs_kenforce_holds_cpus(d.kenforce)) {
		r = ucg_cpuhold_new(d.e, 0, &d.cpuhold);
		if (r < 0)
			fprintf(stderr,
				"ucg: cpuset: not held (%s): a member's own affinity stays\n",
				strerror(-r));
	}
	fprintf(stderr, "ucg: files served %s\n",
		d.cache ? "from the kernel's cache (UCG_FUSE_CACHE=1: reads overlapping a change may "
			  "be stale, cut or padded)"
			: "exact (direct_io, open checked; UCG_FUSE_CACHE=1 for cached content)");
	d.restoring = 1;
	r = ucgfs_state_restore(d.e, &d.lock, &rs);
	if (r < 0)
		fprintf(stderr, "ucg: daemon: state: %s: starting from what could be read\n",
			strerror(-r));
	pthread_mutex_lock(&d.lock);
	ucgfs_kenforce_restore(d.kenforce); /* processes forked while no daemon ran */
	pthread_mutex_unlock(&d.lock);
	/* The restored state, with the mounts about to be made, is the new snapshot;
	 * every change from here on is journaled. */
	nrms = rs ? ucgfs_restore_mounts(rs, &rms) : 0;
	if (stale) /* before anything looks at those mounts: a look could wait forever */
		end_dead_connections(rms, nrms, dying);
	r = ucgfs_journal_start(&d, rs ? ucgfs_restore_next_gen(rs) : 1, rms, nrms);
	if (r < 0)
		fprintf(stderr, "ucg: daemon: snapshot: %s: no journal, changes are not saved\n",
			strerror(-r));
	pthread_mutex_lock(&d.lock);
	d.restoring = 0;
	d.remounting = 1;
	pthread_mutex_unlock(&d.lock);
	ucgfs_restore_finish(rs, restore_mount, &d, &d.lock);
	pthread_mutex_lock(&d.lock);
	d.remounting = 0;
	pthread_mutex_unlock(&d.lock);
	if (o->pidfile) {
		r = ucgfs_pidfile_write(o->pidfile);
		if (r < 0) {
			FAILED(o, "pidfile %s", o->pidfile);
			ucgfs_journal_close(&d); /* keep the state as it is */
			pthread_mutex_lock(&d.lock);
			d.restoring = 1;
			pthread_mutex_unlock(&d.lock);
			ucgfs_unmount_all(&d);
			goto out;
		}
		pidfile_made = 1;
	}
	fflush(stderr);
	ucgfs_ready_send(o->ready_fd, 0, NULL);
	o->ready_fd = -1;
	while (!d.stop) {
		/* exits from taskstats too: a cached cgroup.procs must lose a reaped
		 * child before its parent reads it (the connector tells only later) */
		struct pollfd pfd[5] = {
			{ d.listen_fd, POLLIN, 0 },
			{ d.sig_fd, POLLIN, 0 },
			{ d.wake_fd, POLLIN, 0 },
			{ ucg_host_fd(d.host), POLLIN, 0 },
			{ ucg_host_exit_fd(d.host), POLLIN, 0 },
		};
		int timeout = freezing ? 10 : 100;
		int n;

		if (hold_ms >= 0 && hold_ms < timeout)
			timeout = (int)hold_ms;
		n = poll(pfd, 5, timeout);

		if (n < 0 && errno != EINTR)
			break;
		if (pfd[3].revents || pfd[4].revents) {
			pthread_mutex_lock(&d.lock);
			ucgfs_drain(&d);
			ucgfs_journal_flush(&d); /* the forks' records */
			ucgfs_unlock_checked(&d);
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;

			while (read(d.sig_fd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT ||
				    si.ssi_signo == SIGHUP)
					d.stop = 1;
		}
		if (pfd[2].revents) {
			uint64_t v;

			if (read(d.wake_fd, &v, sizeof(v)) < 0) {
				/* nothing pending */
			}
		}
		ucgfs_run_releases(&d);
		pthread_mutex_lock(&d.lock);
		ucgfs_events_deliver(d.e);
		pthread_mutex_unlock(&d.lock);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (pfd[0].revents) {
			int c = accept4(d.listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0) {
				ucgfs_ctl_handle(&d, c);
				close(c);
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		pthread_mutex_lock(&d.lock);
		freezing = ucg_enforce_poll(d.enforce, d.e) | ucgfs_kenforce_poll(d.kenforce);
		if (d.cpuhold)
			hold_ms = ucg_cpuhold_poll(d.cpuhold,
						   (uint64_t)now.tv_sec * 1000 +
							   (uint64_t)now.tv_nsec / 1000000);
		d.content_dirty = 1; /* freezer states confirmed, tasks found continued */
		ucgfs_unlock_checked(&d);
		if (now.tv_sec * 1000 + now.tv_nsec / 1000000 >= next_cpu_ms) {
			pthread_mutex_lock(&d.lock);
			ucg_host_sample_cpu(d.host, d.e);
			ucgfs_kenforce_tick(d.kenforce, (uint64_t)now.tv_sec * 1000000 +
								(uint64_t)now.tv_nsec / 1000);
			d.content_dirty = 1; /* cpuacct's figures moved */
			ucgfs_unlock_checked(&d);
			next_cpu_ms = now.tv_sec * 1000 + now.tv_nsec / 1000000 + 1000;
		}
		if (now.tv_sec * 1000 + now.tv_nsec / 1000000 >= next_reap_ms) {
			pthread_mutex_lock(&d.lock);
			ucg_host_reap_check(d.host, d.e);
			d.content_dirty = 1; /* exited leaders leave cgroup.procs */
			ucgfs_unlock_checked(&d);
			next_reap_ms = now.tv_sec * 1000 + now.tv_nsec / 1000000 + 100;
		}
		ucgfs_journal_compact(&d, 0); /* flushes the forks' records too */
	}
	/* A clean stop keeps the state as it was with every mount in place (the
	 * unmounts below are not journaled), in one snapshot; a stop with reset forgets
	 * it (the next daemon starts with nothing). */
	if (!d.reset)
		ucgfs_journal_compact(&d, 1);
	ucgfs_journal_close(&d);
	pthread_mutex_lock(&d.lock);
	d.restoring = 1;
	pthread_mutex_unlock(&d.lock);
	if (d.reset) {
		ucgfs_state_forget();
		fprintf(stderr, "ucg: daemon %d: saved state removed (stop reset)\n",
			(int)getpid());
	}
	ucgfs_unmount_all(&d);
	if (d.reset)
		ucgfs_state_forget(); /* nothing saved it meanwhile, but be sure */
	fprintf(stderr, "ucg: daemon %d stopped\n", (int)getpid());
	r = 0;
out:
	if (d.listen_fd >= 0) {
		if (ucgfs_ctl_path(sock, sizeof(sock), "ctl.sock") == 0)
			unlink(sock);
		close(d.listen_fd);
	}
	ucgfs_kenforce_stop(d.kenforce);
	if (d.guard_fd >= 0)
		close(d.guard_fd);   /* the guard exits */
	ucg_cpuhold_free(d.cpuhold); /* before the engine: it unregisters its observer */
	if (d.journal.fd >= 0)
		close(d.journal.fd);
	ucg_buf_fini(&d.journal.forks);
	if (d.e)
		ucg_engine_free(d.e);
	ucg_host_free(d.host);
	ucg_enforce_free(d.enforce);
	if (d.sig_fd >= 0)
		close(d.sig_fd);
	if (d.wake_fd >= 0)
		close(d.wake_fd);
	if (pidfile_made)
		ucgfs_pidfile_remove(o->pidfile);
	if (r < 0) {
		ucgfs_ready_send(o->ready_fd, r, o->failed);
		o->ready_fd = -1;
	}
	return r;
}
