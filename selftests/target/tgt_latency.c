// SPDX-License-Identifier: GPL-2.0
/*
 * Latency with a known bracket, for $duration on r events (issue 23):
 * tgt_lat_wait() is inlined once into each of five callers, each running
 * it in another context:
 *
 *   tgt_lat_task()     process context
 *   tgt_lat_soft()     softirq: a timer_list callback
 *   tgt_lat_hard()     hardirq: an hrtimer (HRTIMER_MODE_REL_HARD) that
 *                      fires while the writer sleeps, most likely in idle
 *   tgt_lat_rec()      recursive, depth 3: its copy calls tgt_lat_rec()
 *                      again, so copies nest across frames
 *   tgt_lat_migrate()  its copy sleeps (msleep()), noting its CPU before
 *                      and after: latency_test moves the sleeping writer
 *                      to the other CPU with sched_setaffinity()
 *
 * Each call measures itself on ktime_get_mono_fast_ns(), the clock of
 * $duration: inner_ns from the copy's first statement to its last,
 * outer_ns in the caller, around the call.  So for every call
 * inner_ns <= duration <= outer_ns, an oracle that owes inkprobe nothing.
 * Each call appends one line when it returns, so the lines are in exit
 * order:
 *
 *   tgt_lat_wait <caller> ctx=task|softirq|hardirq inner_ns=N outer_ns=N
 *     cpu_in=C cpu_out=C pid=P
 *
 * tgt_lat_outofline() is the same wait out of line, traceable by ftrace:
 * an r event is a kretprobe there, as kprobe_events' r is.  Its lines say
 * "tgt_lat_outofline tgt_lat_ool ctx=task ...".
 *
 * The wait spins on the clock itself: udelay()'s loop calibration is not
 * to be trusted under QEMU TCG.
 *
 * gen_target_test holds every instance of the module's blob to its
 * invariants (each parameter located somewhere, each entry in or just
 * before its ranges) and reader_test compares the inline frames with
 * addr2line's.  So the wait takes no pointer and returns its time; it
 * spins with barrier(), not cpu_relax() (whose copies share code and entry
 * with rep_nop()'s); no cpumask helper is called (the test migrates the
 * task); and the kernel helpers whose copies GCC scattered
 * (reinit_completion(), preempt_count() and get_current() in
 * tgt_lat_line()) are gone or in functions of their own.
 */
#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include <linux/version.h>

#include "tgt.h"

static u64 tgt_lat_sink;

/*
 * Out of line, as tgt_lat_pid(): the copies of preempt_count() and
 * get_current() inside keep to their own code (inlined into
 * tgt_lat_line(), GCC put their entries apart from their ranges).
 */
static TGT_CALLER const char *tgt_lat_ctx(void)
{
	if (in_hardirq())
		return "hardirq";
	if (in_serving_softirq())
		return "softirq";
	return "task";
}

static TGT_CALLER pid_t tgt_lat_pid(void)
{
	return task_pid_nr(current);
}

/* one call, as its line lists it */
static noinline void tgt_lat_line(const char *callee, const char *caller, u64 inner,
				  u64 outer, int cpu_in, int cpu_out)
{
	tgt_expect("%s %s ctx=%s inner_ns=%llu outer_ns=%llu cpu_in=%d cpu_out=%d pid=%d",
		   callee, caller, tgt_lat_ctx(), inner, outer, cpu_in, cpu_out,
		   tgt_lat_pid());
}

/* the sleeping copy's CPUs, before and after (tgt_lock serializes the writers) */
static int tgt_lat_sleep_in, tgt_lat_sleep_out;

static TGT_CALLER void tgt_lat_rec(u64 ns, unsigned int depth);

/*
 * The probed function: spins @ns nanoseconds on the clock, then, where a
 * caller asks, recurses (@depth) or sleeps @sleep_ms, noting its CPU before
 * and after; returns the time from its first statement to its last.  Each
 * caller but tgt_lat_rec() passes a constant @depth, each but
 * tgt_lat_migrate() a constant @sleep_ms, so each copy keeps only its path.
 * The callers take nanoseconds (tgt_run_latency() converts), so @ns is
 * their own argument, located in every copy; with microseconds, GCC kept
 * only us * 1000 and @us had no location.
 */
static __always_inline u64 tgt_lat_wait(u64 ns, unsigned int depth, unsigned int sleep_ms)
{
	u64 start = ktime_get_mono_fast_ns();

	while (ktime_get_mono_fast_ns() - start < ns)
		barrier();
	if (depth)
		tgt_lat_rec(ns, depth - 1);
	if (sleep_ms) {
		tgt_lat_sleep_in = raw_smp_processor_id();
		msleep(sleep_ms);
		tgt_lat_sleep_out = raw_smp_processor_id();
	}
	return ktime_get_mono_fast_ns() - start;
}

/* ---- process context ---- */

static TGT_CALLER void tgt_lat_task(u64 ns)
{
	int cpu_in = raw_smp_processor_id();
	u64 t0, inner;

	t0 = ktime_get_mono_fast_ns();
	inner = tgt_lat_wait(ns, 0, 0);
	t0 = ktime_get_mono_fast_ns() - t0;
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, cpu_in, raw_smp_processor_id());
}

/* ---- recursion: each copy calls the next frame's ---- */

static TGT_CALLER void tgt_lat_rec(u64 ns, unsigned int depth)
{
	int cpu_in = raw_smp_processor_id();
	u64 t0, inner;

	t0 = ktime_get_mono_fast_ns();
	inner = tgt_lat_wait(ns, depth, 0);
	t0 = ktime_get_mono_fast_ns() - t0;
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, cpu_in, raw_smp_processor_id());
}

/* ---- sleeping inside the copy, where the test migrates the task ---- */

static TGT_CALLER void tgt_lat_migrate(u64 ns, unsigned int ms)
{
	u64 t0, inner;

	t0 = ktime_get_mono_fast_ns();
	inner = tgt_lat_wait(ns, 0, ms);
	t0 = ktime_get_mono_fast_ns() - t0;
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, tgt_lat_sleep_in, tgt_lat_sleep_out);
}

/* ---- softirq: a timer_list callback ---- */

static u64 tgt_lat_ns;
/* each timer completes it once, each wait takes one: no reinit needed */
static DECLARE_COMPLETION(tgt_lat_done);

static TGT_CALLER void tgt_lat_soft(u64 ns)
{
	int cpu_in = smp_processor_id();
	u64 t0, inner;

	t0 = ktime_get_mono_fast_ns();
	inner = tgt_lat_wait(ns, 0, 0);
	t0 = ktime_get_mono_fast_ns() - t0;
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, cpu_in, smp_processor_id());
}

static struct timer_list tgt_lat_timer;

static void tgt_lat_timer_fn(struct timer_list *t)
{
	tgt_lat_soft(READ_ONCE(tgt_lat_ns));
	complete(&tgt_lat_done);
}

/* ---- hardirq: an hrtimer that fires while the writer sleeps ---- */

static TGT_CALLER void tgt_lat_hard(u64 ns)
{
	int cpu_in = smp_processor_id();
	u64 t0, inner;

	t0 = ktime_get_mono_fast_ns();
	inner = tgt_lat_wait(ns, 0, 0);
	t0 = ktime_get_mono_fast_ns() - t0;
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, cpu_in, smp_processor_id());
}

static struct hrtimer tgt_lat_hrtimer;

static enum hrtimer_restart tgt_lat_hrtimer_fn(struct hrtimer *t)
{
	tgt_lat_hard(READ_ONCE(tgt_lat_ns));
	complete(&tgt_lat_done);
	return HRTIMER_NORESTART;
}

/* ---- out of line, for kprobe_events' p and r on the same function ---- */

/*
 * Not inline (the kernel's inline is notrace) and called through a
 * pointer: an out-of-line copy ftrace and kretprobes take.  gen keeps an
 * out-of-line copy of a function that also has an inlined one, so
 * tgt_lat_ool_inlined() (flatten) has one; no scenario calls it.
 */
static u64 tgt_lat_outofline(u64 us)
{
	u64 start = ktime_get_mono_fast_ns();

	while (ktime_get_mono_fast_ns() - start < us * NSEC_PER_USEC)
		barrier();
	return ktime_get_mono_fast_ns() - start;
}

static u64 (*tgt_lat_ool_fn)(u64 us) = tgt_lat_outofline;

u64 __attribute__((__flatten__)) tgt_lat_ool_inlined(u64 us)
{
	return tgt_lat_outofline(us);
}

static TGT_CALLER void tgt_lat_ool(u64 us)
{
	int cpu_in = raw_smp_processor_id();
	u64 t0, inner;

	t0 = ktime_get_mono_fast_ns();
	inner = READ_ONCE(tgt_lat_ool_fn)(us);
	t0 = ktime_get_mono_fast_ns() - t0;
	tgt_lat_line("tgt_lat_outofline", __func__, inner, t0, cpu_in, raw_smp_processor_id());
}

/* The sleeping call alone, sleeping @ms (a test may migrate it): "latsleep MS". */
u64 tgt_run_lat_sleep(unsigned int ms)
{
	tgt_lat_migrate(0, ms);
	return 0;
}

/* "latool US N": N calls of the out-of-line copy. */
u64 tgt_run_lat_ool(u64 us, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		tgt_lat_ool(us);
	return n;
}

/*
 * "latency US": one call per context, in this order (their lines are in
 * exit order): task; softirq; hardirq; recursion (depth 3: three lines,
 * the innermost first); the sleeping call (10 ms; nothing migrates it here).
 */
u64 tgt_run_latency(u64 us)
{
	u64 ns = us * NSEC_PER_USEC;

	WRITE_ONCE(tgt_lat_ns, ns);
	tgt_lat_task(ns);

	timer_setup(&tgt_lat_timer, tgt_lat_timer_fn, 0);
	mod_timer(&tgt_lat_timer, jiffies + 1);
	wait_for_completion(&tgt_lat_done);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	timer_delete_sync(&tgt_lat_timer);
#else
	del_timer_sync(&tgt_lat_timer);
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&tgt_lat_hrtimer, tgt_lat_hrtimer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
#else
	hrtimer_init(&tgt_lat_hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	tgt_lat_hrtimer.function = tgt_lat_hrtimer_fn;
#endif
	hrtimer_start(&tgt_lat_hrtimer, ms_to_ktime(2), HRTIMER_MODE_REL_HARD);
	wait_for_completion(&tgt_lat_done);
	hrtimer_cancel(&tgt_lat_hrtimer);

	tgt_lat_rec(ns, 2);
	tgt_lat_migrate(ns, 10);
	return ++tgt_lat_sink;
}
