#!/bin/bash
# The kernel's own v2 enforcement here, written straight to cgroup2 files: what the
# proofs (test_pids, test_memory, test_cpu, test_freezer) see through ucg's v1 files.
# It checks the instance (one CPU's accounting under host load, no swap, the v2
# freezer) and the helpers, so a proof that fails while this passes points at ucg.
. "$(dirname "$0")/lib.sh" "$1" "$2"

G=$CG2/v2test
mkdir $G
trap 'uml_cleanup; for d in $G/*/; do rmdir "$d"; done 2>/dev/null; rmdir $G 2>/dev/null' EXIT
echo "+cpu +memory +pids" > $G/cgroup.subtree_control
mkdir $G/p $G/m $G/c $G/f

# pids.max 3: the forker and two children; the third fork fails with EAGAIN.
echo 3 > $G/p/pids.max
spawn sh -c "echo \$\$ > $G/p/cgroup.procs && exec $HELPERS/forker hold 5" > /tmp/hold.out
wait_line /tmp/hold.out 'forked *' $LAST
check "pids.max: third fork EAGAIN" "$(< /tmp/hold.out)" "forked 2 errno EAGAIN"
check "pids.events max" "$(< $G/p/pids.events)" "max 1"
kill $LAST; wait $LAST 2>/dev/null

# memory.max 32M, 128 MiB wanted: OOM-killed, and counted.
echo 32M > $G/m/memory.max
out=$(sh -c "echo \$\$ > $G/m/cgroup.procs && exec $HELPERS/hog 128")
check "memory.max: hog killed by SIGKILL" "$? $out" "137 "
check "memory.events oom_kill" "$(sed -n 's/^oom_kill //p' $G/m/memory.events)" "1"
within "memory.events max (charges refused)" "$(sed -n 's/^max //p' $G/m/memory.events)" 1 999999999
within "memory.peak up to the limit (KiB)" "$(($(cat $G/m/memory.peak 2>/dev/null || echo 33554432) / 1024))" 24576 32768

# cpu.max 25000/100000: 25% +-5 of the one CPU over 2 s; unlimited, what the host gives.
pct=$(sh -c "echo \$\$ > $G/c/cgroup.procs && exec $HELPERS/spinner spin 2" | sed -n 's/^cpu_pct //p')
# A host too busy to give the guest 40% of a CPU cannot show a 25% quota: skip then.
if [ "${pct:-0}" -lt 40 ]; then
	SKIP=$((SKIP + 1))
	echo "SKIP cpu.max 25%: the host gives this guest ${pct:-0}% of a CPU, too little to measure"
else
	ok "no cpu.max: the spinner's share ($pct%)"
	echo "25000 100000" > $G/c/cpu.max
	pct=$(sh -c "echo \$\$ > $G/c/cgroup.procs && exec $HELPERS/spinner spin 2" | sed -n 's/^cpu_pct //p')
	within "cpu.max 25%: the spinner's share (%)" "${pct:-0}" 20 30
	within "cpu.stat nr_throttled" "$(sed -n 's/^nr_throttled //p' $G/c/cpu.stat)" 1 1000000
fi

# cgroup.freeze: no progress, SIGCONT runs nothing, the parent sees no stop.
ticker_start
echo "$T" > $G/f/cgroup.procs
ticking "thawed"
echo 1 > $G/f/cgroup.freeze
for ((i = 0; i < 100; i++)); do grep -q '^frozen 1' $G/f/cgroup.events && break; nap 0.05; done
check "cgroup.events frozen" "$(grep '^frozen' $G/f/cgroup.events)" "frozen 1"
frozen_checks
echo 0 > $G/f/cgroup.freeze
ticking "thawed again"
ticker_kill
uml_done
