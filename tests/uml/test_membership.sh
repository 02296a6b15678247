#!/bin/bash
# Membership comes from the kernel. After 1,000 forks and exits in a cgroup, ucg's v1
# cgroup.procs, tasks and pids.current equal the kernel's v2 cgroup.procs of the leaf
# the processes are in. (This kernel has no process-events connector: without the
# backend the daemon sees no fork at all.)
. "$(dirname "$0")/lib.sh" "$1" "$2"

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt pids pids) || { bad "ucg mount -o pids"; uml_done; exit 1; }
mkdir $M/m
spawn sh -c "echo \$\$ > $M/m/cgroup.procs && exec $HELPERS/forker churn 1000 5" > /tmp/churn.out
F=$LAST
wait_line /tmp/churn.out ready $F 600
check "1,000 forks and exits done" "$(cat /tmp/churn.out)" "ready"
leaf=$(sed -n 's/^0:://p' /proc/$F/cgroup)
[ -n "$leaf" ] && [ "$leaf" != / ] && ok "the forker sits in a v2 leaf ($leaf)" || bad "the forker is in the v2 root"
kernel=$(sort -n $CG2$leaf/cgroup.procs | tr '\n' ' ')
check "six processes in the leaf" "$(wc -w <<<"$kernel")" "6"
check "cgroup.procs = the kernel's" "$(sort -n $M/m/cgroup.procs | tr '\n' ' ')" "$kernel"
check "tasks = the kernel's" "$(sort -n $M/m/tasks | tr '\n' ' ')" "$kernel"
check "pids.current" "$(cat $M/m/pids.current)" "6"
kill $F; wait $F 2>/dev/null
for ((i = 0; i < 100; i++)); do [ -z "$(< $M/m/cgroup.procs)" ] && break; nap 0.05; done
check "empty after the exits" "$(cat $M/m/cgroup.procs | wc -l)" "0"
check "rmdir" "$(rmdir $M/m && echo OK)" "OK"
uml_done
