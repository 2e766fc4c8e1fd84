#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench, inside the test kernel's guest: every guest row in one boot.
# Each row is one function (row_NAME) that writes "key=value" lines to
# OUT/results; scripts/bench turns them into the table.  A new row is a new
# row_NAME function here, its name in BENCH_ROWS (OUT/params) and its lines
# in scripts/bench's report.  Timings come from the guest's clock: under
# TCG they are emulation times, and only ratios within one run mean much.
#
#   run-guest.sh OUT TOP KERNEL
out=$1 top=$2 k=$3
exec >"$out/guest.log" 2>&1

# Defaults; scripts/bench may override them in OUT/params.
BENCH_ROWS="blobload place hitcost consumers throughput stack exits reader profile"
BENCH_FUNC=nla_put_u32		# placement: a function with hundreds of instances
BENCH_N=100000			# hit cost: calls per timed run
BENCH_WRITTEN=30000		# hit cost: calls per run when every hit is kept
BENCH_REPEAT=11			# hit cost: rounds, one run per probe each
BENCH_TRIAL=3			# throughput: seconds per paced trial
BENCH_START_RATE=2000		# throughput: first rate tried (calls/s)
BENCH_BISECT=5			# throughput: bisections after the first loss
BENCH_VMLINUX=			# profile: the DWARF vmlinux (scripts/bench sets it)
BENCH_VMLINUX_TEXT=		# profile: its _text, hex (scripts/bench sets it)
BENCH_PROFILE_S=5		# profile: seconds perf record samples the workload
# shellcheck disable=SC1091
[ -f "$out/params" ] && . "$out/params"

R=$out/results
: >"$R"
kmod=$top/build/$k/kmod
blobs=$top/build/$k/blobs
ib=$top/build/bench/inkbench
D=/sys/kernel/debug/inkprobe
T=/sys/kernel/tracing
TG=/sys/kernel/debug/inkprobe_target
KL=/sys/kernel/debug/kprobes/list
SITE=tgt_bench_caller+0x5
INK_DEF='p:b/mix tgt_bench_mix reg konst obj weight=obj->weight'
KPEV_DEF='p:kp/b inkprobe_target:tgt_bench_caller+5 reg=%di:u64 konst=\9:s32 obj=%si:x64'
KPEV_DEF="$KPEV_DEF weight=+8(%si):u32"
# a filter that rejects every hit of both (konst is always 9)
FILTER='konst != 9'
bpfbench=$top/build/bench/bpfbench
bpfobj=$top/build/bench/bpfbench.bpf.o

put() { echo "$1=$2" >>"$R"; echo "result $1=$2"; }
# Microseconds since the epoch, without a fork.
us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
ms_since() { awk -v a="$1" -v b="$(us)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
fastest() { sort -n | head -n 1; }
# The IRQ work interrupts of every CPU so far.
iwi() {
	awk '$1 == "IWI:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s + 0 }' \
		/proc/interrupts
}

# ---------------------------------------------------------------- helpers

# One timed run of the target's loop; prints its nanoseconds.
bench_ns() {
	echo "bench $1" >$TG/trigger || { echo 0; return; }
	sed -n 's/^bench calls=[0-9]* ns=\([0-9]*\)$/\1/p' $TG/expected
}

# How the probe at the bench site is placed, once kprobes is done with it:
# "optimized" when its jump is written (the list says [OPTIMIZED] as soon as
# the probe is queued for optimization, before), "int3" when it stays a
# breakpoint, after at most 30 s.
wait_placed() {
	local i line op='' t0
	t0=$(us)
	for ((i = 0; i < 150; i++)); do
		line=$(grep -F "$SITE" $KL)
		op=$("$ib" opcode "${line%% *}" 2>/dev/null)
		case "$line:$op" in
		*OPTIMIZED*:e9)
			echo "jump written $(ms_since "$t0") ms after placing" >&2
			echo optimized
			return ;;
		*:cc) case "$line" in *OPTIMIZED*) ;; *) [ $i -ge 10 ] && break ;; esac ;;
		esac
		sleep 0.2
	done
	case "$line:$op" in
	:*) echo absent ;;
	*:cc) echo int3 ;;
	*) echo "unknown (opcode ${op:-unreadable}, list: ${line#*  k  })" ;;
	esac
}

# The target's kprobes, once kprobes is done optimizing (wait_placed's
# 30 s are for one site): "k:tgt_bench_caller+0x5[OPTIMIZED] r:..." --
# k a kprobe, r a kretprobe, then kprobes' flags, [int3] for none.
list_placed() {
	sleep 5
	grep inkprobe_target $KL | awk '{ f = ""; for (i = 5; i <= NF; i++) f = f $i
		printf "%s%s:%s%s", (NR > 1 ? " " : ""), $2, $3, (f == "" ? "[int3]" : f) }'
}

# A BPF program of bench/bpfbench.bpf.c ($@: bpfbench's arguments), on
# until bpf_stop; its counters are then in $out/bpf.out.
bpf_pid=
bpf_start() {
	local i
	"$bpfbench" "$bpfobj" "$@" >"$out/bpf.out" 2>>"$out/bpf.err" &
	bpf_pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^ready' "$out/bpf.out" && return 0
		kill -0 "$bpf_pid" 2>/dev/null || break
		sleep 0.1
	done
	put guest.error "bpfbench $* did not attach (see bpf.err)"
	return 1
}
bpf_stop() {
	kill -TERM "$bpf_pid" 2>/dev/null
	wait "$bpf_pid"
}

# --- path (issue 22): one event path, inkprobe's hits go to its trace event only
# inkprobe's definition, its trace event enabled nowhere yet.
ink_tev_only() {
	echo "$INK_DEF" >>$D/probes
}
# A definition $1, its trace event enabled in the top-level buffer (ftrace's ring).
ink_on() {
	echo "$1" >>$D/probes && echo 1 >$T/events/b/mix/enable
}
# --- end path

# Probe on/off at the bench site, by name: none, empty, kpev, ink (both
# into the top-level buffer); kpev0
# and ink0 without fetch-args; kpevs and inks with a stack trace per hit
# (kprobe_events' stacktrace trigger, inkprobe's stacktrace option); tev:
# inkprobe's trace event enabled in ftrace (= ink); kpevf
# and tevf: kpev and tev with FILTER; bpft: bpfbench's tracepoint program
# on inkprobe's event, bpfk: its kprobe program at
# the site, reading the registers by hand; bpfs: its kprobe program at the
# site, a copy made for b/mix's spec there; bpfc: the same program reading
# that spec from its map by the BPF cookie (the definition removed once
# either is attached).
place() {
	case $1 in
	tev) ink_tev_only && echo 1 >$T/events/b/mix/enable ;;
	tevf)
		ink_tev_only && echo "$FILTER" >$T/events/b/mix/filter &&
			echo 1 >$T/events/b/mix/enable ;;
	kpevf)
		echo "$KPEV_DEF" >>$T/kprobe_events &&
			echo "$FILTER" >$T/events/kp/b/filter &&
			echo 1 >$T/events/kp/b/enable ;;
	bpft) ink_tev_only && bpf_start decoded ;;
	bpfk) bpf_start by_hand tgt_bench_caller 5 ;;
	# the definition gives the specs; once attached, the program needs it no more
	bpfs) ink_tev_only && bpf_start per_site b/mix && echo '-:b/mix' >>$D/probes ;;
	bpfc) ink_tev_only && bpf_start per_site b/mix cookie && echo '-:b/mix' >>$D/probes ;;
	none) ;;
	empty) echo "kprobe 5" >$TG/trigger ;;
	kpev)
		echo "$KPEV_DEF" >>$T/kprobe_events &&
			echo 1 >$T/events/kp/b/enable ;;
	ink) ink_on "$INK_DEF" ;;	# path
	kpev0)
		echo "${KPEV_DEF%% reg=*}" >>$T/kprobe_events &&
			echo 1 >$T/events/kp/b/enable ;;
	ink0) ink_on "${INK_DEF%% reg*}" ;;	# path
	kpevs)
		echo "$KPEV_DEF" >>$T/kprobe_events &&
			echo stacktrace >$T/events/kp/b/trigger &&
			echo 1 >$T/events/kp/b/enable ;;
	inks) ink_on "$INK_DEF stacktrace" ;;	# path
	# exits: an entry and an exit per call, no fetch-args (row_exits)
	inkr)
		echo 'p:b/mix tgt_bench_mix' >>$D/probes &&
			echo 'r:b/mixr tgt_bench_mix' >>$D/probes &&
			echo 1 >$T/events/b/enable ;;
	# a call's duration: an entry and an exit kprobe, one record (row_exits)
	inkd)
		echo 'r:b/mixd tgt_bench_mix $duration' >>$D/probes &&
			echo 1 >$T/events/b/enable ;;
	kpevr)
		echo 'p:kp/b inkprobe_target:tgt_bench_caller' >>$T/kprobe_events &&
			echo 'r:kp/br inkprobe_target:tgt_bench_caller' >>$T/kprobe_events &&
			echo 1 >$T/events/kp/enable ;;
	# floors of the exits row: kprobe_events at the pcs inkprobe probes
	# (EXIT_OFFS), two records a call (kpev2), or one at the exit after
	# an empty kprobe at the entry (kpevx)
	kpev2)
		echo 'p:kp/b inkprobe_target:tgt_bench_caller+5' >>$T/kprobe_events &&
			kpev_exits && echo 1 >$T/events/kp/enable ;;
	kpevx) echo "kprobe 5" >$TG/trigger && kpev_exits && echo 1 >$T/events/kp/enable ;;
	esac
}
# kprobe_events p events kp/bx0, kp/bx1, ... at the exits' pcs.
kpev_exits() {
	local i=0 off
	[ -n "$EXIT_OFFS" ] || return 1
	for off in $EXIT_OFFS; do
		echo "p:kp/bx$i inkprobe_target:tgt_bench_caller+$off" >>$T/kprobe_events || return 1
		i=$((i + 1))
	done
}
kpev_exits_off() {
	echo 0 >$T/events/kp/enable
	grep -o '^p:kp/bx[0-9]*' $T/kprobe_events | sed 's/^p:/-:/' >>$T/kprobe_events
}
unplace() {
	case $1 in
	tev | tevf)
		echo 0 >$T/events/b/mix/enable
		echo '-:b/mix' >>$D/probes ;;
	kpevf)
		echo 0 >$T/events/kp/b/enable
		echo '-:kp/b' >>$T/kprobe_events ;;
	bpft)
		bpf_stop
		echo '-:b/mix' >>$D/probes ;;
	bpfk | bpfs | bpfc) bpf_stop ;;
	none) ;;
	empty) echo "kprobe 5" >$TG/trigger ;;
	kpev | kpev0 | kpevs)
		echo 0 >$T/events/kp/b/enable
		[ "$1" = kpevs ] && echo '!stacktrace' >$T/events/kp/b/trigger
		echo '-:kp/b' >>$T/kprobe_events ;;
	ink | ink0 | inks)	# path
		echo 0 >$T/events/b/mix/enable
		echo '-:b/mix' >>$D/probes ;;
	inkr)
		echo 0 >$T/events/b/enable
		printf '%s\n' '-:b/mix' '-:b/mixr' >>$D/probes ;;
	inkd)
		echo 0 >$T/events/b/enable
		echo '-:b/mixd' >>$D/probes ;;
	kpevr)
		echo 0 >$T/events/kp/enable
		printf '%s\n' '-:kp/b' '-:kp/br' >>$T/kprobe_events ;;
	kpev2) kpev_exits_off && echo '-:kp/b' >>$T/kprobe_events ;;
	kpevx) kpev_exits_off && echo "kprobe 5" >$TG/trigger ;;
	esac
}

clear_ftrace() { echo >$T/trace; }
drain_for() {
	case $1 in
	ink | ink0 | inks | kpev | kpev0 | kpevs | kpevf | tev | tevf | inkr | inkd | kpevr | kpev2 | kpevx)
		clear_ftrace ;;	# path
	*) true ;;
	esac
}

# Event counters: "hits written lost" (inkprobe: its ftrace consumer's;
# kprobe_events: "hits hits 0"; in a buffer that overwrites, losses are
# found by the reader).
counters() {
	case $1 in
	ink | ink0 | inks | tev) awk '$1 == "b/mix" { for (i = 2; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] }
		print c["ftrace_hits"] + 0, c["ftrace_written"] + 0, c["ftrace_lost"] + 0 }' $D/stats ;;	# path
	kpev | kpev0 | kpevs | kpevf) awk '$1 == "b" { print $2, $2, 0 }' $T/kprobe_profile ;;
	# both events of the pair
	inkr) awk '$1 == "b/mix" || $1 == "b/mixr" { for (i = 2; i <= NF; i++) { split($i, kv, "="); c[kv[1]] += kv[2] } }
		END { print c["ftrace_hits"] + 0, c["ftrace_written"] + 0, c["ftrace_lost"] + 0 }' $D/stats ;;
	kpevr) awk '$1 == "b" || $1 == "br" { s += $2 } END { print s + 0, s + 0, 0 }' $T/kprobe_profile ;;
	kpev2) awk '$1 == "b" || $1 ~ /^bx/ { s += $2 } END { print s + 0, s + 0, 0 }' $T/kprobe_profile ;;
	kpevx) awk '$1 ~ /^bx/ { s += $2 } END { print s + 0, s + 0, 0 }' $T/kprobe_profile ;;
	inkd) awk '$1 == "b/mixd" { for (i = 2; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] }
		print c["ftrace_hits"] + 0, c["ftrace_written"] + 0, c["ftrace_lost"] + 0 }' $D/stats ;;
	*) echo 0 0 0 ;;
	esac
}

pipe_of() { case $1 in ink | kpev | tev) echo $T/trace_pipe ;; esac; }	# path

# A reader on CPU 1 (the bench runs on CPU 0): start, then stop; its
# "lines=.. match=.. lost=.." is then in $out/reader.out.
reader_pid=
reader_start() {
	taskset -c 1 "$ib" read "$(pipe_of "$1")" "$SITE" >"$out/reader.out" &
	reader_pid=$!
	sleep 0.5
}
reader_stop() {
	kill -TERM "$reader_pid" 2>/dev/null
	wait "$reader_pid"
}
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# ---------------------------------------------------------------- rows

blob_instances() { awk -v t="$1" '$1 == t { sub("instances=", "", $3); print $3 }' $D/blobs; }

# Loading the blobs, as gen writes them (decompression, validation, identity
# checks, symbol resolution).
row_blobload() {
	local key name t0 rc
	for key in vmlinux target; do
		name=$key
		[ "$key" = target ] && name=inkprobe_target
		t0=$(us)
		rc=0
		cat "$blobs/$name.inkb" >$D/blob || rc=$?
		put "blobload.$key.ms" "$(ms_since "$t0")"
		put "blobload.$key.rc" $rc
		put "blobload.$key.instances" "$(blob_instances $name)"
	done
	cat $D/blobs $D/error_log
}

# Probes on every instance of BENCH_FUNC: inkprobe against perf probe.
row_place() {
	local f=$BENCH_FUNC v t0 rc n
	v=$HOME/.cache/inkprobe/kernels/$k/vmlinux-dbg
	put place.func "$f"

	t0=$(us)
	rc=0
	echo "p:bench/place $f" >>$D/probes || rc=$?
	put place.ink.ms "$(ms_since "$t0")"
	put place.ink.rc $rc
	put place.ink.probes "$(awk '$1 == "bench/place" { sub("probes=", "", $2); print $2 }' $D/stats)"
	put place.ink.live "$(awk '$1 == "bench/place" { sub("live=", "", $3); print $3 }' $D/stats)"
	put place.ink.kprobes "$(grep -vc DISABLED $KL)"
	tail -n 3 $D/error_log
	t0=$(us)
	echo "-:bench/place" >>$D/probes
	put place.ink.remove.ms "$(ms_since "$t0")"

	# Diagnostic: finding the instances alone (a name with none: one scan).
	t0=$(us)
	echo "p:bench/none inkbench_no_such_function" >>$D/probes 2>/dev/null
	put place.ink_lookup.ms "$(ms_since "$t0")"

	# Diagnostic: the same without kprobes' jump optimization.
	echo 0 >/proc/sys/debug/kprobes-optimization
	t0=$(us)
	echo "p:bench/place $f" >>$D/probes
	put place.ink_noopt.ms "$(ms_since "$t0")"
	put place.ink_noopt.kprobes "$(grep -vc DISABLED $KL)"
	echo "-:bench/place" >>$D/probes
	echo 1 >/proc/sys/debug/kprobes-optimization

	# perf probe reads the DWARF here, in the guest, like a user would.
	t0=$(us)
	perf probe -k "$v" --max-probes 4096 -a "$f" >"$out/perf-probe.log" 2>&1
	rc=$?
	put place.perf.ms "$(ms_since "$t0")"
	put place.perf.rc $rc
	n=$(grep -c '^p:probe/' $T/kprobe_events)
	put place.perf.events "$n"
	grep '^p:probe/' $T/kprobe_events >"$out/perf-defs"
	t0=$(us)
	echo 1 >$T/events/probe/enable
	put place.perf_enable.ms "$(ms_since "$t0")"
	put place.perf.kprobes "$(grep -vc DISABLED $KL)"
	echo 0 >$T/events/probe/enable
	t0=$(us)
	perf probe -d 'probe:*' >>"$out/perf-probe.log" 2>&1
	put place.perf.remove.ms "$(ms_since "$t0")"

	# kprobe_events alone: perf's definitions written back, then enabled.
	if [ "$n" -gt 0 ]; then
		t0=$(us)
		cat "$out/perf-defs" >>$T/kprobe_events
		put place.kpev_write.ms "$(ms_since "$t0")"
		t0=$(us)
		echo 1 >$T/events/probe/enable
		put place.kpev_enable.ms "$(ms_since "$t0")"
		put place.kpev.kprobes "$(grep -vc DISABLED $KL)"
		echo 0 >$T/events/probe/enable
		t0=$(us)
		grep -o '^p:probe/[^ ]*' "$out/perf-defs" | sed 's/^p:/-:/' >>$T/kprobe_events
		put place.kpev.remove.ms "$(ms_since "$t0")"
	fi
	put place.leftover "$(grep -c . $KL)"
}

# One round of situation $1 for probe $2: place it, wait for its jump, a
# short warm-up run, then one run of $3 calls; adds to the probe's
# accumulators (acc_KEY_PROBE) and its list of run times.
hit_round() {
	local s=$1 c=$2 n=$3 before after i0 t r p
	# "written" and "stack" keep every hit (ftrace overwrites): nothing to drain
	case $s in written | stack) ;; *) drain_for "$c" ;; esac
	place "$c"
	p=none
	case $c in
	none) ;;
	inkr | inkd | kpevr | kpev2 | kpevx) p=$(list_placed) ;;
	*) p=$(wait_placed) ;;
	esac
	case "${placed[$c]:-}" in
	"" | "$p") placed[$c]=$p ;;
	*) placed[$c]="${placed[$c]}, $p" ;;
	esac
	[ "$s" = reader ] && reader_start "$c"
	before=$(counters "$c")
	i0=$(iwi)
	bench_ns "$WARMUP" >/dev/null
	t=$(bench_ns "$n")
	runs[$c]="${runs[$c]:-} $t"
	acc[iwi_$c]=$((${acc[iwi_$c]:-0} + $(iwi) - i0))
	after=$(counters "$c")
	if [ "$s" = reader ]; then
		reader_stop
		r=$(cat "$out/reader.out")
		acc[read_$c]=$((${acc[read_$c]:-0} + $(kv match "$r")))
	fi
	# filtered: events of the probe kept in the ftrace buffer (none)
	case $c in kpevf | tevf) acc[kept_$c]=$((${acc[kept_$c]:-0} + $(grep -c "$SITE" $T/trace))) ;; esac
	set -- $before $after
	acc[hits_$c]=$((${acc[hits_$c]:-0} + $4 - $1))
	acc[written_$c]=$((${acc[written_$c]:-0} + $5 - $2))
	acc[lost_$c]=$((${acc[lost_$c]:-0} + $6 - $3))
	unplace "$c"
	# BPF: the program's own counters, and what the calls passed
	case $c in bpft | bpfk | bpfs | bpfc)
		r=$(cat "$out/bpf.out" 2>/dev/null)
		rm -f "$out/bpf.out"
		echo "$c: $r"
		for t in hits sum missing; do
			p=$(kv $t "$r")
			acc[bpf${t}_$c]=$((${acc[bpf${t}_$c]:-0} + ${p:-0}))
		done
		# the program's size after the verifier (the same every round)
		acc[bpfinsns_$c]=$(kv insns "$r") acc[bpfjited_$c]=$(kv jited "$r")
		# calls i = 0..m-1 pass reg=i, konst=9, weight=77
		acc[bpfwant_$c]=$((${acc[bpfwant_$c]:-0} + WARMUP * (WARMUP - 1) / 2 + 86 * WARMUP +
			n * (n - 1) / 2 + 86 * n))
		;;
	esac
}

# Situation $1, runs of $2 calls, probes $3...: BENCH_REPEAT rounds, each
# probe once per round in turn, so that the host's load, which changes
# the guest's speed over time, weighs on every probe alike.  Keys:
# hit.SITUATION.PROBE.{ns,median,runs,placed,iwi,hits,written,lost[,read]};
# ns is the fastest run, per call, median the median run, runs every run
# per call in round order (under TCG a probe's runs fall into a fast and a
# slow group, about 2x apart: bench/report.awk takes the fast group's
# median).  The counts are sums over all runs, warm-ups too.
hit_situation() {
	local s=$1 n=$2 c i
	shift 2
	declare -gA acc=() runs=() placed=()
	for ((i = 0; i < BENCH_REPEAT; i++)); do
		for c in "$@"; do
			hit_round "$s" "$c" "$n"
		done
	done
	for c in "$@"; do
		echo "$s $c: runs of $n calls (ns):${runs[$c]}"
		put "hit.$s.$c.ns" "$(printf '%s\n' ${runs[$c]} | fastest |
			awk -v n="$n" '{ printf "%.1f", $1 / n }')"
		put "hit.$s.$c.median" "$(printf '%s\n' ${runs[$c]} | median |
			awk -v n="$n" '{ printf "%.1f", $1 / n }')"
		put "hit.$s.$c.runs" "$(printf '%s\n' ${runs[$c]} |
			awk -v n="$n" '{ printf "%s%.1f", (NR > 1 ? " " : ""), $1 / n }')"
		put "hit.$s.$c.placed" "${placed[$c]}"
		put "hit.$s.$c.iwi" "${acc[iwi_$c]}"
		put "hit.$s.$c.hits" "${acc[hits_$c]}"
		put "hit.$s.$c.written" "${acc[written_$c]}"
		put "hit.$s.$c.lost" "${acc[lost_$c]}"
		[ "$s" = reader ] && put "hit.$s.$c.read" "${acc[read_$c]}"
		case $c in kpevf | tevf) put "hit.$s.$c.kept" "${acc[kept_$c]}" ;; esac
		case $c in bpft | bpfk | bpfs | bpfc)
			put "hit.$s.$c.bpfhits" "${acc[bpfhits_$c]}"
			put "hit.$s.$c.bpfsum" "${acc[bpfsum_$c]}"
			put "hit.$s.$c.bpfmissing" "${acc[bpfmissing_$c]}"
			put "hit.$s.$c.bpfwant" "${acc[bpfwant_$c]}"
			put "hit.$s.$c.bpfinsns" "${acc[bpfinsns_$c]}"
			put "hit.$s.$c.bpfjited" "${acc[bpfjited_$c]}"
			;;
		esac
	done
}

# Cost per hit at tgt_bench_caller+0x5, both tracers into ftrace's ring
# (the top-level buffer), in two situations:
#   written  BENCH_WRITTEN calls per run, nobody reads, every hit written
#            (ftrace overwrites its oldest events: the same cost); also
#            both without fetch-args (ink0, kpev0), for the split between
#            recording an event and fetching its arguments
#   reader   BENCH_N calls per run, a reader drains trace_pipe on the
#            other CPU (no probe and the empty kprobe: those of "written")
# Runs of a thousand calls vary by a factor of two under TCG: too short.
WARMUP=1000
row_hitcost() {	# path
	put hit.n "$BENCH_N"
	put hit.written_n "$BENCH_WRITTEN"
	put hit.repeat "$BENCH_REPEAT"
	hit_situation written "$BENCH_WRITTEN" none empty kpev ink kpev0 ink0
	hit_situation reader "$BENCH_N" kpev ink
	clear_ftrace
}

# The consumers of inkprobe's trace event against their kprobe peers, in
# the "written" situation's runs (ftrace keeps overwriting, nobody reads;
# inkprobe's own trace_pipe is off): the ftrace consumer against
# kprobe_events with the same fetch-args (tev, kpev), both with a filter
# that rejects every hit (tevf, kpevf), and a BPF program reading the
# arguments inkprobe decoded against one reading the registers by hand
# at the same address (bpft, bpfk), and one at the same address reading
# the arguments itself from inkprobe's per-site spec, a copy made for it
# (bpfs) or the program reading it from its map (bpfc).
row_consumers() {
	hit_situation tev "$BENCH_WRITTEN" none empty kpev tev kpevf tevf bpfk bpft bpfs bpfc
	clear_ftrace
}

# One paced throughput trial for tracer $1 at $2 calls/s: prints "ok" or
# "loss" (or "slow": the writer could not keep the rate), then the details.
trial() {
	local c=$1 rate=$2 before after p r hits written lost read marks
	drain_for "$c"
	before=$(counters "$c")
	reader_start "$c"
	if [ "$rate" = flat ]; then
		p=$("$ib" flat $TG/trigger "$BENCH_TRIAL")
	else
		p=$("$ib" pace $TG/trigger "$rate" "$BENCH_TRIAL")
	fi
	reader_stop
	r=$(cat "$out/reader.out")
	after=$(counters "$c")
	set -- $before $after
	hits=$(($4 - $1)) written=$(($5 - $2)) lost=$(($6 - $3))
	read=$(kv match "$r") marks=$(kv lost "$r")
	# in a buffer that overwrites, what the reader did not get is lost (path)
	case $c in kpev | ink | tev) lost=$((hits - read)) ;; esac
	local verdict=ok
	[ "$lost" -ne 0 ] || [ "$read" -ne "$hits" ] || [ "${marks:-0}" -ne 0 ] && verdict=loss
	if [ "$verdict" = ok ] && [ "$rate" != flat ] &&
		awk -v a="$(kv rate "$p")" -v r="$rate" 'BEGIN { exit !(a < 0.9 * r) }'; then
		verdict=slow
	fi
	echo "$verdict achieved=$(kv rate "$p") hits=$hits written=$written read=$read" \
		"lost=$lost marks=${marks:-0} secs=$(kv secs "$p")"
}

# Highest paced call rate with no event lost, inkprobe and kprobe_events,
# each with a reader on its trace_pipe; and what a flat-out writer gets.
# The two searches take turns, trial by trial, so that changes in the
# host's load fall on both alike.  Each doubles the rate from
# BENCH_START_RATE until a trial loses (halves it while nothing passed),
# then bisects BENCH_BISECT times.
row_throughput() {
	local c t left
	local -A good bad rate steps
	put tp.trial_s "$BENCH_TRIAL"
	put tp.start_rate "$BENCH_START_RATE"
	put tp.bisect "$BENCH_BISECT"
	put tp.ftrace_kb "$(cat $T/buffer_size_kb)"
	for c in ink kpev; do	# path
		place $c
		put tp.$c.placed "$(wait_placed)"
		t=$(trial $c flat)
		echo "flat $c: $t"
		put tp.$c.flat.rate "$(kv achieved "$t")"
		put tp.$c.flat.hits "$(kv hits "$t")"
		put tp.$c.flat.read "$(kv read "$t")"
		put tp.$c.flat.secs "$(kv secs "$t")"
		unplace $c
		good[$c]=0 bad[$c]=0 rate[$c]=$BENCH_START_RATE steps[$c]=0
	done
	left=2
	while [ $left -gt 0 ]; do
		left=0
		for c in ink kpev; do	# path
			[ "${rate[$c]}" = finished ] && continue
			place $c
			wait_placed >/dev/null
			t=$(trial $c "${rate[$c]}")
			unplace $c
			echo "rate ${rate[$c]} $c: $t"
			case $t in
			ok*) good[$c]=${rate[$c]} ;;
			slow*) bad[$c]=slow; rate[$c]=finished; continue ;;
			*) bad[$c]=${rate[$c]} ;;
			esac
			if [ "${bad[$c]}" = 0 ]; then
				rate[$c]=$((rate[$c] * 2))
			elif [ "${steps[$c]}" -ge "$BENCH_BISECT" ]; then
				rate[$c]=finished
				continue
			elif [ "${good[$c]}" = 0 ]; then
				rate[$c]=$((bad[$c] / 2))
				[ "${rate[$c]}" -lt 100 ] && { rate[$c]=finished; continue; }
			else
				steps[$c]=$((steps[$c] + 1))
				rate[$c]=$(awk -v a="${good[$c]}" -v b="${bad[$c]}" \
					'BEGIN { printf "%d", sqrt(a * b) }')
			fi
			left=$((left + 1))
		done
	done
	for c in ink kpev; do	# path
		put tp.$c.lossless "${good[$c]}"
		put tp.$c.first_loss "${bad[$c]}"
	done
	clear_ftrace
}

# >>> reader: inkprobe trace against trace-cmd, on a kprobe_events event
# The kprobe_events event at the bench site, defined, enabled only where a
# reader enables it; each reader on CPU 1 reads from a buffer of its own
# (inkprobe trace: its instance; trace-cmd: the top level), the writer on
# CPU 0 paces calls.  rdtrial READER RATE prints "ok", "loss" or "slow" and
# the counts.  Readers: inktrace (inkprobe trace, text to a file), inkrecord
# (inkprobe trace -o: pages copied to a file, formatted later by
# inkprobe trace -i) and tcrecord (trace-cmd record: pages spliced to a
# file, read later).  trace-cmd stream
# is not one: interrupted after a flat-out trial it did not exit within
# minutes (2026-11-26), and with its output in a file it printed nothing
# before (stdio's buffer).
RD_READERS="inktrace inkrecord tcrecord"
rd_pid=
rdstart() {
	local i
	case $1 in
	inktrace) taskset -c 1 "$top/build/inkprobe" trace -e kp/b >"$out/rd.out" 2>"$out/rd.err" & ;;
	inkrecord)
		taskset -c 1 "$top/build/inkprobe" trace -e kp/b -o /tmp/rd-bench.ink \
			>"$out/rd.err" 2>&1 & ;;
	tcrecord)
		(cd /tmp && exec taskset -c 1 trace-cmd record -e kp:b -o /tmp/rd-bench.dat \
			>"$out/rd.err" 2>&1) & ;;
	esac
	rd_pid=$!
	# reading from when it has enabled the event in its buffer
	for ((i = 0; i < 600; i++)); do
		if [ "$1" != tcrecord ]; then
			cat $T/instances/inkprobe-$rd_pid-*/events/kp/b/enable 2>/dev/null | grep -q 1 && break
		else
			grep -q 1 $T/events/kp/b/enable && break
		fi
		sleep 0.1
	done
	sleep 0.5	# trace-cmd's recorders start after it enables the event
}
# rdstop runs in the trial's shell: a wait in a $(...) subshell does not
# wait (the reader is not its child), and the count would read a file the
# reader is still writing
rdstop() {
	kill -INT "$rd_pid" 2>/dev/null
	wait "$rd_pid"
}
rdcount() {
	case $1 in
	inktrace) grep -c ' kp:b: ' "$out/rd.out" ;;
	inkrecord) "$top/build/inkprobe" trace -i /tmp/rd-bench.ink 2>/dev/null | grep -c ' kp:b: ' ;;
	tcrecord) trace-cmd report -i /tmp/rd-bench.dat 2>/dev/null | grep -c ' b: ' ;;
	esac
	rm -f /tmp/rd-bench.dat /tmp/rd-bench.ink "$out/rd.out"
}
rdtrial() {
	local who=$1 rate=$2 p read calls verdict=ok
	rdstart "$who"
	if [ "$rate" = flat ]; then
		p=$("$ib" flat $TG/trigger "$BENCH_TRIAL")
	else
		p=$("$ib" pace $TG/trigger "$rate" "$BENCH_TRIAL")
	fi
	sleep 0.5
	rdstop
	read=$(rdcount "$who")
	calls=$(kv calls "$p")
	[ "${read:-0}" -ne "${calls:-1}" ] && verdict=loss
	if [ "$verdict" = ok ] && [ "$rate" != flat ] &&
		awk -v a="$(kv rate "$p")" -v r="$rate" 'BEGIN { exit !(a < 0.9 * r) }'; then
		verdict=slow
	fi
	# what the reader said (a loss it counted, an error), on the trial's line
	echo "$verdict achieved=$(kv rate "$p") calls=$calls read=$read secs=$(kv secs "$p")" \
		"said=$(grep -v -e '^CPU[0-9]* data recorded' -e '^ *[0-9]* bytes in size' \
			-e 'Ctrl^C' "$out/rd.err" | tr '\n' ' ' | cut -c1-240)"
}

# Highest paced call rate each reader reads whole, and what it reads of a
# flat-out writer; the searches take turns, as row_throughput's.
row_reader() {
	local c t left
	local -A good bad rate steps
	put rd.trial_s "$BENCH_TRIAL"
	put rd.ftrace_kb "$(cat $T/buffer_size_kb)"
	put rd.trace_cmd "$(trace-cmd --version 2>/dev/null | sed -n 's/^trace-cmd version \([^ ]*\).*/\1/p')"
	echo "$KPEV_DEF" >>$T/kprobe_events || { put guest.error "reader: no kprobe_events event"; return; }
	put rd.placed "$(wait_placed)"
	for c in $RD_READERS; do
		t=$(rdtrial $c flat)
		echo "flat $c: $t"
		put rd.$c.flat.rate "$(kv achieved "$t")"
		put rd.$c.flat.calls "$(kv calls "$t")"
		put rd.$c.flat.read "$(kv read "$t")"
		put rd.$c.flat.secs "$(kv secs "$t")"
		good[$c]=0 bad[$c]=0 rate[$c]=$BENCH_START_RATE steps[$c]=0
	done
	left=3
	while [ $left -gt 0 ]; do
		left=0
		for c in $RD_READERS; do
			[ "${rate[$c]}" = finished ] && continue
			t=$(rdtrial $c "${rate[$c]}")
			echo "rate ${rate[$c]} $c: $t"
			case $t in
			ok*) good[$c]=${rate[$c]} ;;
			slow*) bad[$c]=slow; rate[$c]=finished; continue ;;
			*) bad[$c]=${rate[$c]} ;;
			esac
			if [ "${bad[$c]}" = 0 ]; then
				rate[$c]=$((rate[$c] * 2))
			elif [ "${steps[$c]}" -ge "$BENCH_BISECT" ]; then
				rate[$c]=finished
				continue
			elif [ "${good[$c]}" = 0 ]; then
				rate[$c]=$((bad[$c] / 2))
				[ "${rate[$c]}" -lt 100 ] && { rate[$c]=finished; continue; }
			else
				steps[$c]=$((steps[$c] + 1))
				rate[$c]=$(awk -v a="${good[$c]}" -v b="${bad[$c]}" \
					'BEGIN { printf "%d", sqrt(a * b) }')
			fi
			left=$((left + 1))
		done
	done
	for c in $RD_READERS; do
		put rd.$c.lossless "${good[$c]}"
		put rd.$c.first_loss "${bad[$c]}"
	done
	echo '-:kp/b' >>$T/kprobe_events
	clear_ftrace
}
# <<< reader

# Stack capture cost against kprobe_events' stacktrace trigger: the
# "written" situation (every hit kept, nobody reads) with and without a
# stack per hit, both tracers; ORC unwinds the same chain for both.
row_stack() {
	hit_situation stack "$BENCH_WRITTEN" none kpev kpevs ink inks
	# one event of each, for the depth both recorded
	place kpevs
	bench_ns 1 >/dev/null
	grep '^ => ' $T/trace >"$out/stack.kpevs.txt"
	put stack.kpevs.frames "$(grep -c . "$out/stack.kpevs.txt")"
	unplace kpevs
	clear_ftrace
	place inks
	bench_ns 1 >/dev/null
	grep '^ => ' $T/trace >"$out/stack.inks.txt"	# path
	put stack.inks.frames "$(grep -c . "$out/stack.inks.txt")"
	unplace inks
}

# Time in inlined calls (issue 23): an entry and an exit event per call,
# every hit written (the "written" situation), no fetch-args: inkprobe's p
# and r on the inlined copy of tgt_bench_mix() (a kprobe at its entry, one
# at each exit) against kprobe_events' p and r on tgt_bench_caller(), the
# out-of-line function around it (a kprobe and a kretprobe).  And a call's
# duration: inkprobe's r with $duration (the same two kprobes, one record
# with the duration) against the same p and r of kprobe_events, the two
# records a latency tool on kprobe_events pairs.  The floors: kprobe_events
# at the very pcs inkprobe probes, a p event at the copy's entry and one at
# each exit (kpev2: two records a call, the kernel's own cheapest way to
# write them there), and an empty kprobe at the entry with a p event at
# each exit (kpevx: one record a call, nothing kept at the entry).
row_exits() {
	EXIT_OFFS=$(exit_offsets)
	put hit.exits.offsets "$(echo $EXIT_OFFS)"
	put hit.repeat "$BENCH_REPEAT"
	if [ -n "$EXIT_OFFS" ]; then
		hit_situation exits "$BENCH_WRITTEN" none inkr inkd kpevr kpev2 kpevx
	else
		put guest.error "no exit of tgt_bench_mix found in $KL"
		hit_situation exits "$BENCH_WRITTEN" none inkr inkd kpevr
	fi
	clear_ftrace
}

# The pcs of tgt_bench_mix()'s exits as inkprobe places them, offsets into
# tgt_bench_caller (0x10 ...): its r event alone, read from the kprobes list.
exit_offsets() {
	echo 'r:b/mixr tgt_bench_mix' >>$D/probes || return
	awk -v site="$SITE" '$3 != site && $3 ~ /^tgt_bench_caller\+/ {
		sub(/^tgt_bench_caller\+/, "", $3); print $3 }' $KL
	echo '-:b/mixr' >>$D/probes
}

# Profile symbolization (issue 23): one perf.data of the whole machine
# (perf record -e cpu-clock -a -g) under a vmlinux workload (a pipe and
# page faults), made into inline chains three ways, each command timed
# whole (start, reading the file, symbols, inline chains, printing):
# `inkprobe profile -i` with the vmlinux blob in inkprobe.ko (the module's
# look-up, its "frames" file), the same with --blob (the tool's own
# look-up: /proc/kallsyms, the blob read and checked per run; both must
# print the same report); `perf report --inline` with
# the DWARF vmlinux; and DWARF by hand, as perf does it where it is built
# with inline support: `perf script` for the callchain addresses, then
# binutils' addr2line -i on the DWARF vmlinux for each distinct one
# (moved by the KASLR offset).  Debian's perf (no libbfd) prints no inline
# frame with --inline (profile.perf.inlined counts them), so the row's
# peer is the third.  perf gets a $HOME of its own (its build-ID cache).
# Rounds (profile_rounds): every command once untimed (warm caches; the
# module indexes the blob at its first look-up), then interleaved timed
# runs, each figure the median of its runs (profile.*.runs keeps them).
row_profile() {
	local f=/tmp/bench-profile.data home=/tmp/bench-perf-home n off text
	if [ -z "$BENCH_VMLINUX" ] || [ ! -f "$BENCH_VMLINUX" ] || [ -z "$BENCH_VMLINUX_TEXT" ]; then
		put guest.error "profile: no DWARF vmlinux (BENCH_VMLINUX=$BENCH_VMLINUX, _text $BENCH_VMLINUX_TEXT)"
		return
	fi
	rm -rf "$home" && mkdir -p "$home"
	HOME=$home perf record -e cpu-clock -F 499 -a -g -o $f -- sh -c '
		end=$(($(date +%s) + '"$BENCH_PROFILE_S"'))
		while [ "$(date +%s)" -lt $end ]; do
			dd if=/dev/zero bs=64k count=64 2>/dev/null | cat >/dev/null
			head -c 4194304 /dev/zero | tail -c 1 >/dev/null
		done' >"$out/profile-record.log" 2>&1 ||
		put guest.error "profile: perf record failed (see profile-record.log)"
	# the KASLR offset: this boot's _text less the ELF's (bash's 64-bit
	# arithmetic: awk's numbers are doubles)
	text=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
	off=$((0x$text - 0x$BENCH_VMLINUX_TEXT))
	cat "$blobs/vmlinux.inkb" >$D/blob || put guest.error "profile: loading the vmlinux blob failed"
	profile_rounds profile "$f" "$off" "$text" "$home" profile-ink.txt profile-a2l.txt
	# the same, the root's read-ahead as a disk's by default (virtme-ng's 9p
	# root has none: each page a program touches first is a read from the host)
	profile_ra 128 "$f" "$off" "$text" "$home"
	grep -q '; inline frames from [0-9]* blobs in inkprobe.ko$' "$out/profile-ink.txt" ||
		put guest.error "profile: inkprobe.ko did not look the frames up (see profile-ink.txt)"
	# the two look-ups print the same report, the first line apart; when
	# they do not, the evidence is kept: the samples, and each look-up's
	# frames sample by sample (--perf-script), for a diff
	if cmp -s <(tail -n +2 "$out/profile-ink.txt") <(tail -n +2 "$out/profile-inktool.txt"); then
		put profile.same 1
	else
		cp $f "$out/profile-differ.data"
		"$top/build/inkprobe" profile -i $f --perf-script -o "$out/profile-differ-ink.script"
		"$top/build/inkprobe" profile -i $f --perf-script --blob "$blobs/vmlinux.inkb" \
			-o "$out/profile-differ-inktool.script"
		put guest.error "profile: the module's and the tool's look-ups differ (profile-ink*.txt; samples and frames in profile-differ*)"
	fi
	echo -vmlinux >$D/blobs
	n=$(sed -n 's/^# inkprobe profile: \([0-9]*\) samples.*/\1/p' "$out/profile-ink.txt")
	put profile.samples "${n:-0}"
	# inline frames named: inkprobe's [inlined] rows, perf's "(inlined)"
	# lines, addr2line's addresses with more than one function
	put profile.ink.inlined "$(grep -c ' \[inlined\]$' "$out/profile-ink.txt")"
	put profile.perf.inlined "$(grep -c '(inlined)' "$out/profile-perf.txt")"
	put profile.a2l.addresses "$(grep -c '^0x' "$out/profile-a2l.txt")"
	put profile.a2l.inlined "$(awk '/^0x/ { if (n > 2) k++; n = 0; next } { n++ }
		END { if (n > 2) k++; print k + 0 }' "$out/profile-a2l.txt")"
	rm -rf "$home" $f
}

# profile_rounds KEY FILE OFF TEXT HOME INKOUT A2LOUT: row_profile's timed
# commands on the samples in FILE, reports into $out/INKOUT and
# $out/A2LOUT, figures as KEY.NAME.ms, the median of KEY.NAME.runs (ms).
# Round 0 runs each command untimed; then six rounds time `inkprobe
# profile -i` (a fraction of a second), the tool's start alone (`inkprobe
# help`) and /bin/true in each, the peer (seconds) in three of them, in
# turn with inkprobe's, so that a slow spell of the guest falls on both;
# --blob and perf report --inline (under the KEY "profile" only) once.
profile_rounds() {
	local key=$1 f=$2 off=$3 text=$4 home=$5 ink=$6 a2lout=$7 i name
	local -A runs=()
	for ((i = 0; i <= 6; i++)); do
		timed ink "$top/build/inkprobe" profile -i "$f" -o "$out/$ink" 2>"$out/$ink.err" ||
			put guest.error "profile: inkprobe profile -i failed (see $ink.err)"
		if ((i == 0 || i % 2)); then
			timed a2l a2l "$f" "$off" "$text" "$home" "$a2lout" ||
				put guest.error "profile: the peer failed (see profile-a2l.err)"
		fi
		if [ "$key" = profile ] && ((i <= 1)); then
			timed inktool "$top/build/inkprobe" profile -i "$f" --blob "$blobs/vmlinux.inkb" \
				-o "$out/profile-inktool.txt" 2>"$out/profile-inktool.err" ||
				put guest.error "profile: inkprobe profile -i --blob failed (see profile-inktool.err)"
			HOME=$home timed perf perf report --inline --stdio -i "$f" --vmlinux "$BENCH_VMLINUX" \
				>"$out/profile-perf.txt" 2>"$out/profile-perf.err" ||
				put guest.error "profile: perf report --inline failed (see profile-perf.err)"
		fi
		# the ceiling: the tool started and ended, doing nothing else
		timed start "$top/build/inkprobe" help >/dev/null 2>&1
		timed true /bin/true
	done
	for name in "${!runs[@]}"; do
		put "$key.$name.runs" "${runs[$name]# }"
		put "$key.$name.ms" "$(printf '%s\n' ${runs[$name]} | median)"
	done
}

# timed NAME CMD...: profile_rounds' CMD, its time (ms) added to its
# runs[NAME] in every round but round 0; CMD's exit status.
timed() {
	local name=$1 t0 rc
	shift
	t0=$(us)
	"$@"
	rc=$?
	((i)) && runs[$name]+=" $(ms_since "$t0")"
	return $rc
}

# a2l FILE OFF TEXT HOME OUT: the peer, DWARF by hand: perf script for the
# callchains' addresses, addr2line -i for each distinct kernel one (less
# the KASLR offset OFF), into $out/OUT; errors into $out/profile-a2l.err.
a2l() {
	HOME=$4 perf script -F ip -i "$1" 2>>"$out/profile-a2l.err" |
		awk -v t="$3" '$1 >= t && $1 < "ffffffffc0000000" && !seen[$1]++ { print $1 }' |
		while read -r a; do printf '0x%x\n' $((0x$a - $2)); done |
		addr2line -a -i -f -e "$BENCH_VMLINUX" >"$out/$5" 2>>"$out/profile-a2l.err"
}

# profile_ra KB FILE OFF TEXT HOME: row_profile's inkprobe and addr2line
# rounds (profile_rounds, KEY profile.raKB) with the read-ahead of every
# 9p mount (/sys/class/bdi/9p-*) at KB, then back at what it was.
profile_ra() {
	local kb=$1 f=$2 off=$3 text=$4 home=$5 b was=()
	for b in /sys/class/bdi/9p-*; do
		was+=("$b=$(cat "$b/read_ahead_kb")")
		echo "$kb" >"$b/read_ahead_kb" || put guest.error "profile: $b/read_ahead_kb refused $kb"
	done
	profile_rounds "profile.ra$kb" "$f" "$off" "$text" "$home" profile-ink-ra.txt profile-a2l-ra.txt
	for b in "${was[@]}"; do echo "${b#*=}" >"${b%%=*}/read_ahead_kb"; done
	cmp -s <(tail -n +2 "$out/profile-ink.txt") <(tail -n +2 "$out/profile-ink-ra.txt") &&
		cmp -s "$out/profile-a2l.txt" "$out/profile-a2l-ra.txt" ||
		put guest.error "profile: the runs with read-ahead $kb KB printed other reports"
}

# ---------------------------------------------------------------- main

put guest.release "$(uname -r)"
put guest.cpus "$(grep -c ^processor /proc/cpuinfo)"
taskset -pc 0 $$ >/dev/null
uname -r >"$out/uname"
put guest.mem_kb "$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
cat /proc/sys/kernel/tainted >"$out/taint.start"
insmod "$kmod/inkprobe_target.ko" && insmod "$kmod/inkprobe.ko" || put guest.error "insmod failed"
# the rows after blobload need the target's blob
case " $BENCH_ROWS " in
*" blobload "*) ;;
*) cat "$blobs/inkprobe_target.inkb" >$D/blob || put guest.error "loading the target's blob failed" ;;
esac
for row in $BENCH_ROWS; do
	echo "=== row $row $(date +%T)"
	t0=$(us)
	"row_$row"
	put row.$row.s "$(awk -v ms="$(ms_since "$t0")" 'BEGIN { printf "%.0f", ms / 1000 }')"
done
echo >$D/probes
rmmod inkprobe
rmmod inkprobe_target
cat /proc/sys/kernel/tainted >"$out/taint.end"
dmesg >"$out/dmesg"
echo finished >"$out/done"
