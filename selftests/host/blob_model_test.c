// SPDX-License-Identifier: GPL-2.0
/*
 * The shared validator (lib/blob.c, lib/btf_lite.c) against the independent
 * model the guest tests take as their oracle (selftests/guest/blob_model.c,
 * written from Documentation/blob-format.rst alone): on the target's raw
 * blob, every truncation with a header that claims it, and every single-bit
 * flip of every byte, must get the same verdict -- the same message at the
 * same byte, as inkprobe.ko would log it -- from both.  A disagreement is a
 * bug of one of them, or a rule the document does not state.
 */
#include "kselftest_harness.h"
#include "host_test.h"
#include "../guest/blob_model.h"
#include "../guest/blob_model.c"
#include "exits_craft.h"

FIXTURE(model) {
	uint8_t *data;
	uint32_t len;
	struct ink_btf vmlinux;
	struct model_base base;
};

FIXTURE_SETUP(model)
{
	const struct ink_btf *v = &self->vmlinux;
	struct model_layout l;

	self->data = host_target_blob(&self->len);
	ASSERT_EQ(0, host_vmlinux_btf(&self->vmlinux));
	/* the model reads the same vmlinux BTF bytes */
	ASSERT_EQ(0, model_base_open(&self->base, v->types - 24,
				     24 + v->types_len + v->strs_len));
	ASSERT_EQ(0, model_layout(self->data, self->len, &l));
	/* the blob is for this BTF: take the identity it says as the kernel's */
	self->base.len = ink_get32(self->data + l.target + 88);
	self->base.crc = ink_get32(self->data + l.target + 92);
}

FIXTURE_TEARDOWN(model)
{
	free(self->data);
}

struct validator_ctx {
	const struct ink_btf *vmlinux;
	const struct model_base *base;
	char *msg;
	size_t size;
};

/* As module/blob_store.c's: the blob must be for the kernel whose BTF @base is. */
static int validator_target_btf(void *arg, const struct ink_blob *b, const struct ink_btf **base,
				struct ink_err *err)
{
	struct validator_ctx *ctx = arg;

	if (b->target->vmlinux_btf_len != ctx->base->len ||
	    b->target->vmlinux_btf_crc != ctx->base->crc) {
		snprintf(ctx->msg, ctx->size,
			 "blob for %s was generated for another kernel build (its vmlinux BTF differs from the running kernel's)",
			 b->target->name);
		return -ENOEXEC;
	}
	*base = ctx->vmlinux;
	return 0;
}

/*
 * What inkprobe.ko logs for a raw blob its header frames (blob_len == len),
 * as module/blob_store.c's blob_load() does it with the shared validator:
 * structure, its vmlinux BTF identity, then the types.
 */
static const char *validator(const uint8_t *data, uint32_t len, const struct ink_btf *vmlinux,
			     const struct model_base *base)
{
	static char msg[512];
	struct validator_ctx ctx = { vmlinux, base, msg, sizeof(msg) };
	const struct ink_open_env env = { .target_btf = validator_target_btf, .arg = &ctx };
	struct ink_err err = { 0 };
	struct ink_blob b;
	struct ink_btf split;
	uint8_t *copy = malloc(len ? len : 1);

	msg[0] = '\0';
	memcpy(copy, data, len);
	if (!ink_blob_open(&b, &split, copy, len, &env, &err))
		ink_blob_close(&split);
	else if (err.phase == INK_OPEN_PARSE)
		snprintf(msg, sizeof(msg), "invalid blob: %s at byte %u", err.msg, err.off);
	else if (err.phase != INK_OPEN_TARGET)
		snprintf(msg, sizeof(msg), "invalid blob BTF: %s at byte %u", err.msg, err.off);
	free(copy);
	return msg;
}

/* 1 (and a log line, for the first few) when the two disagree on @c. */
static int differ(struct __test_metadata *_metadata, FIXTURE_DATA(model) *self,
		  const uint8_t *c, uint32_t len, const char *what, unsigned int *refused)
{
	static unsigned int logged;
	char lib[512];
	const char *model;

	snprintf(lib, sizeof(lib), "%s", validator(c, len, &self->vmlinux, &self->base));
	model = model_verdict(c, len, &self->base);
	*refused += *lib != '\0';
	if (!strcmp(lib, model))
		return 0;
	if (logged++ < 30)
		TH_LOG("%s: validator '%s', model '%s'", what, lib, model);
	return 1;
}

TEST_F(model, same_verdict_on_the_blob)
{
	unsigned int refused = 0;

	EXPECT_EQ(0, differ(_metadata, self, self->data, self->len, "the blob", &refused));
	EXPECT_EQ(0, refused);
}

TEST_F(model, same_verdict_on_every_truncation)
{
	unsigned int wrong = 0, refused = 0;
	uint32_t n;
	char what[64];

	for (n = 16; n < self->len; n++) {
		uint8_t *c = malloc(n);

		memcpy(c, self->data, n);
		memcpy(c + 8, &n, 4);		/* blob_len: the cut */
		snprintf(what, sizeof(what), "cut to %u bytes", n);
		wrong += differ(_metadata, self, c, n, what, &refused);
		free(c);
	}
	TH_LOG("%u truncations, %u refused", self->len - 16, refused);
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(self->len - 16, refused);
}

TEST_F_TIMEOUT(model, same_verdict_on_every_bit_flip, 300)
{
	unsigned int wrong = 0, refused = 0, total = 0;
	uint8_t *c = malloc(self->len);
	uint32_t byte;
	char what[64];
	int bit;

	memcpy(c, self->data, self->len);
	for (byte = 0; byte < self->len; byte++) {
		for (bit = 0; bit < 8; bit++, total++) {
			c[byte] ^= (uint8_t)(1 << bit);
			snprintf(what, sizeof(what), "byte %u bit %d", byte, bit);
			wrong += differ(_metadata, self, c, self->len, what, &refused);
			c[byte] ^= (uint8_t)(1 << bit);
		}
	}
	free(c);
	TH_LOG("%u flips: %u refused, %u disagreements", total, refused, wrong);
	EXPECT_EQ(0, wrong);
}

/* Each crafted EXITS fault: the same verdict from both, and the one expected. */
TEST_F(model, same_verdict_on_exits_faults)
{
	struct exits_craft c[EXITS_CRAFT_MAX];
	unsigned int wrong = 0, refused = 0;
	struct ink_blob b;
	struct ink_err err = { 0 };
	char want[256];
	int n, i;

	ASSERT_EQ(0, ink_blob_parse(&b, self->data, self->len, &err));
	n = exits_crafts(&b, c);
	ASSERT_EQ(EXITS_CRAFTS, n);
	for (i = 0; i < n; i++) {
		uint8_t *copy = malloc(self->len);

		memcpy(copy, self->data, self->len);
		memcpy(copy + c[i].at, c[i].bytes, c[i].len);
		memcpy(copy + c[i].at2, c[i].bytes2, c[i].len2);
		wrong += differ(_metadata, self, copy, self->len, c[i].what, &refused);
		if (c[i].msg)
			snprintf(want, sizeof(want), "invalid blob: %s at byte %u", c[i].msg,
				 c[i].msg_at);
		else	/* accepted: an exit outside the caller, in its own range */
			want[0] = '\0';
		EXPECT_STREQ(want, model_verdict(copy, self->len, &self->base));
		free(copy);
	}
	EXPECT_EQ(0, wrong);
	/* all but the one accepted */
	EXPECT_EQ((unsigned int)n - 1, refused);
}

/* Each crafted NO_PROBE fault: the same verdict from both, and the one expected. */
TEST_F(model, same_verdict_on_no_probe_faults)
{
	struct exits_craft c[NO_PROBE_CRAFTS];
	unsigned int wrong = 0, refused = 0;
	struct ink_blob b;
	struct ink_err err = { 0 };
	char want[256];
	int n, i;

	ASSERT_EQ(0, ink_blob_parse(&b, self->data, self->len, &err));
	n = no_probe_crafts(&b, c);
	ASSERT_EQ(NO_PROBE_CRAFTS, n);
	for (i = 0; i < n; i++) {
		uint8_t *copy = malloc(self->len);

		memcpy(copy, self->data, self->len);
		memcpy(copy + c[i].at, c[i].bytes, c[i].len);
		wrong += differ(_metadata, self, copy, self->len, c[i].what, &refused);
		snprintf(want, sizeof(want), "invalid blob%s: %s at byte %u", c[i].btf ? " BTF" : "",
			 c[i].msg, c[i].msg_at);
		EXPECT_STREQ(want, model_verdict(copy, self->len, &self->base));
		free(copy);
	}
	EXPECT_EQ(0, wrong);
	EXPECT_EQ((unsigned int)n, refused);
}

TEST_HARNESS_MAIN
