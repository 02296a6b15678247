/* cli/cmd_tc.c — `ucg tc`: tc(8) commands on a fresh NTC model instance.
 *
 *   ucg tc [ -s ] [ -d ] OBJECT COMMAND ...   one command on a fresh instance
 *   ucg tc -batch FILE                        every line of FILE on one instance
 *   ucg tc -batch -                           the same from standard input
 *
 * The instance has lo and eth0 (1 Gbit/s Ethernet). Output and messages are
 * iproute2's; like tc -batch, the first failing line stops the run with
 * "Command failed FILE:LINE" and exit status 1.
 */
#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "ntc/ntc.h"

static int run_one(struct ntc *n, int argc, char **argv, const char *line)
{
	struct ucg_buf out, warn;
	struct ntc_err err;
	int r;

	ucg_buf_init(&out);
	ucg_buf_init(&warn);
	r = line ? ntc_tc_line(n, line, &out, &warn, &err) : ntc_tc(n, argc, argv, &out, &warn, &err);
	if (out.len)
		fwrite(out.data, 1, out.len, stdout);
	fflush(stdout);
	if (warn.len)
		fwrite(warn.data, 1, warn.len, stderr);
	if (r < 0)
		fprintf(stderr, "%s\n", err.msg);
	ucg_buf_fini(&out);
	ucg_buf_fini(&warn);
	return r < 0 ? (err.exit_code ? err.exit_code : 1) : 0;
}

int cmd_tc(int argc, char **argv)
{
	struct ntc *n = NULL;
	int rc = 0;

	if (ntc_new_default(&n) < 0) {
		fprintf(stderr, "ucg: tc: out of memory\n");
		return 1;
	}
	if (argc >= 3 && (!strcmp(argv[1], "-batch") || !strcmp(argv[1], "-b"))) {
		const char *path = argv[2];
		FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
		char line[4096];
		unsigned lineno = 0;

		if (!f) {
			fprintf(stderr, "Cannot open file \"%s\" for reading: %m\n", path);
			ntc_free(n);
			return 1;
		}
		while (fgets(line, sizeof(line), f)) {
			lineno++;
			if (run_one(n, 0, NULL, line)) {
				fprintf(stderr, "Command failed %s:%u\n", path, lineno);
				rc = 1;
				break;
			}
		}
		if (f != stdin)
			fclose(f);
	} else if (argc < 2) {
		fprintf(stderr, "Usage: ucg tc [ -s ] [ -d ] OBJECT COMMAND ... | ucg tc -batch FILE\n");
		rc = 255;
	} else {
		rc = run_one(n, argc - 1, argv + 1, NULL);
	}
	ntc_free(n);
	return rc;
}
