/* cli/cgconfig_apply.h — a parsed cgconfig.conf applied to ucg's mounts (see
 * cgconfig_apply.c for the order and what a failure undoes). */
#ifndef UCG_CLI_CGCONFIG_APPLY_H
#define UCG_CLI_CGCONFIG_APPLY_H

#include "cli/cgconfig.h"

#include <stdio.h>

/* Mounts, creates and sets what cfg says through the daemon's filesystem; messages
 * (each ending with the errno's text) go to msg. 0, or the first error's -errno with
 * every change of this run undone. */
int ucg_cgconfig_apply(const struct ucg_cgconfig *cfg, FILE *msg);

#endif
