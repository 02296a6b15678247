#!/bin/bash
# cgroup.event_control through the filesystem: the writer's eventfd and control fd
# are taken from its process (pidfd_getfd), bad fds get the kernel's errnos, and the
# removal of the cgroup signals the eventfd once (the kernel's memcg_event_remove).
# Thresholds and OOM do not fire on real processes (memory is policy only there).
. "$(dirname "$0")/lib.sh" "$1" "$2"
EVWAIT=$(dirname "$FSOP")/evwait
fs_setup
[ -x "$EVWAIT" ] || skip_all "no evwait helper"
M=$(mnt a memory) || { bad "mount"; fs_done; exit 1; }
mkdir $M/c $M/d
check "mode root" "$(stat -c %a $M/cgroup.event_control)" "200"
check "mode child" "$(stat -c %a $M/c/cgroup.event_control)" "200"
check "read EINVAL" "$(cat $M/c/cgroup.event_control 2>&1 | grep -c 'Invalid argument')" "1"

ev() { "$EVWAIT" "$@" 2>&1 | head -1; }
check "bad eventfd EBADF" "$(ev badefd $M/c $M/c/memory.usage_in_bytes 4096 0)" "write 9"
check "not an eventfd EINVAL" "$(ev notevent $M/c $M/c/memory.usage_in_bytes 4096 0)" "write 22"
check "bad control fd EBADF" "$(ev badcfd $M/c $M/c/memory.usage_in_bytes 4096 0)" "write 9"
check "other cgroup's file EINVAL" "$(ev ok $M/c $M/d/memory.usage_in_bytes 4096 0)" "write 22"
check "not a cgroup file EINVAL" "$(ev ok $M/c /dev/null 4096 0)" "write 22"
check "memory.stat EINVAL" "$(ev ok $M/c $M/c/memory.stat 4096 0)" "write 22"
check "bad threshold EINVAL" "$(ev ok $M/c $M/c/memory.usage_in_bytes 1x 0)" "write 22"
check "bad level EINVAL" "$(ev ok $M/c $M/c/memory.pressure_level high 0)" "write 22"
check "threshold ok" "$(ev ok $M/c $M/c/memory.usage_in_bytes 4096 0)" "write 0"

# registrations wait; rmdir signals each once
"$EVWAIT" ok $M/d $M/d/memory.usage_in_bytes 8M 5000 > $SCRATCH/t.out 2>&1 &
PIDS+=($!); T=$!
"$EVWAIT" ok $M/d $M/d/memory.oom_control "" 5000 > $SCRATCH/o.out 2>&1 &
PIDS+=($!); O=$!
"$EVWAIT" ok $M/d $M/d/memory.pressure_level low,local 5000 > $SCRATCH/p.out 2>&1 &
PIDS+=($!); P=$!
for i in $(seq 100); do
	[ "$(cat $SCRATCH/t.out $SCRATCH/o.out $SCRATCH/p.out 2>/dev/null | grep -c '^write 0')" = 3 ] && break
	sleep 0.05
done
check "three registered" "$(cat $SCRATCH/*.out | grep -c '^write 0')" "3"
sleep 0.2
check "nothing fired yet" "$(cat $SCRATCH/*.out | grep -c -e count -e timeout)" "0"
rmdir $M/d
wait $T $O $P 2>/dev/null
check "threshold: removal signals" "$(tail -1 $SCRATCH/t.out)" "count 1"
check "oom: removal signals" "$(tail -1 $SCRATCH/o.out)" "count 1"
check "pressure: removal signals" "$(tail -1 $SCRATCH/p.out)" "count 1"
fs_done
