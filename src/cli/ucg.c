/* cli/ucg.c — the `ucg` entry point: dispatches to a subcommand, like ip(8) or git. */
#include "cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* The daemon's commands need the FUSE filesystem; a ucg built without it
 * (-Dfuse=disabled) keeps their names, with no run, to say they are not built in. */
#ifdef UCG_HAVE_FUSE
#define FS_CMD(fn) fn
#else
#define FS_CMD(fn) NULL
#endif

static const struct command commands[] = {
	{ "demo", cmd_demo, "run the seed's shell session against an in-memory engine" },
	{ "tc", cmd_tc, "traffic control on a model instance (tc grammar)" },
	{ "daemon", FS_CMD(cmd_daemon),
	  "daemon [--detach] [--pidfile FILE] [--cache] [--no-enforce] [--sync]: the filesystem "
	  "daemon" },
	{ "mount", FS_CMD(cmd_mount), "mount [-o OPTIONS] NAME DIR: mount a hierarchy (FUSE)" },
	{ "umount", FS_CMD(cmd_umount), "umount DIR: unmount a hierarchy" },
	{ "proc", FS_CMD(cmd_proc), "proc PID: what /proc/PID/cgroup would show" },
	{ "cgroups", FS_CMD(cmd_cgroups), "what /proc/cgroups would show" },
	{ "up", FS_CMD(cmd_up), "up [ROOT]: mount the default layout (default /run/ucgroups-fs)" },
	{ "down", FS_CMD(cmd_down),
	  "down [--reset] [ROOT]: unmount what `up` mounted; --reset: stop the daemon, forget its "
	  "state" },
	{ "ctl", FS_CMD(cmd_fsstat),
	  "ctl stats|mounts|ping|compact|stop [--reset]: ping prints the daemon's pid; compact "
	  "writes a snapshot of its state now; stop waits for its exit" },
	{ "ls", cmd_ls, "ls [DIR]: the cgroup trees under DIR with process counts" },
	{ "exec", FS_CMD(cmd_exec),
	  "exec [-g CTRL:PATH]... CMD: run CMD in ucg's cgroups, in the v1 view" },
	{ "shell", FS_CMD(cmd_shell), "shell [-g CTRL:PATH]...: a shell in the v1 view" },
	{ "classify", FS_CMD(cmd_classify),
	  "classify -g CTRL:PATH... PID...: move processes (cgclassify)" },
	{ "sim", cmd_sim,
	  "sim SCENARIO [--seed N] [--charging=D] [--[no-]progress]: run the simulator" },
};

static int usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ucg COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s%s\n", commands[i].name, commands[i].summary,
			commands[i].run ? "" : " (not built in)");
	return f == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			if (!commands[i].run) {
				fprintf(stderr,
					"ucg: %s: not built in (built without libfuse): %s\n",
					argv[1], strerror(ENOSYS));
				return 2;
			}
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "ucg: unknown command '%s' (try 'ucg help')\n", argv[1]);
	return 2;
}
