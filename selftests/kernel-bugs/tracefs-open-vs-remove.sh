#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 6.1 (before eventfs, 6.6): an event removed while its enable and
# filter files are opened frees its trace_event_file under the opener.
# kprobe_events alone, no inkprobe.  With slub_debug=P a general protection
# fault on 0x6b6b6b6b... follows within seconds on 6.1.192; 6.12 survives.
#
#   scripts/vm-run 6.1 OUT 600 $PWD/selftests/kernel-bugs/tracefs-open-vs-remove.sh OUT [SECONDS]
out=$1
T=/sys/kernel/tracing
mkdir -p $T/instances/race
end=$((SECONDS + ${2:-120}))
( while [ $SECONDS -lt $end ]; do
	echo 'p:kp/ev vfs_read' > $T/kprobe_events 2>/dev/null
	echo '-:kp/ev' >> $T/kprobe_events 2>/dev/null
  done ) &
a=$!
( while [ $SECONDS -lt $end ]; do
	echo 0 > $T/instances/race/events/kp/ev/enable 2>/dev/null
	echo 0 > $T/instances/race/events/kp/ev/filter 2>/dev/null
  done ) &
b=$!
( while [ $SECONDS -lt $end ]; do
	cat $T/events/kp/ev/enable >/dev/null 2>&1
  done ) &
c=$!
wait $a $b $c
echo survived > $out/repro.done
dmesg > $out/dmesg
