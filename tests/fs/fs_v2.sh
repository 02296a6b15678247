#!/bin/bash
# The kernel backend on this host's cgroup2 (docs/enforcement.md): with UCG_ENFORCE=1
# and a scratch UCG_V2_ROOT, an attach through the v1 file moves the process into its
# v2 leaf, its children are born there, FROZEN freezes through cgroup.freeze (the
# parent sees no stop, SIGCONT runs nothing), `ucg ctl stats` says what is enforced,
# a restarted daemon finds a process forked while it was down, and rmdir removes the
# v2 directories, and cpuacct.usage is read from the kernel. Without a writable cgroup2 mount it skips.
. "$(dirname "$0")/lib.sh" "$1" "$2"
CG2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] && [ -w "$CG2/cgroup.procs" ] || skip_all "no writable cgroup2 mount"
V2NAME=ucgtest-fsv2-$$
export UCG_ENFORCE=1 UCG_V2_ROOT=$V2NAME
fs_setup
V2=$CG2/$V2NAME
v2of() { sed -n 's/^0:://p' /proc/$1/cgroup; }
cleanup_v2() {
	local d
	for d in $(find "$V2" -depth -type d 2>/dev/null); do rmdir "$d" 2>/dev/null; done
}
trap 'fs_cleanup; cleanup_v2' EXIT

check "stats: enforce line" "$("$UCG" ctl stats | grep -c '^enforce\( [a-z]*\)* freezer membership')" "1"
F=$(mnt f freezer,cpuacct) || { bad "mount freezer"; fs_done; }
mkdir $F/a
check "mirror made with the cgroup" "$([ -d $V2/a ] && echo yes)" "yes"
spawn bash -c 'while :; do :; done'; B=$LAST
echo $B > $F/a/cgroup.procs
check "attach moves into the v2 leaf" "$(v2of $B)" "/$V2NAME/a/.ucg"
spawn bash -c 'echo $$ > '$F'/a/cgroup.procs; sleep 300 & echo $! > '$SCRATCH'/child; wait'
for i in $(seq 100); do [ -s $SCRATCH/child ] && break; sleep 0.05; done
check "a child is born in its parent's leaf" "$(v2of $(cat $SCRATCH/child))" "/$V2NAME/a/.ucg"

echo FROZEN > $F/a/freezer.state
for i in $(seq 100); do [ "$(cat $F/a/freezer.state)" = FROZEN ] && break; sleep 0.02; done
check "freezer reads FROZEN" "$(cat $F/a/freezer.state)" "FROZEN"
check "the leaf is frozen" "$(grep frozen $V2/a/.ucg/cgroup.events)" "frozen 1"
check "no group stop: state is not T" "$([ "$(awk '{print $3}' /proc/$B/stat)" != T ] && echo yes)" "yes"
T1=$(awk '{print $14+$15}' /proc/$B/stat); kill -CONT $B; sleep 0.3
check "no CPU while frozen, SIGCONT or not" "$(awk '{print $14+$15}' /proc/$B/stat)" "$T1"
# cpuacct, bound with the freezer (the outer hierarchy), is the kernel's cpu.stat
U2=$(awk '$1 == "usage_usec" { print $2 * 1000 }' $V2/a/cpu.stat)
check "cpuacct.usage from the kernel's cpu.stat (frozen: stable)" "$(cat $F/a/cpuacct.usage)" "$U2"
echo THAWED > $F/a/freezer.state
sleep 0.2
check "thawed runs" "$([ "$(awk '{print $14+$15}' /proc/$B/stat)" -gt "$T1" ] && echo yes)" "yes"
check "stats count the attaches" "$("$UCG" ctl stats | grep -c '^enforce_attaches [1-9]')" "1"

# a restart: a process forked into the leaf while no daemon runs is found there
"$UCG" ctl stop >/dev/null 2>&1
for i in $(seq 100); do kill -0 $DAEMON_PID 2>/dev/null || break; sleep 0.05; done
spawn sleep 300; S=$LAST
echo $S > $V2/a/.ucg/cgroup.procs
start_daemon || bad "daemon restarts"
F=$(grep " $SCRATCH/f " /proc/mounts | awk '{print $2}')
check "restored: the process forked while down is in /a" \
	"$(grep -cx $S $SCRATCH/f/a/cgroup.procs 2>/dev/null)" "1"

for p in $B $S $(cat $SCRATCH/child); do { kill -9 $p; wait $p; } 2>/dev/null; done
for i in $(seq 100); do rmdir $SCRATCH/f/a 2>/dev/null && break; sleep 0.05; done
check "rmdir removes the v2 directories" "$([ -d $V2/a ] && echo left || echo gone)" "gone"
fs_done
