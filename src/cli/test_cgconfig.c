/* Unit tests of cli/cgconfig.c: cgconfig.conf(5)'s grammar, its examples, and the
 * errors a bad file gets (line numbers, nothing kept). */
#include "cli/cgconfig.h"

#include "harness.h"

#include <errno.h>
#include <string.h>

static char err[256];

static int parse(const char *text, struct ucg_cgconfig *cfg)
{
	return ucg_cgconfig_parse(text, strlen(text), cfg, err, sizeof(err));
}

/* The man page's example 3, comments and all. */
static void test_man_example(void)
{
	struct ucg_cgconfig c;
	const char *text = "# the man page's example 3\n"
			   "mount {\n"
			   "\tcpu = /sys/fs/cgroup/cpu;\n"
			   "\tcpuacct = /sys/fs/cgroup/cpu;\n"
			   "}\n"
			   "group daemons/www {\n"
			   "\tperm {\n"
			   "\t\ttask { uid = root; gid = webmaster; fperm = 770; }\n"
			   "\t\tadmin { uid = root; gid = root; dperm = 775; fperm = 744 }\n"
			   "\t}\n"
			   "\tcpu { cpu.shares = \"1000\"; }\n"
			   "}\n"
			   "group daemons/ftp { cpu { cpu.shares = 500; } }\n";

	T_EQ_INT(parse(text, &c), 0);
	T_EQ_INT(c.nr_mounts, 2);
	T_EQ_STR(c.mounts[1].ctrl, "cpuacct");
	T_EQ_STR(c.mounts[1].path, "/sys/fs/cgroup/cpu");
	T_EQ_INT(c.nr_groups, 2);
	T_EQ_STR(c.groups[0].name, "daemons/www");
	T_EQ_INT(c.groups[0].line, 6);
	T_EQ_INT(c.groups[0].perm.present, 1);
	T_EQ_STR(c.groups[0].perm.task_gid, "webmaster");
	T_EQ_INT(c.groups[0].perm.task_fperm, 0770);
	T_EQ_INT(c.groups[0].perm.admin_dperm, 0775);
	T_EQ_INT(c.groups[0].perm.admin_fperm, 0744);
	T_EQ_INT(c.groups[0].nr_ctrls, 1);
	T_EQ_STR(c.groups[0].ctrls[0].params[0].name, "cpu.shares");
	T_EQ_STR(c.groups[0].ctrls[0].params[0].value, "1000");
	T_EQ_INT(c.groups[1].perm.present, 0);
	T_EQ_INT(c.groups[1].perm.task_fperm, -1);
	T_EQ_STR(c.groups[1].ctrls[0].params[0].value, "500");
	ucg_cgconfig_free(&c);
}

/* Quoted names (named hierarchies), values with blanks, empty controller blocks,
 * default and template sections, many parameters (the arrays grow). */
static void test_quotes_default_template(void)
{
	struct ucg_cgconfig c;
	const char *text =
		"default { perm { admin { uid = 0; gid = 0; dperm = 755; } } }\n"
		"group test { \"name=noctrl\" { } }\n"
		"template users/%u { cpu { cpu.shares = 100; } }\n"
		"group x {\n"
		" devices { devices.deny = \"c 1:3 rwm\"; devices.allow = \"c 1:5 r\"; }\n"
		" memory { memory.limit_in_bytes = 256M; a = 1; b = 2; c = 3; d = 4; e = 5; }\n"
		"}\n";

	T_EQ_INT(parse(text, &c), 0);
	T_EQ_INT(c.dflt.present, 1);
	T_EQ_INT(c.dflt.admin_dperm, 0755);
	T_EQ_INT(c.nr_templates, 1);
	T_EQ_INT(c.nr_groups, 2);
	T_EQ_STR(c.groups[0].ctrls[0].name, "name=noctrl");
	T_EQ_INT(c.groups[0].ctrls[0].nr_params, 0);
	T_EQ_STR(c.groups[1].ctrls[0].params[0].value, "c 1:3 rwm");
	T_EQ_INT(c.groups[1].ctrls[1].nr_params, 6);
	T_EQ_STR(c.groups[1].ctrls[1].params[5].name, "e");
	ucg_cgconfig_free(&c);
	T_EQ_INT(parse("", &c), 0);
	T_EQ_INT(c.nr_groups + c.nr_mounts, 0);
	ucg_cgconfig_free(&c);
}

/* Each bad file: -EINVAL, a message naming its line, and nothing in the config. */
static void bad(const char *text, const char *want)
{
	struct ucg_cgconfig c;

	T_EQ_INT(parse(text, &c), -EINVAL);
	T_EQ_STR(err, want);
	T_EQ_INT(c.nr_groups + c.nr_mounts, 0);
	T_CHECK(c.groups == NULL && c.mounts == NULL);
}

static void test_errors(void)
{
	bad("group", "line 1: expected a group name, found end of file");
	bad("group a {\n cpu { cpu.shares = 1 }\n", "line 3: expected '}', found end of file");
	bad("group a { cpu { cpu.shares = 1 cpu.cfs_quota_us = 2; } }",
	    "line 1: expected ';' after the value of cpu.shares");
	bad("group a {\n}", "line 2: group a names no controller");
	bad("group a { cpu { } cpu { } }", "line 1: controller cpu twice in group a");
	bad("\n\nnamespace { cpu = /x; }", "line 3: unknown section 'namespace'");
	bad("mount { cpu = relative; }", "line 1: mount point relative is not an absolute path");
	bad("mount { cpu = /a; cpu = /b; }", "line 1: controller cpu mounted twice");
	bad("group a { perm { task { fperm = 8; } } cpu { } }",
	    "line 1: fperm: '8' is not an octal mode");
	bad("group a { perm { task { dperm = 755; } } cpu { } }",
	    "line 1: unknown task setting 'dperm'");
	bad("group a { perm { other { } } cpu { } }",
	    "line 1: expected task or admin in perm, found 'other'");
	bad("group a { perm { } perm { } cpu { } }", "line 1: a second perm section");
	bad("group a { cpu { x = \"unterminated; } }", "line 1: unterminated string");
	bad("default { cpu { } }", "line 1: expected perm in the default section");
	bad("group a { cpu { x = 1; } } }", "line 1: expected a section (mount, group, default, "
					    "template), found '}'");
}

/* fperm/dperm as cgconfigparser applies them (tests/fs/fs_cgconfig.sh compares
 * with libcgroup on the kernel): masked by the owner bits of the current mode. */
static void test_masked_mode(void)
{
	T_EQ_INT(ucg_cgc_masked_mode(0644, 0744), 0644);
	T_EQ_INT(ucg_cgc_masked_mode(0644, 0770), 0660);
	T_EQ_INT(ucg_cgc_masked_mode(0222, 0744), 0200);
	T_EQ_INT(ucg_cgc_masked_mode(0444, 0700), 0400);
	T_EQ_INT(ucg_cgc_masked_mode(0755, 0775), 0775);
	T_EQ_INT(ucg_cgc_masked_mode(0555, 0777), 0555);
}

int main(void)
{
	T_RUN(test_man_example);
	T_RUN(test_quotes_default_template);
	T_RUN(test_errors);
	T_RUN(test_masked_mode);
	return t_done();
}
