/* controllers/blkio.c — the blkio controller as 6.18 shows it: BFQ proportional
 * weight and throttling (docs/kernel/controllers.md §9).
 *
 * Model. A cgroup keeps one "blkg" per block device it has state for, in a list with
 * the most recently created first (the order the kernel lists them in). A blkg is
 * created when a rule naming the device is written — even when the value then turns
 * out invalid, as the kernel does — or when I/O is accounted, and creating one in a
 * cgroup creates it in every ancestor too; the root has one for every device from the
 * start. A blkg never goes away while its cgroup lives, so a device stays in the stat
 * blocks after its rule is removed.
 *
 * Throttling: per device read/write bps (u64) and iops (u32). A write is
 * "MAJ:MIN V": MAJ and MIN as the kernel's sscanf("%u:%u") reads them (spaces allowed
 * before each number, digits only, wrapping modulo 2^32), then at least one space;
 * the device must exist (ENODEV) — the blkg is made at this point — then V as
 * sscanf("%llu") (wrapping modulo 2^64, stopping at the first non-digit). V = 0 means
 * "no limit", as do 2^64-1 (bps) and, once truncated to 32 bits, 2^32-1 (iops); so an
 * iops of 2^32 is stored as 0, a rule that blocks all I/O (the kernel's quirk, kept).
 * The limits that apply to a cgroup's I/O are the smallest along its path to the root.
 *
 * Weight (bfq): blkio.bfq.weight 1..1000 (ERANGE outside), default 100, children only,
 * not inherited; blkio.bfq.weight_device "MAJ:MIN W" sets a per-device override,
 * "MAJ:MIN default" removes it, "W" or "default W" sets bfq.weight. The device must
 * use bfq (EOPNOTSUPP), which is checked before the value is read.
 *
 * Statistics: for each blkg, bytes and ios by Read, Write, Sync, Async, Discard; a
 * device's Total is Read + Write + Discard (= Sync + Async), and the grand "Total" is
 * the sum of the device totals. Throttle statistics count all I/O; bfq statistics
 * only I/O on bfq devices, and blkio.reset_stats clears only those. The _recursive
 * files sum each device over the subtree.
 *
 * Limits of the model: the engine stores and reports the rules; enforcing them in
 * time (the token buckets) and dividing bandwidth by weight is the simulator's job,
 * through ucg_blkio_limits(). No CFQ files (gone since 5.0), no io.* v2 files.
 */
#include "base/alloc.h"
#include "base/kctype.h"
#include "controllers/charge.h"
#include "engine/cgroup.h"
#include "engine/hierarchy.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define BFQ_DEFAULT_WEIGHT 100
#define BFQ_MIN_WEIGHT 1
#define BFQ_MAX_WEIGHT 1000

enum { IO_READ, IO_WRITE, IO_SYNC, IO_ASYNC, IO_DISCARD, NR_IOSTAT };
static const char *const iostat_names[NR_IOSTAT] = { "Read", "Write", "Sync", "Async",
						     "Discard" };

/* Which statistics a file shows (private). */
enum { STAT_THROTL_BYTES, STAT_THROTL_IOS, STAT_BFQ_BYTES, STAT_BFQ_IOS };
/* Which rule a throttle file sets (private). */
enum { TH_READ_BPS, TH_WRITE_BPS, TH_READ_IOPS, TH_WRITE_IOPS };

struct blkg {
	struct ucg_list node; /* in blkcg->blkgs, newest first */
	uint32_t major, minor;
	int bfq;
	uint64_t bps[2];  /* read, write; UINT64_MAX: no rule */
	uint32_t iops[2]; /* read, write; UINT32_MAX: no rule */
	unsigned weight;  /* bfq weight_device override; 0: none */
	/* [0] throttle, [1] bfq; [bytes=0 / ios=1][IO_*] */
	uint64_t stat[2][2][NR_IOSTAT];
};

struct blkcg {
	struct ucg_css css;
	struct ucg_list blkgs; /* owned; struct blkg */
	unsigned weight;       /* blkio.bfq.weight (children) */
	struct blkcg *parent;  /* NULL at the root */
};

static const struct ucg_blkdev default_blkdevs[] = {
	{ 7, 0, 1 }, { 7, 1, 1 }, { 7, 2, 1 }, { 7, 3, 1 }, { 7, 4, 1 },
	{ 7, 5, 1 }, { 7, 6, 1 }, { 7, 7, 1 }, { 253, 0, 0 }, { 254, 0, 0 },
};

static struct blkcg *css_blkcg(struct ucg_css *css)
{
	return ucg_container_of(css, struct blkcg, css);
}

static struct blkcg *cgroup_blkcg(struct ucg_cgroup *cg)
{
	return css_blkcg(cg->css[UCG_SS_blkio]);
}

static const struct ucg_blkdev *find_dev(const struct ucg_engine *e, uint32_t major,
					 uint32_t minor)
{
	const struct ucg_blkdev *d = e->cfg.blkdevs ? e->cfg.blkdevs : default_blkdevs;
	size_t i, n = e->cfg.blkdevs ? e->cfg.nr_blkdevs
				     : sizeof(default_blkdevs) / sizeof(default_blkdevs[0]);

	for (i = 0; i < n; i++)
		if (d[i].major == major && d[i].minor == minor)
			return &d[i];
	return NULL;
}

static struct blkg *blkg_find(struct blkcg *b, uint32_t major, uint32_t minor)
{
	struct ucg_list *pos;

	ucg_list_for_each(pos, &b->blkgs) {
		struct blkg *g = ucg_container_of(pos, struct blkg, node);

		if (g->major == major && g->minor == minor)
			return g;
	}
	return NULL;
}

static struct blkg *blkg_new(const struct ucg_blkdev *dev)
{
	struct blkg *g = ucg_calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	ucg_list_init(&g->node);
	g->major = dev->major;
	g->minor = dev->minor;
	g->bfq = dev->bfq != 0;
	g->bps[0] = g->bps[1] = UINT64_MAX;
	g->iops[0] = g->iops[1] = UINT32_MAX;
	return g;
}

static void blkg_link(struct blkcg *b, struct blkg *g)
{
	/* newest first */
	g->node.next = b->blkgs.next;
	g->node.prev = &b->blkgs;
	b->blkgs.next->prev = &g->node;
	b->blkgs.next = &g->node;
}

/* The blkg of dev in b, creating it there and in every ancestor that lacks one. All
 * or nothing: -ENOMEM leaves no new blkg anywhere. */
static int blkg_lookup_create(struct blkcg *b, const struct ucg_blkdev *dev, struct blkg **ret)
{
	struct ucg_list fresh, *pos, *next;
	struct blkcg *it;

	/* allocate one blkg per cgroup on the path that lacks one, then link them all */
	ucg_list_init(&fresh);
	for (it = b; it; it = it->parent) {
		struct blkg *g;

		if (blkg_find(it, dev->major, dev->minor))
			continue;
		g = blkg_new(dev);
		if (!g) {
			ucg_list_for_each_safe(pos, next, &fresh)
				ucg_free(ucg_container_of(pos, struct blkg, node));
			return -ENOMEM;
		}
		ucg_list_add_tail(&fresh, &g->node);
	}
	pos = fresh.next;
	for (it = b; it && pos != &fresh; it = it->parent) {
		if (blkg_find(it, dev->major, dev->minor))
			continue;
		next = pos->next;
		blkg_link(it, ucg_container_of(pos, struct blkg, node));
		pos = next;
	}
	*ret = blkg_find(b, dev->major, dev->minor);
	return 0;
}

/* ---- life cycle ---------------------------------------------------------------------- */

static int blkio_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	struct blkcg *b = css_blkcg(css);

	ucg_list_init(&b->blkgs);
	b->weight = BFQ_DEFAULT_WEIGHT;
	b->parent = parent ? css_blkcg(parent) : NULL;
	return 0;
}

static int blkio_css_online(struct ucg_css *css)
{
	struct blkcg *b = css_blkcg(css);
	const struct ucg_engine *e = css->cgroup->h->e;
	const struct ucg_blkdev *d = e->cfg.blkdevs ? e->cfg.blkdevs : default_blkdevs;
	size_t i, n = e->cfg.blkdevs ? e->cfg.nr_blkdevs
				     : sizeof(default_blkdevs) / sizeof(default_blkdevs[0]);

	if (b->parent)
		return 0;
	/* the root has state for every device from the start */
	for (i = 0; i < n; i++) {
		struct blkg *g = blkg_new(&d[i]);

		if (!g)
			return -ENOMEM; /* css_free releases what was linked */
		blkg_link(b, g);
	}
	return 0;
}

static void blkio_css_free(struct ucg_css *css)
{
	struct blkcg *b = css_blkcg(css);
	struct ucg_list *pos, *tmp;

	if (!b->blkgs.next)
		return;
	ucg_list_for_each_safe(pos, tmp, &b->blkgs)
		ucg_free(ucg_container_of(pos, struct blkg, node));
	ucg_list_init(&b->blkgs);
}

/* ---- parsing ------------------------------------------------------------------------- */

/* The kernel's vsscanf for one unsigned conversion: skips whitespace, needs a digit,
 * reads decimal digits wrapping modulo 2^64. Returns the position after, or NULL. */
static const char *scan_u64(const char *s, const char *end, uint64_t *ret)
{
	uint64_t v = 0;

	while (s < end && ucg_kisspace((unsigned char)*s))
		s++;
	if (s == end || !ucg_kisdigit((unsigned char)*s))
		return NULL;
	while (s < end && ucg_kisdigit((unsigned char)*s))
		v = v * 10 + (uint64_t)(*s++ - '0');
	*ret = v;
	return s;
}

/* "MAJ:MIN" then at least one space; returns the body (spaces skipped) or NULL. */
static const char *parse_key(const char *s, const char *end, uint32_t *major, uint32_t *minor)
{
	uint64_t a, b;

	while (s < end && ucg_kisspace((unsigned char)*s))
		s++;
	s = scan_u64(s, end, &a);
	if (!s || s == end || *s != ':')
		return NULL;
	s = scan_u64(s + 1, end, &b);
	if (!s || s == end || !ucg_kisspace((unsigned char)*s))
		return NULL;
	while (s < end && ucg_kisspace((unsigned char)*s))
		s++;
	*major = (uint32_t)a;
	*minor = (uint32_t)b;
	return s;
}

/* Resolves the key and makes the blkg: the kernel's blkg_conf_prep. */
static int conf_prep(struct ucg_of *of, const char *buf, size_t len, int need_bfq,
		     struct blkg **ret_g, const char **ret_body)
{
	const char *end = buf + len, *body;
	const struct ucg_blkdev *dev;
	uint32_t major, minor;

	body = parse_key(buf, end, &major, &minor);
	if (!body)
		return -EINVAL;
	dev = find_dev(of->e, major, minor);
	if (!dev)
		return -ENODEV;
	if (need_bfq && !dev->bfq)
		return -EOPNOTSUPP;
	*ret_body = body;
	return blkg_lookup_create(css_blkcg(of->css), dev, ret_g);
}

/* ---- throttle files ------------------------------------------------------------------ */

static int throttle_write(struct ucg_of *of, const char *buf, size_t len)
{
	unsigned long which = of->cft->private;
	const char *body;
	struct blkg *g;
	uint64_t v;
	int r;

	r = conf_prep(of, buf, len, 0, &g, &body);
	if (r < 0)
		return r;
	if (!scan_u64(body, buf + len, &v))
		return -EINVAL; /* the blkg stays, as in the kernel */
	if (!v)
		v = UINT64_MAX;
	switch (which) {
	case TH_READ_BPS:
	case TH_WRITE_BPS:
		g->bps[which - TH_READ_BPS] = v;
		break;
	default:
		g->iops[which - TH_READ_IOPS] = (uint32_t)v;
		break;
	}
	return 0;
}

static int throttle_show(struct ucg_of *of, struct ucg_buf *out)
{
	unsigned long which = of->cft->private;
	struct ucg_list *pos;

	ucg_list_for_each(pos, &css_blkcg(of->css)->blkgs) {
		struct blkg *g = ucg_container_of(pos, struct blkg, node);

		if (which <= TH_WRITE_BPS && g->bps[which] != UINT64_MAX)
			ucg_buf_printf(out, "%u:%u %" PRIu64 "\n", g->major, g->minor, g->bps[which]);
		else if (which >= TH_READ_IOPS && g->iops[which - TH_READ_IOPS] != UINT32_MAX)
			ucg_buf_printf(out, "%u:%u %u\n", g->major, g->minor,
				       g->iops[which - TH_READ_IOPS]);
	}
	return 0;
}

/* ---- statistics ---------------------------------------------------------------------- */

static struct ucg_cgroup *preorder_next(struct ucg_cgroup *cg, struct ucg_cgroup *top)
{
	if (!ucg_list_empty(&cg->children))
		return ucg_container_of(cg->children.next, struct ucg_cgroup, sibling);
	while (cg != top) {
		if (cg->sibling.next != &cg->parent->children)
			return ucg_container_of(cg->sibling.next, struct ucg_cgroup, sibling);
		cg = cg->parent;
	}
	return NULL;
}

/* private: low bits which stats, bit 4 recursive */
#define STAT_RECURSIVE 0x10ul

static int stat_show(struct ucg_of *of, struct ucg_buf *out)
{
	unsigned long p = of->cft->private;
	int bfq = (p & 0x0f) >= STAT_BFQ_BYTES, ios = (p & 0x0f) & 1;
	struct ucg_list *pos;
	uint64_t total = 0;

	ucg_list_for_each(pos, &css_blkcg(of->css)->blkgs) {
		struct blkg *g = ucg_container_of(pos, struct blkg, node);
		uint64_t v[NR_IOSTAT];
		int i;

		if (bfq && !g->bfq)
			continue;
		memcpy(v, g->stat[bfq][ios], sizeof(v));
		if (p & STAT_RECURSIVE) {
			struct ucg_cgroup *cg;

			for (cg = preorder_next(of->cg, of->cg); cg; cg = preorder_next(cg, of->cg)) {
				struct blkg *d = blkg_find(cgroup_blkcg(cg), g->major, g->minor);

				if (d)
					for (i = 0; i < NR_IOSTAT; i++)
						v[i] += d->stat[bfq][ios][i];
			}
		}
		for (i = 0; i < NR_IOSTAT; i++)
			ucg_buf_printf(out, "%u:%u %s %" PRIu64 "\n", g->major, g->minor,
				       iostat_names[i], v[i]);
		ucg_buf_printf(out, "%u:%u Total %" PRIu64 "\n", g->major, g->minor,
			       v[IO_READ] + v[IO_WRITE] + v[IO_DISCARD]);
		total += v[IO_READ] + v[IO_WRITE] + v[IO_DISCARD];
	}
	ucg_buf_printf(out, "Total %" PRIu64 "\n", total);
	return 0;
}

static int reset_stats_write(struct ucg_of *of, uint64_t v)
{
	struct ucg_list *pos;

	ucg_list_for_each(pos, &css_blkcg(of->css)->blkgs) {
		struct blkg *g = ucg_container_of(pos, struct blkg, node);

		memset(g->stat[1], 0, sizeof(g->stat[1]));
	}
	return 0;
}

/* ---- bfq weight ---------------------------------------------------------------------- */

static int bfq_weight_show(struct ucg_of *of, struct ucg_buf *out)
{
	ucg_buf_printf(out, "%u\n", css_blkcg(of->css)->weight);
	return 0;
}

static int bfq_weight_write(struct ucg_of *of, uint64_t v)
{
	if (v < BFQ_MIN_WEIGHT || v > BFQ_MAX_WEIGHT)
		return -ERANGE;
	css_blkcg(of->css)->weight = (unsigned)v;
	return 0;
}

static int bfq_weight_device_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct blkcg *b = css_blkcg(of->css);
	struct ucg_list *pos;

	ucg_buf_printf(out, "default %u\n", b->weight);
	ucg_list_for_each(pos, &b->blkgs) {
		struct blkg *g = ucg_container_of(pos, struct blkg, node);

		if (g->bfq && g->weight)
			ucg_buf_printf(out, "%u:%u %u\n", g->major, g->minor, g->weight);
	}
	return 0;
}

static int is_xdigit(unsigned c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* strtoull(s, &end, 0) without sign, wrapping: the kernel's simple_strtoull. */
static const char *simple_strtoull(const char *s, const char *end, uint64_t *ret)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (s < end && *s == '0') {
		base = 8;
		if (s + 1 < end && (s[1] == 'x' || s[1] == 'X') && s + 2 < end &&
		    is_xdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		}
	}
	for (; s < end; s++) {
		unsigned c = (unsigned char)*s, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * base + d;
	}
	*ret = v;
	return s;
}

static int bfq_weight_device_write(struct ucg_of *of, const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len, *body, *p;
	struct blkg *g;
	uint64_t v;
	int r;

	ucg_kstrip(&s, &len);
	end = s + len;
	/* "W" or "default W": the cgroup's default weight */
	p = simple_strtoull(s, end, &v);
	if (p == end)
		return bfq_weight_write(of, v);
	if (len > 8 && !memcmp(s, "default", 7) && ucg_kisspace((unsigned char)s[7]) &&
	    scan_u64(s + 8, end, &v))
		return bfq_weight_write(of, v);
	r = conf_prep(of, s, len, 1, &g, &body);
	if (r < 0)
		return r;
	if (scan_u64(body, end, &v)) {
		if (!v)
			return -ERANGE;
	} else if ((size_t)(end - body) == 7 && !memcmp(body, "default", 7)) {
		v = 0;
	} else {
		return -EINVAL;
	}
	if (v && (v < BFQ_MIN_WEIGHT || v > BFQ_MAX_WEIGHT))
		return -ERANGE;
	g->weight = (unsigned)v;
	return 0;
}

/* ---- charging API (charge.h) --------------------------------------------------------- */

/* Adds completed I/O to b's statistics for the device. */
static int blkcg_account(struct blkcg *b, const struct ucg_blkdev *dev, enum ucg_bio_op op,
			 bool sync, uint64_t bytes, uint64_t ios)
{
	struct blkg *g = blkg_find(b, dev->major, dev->minor);
	int r, k;

	if (!g) {
		r = blkg_lookup_create(b, dev, &g);
		if (r < 0)
			return r;
	}
	/* [which][bytes/ios]: throttle statistics always, bfq ones on bfq devices */
	for (k = 0; k < 2; k++) {
		int which;

		for (which = 0; which < 1 + g->bfq; which++) {
			uint64_t *st = g->stat[which][k], add = k ? ios : bytes;

			st[op == UCG_BIO_READ ? IO_READ : op == UCG_BIO_WRITE ? IO_WRITE : IO_DISCARD] += add;
			st[sync ? IO_SYNC : IO_ASYNC] += add;
		}
	}
	return 0;
}

int ucg_blkio_account(struct ucg_cgroup *cg, uint32_t major, uint32_t minor,
		      enum ucg_bio_op op, bool sync, uint64_t bytes, uint64_t ios)
{
	const struct ucg_blkdev *dev;

	if ((unsigned)op > UCG_BIO_DISCARD)
		return -EINVAL;
	if (!cg)
		return 0;
	if (!cg->css[UCG_SS_blkio])
		return -EINVAL;
	dev = find_dev(cg->h->e, major, minor);
	if (!dev)
		return -ENODEV;
	return blkcg_account(cgroup_blkcg(cg), dev, op, sync, bytes, ios);
}

int ucg_blkio_limits(struct ucg_cgroup *cg, uint32_t major, uint32_t minor,
		     struct ucg_blkio_limits *ret)
{
	struct ucg_blkio_limits l = { UINT64_MAX, UINT64_MAX, UINT32_MAX, UINT32_MAX, 0 };
	struct blkcg *b, *it;
	struct blkg *g;

	if (!cg)
		goto out;
	if (!cg->css[UCG_SS_blkio])
		return -EINVAL;
	if (!find_dev(cg->h->e, major, minor))
		return -ENODEV;
	b = cgroup_blkcg(cg);
	for (it = b; it; it = it->parent) {
		g = blkg_find(it, major, minor);
		if (!g)
			continue;
		if (g->bps[0] < l.read_bps)
			l.read_bps = g->bps[0];
		if (g->bps[1] < l.write_bps)
			l.write_bps = g->bps[1];
		if (g->iops[0] < l.read_iops)
			l.read_iops = g->iops[0];
		if (g->iops[1] < l.write_iops)
			l.write_iops = g->iops[1];
	}
	if (b->parent) {
		g = blkg_find(b, major, minor);
		l.weight = g && g->weight ? g->weight : b->weight;
	}
out:
	*ret = l;
	return 0;
}

int ucg_blkio_get(const struct ucg_cgroup *cg, struct ucg_blkio_rule *rules, size_t cap,
		  size_t *ret_n, unsigned *ret_weight)
{
	const struct blkcg *b;
	const struct ucg_list *pos;
	size_t n = 0;

	if (!cg->css[UCG_SS_blkio])
		return -EINVAL;
	b = css_blkcg(cg->css[UCG_SS_blkio]);
	/* Oldest first: the list keeps the newest at its head. */
	for (pos = b->blkgs.prev; pos != &b->blkgs; pos = pos->prev) {
		const struct blkg *g = ucg_container_of(pos, struct blkg, node);

		if (g->bps[0] == UINT64_MAX && g->bps[1] == UINT64_MAX &&
		    g->iops[0] == UINT32_MAX && g->iops[1] == UINT32_MAX && !g->weight)
			continue; /* a device seen only in the statistics */
		if (n < cap) {
			rules[n].major = g->major;
			rules[n].minor = g->minor;
			rules[n].read_bps = g->bps[0];
			rules[n].write_bps = g->bps[1];
			rules[n].read_iops = g->iops[0];
			rules[n].write_iops = g->iops[1];
			rules[n].weight = g->weight;
		}
		n++;
	}
	*ret_n = n;
	*ret_weight = b->parent ? b->weight : 0;
	return 0;
}

/* ---- tables -------------------------------------------------------------------------- */

#define STAT_FILES(prefix, bytes, ios)                                                         \
	{ .name = prefix "io_service_bytes", .mode = 0444, .show = stat_show, .private = bytes }, \
	{ .name = prefix "io_service_bytes_recursive", .mode = 0444, .show = stat_show,          \
	  .private = (bytes) | STAT_RECURSIVE },                                               \
	{ .name = prefix "io_serviced", .mode = 0444, .show = stat_show, .private = ios },      \
	{ .name = prefix "io_serviced_recursive", .mode = 0444, .show = stat_show,              \
	  .private = (ios) | STAT_RECURSIVE }

static const struct ucg_cftype blkio_files[] = {
	{ .name = "bfq.weight", .flags = UCG_CFT_NOT_ON_ROOT, .mode = 0644,
	  .show = bfq_weight_show, .write_u64 = bfq_weight_write },
	{ .name = "bfq.weight_device", .flags = UCG_CFT_NOT_ON_ROOT, .mode = 0644,
	  .show = bfq_weight_device_show, .write = bfq_weight_device_write },
	STAT_FILES("bfq.", STAT_BFQ_BYTES, STAT_BFQ_IOS),
	{ .name = "throttle.read_bps_device", .mode = 0644, .show = throttle_show,
	  .write = throttle_write, .private = TH_READ_BPS },
	{ .name = "throttle.write_bps_device", .mode = 0644, .show = throttle_show,
	  .write = throttle_write, .private = TH_WRITE_BPS },
	{ .name = "throttle.read_iops_device", .mode = 0644, .show = throttle_show,
	  .write = throttle_write, .private = TH_READ_IOPS },
	{ .name = "throttle.write_iops_device", .mode = 0644, .show = throttle_show,
	  .write = throttle_write, .private = TH_WRITE_IOPS },
	STAT_FILES("throttle.", STAT_THROTL_BYTES, STAT_THROTL_IOS),
	{ .name = "reset_stats", .mode = 0200, .write_u64 = reset_stats_write },
	{ 0 },
};

const struct ucg_subsys ucg_blkio_subsys = {
	.name = "blkio",
	.id = UCG_SS_blkio,
	.css_size = sizeof(struct blkcg),
	.css_alloc = blkio_css_alloc,
	.css_online = blkio_css_online,
	.css_free = blkio_css_free,
	.files = blkio_files,
};
