// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound call with a known share in an inlined copy, for
 * `inkprobe profile` (issue 23, profile_test): "spin MS" runs
 * tgt_spin_run() for MS milliseconds of wall time, alternating in slices
 * of TGT_SPIN_IN_US and TGT_SPIN_OUT_US microseconds (57 and 38 ms) between
 *
 *   tgt_spin_inner()  __always_inline: spins on the clock inside the copy
 *   tgt_spin_run()    its own out-of-line loop, spinning on the clock too
 *
 * and records one line:
 *
 *   tgt_spin_inner tgt_spin_run inner_ns=N total_ns=N
 *
 * inner_ns sums each copy's time from its first clock read to its last
 * (inside the copy), total_ns is tgt_spin_run()'s own, first statement to
 * last: the share of the call's time a sample lands in the copy, known
 * without inkprobe.  The clock is sched_clock(), called out of line, so a
 * sample in it has the copy in its caller's inline chain, at its return
 * address.  Not ktime_get_*(): they read the clocksource through an
 * indirect call, and under TCG (which takes interrupts only where a
 * translated block starts) a fifth of the samples landed on the first
 * instruction of the retpoline thunk, from where the kernel's unwinder
 * goes no further: stacks of one frame, in neither share.  The guests
 * boot with tsc=reliable, so sched_clock() reads the TSC, in ns.
 * Preemption is off for the call, so its wall time is the task's CPU
 * time, which a per-task cpu-clock event samples; it is at most 10 s, well
 * below the soft lockup and RCU stall limits.
 *
 * The slices are small against the call (about 30 of each in 3 s) but
 * long against a profile's period (2 ms at 499 Hz): with slices shorter
 * than the period (570 and 380 us), the sampling interrupt, slow under
 * TCG, ended the slice it interrupted and so set the phase of the next
 * sample in the slices after it: on 6.1 the copy's share came out 0.65 to
 * 0.70 for 0.60 of the time.  With ~28 and ~19 samples per slice, where
 * a slice starts moves its count by less than one sample.  Like
 * tgt_lat_wait() (tgt_latency.c), the copy takes no pointer, spins with
 * barrier() and calls no helper that GCC could scatter, for the host
 * tests' invariants (gen_target_test, reader_test).
 */
#include <linux/compiler.h>
#include <linux/sched/clock.h>
#include <linux/preempt.h>
#include <linux/time64.h>

#include "tgt.h"

#define TGT_SPIN_IN_US	57000
#define TGT_SPIN_OUT_US	38000

static u64 tgt_spin_inner_ns;

/* Spins @ns nanoseconds on the clock; returns the time it spun. */
static __always_inline u64 tgt_spin_inner(u64 ns)
{
	u64 start = sched_clock(), now;

	do {
		barrier();
		now = sched_clock();
	} while (now - start < ns);
	return now - start;
}

/*
 * Spins @total_ns: @in_ns in the copy, then @out_ns in its own loop, and
 * again; notes the copy's time in tgt_spin_inner_ns, returns its own.
 */
static TGT_CALLER u64 tgt_spin_run(u64 total_ns, u64 in_ns, u64 out_ns)
{
	u64 t0 = sched_clock(), inner = 0, s;

	while (sched_clock() - t0 < total_ns) {
		inner += tgt_spin_inner(in_ns);
		s = sched_clock();
		while (sched_clock() - s < out_ns)
			barrier();
	}
	WRITE_ONCE(tgt_spin_inner_ns, inner);
	return sched_clock() - t0;
}

/* "spin MS" */
u64 tgt_run_spin(unsigned int ms)
{
	u64 total;

	preempt_disable();
	total = tgt_spin_run((u64)ms * NSEC_PER_MSEC, TGT_SPIN_IN_US * NSEC_PER_USEC,
			     TGT_SPIN_OUT_US * NSEC_PER_USEC);
	preempt_enable();
	tgt_expect("tgt_spin_inner tgt_spin_run inner_ns=%llu total_ns=%llu",
		   READ_ONCE(tgt_spin_inner_ns), total);
	return total;
}
