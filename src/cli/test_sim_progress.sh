#!/usr/bin/env bash
# cli/test_sim_progress.sh UCG SRCDIR — `ucg sim`'s progress line. With --progress it
# is on stderr even though stderr is a file, and stdout, the CSV files and the report
# are byte for byte those of a run without it; by default, stderr not being a
# terminal, nothing is printed on stderr, nor with --no-progress.
set -u
ucg=$1 src=$2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sc=$src/scenarios/writeback.ucg
line='^sim: [0-9.]+s/[0-9.]+s virtual \([0-9]+%\), [0-9]+ events, [0-9.]+[kMG]? events/s, (ETA [0-9hms?]+|done in [0-9.]+s) *$'

"$ucg" sim "$sc" --seed 1 --progress --csv "$tmp/csv1" --report "$tmp/r1.html" \
	>"$tmp/out1" 2>"$tmp/err1"
st=$?
[ "$st" -eq 0 ] && ok || bad "--progress: exit $st: $(cat "$tmp/err1")"
# lines are rewritten with '\r' and the last one ends with a newline
tr '\r' '\n' <"$tmp/err1" | grep -Eq "$line" && ok || bad "no progress line: $(cat -A "$tmp/err1")"
tr '\r' '\n' <"$tmp/err1" | grep -v '^$' | grep -Evq "$line" &&
	bad "stderr has more than progress lines: $(cat -A "$tmp/err1")" || ok
[ "$(tail -c 1 "$tmp/err1" | od -An -c | tr -d ' ')" = '\n' ] && ok || bad "the line is not ended"
tr '\r' '\n' <"$tmp/err1" | grep -q "(100%), .* done in" && ok || bad "no final line at 100%"

"$ucg" sim "$sc" --seed 1 --csv "$tmp/csv2" --report "$tmp/r2.html" >"$tmp/out2" 2>"$tmp/err2"
st=$?
[ "$st" -eq 0 ] && ok || bad "default: exit $st: $(cat "$tmp/err2")"
[ ! -s "$tmp/err2" ] && ok || bad "stderr not a terminal, yet: $(cat -A "$tmp/err2")"
cmp -s "$tmp/out1" "$tmp/out2" && ok || bad "stdout differs with --progress"
diff -r "$tmp/csv1" "$tmp/csv2" >/dev/null && ok || bad "CSV files differ with --progress"
[ -n "$(ls "$tmp/csv1")" ] && ok || bad "no CSV files written"
cmp -s "$tmp/r1.html" "$tmp/r2.html" && ok || bad "report differs with --progress"

# --no-progress wins over a terminal, and the last of the two flags counts
"$ucg" sim "$sc" --seed 1 --progress --no-progress >"$tmp/out3" 2>"$tmp/err3"
[ ! -s "$tmp/err3" ] && ok || bad "--no-progress printed: $(cat -A "$tmp/err3")"
cmp -s "$tmp/out1" "$tmp/out3" && ok || bad "stdout differs with --no-progress"
if command -v script >/dev/null; then
	# stderr a terminal: on by default, but a run this short draws nothing; off with
	# --no-progress in any case
	script -qec "'$ucg' sim '$sc' --seed 1 --no-progress --progress >'$tmp/out4'" \
		"$tmp/tty" >/dev/null 2>&1
	grep -Eq "sim: .* done in" "$tmp/tty" && ok || bad "no line on a terminal with --progress"
	cmp -s "$tmp/out1" "$tmp/out4" && ok || bad "stdout differs under a terminal"
fi

# --charging=all: one line per design, named by it
"$ucg" sim "$src/scenarios/cpu_sessions.ucg" --charging=all --progress >/dev/null 2>"$tmp/err5"
n=$(tr '\r' '\n' <"$tmp/err5" | grep -Ec '^(kernel|pid|consumer|dual|inode): .* done in')
[ "$n" -eq 5 ] && ok || bad "--charging=all: $n final lines, want 5: $(cat -A "$tmp/err5")"

echo "RESULT passed=$pass failed=$fail skipped=0"
[ "$fail" -eq 0 ]
