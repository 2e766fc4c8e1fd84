#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, inside the guest: a real Debian kernel's inlined functions
# probed with plain echo and cat (and the inkprobe tool), while a small
# workload runs; then one of them as a trace event, with ftrace's filter
# and hist trigger and a bpftrace one-liner; then the time spent in the
# calls of an inlined function (inkprobe latency) and a profile naming
# inlined functions (inkprobe profile).  Output goes to
# OUT/demo.txt.
#
#   demo-guest.sh OUT TOP KERNEL
out=$1 top=$2 k=$3
exec >"$out/demo.txt" 2>&1
kmod=$top/build/$k/kmod
blob=$top/build/$k/blobs/vmlinux.inkb
D=/sys/kernel/debug/inkprobe
PATH=$top/build:$PATH
step() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; eval "$@"; }
# interrupt PID NAME: SIGINT to a background command, then its exit; after
# 60 s it is killed, with a line saying so, instead of a guest that hangs
interrupt() {
	run "kill -INT $1"
	SECONDS=0
	while kill -0 "$1" 2>/dev/null && [ $SECONDS -lt 60 ]; do
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "($2 did not exit within 60 s of SIGINT: killed)"
		kill -KILL "$1"
	fi
	wait "$1"
}

# TCP over loopback: a listener, then connections that send and receive.
tcp_workload() {
	python3 - <<'PY'
import socket
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen()
for _ in range(5):
    c = socket.create_connection(ls.getsockname())
    s, _ = ls.accept()
    for _ in range(4):
        c.sendall(b"x" * 4096)
        s.recv(65536)
    c.close()
    s.close()
ls.close()
PY
}

ip link set lo up

step "kernel $(uname -r): load inkprobe.ko and the blob made from this kernel's DWARF"
run insmod "$kmod/inkprobe.ko"
run "cat $blob > $D/blob"
run cat $D/blobs

step "sk_mem_uncharge() only exists inlined; one event covers every copy"
run "echo 'p:sock_inline/uncharge sk_mem_uncharge sk size rcvbuf=sk->sk_rcvbuf stacktrace' > $D/probes"
step "sock_put() is inlined in ~140 places and also has an out-of-line copy: all of them"
run "inkprobe add 'p:sock_inline/sock_put sock_put sk refs=sk->__sk_common.skc_refcnt.refs.counter stacktrace'"
run cat $D/probes
run "grep -c . /sys/kernel/debug/kprobes/list"

step "a small workload: TCP over loopback, the events read where every trace event is"
I=/sys/kernel/tracing/instances/demo
run "mkdir $I && echo 0 > $I/options/irq-info && echo 1 > $I/events/sock_inline/enable"
tcp_workload
run "echo 0 > $I/events/sock_inline/enable"
grep -v '^#' $I/trace >/tmp/events
rmdir $I
run cat $D/stats
step "where the hits landed (sock_put+0x0 would be sock_put's own, out-of-line copy)"
run "grep -o 'sock_inline:[a-z_]*: ([^)]*)' /tmp/events | sort | uniq -c | sort -rn | head -n 20"
step "the first event at each place, with its arguments and inline-expanded stack"
run "awk '/^ =>/ { if (show) print; next } { show = !seen[\$5 \$6]++; if (show) print }' /tmp/events | head -n 120"

E=/sys/kernel/tracing/events/sock_inline/uncharge
step "each definition is also a trace event: ftrace's filter and histogram on sk_mem_uncharge()"
run "grep -o 'field:[^;]*' $E/format | tail -n 6"
run "echo 'size >= 2048' > $E/filter"
run "echo 'hist:keys=__probe_ip.sym,size' > $E/trigger"
run "echo 1 > $E/enable"
tcp_workload
run "echo 0 > $E/enable"
step "the filter kept the big uncharges in ftrace's buffer; the histogram counted every hit"
run "grep -v '^#' /sys/kernel/tracing/trace | head -n 6"
run "grep -v '^#' $E/hist | grep ."
run "echo '!hist:keys=__probe_ip.sym,size' > $E/trigger"
run "echo 0 > $E/filter"
echo >/sys/kernel/tracing/trace

step "BPF: one bpftrace line reads the arguments at every inlined copy"
bt='BEGIN { printf("Tracing...\n"); } tracepoint:sock_inline:uncharge { @size[ksym(args->__probe_ip)] = stats(args->size); }'
printf "$ bpftrace -B none -e '%s' &\n" "$bt"
bpftrace -B none -e "$bt" >/tmp/bpftrace.out 2>&1 &
bpftrace_pid=$!
# its start (LLVM's libraries read page by page over 9p) took more than
# two minutes once: up to four for its BEGIN line, and a line saying so
SECONDS=0
until grep -q '^Tracing' /tmp/bpftrace.out || ! kill -0 $bpftrace_pid 2>/dev/null ||
	[ $SECONDS -ge 240 ]; do
	sleep 0.1
done
grep -q '^Tracing' /tmp/bpftrace.out ||
	echo "(bpftrace did not start tracing within $SECONDS s)"
tcp_workload
interrupt $bpftrace_pid bpftrace
cat /tmp/bpftrace.out

step "time spent in inlined calls: every call of mmap_read_lock(), inlined in ~60 places, while a workload runs"
printf '$ inkprobe latency mmap_read_lock --by caller &\n'
inkprobe latency mmap_read_lock --by caller >/tmp/latency.out 2>&1 &
latency_pid=$!
for ((i = 0; i < 300; i++)); do
	grep -q inkprobe_latency $D/probes 2>/dev/null && break
	sleep 0.1
done
tcp_workload
python3 -c 'import mmap
for _ in range(200):
    m = mmap.mmap(-1, 1 << 20)
    m[::4096] = b"x" * 256
    m.madvise(mmap.MADV_DONTNEED)
    m.close()'
interrupt $latency_pid "inkprobe latency"
cat /tmp/latency.out

step "a kernel profile that names inlined functions: 5 s of every CPU, under the same workload"
printf '$ inkprobe profile -a --duration 5 | head -n 25 &\n'
inkprobe profile -a --duration 5 >/tmp/profile.out 2>&1 &
profile_pid=$!
# its perf events open, then the workload
for ((i = 0; i < 300; i++)); do
	ls -l /proc/$profile_pid/fd 2>/dev/null | grep -q 'perf_event' && break
	sleep 0.1
done
tcp_workload
python3 -c 'import mmap
for _ in range(200):
    m = mmap.mmap(-1, 1 << 20)
    m[::4096] = b"x" * 256
    m.madvise(mmap.MADV_DONTNEED)
    m.close()'
wait $profile_pid
head -n 25 /tmp/profile.out
step "the inlined functions in it"
run "grep -m 10 ' \\[inlined\\]\$' /tmp/profile.out"

step "the stack of a sleeping task, on demand, with its inline frames"
sleep 30 &
sleeper=$!
sleep 1
run "inkprobe stack $sleeper"
kill $sleeper

step "removing the events leaves no kprobe behind"
run "echo > $D/probes"
run "grep -c . /sys/kernel/debug/kprobes/list"
run rmmod inkprobe
echo done >"$out/done"
