#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, inside the guest: every step as a user would type it, with
# plain echo and cat.  Output goes to OUT/demo.txt.
#
#   demo-guest.sh OUT TOP KERNEL
out=$1 top=$2 k=$3
exec >"$out/demo.txt" 2>&1
kmod=$top/build/$k/kmod
D=/sys/kernel/debug/inkprobe
step() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; eval "$@"; }

step "kernel $(uname -r): load the modules and the target's blob"
run insmod "$kmod/inkprobe_target.ko"
run insmod "$kmod/inkprobe.ko"
run "cat $top/build/$k/blobs/inkprobe_target.inkb > $D/blob"
run cat $D/blobs

step "one probe on the inlined function tgt_mix: every inlined copy"
run "echo 'p:tgt/mix tgt_mix reg konst obj weight=obj->weight' > $D/probes"
run cat $D/probes
run "grep tgt_ /sys/kernel/debug/kprobes/list"

step "the target calls tgt_mix from two callers; events with every argument"
run "echo 'mix 4242 77 9' > /sys/kernel/debug/inkprobe_target/trigger"
run "timeout 1 cat $D/trace_pipe"
step "what the target says it passed"
run cat /sys/kernel/debug/inkprobe_target/expected
run cat $D/stats

step "errors read like kprobe_events' error_log"
run "echo 'p:tgt/bad tgt_mix nosuch' >> $D/probes"
run cat $D/error_log

step "removal leaves no kprobe"
run "echo '-:tgt/mix' >> $D/probes"
run "grep -c tgt_ /sys/kernel/debug/kprobes/list"
run rmmod inkprobe inkprobe_target
echo done >"$out/done"
