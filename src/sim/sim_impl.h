/* sim/sim_impl.h — the simulation object and the structures the models share.
 *
 * Private to src/sim. Ownership: struct sim owns everything reachable from it (the
 * engine, hierarchies, cgroup views, tasks, devices, files, page frames, events);
 * nothing is shared between two simulations and nothing is global.
 */
#ifndef UCG_SIM_SIM_IMPL_H
#define UCG_SIM_SIM_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/heap.h"
#include "base/htable.h"
#include "base/prng.h"
#include "engine/subsys.h" /* UCG_SS_*: the one list of controllers */
#include "engine/ucg.h"
#include "sim/ilist.h"
#include "sim/sim.h"

#define SIM_MAX_HIER 16   /* hierarchies a scenario may mount */
#define SIM_MAX_DEV 8     /* block devices (md devices included) */
#define SIM_PAGE ((uint64_t)4096)
#define SIM_NO_FRAME SIM_ILIST_END

struct sim;

/* Something that can be scheduled: the heap entry points at it. */
struct sim_event_src {
	void (*fire)(struct sim *s, struct sim_event_src *src, uint64_t arg);
};

/* The simulator's data of one engine cgroup (cgroups.c): hung off the engine's cgroup
 * in the simulator's observer slot when the engine reports the cgroup made (whoever
 * made it), so a handle finds it with ucg_cgroup_priv and a path through
 * ucg_cgroup_lookup; the engine owns the tree, the names and the limits. When the
 * engine removes the cgroup the data stays (owned by sim.cgs) with its statistics,
 * for the reports, and its charges still count in its ancestors. */
struct sim_cg {
	/* The first cache line (the struct is allocated aligned to it, cg_new)
	 * holds, beside id, fields of the sections below that the CPU model reads
	 * of many groups at every recompute or CPU timer: the alloc sums look at brq
	 * of the groups with a quota whose grant on a CPU changed (s->cg_bw says
	 * which have one: 2 M sums in the first virtual minute of bench_sim_events
	 * sim.hour_64cpu_s, nine in ten without), the timers at the rest, of each
	 * group with a quota. Each on a line of its own, they missed the D1 cache
	 * 7.4 M times in the alloc sums alone (cachegrind). period_ns and shares are
	 * control values (valid with cfg_epoch, below); the others the CPU model's. */
	_Alignas(64) int id;   /* global creation order (reports sort by it) */
	unsigned shares;       /* cpu.shares (1024 when unreadable) */
	/* the CPUs below 64 where the CPU model has a runqueue of it (cpu_rq.c): its
	 * timers look at those CPUs' slots (in a per-group array of the model's
	 * state, 0.4 M misses in the hour's first 60 virtual seconds) */
	uint64_t rq_cpus;
	struct sim_bw_rq *brq; /* the tick model's, [brq_n], NULL in the fluid model */
	uint16_t brq_n;        /* (a scenario has at most 4096 CPUs, scenario_parse.c) */
	bool removed;          /* (below) */
	bool bw_stale;         /* bw_next to be computed again from brq */
	bool throttled;        /* (CFS bandwidth, below) */
	/* the tick model's (below): what its events and the recompute after them read
	 * of the group at nearly every tick of it. On the line of the pool, with the
	 * slack timer's instant, they missed 0.43 M times in the first virtual minute
	 * of sim.hour_64cpu_s; the slack timer is armed at few events, so only
	 * whether it is stays here. */
	bool tick_flip;     /* a runqueue's throttling changed since the last recompute */
	bool slack_on;      /* slack_at != SIM_TIME_MAX */
	bool bw_active : 1; /* the period timer runs */
	bool bw_idle : 1;   /* no runtime taken this period */
	int64_t period_ns;
	sim_time period_start;
	sim_time bw_next; /* its next period end or quota exhaustion (cpu_bw.c) */
	int64_t pool;     /* the tick model's cfs_b->runtime */
	/* the rest */
	void *mem; /* the allocation the struct is aligned in */
	struct sim_hier *hier;
	/* "/a/b": a copy of the engine's path made when first asked (sim_cg_path), dropped
	 * when it or an ancestor is renamed, kept once removed */
	char *path;
	/* Links kept by the observer as the engine reports creations and removals (the
	 * models walk them on every charge): the parent's data, and the live children's
	 * in creation order. A removed cgroup keeps its parent link. */
	struct sim_cg *parent;
	struct sim_cg **children;
	size_t nchildren, cchildren;
	/* removed: in the first line, above */
	/* The engine's cgroup, what the charge calls take; NULL once removed (the engine
	 * frees it, and the charges the model still holds passed to the parent). */
	struct ucg_cgroup *ucg;

	/* control values read through the typed accessors (controllers/charge.h), valid
	 * while cfg_epoch == sim.cfg_epoch; a write the engine reports sets it stale */
	uint64_t cfg_epoch;
	/* shares, quota_ns and period_ns: in the first line, above */
	unsigned ncpus;         /* cpuset.cpus count, 0 when not limited */
	uint64_t cpus_mask;     /* cpuset.effective_cpus as bits (CPUs 0..63) */
	bool frozen;
	unsigned blk_weight;    /* blkio.bfq.weight (or blkio.weight), 100 default */
	uint64_t rbps[SIM_MAX_DEV], wbps[SIM_MAX_DEV]; /* own rules, 0 none */
	uint32_t riops[SIM_MAX_DEV], wiops[SIM_MAX_DEV];
	uint32_t classid;       /* net_cls.classid */
	uint32_t prio;          /* net_prio.ifpriomap entry of the simulated interface */
	uint64_t soft_limit;    /* memory.soft_limit_in_bytes in pages, UINT64_MAX none */

	/* CPU model (cpu.c) */
	int64_t runtime_left;   /* CFS bandwidth: ns left in this period */
	/* a control value (valid with cfg_epoch), by runtime_left, which the fluid
	 * model reads with it */
	int64_t quota_ns; /* cpu.cfs_quota_us * 1000, -1 unlimited */
	int64_t p_seen;   /* quota/period the model last acted on */
	/* period_start and throttled: in the first line, above */
	sim_time throttled_since;
	uint64_t nr_periods, nr_throttled;
	int64_t throttled_ns;
	/* alloc beside rate, on one cache line: a group with a quota has both read or
	 * written at each of its alloc sums (cpu_share.c), rate and rt_since at each
	 * of its runtime's settles (cpu_bw.c) */
	double alloc, rate;     /* CPUs granted: summed over its runqueues, and current */
	sim_time rt_since;      /* runtime_left is as of this instant (used at rate since) */
	unsigned nr_active;     /* CPUs on which it has runnable tasks (cpu_rq.c) */
	unsigned thr_cpus;      /* nr_active when it was throttled */
	int64_t local_throttled_ns; /* cpu.stat.local: its runqueues throttled, CPU-summed */
	/* bw_next: in the first line, above */
	/* the tick model's CFS bandwidth (cpu_tick.c), while it has a quota there: the
	 * global pool, one runqueue's slice state per CPU (brq: above), the period
	 * timer's state */
	void *brq_mem;           /* brq's allocation (brq aligned in it) */
	/* pool, bw_active, bw_idle, bw_stale, tick_flip, slack_on: in the first line */
	sim_time slack_at;       /* the slack timer, SIM_TIME_MAX: not armed (slack_on) */
	unsigned nthr;           /* runqueues throttled now */
	int thr_head, thr_tail;  /* while nthr: their CPUs, oldest and newest (by seq) */
	uint64_t thr_seq;        /* throttling order (distribution goes oldest first) */
	int64_t thr_told;        /* throttled_ns already told to the controller */
	int64_t q_seen;          /* (with p_seen, above) */

	/* block model (blk.c): per-device throttle clock and fair-queue virtual time */
	sim_time thr_next[SIM_MAX_DEV];
	double vtime[SIM_MAX_DEV];

	/* statistics (hierarchical: a cgroup counts its descendants) */
	int64_t cpu_ns;
	int64_t mem_pages, mem_peak;     /* pages charged here (anon + cache) */
	int64_t cache_local;             /* page-cache pages charged to this cgroup itself */
	int64_t cache_tree;              /* ... to it or a descendant, removed ones too */
	int64_t reclaim_tree;            /* of those, what memcg reclaim takes */
	int64_t unclean_tree;            /* ... dirty or under writeback, while dirty_on */
	/* its own pages of those memcg reclaim would act on, LRU order, while act_on
	 * (mem_pagecache.c), and the one last put back there (NO_FRAME: none) */
	struct sim_ilist act;
	uint32_t act_hint;
	uint64_t mem_refused, oom_kills;
	uint64_t io_bytes[SIM_MAX_DEV][2]; /* [dev][0 read, 1 write] */
	uint64_t io_ios[SIM_MAX_DEV][2];
	uint64_t wb_bytes;               /* writeback/helper bytes charged here */
	uint64_t pkts, net_bytes, drops;
	int64_t csv_last_cpu;            /* for per-interval shares */
};
_Static_assert(offsetof(struct sim_cg, mem) == 64, "struct sim_cg: its hot fields in one line");

struct sim_hier {
	int index;              /* 0.. in mount order */
	char *name;             /* the scenario's mount name */
	struct ucg_hierarchy *h;
	unsigned ss_mask; /* 1u << UCG_SS_*: the controllers bound to h */
	struct sim_cg *root;
};

/* An I/O stream of one task: read or write SIZE bytes of a file or device. */
struct sim_io {
	struct sim_event_src ev;
	struct sim_task *task;
	int kind;              /* SIM_IO_* */
	struct sim_file *file; /* NULL: raw device */
	struct sim_dev *dev;
	uint64_t off, left;    /* bytes left to do */
	uint64_t chunk;        /* bytes per request */
	uint64_t inflight;
	bool blocked;          /* waiting for dirty pages to fall */
	bool scheduled;        /* io->ev is pending */
	uint64_t done;         /* bytes done */
	struct sim_io *next_blocked;
};

enum { SIM_IO_READ, SIM_IO_WRITE, SIM_IO_READ_DIRECT, SIM_IO_WRITE_DIRECT };

struct sim_task {
	/* The first cache line (the struct is allocated aligned to it, sim_task_new)
	 * holds what the CPU model's accounting writes when it passes the time a task
	 * ran to it (cpu_account.c; the accrual itself is in the model's state). */
	_Alignas(64) bool alive;
	bool pend_listed;        /* in cpu_account.c's list of tasks with pending time */
	bool cg_listed;          /* in its list of tasks with cg_pend */
	int cpu;                 /* the CPU it is queued on while runnable, -1 none */
	int64_t cpu_ns;
	int64_t cg_pend;         /* ns in cpu_ns, not yet in its cgroups' (sim_cpu_settle) */
	int64_t cpuacct_pend;    /* ns run on CPU pend_cpu, not yet charged to cpuacct */
	int pend_cpu;
	/* the rest */
	void *mem; /* the allocation the struct is aligned in */
	int tid;
	struct sim_cg *cg[SIM_MAX_HIER];
	int tgid;
	char *name;
	uint32_t uid;
	bool kthread;
	uint64_t memb_epoch;     /* cg[] valid while == sim.memb_epoch */
	uint32_t consumer;       /* its consumer id (design "consumer"), with cg[] */
	double cpu_demand;       /* CPUs wanted, 0..1 */
	uint64_t affinity;       /* `taskset` CPUs (bit i: CPU i), 0 = all */
	uint64_t anon_pages;
	size_t idx;                     /* its index in s->tasks */
	bool anon_listed;               /* in s->anon_tasks */
	bool cpu_listed;                /* in s->cpu_tasks */
	struct sim_cg *anon_cg[4];      /* where its anon pages are charged */
	uint64_t anon_n[4];
	uint64_t anon_swap[4];          /* of anon_n[i], pages in swap (mem_memcg.c) */
	uint64_t alloc_wait;            /* anon pages waiting for writeback to reclaim */
	bool mem_waited;                /* its last charge waited on writeback (mem_memcg.c) */
	struct sim_task *next_alloc_wait;
	uint64_t huge_pages;
	struct sim_io *io;       /* the running stream, or NULL */
	sim_time io_started;
	struct ucg_hnode hnode;  /* in sim.tasks_by_tid */
};
_Static_assert(offsetof(struct sim_task, pend_cpu) < 60,
	       "struct sim_task: its accounting fields in one line");

/* A consumer: a long-lived identity on pages and requests standing for one tuple of
 * cgroups (one per hierarchy, like a css_set that is never freed); it outlives every
 * task that used it. */
struct sim_consumer {
	struct sim_cg *cg[SIM_MAX_HIER];
};

/* An I/O request on a device queue. */
struct sim_req {
	struct sim_event_src ev; /* throttle release */
	struct sim_req *next;
	struct sim_dev *dev;
	int op;                  /* 0 read, 1 write */
	uint64_t bytes;
	struct sim_cg *charged;  /* blkio cgroup that pays (NULL: none bound) */
	struct sim_cg *origin;   /* blkio cgroup of the task that caused it */
	int charged_tid;         /* task whose cgroup pays, for the blkio account call */
	int kind;                /* SIM_REQ_* */
	struct sim_io *io;       /* stream to notify, or NULL */
	uint32_t file, first_page, npages; /* writeback: pages to clean */
	struct sim_dev *md;      /* helper: the md device it came through */
	struct sim_req *parent;  /* md: the request it was split from */
	unsigned pending;        /* md: children outstanding */
	sim_time submitted;
};

enum { SIM_REQ_DIRECT, SIM_REQ_BUFFERED_READ, SIM_REQ_WRITEBACK, SIM_REQ_HELPER };

struct sim_dev {
	struct sim_event_src ev; /* completion */
	struct sim_event_src thr_ev; /* throttle release */
	int index;
	char *name;
	uint32_t major, minor;
	uint64_t bps;            /* bytes/s */
	uint32_t iops;
	bool is_md;
	struct sim_dev *legs[4]; /* md: mirrors */
	unsigned nlegs;
	struct sim_task *helper; /* md: the helper thread, NULL = requester's context */
	int64_t helper_cpu_ns;   /* md: CPU per request spent by the helper */
	/* queue: requests waiting for the device, and those held by throttling */
	struct sim_req *queue;   /* singly linked; fair pick scans it */
	struct sim_req *held;    /* throttled, each with its release time */
	struct sim_req *busy;    /* in service */
	double vclock;
	uint64_t bytes[2], ios[2];
	sim_time busy_ns;
};

/* A file in the page cache. */
struct sim_file {
	char *name;
	struct sim_dev *dev;
	uint64_t npages;         /* size in pages */
	/* page index -> frame, SIM_NO_FRAME if not cached (sim_file_frame): chunks of
	 * SIM_FILE_CHUNK slots, each allocated when a page in its range is first cached,
	 * so a long file read or written once costs only the slots of what it cached */
	uint32_t **map;
	uint64_t nmap;           /* chunk pointers in map */
	/* inode design: the writeback owner and the tally since the last decision */
	struct sim_cg *wb_owner;
	struct sim_cg *tally_cg[4];
	uint64_t tally[4];
};

/* A page frame holding a page-cache page. */
struct sim_frame {
	/* in this order, without holes: 48 bytes (a run's page cache is mostly these) */
	uint32_t file, index;
	struct sim_ilink lru;         /* global LRU of cached pages, oldest first */
	uint32_t flags;               /* SIM_PG_* */
	uint32_t dirty_seq;           /* matches its entry in the dirty FIFO */
	sim_time dirtied;
	struct sim_cg *memcg;         /* charged memcg (what the controller holds) */
	int origin;                   /* oracle: blkio cgroup id of the dirtier, -1 */
	int dirtier_tid;              /* oracle: who dirtied it */
};

/* Beside each frame, while sim.act_on: its place on the list of LRU pages memcg
 * reclaim would act on (mem_pagecache.c), kept apart so that workloads without that list do
 * not carry it through their caches. */
struct sim_frame_act {
	uint64_t lru_seq;             /* when it last joined the LRU's tail (LRU order) */
	struct sim_ilink link;
};

/* A file's page map: chunks of 1 << SIM_FILE_SHIFT slots (4 KiB). */
#define SIM_FILE_SHIFT 10
#define SIM_FILE_MASK ((1u << SIM_FILE_SHIFT) - 1)

/* Beside each frame, while sim.dirty_on: its place on the list of dirty pages in
 * LRU order (mem_pagecache.c). */
struct sim_frame_dl {
	struct sim_ilink link;
};

#define SIM_PG_USED 0x1u
#define SIM_PG_DIRTY 0x2u
#define SIM_PG_WRITEBACK 0x4u
#define SIM_PG_SCANNED 0x8u /* dirty or under writeback, already counted by memcg reclaim
				 * (the kernel activates such pages: not rescanned soon) */
#define SIM_PG_ACT 0x10u    /* on the list of pages memcg reclaim would act on (mem_pagecache.c) */

/* A scenario command. */
struct sim_cmd {
	struct sim_event_src ev;
	sim_time at;
	int line;
	int argc;
	char **argv;
	char *redirect;      /* echo ... > path */
	/* Compiled at load (scenario_parse.c), so firing does no parsing it can avoid. */
	int verb;            /* its enum sim_verb (scenario_impl.h) */
	uint64_t dollar;     /* bit i: argv[i] holds a '$' (expanded when fired) */
	char *value;         /* echo without '$' in its words: them joined, "\n" ended */
	size_t value_len;
	struct sim_cmd_path { /* a NAME/path word without '$' (echo: the redirect) */
		char *path;      /* as resolve() makes it: "/rest", no trailing '/' */
		size_t hlen;     /* length of NAME */
		struct sim_hier *hi; /* found at the first fire; mounts are never undone */
	} paths[2];
};

struct sim_sample {
	sim_time t;
	int64_t *cpu;        /* per cgroup id: ns in the interval */
	int64_t *mem;        /* pages */
	uint64_t *io;        /* bytes, cumulative */
	size_t ncg;
};

struct sim_flow;

struct sim {
	struct sim_config cfg;
	struct ucg_engine *e;
	struct ucg_cred root_cred;
	struct ucg_buf log;
	struct ucg_prng prng;
	struct ucg_heap events;
	/* The commands to run, in the order the heap would give them (sim_run):
	 * they are known before the run, and the hour's 33 k in the heap made every
	 * pop of the run walk ~15 levels. cmd_seq is the heap's next sequence number
	 * when they were ordered: each comes before an event of the same instant
	 * pushed since, after one pushed before. */
	struct sim_cmd_at {
		sim_time at;
		size_t i; /* in cmds[] */
	} * cmd_order;
	size_t ncmd_order, cmd_pos;
	uint64_t cmd_seq;
	sim_time now, end;
	uint64_t nevents;
	uint64_t progress_next; /* nevents at which cfg.progress is next called */
	bool stopped;
	int run_err;
	struct sim_err *err;

	/* the scenario */
	char *filename;
	struct sim_cmd *cmds;
	size_t ncmds;
	struct ucg_buf cmd_scratch; /* a fired command's $-expanded words (scenario_exec.c) */

	/* the engine's cgroups (cgroups.c): the scenario's mounts, and the data hung off
	 * each cgroup in observer slot obs_id */
	struct sim_hier *hier[SIM_MAX_HIER];
	size_t nhier;
	int obs_id;
	int view_err; /* -ENOMEM: the observer could not hang a cgroup's data */
	/* controller (UCG_SS_*) -> index in hier[], -1; valid while nhier is ss_hier_n
	 * (mounts only add) */
	signed char ss_hier[UCG_SUBSYS_COUNT];
	size_t ss_hier_n;
	struct sim_cg **cgs;   /* by id */
	/* by id: it has a quota or the tick model's state (cg->quota_ns > 0 ||
	 * cg->brq, kept by sim_cg_bw_note wherever they change): the CPU model's
	 * alloc sums look here, not at the group's struct, for the nine in ten
	 * groups without either */
	unsigned char *cg_bw;
	size_t ncgs, ccgs;
	uint64_t cfg_epoch, memb_epoch;
	uint64_t cfg_writes;     /* control-file writes (and global changes) so far: cpu.c
				  * reads quotas and shares again after one */

	/* tasks */
	struct sim_task **tasks; /* creation order */
	size_t ntasks, ctasks;
	/* the tasks that ever had anon pages booked, in creation order: what swap_out
	 * scans (mem_memcg.c) */
	struct sim_task **anon_tasks;
	size_t nanon_tasks, canon_tasks;
	bool anon_list_lost; /* one could not be listed: swap_out scans every task */
	/* the indexes of the tasks that ever wanted CPU, ascending: the only ones the CPU
	 * model's gather need look at (cpu.c); cpu_list_lost: one could not be listed,
	 * the gather looks at every task */
	int *cpu_tasks;
	size_t ncpu_tasks, ccpu_tasks;
	bool cpu_list_lost;
	struct ucg_htable tasks_by_tid;
	/* tasks by name (sim_task_by_name): open addressing, each slot the index of the
	 * newest task of a name (UINT32_MAX: empty), name_prev[i] the task of that name
	 * before task i; names_lost: an allocation failed, names are looked up by a walk
	 * of every task */
	uint32_t *name_slots, *name_prev;
	size_t name_cap, name_used, name_prev_cap;
	bool names_lost;
	int next_tid;
	struct sim_consumer *consumers;
	size_t nconsumers, cconsumers;

	/* CPU model */
	unsigned nr_cpus;
	sim_time cpu_last;       /* rates valid since */
	bool cpu_dirty;
	/* bumped by every change the CPU model's gather reads (sim_cpu_changed): a
	 * recompute with no bump since the last gather, nor an epoch moved, reuses
	 * that gather's runnable set */
	uint64_t cpu_inputs;
	struct sim_event_src cpu_ev;
	uint64_t cpu_gen;
	int64_t idle_ns;
	/* `set cpu_model tick`: CFS bandwidth by slices taken at scheduler ticks
	 * (cpu_tick.c) instead of the fluid exact quota; `set hz`, `set cfs_slice` */
	bool cpu_tick;
	unsigned hz;
	/* SIM_SEC / hz, set with it: the tick model finds the next tick of a runqueue
	 * some 50 M times in the hour's run, and a division each was ~3% of it */
	sim_time tick_ns;
	sim_time cfs_slice;
	/* `set weight_refresh N`: the tick model's lazy weights are refreshed every N
	 * ticks (cpu_rq.c, "Lazy weights"), 16 by default */
	unsigned lz_ticks;
	void *cpu_state; /* struct cpu_state (cpu_impl.h), kept across updates */
	/* Tests: cpu_full makes every recompute a full one, from scratch: every
	 * runnable task gathered afresh, every runqueue rebuilt, every CPU shared again
	 * (the result must not change; cpu.c recomputes only what changed, and skips
	 * the gather when only throttling changed). cpu_shortcuts counts the
	 * recomputes that skipped the gather. While cpu_digesting, every recompute
	 * folds every task's rate and CPU and every cgroup's rate and CPU count, bit
	 * for bit, into cpu_digest (FNV-1a; the test sets its start). */
	bool cpu_full;
	bool cpu_digesting;
	uint64_t cpu_shortcuts;
	uint64_t cpu_digest;
	/* Benchmarks: recomputes run, and CPUs shared again in them */
	uint64_t cpu_updates, cpu_reshares;
	uint64_t cpu_share_skips; /* of the reshares, those found to change nothing */
	uint64_t cpu_balances; /* the tick model's balancings (rounds of moves looked for) */

	/* memory model */
	uint64_t mem_pages;      /* machine RAM in pages */
	uint64_t anon_used, cache_used, dirty, writeback;
	/* the frame store (frames.c) */
	struct sim_frame *frames;
	struct sim_frame_act *frame_act; /* as many, while act_on */
	struct sim_frame_dl *frame_dl;   /* as many, while dirty_on */
	unsigned char *records;          /* ownership records, rec_size bytes per frame */
	uint32_t nframes, cframes;       /* frames handed out so far; room */
	uint32_t free_head;              /* frames given back, linked by lru.next */
	struct sim_ilist lru;
	/* the LRU pages memcg reclaim would act on, on their memcgs' lists (sim_cg.act),
	 * kept from the first memcg reclaim of a page-cache user */
	bool act_on;
	struct sim_ilist dl;     /* dirty pages, LRU order (mem_pagecache.c), kept from the first */
	bool dirty_on;           /* memcg reclaim that looks for dirty pages */
	uint64_t lru_seq;
	unsigned dirty_ratio, dirty_bg_ratio;
	sim_time dirty_expire, wb_interval;
	struct sim_task *flusher;
	struct sim_event_src flush_ev;
	bool flush_armed;
	unsigned flush_inflight, flush_max_inflight;
	struct sim_io *blocked;  /* writers waiting in balance_dirty_pages */
	uint64_t *dirty_fifo;    /* (frame << 32 | seq) in dirtying order */
	size_t fifo_head, fifo_len, fifo_cap;
	uint32_t next_dirty_seq;
	uint64_t global_oom_kills;
	uint64_t swap_pages, swap_used; /* `set swap SIZE` (0: none, the reference machine) */
	struct sim_task *alloc_waiters; /* allocations waiting on writeback (mem.c) */
	size_t rec_size;         /* bytes of a frame's ownership record, design layout */
	struct sim_attribution attr;

	/* files and devices */
	struct sim_file **files;
	size_t nfiles;
	struct sim_dev *devs[SIM_MAX_DEV];
	size_t ndevs;
	struct ucg_blkdev blkdevs[SIM_MAX_DEV]; /* what the engine is told (must outlive it) */
	size_t nblkdevs;

	/* network */
	void *net;               /* net.c's state */

	/* `split`: the v2 layout's quota and weight division (v2split.c), or NULL */
	struct sim_v2split *v2split;

	/* sampling */
	sim_time sample_every;
	struct sim_event_src sample_ev;
	struct sim_sample *samples;
	size_t nsamples, csamples;
	struct ucg_buf csv_name;
};

/* ---- sim.c ---- */
int sim_schedule(struct sim *s, sim_time at, struct sim_event_src *src, uint64_t arg);
void sim_logf(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails the run: err = "file:line: what: strerror(-r)". Returns r. */
int sim_fail(struct sim *s, int line, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
struct sim_task *sim_task_find(struct sim *s, int tid);
struct sim_task *sim_task_by_name(struct sim *s, const char *name);
/* The same answer by a walk of every task: the index's fallback, and its tests' oracle. */
struct sim_task *sim_task_by_name_walk(struct sim *s, const char *name);
int sim_task_new(struct sim *s, const char *name, uint32_t uid, struct sim_task *parent,
		 bool kthread, struct sim_task **ret);
int sim_task_exit(struct sim *s, struct sim_task *t);
/* t wants d CPUs (0: none); the CPU model recomputes. */
void sim_task_set_demand(struct sim *s, struct sim_task *t, double d);
/* Brings t->cg[] up to date with the engine. */
void sim_task_refresh(struct sim *s, struct sim_task *t);
/* The cgroup of t in the hierarchy carrying controller ss, NULL if unbound. */
struct sim_cg *sim_task_cg(struct sim *s, struct sim_task *t, int ss);
/* The engine's cgroup of task t for controller ss (UCG_SS_*): NULL when ss is bound
 * nowhere or the engine no longer knows t (the charge calls then do nothing). */
struct ucg_cgroup *sim_task_ucg(struct sim *s, const struct sim_task *t, int ss);
struct sim_hier *sim_hier_of(struct sim *s, int ss);
struct sim_hier *sim_hier_by_name(struct sim *s, const char *name);

/* ---- cgroups.c: the simulator's data of the engine's cgroups ---- */
/* Registers the observer that hangs a struct sim_cg off each cgroup. */
int sim_cgroups_init(struct sim *s);
/* Unregisters it and frees every struct sim_cg (the live and the removed). */
void sim_cgroups_fini(struct sim *s);
/* The scenario mounted h as hi: the root's data learns its hierarchy. 0 or -ENOMEM. */
int sim_cgroups_mounted(struct sim *s, struct sim_hier *hi);
/* The data of engine cgroup cg; NULL for NULL or a cgroup the simulator has none of. */
/* A task's demand, life, affinity or memberships changed (anything but a CPU
 * timer's throttling): the CPU model recomputes and gathers the runnable tasks again. */
static inline void sim_cpu_changed(struct sim *s)
{
	s->cpu_dirty = true;
	s->cpu_inputs++;
}

static inline struct sim_cg *sim_cg_of(const struct sim *s, const struct ucg_cgroup *cg)
{
	return cg ? (struct sim_cg *)ucg_cgroup_priv(cg, s->obs_id) : NULL;
}
/* The live cgroup at path ("/a/b") of hi, NULL if absent. */
struct sim_cg *sim_cg_find(struct sim *s, struct sim_hier *hi, const char *path);
/* "/a/b": the engine's path of a live cgroup, the last one of a removed cgroup ("?" if
 * it could not be copied); valid until the next rename in its hierarchy. */
const char *sim_cg_path(struct sim_cg *cg);
/* Reads cg's control values again (the controllers' typed accessors). */
void sim_cg_reread(struct sim *s, struct sim_cg *cg);
/* Brings cg's control values up to date: the models ask before each use, and the
 * values are mostly current, so the test is inline. */
static inline void sim_cg_refresh(struct sim *s, struct sim_cg *cg)
{
	if (cg->cfg_epoch != s->cfg_epoch)
		sim_cg_reread(s, cg);
}
bool sim_cg_is_under(const struct sim_cg *cg, const struct sim_cg *ancestor);
/* Adds delta to cg and its ancestors with the given accessor. */
#define SIM_CG_UP(cg, field, delta)                                                    \
	do {                                                                           \
		struct sim_cg *c_ = (cg);                                              \
		for (; c_; c_ = c_->parent)                                            \
			c_->field += (delta);                                          \
	} while (0)

/* ---- cpu.c, cpu_account.c ---- */
void sim_cpu_init(struct sim *s);
void sim_cpu_fini(struct sim *s);
/* Moves the CPU model's clock to now (idle_ns counts every CPU's time; the time
 * tasks run is taken off it when it is settled). */
void sim_cpu_advance(struct sim *s, sim_time now);
/* Adds the CPU time accrued so far to the tasks, their cgroups and idle_ns (which
 * are otherwise behind: time accrues lazily). */
void sim_cpu_settle(struct sim *s);
/* The first step of sim_cpu_settle alone: each task's time up to now goes to its
 * pending time (rounded there, at the same instants whatever reads it later), not
 * yet to the task, its cgroups, or cpuacct. */
void sim_cpu_accrue(struct sim *s);
/* cg's quota_ns or brq may have changed: s->cg_bw follows. */
static inline void sim_cg_bw_note(struct sim *s, struct sim_cg *cg)
{
	s->cg_bw[cg->id] = cg->brq || cg->quota_ns > 0;
}
/* Adds what t ran and its cgroups' cpu_ns does not hold yet to them: before t
 * changes cgroups. */
void sim_cpu_cg_push(struct sim *s, struct sim_task *t);
/* t exited: its time accrues no more. */
void sim_cpu_task_exited(struct sim *s, struct sim_task *t);
/* sim_cpu_settle, then charges the CPU time so far to the cpuacct controller. */
void sim_cpu_flush(struct sim *s);
/* Recomputes the rates (after anything that changes demand or configuration) and
 * schedules the next change. */
void sim_cpu_update(struct sim *s);
/* Brings every cgroup's rate (sim_cg.rate) up to date before it is read: the rate of
 * a group without a quota is summed only when asked for (cpu_share.c). */
void sim_cpu_rates_fresh(struct sim *s);

/* ---- mem.c ---- */
int sim_mem_init(struct sim *s);
void sim_mem_fini(struct sim *s);
int sim_mem_alloc(struct sim *s, struct sim_task *t, uint64_t pages, int line);
int sim_mem_free(struct sim *s, struct sim_task *t, uint64_t pages);
int sim_mem_hugetlb(struct sim *s, struct sim_task *t, int64_t npages, int line);
/* Page cache: a stream touches pages [first, first+n) of f. */
int sim_cache_write(struct sim *s, struct sim_task *t, struct sim_file *f, uint64_t first,
		    uint64_t n);
/* Pages of f in [first, first+n) not cached: their count; caches them for t. */
uint64_t sim_cache_read(struct sim *s, struct sim_task *t, struct sim_file *f,
			uint64_t first, uint64_t n, bool fill);
bool sim_dirty_over_limit(struct sim *s);
void sim_flusher_kick(struct sim *s);
/* Writeback request done. */
void sim_writeback_done(struct sim *s, struct sim_req *r);
/* OOM: kill t (exit, free its memory). */
void sim_oom_kill(struct sim *s, struct sim_task *t, struct sim_cg *where, int line);
void sim_task_release_mem(struct sim *s, struct sim_task *t);

/* ---- frames.c: the frame store ---- */
static inline struct sim_frame *sim_fr(const struct sim *s, uint32_t f)
{
	return &s->frames[f];
}

static inline struct sim_frame_act *sim_fr_act(const struct sim *s, uint32_t f)
{
	return &s->frame_act[f];
}

static inline unsigned char *sim_fr_rec(const struct sim *s, uint32_t f)
{
	return s->records + (size_t)f * s->rec_size;
}

/* Makes sure `more` frames beyond those cached can be taken; -ENOMEM past RAM. */
int sim_frames_reserve(struct sim *s, uint64_t more);
/* A frame (after a reserve), its ownership record zeroed; the caller sets the rest. */
static inline uint32_t sim_frame_take(struct sim *s)
{
	uint32_t f = s->free_head;

	if (f != SIM_NO_FRAME) {
		s->free_head = s->frames[f].lru.next;
		return f;
	}
	f = s->nframes++;
	memset(sim_fr_rec(s, f), 0, s->rec_size); /* given-back frames had it cleared */
	return f;
}

/* Gives f back (its record already cleared). */
static inline void sim_frame_give(struct sim *s, uint32_t f)
{
	s->frames[f].lru.next = s->free_head;
	s->free_head = f;
}
/* Allocates the act-list links beside the frames (frame_act); false when out of
 * memory. They grow with the frames while act_on. */
bool sim_frames_act_alloc(struct sim *s);
/* The same for the dirty list's links (frame_dl), kept while dirty_on. */
bool sim_frames_dl_alloc(struct sim *s);
void sim_frames_fini(struct sim *s);

/* The frame of page i of f, SIM_NO_FRAME when not cached. */
static inline uint32_t sim_file_frame(const struct sim_file *f, uint64_t i)
{
	uint64_t c = i >> SIM_FILE_SHIFT;

	return c < f->nmap && f->map[c] ? f->map[c][i & SIM_FILE_MASK] : SIM_NO_FRAME;
}

/* ---- charging.c: the per-page ownership records ---- */
size_t sim_charging_record_size(enum sim_charging c);
/* Records on frame rec that task t (its cgroups resolved now) dirtied the page. */
void sim_charging_record(struct sim *s, unsigned char *rec, struct sim_task *t);
/* What a record takes from the task dirtying the page: each part resolved when a
 * record first needs it, then kept for the rest of a run of pages (nothing changes
 * the task's cgroups between them) */
struct sim_dirtier {
	struct sim_task *t;
	struct sim_cg *memcg, *blkcg;
	uint32_t consumer;
	unsigned have;           /* SIM_DIRTIER_* bits: the parts resolved */
};
#define SIM_DIRTIER_MEMCG 0x1u
#define SIM_DIRTIER_BLKCG 0x2u
#define SIM_DIRTIER_CONSUMER 0x4u

static inline void sim_dirtier_init(struct sim_dirtier *d, struct sim_task *t)
{
	d->t = t;
	d->memcg = d->blkcg = NULL; /* read only once `have` says so; cleared so that */
	d->consumer = 0;            /* the compiler need not prove it */
	d->have = 0;
}
struct sim_cg *sim_dirtier_blkcg(struct sim *s, struct sim_dirtier *d);
/* sim_charging_record for the task of d */
void sim_charging_record_as(struct sim *s, unsigned char *rec, struct sim_dirtier *d);
/* ... on the records of n frames */
void sim_charging_record_frames(struct sim *s, const uint32_t *frames, size_t n,
				struct sim_dirtier *d);
/* Whether sim_charging_resolve reads the record (else the page does not matter). */
bool sim_charging_by_record(const struct sim *s);
/* The blkio cgroup that pays for writing back a page with record rec, of file f, by
 * writer (the flusher or helper). NULL: root / nobody. *ret_orphan set when the
 * design could not resolve an owner (pid exited). */
struct sim_cg *sim_charging_resolve(struct sim *s, const unsigned char *rec,
				    struct sim_file *f, struct sim_task *writer,
				    bool *ret_orphan);
/* The memcg a refund of the page would go to under the design. */
struct sim_cg *sim_charging_refund_cg(struct sim *s, const unsigned char *rec,
				      const struct sim_frame *fr);
void sim_charging_clear(struct sim *s, unsigned char *rec);
/* inode design: note that t dirtied a page of f; decide the owner at writeback. */
void sim_charging_inode_dirty(struct sim *s, struct sim_file *f, struct sim_task *t);
/* ... n pages dirtied by blkio cgroup b */
void sim_charging_inode_dirty_n(struct sim_file *f, struct sim_cg *b, uint64_t n);
void sim_charging_inode_decide(struct sim *s, struct sim_file *f);
uint32_t sim_consumer_of(struct sim *s, struct sim_task *t);

/* ---- blk.c ---- */
int sim_dev_add(struct sim *s, const char *name, uint32_t major, uint32_t minor,
		uint64_t bps, uint32_t iops, struct sim_dev **ret);
struct sim_dev *sim_dev_find(struct sim *s, const char *name);
/* Submits a request; the device owns it until completion. */
void sim_blk_submit(struct sim *s, struct sim_req *r);
/* A stream of a task starts (or continues after a completion). */
void sim_io_pump(struct sim *s, struct sim_io *io);
int sim_io_start(struct sim *s, struct sim_task *t, int kind, struct sim_file *f,
		 struct sim_dev *d, uint64_t bytes, int line);
void sim_io_cancel(struct sim *s, struct sim_task *t);
void sim_blk_fini(struct sim *s);

/* ---- net.c ---- */
int sim_net_init(struct sim *s);
void sim_net_fini(struct sim *s);
bool sim_net_available(void);
int sim_net_tc(struct sim *s, int argc, char **argv, int line);
int sim_net_flow(struct sim *s, struct sim_task *t, const char *iface, uint64_t npkts,
		 uint32_t size, uint64_t rate_bps, uint16_t dport, int line);
int sim_net_iface(struct sim *s, const char *name, uint64_t rate_bps, int line);
/* Appends the interfaces table (nothing when the scenario used no network). */
int sim_net_format(struct sim *s, struct ucg_buf *out);

/* ---- report.c ---- */
void sim_sample_take(struct sim *s);
void sim_samples_fini(struct sim *s);

/* ---- scenario_parse.c ---- */
/* "0-1,3" into bits; 0 or -EINVAL (CPUs 0..63 only). */
int sim_cpulist_parse(const char *list, uint64_t *ret);
int sim_scenario_parse(struct sim *s, const char *filename, const char *text, size_t len,
		       struct sim_err *err);
void sim_scenario_fini(struct sim *s);
/* ---- scenario_exec.c ---- */
/* Runs one command now. 0 or -errno (the run stops; err is set). */
int sim_cmd_exec(struct sim *s, struct sim_cmd *c);

#endif
