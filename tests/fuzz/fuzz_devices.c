/* tests/fuzz/fuzz_devices.c — the devices rule parser and the exception algebra.
 *
 * The input is a sequence of '|'-separated commands on a parent and an optional
 * child. A command's first byte selects: bit 2 toggles the child (mkdir copies the
 * parent, rmdir forgets it), else bit 1 picks the target and bit 0 the file
 * (allow/deny), and the rest of the command is the rule. Every write must give 0,
 * -EINVAL or -EPERM; after each command the invariants hold: keys are unique, every
 * access bit a deny-all child grants is granted by its deny-all parent, and each
 * devices.list line parses back to its exception. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controllers/devices_rules.h"
#include "fuzz.h"

struct tree {
	struct ucg_devrules parent, child;
	bool has_child;
};

static struct ucg_devrules *walk_next(void *ctx, struct ucg_devrules *pos,
				      const struct ucg_devrules **ret_parent)
{
	struct tree *t = ctx;

	if (pos || !t->has_child)
		return NULL;
	*ret_parent = &t->parent;
	return &t->child;
}

static void check(const struct ucg_devrules *r, const struct ucg_devrules *parent)
{
	struct ucg_buf out;
	const char *line;
	size_t i = 0;

	for (size_t a = 0; a < r->n; a++)
		for (size_t b = a + 1; b < r->n; b++)
			if (r->ex[a].type == r->ex[b].type && r->ex[a].major == r->ex[b].major &&
			    r->ex[a].minor == r->ex[b].minor)
				abort();
	if (parent && parent->behavior == UCG_DEV_DEFAULT_DENY &&
	    r->behavior == UCG_DEV_DEFAULT_DENY) {
		/* Bit by bit: merging can join bits the parent grants through two
		 * different exceptions, as in the kernel. */
		for (size_t a = 0; a < r->n; a++) {
			const struct ucg_dev_rule *e = &r->ex[a];

			if (!ucg_devrules_may_access(parent, e->type, e->major, e->minor, 0))
				abort();
			for (unsigned bit = 1; bit <= UCG_DEV_ACC_WRITE; bit <<= 1)
				if ((e->access & bit) &&
				    !ucg_devrules_may_access(parent, e->type, e->major, e->minor, bit))
					abort();
		}
	}
	ucg_buf_init(&out);
	if (ucg_devrules_format(r, &out) < 0)
		abort();
	if (r->behavior == UCG_DEV_DEFAULT_DENY) {
		for (line = out.data; line && *line; i++) {
			const char *nl = strchr(line, '\n');
			struct ucg_dev_rule back;

			if (!nl || i >= r->n)
				abort();
			/* An access-less exception prints as "T M:m " (as the kernel
			 * does), which the strip turns into a rule without ACC: it
			 * cannot be read back, so only its shape is checked. */
			if (!r->ex[i].access) {
				if (nl - line < 6 || nl[-1] != ' ')
					abort();
				line = nl + 1;
				continue;
			}
			if (ucg_dev_rule_parse(line, (size_t)(nl - line), &back) < 0)
				abort();
			if ((back.type != r->ex[i].type || back.major != r->ex[i].major ||
			     back.minor != r->ex[i].minor || back.access != r->ex[i].access))
				abort();
			line = nl + 1;
		}
		if (i != r->n)
			abort();
	}
	ucg_buf_fini(&out);
}

int ucg_fuzz_devices(const uint8_t *data, size_t size)
{
	struct tree t;
	struct ucg_devrules_walk walk = { walk_next, &t };
	size_t pos = 0;

	ucg_devrules_init(&t.parent);
	ucg_devrules_init(&t.child);
	t.has_child = false;
	while (pos < size) {
		size_t end = pos;
		unsigned sel = data[pos];
		struct ucg_dev_rule rule;
		char *exact;
		int err;

		while (end < size && data[end] != '|')
			end++;
		exact = malloc(end - pos ? end - pos : 1);
		if (!exact)
			abort();
		memcpy(exact, data + pos, end - pos);
		/* byte 0 selects; the rule is the rest */
		err = end > pos ? ucg_dev_rule_parse(exact + 1, end - pos - 1, &rule) : -EINVAL;
		free(exact);
		if (err != 0 && err != -EINVAL)
			abort();
		if (end > pos && (sel & 4)) {
			t.has_child = !t.has_child;
			if (t.has_child && ucg_devrules_copy(&t.child, &t.parent) < 0)
				abort();
		} else if (!err) {
			enum ucg_dev_file file = sel & 1 ? UCG_DEV_FILE_DENY : UCG_DEV_FILE_ALLOW;

			if ((sel & 2) && !t.has_child)
				err = 0;
			else if (sel & 2)
				err = ucg_devrules_write(&t.child, &t.parent, file, &rule, NULL);
			else
				err = ucg_devrules_write(&t.parent, NULL, file, &rule, &walk);
			if (err != 0 && err != -EINVAL && err != -EPERM)
				abort();
		}
		check(&t.parent, NULL);
		if (t.has_child)
			check(&t.child, &t.parent);
		pos = end + 1;
	}
	ucg_devrules_fini(&t.parent);
	ucg_devrules_fini(&t.child);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_devices(data, size);
}
#endif
