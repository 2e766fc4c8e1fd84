#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Positive controls, in the debug kernel's guest, after the real suite in
# the same boot: plant one bug of each kind (inkprobe_control.ko) and keep
# the kernel log lines each produced in OUT/control-KIND.log, so that the
# log scanner can check that every detector reports what it must.
#
#   run-controls.sh OUT [KMOD_DIR]     (KMOD_DIR: $INKPROBE_KMOD_DIR)
#
# Also written: OUT/control-debug_locks (lockdep's debug_locks before and
# after the controls: 0 before means the suite already switched lockdep
# off, and the rcu and lock_inversion controls cannot report),
# OUT/control-suite-leaks.log (kmemleak's report of what the suite leaked,
# from a scan before the controls), OUT/control-kmemleak (the kmemleak file
# after the leak control) and OUT/control.done.
#
# Order matters.  A lockdep report switches lockdep off (debug_locks=0) for
# the rest of the boot, and so does a KASAN report (add_taint(...,
# LOCKDEP_NOW_UNRELIABLE)); suspicious RCU usage is only reported while
# debug_locks is 1 but does not switch it off (lockdep_rcu_suspicious() in
# 6.12).  So: rcu, then lock_inversion, then the others.  might_sleep()
# reports at most once a second: every control waits two seconds.
out=${1:?usage: run-controls.sh OUT [KMOD_DIR]}
kmod=${2:-${INKPROBE_KMOD_DIR:?}}
ctl=/sys/kernel/debug/inkprobe_control
kinds=(rcu lock_inversion sleep_atomic ubsan debugobjects kasan_uaf kasan_oob kfence_uaf leak)

# the console log is scanned up to here (scripts/check): what follows is planted
echo "inkprobe-controls: start" >/dev/kmsg
grep -m1 'debug_locks' /proc/lockdep_stats >"$out/control-debug_locks" 2>&1
if ! insmod "$kmod/inkprobe_control.ko"; then
	echo "insmod $kmod/inkprobe_control.ko failed" >"$out/control.done"
	exit 1
fi
# since_mark KIND: the kernel log after KIND's marker line, which is KIND's
# own (a count of lines would miss everything once the log wraps)
since_mark() {
	dmesg | sed -n "/inkprobe-controls: control $1\$/,\$p" | tail -n +2
}

# kmemleak: every suspect goes to the kernel log too; a scan first finds
# what the suite leaked (OUT/control-suite-leaks.log: kmemleak's lines of
# that scan, to be empty), then those suspects are marked seen
echo 1 >/sys/module/kmemleak/parameters/verbose 2>/dev/null
echo "inkprobe-controls: control suite-leaks" >/dev/kmsg
echo scan >/sys/kernel/debug/kmemleak 2>/dev/null
since_mark suite-leaks | grep 'kmemleak:' >"$out/control-suite-leaks.log"
echo clear >/sys/kernel/debug/kmemleak 2>/dev/null

# leak_scans: kmemleak scans until one reports a planted object, at most 5.
# An object is reported once it is older than 5 s and a scan finds it
# unreferenced; a stale stack slot can still point to one for a scan or two.
# A refused scan (kmemleak switched itself off) is logged where the scanner
# reads, in the control's own log.
leak_scans() {
	local try err
	sleep 6
	for try in 1 2 3 4 5; do
		if ! err=$( (echo scan >/sys/kernel/debug/kmemleak) 2>&1); then
			echo "inkprobe-controls: kmemleak refused scan $try: $err" >/dev/kmsg
			return
		fi
		since_mark leak | grep -q 'unreferenced object 0x' && return
		sleep 2
	done
	echo "inkprobe-controls: kmemleak reported nothing in 5 scans" >/dev/kmsg
}

for kind in "${kinds[@]}"; do
	sleep 2
	echo "inkprobe-controls: control $kind" >/dev/kmsg
	echo 1 >"$ctl/$kind"
	if [ "$kind" = leak ]; then
		leak_scans
		cat /sys/kernel/debug/kmemleak >"$out/control-kmemleak" 2>&1
	fi
	sleep 1
	since_mark "$kind" >"$out/control-$kind.log"
done
timeout 60 rmmod inkprobe_control
grep -m1 'debug_locks' /proc/lockdep_stats >>"$out/control-debug_locks" 2>&1
echo done >"$out/control.done"
