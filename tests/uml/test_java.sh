#!/bin/bash
# Unmodified Java under `ucg exec` on a v2-only kernel: it reports the limits written
# through ucg's v1 files (Provider cgroupv1, memory.limit_in_bytes, the cpu quota), and
# is held to them through the daemon's v2 backend: a JVM whose heap may grow past the
# 256M memory limit (-Xmx512m, 384 MiB kept) is OOM-killed by the kernel, failcnt and
# oom_control's oom_kill count it; a JVM spinning under a 50000/100000 quota gets 50%
# of the CPU. Skips with one line without java; the JVM's load (JavaLoad.class) is
# built by meson when javac is there. A JVM start takes 10-40 s here and touching
# memory ~0.5-1.5 ms a page (every UML process is a host process driven by ptrace, every
# page fault a round trip to the UML kernel): "info" lines give the times.
. "$(dirname "$0")/lib.sh" "$1" "$2"

if ! command -v java >/dev/null 2>&1; then
	echo "SKIP: java is not installed (Debian package default-jre-headless)"
	echo "RESULT passed=0 failed=0 skipped=1"
	exit 77
fi
# Each JVM run is bounded, so that a hang fails this test within run-in-uml's timeout.
JT=300
# jrun OUT CMD...: CMD's output in OUT, its status in ST, its wall time in ms in MS
jrun() {
	local out=$1 t0
	shift
	t0=${EPOCHREALTIME/./}
	# (in braces: bash's "Killed" notice for an OOM-killed JVM goes nowhere)
	{ timeout -k 10 $JT "$@" > "$out" 2>&1; } 2>/dev/null
	ST=$?
	MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
}
sec() { printf '%d.%02d s' $(($1 / 1000)) $(($1 % 1000 / 10)); }

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
R=/tmp/up
"$UCG" up $R > /dev/null || { bad "ucg up"; uml_done; exit 1; }
MOUNTS+=("$R"/*/)
CPU=$R/cpu,cpuacct
MEM=$R/memory
mkdir $CPU/j $MEM/j $CPU/free $MEM/free
echo 256M > $MEM/j/memory.limit_in_bytes
echo 100000 > $CPU/j/cpu.cfs_period_us
echo 50000 > $CPU/j/cpu.cfs_quota_us
check "memory limit reads back" "$(cat $MEM/j/memory.limit_in_bytes)" "268435456"
check "cpu quota reads back" "$(cat $CPU/j/cpu.cfs_quota_us)" "50000"

# ---- Java reports the limits in the view (and sees the kernel's v2 outside it)
jrun /tmp/plain java -XshowSettings:system -version
plain=$MS
check "outside the view: Java sees the kernel's cgroup v2" \
	"$ST $(grep -o 'Provider: .*' /tmp/plain)" "0 Provider: cgroupv2"
jrun /tmp/view "$UCG" exec -g cpu,cpuacct,memory:/j -- java -XshowSettings:system -version
check "java in the view: exit status" "$ST" "0"
check "java: provider" "$(grep -o 'Provider: .*' /tmp/view)" "Provider: cgroupv1"
check "java: memory limit" "$(grep -o 'Memory Limit: .*' /tmp/view)" "Memory Limit: 256.00M"
check "java: CPU quota" "$(grep -o 'CPU Quota: .*' /tmp/view)" "CPU Quota: 50000us"
check "java: CPU period" "$(grep -o 'CPU Period: .*' /tmp/view)" "CPU Period: 100000us"
[ "$ST" = 0 ] || head -20 /tmp/view
echo "info java -XshowSettings:system -version: $(sec $plain) without the view, $(sec $MS) in it"

if [ ! -f "$HELPERS/JavaLoad.class" ]; then
	SKIP=$((SKIP + 1))
	echo "SKIP java under the limits: no JavaLoad.class (javac was not there at build time)"
	"$UCG" down $R > /dev/null
	uml_done
	exit
fi
# -Xmn400m: a young generation that holds the whole hog, so that the JVM touches each
# MiB once; the copying collections of the default sizes cost seconds each here.
JL=(java -Xmx512m -Xmn400m -cp "$HELPERS" JavaLoad)

# ---- memory.limit_in_bytes bites: the heap may grow to 512 MiB, the group has 256.
# memory:/j alone: under /j's cpu quota too, the page faults (system time) would be
# throttled as well and the run would take twice as long.
jrun /tmp/hog "$UCG" exec -g memory:/j -- "${JL[@]}" hog 384
check "java keeping 384 MiB under a 256M limit: killed by SIGKILL" "$ST $(cat /tmp/hog)" "137 "
within "failcnt counts the failed charges" "$(cat $MEM/j/memory.failcnt)" 1 999999999
check "oom_control's oom_kill counts it" "$(sed -n 's/^oom_kill //p' $MEM/j/memory.oom_control)" "1"
within "max_usage_in_bytes up to the limit (MiB)" \
	"$(($(cat $MEM/j/memory.max_usage_in_bytes) >> 20))" 192 256
echo "info the hog's run to its kill: $(sec $MS)"
# Control: the same JVM keeping 64 MiB lives under the same limit.
jrun /tmp/hog "$UCG" exec -g memory:/j -- "${JL[@]}" hog 64
check "java keeping 64 MiB under the same limit survives" "$ST $(cat /tmp/hog)" "0 survived"

# ---- the cpu quota bites: 50000/100000, 50% of the CPU (the JVM's own CPU time).
# The same path in memory as in cpu, where the quota is exact: where they diverge
# (memory at /) it is divided over the leaves by demand (test_divergent.sh).
jrun /tmp/spin "$UCG" exec -g cpu,cpuacct,memory:/free -- "${JL[@]}" spin 3
pct=$(sed -n 's/^cpu_pct //p' /tmp/spin)
# A host too busy to give the guest 65% of a CPU cannot show a 50% quota: skip then.
if [ "${pct:-0}" -lt 65 ]; then
	SKIP=$((SKIP + 1))
	echo "SKIP 50% quota: the host gives this guest ${pct:-0}% of a CPU, too little to measure"
	[ -n "$pct" ] || head -20 /tmp/spin
else
	ok "no quota: the JVM's share ($pct%)"
	u0=$(cat $CPU/j/cpuacct.usage)
	jrun /tmp/spin "$UCG" exec -g cpu,cpuacct,memory:/j -- "${JL[@]}" spin 3
	pct=$(sed -n 's/^cpu_pct //p' /tmp/spin)
	within "50% quota: the JVM's share (%)" "${pct:-0}" 40 60
	[ -n "$pct" ] || head -20 /tmp/spin
	# The kernel throttled it: the v2 mirror of /j. ucg's own cpu.stat is the kernel's
	# too, though cpu is an inner hierarchy here (below memory): the mirror's, or the
	# sum over /j's leaves with the mirror's throttling (docs/enforcement.md,
	# "Statistics"); /j's leaves hold no quota of their own, so it is the mirror's.
	mirror=$(find $CG2 -maxdepth 3 -type d -path '*/ucgroups/j' | head -n 1)
	check "the quota on /j's v2 mirror" "$(cat "${mirror:-/nonexistent}"/cpu.max 2>&1)" \
		"50000 100000"
	within "v2 cpu.stat nr_throttled" \
		"$(sed -n 's/^nr_throttled //p' "${mirror:-/nonexistent}"/cpu.stat)" 1 1000000
	k=$(sed -n 's/^nr_throttled //p' "${mirror:-/nonexistent}"/cpu.stat)
	u=$(sed -n 's/^nr_throttled //p' $CPU/j/cpu.stat)
	echo "info ucg's cpu.stat nr_throttled $u, the mirror's $k"
	within "ucg's cpu.stat nr_throttled = the kernel's" "${u:-0}" $((${k:-0} * 97 / 100)) \
		$((${k:-0} * 103 / 100 + 1))
	# the JVM spun 4 s at 50%, besides its start: at least 1.5 s of CPU in cpuacct
	within "cpuacct.usage counts the JVM (ms)" \
		"$((($(cat $CPU/j/cpuacct.usage) - u0) / 1000000))" 1500 1000000
fi

rmdir $CPU/j $MEM/j $CPU/free $MEM/free
"$UCG" down $R > /dev/null || bad "ucg down"
uml_done
