/* fs/test_fcache.c — the per-mount table of described files. */
#include "fs/fcache.h"

#include "harness.h"

static void get_find_del(void)
{
	struct ucgfs_fcache c;
	struct ucgfs_fcache_ent *e;
	uint64_t i;

	ucgfs_fcache_init(&c);
	T_CHECK(ucgfs_fcache_find(&c, 7) == NULL);
	for (i = 1; i <= 1000; i++) {
		e = ucgfs_fcache_get(&c, i * 4096 + 3);
		T_CHECK(e && e->ino == i * 4096 + 3 && !e->told && !e->ver);
		if (e)
			e->ver = (uint32_t)i;
	}
	/* get finds an existing entry and keeps it */
	e = ucgfs_fcache_get(&c, 500 * 4096 + 3);
	T_EQ_INT(e ? e->ver : 0, 500);
	for (i = 1; i <= 1000; i += 2)
		ucgfs_fcache_del(&c, i * 4096 + 3);
	for (i = 1; i <= 1000; i++) {
		e = ucgfs_fcache_find(&c, i * 4096 + 3);
		if (i % 2)
			T_CHECK(e == NULL);
		else
			T_EQ_INT(e ? e->ver : 0, i);
	}
	ucgfs_fcache_del(&c, 12345); /* absent: nothing happens */
	ucgfs_fcache_fini(&c);
}

static void count_one(struct ucgfs_fcache_ent *e, void *ctx)
{
	*(uint64_t *)ctx += e->ino;
	e->told = 1;
}

static void each_visits_all(void)
{
	struct ucgfs_fcache c;
	uint64_t sum = 0, i;

	ucgfs_fcache_init(&c);
	for (i = 1; i <= 100; i++)
		ucgfs_fcache_get(&c, i);
	ucgfs_fcache_each(&c, count_one, &sum);
	T_EQ_INT(sum, 5050);
	T_CHECK(ucgfs_fcache_find(&c, 42) && ucgfs_fcache_find(&c, 42)->told);
	ucgfs_fcache_fini(&c);
}

static void snapshots(void)
{
	struct ucgfs_fcache c;
	struct ucgfs_fcache_ent *e;

	ucgfs_fcache_init(&c);
	e = ucgfs_fcache_get(&c, 9);
	T_EQ_INT(ucgfs_fcache_set_snap(e, "1024\n", 5), 0);
	T_CHECK(e->has_snap && e->len == 5 && !memcmp(e->snap, "1024\n", 5));
	T_EQ_INT(ucgfs_fcache_set_snap(e, "", 0), 0); /* empty content is a snapshot too */
	T_CHECK(e->has_snap && e->len == 0);
	T_CHECK(ucgfs_fcache_hash("99\n", 3) != ucgfs_fcache_hash("100\n", 4));
	T_EQ_INT(ucgfs_fcache_hash("abc", 3), ucgfs_fcache_hash("abc", 3));
	ucgfs_fcache_del(&c, 9); /* frees the snapshot (ASan checks) */
	e = ucgfs_fcache_get(&c, 10);
	ucgfs_fcache_set_snap(e, "x\n", 2);
	ucgfs_fcache_fini(&c); /* and so does fini */
}

int main(void)
{
	T_RUN(get_find_del);
	T_RUN(each_visits_all);
	T_RUN(snapshots);
	return t_done();
}
