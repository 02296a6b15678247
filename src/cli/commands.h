/* cli/commands.h — the `ucg` subcommands. Each takes argv with argv[0] being the
 * subcommand's name and returns the process exit status. Only src/cli prints. */
#ifndef UCG_CLI_COMMANDS_H
#define UCG_CLI_COMMANDS_H

int cmd_demo(int argc, char **argv);
int cmd_tc(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_umount(int argc, char **argv);
int cmd_proc(int argc, char **argv);
int cmd_cgroups(int argc, char **argv);
int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_fsstat(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_shell(int argc, char **argv);
int cmd_classify(int argc, char **argv);

#endif
