/* tests/ntc/replay_tc.c — replays every file of tests/ntc/corpus (or DIR) through the
 * tc fuzz target, so each test run checks the corpus without libFuzzer. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	const char *root = getenv("UCG_SOURCE_ROOT");
	char dir[4096], path[8192];
	char *names[4096];
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	else
		snprintf(dir, sizeof(dir), "%s/tests/ntc/corpus", root ? root : ".");
	d = opendir(dir);
	if (!d) {
		t_state.case_name = "open corpus";
		T_FAIL_AT("cannot open %s", dir);
		t_state.failed++;
		return t_done();
	}
	while ((de = readdir(d)) && n < 4096)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		FILE *f;
		unsigned char *data = NULL;
		long len = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		t_state.case_name = names[i];
		t_state.case_failed = 0;
		f = fopen(path, "rb");
		if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
		    fseek(f, 0, SEEK_SET) == 0) {
			data = malloc(len ? (size_t)len : 1);
			if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
				free(data);
				data = NULL;
			}
		}
		if (f)
			fclose(f);
		if (!data) {
			T_FAIL_AT("cannot read %s", path);
		} else {
			LLVMFuzzerTestOneInput(data, (size_t)len); /* aborts on a broken invariant */
			free(data);
		}
		if (t_state.case_failed)
			t_state.failed++;
		else
			t_state.passed++;
		free(names[i]);
	}
	printf("replayed %zu corpus files\n", n);
	return t_done();
}
