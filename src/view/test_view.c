/* view/test_view.c — the view's pure parts: which opens it answers (view/path.c) and
 * the kernel's mount-table lines it shows (view/mtab.c). */
#include <errno.h>
#include <string.h>

#include "base/buf.h"
#include "harness.h"
#include "view/mtab.h"
#include "view/path.h"

static const char *joined(const char *base, const char *path)
{
	static char out[256];

	if (view_path_join(base, path, out, sizeof(out)) < 0)
		return "(error)";
	return out;
}

static void test_join(void)
{
	char small[8];

	T_EQ_STR(joined(NULL, "/proc/self/cgroup"), "/proc/self/cgroup");
	T_EQ_STR(joined("/proc/self", "cgroup"), "/proc/self/cgroup");
	T_EQ_STR(joined("/proc", "./self//task/../mountinfo"), "/proc/self/mountinfo");
	T_EQ_STR(joined("/", "../../proc/./cgroups"), "/proc/cgroups");
	T_EQ_STR(joined("/a/b", "/x/.."), "/");
	T_EQ_INT(view_path_join(NULL, "relative", small, sizeof(small)), -EINVAL);
	T_EQ_INT(view_path_join(NULL, "/proc/self/cgroup", small, sizeof(small)), -ENAMETOOLONG);
}

static void test_classify(void)
{
	struct view_target t;

	T_EQ_INT(view_path_classify("/proc/self/cgroup", 10, 11, &t), VIEW_CGROUP);
	T_EQ_INT(t.pid, 10);
	T_EQ_INT(t.tid, 0);
	T_EQ_INT(view_path_classify("/proc/thread-self/cgroup", 10, 11, &t), VIEW_CGROUP);
	T_EQ_INT(t.pid, 10);
	T_EQ_INT(t.tid, 11);
	T_EQ_INT(view_path_classify("/proc/42/task/43/mountinfo", 10, 11, &t), VIEW_MOUNTINFO);
	T_EQ_INT(t.pid, 42);
	T_EQ_INT(t.tid, 43);
	T_EQ_INT(view_path_classify("/proc/mounts", 10, 11, &t), VIEW_MOUNTS);
	T_EQ_INT(t.pid, 10);
	T_EQ_INT(view_path_classify("/proc/7/mounts", 10, 11, &t), VIEW_MOUNTS);
	T_EQ_INT(t.pid, 7);
	T_EQ_INT(view_path_classify("/proc/cgroups", 10, 11, &t), VIEW_CGROUPS);
	/* not ours */
	T_EQ_INT(view_path_classify("/proc/self/stat", 10, 11, &t), VIEW_NONE);
	T_EQ_INT(view_path_classify("/proc/007/cgroup", 10, 11, &t), VIEW_NONE);
	T_EQ_INT(view_path_classify("/proc/self/cgroup/x", 10, 11, &t), VIEW_NONE);
	T_EQ_INT(view_path_classify("/proc/sys/cgroup", 10, 11, &t), VIEW_NONE);
	T_EQ_INT(view_path_classify("/proc/thread-self/task/3/cgroup", 10, 11, &t), VIEW_NONE);
	T_EQ_INT(view_path_classify("/sys/fs/cgroup/cgroup", 10, 11, &t), VIEW_NONE);
	T_EQ_INT(view_path_classify("/proc", 10, 11, &t), VIEW_NONE);
	T_CHECK(view_path_maybe("/proc/self/cgroup"));
	T_CHECK(view_path_maybe("//proc/mounts"));
	T_CHECK(view_path_maybe("cgroup"));
	T_CHECK(!view_path_maybe("/usr/lib/jvm/x.so"));
	T_CHECK(!view_path_maybe("/processes"));
}

static void test_hier(void)
{
	struct view_hier h;
	char name[64];
	const char *line = "cgroup /run/ucg/fs/cpu,cpuacct rw,cpu,cpuacct\n";

	T_EQ_INT(view_hier_parse(line, strlen(line), &h), 0);
	T_EQ_STR(h.dir, "/run/ucg/fs/cpu,cpuacct");
	T_EQ_STR(h.opts, "rw,cpu,cpuacct");
	line = "my cg /tmp/a dir rw,name=x";
	T_EQ_INT(view_hier_parse(line, strlen(line), &h), 0);
	T_EQ_STR(h.dir, "cg /tmp/a dir");
	T_EQ_INT(view_hier_parse("cgroup /x", 9, &h), -EINVAL);
	T_EQ_INT(view_hier_name("rw,cpu,cpuacct,release_agent=/bin/x", name, sizeof(name)), 0);
	T_EQ_STR(name, "cpu,cpuacct");
	T_EQ_INT(view_hier_name("rw,xattr,name=systemd", name, sizeof(name)), 0);
	T_EQ_STR(name, "systemd");
	T_EQ_INT(view_hier_name("rw,noprefix", name, sizeof(name)), -EINVAL);
	T_CHECK(view_hier_has("rw,cpu,cpuacct", "cpuacct"));
	T_CHECK(!view_hier_has("rw,cpu,cpuacct", "cpuset"));
	T_CHECK(!view_hier_has("rw,cpu,xattr", "xattr"));
	T_CHECK(view_hier_has("rw,name=systemd", "name=systemd"));
	T_EQ_INT(view_hier_count("rw,net_cls,net_prio,name=x"), 2);
}

static void test_mountinfo(void)
{
	static const char in[] =
		"22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
		"40 22 0:50 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime - "
		"fuse.cgroup cgroup rw,user_id=0,group_id=0,allow_other\n"
		"41 22 0:51 / /tmp/other rw,relatime shared:3 - fuse.cgroup x rw,user_id=0\n";
	struct view_hier hs[1] = { { .major = 0, .minor = 50, .opts = "rw,cpu,cpuacct" } };
	static const char tmpfs[] =
		"25 22 0:22 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs ro,lazytime,mode=755\n";
	struct ucg_buf out, m;

	ucg_buf_init(&out);
	ucg_buf_init(&m);
	view_mountinfo_rewrite(in, sizeof(in) - 1, hs, 1, &out);
	T_EQ_STR(out.data,
		 "22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
		 "40 22 0:50 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime - cgroup "
		 "cgroup rw,cpu,cpuacct\n"
		 "41 22 0:51 / /tmp/other rw,relatime shared:3 - fuse.cgroup x rw,user_id=0\n");
	view_mounts_format(out.data, out.len, &m);
	T_EQ_STR(m.data, "sysfs /sys sysfs rw,nosuid 0 0\n"
			 "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup "
			 "rw,nosuid,nodev,noexec,relatime,cpu,cpuacct 0 0\n"
			 "x /tmp/other fuse.cgroup rw,relatime,user_id=0 0 0\n");
	ucg_buf_reset(&m);
	/* superblock flags come first, a read-only superblock makes the line ro */
	view_mounts_format(tmpfs, strlen(tmpfs), &m);
	T_EQ_STR(m.data, "tmpfs /sys/fs/cgroup tmpfs ro,lazytime,nosuid,mode=755 0 0\n");
	ucg_buf_fini(&out);
	ucg_buf_fini(&m);
}

int main(void)
{
	T_RUN(test_join);
	T_RUN(test_classify);
	T_RUN(test_hier);
	T_RUN(test_mountinfo);
	return t_done();
}
