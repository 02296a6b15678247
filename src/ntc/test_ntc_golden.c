/* ntc/test_ntc_golden.c — replays tests/ntc/golden/NAME.tc through the model and
 * compares with NAME.out, recorded from real tc on a veth (record-golden.sh).
 *
 * The instance mirrors the recording namespace: lo and a veth-like eth0 (no queue by
 * default). Automatic handles (8xxx:) come from a system-wide kernel counter, so both
 * sides map them, in order of appearance, to A1:, A2:, ... before comparing. Each
 * command's block (stdout, stderr, exit status) is one check.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "harness.h"
#include "ntc/ntc.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

/* Replaces "8xxx:" auto handles by "A<n>:" in order of appearance. */
static void normalise(char *s)
{
	char seen[64][8];
	int nseen = 0;
	struct ucg_buf b;

	ucg_buf_init(&b);
	for (char *p = s; *p;) {
		if (*p == '8' && (p == s || p[-1] == ' ') && isxdigit((unsigned char)p[1]) &&
		    isxdigit((unsigned char)p[2]) && isxdigit((unsigned char)p[3]) && p[4] == ':') {
			int k;

			for (k = 0; k < nseen && memcmp(seen[k], p, 4); k++)
				;
			if (k == nseen && nseen < 64)
				memcpy(seen[nseen++], p, 4);
			ucg_buf_printf(&b, "A%d:", k + 1);
			p += 5;
			continue;
		}
		ucg_buf_putc(&b, *p++);
	}
	memcpy(s, b.data ? b.data : "", b.len + 1);
	ucg_buf_fini(&b);
}

static void run_case(const char *name)
{
	char path[4096], *tc, *want, *line, *save = NULL;
	const char *root = getenv("UCG_SOURCE_ROOT");
	struct ucg_buf got;
	struct ntc *n;
	int ok = 0, total = 0;

	snprintf(path, sizeof(path), "%s/tests/ntc/golden/%s.tc", root ? root : ".", name);
	tc = slurp(path);
	snprintf(path, sizeof(path), "%s/tests/ntc/golden/%s.out", root ? root : ".", name);
	want = slurp(path);
	if (!tc || !want) {
		free(tc);
		free(want);
		T_SKIP("golden files not found (set UCG_SOURCE_ROOT)");
	}
	T_CHECK(ntc_new(&n) == 0);
	/* the recording kernel lacks these (see bench/ntc-vs-kernel.sh) */
	T_CHECK(ntc_disable_kinds(n, "prio sfq drr cgroup fw basic matchall") == 0);
	T_CHECK(ntc_dev_add(n, "lo", 0, 1000, 65536, 1, NTC_DEV_NOQUEUE, NULL) == 0);
	T_CHECK(ntc_dev_add(n, "eth0", 10000000000ull, 1000, 1500, 1, NTC_DEV_NOQUEUE, NULL) == 0);
	ucg_buf_init(&got);
	for (line = strtok_r(tc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ucg_buf out, warn;
		struct ntc_err err;
		int r;

		if (!*line || *line == '#')
			continue;
		ucg_buf_init(&out);
		ucg_buf_init(&warn);
		r = ntc_tc_line(n, line, &out, &warn, &err);
		ucg_buf_printf(&got, "$ %s\n", line);
		if (out.len)
			ucg_buf_puts(&got, out.data);
		if (warn.len)
			ucg_buf_puts(&got, warn.data);
		if (r < 0)
			ucg_buf_printf(&got, "%s\n[exit %d]\n", err.msg, err.exit_code);
		ucg_buf_fini(&out);
		ucg_buf_fini(&warn);
	}
	normalise(want);
	normalise(got.data);
	/* compare block by block */
	{
		char *w = want, *g = got.data;

		while (*w || *g) {
			char *wn = strstr(w + 1, "\n$ "), *gn = strstr(g + 1, "\n$ ");
			size_t wl = wn ? (size_t)(wn - w) : strlen(w);
			size_t gl = gn ? (size_t)(gn - g) : strlen(g);

			total++;
			if (wl == gl && !memcmp(w, g, wl)) {
				ok++;
			} else {
				fprintf(stderr, "  %s: mismatch\n--- want\n%.*s\n--- got\n%.*s\n", name,
					(int)wl, w, (int)gl, g);
			}
			w += wl;
			g += gl;
			if (!*w || !*g) {
				if (*w || *g)
					total++;
				break;
			}
		}
	}
	printf("     %s: %d of %d commands match real tc\n", name, ok, total);
	T_EQ_INT(ok, total);
	ucg_buf_fini(&got);
	ntc_free(n);
	free(tc);
	free(want);
}

static void golden_qdisc_basic(void) { run_case("qdisc_basic"); }
static void golden_tbf(void) { run_case("tbf"); }
static void golden_htb(void) { run_case("htb"); }
static void golden_filter(void) { run_case("filter"); }
static void golden_class_order(void) { run_case("class_order"); }
static void golden_errors(void) { run_case("errors"); }

int main(void)
{
	T_RUN(golden_qdisc_basic);
	T_RUN(golden_tbf);
	T_RUN(golden_htb);
	T_RUN(golden_filter);
	T_RUN(golden_class_order);
	T_RUN(golden_errors);
	return t_done();
}
