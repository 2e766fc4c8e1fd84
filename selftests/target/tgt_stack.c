// SPDX-License-Identifier: GPL-2.0
/*
 * Known stacks, for inkprobe's stack traces:
 *
 *   tgt_run_stack() -> tgt_chain_a() -> tgt_chain_b() -> [tgt_b_helper inlined]
 *   -> tgt_chain_c() -> [tgt_stack_inner inlined] -> [tgt_stack_innermost inlined]
 *
 * Each link records the return address it will return to, as %pS prints
 * it: exactly what an unwinder must report for that frame.  Every call is
 * followed by more work, so that no link becomes a tail call.  The same chain
 * runs from an hrtimer that interrupts tgt_spin() ("stackirq"), and a
 * writer can block in tgt_block_here() inside an inlined wait ("block").
 */
#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/version.h>

#include "tgt.h"

static u64 tgt_stack_sink;

static __always_inline u64 tgt_stack_innermost(u64 v)
{
	WRITE_ONCE(tgt_stack_sink, v);	/* code of its own to probe */
	return v * 3;
}

static __always_inline u64 tgt_stack_inner(u64 v)
{
	return tgt_stack_innermost(v + 1) + 7;
}

static TGT_CALLER u64 tgt_chain_c(u64 v)
{
	tgt_expect("stack c-returns-to %pS", __builtin_return_address(0));
	return tgt_stack_inner(v) ^ 5;
}

/* the call to tgt_chain_c() sits in inlined code */
static __always_inline u64 tgt_b_helper(u64 v)
{
	return tgt_chain_c(v * 2) + 1;
}

static TGT_CALLER u64 tgt_chain_b(u64 v)
{
	tgt_expect("stack b-returns-to %pS", __builtin_return_address(0));
	return tgt_b_helper(v) + 2;
}

static TGT_CALLER u64 tgt_chain_a(u64 v)
{
	tgt_expect("stack a-returns-to %pS", __builtin_return_address(0));
	return tgt_chain_b(v + 3) * 11;
}

u64 tgt_run_stack(u64 v)
{
	return tgt_chain_a(v) ^ 0x33;
}

/*
 * objtool leaves this function without ORC data, so the unwinder stops
 * with an error in its frame: what lies above is found by scanning.
 */
static TGT_CALLER u64 tgt_no_orc(u64 v)
{
	tgt_expect("stack noorc-returns-to %pS", __builtin_return_address(0));
	return tgt_chain_a(v) + 1;
}
STACK_FRAME_NON_STANDARD(tgt_no_orc);

u64 tgt_run_noorc(u64 v)
{
	return tgt_no_orc(v) ^ 0x55;
}

/* ---- from an hrtimer that interrupts tgt_spin() ---- */

static struct hrtimer tgt_timer;
static u64 tgt_timer_arg;
static bool tgt_timer_done;

static enum hrtimer_restart tgt_timer_fn(struct hrtimer *t)
{
	tgt_stack_sink += tgt_chain_a(tgt_timer_arg);
	WRITE_ONCE(tgt_timer_done, true);
	return HRTIMER_NORESTART;
}

/*
 * Interrupted by the timer: the bottom of the interrupted context.  The
 * timer starts here, so that it can only expire in tgt_spin() or in what
 * it calls (under TCG 1 ms can pass before a caller's next line), and the
 * loop reads memory only: no call, so that the interrupt lands in
 * tgt_spin() itself (an interrupt on a retpoline thunk's first
 * instruction is where ORC stops, for the kernel's own traces too).
 */
static TGT_CALLER u64 tgt_spin(unsigned long max_jiffies)
{
	unsigned long end = jiffies + max_jiffies;
	u64 n = 0;

	hrtimer_start(&tgt_timer, ms_to_ktime(1), HRTIMER_MODE_REL_PINNED);
	while (!READ_ONCE(tgt_timer_done) && time_before(jiffies, end))
		n++;
	return n;
}

u64 tgt_run_stackirq(u64 v)
{
	u64 n;

	tgt_timer_arg = v;
	WRITE_ONCE(tgt_timer_done, false);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&tgt_timer, tgt_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
#else
	hrtimer_init(&tgt_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	tgt_timer.function = tgt_timer_fn;
#endif
	/* the pinned timer must interrupt this task: no migration meanwhile */
	preempt_disable();
	n = tgt_spin(2 * HZ);
	preempt_enable();
	hrtimer_cancel(&tgt_timer);
	tgt_expect("stackirq %s", READ_ONCE(tgt_timer_done) ? "fired" : "timed out");
	return n;
}

/* ---- a writer blocked at a known place ---- */

static DECLARE_COMPLETION(tgt_never);

/* the wait sits in inlined code */
static __always_inline unsigned long tgt_block_wait(unsigned int ms)
{
	return wait_for_completion_timeout(&tgt_never, msecs_to_jiffies(ms));
}

static TGT_CALLER u64 tgt_block_here(unsigned int ms)
{
	return tgt_block_wait(ms) + 1;
}

u64 tgt_run_block(unsigned int ms)
{
	return tgt_block_here(ms);
}
