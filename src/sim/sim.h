/* sim/sim.h — the deterministic discrete-event simulator: public interface.
 *
 * A simulation (struct sim) owns one engine and drives it with simulated tasks, the
 * way a kernel would: tasks are spawned, fork, exit and are reaped through the
 * task-provider calls; a scenario's filesystem commands (mkdir, echo, cat, ...) go
 * through the engine's file API as a shell's would, and the models charge, uncharge
 * and read limits on the engine's cgroup handles, hearing of changes as an engine
 * observer (cgroups.c). Around the engine sit the models of what userspace
 * cannot control (CPU scheduling, memory and page cache, writeback, block devices,
 * helper processes, network devices); each model file opens with its formulas.
 *
 * Time is one type, sim_time: int64 nanoseconds since the start of the run. Events
 * with equal times fire in the order they were scheduled. Nothing here reads a clock
 * or the environment: the same scenario text and seed give the same bytes out.
 */
#ifndef UCG_SIM_SIM_H
#define UCG_SIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef int64_t sim_time;

#define SIM_NSEC ((int64_t)1)
#define SIM_USEC ((int64_t)1000)
#define SIM_MSEC ((int64_t)1000000)
#define SIM_SEC ((int64_t)1000000000)
#define SIM_TIME_MAX INT64_MAX

/* Events between two calls of a progress hook by default: some thousands of calls a
 * second at the loop's fastest (tens of millions of events a second), still a dozen on
 * workloads a hundred times slower. */
#define SIM_PROGRESS_EVERY ((uint64_t)4096)

/* The charging designs of the seed (article part 5): who pays for writeback and
 * helper I/O, and what each page carries to know it. */
enum sim_charging {
	SIM_CHARGING_KERNEL,   /* 3.16: the flusher/helper pays; page_cgroup = ptr + flags */
	SIM_CHARGING_PID,      /* the dirtier's pid on each page, resolved when charged */
	SIM_CHARGING_CONSUMER, /* a long-lived consumer id, resolved per hierarchy */
	SIM_CHARGING_DUAL,     /* memcg index + blkio index + flags in one 64-bit word */
	SIM_CHARGING_INODE,    /* per-inode writeback owner with majority switching */
	SIM_CHARGING_NR
};

/* "kernel", "pid", ... ; NULL for an out-of-range value. */
const char *sim_charging_name(enum sim_charging c);
/* -EINVAL for an unknown name. */
int sim_charging_parse(const char *name, enum sim_charging *ret);

struct sim;

struct sim_config {
	uint64_t seed;
	sim_time until;             /* stop here (0: the scenario's own end) */
	enum sim_charging charging;
	uint64_t max_events;        /* 0: 200 million; past it the run stops with -E2BIG */
	/* Progress hook for a caller that shows how far a long run got: sim_run calls it
	 * after every progress_every events (0: SIM_PROGRESS_EVERY) with the virtual time
	 * reached, the time the run stops at (cfg.until or the scenario's end) and the
	 * events fired so far. It must not touch the simulation; NULL for none. */
	void (*progress)(void *ctx, sim_time now, sim_time end, uint64_t events);
	void *progress_ctx;
	uint64_t progress_every;
};

/* Detail the errno cannot carry: "scenario.ucg:12: echo: write error: Invalid argument". */
struct sim_err {
	char msg[512];
};

/* Creates a simulation with its own engine. cfg may be NULL (seed 0, kernel design).
 * 0 or -ENOMEM. */
int sim_new(const struct sim_config *cfg, struct sim **ret);
/* NULL is fine. */
void sim_free(struct sim *s);

/* Parses a whole scenario (text of len bytes; filename names it in errors). Nothing
 * runs yet: a malformed scenario fails here with -EINVAL and err says file:line. */
int sim_load(struct sim *s, const char *filename, const char *text, size_t len,
	     struct sim_err *err);
/* Runs the loaded scenario to its end (or cfg.until). Returns 0, or -errno when a
 * command fails (err names file:line and the errno text), -E2BIG past the event
 * limit. The transcript (output of cat, tc show, notes) accumulates in the log. */
int sim_run(struct sim *s, struct sim_err *err);

/* The transcript of the run so far (cat output, events worth noting). */
const char *sim_log(const struct sim *s);
/* Appends the per-cgroup summary table. */
int sim_format_summary(struct sim *s, struct ucg_buf *out);
/* CSV time series: number of files, and file i's name and contents. */
size_t sim_csv_count(const struct sim *s);
int sim_format_csv(struct sim *s, size_t i, const char **ret_name, struct ucg_buf *out);
/* A self-contained HTML report with inline SVG charts. */
int sim_format_html(struct sim *s, struct ucg_buf *out);

/* How writeback and helper work was charged under the run's design, against the
 * originating cgroup (the blkio cgroup of the task that dirtied the page or asked the
 * helper) that the simulator tracks on the side. */
struct sim_attribution {
	uint64_t wb_bytes, wb_to_origin, wb_orphaned;
	uint64_t helper_bytes, helper_to_origin;
	int64_t helper_cpu_ns, helper_cpu_to_origin;
	uint64_t refund_pages, refund_misdirected;
	size_t record_bytes; /* ownership record per page under the design */
};
void sim_get_attribution(const struct sim *s, struct sim_attribution *ret);

/* Virtual time now, and events fired so far. */
sim_time sim_now(const struct sim *s);
/* The time the run stops at: cfg.until, else the scenario's end (once loaded). */
sim_time sim_end(const struct sim *s);
uint64_t sim_events(const struct sim *s);

/* Parses "5s", "250ms", "10us", "7ns", "1.5s", "2m" into ns. 0 or -EINVAL. */
int sim_parse_time(const char *s, sim_time *ret);
/* Formats t as seconds with up to 9 decimals, trailing zeros cut ("1.5s", "0s"). */
void sim_format_time(sim_time t, struct ucg_buf *out);

#endif
