#!/bin/bash
# The ucg daemon on a v2-only kernel: start with a runtime dir under /run, mount a
# hierarchy, mkdir, attach this shell, read it back, unmount, stop. (Fork inheritance
# is test_membership.sh: this kernel has no process-events connector, since
# CONFIG_PROC_EVENTS needs CONFIG_CONNECTOR=y and Debian's UML builds it as a module.)
. "$(dirname "$0")/lib.sh" "$1" "$2"

ucg_start || { bad "daemon starts"; cat "$UCG_RUNTIME_DIR/daemon.out"; uml_done; exit 1; }
ok "daemon starts"
M=$(ucg_mnt pids pids) || { bad "ucg mount -o pids"; uml_done; exit 1; }
ok "ucg mount -o pids"
check "mounted as fuse" "$(stat -f -c %T $M)" "fuseblk"
check "root files" "$(ls $M | grep -c -x -e cgroup.procs -e tasks -e pids.current)" "2"
check "mkdir" "$(mkdir $M/a && echo OK)" "OK"
check "child files" "$(ls $M/a | grep -c -x -e pids.max -e pids.current -e cgroup.procs)" "3"
echo $$ > $M/a/cgroup.procs
check "attach this shell" "$(grep -c -x $$ $M/a/cgroup.procs)" "1"
check "gone from the root" "$(grep -c -x $$ $M/cgroup.procs)" "0"
check "ucg proc" "$("$UCG" proc $$ | grep -c ':pids:/a$')" "1"
echo $$ > $M/cgroup.procs
check "back to the root" "$(grep -c -x $$ $M/cgroup.procs)" "1"
check "rmdir" "$(rmdir $M/a && echo OK)" "OK"
check "ucg umount" "$("$UCG" umount $M && echo OK)" "OK"
check "unmounted" "$(mountpoint -q $M && echo mounted || echo gone)" "gone"
if ucg_stop; then ok "daemon stops"; else bad "daemon stops"; fi
uml_done
