#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test kernel's guest: every in-guest test binary, one after
# the other, then the kernel's log.  Results go to files in OUT (an rwdir:
# virtme-ng's own output channel is unreliable without udev).
#
#   run-guest.sh OUT TOP KERNEL [TEST...]    (default: every test)
out=$1 top=$2 kernel=$3
shift 3
exec >"$out/guest.log" 2>&1
export INKPROBE_KMOD_DIR=$top/build/$kernel/kmod
export INKPROBE_BLOB_DIR=$top/build/$kernel/blobs
export INKPROBE_TOOL=$top/build/inkprobe
export INKPROBE_KERNEL=$kernel
uname -r >"$out/uname"
cat /proc/sys/kernel/tainted >"$out/taint.start"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("$top"/build/guest/*_test)
for t in "${tests[@]}"; do
	t=$top/build/guest/$(basename "$t")
	name=$(basename "$t")
	echo "running $name"
	timeout -k 10 $((${INKPROBE_TEST_TIMEOUT:-900} * ${INKPROBE_TIMEOUT_SCALE:-1})) "$t" \
		>"$out/$name.tap" 2>&1
	echo $? >"$out/$name.rc"
	# whatever a test left behind (it may have died half-way)
	echo 1 >/sys/kernel/debug/kprobes/enabled 2>/dev/null
	echo >/sys/kernel/tracing/kprobe_events 2>/dev/null
done
rmmod inkprobe 2>/dev/null
rmmod inkprobe_target 2>/dev/null
cat /proc/sys/kernel/tainted >"$out/taint.end"
dmesg >"$out/dmesg"
echo done >"$out/done"
