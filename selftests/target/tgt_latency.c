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
 *   tgt_lat_migrate()  its copy sleeps and migrates (tgt_lat_sleep(): to
 *                      another online CPU, msleep(), affinity restored)
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
 */
#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
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

static const char *tgt_lat_ctx(void)
{
	if (in_hardirq())
		return "hardirq";
	if (in_serving_softirq())
		return "softirq";
	return "task";
}

/* what a copy saw of its CPUs: where it began and ended */
struct tgt_lat_cpus {
	int in, out;
};

/* one call, as its line lists it */
static void tgt_lat_line(const char *callee, const char *caller, u64 inner, u64 outer,
			 const struct tgt_lat_cpus *cpus)
{
	tgt_expect("%s %s ctx=%s inner_ns=%llu outer_ns=%llu cpu_in=%d cpu_out=%d pid=%d",
		   callee, caller, tgt_lat_ctx(), inner, outer, cpus->in, cpus->out,
		   task_pid_nr(current));
}

/* migrate: the mask to go back to (tgt_lock serializes the writers) */
static struct cpumask tgt_lat_saved_mask;

/*
 * Inside a copy: moves the task to another online CPU, sleeps @ms there,
 * then gives it back its affinity.  The CPUs before and after are noted.
 */
static __always_inline void tgt_lat_sleep(unsigned int ms, struct tgt_lat_cpus *cpus)
{
	unsigned int other;

	cpus->in = raw_smp_processor_id();
	cpumask_copy(&tgt_lat_saved_mask, current->cpus_ptr);
	other = cpumask_any_but(cpu_online_mask, cpus->in);
	if (other < nr_cpu_ids)
		set_cpus_allowed_ptr(current, cpumask_of(other));
	msleep(ms);
	cpus->out = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, &tgt_lat_saved_mask);
}

static TGT_CALLER void tgt_lat_rec(u64 us, unsigned int depth);

/*
 * The probed function: spins @us microseconds on the clock, then, where a
 * caller asks, recurses (@depth) or sleeps and migrates (@sleep_ms); the
 * time from its first statement to its last goes to *@inner.  Each caller
 * passes constants but tgt_lat_rec(), so each copy keeps only its path.
 */
static __always_inline void tgt_lat_wait(u64 us, unsigned int depth, unsigned int sleep_ms,
					 struct tgt_lat_cpus *cpus, u64 *inner)
{
	u64 start = ktime_get_mono_fast_ns();

	while (ktime_get_mono_fast_ns() - start < us * NSEC_PER_USEC)
		cpu_relax();
	if (depth)
		tgt_lat_rec(us, depth - 1);
	if (sleep_ms)
		tgt_lat_sleep(sleep_ms, cpus);
	*inner = ktime_get_mono_fast_ns() - start;
}

/* ---- process context ---- */

static TGT_CALLER void tgt_lat_task(u64 us)
{
	struct tgt_lat_cpus cpus;
	u64 t0, inner;

	cpus.in = raw_smp_processor_id();
	t0 = ktime_get_mono_fast_ns();
	tgt_lat_wait(us, 0, 0, NULL, &inner);
	t0 = ktime_get_mono_fast_ns() - t0;
	cpus.out = raw_smp_processor_id();
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, &cpus);
}

/* ---- recursion: each copy calls the next frame's ---- */

static TGT_CALLER void tgt_lat_rec(u64 us, unsigned int depth)
{
	struct tgt_lat_cpus cpus;
	u64 t0, inner;

	cpus.in = raw_smp_processor_id();
	t0 = ktime_get_mono_fast_ns();
	tgt_lat_wait(us, depth, 0, NULL, &inner);
	t0 = ktime_get_mono_fast_ns() - t0;
	cpus.out = raw_smp_processor_id();
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, &cpus);
}

/* ---- sleeping and migrating inside the copy ---- */

static TGT_CALLER void tgt_lat_migrate(u64 us, unsigned int ms)
{
	struct tgt_lat_cpus cpus;
	u64 t0, inner;

	t0 = ktime_get_mono_fast_ns();
	tgt_lat_wait(us, 0, ms, &cpus, &inner);
	t0 = ktime_get_mono_fast_ns() - t0;
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, &cpus);
}

/* ---- softirq: a timer_list callback ---- */

static u64 tgt_lat_us;
static DECLARE_COMPLETION(tgt_lat_done);

static TGT_CALLER void tgt_lat_soft(u64 us)
{
	struct tgt_lat_cpus cpus;
	u64 t0, inner;

	cpus.in = smp_processor_id();
	t0 = ktime_get_mono_fast_ns();
	tgt_lat_wait(us, 0, 0, NULL, &inner);
	t0 = ktime_get_mono_fast_ns() - t0;
	cpus.out = smp_processor_id();
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, &cpus);
}

static struct timer_list tgt_lat_timer;

static void tgt_lat_timer_fn(struct timer_list *t)
{
	tgt_lat_soft(READ_ONCE(tgt_lat_us));
	complete(&tgt_lat_done);
}

/* ---- hardirq: an hrtimer that fires while the writer sleeps ---- */

static TGT_CALLER void tgt_lat_hard(u64 us)
{
	struct tgt_lat_cpus cpus;
	u64 t0, inner;

	cpus.in = smp_processor_id();
	t0 = ktime_get_mono_fast_ns();
	tgt_lat_wait(us, 0, 0, NULL, &inner);
	t0 = ktime_get_mono_fast_ns() - t0;
	cpus.out = smp_processor_id();
	tgt_lat_line("tgt_lat_wait", __func__, inner, t0, &cpus);
}

static struct hrtimer tgt_lat_hrtimer;

static enum hrtimer_restart tgt_lat_hrtimer_fn(struct hrtimer *t)
{
	tgt_lat_hard(READ_ONCE(tgt_lat_us));
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
		cpu_relax();
	return ktime_get_mono_fast_ns() - start;
}

static u64 (*tgt_lat_ool_fn)(u64 us) = tgt_lat_outofline;

u64 __attribute__((__flatten__)) tgt_lat_ool_inlined(u64 us)
{
	return tgt_lat_outofline(us);
}

static TGT_CALLER void tgt_lat_ool(u64 us)
{
	struct tgt_lat_cpus cpus;
	u64 t0, inner;

	cpus.in = raw_smp_processor_id();
	t0 = ktime_get_mono_fast_ns();
	inner = READ_ONCE(tgt_lat_ool_fn)(us);
	t0 = ktime_get_mono_fast_ns() - t0;
	cpus.out = raw_smp_processor_id();
	tgt_lat_line("tgt_lat_outofline", __func__, inner, t0, &cpus);
}

/* The migrating call alone, sleeping @ms: "latsleep MS". */
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
 * the innermost first); migration (a 10 ms sleep).
 */
u64 tgt_run_latency(u64 us)
{
	WRITE_ONCE(tgt_lat_us, us);
	tgt_lat_task(us);

	reinit_completion(&tgt_lat_done);
	timer_setup(&tgt_lat_timer, tgt_lat_timer_fn, 0);
	mod_timer(&tgt_lat_timer, jiffies + 1);
	wait_for_completion(&tgt_lat_done);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	timer_delete_sync(&tgt_lat_timer);
#else
	del_timer_sync(&tgt_lat_timer);
#endif

	reinit_completion(&tgt_lat_done);
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

	tgt_lat_rec(us, 2);
	tgt_lat_migrate(us, 10);
	return ++tgt_lat_sink;
}
