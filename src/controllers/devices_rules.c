/* controllers/devices_rules.c — the devices cgroup's exception lists (after the
 * kernel's security/device_cgroup.c model; docs/kernel/controllers.md §5).
 *
 * Model. Each cgroup has a behaviour and a list of exceptions. In allow-all mode the
 * exceptions are denials: an access is refused when any exception matches the device
 * ('*' matching anything) and shares a requested bit ("partial" match). In deny-all
 * mode they are grants: an access is allowed only when one exception matches the
 * device and covers every requested bit ("full" match). When exceptions are added or
 * removed they are matched exactly on (type, major, minor), '*' being one more value,
 * and their access bits merge, so keys are unique and the list keeps the order in
 * which each key was first added.
 *
 * Hierarchy. A write to devices.allow may only widen what the parent allows: under a
 * deny-all parent the new grant must be fully covered by one parent exception, under
 * an allow-all parent it must not partially match any parent denial. A write to
 * devices.deny always succeeds and is pushed down at once: allow-all descendants (of
 * an allow-all writer) gain the denial, the others lose the exact-match bits, and then
 * every descendant drops each exception its own parent no longer allows, walking
 * parents before children so each sees its parent's new list. Relaxing is never
 * pushed down. "a" resets the mode, and only in a cgroup without children.
 *
 * Atomicity. The kernel can fail half-way with ENOMEM. Here every list that may grow
 * is reserved first, so after the checks nothing can fail and a refused write leaves
 * no trace.
 */
#include "controllers/devices_rules.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "base/kctype.h"

/* ---- parsing ---- */

/* The byte at pos, or '\0' past the end: the kernel parses a C string. */
static unsigned char at(const char *s, size_t len, size_t pos)
{
	return pos < len ? (unsigned char)s[pos] : '\0';
}

/* A major or minor: '*' or up to 11 decimal digits (the kernel's 12-byte buffer)
 * whose value fits in 32 bits. */
static int parse_num(const char *s, size_t len, size_t *pos, uint32_t *ret)
{
	uint64_t v = 0;
	int count;

	if (at(s, len, *pos) == '*') {
		(*pos)++;
		*ret = UCG_DEV_ANY;
		return 0;
	}
	if (!ucg_kisdigit(at(s, len, *pos)))
		return -EINVAL;
	/* Copies digits until a non-digit or 11 of them; a 12th digit is left for the
	 * caller's separator check to refuse. */
	for (count = 0; count < 11; count++) {
		v = v * 10 + (at(s, len, *pos) - '0');
		(*pos)++;
		if (!ucg_kisdigit(at(s, len, *pos)))
			break;
	}
	if (v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

int ucg_dev_rule_parse(const char *data, size_t len, struct ucg_dev_rule *ret)
{
	struct ucg_dev_rule r = { 0 };
	const char *s = data;
	const char *nul = memchr(data, '\0', len);
	size_t pos = 0;
	int err;

	if (nul)
		len = (size_t)(nul - data);
	ucg_kstrip(&s, &len);

	switch (at(s, len, 0)) {
	case 'a':
		/* Only the first character counts: "a 1:3 r" is "a". */
		r.type = UCG_DEV_ALL;
		r.major = r.minor = UCG_DEV_ANY;
		r.access = UCG_DEV_ACC_ALL;
		*ret = r;
		return 0;
	case 'b':
		r.type = UCG_DEV_BLOCK;
		break;
	case 'c':
		r.type = UCG_DEV_CHAR;
		break;
	default:
		return -EINVAL;
	}
	pos = 1;
	if (!ucg_kisspace(at(s, len, pos)))
		return -EINVAL;
	pos++;
	err = parse_num(s, len, &pos, &r.major);
	if (err)
		return err;
	if (at(s, len, pos) != ':')
		return -EINVAL;
	pos++;
	err = parse_num(s, len, &pos, &r.minor);
	if (err)
		return err;
	if (!ucg_kisspace(at(s, len, pos)))
		return -EINVAL;
	pos++;
	/* At most three access letters; '\n' or the end stops early (possibly at once,
	 * giving an exception with no access bits, which the kernel accepts). */
	for (int count = 0; count < 3; count++, pos++) {
		unsigned char c = at(s, len, pos);

		if (c == 'r')
			r.access |= UCG_DEV_ACC_READ;
		else if (c == 'w')
			r.access |= UCG_DEV_ACC_WRITE;
		else if (c == 'm')
			r.access |= UCG_DEV_ACC_MKNOD;
		else if (c == '\n' || c == '\0')
			break;
		else
			return -EINVAL;
	}
	*ret = r;
	return 0;
}

/* ---- the set ---- */

void ucg_devrules_init(struct ucg_devrules *r)
{
	r->behavior = UCG_DEV_DEFAULT_ALLOW;
	r->ex = NULL;
	r->n = r->cap = 0;
}

void ucg_devrules_fini(struct ucg_devrules *r)
{
	if (!r)
		return;
	ucg_free(r->ex);
	r->ex = NULL;
	r->n = r->cap = 0;
}

/* Makes room for at least want exceptions; on failure r is unchanged. */
static int reserve(struct ucg_devrules *r, size_t want)
{
	struct ucg_dev_rule *p;
	size_t cap;

	if (want <= r->cap)
		return 0;
	cap = r->cap ? r->cap * 2 : 4;
	if (cap < want)
		cap = want;
	p = ucg_realloc(r->ex, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->ex = p;
	r->cap = cap;
	return 0;
}

int ucg_devrules_copy(struct ucg_devrules *dst, const struct ucg_devrules *src)
{
	struct ucg_dev_rule *p = NULL;

	if (dst == src)
		return 0;
	if (src->n) {
		p = ucg_malloc(src->n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memcpy(p, src->ex, src->n * sizeof(*p));
	}
	ucg_free(dst->ex);
	dst->ex = p;
	dst->n = dst->cap = src->n;
	dst->behavior = src->behavior;
	return 0;
}

static bool same_key(const struct ucg_dev_rule *a, const struct ucg_dev_rule *b)
{
	return a->type == b->type && a->major == b->major && a->minor == b->minor;
}

/* Adds ex or ORs its bits into the exception with the same key. The caller has
 * reserved room for one more. */
static void ex_add(struct ucg_devrules *r, const struct ucg_dev_rule *ex)
{
	for (size_t i = 0; i < r->n; i++) {
		if (same_key(&r->ex[i], ex)) {
			r->ex[i].access |= ex->access;
			return;
		}
	}
	r->ex[r->n++] = *ex;
}

/* Removes ex's bits from the exception with the same key, deleting it when no bits
 * are left (an exception that had none is deleted by any removal). */
static void ex_rm(struct ucg_devrules *r, const struct ucg_dev_rule *ex)
{
	for (size_t i = 0; i < r->n; i++) {
		if (!same_key(&r->ex[i], ex))
			continue;
		r->ex[i].access &= ~ex->access;
		if (!r->ex[i].access) {
			memmove(&r->ex[i], &r->ex[i + 1], (r->n - i - 1) * sizeof(r->ex[0]));
			r->n--;
		}
		return;
	}
}

static bool type_matches(unsigned type, const struct ucg_dev_rule *e)
{
	if ((type & UCG_DEV_BLOCK) && !(e->type & UCG_DEV_BLOCK))
		return false;
	if ((type & UCG_DEV_CHAR) && !(e->type & UCG_DEV_CHAR))
		return false;
	return true;
}

/* One exception matches the device and grants every requested bit. */
static bool match_full(const struct ucg_devrules *r, unsigned type, uint32_t major,
		       uint32_t minor, unsigned access)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ucg_dev_rule *e = &r->ex[i];

		if (!type_matches(type, e))
			continue;
		if (e->major != UCG_DEV_ANY && e->major != major)
			continue;
		if (e->minor != UCG_DEV_ANY && e->minor != minor)
			continue;
		if (access & ~e->access)
			continue;
		return true;
	}
	return false;
}

/* Some exception overlaps the device range (a '*' on either side overlaps) and
 * shares a requested bit. */
static bool match_partial(const struct ucg_devrules *r, unsigned type, uint32_t major,
			  uint32_t minor, unsigned access)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ucg_dev_rule *e = &r->ex[i];

		if (!type_matches(type, e))
			continue;
		if (e->major != UCG_DEV_ANY && major != UCG_DEV_ANY && e->major != major)
			continue;
		if (e->minor != UCG_DEV_ANY && minor != UCG_DEV_ANY && e->minor != minor)
			continue;
		if (!(access & e->access))
			continue;
		return true;
	}
	return false;
}

/* Whether a cgroup in mode behavior under parent may hold exception ex (the kernel's
 * verify_new_ex). */
static bool parent_allows(const struct ucg_devrules *parent, const struct ucg_dev_rule *ex,
			  enum ucg_dev_behavior behavior)
{
	if (!parent)
		return true;
	if (parent->behavior == UCG_DEV_DEFAULT_ALLOW) {
		/* A child denial only narrows; a child grant must avoid every denial. */
		if (behavior == UCG_DEV_DEFAULT_ALLOW)
			return true;
		return !match_partial(parent, ex->type, ex->major, ex->minor, ex->access);
	}
	return match_full(parent, ex->type, ex->major, ex->minor, ex->access);
}

/* Drops every exception of r that parent no longer allows. */
static void revalidate(struct ucg_devrules *r, const struct ucg_devrules *parent)
{
	size_t i = 0;

	while (i < r->n) {
		if (parent_allows(parent, &r->ex[i], r->behavior)) {
			i++;
			continue;
		}
		memmove(&r->ex[i], &r->ex[i + 1], (r->n - i - 1) * sizeof(r->ex[0]));
		r->n--;
	}
}

static int reserve_descendants(const struct ucg_devrules_walk *desc)
{
	const struct ucg_devrules *parent;
	struct ucg_devrules *d;
	int err;

	if (!desc)
		return 0;
	for (d = desc->next(desc->ctx, NULL, &parent); d; d = desc->next(desc->ctx, d, &parent)) {
		err = reserve(d, d->n + 1);
		if (err)
			return err;
	}
	return 0;
}

/* The apply pass of propagation: cannot fail once reserve_descendants() succeeded. */
static void apply_descendants(const struct ucg_devrules *writer, const struct ucg_dev_rule *rule,
			      const struct ucg_devrules_walk *desc)
{
	const struct ucg_devrules *parent;
	struct ucg_devrules *d;

	if (!desc)
		return;
	for (d = desc->next(desc->ctx, NULL, &parent); d; d = desc->next(desc->ctx, d, &parent)) {
		if (writer->behavior == UCG_DEV_DEFAULT_ALLOW &&
		    d->behavior == UCG_DEV_DEFAULT_ALLOW)
			ex_add(d, rule);
		else
			ex_rm(d, rule);
		revalidate(d, parent);
	}
}

int ucg_devrules_propagate(const struct ucg_devrules *writer, const struct ucg_dev_rule *rule,
			   const struct ucg_devrules_walk *desc)
{
	int err = reserve_descendants(desc);

	if (err)
		return err;
	apply_descendants(writer, rule, desc);
	return 0;
}

static bool has_children(const struct ucg_devrules_walk *desc)
{
	const struct ucg_devrules *parent;

	return desc && desc->next(desc->ctx, NULL, &parent) != NULL;
}

/* "a": reset the mode. */
static int write_all(struct ucg_devrules *self, const struct ucg_devrules *parent,
		     enum ucg_dev_file file, const struct ucg_devrules_walk *desc)
{
	int err;

	if (has_children(desc))
		return -EINVAL;
	if (file == UCG_DEV_FILE_DENY) {
		self->n = 0;
		self->behavior = UCG_DEV_DEFAULT_DENY;
		return 0;
	}
	if (parent && parent->behavior != UCG_DEV_DEFAULT_ALLOW)
		return -EPERM;
	if (!parent) {
		self->n = 0;
		self->behavior = UCG_DEV_DEFAULT_ALLOW;
		return 0;
	}
	/* Allow-all below an allow-all parent inherits the parent's denials, so that
	 * "a" cannot escape them. */
	err = ucg_devrules_copy(self, parent);
	if (err)
		return err;
	self->behavior = UCG_DEV_DEFAULT_ALLOW;
	return 0;
}

int ucg_devrules_write(struct ucg_devrules *self, const struct ucg_devrules *parent,
		       enum ucg_dev_file file, const struct ucg_dev_rule *rule,
		       const struct ucg_devrules_walk *desc)
{
	bool allow_mode = self->behavior == UCG_DEV_DEFAULT_ALLOW;
	int err;

	if (rule->type == UCG_DEV_ALL)
		return write_all(self, parent, file, desc);

	if (file == UCG_DEV_FILE_ALLOW) {
		if (!parent_allows(parent, rule, self->behavior))
			return -EPERM;
		if (allow_mode) {
			/* Allowing in allow-all removes a denial, which must not lift one of
			 * the parent's. */
			if (parent && match_partial(parent, rule->type, rule->major, rule->minor,
						    rule->access))
				return -EPERM;
			ex_rm(self, rule);
			return 0;
		}
		err = reserve(self, self->n + 1);
		if (err)
			return err;
		ex_add(self, rule);
		return 0;
	}

	/* devices.deny: never refused, and pushed down to the descendants. */
	if (allow_mode) {
		err = reserve(self, self->n + 1);
		if (err)
			return err;
	}
	err = reserve_descendants(desc);
	if (err)
		return err;
	if (allow_mode)
		ex_add(self, rule);
	else
		ex_rm(self, rule);
	apply_descendants(self, rule, desc);
	return 0;
}

bool ucg_devrules_may_access(const struct ucg_devrules *r, unsigned type, uint32_t major,
			     uint32_t minor, unsigned access)
{
	if (r->behavior == UCG_DEV_DEFAULT_ALLOW)
		return !match_partial(r, type, major, minor, access);
	return match_full(r, type, major, minor, access);
}

static void put_num(struct ucg_buf *out, uint32_t v)
{
	if (v == UCG_DEV_ANY)
		ucg_buf_putc(out, '*');
	else
		ucg_buf_printf(out, "%" PRIu32, v);
}

int ucg_devrules_format(const struct ucg_devrules *r, struct ucg_buf *out)
{
	if (r->behavior == UCG_DEV_DEFAULT_ALLOW) {
		/* The denials are not shown in allow-all mode. */
		ucg_buf_puts(out, "a *:* rwm\n");
		return ucg_buf_error(out);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct ucg_dev_rule *e = &r->ex[i];

		ucg_buf_putc(out, e->type == UCG_DEV_BLOCK ? 'b' : e->type == UCG_DEV_CHAR ? 'c' : 'a');
		ucg_buf_putc(out, ' ');
		put_num(out, e->major);
		ucg_buf_putc(out, ':');
		put_num(out, e->minor);
		ucg_buf_putc(out, ' ');
		if (e->access & UCG_DEV_ACC_READ)
			ucg_buf_putc(out, 'r');
		if (e->access & UCG_DEV_ACC_WRITE)
			ucg_buf_putc(out, 'w');
		if (e->access & UCG_DEV_ACC_MKNOD)
			ucg_buf_putc(out, 'm');
		ucg_buf_putc(out, '\n');
	}
	return ucg_buf_error(out);
}
