// SPDX-License-Identifier: GPL-2.0
/*
 * Untrusted input: malformed blobs and commands are refused with an error,
 * never a crash, a warning or a probe.  The blobs here are raw (gen --raw);
 * compressed_test does the same for zstd frames.  The oracle for blobs is
 * independent of the validator the module links (lib/blob.c,
 * lib/btf_lite.c): the model of blob_model.c, written from
 * Documentation/blob-format.rst alone (selftests/host/blob_model_test checks
 * it against the validator on every cut and bit flip), and for the crafted
 * fields the exact message each mutation calls for, written out here.  The
 * kernel must refuse with exactly that message.  The kernel log is checked
 * by the test runner afterwards.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "blob_model.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;

#define HDR_LEN		16	/* blob-format.rst: the container header */

static u32 get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static void put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

/* The module parameter blob_max_kb, in bytes. */
static unsigned long blob_max_len(void)
{
	char *v = read_file("/sys/module/inkprobe/parameters/blob_max_kb", NULL);
	unsigned long kb = v ? strtoul(v, NULL, 10) : 0;

	free(v);
	return kb << 10;
}

/*
 * What the kernel says about @len bytes written at once: it checks the
 * header's fields as they arrive and its blob_len against blob_max_kb,
 * frames the upload by blob_len, then validates (the model's verdict).
 */
static const char *kernel_model(const u8 *data, u32 len)
{
	static char msg[256];
	const char *why = model_prefix(data, len < HDR_LEN ? len : HDR_LEN);
	u32 blob_len;

	if (*why)
		return why;
	if (len < HDR_LEN) {
		snprintf(msg, sizeof(msg), "invalid blob: truncated (%u of %u bytes)", len, HDR_LEN);
		return msg;
	}
	blob_len = get32(data + 8);
	if (blob_len > blob_max_len()) {
		snprintf(msg, sizeof(msg),
			 "invalid blob: %u bytes, more than blob_max_kb=%lu (module parameter)",
			 blob_len, blob_max_len() >> 10);
		return msg;
	}
	if (blob_len > len) {
		snprintf(msg, sizeof(msg), "invalid blob: truncated (%u of %u bytes)", len,
			 blob_len);
		return msg;
	}
	if (blob_len < len)
		return "invalid blob: data after blob_len bytes";
	return model_verdict(data, len, model_running_kernel());
}

/*
 * The running kernel's BTF, read once before the harness forks a process
 * per test: the model's reading of its 5 MB takes seconds under TCG.
 */
static void __attribute__((constructor)) read_kernel_btf(void)
{
	model_running_kernel();
}

FIXTURE(bad) {
	u8 *blob;
	size_t len;
	unsigned int tried;
};

FIXTURE_SETUP(bad)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	ASSERT_NE(NULL, model_running_kernel());
	/* the raw blob: these tests mutate its structure */
	self->blob = (u8 *)read_file(blob_path("inkprobe_target.raw.inkb"), &self->len);
	ASSERT_NE(NULL, self->blob);
	ASSERT_STREQ("", model_verdict(self->blob, self->len, model_running_kernel()));
	self->tried = 0;
}

FIXTURE_TEARDOWN(bad)
{
	free(self->blob);
	clear_probes();
}

/* The kernel refuses @data with exactly @want. */
static int expect_kernel_refuses(struct __test_metadata *_metadata, const u8 *data, u32 len,
				 const char *want, const char *what)
{
	int ret = write_bytes(INK_DIR "/blob", data, len);
	const char *got = last_error();

	if (ret == 0) {
		TH_LOG("%s: accepted, the model says '%s'", what, want);
		return 1;
	}
	if (want && strcmp(got, want)) {
		TH_LOG("%s: kernel '%s', model '%s'", what, got, want);
		return 1;
	}
	return 0;
}

/*
 * Every cut on Debian's kernels.  The debug kernel (KASAN, 20 times slower
 * here under TCG) takes every 7th: the validator is lib/blob.c, whose every
 * cut and bit flip the host tests run under ASan; a prime step still meets
 * every field at every alignment (Documentation/testing.rst).
 */
static u32 truncation_step(void)
{
	return strcmp(env_or("INKPROBE_KERNEL", ""), "debug") ? 1 : 7;
}

TEST_F_TIMEOUT(bad, every_truncation, 300)
{
	u32 n, step = truncation_step();
	int wrong = 0;

	for (n = 1; n < self->len; n += step) {
		u8 *c = malloc(self->len);
		memcpy(c, self->blob, self->len);
		/* as written: the kernel waits for blob_len bytes, then close() fails */
		wrong += expect_kernel_refuses(_metadata, c, n, kernel_model(c, n), "truncation");
		/* with the header claiming the shorter length: the validator decides */
		if (n >= HDR_LEN) {
			put32(c + 8, n);
			wrong += expect_kernel_refuses(_metadata, c, n, kernel_model(c, n),
						       "consistent truncation");
		}
		free(c);
		self->tried += 2;
	}
	TH_LOG("%u truncated blobs refused", self->tried);
	EXPECT_EQ(0, wrong);
	EXPECT_LE(500u, self->tried);
	/* the real blob still loads */
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
}

TEST_F_TIMEOUT(bad, bit_flips, 300)
{
	unsigned int refused = 0, accepted = 0, wrong = 0, i;
	u32 byte;
	int bit;

	srandom(20261122);
	for (i = 0; i < 3000; i++) {
		u8 *c = malloc(self->len);
		const char *want;

		memcpy(c, self->blob, self->len);
		/* half of the flips in the headers and tables, half anywhere */
		byte = (u32)(i % 2 ? random() % self->len : random() % 256 % self->len);
		bit = (int)(random() % 8);
		c[byte] ^= (u8)(1 << bit);
		want = kernel_model(c, (u32)self->len);
		if (*want) {
			wrong += expect_kernel_refuses(_metadata, c, (u32)self->len, want, "bit flip");
			refused++;
		} else {
			/* valid to the model: the kernel may still refuse the
			 * identity (its module's build ID and BTF); either way it
			 * must not fall over
			 */
			struct model_layout l;

			if (!write_bytes(INK_DIR "/blob", c, self->len) &&
			    !model_layout(c, (u32)self->len, &l)) {
				char cmd[80];

				snprintf(cmd, sizeof(cmd), "-%s", (const char *)c + l.target);
				write_file(INK_DIR "/blobs", cmd, false);
			}
			accepted++;
		}
		free(c);
	}
	TH_LOG("3000 flips: %u refused as the model says, %u valid to it", refused, accepted);
	EXPECT_EQ(0, wrong);
	EXPECT_LE(500u, refused);
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	EXPECT_EQ(0, count_kprobes("tgt_"));
}

/*
 * Patch @len bytes at @off of a copy: the kernel must refuse it with
 * exactly "invalid blob: @msg at byte @at", and the model must say so too.
 */
static int patched(struct __test_metadata *_metadata, FIXTURE_DATA(bad) *self, u32 off,
		   const void *bytes, u32 len, const char *msg, u32 at)
{
	u8 *c = malloc(self->len);
	char want[256];
	const char *model;
	int wrong = 0;

	snprintf(want, sizeof(want), "invalid blob: %s at byte %u", msg, at);
	memcpy(c, self->blob, self->len);
	memcpy(c + off, bytes, len);
	model = kernel_model(c, (u32)self->len);
	if (strcmp(model, want)) {
		TH_LOG("%u bytes at %u: the model says '%s', the mutation calls for '%s'", len,
		       off, model, want);
		wrong++;
	}
	wrong += expect_kernel_refuses(_metadata, c, (u32)self->len, want, msg);
	free(c);
	return wrong;
}

/* The length of the valid expression at @e (in the blob), its terminator included. */
static u32 expr_len(const u8 *blob, u32 e)
{
	/* operand bytes of operators 0-24 (blob-format.rst, "Location expressions") */
	static const u8 operands[25] = {
		0, 1, 2, 4, 8, 1, 2, 4, 8, 1, 9, 1, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1,
	};
	u32 n = 0;

	while (blob[e + n] && blob[e + n] < 25)
		n += 1 + operands[blob[e + n]];
	return n + 1;
}

/*
 * The first parameter slot (its offset in the blob) of an instance record
 * whose location is the expression at @loc (an offset in the blob), in
 * record order: where the kernel reports that expression's fault.  0 if
 * none, or if another expression shares one of the @n bytes at @loc.
 */
static u32 first_slot(const u8 *blob, const struct model_layout *l, u32 loc, u32 n)
{
	u32 off = 0, first = 0, i;

	while (off + 14 <= l->inst_len) {
		const u8 *r = blob + l->inst + off;
		u32 nr = (u32)r[12] | (u32)r[13] << 8;

		for (i = 0; i < nr; i++) {
			u32 e = l->loc + get32(r + 14 + 4 * i);

			if (e == loc && !first)
				first = l->inst + off + 14 + 4 * i;
			else if (e != loc && e != l->loc && e < loc + n && loc < e + expr_len(blob, e))
				return 0;
		}
		off += 14 + 4 * nr;
	}
	return first;
}

/*
 * Fields set to values their rules refuse, each with the message and byte
 * Documentation/blob-format.rst ("Refusals") gives for that field.
 */
TEST_F_TIMEOUT(bad, crafted_fields, 300)
{
	struct model_layout l;
	u32 inst, loc = 0, slot, at, i, v32, off;
	u16 v16;
	u8 op[4];
	int wrong = 0;

	ASSERT_EQ(0, model_layout(self->blob, (u32)self->len, &l));
	inst = l.inst;
	/* the first expression of 4 bytes or more (the patches below stay in it) */
	for (off = 0; off + 14 <= l.inst_len && !loc;) {
		const u8 *r = self->blob + l.inst + off;
		u32 nr = (u32)r[12] | (u32)r[13] << 8;

		for (i = 0; i < nr && !loc; i++)
			if (get32(r + 14 + 4 * i) &&
			    expr_len(self->blob, l.loc + get32(r + 14 + 4 * i)) >= 4)
				loc = l.loc + get32(r + 14 + 4 * i);
		off += 14 + 4 * nr;
	}
	ASSERT_NE(0u, loc);
	slot = first_slot(self->blob, &l, loc, 4);
	ASSERT_NE(0u, slot);

	/* the container header: refused as its bytes arrive */
	v32 = 0xdeadbeef;
	wrong += patched(_metadata, self, 0, &v32, 4, "not an inkprobe blob (bad magic)", 0);
	v32 = 0xffffffff;
	wrong += patched(_metadata, self, 8, &v32, 4, "blob length out of range", 8);
	v32 = 1000;
	wrong += patched(_metadata, self, 12, &v32, 4, "bad number of blob sections", 12);
	/* each section's offset, then its length, beyond the blob */
	for (i = 0; i < 4; i++) {
		at = HDR_LEN + 16 * i;
		v32 = 0x7ffffff8;
		wrong += patched(_metadata, self, at + 4, &v32, 4,
				 "section out of bounds or misaligned", at + 4);
		v32 = 0x7fffffff;
		wrong += patched(_metadata, self, at + 8, &v32, 4,
				 "section out of bounds or misaligned", at + 4);
	}
	/* the first instance record: caller, offset, parameter count, location */
	v32 = 0xfffffff;
	wrong += patched(_metadata, self, inst + 4, &v32, 4, "instance caller has no symbol",
			 inst + 4);
	wrong += patched(_metadata, self, inst + 8, &v32, 4, "instance offset outside its caller",
			 inst + 8);
	v16 = 0xffff;
	wrong += patched(_metadata, self, inst + 12, &v16, 2, "truncated instance parameters",
			 inst + 12);
	v32 = 0x7fffffff;
	wrong += patched(_metadata, self, inst + 14, &v32, 4, "location offset out of range",
			 inst + 14);
	/*
	 * the first extension record's flags: each rule of NO_PROBE, on a
	 * record with parameters, and of DEPTH on the flags alone
	 */
	{
		static const struct {
			u8 flags;
			const char *msg;
		} np[] = {
			{ 64, "unprobeable instance without ranges" },
			{ 64 | 4 | 1, "unprobeable instance out of line" },
			{ 64 | 4 | 2, "moved probe pc of an unprobeable instance" },
			{ 64 | 4 | 16, "merged unprobeable instance" },
			{ 64 | 4 | 32, "exits of an unprobeable instance" },
			{ 64 | 4, "parameters of an unprobeable instance" },
			{ 128, "depth of an instance without ranges" },
			{ 128 | 4 | 1, "depth of an out-of-line instance" },
		};

		ASSERT_NE(0u, l.ext_len);
		ASSERT_NE(0, self->blob[inst + 12] | self->blob[inst + 13]);
		for (i = 0; i < sizeof(np) / sizeof(np[0]); i++)
			wrong += patched(_metadata, self, l.ext, &np[i].flags, 1, np[i].msg, l.ext);
	}
	/* the expression: each fault reported at the first slot that uses it */
	for (i = 16; i < 256; i++) {	/* registers past r15 */
		op[0] = 9;		/* LOC_REGISTER */
		op[1] = (u8)i;
		wrong += patched(_metadata, self, loc, op, 2, "location register out of range",
				 slot);
	}
	for (i = 25; i < 256; i++) {	/* past the last operator, LOC_SHRA (24) */
		op[0] = (u8)i;
		wrong += patched(_metadata, self, loc, op, 1, "bad or unterminated location operator",
				 slot);
	}
	op[0] = 11;			/* LOC_DEREF 8 of nothing */
	op[1] = 8;
	wrong += patched(_metadata, self, loc, op, 2, "location stack underflow", slot);
	op[0] = 9;			/* LOC_REGISTER %di, LOC_DEREF 3 */
	op[1] = 5;
	op[2] = 11;
	op[3] = 3;
	wrong += patched(_metadata, self, loc, op, 4, "bad dereference size", slot);
	/*
	 * Every byte after the empty expression LOC_REGISTER (9): each
	 * expression reads "push %r9" over and over, and the first record's
	 * first located parameter overflows the stack at its fifth push (4
	 * values at most), or runs out of bytes before.
	 */
	{
		u8 *c = malloc(self->len);
		u32 first = 0, e = 0, j;
		char want[160];

		memcpy(c, self->blob, self->len);
		for (j = l.loc + 1; j < l.loc + l.loc_len; j++)
			c[j] = 9;
		for (off = 0; off + 14 <= l.inst_len && !first;) {
			const u8 *r = self->blob + l.inst + off;
			u32 nr = (u32)r[12] | (u32)r[13] << 8;

			for (j = 0; j < nr && !first; j++)
				if (get32(r + 14 + 4 * j)) {
					first = l.inst + off + 14 + 4 * j;
					e = get32(r + 14 + 4 * j);
				}
			off += 14 + 4 * nr;
		}
		snprintf(want, sizeof(want), "invalid blob: %s at byte %u",
			 l.loc_len - e >= 10 ? "location stack overflow" :
			 "bad or unterminated location operator", first);
		if (strcmp(want, kernel_model(c, (u32)self->len))) {
			TH_LOG("the model says '%s', the mutation calls for '%s'",
			       kernel_model(c, (u32)self->len), want);
			wrong++;
		}
		wrong += expect_kernel_refuses(_metadata, c, (u32)self->len, want, "unterminated");
		free(c);
	}
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(0, count_kprobes("tgt_"));
}

/* Commands that must fail, each with an error_log entry, leaving no probe. */
static const char *const malformed_cmds[] = {
	"p", "p:", "p:/", "p:grp/", "p:/ev tgt_mix", "p:grp/ev", "p:9bad tgt_mix",
	"p:grp/9bad tgt_mix", "p:a/b/c tgt_mix", "p:a-b tgt_mix", "x tgt_mix", "r tgt_mix nosuch",
	"r:ret tgt_mix obj->nosuch", "r:ret tgt_mix $retval:string", "r:ret tgt_dup x->y", "-:", "-:nosuch", "-:grp/nosuch", "-:a b", "pp tgt_mix",
	"p:ok nosuchfunction", "p:ok tgt_mix@nosuchcaller", "p:ok nosuchmod:tgt_mix",
	"p:ok vmlinux:tgt_mix", "p:ok :tgt_mix", "p:ok tgt_mix@", "p:ok @tgt_caller_a",
	"p:ok tgt_caller_a+zz", "p:ok tgt_caller_a+0x1", "p:ok tgt_caller_a+-1",
	"p:ok tgt_caller_a+0x100000000", "p:ok tgt_caller_a+", "p:ok +0x10",
	"p:ok tgt_mix nosuch", "p:ok tgt_mix reg=", "p:ok tgt_mix =reg", "p:ok tgt_mix 9a=reg",
	"p:ok tgt_mix reg:u7", "p:ok tgt_mix reg:", "p:ok tgt_mix reg:float",
	"p:ok tgt_mix reg:u64:u32", "p:ok tgt_mix %ax", "p:ok tgt_mix %di:u64", "p:ok tgt_mix @jiffies",
	"p:ok tgt_mix +8(%di)", "p:ok tgt_mix $arg0", "p:ok tgt_mix $arg4", "p:ok tgt_mix $arg99",
	"p:ok tgt_mix $argx", "p:ok tgt_mix $arg", "p:ok tgt_mix $stack", "p:ok tgt_mix $retval",
	"p:ok tgt_mix $comm:u32", "p:ok tgt_mix reg->", "p:ok tgt_mix reg->x",
	"p:ok tgt_mix obj->nosuch", "p:ok tgt_mix obj->weight->x", "p:ok tgt_mix obj->->weight",
	"p:ok tgt_mix obj-weight", "p:ok tgt_mix obj->cookie->a->b->c->d",
	"p:ok tgt_mix konst->x", "p:ok tgt_mix a b c d e f g h i j k l m n o p q",
	"p:ok tgt_mix $comm $comm $comm $comm $comm",
	"p:ok tgt_mix reg:string reg:string reg:string reg:string reg:string",
	"p:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa tgt_mix",
	"p:gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg/e tgt_mix",
	"p:ok tgt_mix xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx=reg",
	"p:ok tgt_mix@tgt_caller_a@tgt_caller_b", "p:ok tgt_mix@tgt_caller_a+0x10",
	"p tgt_caller_a+0x10", "p:ok tgt_mix reg konst obj \x01", "p:ok\ttgt_mix\treg\tbad\xff",
	"\xff\xfe", "P:ok tgt_mix", "p:ok TGT_MIX", "p:ok tgt_mix REG",
};

TEST_F(bad, commands)
{
	unsigned int n = 0, i, j, wrong = 0;
	char cmd[1200];
	char *probes, *before, *after;

	ASSERT_EQ(0, clear_errors());
	/* one valid event, so that duplicates are errors too */
	ASSERT_EQ(0, probes_cmd("p:ok/dup tgt_mix reg", true));
	srandom(42);
	for (i = 0; i < sizeof(malformed_cmds) / sizeof(malformed_cmds[0]) + 160; i++) {
		size_t k;

		if (i < sizeof(malformed_cmds) / sizeof(malformed_cmds[0])) {
			snprintf(cmd, sizeof(cmd), "%s", malformed_cmds[i]);
		} else if (i % 4 == 0) {	/* a duplicate event */
			snprintf(cmd, sizeof(cmd), "p:ok/dup tgt_mix konst");
		} else if (i % 4 == 1) {	/* over-long commands */
			memset(cmd, 'a', sizeof(cmd) - 1);
			cmd[0] = 'p';
			cmd[1] = ':';
			cmd[sizeof(cmd) - 1] = '\0';
		} else {			/* random bytes, not blank or comment */
			k = 1 + (size_t)random() % 80;
			for (j = 0; j < k; j++)
				cmd[j] = (char)(1 + random() % 255);
			cmd[k] = '\0';
			cmd[0] = "pr-xq"[random() % 5];
			for (j = 0; j < k; j++)
				if (cmd[j] == '#' || cmd[j] == '\n')
					cmd[j] = '_';
		}
		before = read_file(INK_DIR "/error_log", NULL);
		if (probes_cmd(cmd, true) == 0) {
			TH_LOG("accepted: '%s'", cmd);
			wrong++;
			free(before);
			continue;
		}
		after = read_file(INK_DIR "/error_log", NULL);
		if (!before || !after || !strcmp(before, after)) {
			TH_LOG("no new error_log entry for '%s'", cmd);
			wrong++;
		}
		free(before);
		free(after);
		n++;
	}
	TH_LOG("%u malformed commands refused", n);
	EXPECT_EQ(0, wrong);
	EXPECT_LE(200u, n);
	/* nothing but the one valid event exists */
	probes = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, probes);
	EXPECT_STREQ("p:ok/dup tgt_mix reg\n", probes);
	free(probes);
	EXPECT_EQ(2, count_kprobes("tgt_caller_"));
	ASSERT_EQ(0, clear_probes());
	EXPECT_EQ(0, count_kprobes("tgt_"));
}

/* Grammar refusals: the message, and the caret under the word at fault. */
TEST_F(bad, refusals_point_at_the_word)
{
	static const struct {
		const char *cmd;
		const char *at;		/* where the caret must be */
		const char *msg;
	} cases[] = {
		{ "p:g/d tgt_mix x=reg x=konst", "x=konst",
		  "argument 1 is named 'x' too: give this one another NAME=" },
		{ "p:g/d tgt_mix reg konst reg", "reg",
		  "argument 1 is named 'reg' too: give this one another NAME=" },
		{ "p:g/d tgt_mix konst comm=reg $comm", "$comm",
		  "argument 2 is named 'comm' too: give this one another NAME=" },
		{ "p:g/s tgt_mix reg:string", "string",
		  "'reg' is not a pointer to or an array of char: not a string" },
		{ "p:g/s tgt_mix obj:string", "string",
		  "'obj' is not a pointer to or an array of char: not a string" },
		{ "p:g/s tgt_mix w=obj->weight:string", "string",
		  "'w' is not a pointer to or an array of char: not a string" },
		{ "p:g/s tgt_strings l->len:string", "string",
		  "'len' is not a pointer to or an array of char: not a string" },
		{ "p:g/s tgt_strings l:string", "string",
		  "'l' is not a pointer to or an array of char: not a string" },
		{ "p:g/f tgt_mix reg if reg > 3", "if reg",
		  "filters are not supported on the definition line (kprobe_events takes them in events/GRP/EVENT/filter)" },
		{ "p:g/f tgt_mix if konst == 7", "if konst",
		  "filters are not supported on the definition line (kprobe_events takes them in events/GRP/EVENT/filter)" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *at = NULL, *p;

		/* the last occurrence */
		for (p = cases[i].cmd; (p = strstr(p, cases[i].at)); p++)
			at = p;
		ASSERT_NE(NULL, at);
		EXPECT_EQ(-EINVAL, probes_cmd(cases[i].cmd, true)) TH_LOG("%s", cases[i].cmd);
		EXPECT_STREQ(cases[i].msg, last_error()) TH_LOG("%s", cases[i].cmd);
		EXPECT_EQ(at - cases[i].cmd, last_error_caret()) TH_LOG("%s", cases[i].cmd);
	}
	/* one value twice, under two names */
	EXPECT_EQ(0, probes_cmd("p:g/ok tgt_mix reg konst:s32 r2=reg", true)) {
		TH_LOG("%s", last_error());
	}
	EXPECT_EQ(0, clear_probes());
	EXPECT_EQ(0, count_kprobes("tgt_"));
}

TEST_HARNESS_MAIN
