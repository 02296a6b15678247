# tests/fs/matrix_files.sh — the throwaway user (uid 64011, via setpriv) writes "0" to
# every file of a cgroup, printing one "label result" line each. fs_files.sh runs it on
# the kernel's hierarchies and on ours and compares the lines; the file lists are
# printed too, so a file only one side has is a difference as well.
# Usage (sourced): run_files_matrix BASE FSOP TAG  (root, with setpriv)
#   BASE is a root-owned cgroup: a hierarchy's root, or a child standing in for it
#   where the root must not be touched (the host's memory hierarchy).
# Cases: BASE itself; a child after chown of its directory only (files stay root's);
# a child after chown of its files only; the same given each file's own value back;
# a child the user made in a delegated one.
# Writing "0" asks each file's permission first and its parser second: most files
# take 0, some refuse it (EINVAL), tasks and cgroup.procs read it as the writer.
run_files_matrix() {
	local B=$1 F=$2 T=$3 U="setpriv --reuid=64011 --regid=64011 --clear-groups"
	local f d i v D O G V

	# the children carry TAG: on the kernel, BASE may be a hierarchy others use too
	D=$B/$T-dironly O=$B/$T-filesonly G=$B/$T-deleg V=$B/$T-own

	r() { echo "$1 $2"; }
	# the files of a cgroup but those matching SKIP_FILES (a regex the caller sets
	# and gives its reason for: files one side has for reasons of its host); tasks and cgroup.procs first, so
	# that the writer of "0" attaches before it sets a limit of 0 it would die of
	files() {
		find "$1" -mindepth 1 -maxdepth 1 -type f -printf '%f\n' |
			grep -vxE "${SKIP_FILES:-^$}" |
			awk '{ print ($0 == "tasks" || $0 == "cgroup.procs" ? 0 : 1), $0 }' |
			LC_ALL=C sort | cut -d' ' -f2
	}
	# owners and modes of a directory and its files: "COUNT*UID:MODE" for each kind
	owners() {
		(stat -c '%u:%a' $1; for f in $(files $1); do stat -c '%u:%a' $1/$f; done) |
			LC_ALL=C sort | uniq -c | awk '{ printf "%s%s*%s", (NR > 1 ? " " : ""), $1, $2 }'
	}
	writes() { # writes CASE DIR: one line per regular file of DIR
		for f in $(files "$2"); do
			r "$1/$f" "$($U $F write "$2/$f" 0)"
		done
	}
	r ls-base "$(files $B | paste -sd' ')"
	writes base "$B"
	mkdir $D $O $G
	chown 64011:64011 $D $G
	for f in $(files $O); do chown 64011:64011 $O/$f; done
	r ls-child "$(files $D | paste -sd' ')"
	r owner-dironly "$(owners $D)"
	r owner-filesonly "$(owners $O)"
	writes dironly $D
	writes filesonly $O
	# the same, each file given back what root reads from it (its first line): the
	# values a fresh cgroup shows, each parser's valid input, and the reads compared
	mkdir $V
	for f in $(files $V); do chown 64011:64011 $V/$f; done
	for f in $(files $V); do
		v=$(head -n 1 $V/$f 2>/dev/null)
		r "own/$f" "[$v] $($U $F write "$V/$f" "$v")"
	done
	r user-mkdir-in-delegated "$($U $F mkdir $G/sub)"
	r owner-usersub "$([ -d $G/sub ] && owners $G/sub)"
	[ -d $G/sub ] && writes usersub $G/sub
	# leave the base as it was: the writers of "0" to tasks moved themselves and exited
	for d in $G/sub $G $D $O $V; do
		for i in $(seq 50); do
			[ -d $d ] || break
			rmdir $d 2>/dev/null && break
			sleep 0.1
		done
	done
	unset -f r writes files owners
}
