// SPDX-License-Identifier: GPL-2.0
/*
 * Untrusted input: malformed blobs and commands are refused with an error,
 * never a crash, a warning or a probe.  The blobs here are raw (gen --raw);
 * compressed_test does the same for zstd frames.  The oracle for blobs is the same
 * validator, built into this test (lib/blob.c, lib/btf_lite.c): whatever it
 * refuses, the kernel must refuse with the same message.  The kernel log is
 * checked by the test runner afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "../../lib/blob.h"

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
 * frames the upload by blob_len, then runs the validator.
 */
static const char *kernel_model(const u8 *data, u32 len)
{
	static char msg[256];
	struct ink_err err = { 0 };
	u32 blob_len;

	/* the header's fields are checked as they arrive */
	if (len < sizeof(struct inkprobe_blob_header) && !ink_blob_check_prefix(data, len, &err)) {
		snprintf(msg, sizeof(msg), "invalid blob: truncated (%u of %zu bytes)", len,
			 sizeof(struct inkprobe_blob_header));
		return msg;
	}
	if (len < sizeof(struct inkprobe_blob_header) ||
	    ink_blob_check_header(data, len, &blob_len, &err)) {
		snprintf(msg, sizeof(msg), "invalid blob: %s at byte %u", err.msg, err.off);
		return msg;
	}
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
	return blob_verdict(data, len);
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
	ASSERT_NE(NULL, vmlinux_btf());
	/* the raw blob: these tests mutate its structure */
	self->blob = (u8 *)read_file(blob_path("inkprobe_target.raw.inkb"), &self->len);
	ASSERT_NE(NULL, self->blob);
	ASSERT_STREQ("", blob_verdict(self->blob, self->len));
	self->tried = 0;
}

FIXTURE_TEARDOWN(bad)
{
	free(self->blob);
	clear_probes();
}

/* The kernel refuses @data with exactly @want (a blob_verdict() message). */
static int expect_kernel_refuses(struct __test_metadata *_metadata, const u8 *data, u32 len,
				 const char *want, const char *what)
{
	int ret = write_bytes(INK_DIR "/blob", data, len);
	const char *got = last_error();

	if (ret == 0) {
		TH_LOG("%s: accepted, the validator says '%s'", what, want);
		return 1;
	}
	if (want && strcmp(got, want)) {
		TH_LOG("%s: kernel '%s', validator '%s'", what, got, want);
		return 1;
	}
	return 0;
}

TEST_F(bad, every_truncation)
{
	int wrong = 0;
	u32 n;

	for (n = 1; n < self->len; n++) {
		u8 *c = malloc(self->len);
		memcpy(c, self->blob, self->len);
		/* as written: the kernel waits for blob_len bytes, then close() fails */
		wrong += expect_kernel_refuses(_metadata, c, n, kernel_model(c, n), "truncation");
		/* with the header claiming the shorter length: the validator decides */
		if (n >= sizeof(struct inkprobe_blob_header)) {
			((struct inkprobe_blob_header *)c)->blob_len = n;
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

TEST_F(bad, bit_flips)
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
			/* valid to the validator: the kernel may still refuse the
			 * identity; either way it must not fall over
			 */
			if (!write_bytes(INK_DIR "/blob", c, self->len)) {
				const struct inkprobe_blob_header *h = (const void *)c;
				const struct inkprobe_blob_section *sec = (const void *)(h + 1);
				char cmd[80];
				u32 s;

				for (s = 0; s < h->nr_sections; s++)
					if (sec[s].type == INKPROBE_SEC_TARGET)
						break;
				snprintf(cmd, sizeof(cmd), "-%s", (const char *)c + sec[s].offset);
				write_file(INK_DIR "/blobs", cmd, false);
			}
			accepted++;
		}
		free(c);
	}
	TH_LOG("3000 flips: %u refused as the validator says, %u valid to it", refused,
	       accepted);
	EXPECT_EQ(0, wrong);
	EXPECT_LE(500u, refused);
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	EXPECT_EQ(0, count_kprobes("tgt_"));
}

/* Patch @len bytes at @off of a copy and expect the validator's refusal. */
static int patched(struct __test_metadata *_metadata, FIXTURE_DATA(bad) *self, u32 off,
		   const void *bytes, u32 len, const char *msg)
{
	u8 *c = malloc(self->len);
	const char *want;
	int wrong;

	memcpy(c, self->blob, self->len);
	memcpy(c + off, bytes, len);
	want = kernel_model(c, (u32)self->len);
	if (!strstr(want, msg)) {
		TH_LOG("validator says '%s', test meant '%s'", want, msg);
		free(c);
		return 1;
	}
	wrong = expect_kernel_refuses(_metadata, c, (u32)self->len, want, msg);
	free(c);
	return wrong;
}

TEST_F(bad, crafted_fields)
{
	struct ink_err err = { 0 };
	struct ink_blob b;
	u32 inst, loc = 0, i, v32;
	u16 v16;
	u8 op[4];
	int wrong = 0;

	ASSERT_EQ(0, ink_blob_parse(&b, self->blob, (u32)self->len, &err));
	inst = (u32)(b.inst - self->blob);
	for (i = 0; i < b.inst_len;) {		/* a non-empty parameter location */
		u16 nr = ink_get16(b.inst + i + 12);

		if (nr && ink_get32(b.inst + i + 14)) {
			loc = (u32)(b.loc - self->blob) + ink_get32(b.inst + i + 14);
			break;
		}
		i += BTF_INLINE_INSTANCE_LEN(nr);
	}
	ASSERT_NE(0u, loc);

	v32 = 0xdeadbeef;
	wrong += patched(_metadata, self, 0, &v32, 4, "bad magic");
	v32 = 0xffffffff;
	wrong += patched(_metadata, self, 8, &v32, 4, "blob length out of range");
	v32 = 1000;
	wrong += patched(_metadata, self, 12, &v32, 4, "bad number of blob sections");
	for (i = 0; i < 4; i++) {	/* each section's offset and length out of range */
		v32 = 0x7ffffff8;
		wrong += patched(_metadata, self, 16 + 16 * i + 4, &v32, 4, "out of bounds");
		v32 = 0x7fffffff;
		wrong += patched(_metadata, self, 16 + 16 * i + 8, &v32, 4, "");
	}
	v32 = 0xfffffff;		/* instance counts and offsets */
	wrong += patched(_metadata, self, inst + 4, &v32, 4, "caller has no");
	wrong += patched(_metadata, self, inst + 8, &v32, 4, "outside its caller");
	v16 = 0xffff;
	wrong += patched(_metadata, self, inst + 12, &v16, 2, "truncated instance");
	v32 = 0x7fffffff;
	wrong += patched(_metadata, self, inst + 14, &v32, 4, "location offset out of range");
	for (i = 16; i < 256; i++) {	/* bad registers */
		op[0] = LOC_REGISTER;
		op[1] = (u8)i;
		wrong += patched(_metadata, self, loc, op, 2, "register out of range");
	}
	for (i = LOC_OP_MAX; i < 256; i++) {	/* unknown operators */
		op[0] = (u8)i;
		wrong += patched(_metadata, self, loc, op, 1, "bad or unterminated");
	}
	op[0] = LOC_DEREF;
	op[1] = 8;
	wrong += patched(_metadata, self, loc, op, 2, "underflow");
	op[0] = LOC_REGISTER;
	op[1] = 5;
	op[2] = LOC_DEREF;
	op[3] = 3;
	wrong += patched(_metadata, self, loc, op, 4, "bad dereference size");
	/* an expression running to the end of the blob: unterminated */
	{
		u8 *c = malloc(self->len);
		u32 at = (u32)(b.loc - self->blob), j;

		memcpy(c, self->blob, self->len);
		for (j = at + 1; j < at + b.loc_len; j++)
			c[j] = LOC_REGISTER;	/* REGISTER REGISTER(reg 9)... */
		wrong += expect_kernel_refuses(_metadata, c, (u32)self->len,
					       kernel_model(c, (u32)self->len), "unterminated");
		free(c);
	}
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(0, count_kprobes("tgt_"));
}

/* Commands that must fail, each with an error_log entry, leaving no probe. */
static const char *const malformed_cmds[] = {
	"p", "p:", "p:/", "p:grp/", "p:/ev tgt_mix", "p:grp/ev", "p:9bad tgt_mix",
	"p:grp/9bad tgt_mix", "p:a/b/c tgt_mix", "p:a-b tgt_mix", "x tgt_mix", "r tgt_mix",
	"r:ret tgt_mix", "-:", "-:nosuch", "-:grp/nosuch", "-:a b", "pp tgt_mix",
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
