/* cli/cgconfig.c — the cgconfig.conf parser (cli/cgconfig.h).
 *
 * A small recursive-descent parser over a tokenizer; every allocation is owned by the
 * config being built, so an error anywhere frees it whole. Line numbers in messages
 * count from 1, as cgconfigparser's do.
 */
#include "cli/cgconfig.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok { T_END, T_WORD, T_LBRACE, T_RBRACE, T_EQ, T_SEMI, T_BAD };

struct lexer {
	const char *p, *end;
	int line;
	enum tok tok;
	char *word; /* T_WORD's text, owned until taken */
	int tok_line;
	char *err;
	size_t errlen;
	int failed; /* -EINVAL or -ENOMEM once something went wrong */
};

static int fail(struct lexer *lx, int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct lexer *lx, int r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (lx->failed)
		return lx->failed;
	lx->failed = r;
	if (lx->errlen) {
		n = snprintf(lx->err, lx->errlen, "line %d: ", lx->tok_line);
		if (n >= 0 && (size_t)n < lx->errlen) {
			va_start(ap, fmt);
			vsnprintf(lx->err + n, lx->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return r;
}

static int is_word_char(char c)
{
	return c && !strchr(" \t\r\n\v\f{}=;#\"", c);
}

/* Reads the next token into lx->tok (and lx->word). */
static void next(struct lexer *lx)
{
	const char *s;

	free(lx->word);
	lx->word = NULL;
	for (;;) {
		while (lx->p < lx->end && strchr(" \t\r\n\v\f", *lx->p) && *lx->p) {
			if (*lx->p == '\n')
				lx->line++;
			lx->p++;
		}
		if (lx->p < lx->end && *lx->p == '#') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			continue;
		}
		break;
	}
	lx->tok_line = lx->line;
	if (lx->p >= lx->end) {
		lx->tok = T_END;
		return;
	}
	switch (*lx->p) {
	case '{':
		lx->tok = T_LBRACE;
		lx->p++;
		return;
	case '}':
		lx->tok = T_RBRACE;
		lx->p++;
		return;
	case '=':
		lx->tok = T_EQ;
		lx->p++;
		return;
	case ';':
		lx->tok = T_SEMI;
		lx->p++;
		return;
	case '"':
		s = ++lx->p;
		while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n' && *lx->p)
			lx->p++;
		if (lx->p >= lx->end || *lx->p != '"') {
			lx->tok = T_BAD;
			fail(lx, -EINVAL, "unterminated string");
			return;
		}
		lx->word = strndup(s, (size_t)(lx->p - s));
		lx->p++;
		break;
	default:
		s = lx->p;
		while (lx->p < lx->end && is_word_char(*lx->p))
			lx->p++;
		if (lx->p == s) { /* a NUL byte */
			lx->tok = T_BAD;
			fail(lx, -EINVAL, "unexpected character");
			return;
		}
		lx->word = strndup(s, (size_t)(lx->p - s));
		break;
	}
	if (!lx->word) {
		lx->tok = T_BAD;
		fail(lx, -ENOMEM, "out of memory");
		return;
	}
	lx->tok = T_WORD;
}

static const char *tok_name(enum tok t)
{
	static const char *const names[] = { "end of file", "a word", "'{'",        "'}'",
					     "'='",         "';'",    "a bad token" };

	return names[t];
}

static int expect(struct lexer *lx, enum tok t)
{
	if (lx->tok != t)
		return fail(lx, -EINVAL, "expected %s, found %s", tok_name(t), tok_name(lx->tok));
	next(lx);
	return lx->failed;
}

/* Takes the current word (which must be one). */
static char *take_word(struct lexer *lx, const char *what)
{
	char *w;

	if (lx->tok != T_WORD) {
		fail(lx, -EINVAL, "expected %s, found %s", what, tok_name(lx->tok));
		return NULL;
	}
	w = lx->word;
	lx->word = NULL;
	next(lx);
	return w;
}

/* KEY = VALUE [;] with the ';' optional only before a '}'. */
static int key_value(struct lexer *lx, char **key, char **value)
{
	*key = take_word(lx, "a name");
	*value = NULL;
	if (!*key)
		return lx->failed;
	if (expect(lx, T_EQ) < 0)
		return lx->failed;
	*value = take_word(lx, "a value");
	if (!*value)
		return lx->failed;
	if (lx->tok == T_SEMI)
		next(lx);
	else if (lx->tok != T_RBRACE)
		return fail(lx, -EINVAL, "expected ';' after the value of %s", *key);
	return lx->failed;
}

static int grow(void **arr, int n, size_t size)
{
	void *p;

	if (n & (n - 1) && n) /* room left: sizes go 1, 2, 4, ... */
		return 0;
	p = realloc(*arr, (size_t)(n ? 2 * n : 1) * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

static int parse_mode(struct lexer *lx, const char *key, const char *v, int *out)
{
	char *end;
	long m = strtol(v, &end, 8);

	if (!*v || *end || m < 0 || m > 07777)
		return fail(lx, -EINVAL, "%s: '%s' is not an octal mode", key, v);
	*out = (int)m;
	return 0;
}

/* task { ... } or admin { ... } inside perm. */
static int perm_block(struct lexer *lx, struct ucg_cgc_perm *p, int admin)
{
	if (expect(lx, T_LBRACE) < 0)
		return lx->failed;
	while (lx->tok == T_WORD) {
		char *k, *v;
		int r = key_value(lx, &k, &v);
		char **slot = NULL;

		if (r == 0) {
			if (!strcmp(k, "uid"))
				slot = admin ? &p->admin_uid : &p->task_uid;
			else if (!strcmp(k, "gid"))
				slot = admin ? &p->admin_gid : &p->task_gid;
			else if (!strcmp(k, "fperm"))
				r = parse_mode(lx, k, v, admin ? &p->admin_fperm : &p->task_fperm);
			else if (admin && !strcmp(k, "dperm"))
				r = parse_mode(lx, k, v, &p->admin_dperm);
			else
				r = fail(lx, -EINVAL, "unknown %s setting '%s'",
					 admin ? "admin" : "task", k);
		}
		if (slot) {
			free(*slot);
			*slot = v;
			v = NULL;
		}
		free(k);
		free(v);
		if (r < 0)
			return r;
	}
	return expect(lx, T_RBRACE);
}

static void perm_init(struct ucg_cgc_perm *p)
{
	memset(p, 0, sizeof(*p));
	p->task_fperm = p->admin_dperm = p->admin_fperm = -1;
}

static void perm_fini(struct ucg_cgc_perm *p)
{
	free(p->task_uid);
	free(p->task_gid);
	free(p->admin_uid);
	free(p->admin_gid);
}

/* perm { task {...} admin {...} }, the word `perm` already read. */
static int perm_section(struct lexer *lx, struct ucg_cgc_perm *p)
{
	if (p->present)
		return fail(lx, -EINVAL, "a second perm section");
	p->present = 1;
	if (expect(lx, T_LBRACE) < 0)
		return lx->failed;
	while (lx->tok == T_WORD) {
		int admin = !strcmp(lx->word, "admin");

		if (!admin && strcmp(lx->word, "task"))
			return fail(lx, -EINVAL, "expected task or admin in perm, found '%s'",
				    lx->word);
		next(lx);
		if (perm_block(lx, p, admin) < 0)
			return lx->failed;
	}
	return expect(lx, T_RBRACE);
}

static int ctrl_section(struct lexer *lx, struct ucg_cgc_ctrl *c)
{
	if (expect(lx, T_LBRACE) < 0)
		return lx->failed;
	while (lx->tok == T_WORD) {
		struct ucg_cgc_param *pa;

		if (grow((void **)&c->params, c->nr_params, sizeof(*c->params)) < 0)
			return fail(lx, -ENOMEM, "out of memory");
		pa = &c->params[c->nr_params];
		if (key_value(lx, &pa->name, &pa->value) < 0) {
			free(pa->name);
			free(pa->value);
			return lx->failed;
		}
		c->nr_params++;
	}
	return expect(lx, T_RBRACE);
}

static void group_fini(struct ucg_cgc_group *g)
{
	int i, j;

	for (i = 0; i < g->nr_ctrls; i++) {
		for (j = 0; j < g->ctrls[i].nr_params; j++) {
			free(g->ctrls[i].params[j].name);
			free(g->ctrls[i].params[j].value);
		}
		free(g->ctrls[i].params);
		free(g->ctrls[i].name);
	}
	free(g->ctrls);
	perm_fini(&g->perm);
	free(g->name);
}

/* group NAME { ... } (also a template's body), the keyword already read. */
static int group_section(struct lexer *lx, struct ucg_cgc_group *g)
{
	g->line = lx->tok_line;
	g->name = take_word(lx, "a group name");
	if (!g->name)
		return lx->failed;
	if (expect(lx, T_LBRACE) < 0)
		return lx->failed;
	while (lx->tok == T_WORD) {
		struct ucg_cgc_ctrl *c;
		int i;

		if (!strcmp(lx->word, "perm")) {
			next(lx);
			if (perm_section(lx, &g->perm) < 0)
				return lx->failed;
			continue;
		}
		for (i = 0; i < g->nr_ctrls; i++)
			if (!strcmp(g->ctrls[i].name, lx->word))
				return fail(lx, -EINVAL, "controller %s twice in group %s",
					    lx->word, g->name);
		if (grow((void **)&g->ctrls, g->nr_ctrls, sizeof(*g->ctrls)) < 0)
			return fail(lx, -ENOMEM, "out of memory");
		c = &g->ctrls[g->nr_ctrls++];
		memset(c, 0, sizeof(*c));
		c->name = take_word(lx, "a controller");
		if (ctrl_section(lx, c) < 0)
			return lx->failed;
	}
	if (expect(lx, T_RBRACE) < 0)
		return lx->failed;
	if (!g->nr_ctrls)
		return fail(lx, -EINVAL, "group %s names no controller", g->name);
	return 0;
}

static int mount_section(struct lexer *lx, struct ucg_cgconfig *cfg)
{
	if (expect(lx, T_LBRACE) < 0)
		return lx->failed;
	while (lx->tok == T_WORD) {
		struct ucg_cgc_mount *m;
		int i;

		if (grow((void **)&cfg->mounts, cfg->nr_mounts, sizeof(*cfg->mounts)) < 0)
			return fail(lx, -ENOMEM, "out of memory");
		m = &cfg->mounts[cfg->nr_mounts];
		if (key_value(lx, &m->ctrl, &m->path) < 0) {
			free(m->ctrl);
			free(m->path);
			return lx->failed;
		}
		cfg->nr_mounts++;
		if (m->path[0] != '/')
			return fail(lx, -EINVAL, "mount point %s is not an absolute path", m->path);
		for (i = 0; i < cfg->nr_mounts - 1; i++)
			if (!strcmp(cfg->mounts[i].ctrl, m->ctrl))
				return fail(lx, -EINVAL, "controller %s mounted twice", m->ctrl);
	}
	return expect(lx, T_RBRACE);
}

static int section(struct lexer *lx, struct ucg_cgconfig *cfg)
{
	char *kw = take_word(lx, "a section (mount, group, default, template)");
	int r;

	if (!kw)
		return lx->failed;
	if (!strcmp(kw, "mount")) {
		r = mount_section(lx, cfg);
	} else if (!strcmp(kw, "group") || !strcmp(kw, "template")) {
		int tmpl = kw[0] == 't';
		struct ucg_cgc_group g;

		memset(&g, 0, sizeof(g));
		perm_init(&g.perm);
		r = group_section(lx, &g);
		if (r == 0 && !tmpl) {
			r = grow((void **)&cfg->groups, cfg->nr_groups, sizeof(*cfg->groups));
			if (r == 0) {
				cfg->groups[cfg->nr_groups++] = g;
				memset(&g, 0, sizeof(g));
			} else {
				fail(lx, r, "out of memory");
			}
		}
		cfg->nr_templates += tmpl && r == 0;
		group_fini(&g);
	} else if (!strcmp(kw, "default")) {
		r = expect(lx, T_LBRACE);
		if (r == 0 && (lx->tok != T_WORD || strcmp(lx->word, "perm")))
			r = fail(lx, -EINVAL, "expected perm in the default section");
		if (r == 0) {
			next(lx);
			r = perm_section(lx, &cfg->dflt);
		}
		if (r == 0)
			r = expect(lx, T_RBRACE);
	} else {
		r = fail(lx, -EINVAL, "unknown section '%s'", kw);
	}
	free(kw);
	return r < 0 ? r : lx->failed;
}

void ucg_cgconfig_free(struct ucg_cgconfig *cfg)
{
	int i;

	for (i = 0; i < cfg->nr_mounts; i++) {
		free(cfg->mounts[i].ctrl);
		free(cfg->mounts[i].path);
	}
	free(cfg->mounts);
	for (i = 0; i < cfg->nr_groups; i++)
		group_fini(&cfg->groups[i]);
	free(cfg->groups);
	perm_fini(&cfg->dflt);
	memset(cfg, 0, sizeof(*cfg));
	perm_init(&cfg->dflt);
}

int ucg_cgconfig_parse(const char *text, size_t len, struct ucg_cgconfig *cfg, char *err,
		       size_t errlen)
{
	struct lexer lx = { text, text + len, 1, T_END, NULL, 1, err, errlen, 0 };

	memset(cfg, 0, sizeof(*cfg));
	perm_init(&cfg->dflt);
	if (errlen)
		err[0] = '\0';
	next(&lx);
	while (!lx.failed && lx.tok != T_END)
		section(&lx, cfg);
	free(lx.word);
	if (lx.failed)
		ucg_cgconfig_free(cfg);
	return lx.failed;
}

unsigned ucg_cgc_masked_mode(unsigned current, unsigned perm)
{
	unsigned o = (current >> 6) & 7;

	return perm & (o << 6 | o << 3 | o);
}
