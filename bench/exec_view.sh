#!/bin/bash
# bench/exec_view.sh BUILDDIR [RUNS] — the cost of `ucg exec`'s view (docs/exec-view.md):
# an open the view lets through and one it answers, inside and outside; a JVM start
# (java -XshowSettings:system -version) and a cgcreate+cgdelete with and without the
# view (without: on the kernel's own v1 hierarchy where one is mounted, in a scratch
# cgroup with a unique name). Prints "name value unit", best of RUNS (default 5).
# Needs root and /dev/fuse; starts its own daemon under a scratch runtime dir.
set -u
B=${1:?usage: exec_view.sh BUILDDIR [RUNS]}
RUNS=${2:-5}
UCG=$B/src/cli/ucg
OPEN=$B/bench/view_open
S=$(mktemp -d /tmp/ucgbench.XXXXXX)
export UCG_RUNTIME_DIR=$S/run
mkdir -p "$UCG_RUNTIME_DIR"
cleanup() {
	"$UCG" down "$S/up" >/dev/null 2>&1
	[ -n "${D:-}" ] && kill "$D" 2>/dev/null && wait "$D" 2>/dev/null
	rm -rf "$S"
}
trap cleanup EXIT
"$UCG" daemon >"$S/daemon.log" 2>&1 &
D=$!
for i in $(seq 100); do "$UCG" ctl ping >/dev/null 2>&1 && break; sleep 0.05; done
"$UCG" up "$S/up" >/dev/null || exit 1

# best (lowest) of RUNS runs of a command printing "name value unit" lines
best() {
	for r in $(seq "$RUNS"); do "$@"; done | awk '{ if (!($1 in m) || $2 < m[$1]) m[$1] = $2; u[$1] = $3 }
		END { for (k in m) print k, m[k], u[k] }' | sort
}
# wall ms of a command, best of RUNS
ms() {
	local name=$1 b= t0 t1 r
	shift
	for r in $(seq "$RUNS"); do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
		t=$(((t1 - t0) / 1000000))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$name $b ms"
}
echo 'x' > "$S/small"
best "$OPEN" "$S/small" 20000 | sed 's/^/kernel./'
best "$OPEN" /proc/self/cgroup 20000 | sed 's/^/kernel./'
best "$UCG" exec -- "$OPEN" "$S/small" 20000
best "$UCG" exec -- "$OPEN" /proc/self/cgroup 2000
best "$UCG" exec -- "$OPEN" /proc/self/mountinfo 2000
if command -v java >/dev/null 2>&1; then
	ms kernel.java_start java -XshowSettings:system -version
	ms java_start "$UCG" exec -- java -XshowSettings:system -version
fi
if command -v cgcreate >/dev/null 2>&1; then
	g=ucgbench_$$
	if grep -q ' - cgroup cgroup .*cpu' /proc/self/mountinfo; then
		ms kernel.cgcreate_cgdelete sh -c "cgcreate -g cpu:/$g && cgdelete -g cpu:/$g"
	fi
	ms cgcreate_cgdelete "$UCG" exec -- sh -c "cgcreate -g cpu:/$g && cgdelete -g cpu:/$g"
	ms exec_true "$UCG" exec -- true
fi
