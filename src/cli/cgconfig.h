/* cli/cgconfig.h — libcgroup's cgconfig.conf, parsed (`ucg up -f FILE`).
 *
 * The grammar of cgconfig.conf(5): `mount { CONTROLLER = PATH; ... }`,
 * `group NAME { [perm { task {...} admin {...} }] CONTROLLER { PARAM = VALUE; ... } ... }`,
 * `default { perm {...} }` and `template NAME { ... }`. Words are runs of anything but
 * blanks and `{}=;#"`, or double-quoted strings (which may hold blanks); `#` starts a
 * comment to the end of the line. The `;` before a `}` may be left out, as the man
 * page's own examples do. Parsing is pure (no I/O): the whole file is parsed before
 * anything is applied, so a file with an error changes nothing.
 */
#ifndef UCG_CLI_CGCONFIG_H
#define UCG_CLI_CGCONFIG_H

#include <stddef.h>

/* `perm { task {...} admin {...} }`: names as written (a user or group name, or a
 * number); NULL and -1 where left out. */
struct ucg_cgc_perm {
	int present;
	char *task_uid, *task_gid;
	int task_fperm;
	char *admin_uid, *admin_gid;
	int admin_dperm, admin_fperm;
};

struct ucg_cgc_param {
	char *name, *value;
};

/* One `CONTROLLER { ... }` block of a group: "cpu", "name=x" (a named hierarchy). */
struct ucg_cgc_ctrl {
	char *name;
	struct ucg_cgc_param *params;
	int nr_params;
};

struct ucg_cgc_group {
	char *name; /* "a/b": parents are made as needed; "." is the root */
	int line;   /* where it starts, for messages */
	struct ucg_cgc_perm perm;
	struct ucg_cgc_ctrl *ctrls;
	int nr_ctrls;
};

/* `CONTROLLER = PATH` of the mount section; controller may carry options
 * ("cpu,nosuid") as the man page allows. */
struct ucg_cgc_mount {
	char *ctrl, *path;
};

struct ucg_cgconfig {
	struct ucg_cgc_mount *mounts;
	int nr_mounts;
	struct ucg_cgc_group *groups; /* in file order */
	int nr_groups;
	int nr_templates;         /* parsed and counted, not applied: they are cgrulesengd's */
	struct ucg_cgc_perm dflt; /* the default section's perm (present = 0 if none) */
};

/* Parses text[0..len). 0, or -EINVAL with "line N: what" in err, or -ENOMEM. On
 * error *cfg holds nothing (freed). */
int ucg_cgconfig_parse(const char *text, size_t len, struct ucg_cgconfig *cfg, char *err,
		       size_t errlen);
void ucg_cgconfig_free(struct ucg_cgconfig *cfg);

/* A file mode as cgconfigparser applies fperm/dperm: the value is masked by the
 * owner's permission bits of the current mode, copied to group and other (fperm 744
 * on a 0222 file gives 0200). */
unsigned ucg_cgc_masked_mode(unsigned current, unsigned perm);

#endif
