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
 *
 * The key stays off and the static call's target is never changed: the
 * tests read the module's __jump_table and .static_call_sites themselves.
 */
#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/static_call.h>

#include "tgt.h"

static DEFINE_STATIC_KEY_FALSE(tgt_sites_key);
static u64 tgt_sites_seen;

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

u64 tgt_run_sites(u64 a)
{
	return tgt_sites_call_caller(a, 7) + tgt_sites_branch(a + 1, 9) +
	       tgt_sites_plain(a + 2, 11);
}
