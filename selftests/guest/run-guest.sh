#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test kernel's guest: the in-guest test binaries named on
# the command line (scripts/check derives them from the sources with
# scripts/list-tests), one after the other, then the kernel's log.  Results
# go to files in OUT (an rwdir: virtme-ng's own output channel is
# unreliable without udev).
#
#   run-guest.sh OUT TOP KERNEL TEST...
#
# Where the kernel has them (the debug kernel): kmemleak is cleared after
# boot and scanned after the modules are removed (OUT/kmemleak), lockdep's
# debug_locks is read at the end (OUT/debug_locks), and then the positive
# controls run (selftests/control/run-controls.sh): planted bugs whose
# reports must be found in OUT/control-*.log.
out=$1 top=$2 kernel=$3
shift 3
exec >"$out/guest.log" 2>&1
export INKPROBE_KMOD_DIR=$top/build/$kernel/kmod
export INKPROBE_BLOB_DIR=$top/build/$kernel/blobs
export INKPROBE_TOOL=$top/build/inkprobe
export INKPROBE_KERNEL=$kernel
# the guest's output directory, on the host's file system (profile_test leaves its samples there)
export INKPROBE_OUT=$out
kmemleak=/sys/kernel/debug/kmemleak
uname -r >"$out/uname"
cat /proc/cmdline >"$out/cmdline"
cat /proc/sys/kernel/tainted >"$out/taint.start"
# what boot left in kmemleak is not the tests'
[ -e "$kmemleak" ] && echo clear >"$kmemleak"
for name in "$@"; do
	t=$top/build/guest/$name
	echo "running $name"
	echo "$(date +%s) $name" >>"$out/started"
	start=$(date +%s)
	timeout -k 10 $((${INKPROBE_TEST_TIMEOUT:-1800} * ${INKPROBE_TIMEOUT_SCALE:-1})) "$t" \
		>"$out/$name.tap" 2>&1
	echo $? >"$out/$name.rc"
	echo "$name $(( $(date +%s) - start ))" >>"$out/seconds"
	# whatever a test left behind (it may have died half-way)
	echo 1 >/sys/kernel/debug/kprobes/enabled 2>/dev/null
	echo >/sys/kernel/tracing/kprobe_events 2>/dev/null
done
rmmod inkprobe 2>/dev/null
rmmod inkprobe_target 2>/dev/null
cat /proc/sys/kernel/tainted >"$out/taint.end"
if [ -e "$kmemleak" ]; then
	# an object is reported once it is older than 5 s and a scan finds it
	# unreferenced (the second scan: one a stale pointer hid from the
	# first); a refused scan (kmemleak switched itself off) goes into
	# OUT/kmemleak, so that an off kmemleak does not read as "no leak"
	sleep 6
	refused=
	for scan in 1 2; do
		err=$( (echo scan >"$kmemleak") 2>&1) ||
			refused+="kmemleak refused scan $scan: $err"$'\n'
		sleep 1
	done
	{ printf '%s' "$refused"; cat "$kmemleak"; } >"$out/kmemleak" 2>&1
fi
[ -e /proc/lockdep_stats ] &&
	sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats >"$out/debug_locks"
dmesg >"$out/dmesg"
controls=$top/selftests/control/run-controls.sh
if [ "$kernel" = debug ] && [ -x "$controls" ]; then
	"$controls" "$out" >"$out/controls.log" 2>&1
	echo $? >"$out/controls.rc"
fi
echo done >"$out/done"
