/* sim/scenario_impl.h — what the scenario language's two files share:
 * scenario_parse.c (reading a file into compiled commands, the parse-time checks) and
 * scenario_exec.c (running a command when it fires). The language is described at the
 * top of scenario_parse.c. */
#ifndef UCG_SIM_SCENARIO_IMPL_H
#define UCG_SIM_SCENARIO_IMPL_H

#include "sim/sim_impl.h"

#define SIM_SCN_MAX_WORDS 64 /* words on a line, the verb included */

/* The verbs, one list: X(ID, name, least and most arguments (words after the verb),
 * parse-time check in scenario_parse.c or NULL, action in scenario_exec.c, how many
 * leading arguments are NAME/path words compiled at load). */
#define SIM_VERBS(X)                                                                               \
	X(MOUNT, "mount", 3, 3, ck_mount, ex_mount, 0)                                             \
	X(MKDIR, "mkdir", 1, 1, NULL, ex_mkdir, 1)                                                 \
	X(RMDIR, "rmdir", 1, 1, NULL, ex_rmdir, 1)                                                 \
	X(MV, "mv", 2, 2, NULL, ex_mv, 2)                                                          \
	X(ECHO, "echo", 2, SIM_SCN_MAX_WORDS, ck_echo, ex_echo, 0)                                 \
	X(CAT, "cat", 1, 1, NULL, ex_cat, 1)                                                       \
	X(TC, "tc", 1, SIM_SCN_MAX_WORDS, NULL, ex_tc, 0)                                          \
	X(CPUS, "cpus", 1, 1, ck_cpus, ex_cpus, 0)                                                 \
	X(MEMORY, "memory", 1, 1, ck_memory, ex_memory, 0)                                         \
	X(SET, "set", 2, 2, ck_set, ex_set, 0)                                                     \
	X(DEVICE, "device", 2, 4, ck_device, ex_device, 0)                                         \
	X(MD, "md", 2, 5, ck_md, ex_md, 0)                                                         \
	X(FILE, "file", 2, 2, ck_file, ex_file, 0)                                                 \
	X(IFACE, "iface", 1, 2, ck_iface, ex_iface, 0)                                             \
	X(SPAWN, "spawn", 1, 2, ck_spawn, ex_spawn, 0)                                             \
	X(FORK, "fork", 2, 2, NULL, ex_fork, 0)                                                    \
	X(EXIT, "exit", 1, 1, NULL, ex_exit, 0)                                                    \
	X(BUSY, "busy", 1, 2, ck_busy, ex_busy, 0)                                                 \
	X(IDLE, "idle", 1, 1, NULL, ex_idle, 0)                                                    \
	X(TASKSET, "taskset", 2, 2, ck_taskset, ex_taskset, 0)                                     \
	X(ALLOC, "alloc", 2, 2, ck_alloc, ex_alloc, 0)                                             \
	X(FREE, "free", 2, 2, ck_alloc, ex_alloc, 0)                                               \
	X(HUGETLB, "hugetlb", 2, 2, ck_hugetlb, ex_hugetlb, 0)                                     \
	X(WRITE, "write", 3, 4, ck_io, ex_io, 0)                                                   \
	X(READ, "read", 3, 4, ck_io, ex_io, 0)                                                     \
	X(FLOW, "flow", 3, 6, ck_flow, ex_flow, 0)                                                 \
	X(NOTE, "note", 0, SIM_SCN_MAX_WORDS, NULL, ex_note, 0)                                    \
	X(NOTIFY, "notify", 1, 2, NULL, ex_notify, 1)                                              \
	X(EVENTS, "events", 0, 0, NULL, ex_events, 0)                                              \
	X(SPLIT, "split", 2, SIM_SCN_MAX_WORDS, ck_split, ex_split, 0)

#define SIM_VERB_ID(id, name, min, max, check, exec, npaths) SIM_VERB_##id,
enum sim_verb { SIM_VERBS(SIM_VERB_ID) SIM_VERB_NR };
#undef SIM_VERB_ID

/* scenario_parse.c: the words' number forms, which the actions read again (the checks
 * at load have refused every malformed one). 0 or -EINVAL; *ret set only on success. */
/* A size: digits, an optional K, M, G or T (powers of 1024), an optional B. */
int sim_parse_size(const char *p, uint64_t *ret);
/* A rate: "10Mbit" (bits/s, powers of 1000, stored as bytes/s) or a size (bytes/s). */
int sim_parse_rate(const char *p, uint64_t *ret);
/* A decimal integer at most max. */
int sim_parse_uint(const char *p, uint64_t max, uint64_t *ret);
/* A CPU demand: a fraction from 0 to 1. */
int sim_parse_cpus_frac(const char *p, double *ret);
/* The value of "key=value" among argv, NULL if absent. */
const char *sim_opt_find(int argc, char **argv, const char *key);

/* scenario_exec.c: a command's event firing (struct sim_cmd.ev.fire). */
void sim_cmd_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);

#endif
