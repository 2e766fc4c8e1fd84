/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inkprobe_target: functions whose inlining is known, for inkprobe's tests.
 *
 *   inkprobe_target.c  debugfs files, scenario dispatch, the expected log
 *   tgt_inline.c       one inlined function into two callers (tgt_mix), one
 *                      inlined function per location class, and a pointer
 *                      that points nowhere (tgt_fault)
 *   tgt_clones.c       a partially inlined function, .constprop/.isra clones
 *   tgt_split.c        functions GCC splits in two (NAME.part.N)
 *   tgt_dup_a.c/_b.c   two static functions with one name
 *   tgt_bench.c        a timed loop and an empty kprobe, for benchmarks
 *   tgt_stack.c        known call chains (also from an hrtimer), a blocked task
 *   tgt_alias.c        a caller with two names (an alias)
 *   tgt_refuse.c       callers holding sites kprobes refuse (jump label, WARN,
 *                      static call)
 *   tgt_string.c       :string arguments: a char pointer, a char array;
 *                      strings at a page's end, in a guard page, escaped
 *   tgt_merge.c        two inlined calls at one address, different arguments
 *   tgt_sites.c        inlined functions starting with a static call or branch
 *   tgt_notrace.c      an inlined function in a notrace caller; a hit nested
 *                      in another kprobe's handler
 *   tgt_exits.c        one inlined function per way of leaving it (early
 *                      return, break, goto, jump table, tail call, noreturn)
 *   tgt_order.c        copies whose exits and entries share pcs (nested
 *                      copies leaving by one pc, one call's exit the next
 *                      one's entry)
 *   tgt_latency.c      one inlined wait per context (task, softirq, hardirq,
 *                      recursion, a sleep) and one out of line,
 *                      each timed by itself: the brackets of $duration
 *   tgt_noprobe.c      inlined copies in noinstr and NOKPROBE_SYMBOL() code
 *                      (ranges only: never probed) and one probeable copy
 *   tgt_profile.c      a CPU-bound call spinning a known share of its time in
 *                      an inlined copy, for inkprobe profile
 */
#ifndef _INKPROBE_TGT_H
#define _INKPROBE_TGT_H

#include <linux/types.h>

/* Neither inlined nor cloned: a caller whose name and code stay put. */
#define TGT_CALLER	noinline __attribute__((__noipa__))

struct tgt_inner {
	u32 a;
	u32 b;
};

struct tgt_obj {
	u64 cookie;
	u32 weight;
	struct tgt_inner inner;		/* embedded: obj->inner.b */
};

/*
 * Records one line of what an inlined or out-of-line copy received, as
 * inkprobe prints it by default: "<callee> <caller> name=value ...".
 */
__printf(1, 2) void tgt_expect(const char *fmt, ...);

/* Scenarios, run from the trigger file; each records its expected lines. */
u64 tgt_run_mix(u64 a, u64 b, u32 w);
u64 tgt_run_locations(u64 a, u64 b);
u64 tgt_run_fault(u64 a);
u64 tgt_run_partial(unsigned int n);
u64 tgt_run_clones(u64 a);
u64 tgt_run_dups(u64 a);
u64 tgt_run_split(s64 x);
u64 tgt_run_alias(u64 a);
u64 tgt_run_refuse(u64 a);
u64 tgt_run_strings(u64 a);
int tgt_run_str_edge(u64 a);
u64 tgt_run_merge(u64 a);
u64 tgt_run_sites(u64 a);
u64 tgt_run_rejoin(u64 a, bool on);
u64 tgt_run_exits(u64 a);
u64 tgt_run_order(u64 a);
u64 tgt_run_noprobe(u64 a);

/* tgt_latency.c */
u64 tgt_run_latency(u64 us);
u64 tgt_run_lat_sleep(unsigned int ms);
u64 tgt_run_lat_ool(u64 us, unsigned int n);
u64 tgt_lat_ool_inlined(u64 us);

/* tgt_profile.c */
u64 tgt_run_spin(unsigned int ms);

/* tgt_alias.c: the global name of tgt_named_b() */
u64 tgt_named_a(u64 x);

/* tgt_stack.c */
u64 tgt_run_stack(u64 v);
u64 tgt_run_stackirq(u64 v);
u64 tgt_run_noorc(u64 v);
u64 tgt_run_block(unsigned int ms);

/* tgt_bench.c */
u64 tgt_run_bench(unsigned long n);
int tgt_toggle_empty_kprobe(unsigned int off);
void tgt_bench_exit(void);

/* tgt_notrace.c */
u64 tgt_run_notrace(u64 a);
int tgt_run_nested(u64 n, u64 m);

/* tgt_dup_a.c, tgt_dup_b.c */
u64 tgt_dup_call_a(u64 x);
u64 tgt_dup_call_b(u64 x);

#endif /* _INKPROBE_TGT_H */
