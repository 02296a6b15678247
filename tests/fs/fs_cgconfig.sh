#!/bin/bash
# `ucg up -f FILE` against libcgroup's own cgconfigparser on the kernel: one
# cgconfig.conf (groups with perm sections, a default section, parents made on the
# way, a parameter) loaded into a scratch named hierarchy of the kernel by
# cgconfigparser and into ucg by `ucg up -f`: the trees, owners, modes and values must
# be the same. Then the default layout (a file without a mount section: its groups go
# into the hierarchies `ucg up` mounts), and bad input: a syntax error or a missing
# controller changes nothing, a refused value undoes the whole run.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
NAME=ucgcfg$$
conf() { # conf MOUNTPOINT NAME: the file, for one side
	cat <<EOT
# one file, two systems
mount {
	"name=$2" = $1;
}
default {
	perm {
		task { uid = root; gid = root; }
		admin { uid = daemon; gid = daemon; dperm = 755; fperm = 700; }
	}
}
group a/b {
	perm {
		task { uid = nobody; gid = nogroup; fperm = 770; }
		admin { uid = daemon; gid = daemon; dperm = 775; fperm = 744; }
	}
	"name=$2" { }
}
group c {
	perm {
		task { uid = 65534; fperm = 777; }
		admin { uid = root; gid = daemon; }
	}
	"name=$2" {
		notify_on_release = 1;
		cgroup.clone_children = "1";
	}
}
group d { "name=$2" { } }
EOT
}
listing() { # the tree below the root, as ls would show it
	(cd "$1" && find a c d -printf '%p %M %u %g\n' | LC_ALL=C sort)
}

if command -v cgconfigparser >/dev/null; then
	mkdir -p $SCRATCH/km
	conf $SCRATCH/km k$NAME > $SCRATCH/k.conf
	if cgconfigparser -l $SCRATCH/k.conf 2>$SCRATCH/k.err; then
		echo $SCRATCH/km >> $SCRATCH/kmounts
		KLIST=$(listing $SCRATCH/km)
		KVAL=$(cat $SCRATCH/km/c/notify_on_release $SCRATCH/km/c/cgroup.clone_children | paste -sd' ')
	else
		echo "# cgconfigparser on the kernel: $(cat $SCRATCH/k.err)"
		mountpoint -q $SCRATCH/km && echo $SCRATCH/km >> $SCRATCH/kmounts
	fi
fi
conf $SCRATCH/um $NAME > $SCRATCH/u.conf
echo $SCRATCH/um >> $SCRATCH/mounts
"$UCG" up -f $SCRATCH/u.conf 2>$SCRATCH/u.err
check "ucg up -f: status" "$?:$(cat $SCRATCH/u.err)" "0:"
check "mounted from the mount section" "$(grep -c " $SCRATCH/um " /proc/self/mountinfo)" "1"
ULIST=$(listing $SCRATCH/um)
check "c's values" "$(cat $SCRATCH/um/c/notify_on_release $SCRATCH/um/c/cgroup.clone_children | paste -sd' ')" "1 1"
check "a/b's tasks: the task user, fperm 770 masked" "$(grep '^a/b/tasks ' <<<"$ULIST")" \
	"a/b/tasks -rw-rw---- nobody nogroup"
check "d takes the default section's perm" "$(grep '^d ' <<<"$ULIST")" "d drwxr-xr-x daemon daemon"
if [ -n "$KLIST" ]; then
	check "the same tree, owners and modes as cgconfigparser on the kernel" \
		"$(diff <(echo "$KLIST") <(echo "$ULIST") && echo same)" "same"
	check "the same values as on the kernel" "$KVAL" "1 1"
else
	echo "# SKIP comparison with the kernel: cgconfigparser (cgroup-tools) did not run here"
fi

# Bad input changes nothing.
printf 'group x {\n\t"name=%s" { notify_on_release = 1 }\n' $NAME > $SCRATCH/bad.conf
out=$("$UCG" up -f $SCRATCH/bad.conf 2>&1); st=$?
check "syntax error: status and message" "$st:$out" \
	"1:ucg: up: $SCRATCH/bad.conf: line 3: expected '}', found end of file: Invalid argument"
printf 'group x { "name=%s" { } }\ngroup y { "name=nosuch%s" { } }\n' $NAME $NAME > $SCRATCH/bad.conf
out=$("$UCG" up -f $SCRATCH/bad.conf 2>&1); st=$?
check "missing controller: status" "$st" "1"
check "missing controller: message" "$out" \
	"ucg: up: group y (line 2): no hierarchy with name=nosuch$NAME is mounted: No such file or directory"
check "missing controller: x not made" "$(test -e $SCRATCH/um/x && echo made || echo no)" "no"
printf 'group a/new/deep { "name=%s" { } }\ngroup c { "name=%s" { notify_on_release = 0; } }\ngroup z { "name=%s" { notify_on_release = on; } }\n' \
	$NAME $NAME $NAME > $SCRATCH/bad.conf
out=$("$UCG" up -f $SCRATCH/bad.conf 2>&1); st=$?
check "refused value: status and message" "$st:$out" \
	"1:ucg: up: group z: notify_on_release = on: Invalid argument"
check "refused value: the groups made are gone" "$(ls -d $SCRATCH/um/a/new $SCRATCH/um/z 2>/dev/null | wc -l)" "0"
check "refused value: c's value put back" "$(cat $SCRATCH/um/c/notify_on_release)" "1"
check "refused value: the tree as before" "$(listing $SCRATCH/um)" "$ULIST"

# No mount section: the groups go into the default layout under ROOT.
cat > $SCRATCH/layout.conf <<EOT
group web {
	cpu { cpu.shares = 512; cpu.cfs_quota_us = 50000; }
	memory { memory.limit_in_bytes = 256M; }
}
EOT
for h in cpu,cpuacct memory systemd pids freezer devices blkio net_cls,net_prio perf_event hugetlb cpuset net_cls net_prio rdma misc; do
	echo $SCRATCH/root/$h >> $SCRATCH/mounts
done
"$UCG" up -f $SCRATCH/layout.conf $SCRATCH/root 2>$SCRATCH/l.err
check "default layout + file: status" "$?:$(cat $SCRATCH/l.err)" "0:"
check "cpu.shares, quota, memory limit" \
	"$(cat $SCRATCH/root/cpu/web/cpu.shares $SCRATCH/root/cpu/web/cpu.cfs_quota_us $SCRATCH/root/memory/web/memory.limit_in_bytes 2>&1 | paste -sd' ')" \
	"512 50000 268435456"
"$UCG" down $SCRATCH/root
fs_done
