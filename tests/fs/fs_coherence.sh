#!/bin/bash
# Two mounts of one hierarchy show the same live tree at every moment, although the
# kernel caches entries and attributes of each mount (the daemon invalidates the other
# mounts' caches before it answers a change): mkdir, rmdir, rename, chmod, chown and
# task moves made through mount A are seen through mount B at once, with B's cache
# primed beforehand; file content is always fresh; a cached walk still gets the
# kernel's permission checks.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
A=$(mnt a none,name=ucgcoh) || { bad "mount A"; fs_done; exit 1; }
B=$(mnt b none,name=ucgcoh) || { bad "mount B"; fs_done; exit 1; }
st() { stat -c "$1" "$2" 2>&1 | sed 's/.*No such file or directory.*/ENOENT/'; }

# creation: B has a cached negative entry for x
check "B: x absent" "$(st %F $B/x)" "ENOENT"
mkdir $A/x
check "mkdir through A seen by B" "$(st %F $B/x)" "directory"
check "B lists x" "$(ls $B | grep -cx x)" "1"

# mode and owner: B has the attributes cached
check "B: x mode" "$(st %a $B/x)" "755"
chmod 700 $A/x
check "chmod through A seen by B" "$(st %a $B/x)" "700"
chown 1234:4321 $A/x
check "chown through A seen by B" "$(st %u:%g $B/x)" "1234:4321"
check "B: file mode" "$(st %a $B/x/notify_on_release)" "644"
chmod 600 $A/x/notify_on_release
check "file chmod through A seen by B" "$(st %a $B/x/notify_on_release)" "600"
chmod 755 $A/x; chown 0:0 $A/x

# rename: B has x cached (and y negative)
ino=$(st %i $B/x)
check "B: y absent" "$(st %F $B/y)" "ENOENT"
mv $A/x $A/y
check "rename: old name gone in B" "$(st %F $B/x)" "ENOENT"
check "rename: new name in B, same inode" "$(st %i $B/y)" "$ino"
check "rename: B lists y only" "$(ls $B | grep -cx -e x -e y)" "1"

# removal, also of a nested cgroup whose files B has cached
mkdir $A/y/z
check "B: nested" "$(st %a $B/y/z/tasks)" "644"
rmdir $A/y/z
check "rmdir of nested through A seen by B" "$(st %F $B/y/z)" "ENOENT"
check "B: y's link count follows" "$(st %h $B/y)" "2"
rmdir $A/y
check "rmdir through A seen by B" "$(st %F $B/y)" "ENOENT"
mkdir $B/y
check "B recreates y, A sees it" "$(st %F $A/y)" "directory"
check "the new y is a new inode" "$([ "$(st %i $A/y)" != "$ino" ] && echo new)" "new"

# tasks moved through A: B's files show it, and so does a second cat through A
mkdir $A/p
spawn sleep 300; P=$LAST
check "B: p empty" "$(cat $B/p/cgroup.procs)" ""
echo $P > $A/p/cgroup.procs
check "attach through A seen in B's cgroup.procs" "$(cat $B/p/cgroup.procs)" "$P"
check "and in A's" "$(cat $A/p/cgroup.procs)" "$P"
echo $P > $B/cgroup.procs
check "moved back through B: A's cat is fresh" "$(cat $A/p/cgroup.procs)" ""
echo $P > $A/p/tasks
kill $P; wait $P 2>/dev/null
check "exit seen by both" "$(cat $A/p/tasks; cat $B/p/tasks)" ""
rmdir $B/p
check "rmdir through B seen by A" "$(st %F $A/p)" "ENOENT"

# the kernel's permission checks apply to cached entries (walk through a 0700 dir)
if command -v setpriv >/dev/null; then
	U="setpriv --reuid=64011 --regid=64011 --clear-groups"
	mkdir $A/q
	stat $A/q/tasks $B/q/tasks >/dev/null # cached by root
	chmod 700 $B/q
	check "search permission denied on a cached walk (A)" "$($U stat -c %a $A/q/tasks 2>&1 | grep -c 'Permission denied')" "1"
	check "search permission denied on a cached walk (B)" "$($U stat -c %a $B/q/tasks 2>&1 | grep -c 'Permission denied')" "1"
	chmod 755 $A/q
	check "search permission given back (B)" "$($U stat -c %a $B/q/tasks 2>&1)" "644"
	rmdir $A/q
else
	SKIP=$((SKIP + 1)); echo "skip permission checks: no setpriv"
fi

# a burst of changes through both mounts at once ends coherent (no deadlock)
# (wait with pids: a bare wait would wait for the daemon too)
for i in $(seq 50); do mkdir $A/s$i; done & W1=$!
for i in $(seq 50); do mkdir $B/t$i; done & W2=$!
wait $W1 $W2
check "concurrent mkdirs: B sees A's" "$(ls $B | grep -c '^s[0-9]')" "50"
check "concurrent mkdirs: A sees B's" "$(ls $A | grep -c '^t[0-9]')" "50"
for i in $(seq 50); do rmdir $B/s$i; done & W1=$!
for i in $(seq 50); do rmdir $A/t$i; done & W2=$!
wait $W1 $W2
check "concurrent rmdirs: none left (A)" "$(ls $A | grep -c '^[st][0-9]')" "0"
check "concurrent rmdirs: none left (B)" "$(for i in 1 25 50; do st %F $B/s$i; st %F $A/t$i; done | sort -u)" "ENOENT"
fs_done
