#!/bin/bash
# cpuacct of multi-threaded processes: a spinner of 2 and of 4 threads, each burning
# CPU while its main thread waits, sits in one of our cpuacct cgroups and, at the same
# time, in a scratch child of the kernel's cpuacct hierarchy. Our cpuacct.usage must
# match both what the process's getrusage says it used and what the kernel's cpuacct
# counted (within 10% + 50 ms), not a multiple of them (each thread's
# /proc/TID/stat holds the whole group's time: counting it per thread multiplied it).
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
SPINNER=$(dirname "$FSOP")/spinner
[ -x "$SPINNER" ] || skip_all "no spinner binary"
A=$(mnt acct cpuacct) || { bad "mount cpuacct"; fs_done; exit 1; }

# the kernel's cpuacct hierarchy (v1), if this host has one
KROOT=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuacct(,|$)/ { print $5; exit }' /proc/self/mountinfo)
KDIRS=()
kcg_cleanup() {
	local d
	for d in "${KDIRS[@]}"; do rmdir "$d" 2>/dev/null; done
}
trap 'kcg_cleanup; fs_cleanup' EXIT

# within A B: |A - B| <= B/10 + 50 ms
within() {
	local d=$(($1 - $2))
	[ ${d#-} -le $(($2 / 10 + 50000000)) ]
}

# usage_settled FILE: the value once two reads 200 ms apart agree (the exit's last
# charge comes with taskstats' message, drained by the daemon)
usage_settled() {
	local a b i
	a=$(cat "$1")
	for i in $(seq 20); do
		sleep 0.2
		b=$(cat "$1")
		[ "$a" = "$b" ] && break
		a=$b
	done
	echo "$a"
}

for n in 2 4; do
	ms=$((2000 / n)) # 2 s of CPU in all
	mkdir $A/spin$n
	K=
	if [ -n "$KROOT" ] && mkdir "$KROOT/ucgacct-$$-$n" 2>/dev/null; then
		K=$KROOT/ucgacct-$$-$n
		KDIRS+=("$K")
	fi
	# the process moves itself into both cgroups, then becomes the spinner
	R=$(sh -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs" || exit 1
		echo $$ > "$2/cgroup.procs" || exit 1
		exec "$3" "$4" "$5"' sh "$K" "$A/spin$n" "$SPINNER" $n $ms)
	U=$(usage_settled $A/spin$n/cpuacct.usage)
	echo "# $n threads: ucg cpuacct.usage $U ns, getrusage $R ns${K:+, kernel cpuacct.usage $(cat $K/cpuacct.usage) ns}"
	check "$n threads: ran" "$([ -n "$R" ] && [ "$R" -ge 1900000000 ] && echo yes)" "yes"
	check "$n threads: usage matches getrusage" "$(within "$U" "$R" && echo yes || echo "no: $U vs $R")" "yes"
	if [ -n "$K" ]; then
		KU=$(cat $K/cpuacct.usage)
		check "$n threads: usage matches the kernel's cpuacct" "$(within "$U" "$KU" && echo yes || echo "no: $U vs $KU")" "yes"
		rmdir "$K" && KDIRS=("${KDIRS[@]/$K/}")
	else
		SKIP=$((SKIP + 1)); echo "SKIP $n threads: no kernel cpuacct hierarchy to compare with"
	fi
	# per cpu: the figures add up to the total
	check "$n threads: usage_percpu adds up" "$(tr ' ' '\n' < $A/spin$n/cpuacct.usage_percpu | awk '{s += $1} END {printf "%.0f\n", s}')" "$U"
done
fs_done
