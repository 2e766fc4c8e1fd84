// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined functions whose entry pc is a site kprobes refuse, so gen must
 * not put a probe there (Documentation/generating.rst, "Probe pc"):
 *
 *   tgt_at_call()    starts with a static call: the probe goes to the
 *                    first pc after the call where v and k are still known
 *                    (execution always comes back there);
 *   tgt_at_branch()  starts with a static branch whose taken side leaves
 *                    the body: no pc after it is passed by every call, so
 *                    that instance gets no record.  Its other instance,
 *                    in tgt_sites_plain(), starts with a store and stays.
 *   tgt_at_rejoin()  starts with a static branch whose taken side comes
 *                    back to the instruction after it: the probe goes
 *                    there, and sees every call once, key off or on.
 *
 * tgt_sites_key stays off and the static call's target is never changed;
 * tgt_rejoin_key is switched by the scenario.  The tests read the
 * module's __jump_table and .static_call_sites themselves.
 */
#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/static_call.h>

#include "tgt.h"

static DEFINE_STATIC_KEY_FALSE(tgt_sites_key);
static DEFINE_STATIC_KEY_FALSE(tgt_rejoin_key);
static u64 tgt_sites_seen, tgt_rejoin_taken;

static noinline u64 tgt_sites_callee(void)
{
	return READ_ONCE(tgt_sites_seen) + 1;
}

DEFINE_STATIC_CALL(tgt_sites_call, tgt_sites_callee);

static __always_inline u64 tgt_at_call(u64 v, u32 k)
{
	u64 r = static_call(tgt_sites_call)();

	/* nothing of it can go before the call; v and k live on after it */
	WRITE_ONCE(tgt_sites_seen, r);
	/* in a register here: GCC 16 would otherwise give k no location */
	OPTIMIZER_HIDE_VAR(k);
	return (r ^ v) * k + v;
}

static __always_inline u64 tgt_at_branch(u64 v, u32 k, bool store)
{
	if (store)
		WRITE_ONCE(tgt_sites_seen, v);
	if (static_branch_unlikely(&tgt_sites_key))
		return 0;
	return v * k + 3;
}

static noinline u64 tgt_rejoin_work(u64 x, u64 y)
{
	return x * 3 + y;
}

static __always_inline u64 tgt_at_rejoin(u64 v, u32 k)
{
	u64 r;

	if (static_branch_unlikely(&tgt_rejoin_key))
		WRITE_ONCE(tgt_rejoin_taken, tgt_rejoin_taken + 1);
	/* more than GCC copies into the taken side: both sides meet again */
	r = tgt_rejoin_work(v, k);
	WRITE_ONCE(tgt_sites_seen, r);
	r = tgt_rejoin_work(r, v);
	WRITE_ONCE(tgt_sites_seen, r + k);
	return r ^ v;
}

static TGT_CALLER u64 tgt_sites_call_caller(u64 v, u32 k)
{
	tgt_expect("tgt_at_call %s v=%llu k=%u", __func__, v, k);
	return tgt_at_call(v, k) + 1;
}

/* kprobes refuse this instance's entry; gen drops it: no event expected */
static TGT_CALLER u64 tgt_sites_branch(u64 v, u32 k)
{
	return tgt_at_branch(v, k, false) + 1;
}

static TGT_CALLER u64 tgt_sites_plain(u64 v, u32 k)
{
	tgt_expect("tgt_at_branch %s v=%llu k=%u store=1", __func__, v, k);
	return tgt_at_branch(v, k, true) + 2;
}

static TGT_CALLER u64 tgt_sites_rejoin_caller(u64 v, u32 k)
{
	tgt_expect("tgt_at_rejoin %s v=%llu k=%u", __func__, v, k);
	return tgt_at_rejoin(v, k) + 3;
}

u64 tgt_run_sites(u64 a)
{
	return tgt_sites_call_caller(a, 7) + tgt_sites_branch(a + 1, 9) +
	       tgt_sites_plain(a + 2, 11);
}

/* tgt_at_rejoin() with its key @on: the expected line says the key too */
u64 tgt_run_rejoin(u64 a, bool on)
{
	u64 before = READ_ONCE(tgt_rejoin_taken), r;

	if (on)
		static_branch_enable(&tgt_rejoin_key);
	else
		static_branch_disable(&tgt_rejoin_key);
	r = tgt_sites_rejoin_caller(a, 13);
	/* the taken side ran exactly when the key was on */
	if (READ_ONCE(tgt_rejoin_taken) - before != on)
		tgt_expect("tgt_rejoin_key on=%d but the branch was %staken", on, on ? "not " : "");
	static_branch_disable(&tgt_rejoin_key);
	return r;
}
