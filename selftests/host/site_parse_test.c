// SPDX-License-Identifier: GPL-2.0
/*
 * The sites file's lines (Documentation/trace-events.rst, "BPF programs at
 * every instance") as inkprobe_site_parse() reads them into specs
 * (user/site/inkprobe_attach.c): each form of SPEC against a spec worked
 * out by hand, and lines that are not one refused; and how a copy made
 * for a spec reads each argument (inkprobe_site_plan()), against the
 * steps of uapi/inkprobe_site.h worked out by hand.
 */
#include "kselftest_harness.h"
#include "host_test.h"

#include "../../user/site/inkprobe_attach.h"

TEST(every_form)
{
	struct inkprobe_site_spec s;
	char ev[64];
	int live = -1;

	ASSERT_EQ(0, inkprobe_site_parse("tgt/tgt_mix 1 0xffffffffc05c7846 tgt_caller_b+0x36 inlined live "
					 "reg=u64:r5+0 konst=s32:c-11 obj=u64:r4+0 weight=u32:r4+0:+8\n",
					 ev, sizeof(ev), &live, &s));
	EXPECT_STREQ("tgt/tgt_mix", ev);
	EXPECT_EQ(1, live);
	EXPECT_EQ(0xffffffffc05c7846ULL, s.ip);
	ASSERT_EQ(4, s.nr_args);
	EXPECT_EQ(INKPROBE_ARG_VALUE, s.args[0].kind);
	EXPECT_EQ(5, s.args[0].reg);
	EXPECT_EQ(0, s.args[0].val);
	EXPECT_EQ(8, s.args[0].size);
	EXPECT_EQ(0, s.args[0].is_signed);
	EXPECT_EQ(INKPROBE_NO_REG, s.args[1].reg);
	EXPECT_EQ(-11, s.args[1].val);
	EXPECT_EQ(4, s.args[1].size);
	EXPECT_EQ(1, s.args[1].is_signed);
	EXPECT_EQ(1, s.args[3].nr_reads);
	EXPECT_EQ(8, s.args[3].field_off[0]);
	EXPECT_EQ(0, s.args[3].loc_size);

	ASSERT_EQ(0, inkprobe_site_parse("part/tgt_part 2 0x0 tgt_part+0x0 out-of-line off "
					 "a7=u64:m8@r7+8 g=u64:c-1072230336 "
					 "w=u16:m4@c-4096:-8:+16 p=? q=-",
					 ev, sizeof(ev), &live, &s));
	EXPECT_EQ(0, live);
	ASSERT_EQ(5, s.nr_args);
	EXPECT_EQ(8, s.args[0].loc_size);
	EXPECT_EQ(7, s.args[0].reg);
	EXPECT_EQ(8, s.args[0].val);
	/* an address as the module prints it: signed */
	EXPECT_EQ((long long)0xffffffffc0171040ULL, s.args[1].val);
	EXPECT_EQ(4, s.args[2].loc_size);
	EXPECT_EQ(-4096, s.args[2].val);
	EXPECT_EQ(2, s.args[2].nr_reads);
	EXPECT_EQ(-8, s.args[2].field_off[0]);
	EXPECT_EQ(16, s.args[2].field_off[1]);
	EXPECT_EQ(2, s.args[2].size);
	EXPECT_EQ(INKPROBE_ARG_UNSUPPORTED, s.args[3].kind);
	EXPECT_EQ(INKPROBE_ARG_NONE, s.args[4].kind);

	/* an r event's kprobes: their instance, exit and kind, then the arguments */
	ASSERT_EQ(0, inkprobe_site_parse("ex/early_ret 1 0xffffffffc0731320 tgt_ex_early_caller+0x50 "
					 "inlined live instance=0 exit=1 LAND\n",
					 ev, sizeof(ev), &live, &s));
	EXPECT_STREQ("ex/early_ret", ev);
	EXPECT_EQ(0xffffffffc0731320ULL, s.ip);
	EXPECT_EQ(0, s.nr_args);
	ASSERT_EQ(0, inkprobe_site_parse("ex/dup_ret 1 0xffffffffc07303f0 tgt_dup+0x0 out-of-line live "
					 "instance=12 exit=0 RETURN retval=u64:r0+0\n",
					 ev, sizeof(ev), &live, &s));
	ASSERT_EQ(1, s.nr_args);
	EXPECT_EQ(INKPROBE_ARG_VALUE, s.args[0].kind);
	EXPECT_EQ(0, s.args[0].reg);
	EXPECT_EQ(8, s.args[0].size);
}

TEST(not_a_line)
{
	static const char *const bad[] = {
		"",
		"tgt/tgt_mix 0 0x1 c+0x0 inlined",			/* no state */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined on reg=u64:r5+0",	/* not live|off */
		"tgt/tgt_mix 0 zz c+0x0 inlined live",			/* address */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg",		/* no '=' */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg=u24:r5+0",	/* size */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg=u64:r16+0",	/* register */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg=u64:r5",	/* no offset */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg=u64:m3@r5+0",	/* read size */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg=u64:x5",	/* base */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg=u64:r5+0:8",	/* offset sign */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live reg=u64:r5+0x",	/* trailing */
		"tgt/tgt_mix 0 0x1 c+0x0 inlined live r=u64:c0:+0:+0:+0:+0:+0:+0:+0:+0:+0", /* 9 reads */
		"ex/r 0 0x1 c+0x0 inlined live instance=x exit=0 LAND",	/* instance */
		"ex/r 0 0x1 c+0x0 inlined live instance=0 exit= LAND",	/* exit */
		"ex/r 0 0x1 c+0x0 inlined live instance=0 exit=0 LANDING",	/* kind */
	};
	struct inkprobe_site_spec s;
	char ev[64];
	unsigned int i;
	int live;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, inkprobe_site_parse(bad[i], ev, sizeof(ev), &live, &s))
			TH_LOG("%s", bad[i]);
}

#define OP(how, reg)	((INKPROBE_OP_##how) << 4 | (reg))

/*
 * Each argument's op and offset in a copy: a register as it is, its low 4
 * bytes zero- or sign-extended, plus an offset; a constant cut to its size
 * and sign; one read at a register plus an offset or at an address,
 * zero-extended, where nothing is left to cut or extend; the rest by the
 * spec's steps (op 0).
 */
TEST(plan)
{
	static const struct {
		const char *line;
		struct {
			unsigned char op;
			long long off;
		} want[16];
	} lines[] = {
		{ "e/v 0 0xffffffffc0001000 f+0x1 inlined live "
		  "reg=u64:r5+0 konst=s32:c-11 k2=u8:c300 k3=s8:c200 obj=u64:r4+16 "
		  "w=u32:r4+0:+8 a7=u64:m8@r7+8 s=s32:r3+0 u=u32:r3+0 x=u16:r3+0 y=u32:r3+4 "
		  "f=u32:c16:+8 g=s32:r6+0:+8 h=s64:r6+0:+8 i=u64:m4@r7+8 j=u16:m4@r7+8",
		  { { OP(REG, 5), 0 }, { OP(CONST, 0), -11 }, { OP(CONST, 0), 44 },
		    { OP(CONST, 0), -56 }, { OP(REG_OFF, 4), 16 }, { OP(LOAD_REG + 2, 4), 8 },
		    { OP(LOAD_REG + 3, 7), 8 }, { OP(REG_S32, 3), 0 }, { OP(REG_U32, 3), 0 },
		    { 0, 0 }, { 0, 0 }, { OP(LOAD_ABS + 2, 0), 24 }, { 0, 0 },
		    { OP(LOAD_REG + 3, 6), 8 }, { OP(LOAD_REG + 2, 7), 8 }, { 0, 0 } } },
		{ "e/v 1 0xffffffffc0002000 f+0x2 inlined live "
		  "k=u64:r6+0:+8:+16 l=? m=- n=u64:m8@r7+8:+4 o=u8:r0+0:-1 p=u64:r15-8 "
		  "q=s64:c-1 r=u16:m2@c-4096 t=s16:m2@r6+0 z=u64:m1@r2+3",
		  { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, { OP(LOAD_REG, 0), -1 },
		    { OP(REG_OFF, 15), -8 }, { OP(CONST, 0), -1 }, { OP(LOAD_ABS + 1, 0), -4096 },
		    { 0, 0 }, { OP(LOAD_REG, 2), 3 } } },
	};
	struct inkprobe_site_const c;
	struct inkprobe_site_spec s;
	unsigned int i, j;
	char ev[64];
	int live;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		ASSERT_EQ(0, inkprobe_site_parse(lines[i].line, ev, sizeof(ev), &live, &s));
		memset(&c, 0xa5, sizeof(c));
		inkprobe_site_plan(&s, &c);
		/* the spec, but for the address the copy does not keep */
		EXPECT_EQ(0, c.spec.ip);
		EXPECT_EQ(1, c.spec.in_use);
		EXPECT_EQ(s.nr_args, c.spec.nr_args);
		EXPECT_EQ(0, memcmp(s.args, c.spec.args, sizeof(s.args)));
		for (j = 0; j < INKPROBE_SITE_MAX_ARGS; j++) {
			EXPECT_EQ(lines[i].want[j].op, c.op[j]) TH_LOG("line %u argument %u", i, j);
			EXPECT_EQ(lines[i].want[j].off, c.off[j]) TH_LOG("line %u argument %u", i, j);
		}
	}
}

TEST_HARNESS_MAIN
