/* cli/cmd_tc.c — placeholder until the NTC model lands (issue 5). */
#include "cli/commands.h"

#include <stdio.h>

int cmd_tc(int argc, char **argv)
{
	fprintf(stderr, "ucg: tc: the traffic-control model is not built yet\n");
	return 1;
}
