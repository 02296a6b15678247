#!/bin/bash
# A hog over memory.limit_in_bytes, written through ucg's v1 file, is OOM-killed, and
# memory.failcnt and memory.oom_control's oom_kill count it (the kernel's memory.max and
# memory.events on the v2 leaf).
. "$(dirname "$0")/lib.sh" "$1" "$2"

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt memory memory) || { bad "ucg mount -o memory"; uml_done; exit 1; }
mkdir $M/m
echo 32M > $M/m/memory.limit_in_bytes
check "limit reads back" "$(cat $M/m/memory.limit_in_bytes)" "33554432"
# 128 MiB against 32: the kernel has no swap here, so the OOM killer must act.
out=$(sh -c "echo \$\$ > $M/m/cgroup.procs && exec $HELPERS/hog 128")
status=$?
check "hog killed by SIGKILL" "$status $out" "137 "
within "failcnt counts the failed charges" "$(cat $M/m/memory.failcnt)" 1 999999999
check "oom_kill counts it" "$(sed -n 's/^oom_kill //p' $M/m/memory.oom_control)" "1"
within "max_usage_in_bytes up to the limit (KiB)" "$(($(cat $M/m/memory.max_usage_in_bytes) / 1024))" 24576 32768
# Control: without the limit the same hog survives.
echo -1 > $M/m/memory.limit_in_bytes
out=$(sh -c "echo \$\$ > $M/m/cgroup.procs && exec $HELPERS/hog 128")
check "no limit: the hog survives" "$? $out" "0 survived"
uml_done
