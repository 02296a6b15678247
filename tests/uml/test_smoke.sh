#!/bin/bash
# The environment run-in-uml promises: a v2-only kernel with cgroup2 mounted and its
# controllers enabled, /dev/fuse, the process-events connector.
. "$(dirname "$0")/lib.sh" "$1" "$2"

check "cgroup2 on /sys/fs/cgroup" "$(stat -f -c %T $CG2)" "cgroup2fs"
check "no v1 hierarchy mounted" "$(grep -c ' cgroup ' /proc/mounts)" "0"
check "controllers" "$(cat $CG2/cgroup.controllers)" "cpu io memory pids"
check "enabled for children" "$(cat $CG2/cgroup.subtree_control)" "cpu io memory pids"
check "one CPU" "$(nproc)" "1"
check "/dev/fuse opens" "$( (exec 4<>/dev/fuse) 2>&1 && echo OK)" "OK"
check "fuse.ko loaded" "$(grep -c '^fuse ' /proc/modules)" "1"
check "cn.ko loaded" "$(grep -c '^cn ' /proc/modules)" "1"
check "/run writable" "$(touch /run/x && rm /run/x && echo OK)" "OK"
check "/tmp writable" "$(mktemp -d /tmp/smoke.XXXXXX | grep -c /tmp/smoke)" "1"

# A v2 child: a shell moved in, /proc/self/cgroup, the child's controllers, back out.
mkdir $CG2/smoke
check "v2 child controllers" "$(cat $CG2/smoke/cgroup.controllers)" "cpu io memory pids"
check "v2 membership" "$(sh -c 'echo $$ > '$CG2'/smoke/cgroup.procs; cat /proc/self/cgroup')" "0::/smoke"
check "v2 empty after exit" "$(cat $CG2/smoke/cgroup.procs)" ""
check "v2 rmdir" "$(rmdir $CG2/smoke && echo OK)" "OK"
check "ucg runs here" "$("$UCG" demo >/dev/null 2>&1; echo $?)" "0"
uml_done
