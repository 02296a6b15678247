/* tests/harness.h — the project's tiny unit-test harness.
 *
 * A test program is a list of cases run with T_RUN(fn). A case passes when none of
 * its checks failed, fails otherwise, and is skipped when it calls T_SKIP(reason).
 * The program's last line is "RESULT passed=N failed=N skipped=N"; tests/run adds
 * those lines up across the suite. Exit status is 1 if any case failed, else 0
 * (77, meson's "skipped", when every case skipped).
 */
#ifndef UCG_TESTS_HARNESS_H
#define UCG_TESTS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

struct t_state {
	int passed, failed, skipped;
	int case_failed, case_skipped;
	const char *case_name;
};
static struct t_state t_state;

#define T_FAIL_AT(fmt, ...)                                                            \
	do {                                                                           \
		fprintf(stderr, "  FAIL %s (%s:%d): " fmt "\n", t_state.case_name,      \
			__FILE__, __LINE__, __VA_ARGS__);                              \
		t_state.case_failed = 1;                                               \
	} while (0)

#define T_CHECK(cond)                                                                  \
	do {                                                                           \
		if (!(cond))                                                           \
			T_FAIL_AT("%s", #cond);                                        \
	} while (0)

#define T_EQ_INT(a, b)                                                                 \
	do {                                                                           \
		long long t_a_ = (long long)(a), t_b_ = (long long)(b);                 \
		if (t_a_ != t_b_)                                                      \
			T_FAIL_AT("%s == %lld, want %s == %lld", #a, t_a_, #b, t_b_);   \
	} while (0)

#define T_EQ_STR(a, b)                                                                 \
	do {                                                                           \
		const char *t_a_ = (a), *t_b_ = (b);                                   \
		if (!t_a_ || !t_b_ || strcmp(t_a_, t_b_) != 0)                         \
			T_FAIL_AT("%s is \"%s\", want \"%s\"", #a, t_a_ ? t_a_ : "(null)", \
				  t_b_ ? t_b_ : "(null)");                             \
	} while (0)

/* Skip the current case: say why on stdout, in one clear line. */
#define T_SKIP(reason)                                                                 \
	do {                                                                           \
		printf("SKIP %s: %s\n", t_state.case_name, (reason));                  \
		t_state.case_skipped = 1;                                              \
		return;                                                                \
	} while (0)

#define T_RUN(fn)                                                                      \
	do {                                                                           \
		t_state.case_name = #fn;                                               \
		t_state.case_failed = t_state.case_skipped = 0;                        \
		fn();                                                                  \
		if (t_state.case_failed) {                                             \
			t_state.failed++;                                              \
			printf("FAIL %s\n", #fn);                                      \
		} else if (t_state.case_skipped) {                                     \
			t_state.skipped++;                                             \
		} else {                                                               \
			t_state.passed++;                                              \
			printf("ok   %s\n", #fn);                                      \
		}                                                                      \
	} while (0)

static inline int t_done(void)
{
	printf("RESULT passed=%d failed=%d skipped=%d\n", t_state.passed, t_state.failed,
	       t_state.skipped);
	fflush(stdout);
	if (t_state.failed)
		return 1;
	if (t_state.skipped && !t_state.passed)
		return 77;
	return 0;
}

#endif
