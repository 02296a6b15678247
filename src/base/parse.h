/* base/parse.h — strict number parsers with the kernel's acceptance rules.
 *
 * All take (data, len) as written to a file: the text ends at len or at the first NUL,
 * whichever comes first (the kernel ignores what follows a NUL). They return 0 and
 * write *ret only on success, else -EINVAL or -ERANGE.
 */
#ifndef UCG_BASE_PARSE_H
#define UCG_BASE_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* U64 class (kstrtoull base 0): optional '+', 0x hex, leading-0 octal, at most one
 * trailing '\n', no other whitespace. -ERANGE past 2^64-1. */
int ucg_parse_u64(const char *data, size_t len, uint64_t *ret);
/* S64 class: as U64 with an optional '-'. -ERANGE outside int64. */
int ucg_parse_s64(const char *data, size_t len, int64_t *ret);
/* A pid written to cgroup.procs/tasks: surrounding whitespace stripped, then one C
 * integer in [0, INT_MAX]. Everything else, out of range included, is -EINVAL. */
int ucg_parse_pid(const char *data, size_t len, int *ret);

/* Length of data up to the first NUL or len. */
size_t ucg_text_len(const char *data, size_t len);

#endif
