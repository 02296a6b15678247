/* controllers/test_counter.c — the hierarchical counter (docs/kernel/controllers.md §4.2 limit
 * rules, §11 hugetlb, §12 pids; the page_counter model in counter.c). */
#include <errno.h>

#include "controllers/counter.h"
#include "harness.h"

static void test_constants(void)
{
	T_CHECK(UCG_MEMMAX == UINT64_C(9223372036854771712));
	T_CHECK(UCG_PAGE_COUNTER_MAX == UINT64_C(2251799813685247));
}

static void test_init(void)
{
	struct ucg_counter root, c;

	ucg_counter_init(&root, NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&c, &root, 10);
	T_EQ_INT(c.usage, 0);
	T_EQ_INT(c.watermark, 0);
	T_EQ_INT(c.failcnt, 0);
	T_EQ_INT(c.max, 10);
	T_CHECK(c.parent == &root);
	T_CHECK(root.parent == NULL);
	T_CHECK(root.max * UCG_PAGE_SIZE == UCG_MEMMAX);
}

static void test_charge_goes_up(void)
{
	struct ucg_counter r, a, b;
	struct ucg_counter *failed = NULL;

	ucg_counter_init(&r, NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&a, &r, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&b, &a, UCG_PAGE_COUNTER_MAX);
	T_EQ_INT(ucg_counter_try_charge(&b, 5, &failed), 0);
	T_CHECK(failed == NULL);
	T_EQ_INT(b.usage, 5);
	T_EQ_INT(a.usage, 5);
	T_EQ_INT(r.usage, 5);
	T_EQ_INT(ucg_counter_try_charge(&a, 3, NULL), 0);
	T_EQ_INT(b.usage, 5);
	T_EQ_INT(a.usage, 8);
	T_EQ_INT(r.usage, 8);
	T_EQ_INT(r.watermark, 8);
	T_EQ_INT(ucg_counter_uncharge(&b, 5), 0);
	T_EQ_INT(b.usage, 0);
	T_EQ_INT(a.usage, 3);
	T_EQ_INT(r.usage, 3);
	T_EQ_INT(b.watermark, 5); /* max_usage keeps the high-water mark */
	T_EQ_INT(r.watermark, 8);
}

/* usage + n may equal max; one more fails at that level, whose failcnt counts it. */
static void test_limit_exact_and_failcnt(void)
{
	struct ucg_counter r, c;
	struct ucg_counter *failed = NULL;

	ucg_counter_init(&r, NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&c, &r, 4);
	T_EQ_INT(ucg_counter_try_charge(&c, 4, &failed), 0);
	T_EQ_INT(ucg_counter_try_charge(&c, 1, &failed), -ENOMEM);
	T_CHECK(failed == &c);
	T_EQ_INT(c.failcnt, 1);
	T_EQ_INT(r.failcnt, 0);
	T_EQ_INT(c.usage, 4);
	T_EQ_INT(r.usage, 4);
	/* every refused attempt counts (the kernel retries after reclaim: failcnt 34) */
	T_EQ_INT(ucg_counter_try_charge(&c, 1, NULL), -ENOMEM);
	T_EQ_INT(ucg_counter_try_charge(&c, 2, NULL), -ENOMEM);
	T_EQ_INT(c.failcnt, 3);
	ucg_counter_reset_failcnt(&c);
	T_EQ_INT(c.failcnt, 0);
	T_EQ_INT(c.usage, 4);
}

/* An ancestor refuses: lower levels are rolled back, the ancestor is named and only
 * its failcnt grows; the lower levels' watermarks stay raised (pids.peak quirk). */
static void test_ancestor_refuses_rolls_back(void)
{
	struct ucg_counter r, p, c, g;
	struct ucg_counter *failed = NULL;

	ucg_counter_init(&r, NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&p, &r, 3);
	ucg_counter_init(&c, &p, UCG_PAGE_COUNTER_MAX); /* no limit of its own */
	ucg_counter_init(&g, &c, UCG_PAGE_COUNTER_MAX);
	T_EQ_INT(ucg_counter_try_charge(&g, 3, NULL), 0);
	T_EQ_INT(ucg_counter_try_charge(&g, 1, &failed), -ENOMEM);
	T_CHECK(failed == &p);
	T_EQ_INT(p.failcnt, 1);
	T_EQ_INT(g.failcnt, 0);
	T_EQ_INT(c.failcnt, 0);
	T_EQ_INT(r.failcnt, 0);
	T_EQ_INT(g.usage, 3);
	T_EQ_INT(c.usage, 3);
	T_EQ_INT(p.usage, 3);
	T_EQ_INT(r.usage, 3);
	T_EQ_INT(g.watermark, 4); /* peak 4 under a parent whose max is 3 */
	T_EQ_INT(c.watermark, 4);
	T_EQ_INT(p.watermark, 3);
	T_EQ_INT(r.watermark, 3);
}

static void test_failed_pointer_untouched_on_success(void)
{
	struct ucg_counter r;
	struct ucg_counter *failed = (struct ucg_counter *)&failed;

	ucg_counter_init(&r, NULL, 10);
	T_EQ_INT(ucg_counter_try_charge(&r, 10, &failed), 0);
	T_CHECK(failed == (struct ucg_counter *)&failed);
}

static void test_charge_overflow(void)
{
	struct ucg_counter r;

	ucg_counter_init(&r, NULL, UINT64_MAX);
	T_EQ_INT(ucg_counter_try_charge(&r, UINT64_MAX - 1, NULL), 0);
	T_EQ_INT(ucg_counter_try_charge(&r, 2, NULL), -ENOMEM); /* would wrap */
	T_EQ_INT(ucg_counter_try_charge(&r, 1, NULL), 0);
	T_CHECK(r.usage == UINT64_MAX);
	ucg_counter_init(&r, NULL, 5);
	T_EQ_INT(ucg_counter_try_charge(&r, UINT64_MAX, NULL), -ENOMEM);
	T_EQ_INT(r.usage, 0);
	T_EQ_INT(ucg_counter_try_charge(&r, 0, NULL), 0);
}

/* pids: attaching ignores the limit (max 0, current 1 -> 2). */
static void test_unconditional_charge(void)
{
	struct ucg_counter r, c;

	ucg_counter_init(&r, NULL, UINT64_MAX);
	ucg_counter_init(&c, &r, 0);
	ucg_counter_charge(&c, 1);
	ucg_counter_charge(&c, 1);
	T_EQ_INT(c.usage, 2);
	T_EQ_INT(r.usage, 2);
	T_EQ_INT(c.watermark, 2);
	T_EQ_INT(c.failcnt, 0);
	T_EQ_INT(ucg_counter_try_charge(&c, 1, NULL), -ENOMEM);
	ucg_counter_charge(&r, UINT64_MAX); /* saturates */
	T_CHECK(r.usage == UINT64_MAX);
}

static void test_uncharge_underflow(void)
{
	struct ucg_counter r, c;

	ucg_counter_init(&r, NULL, 100);
	ucg_counter_init(&c, &r, 100);
	T_EQ_INT(ucg_counter_try_charge(&c, 2, NULL), 0);
	ucg_counter_charge(&r, 5);
	T_EQ_INT(ucg_counter_uncharge(&c, 3), -ERANGE);
	T_EQ_INT(c.usage, 0);
	T_EQ_INT(r.usage, 4);
}

/* memory.limit_in_bytes below usage: EBUSY and the old limit stays; at usage it is
 * fine; limit 0 only on an empty counter. */
static void test_set_max(void)
{
	struct ucg_counter r, c;

	ucg_counter_init(&r, NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&c, &r, UCG_PAGE_COUNTER_MAX);
	T_EQ_INT(ucg_counter_set_max(&c, 0), 0);
	T_EQ_INT(ucg_counter_set_max(&c, 100), 0);
	T_EQ_INT(ucg_counter_try_charge(&c, 50, NULL), 0);
	T_EQ_INT(ucg_counter_set_max(&c, 10), -EBUSY);
	T_EQ_INT(c.max, 100);
	T_EQ_INT(ucg_counter_set_max(&c, 50), 0);
	T_EQ_INT(c.max, 50);
	T_EQ_INT(ucg_counter_set_max(&c, 0), -EBUSY);
	/* after "reclaim" the same write succeeds */
	T_EQ_INT(ucg_counter_uncharge(&c, 50), 0);
	T_EQ_INT(ucg_counter_set_max(&c, 0), 0);
	/* a child's limit may exceed its parent's */
	ucg_counter_set_max_unchecked(&r, 10);
	T_EQ_INT(ucg_counter_set_max(&c, 1000), 0);
	T_EQ_INT(ucg_counter_hierarchical_max(&c), 10);
	T_EQ_INT(ucg_counter_try_charge(&c, 11, NULL), -ENOMEM);
	T_EQ_INT(r.failcnt, 1);
}

/* pids.max below current is allowed; new charges then fail. */
static void test_set_max_unchecked(void)
{
	struct ucg_counter c;

	ucg_counter_init(&c, NULL, 100);
	ucg_counter_charge(&c, 5);
	ucg_counter_set_max_unchecked(&c, 2);
	T_EQ_INT(c.max, 2);
	T_EQ_INT(c.usage, 5);
	T_EQ_INT(ucg_counter_try_charge(&c, 1, NULL), -ENOMEM);
	T_EQ_INT(ucg_counter_uncharge(&c, 4), 0);
	T_EQ_INT(ucg_counter_try_charge(&c, 1, NULL), 0);
}

/* max_usage write: watermark = current usage, not 0. */
static void test_reset_watermark(void)
{
	struct ucg_counter c;

	ucg_counter_init(&c, NULL, UCG_PAGE_COUNTER_MAX);
	T_EQ_INT(ucg_counter_try_charge(&c, 44, NULL), 0);
	T_EQ_INT(ucg_counter_uncharge(&c, 12), 0);
	T_EQ_INT(c.watermark, 44);
	ucg_counter_reset_watermark(&c);
	T_EQ_INT(c.watermark, 32);
	T_EQ_INT(c.usage, 32);
}

static void test_hierarchical_max(void)
{
	struct ucg_counter r, a, b;

	ucg_counter_init(&r, NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&a, &r, 7);
	ucg_counter_init(&b, &a, 9);
	T_EQ_INT(ucg_counter_hierarchical_max(&b), 7);
	T_EQ_INT(ucg_counter_hierarchical_max(&a), 7);
	T_CHECK(ucg_counter_hierarchical_max(&r) == UCG_PAGE_COUNTER_MAX);
}

/* A deep chain: the charge reaches the root, the refusal at the root rolls back all
 * 64 levels. */
static void test_deep_chain(void)
{
	struct ucg_counter c[65];
	struct ucg_counter *failed = NULL;

	ucg_counter_init(&c[0], NULL, 100);
	for (int i = 1; i < 65; i++)
		ucg_counter_init(&c[i], &c[i - 1], UCG_PAGE_COUNTER_MAX);
	T_EQ_INT(ucg_counter_try_charge(&c[64], 100, NULL), 0);
	T_EQ_INT(ucg_counter_try_charge(&c[64], 1, &failed), -ENOMEM);
	T_CHECK(failed == &c[0]);
	for (int i = 0; i < 65; i++)
		T_EQ_INT(c[i].usage, 100);
	T_EQ_INT(ucg_counter_uncharge(&c[64], 100), 0);
	for (int i = 0; i < 65; i++)
		T_EQ_INT(c[i].usage, 0);
}

int main(void)
{
	T_RUN(test_constants);
	T_RUN(test_init);
	T_RUN(test_charge_goes_up);
	T_RUN(test_limit_exact_and_failcnt);
	T_RUN(test_ancestor_refuses_rolls_back);
	T_RUN(test_failed_pointer_untouched_on_success);
	T_RUN(test_charge_overflow);
	T_RUN(test_unconditional_charge);
	T_RUN(test_uncharge_underflow);
	T_RUN(test_set_max);
	T_RUN(test_set_max_unchecked);
	T_RUN(test_reset_watermark);
	T_RUN(test_hierarchical_max);
	T_RUN(test_deep_chain);
	return t_done();
}
