/* tests/fuzz/replay_corpus.c — runs one fuzz target over every file of its corpus,
 * so that each test run replays the corpora without libFuzzer.
 *
 *   replay_corpus TARGET [DIR]
 *
 * TARGET is memparse, cpulist or devices (the target linked into this binary must
 * match); DIR defaults to $UCG_SOURCE_ROOT/tests/fuzz/corpus/TARGET. Each file is a
 * case; a target that finds a broken invariant aborts, which fails the program. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "harness.h"

#ifndef UCG_REPLAY_TARGET
#error "build with -DUCG_REPLAY_TARGET=<name>"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads path into a malloc'd exact-size block (so ASan sees any overread). */
static unsigned char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = malloc((size_t)len ? (size_t)len : 1);
		if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
			free(data);
			data = NULL;
		}
		*ret_len = (size_t)len;
	}
	fclose(f);
	return data;
}

int main(int argc, char **argv)
{
	const char *target = argc > 1 ? argv[1] : STR(UCG_REPLAY_TARGET);
	char dir[4096], path[8192];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (strcmp(target, STR(UCG_REPLAY_TARGET)) != 0) {
		fprintf(stderr, "this binary replays %s, not %s\n", STR(UCG_REPLAY_TARGET), target);
		return 2;
	}
	if (argc > 2) {
		snprintf(dir, sizeof(dir), "%s", argv[2]);
	} else {
		const char *root = getenv("UCG_SOURCE_ROOT");

		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", root ? root : ".", target);
	}
	d = opendir(dir);
	if (!d) {
		t_state.case_name = "open corpus";
		T_FAIL_AT("cannot open %s", dir);
		t_state.failed++;
		return t_done();
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		unsigned char *data;
		size_t len = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		t_state.case_name = names[i];
		t_state.case_failed = 0;
		data = slurp(path, &len);
		if (!data) {
			T_FAIL_AT("cannot read %s", path);
		} else {
			/* the target aborts on a broken invariant */
			LLVMFuzzerTestOneInput(data, len);
			free(data);
		}
		if (t_state.case_failed) {
			t_state.failed++;
			printf("FAIL %s\n", names[i]);
		} else {
			t_state.passed++;
			printf("ok   %s\n", names[i]);
		}
		free(names[i]);
	}
	free(names);
	if (!n) {
		t_state.case_name = "corpus";
		T_FAIL_AT("%s is empty", dir);
		t_state.failed++;
	}
	return t_done();
}
