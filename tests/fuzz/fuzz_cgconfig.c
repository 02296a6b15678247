/* tests/fuzz/fuzz_cgconfig.c — cgconfig.conf parsing on arbitrary bytes.
 *
 * Invariants: the result is 0 or -EINVAL; a refusal says which line ("line N: ...")
 * and leaves an empty config; an accepted file, written back out in the grammar
 * (every word quoted), parses to the same mounts, groups, perms and parameters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli/cgconfig.h"
#include "fuzz.h"

static void word(struct ucg_buf *b, const char *w)
{
	ucg_buf_printf(b, "\"%s\" ", w);
}

static void perm_out(struct ucg_buf *b, const struct ucg_cgc_perm *p)
{
	ucg_buf_puts(b, "perm { task { ");
	if (p->task_uid)
		ucg_buf_printf(b, "uid = \"%s\"; ", p->task_uid);
	if (p->task_gid)
		ucg_buf_printf(b, "gid = \"%s\"; ", p->task_gid);
	if (p->task_fperm >= 0)
		ucg_buf_printf(b, "fperm = %o; ", (unsigned)p->task_fperm);
	ucg_buf_puts(b, "} admin { ");
	if (p->admin_uid)
		ucg_buf_printf(b, "uid = \"%s\"; ", p->admin_uid);
	if (p->admin_gid)
		ucg_buf_printf(b, "gid = \"%s\"; ", p->admin_gid);
	if (p->admin_fperm >= 0)
		ucg_buf_printf(b, "fperm = %o; ", (unsigned)p->admin_fperm);
	if (p->admin_dperm >= 0)
		ucg_buf_printf(b, "dperm = %o; ", (unsigned)p->admin_dperm);
	ucg_buf_puts(b, "} }\n");
}

static void write_out(const struct ucg_cgconfig *c, struct ucg_buf *b)
{
	int i, j, k;

	if (c->nr_mounts) {
		ucg_buf_puts(b, "mount {\n");
		for (i = 0; i < c->nr_mounts; i++) {
			word(b, c->mounts[i].ctrl);
			ucg_buf_puts(b, "= ");
			word(b, c->mounts[i].path);
			ucg_buf_puts(b, ";\n");
		}
		ucg_buf_puts(b, "}\n");
	}
	if (c->dflt.present) {
		ucg_buf_puts(b, "default {\n");
		perm_out(b, &c->dflt);
		ucg_buf_puts(b, "}\n");
	}
	for (i = 0; i < c->nr_groups; i++) {
		const struct ucg_cgc_group *g = &c->groups[i];

		ucg_buf_puts(b, "group ");
		word(b, g->name);
		ucg_buf_puts(b, "{\n");
		if (g->perm.present)
			perm_out(b, &g->perm);
		for (j = 0; j < g->nr_ctrls; j++) {
			word(b, g->ctrls[j].name);
			ucg_buf_puts(b, "{ ");
			for (k = 0; k < g->ctrls[j].nr_params; k++) {
				word(b, g->ctrls[j].params[k].name);
				ucg_buf_puts(b, "= ");
				word(b, g->ctrls[j].params[k].value);
				ucg_buf_puts(b, "; ");
			}
			ucg_buf_puts(b, "}\n");
		}
		ucg_buf_puts(b, "}\n");
	}
}

int ucg_fuzz_cgconfig(const uint8_t *data, size_t size)
{
	struct ucg_cgconfig a, b;
	struct ucg_buf text, again;
	char err[256];
	int r = ucg_cgconfig_parse((const char *)data, size, &a, err, sizeof(err));

	if (r != 0 && r != -EINVAL)
		abort();
	if (r) {
		if (strncmp(err, "line ", 5) || a.nr_groups || a.nr_mounts || a.groups)
			abort();
		return 0;
	}
	ucg_buf_init(&text);
	ucg_buf_init(&again);
	write_out(&a, &text);
	if (ucg_cgconfig_parse(text.data ? text.data : "", text.len, &b, err, sizeof(err)))
		abort();
	write_out(&b, &again);
	if (text.len != again.len || (text.len && memcmp(text.data, again.data, text.len)))
		abort();
	ucg_cgconfig_free(&a);
	ucg_cgconfig_free(&b);
	ucg_buf_fini(&text);
	ucg_buf_fini(&again);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_cgconfig(data, size);
}
#endif
