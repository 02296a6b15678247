#!/bin/bash
# The seed's shell session on real processes through the FUSE mount: mount rules,
# the tree, errnos, attach, fork inheritance, exit, zombies, views, bind mounts.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup

M=$(mnt a none,name=ucgt) || { bad "mount"; fs_done; exit 1; }
ok "mount none,name=ucgt"

check "one daemon per runtime dir" "$($UCG daemon 2>&1; echo rc=$?)" "ucg: daemon: cannot start: control socket $UCG_RUNTIME_DIR/ctl.sock: a daemon answers there: Address already in use
rc=1"

# ---- layout (docs/kernel/core.md §2)
check "root mode" "$($FSOP stat $M)" "555 0 0 2 0"
check "root files" "$(ls $M | tr '\n' ' ')" "cgroup.clone_children cgroup.procs cgroup.sane_behavior notify_on_release release_agent tasks "
check "tasks mode" "$($FSOP stat $M/tasks)" "644 0 0 1 0"
# size 0, as in the kernel (the exact mode, the default; fs_cache.sh for the other)
check "notify_on_release size" "$($FSOP stat $M/notify_on_release)" "644 0 0 1 0"
check "root holds every process" "$(grep -cx $$ $M/cgroup.procs)" "1"
check "pid 1 in the root" "$(grep -cx 1 $M/cgroup.procs)" "1"

# ---- mkdir / rmdir / rename (§3-5)
check "mkdir" "$($FSOP mkdir $M/x)" "OK"
check "mkdir umask" "$(umask 022; $FSOP mkdir $M/y 0777; $FSOP stat $M/y)" "OK
755 0 0 2 0"
check "mkdir -m 1777 under umask 0" "$(umask 0; $FSOP mkdir $M/z 1777; $FSOP stat $M/z)" "OK
1777 0 0 2 0"
check "mkdir exists" "$($FSOP mkdir $M/x)" "EEXIST"
check "mkdir control-file name" "$($FSOP mkdir $M/tasks)" "EEXIST"
check "mkdir release_agent in child" "$($FSOP mkdir $M/x/release_agent)" "OK"
check "mkdir newline" "$($FSOP mkdir $M/$'a\nb')" "EINVAL"
check "mkdir under a file" "$($FSOP mkdir $M/tasks/q)" "ENOTDIR"
check "mkdir missing parent" "$($FSOP mkdir $M/nope/q)" "ENOENT"
check "name with space" "$($FSOP mkdir "$M/a b:c,d")" "OK"
check "root nlink" "$($FSOP stat $M | cut -d' ' -f4)" "6"
check "create file" "$($FSOP create $M/x/f)" "EACCES"
check "unlink control file" "$($FSOP unlink $M/x/tasks)" "EPERM"
check "mknod" "$($FSOP mknod $M/x/n)" "EPERM"
check "symlink" "$($FSOP symlink /x $M/x/s)" "EPERM"
check "link" "$($FSOP link $M/x/tasks $M/x/t2)" "EPERM"
check "rename control file" "$($FSOP rename $M/x/tasks $M/x/t2)" "ENOTDIR"
check "touch control file" "$(touch $M/x/tasks && echo OK)" "OK"
check "rename same parent" "$($FSOP rename $M/y $M/y2)" "OK"
check "rename other parent" "$($FSOP rename $M/y2 $M/x/y2)" "EIO"
check "rename onto existing" "$($FSOP rename $M/y2 $M/z)" "EEXIST"
check "rename newline" "$($FSOP rename $M/y2 $M/$'q\nr')" "EINVAL"
check "mv (shell)" "$(mv $M/y2 $M/y3 && ls -d $M/y3 >/dev/null && echo OK)" "OK"
check "rmdir child with children" "$($FSOP rmdir $M/x)" "EBUSY"
check "rmdir control file" "$($FSOP rmdir $M/x/tasks)" "ENOTDIR"
check "rmdir missing" "$($FSOP rmdir $M/nope)" "ENOENT"
check "rmdir" "$($FSOP rmdir $M/x/release_agent)" "OK"
check "rm -rf fails" "$(rm -rf $M/y3 2>/dev/null; test -d $M/y3 && echo kept)" "kept"
check "rmdir after rm -rf" "$($FSOP rmdir $M/y3)" "OK"

# ---- booleans and sizes (§2.1)
check "notify write" "$($FSOP write $M/x/notify_on_release 1)" "OK"
check "notify read" "$(cat $M/x/notify_on_release)" "1"
check "notify bad" "$($FSOP write $M/x/notify_on_release ' 1')" "EINVAL"
check "notify range" "$($FSOP write $M/x/notify_on_release 18446744073709551616)" "ERANGE"
check "inherit at mkdir" "$($FSOP mkdir $M/x/c; cat $M/x/c/notify_on_release)" "OK
1"
check "E2BIG" "$($FSOP write $M/x/tasks "$(printf '%4097s' 1)")" "E2BIG"
check "sane_behavior root write" "$($FSOP write $M/cgroup.sane_behavior 1)" "EINVAL"
check "bash errno text" "$(echo abc 2>&1 > $M/x/notify_on_release | sed 's/.*: //')" "Invalid argument"

# ---- attach (§6)
spawn sleep 300; S1=$LAST
echo $S1 > $M/x/cgroup.procs
check "attach by procs" "$(cat $M/x/cgroup.procs)" "$S1"
check "tasks lists it" "$(cat $M/x/tasks)" "$S1"
check "gone from root" "$(grep -cx $S1 $M/tasks)" "0"
check "ucg proc" "$($UCG proc $S1)" "1:name=ucgt:/x"
check "attach ESRCH" "$($FSOP write $M/x/cgroup.procs 4194999)" "ESRCH"
check "attach EINVAL two ids" "$($FSOP write $M/x/cgroup.procs "$S1 $S1")" "EINVAL"
check "attach kthreadd" "$($FSOP write $M/x/cgroup.procs 2)" "EINVAL"
check "rmdir busy" "$($FSOP rmdir $M/x/c; $FSOP rmdir $M/x)" "OK
EBUSY"
check "attach whitespace" "$($FSOP write $M/z/tasks " $S1 \n")" "OK"
check "moved by tasks" "$(cat $M/z/tasks)" "$S1"
check "x emptied" "$(cat $M/x/tasks | wc -c)" "0"

# threads: tasks moves one thread, procs the whole group
if command -v python3 >/dev/null; then
	python3 -c 'import threading,time
ts=[threading.Thread(target=time.sleep,args=(300,),daemon=True) for _ in range(3)]
[t.start() for t in ts]; time.sleep(300)' &
	PY=$!; PIDS+=("$PY")
	for i in $(seq 100); do [ "$(ls /proc/$PY/task | wc -l)" = 4 ] && break; sleep 0.05; done
	TIDS=$(ls /proc/$PY/task | sort -n)
	T2=$(echo "$TIDS" | sed -n 2p)
	echo $T2 > $M/x/tasks
	check "thread moved alone" "$(cat $M/x/tasks)" "$T2"
	check "its process listed in both" "$(grep -cx $PY $M/x/cgroup.procs)$(grep -cx $PY $M/cgroup.procs)" "11"
	echo $T2 > $M/x/cgroup.procs
	check "procs gathers threads" "$(paste -sd' ' $M/x/tasks)" "$(echo "$TIDS" | paste -sd' ')"
	kill $PY; wait $PY 2>/dev/null
	check "threads gone after exit" "$(cat $M/x/tasks | wc -c)" "0"
else
	SKIP=$((SKIP + 1)); echo "SKIP threads: no python3"
fi

# ---- fork inheritance: a child forked before its parent moved stays (§8)
M2=$(mnt b none,name=ucgt2) || bad "second hierarchy"
mkdir $M/p $M/q $M2/r
bash -c 'echo $$ > '$M'/p/cgroup.procs; echo $$ > '$M2'/r/cgroup.procs; sleep 300 & echo $! > '$SCRATCH'/kid; wait' &
PAR=$!; PIDS+=("$PAR")
for i in $(seq 50); do [ -s $SCRATCH/kid ] && break; sleep 0.05; done
KID=$(cat $SCRATCH/kid); PIDS+=("$KID")
check "child inherits (h1)" "$(grep -cx $KID $M/p/cgroup.procs)" "1"
check "child inherits (h2)" "$(grep -cx $KID $M2/r/cgroup.procs)" "1"
echo $PAR > $M/q/cgroup.procs
check "parent moved, child stays" "$(cat $M/p/cgroup.procs)/$(cat $M/q/cgroup.procs)" "$KID/$PAR"
check "proc view, newest first" "$($UCG proc $KID)" "2:name=ucgt2:/r
1:name=ucgt:/p"
# fork right before the move: echo $! before the event could be missed
bash -c 'sleep 300 & echo $! > '$M'/q/cgroup.procs && echo moved' > $SCRATCH/out 2>&1 &
wait $!
check "fork then immediate move" "$(cat $SCRATCH/out)" "moved"
N=$(cat $M/q/cgroup.procs | wc -l)
check "moved process is in q" "$N" "2"
for p in $(cat $M/q/cgroup.procs); do [ $p != $PAR ] && PIDS+=("$p"); done

# kill $(cat cgroup.procs) (the seed)
kill $(cat $M/q/cgroup.procs) 2>/dev/null
for i in $(seq 50); do [ -z "$(cat $M/q/cgroup.procs)" ] && break; sleep 0.05; done
check "kill \$(cat cgroup.procs) empties it" "$(cat $M/q/cgroup.procs | wc -c)" "0"
check "rmdir emptied" "$($FSOP rmdir $M/q)" "OK"

# zombie: exited, unreaped child is not listed, does not block rmdir
mkdir $M/zz
# the subshell joins zz and exits; its parent execs sleep and never reaps it
bash -c '(echo $BASHPID > '$M'/zz/cgroup.procs; exec sleep 0.2) & echo $! > '$SCRATCH'/zp; exec sleep 300' &
ZPAR=$!; PIDS+=("$ZPAR")
sleep 0.7
ZP=$(cat $SCRATCH/zp)
check "zombie is a zombie" "$(awk '{print $3}' /proc/$ZP/stat)" "Z"
check "zombie not listed" "$(cat $M/zz/cgroup.procs | wc -c)" "0"
check "zombie proc view" "$($UCG proc $ZP | head -1)" "2:name=ucgt2:/"
check "rmdir with zombie" "$($FSOP rmdir $M/zz)" "OK"
kill $ZPAR; wait $ZPAR 2>/dev/null

# ---- second mount: same tree, live; bind mount delegates a subtree
M3=$(mnt c none,name=ucgt) || bad "second mount of ucgt"
check "second mount shows the tree" "$(ls -d $M3/p >/dev/null && echo yes)" "yes"
mkdir $M/live
check "live at the other mount" "$(test -d $M3/live && echo yes)" "yes"
check "mount busy on same dir" "$($UCG mount -o none,name=ucgt cgroup $M3 2>&1)" "ucg: mount: $M3: Device or resource busy"
mkdir -p $SCRATCH/bind; MOUNTS+=("$SCRATCH/bind")
mkdir $M/live/sub
if mount --bind $M/live $SCRATCH/bind; then
	check "bind shows subtree" "$(ls -d $SCRATCH/bind/sub >/dev/null && echo yes)" "yes"
	check "bind mkdir" "$($FSOP mkdir $SCRATCH/bind/n2; test -d $M/live/n2 && echo yes)" "OK
yes"
	umount $SCRATCH/bind
else
	bad "bind mount"
fi

# ---- mount option errors, printed with strerror
check "mount bogus" "$($UCG mount -o bogus cgroup $SCRATCH/c 2>&1 | tail -1)" "ucg: mount: $SCRATCH/c: Invalid argument"
$UCG mount -o bogus cgroup $SCRATCH/c 2>/dev/null; check "mount exit status" "$?" "32"
check "name alone, new" "$($UCG mount -o name=nosuch cgroup $SCRATCH/c 2>&1 | tail -1)" "ucg: mount: $SCRATCH/c: Invalid argument"
mkdir -p $SCRATCH/d; MOUNTS+=("$SCRATCH/d")
check "mount cpu" "$($UCG mount -o cpu cgroup $SCRATCH/d 2>&1 && echo OK)" "OK"
mkdir -p $SCRATCH/e; MOUNTS+=("$SCRATCH/e")
check "cpu,cpuacct overlaps" "$($UCG mount -o cpu,cpuacct cgroup $SCRATCH/e 2>&1)" "ucg: mount: $SCRATCH/e: Device or resource busy"
check "cgroups shows cpu bound" "$($UCG cgroups | awk '$1=="cpu"{print ($2>0)}')" "1"
check "remount with child" "$($UCG mount -o remount,none,name=ucgt cgroup $M 2>&1)" "ucg: mount: $M: Device or resource busy"
check "umount cpu" "$($UCG umount $SCRATCH/d && echo OK)" "OK"
check "umount not ours" "$($UCG umount $SCRATCH 2>&1)" "ucg: umount: $SCRATCH: Invalid argument"
check "mount missing dir" "$($UCG mount -o none,name=q cgroup $SCRATCH/nodir 2>&1)" "ucg: mount: $SCRATCH/nodir: No such file or directory"

# ---- remount (§1.3) and mount(8)'s generic options
RM=$(mnt rm rw,relatime,nosuid,none,name=rmt) || bad "mount with generic options"
check "generic options stripped" "$($UCG mount | grep " $RM " | cut -d' ' -f3)" "rw,name=rmt"
check "remount agent" "$($UCG mount -o remount,none,name=rmt,release_agent=/bin/x cgroup $RM && cat $RM/release_agent)" "/bin/x"
check "remount binds hugetlb" "$($UCG mount -o remount,hugetlb,name=rmt cgroup $RM && echo OK)" "OK"
check "hugetlb files appeared" "$([ "$(ls $RM | grep -c '^hugetlb\.')" -gt 0 ] && echo yes)" "yes"
check "cgroups shows hugetlb's id" "$($UCG cgroups | awk '$1=="hugetlb"{print ($2>0)}')" "1"
check "remount name change" "$($UCG mount -o remount,none,name=other cgroup $RM 2>&1 | tail -1)" "ucg: mount: $RM: Invalid argument"
check "remount releases" "$($UCG mount -o remount,name=rmt cgroup $RM && ls $RM | grep -c '^hugetlb\.')" "0"
check "mount list" "$($UCG mount | grep -c " $RM ")" "1"

# ---- removed cgroup: open fd gets ENODEV (§3.5)
mkdir $M/gone
check "read after rmdir" "$($FSOP rmread $M/gone/tasks $M/gone)" "ENODEV"
check "open after rmdir" "$($FSOP open $M/gone/tasks r)" "ENOENT"

fs_done
