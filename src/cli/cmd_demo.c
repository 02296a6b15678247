/* cli/cmd_demo.c — the seed's shell session against an in-memory engine. */
#include "cli/commands.h"

#include <stdio.h>

int cmd_demo(int argc, char **argv)
{
	fprintf(stderr, "ucg: demo: the engine is not built yet\n");
	return 1;
}
