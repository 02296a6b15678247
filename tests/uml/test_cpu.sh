#!/bin/bash
# A spinner under a 25% quota, written through ucg's v1 cpu.cfs_quota_us and
# cpu.cfs_period_us, gets 25% +-5 points of the CPU over 2 s (the kernel's cpu.max on
# the v2 leaf); cpu.stat counts the throttling.
. "$(dirname "$0")/lib.sh" "$1" "$2"

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt cpu cpu,cpuacct) || { bad "ucg mount -o cpu,cpuacct"; uml_done; exit 1; }
mkdir $M/c
# Control: unlimited, the only runnable task on the one CPU gets what the host gives.
pct=$(sh -c "echo \$\$ > $M/c/cgroup.procs && exec $HELPERS/spinner spin 2" | sed -n 's/^cpu_pct //p')
# A host too busy to give the guest 40% of a CPU cannot show a 25% quota: skip then.
if [ "${pct:-0}" -lt 40 ]; then
	SKIP=$((SKIP + 1))
	echo "SKIP 25% quota: the host gives this guest ${pct:-0}% of a CPU, too little to measure"
else
	ok "no quota: the spinner's share ($pct%)"
	echo 100000 > $M/c/cpu.cfs_period_us
	echo 25000 > $M/c/cpu.cfs_quota_us
	check "quota reads back" "$(cat $M/c/cpu.cfs_quota_us)" "25000"
	pct=$(sh -c "echo \$\$ > $M/c/cgroup.procs && exec $HELPERS/spinner spin 2" | sed -n 's/^cpu_pct //p')
	within "25% quota: the spinner's share (%)" "${pct:-0}" 20 30
	within "cpu.stat nr_throttled" "$(sed -n 's/^nr_throttled //p' $M/c/cpu.stat)" 1 1000000
fi
# A write v2 would take but v1 refuses leaves v2 as it was: a child's quota above its
# parent's is EINVAL in v1 (the CFS tree check), while cpu.max would accept it.
echo 100000 > $M/c/cpu.cfs_period_us
echo 25000 > $M/c/cpu.cfs_quota_us
mkdir $M/c/d
mirror=$(find $CG2 -maxdepth 4 -type d -path '*/ucgroups/c/d' | head -n 1)
check "the child's mirror in v2" "$([ -n "$mirror" ] && echo yes)" "yes"
err=$({ echo 50000 > $M/c/d/cpu.cfs_quota_us; } 2>&1)
check "quota above the parent's: EINVAL" "${err##*: }" "Invalid argument"
check "v1 keeps no quota" "$(cat $M/c/d/cpu.cfs_quota_us)" "-1"
check "v2 keeps no quota" "$(cat $mirror/cpu.max)" "max 100000"
echo 20000 > $M/c/d/cpu.cfs_quota_us
check "a quota within the parent's reaches v2" "$(cat $mirror/cpu.max)" "20000 100000"
check "stats count the undone write" "$("$UCG" ctl stats | grep -c '^enforce_attaches.* undone [1-9]')" "1"
rmdir $M/c/d
uml_done
