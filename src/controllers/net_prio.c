/* controllers/net_prio.c — the net_prio controller: a packet priority per network
 * device for the tasks of a cgroup (docs/kernel/controllers.md §8).
 *
 * Model. The engine's configuration names the network devices of the initial
 * namespace in ifindex order (default "lo", "eth0"). Each cgroup has
 *   prioidx   a per-hierarchy index: 1 for the root, then 2, 3, ... in mkdir order,
 *             never reused (the kernel reuses an index only long after rmdir, so
 *             increasing ids are what a user sees)
 *   map[d]    the priority for device d (0: leave the packet's priority alone),
 *             copied from the parent at mkdir only.
 * net_prio.ifpriomap shows "<name> <prio>\n" per device and takes one command
 * "<ifname> <prio>", parsed as the kernel's sscanf("%16s %u"): leading whitespace is
 * skipped, the name is up to 16 non-space bytes, then whitespace, then a decimal
 * number that stops at the first non-digit ("6junk" is 6, "0x10" is 0) and wraps
 * (mod 2^64, then truncated to 32 bits); anything after it, later lines included, is
 * ignored. No number (a sign, nothing, only a name) is EINVAL; an unknown device is
 * ENODEV.
 *
 * Limits: no packets; ucg_net_prio_priority() answers a network model's question.
 */
#include "base/alloc.h"
#include "base/kctype.h"
#include "controllers/charge.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>
#include <string.h>

#define IFNAMSIZ 16

static const char *const default_netdevs[] = { "lo", "eth0" };

struct net_prio_css {
	struct ucg_css css;
	uint32_t prioidx;
	uint32_t next_prioidx; /* root only: the next index to hand out */
	size_t nr;             /* = the engine's device count */
	uint32_t *map;         /* per device, in the configuration's order */
};

static struct net_prio_css *np_of(struct ucg_css *css)
{
	return (struct net_prio_css *)css;
}

static const char *const *netdevs(const struct ucg_engine *e, size_t *n)
{
	if (!e->cfg.netdev_names || !e->cfg.nr_netdevs) {
		*n = sizeof(default_netdevs) / sizeof(default_netdevs[0]);
		return default_netdevs;
	}
	*n = e->cfg.nr_netdevs;
	return e->cfg.netdev_names;
}

/* Index of the device called name (len bytes), or -1. Configured names are compared
 * on their first IFNAMSIZ - 1 bytes, the longest a device name can be. */
static int find_dev(const struct ucg_engine *e, const char *name, size_t len)
{
	size_t n, i;
	const char *const *d = netdevs(e, &n);

	for (i = 0; i < n; i++)
		if (strnlen(d[i], IFNAMSIZ - 1) == len && !memcmp(d[i], name, len))
			return (int)i;
	return -1;
}

static int net_prio_css_alloc(struct ucg_css *css, struct ucg_css *parent)
{
	struct net_prio_css *np = np_of(css);
	struct ucg_engine *e = css->cgroup->h->e;
	struct net_prio_css *root;

	netdevs(e, &np->nr);
	np->map = ucg_calloc(np->nr ? np->nr : 1, sizeof(uint32_t));
	if (!np->map)
		return -ENOMEM;
	if (!parent) {
		np->prioidx = 1;
		np->next_prioidx = 2;
		return 0;
	}
	memcpy(np->map, np_of(parent)->map, np->nr * sizeof(uint32_t));
	root = np_of(css->cgroup->h->root->css[UCG_SS_net_prio]);
	np->prioidx = root->next_prioidx++;
	return 0;
}

static void net_prio_css_free(struct ucg_css *css)
{
	ucg_free(np_of(css)->map);
}

static uint64_t prioidx_read(struct ucg_of *of)
{
	return np_of(of->css)->prioidx;
}

static int ifpriomap_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct net_prio_css *np = np_of(of->css);
	size_t n, i;
	const char *const *d = netdevs(of->e, &n);

	for (i = 0; i < n && i < np->nr; i++)
		ucg_buf_printf(out, "%.*s %u\n", IFNAMSIZ - 1, d[i], np->map[i]);
	return 0;
}

static int ifpriomap_write(struct ucg_of *of, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *name;
	size_t nlen = 0;
	uint64_t v = 0;
	int dev;

	/* "%16s": skip spaces, then up to 16 non-space bytes. */
	while (p < end && ucg_kisspace((unsigned char)*p))
		p++;
	name = p;
	while (p < end && !ucg_kisspace((unsigned char)*p) && nlen < IFNAMSIZ) {
		p++;
		nlen++;
	}
	/* " %u": skip spaces; input must not end here and a digit must follow. */
	while (p < end && ucg_kisspace((unsigned char)*p))
		p++;
	if (p == end || !ucg_kisdigit((unsigned char)*p))
		return -EINVAL;
	while (p < end && ucg_kisdigit((unsigned char)*p))
		v = v * 10 + (uint64_t)(*p++ - '0'); /* wraps, as simple_strtoull */
	dev = find_dev(of->e, name, nlen);
	if (dev < 0 || (size_t)dev >= np_of(of->css)->nr)
		return -ENODEV;
	np_of(of->css)->map[dev] = (uint32_t)v;
	return 0;
}

int ucg_net_prio_priority(const struct ucg_cgroup *cg, const char *ifname, uint32_t *ret)
{
	int dev;

	if (!cg) {
		*ret = 0;
		return 0;
	}
	if (!cg->css[UCG_SS_net_prio])
		return -EINVAL;
	dev = find_dev(cg->h->e, ifname, strlen(ifname));
	if (dev < 0)
		return -ENODEV;
	*ret = np_of(cg->css[UCG_SS_net_prio])->map[dev];
	return 0;
}

static const struct ucg_cftype net_prio_files[] = {
	{ .name = "prioidx", .mode = 0444, .read_u64 = prioidx_read },
	{ .name = "ifpriomap", .mode = 0644, .show = ifpriomap_show, .write = ifpriomap_write },
	{ 0 },
};

const struct ucg_subsys ucg_net_prio_subsys = {
	.name = "net_prio",
	.id = UCG_SS_net_prio,
	.css_size = sizeof(struct net_prio_css),
	.css_alloc = net_prio_css_alloc,
	.css_free = net_prio_css_free,
	.files = net_prio_files,
};
