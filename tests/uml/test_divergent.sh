#!/bin/bash
# A divergent layout on the v2-only kernel: memory and cpu in two hierarchies, two
# processes in different memory cgroups (/a, /b) but one cpu cgroup (/q) with a 50%
# quota. v1 holds the two together to 50% of the CPU; the daemon's v2 layout puts
# them in two leaves (/a/.ucg.cpu:q, /b/.ucg.cpu:q) and divides the quota over them
# by demand once a second (src/host/v2split.h): two spinners get 25% each, 50% in
# all; a spinner beside a sleeper gets nearly all 50% after the first round. q's
# cpu.shares (weight 100) is divided the same way over the .ucg.cpu:q levels.
. "$(dirname "$0")/lib.sh" "$1" "$2"

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt memory memory) || { bad "ucg mount -o memory"; uml_done; exit 1; }
C=$(ucg_mnt cpu cpu,cpuacct) || { bad "ucg mount -o cpu,cpuacct"; uml_done; exit 1; }
mkdir $M/a $M/b $C/q
echo 100000 > $C/q/cpu.cfs_period_us
echo 50000 > $C/q/cpu.cfs_quota_us
# run_in MEMCG CMD: a process of memory cgroup MEMCG and cpu cgroup /q running CMD
run_in() {
	local m=$1
	shift
	sh -c "echo \$\$ > $M/$m/cgroup.procs && echo \$\$ > $C/q/cgroup.procs && exec $*"
}
# spawn_in MEMCG CMD: the same in the background, its pid (CMD's, once exec'd) in LAST
spawn_in() {
	local m=$1
	shift
	sh -c "echo \$\$ > $M/$m/cgroup.procs && echo \$\$ > $C/q/cgroup.procs && exec $*" &
	LAST=$!
	PIDS+=($LAST)
}
pct() { sed -n 's/^cpu_pct //p' "$1"; }
# Control: one spinner alone (its leaf unlimited until the first round gives it the
# whole quota): the host must give the guest enough CPU to tell 25% from 50%.
run_in a $HELPERS/spinner spin 2 > /tmp/alone.out
alone=$(pct /tmp/alone.out)
if [ "${alone:-0}" -lt 35 ]; then
	SKIP=$((SKIP + 1))
	echo "SKIP divergent quota: one spinner got ${alone:-0}% of the CPU: the host is too busy"
	uml_done
	exit 0
fi
ok "the host gives the guest CPU enough ($alone%)"

# cpu_ticks PID: its CPU time in USER_HZ ticks; now_ticks: the clock in the same unit
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
now_ticks() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
# wait_leaves N: until N leaves of /q exist (forks are slow here under host load)
wait_leaves() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ "$(find $CG2 -type d -path '*/ucgroups/[ab]/.ucg.cpu:q/.ucg' | wc -l)" -ge "$1" ] && return 0
		nap 0.05
	done
	return 1
}
# share PID...: each one's CPU percent over 4 s of wall time
share() {
	local p t0 t1 c0=() i=0
	t0=$(now_ticks)
	for p in "$@"; do c0+=($(cpu_ticks $p)); done
	nap 4
	t1=$(now_ticks)
	for p in "$@"; do
		echo $((($(cpu_ticks $p) - c0[i]) * 100 / (t1 - t0)))
		i=$((i + 1))
	done
}

# two spinners, one in each memory cgroup: together held to the one quota
spawn_in a $HELPERS/spinner spin 60 > /dev/null
A=$LAST
spawn_in b $HELPERS/spinner spin 60 > /dev/null
B=$LAST
wait_leaves 2 || bad "the second leaf appears"
nap 2.5 # two rounds: the parts follow the demand
leaves=$(find $CG2 -type d -path '*/ucgroups/[ab]/.ucg.cpu:q/.ucg' | sort)
check "two leaves, one per memory cgroup" "$(wc -l <<<"$leaves")" "2"
mirror=$(find $CG2 -maxdepth 3 -type d -path '*/ucgroups/q' | head -n 1)
check "the mirror limits no one" "$(cat $mirror/cpu.max)" "max 100000"
sum=0
for l in $leaves; do
	read -r q p < $l/cpu.max
	sum=$((sum + q))
	echo "# $l: cpu.max $q $p"
done
check "the leaves' parts add up to the quota" "$sum" "50000"
# cpu.shares (1024 -> weight 100) divided over the two cpu levels by runnable time:
# two spinners, about 50 each. One round writes both; read them with builtins (forks
# are slow here) until two reads agree, in case a round fell between.
levels=()
for l in $leaves; do levels+=("${l%/*}"); done
weights() {
	local d w
	for d in "${levels[@]}"; do
		read -r w < "$d/cpu.weight"
		echo -n "$w "
	done
}
for ((i = 0; i < 10; i++)); do
	ws=$(weights)
	[ "$ws" = "$(weights)" ] && break
done
echo "# the levels' cpu.weight: $ws"
wsum=0
for w in $ws; do
	within "a spinner's level carries about half q's weight" "$w" 25 75
	wsum=$((wsum + w))
done
within "the levels' weights add up to q's (100)" "$wsum" 98 102
read -r a b <<<"$(share $A $B | tr '\n' ' ')"
echo "# two spinners: $a% and $b%"
within "together under the 50% quota (%)" "$((a + b))" 30 58
within "shared evenly: the first's part (%)" "$a" 15 33
kill $A $B
wait $A $B 2>/dev/null

# a spinner beside a sleeper in the other memory cgroup: after a round it has the
# whole quota but the sleeper's 1 ms minimum
spawn_in b sleep 60
S=$LAST
spawn_in a $HELPERS/spinner spin 60 > /dev/null
A=$LAST
wait_leaves 2 || bad "both leaves appear"
nap 2.5
a=$(share $A)
echo "# a spinner beside a sleeper: $a%"
within "the busy leaf takes the idle one's part (%)" "$a" 36 55
w=$(cat $(find $CG2 -type d -path '*/ucgroups/a/.ucg.cpu:q' | head -n 1)/cpu.weight)
echo "# the spinner's level: cpu.weight $w"
within "and nearly all q's weight" "$w" 90 100
kill $A $S
wait $A $S 2>/dev/null
check "stats count the divided quota" "$("$UCG" ctl stats | grep -c '^enforce_split rounds [1-9]')" "1"

# The statistics of /q, an inner hierarchy's cgroup whose processes ran outside its
# mirror: the sums of its leaves' v2 files (and the mirror's own throttling), as the
# kernel counts them, where the engine's figures said nr_throttled 0. The spinners
# are gone: the counters hold still between the two reads.
# kernel_sum FILE KEY: KEY of FILE summed over /q's leaves and its mirror
kernel_sum() {
	local sum=0 v d
	for d in $(find $CG2 -type d -path '*/ucgroups/[ab]/.ucg.cpu:q/.ucg') $mirror; do
		v=$(sed -n "s/^$2 //p" $d/$1)
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}
k=$(kernel_sum cpu.stat nr_throttled)
u=$(sed -n 's/^nr_throttled //p' $C/q/cpu.stat)
echo "# nr_throttled: ucg $u, the kernel's leaves and mirror $k"
within "cpu.stat nr_throttled counts the throttling" "${u:-0}" 1 1000000
within "nr_throttled = the kernel's" "${u:-0}" $((k * 97 / 100)) $((k * 103 / 100 + 1))
mirror= # usage: the leaves only (the mirror of /q holds no process of it)
k=$(kernel_sum cpu.stat usage_usec)
u=$(cat $C/q/cpuacct.usage)
echo "# cpuacct.usage: ucg $u ns, the kernel's leaves $((k * 1000)) ns"
within "cpuacct.usage = the leaves' usage (ms)" "$((u / 1000000))" $((k * 98 / 100000)) $((k * 102 / 100000 + 1))
check "stats count the summed reads" "$("$UCG" ctl stats | grep -c '^enforce_attaches.* summed_stats [1-9]')" "1"
uml_done
