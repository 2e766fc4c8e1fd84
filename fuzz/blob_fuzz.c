// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the shared validator (lib/blob.c, lib/btf_lite.c)
 * through the one open (lib/blob_open.c): ink_blob_parse(), then the blob's
 * split BTF opened on a real vmlinux BTF and ink_blob_check_btf(); on an
 * accepted blob, every accessor a consumer
 * uses (instances, ranges, location operators, symbols) runs over it, so
 * ASan and UBSan see any read the validator lets through.
 *
 * The base BTF is the first test kernel's vmlinux BTF (INKPROBE_FUZZ_BTF
 * overrides), loaded once; the seeds are blobs gen wrote (make fuzz).
 */
#include <bpf/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/blob.h"
#include "../lib/blob_open.h"
#include "../lib/btf_lite.h"

static struct ink_btf base;
static bool have_base;
volatile uint64_t blob_fuzz_sink;	/* keeps walk() from being optimized away */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("INKPROBE_FUZZ_BTF");
	struct ink_err err = { 0 };
	struct btf *btf;
	const void *raw;
	uint32_t len;
	void *copy;

	if (!path) {
		fprintf(stderr, "blob_fuzz: set INKPROBE_FUZZ_BTF to a vmlinux (BTF)\n");
		exit(2);
	}
	btf = btf__parse(path, NULL);
	raw = btf ? btf__raw_data(btf, &len) : NULL;
	if (!raw) {
		fprintf(stderr, "blob_fuzz: no BTF in %s\n", path);
		exit(2);
	}
	copy = malloc(len);
	memcpy(copy, raw, len);
	btf__free(btf);
	if (ink_btf_load(&base, copy, len, NULL, &err)) {
		fprintf(stderr, "blob_fuzz: base BTF refused: %s\n", err.msg);
		exit(2);
	}
	have_base = true;
	return 0;
}

/* What a consumer does with an accepted blob. */
static uint64_t walk(const struct ink_blob *b, const struct ink_btf *btf)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < b->nr_syms; i++)
		sum += ink_symbol_size(&b->syms[i]) + ink_symbol_dup(&b->syms[i]) +
		       strlen(ink_btf_name(btf, b->syms[i].btf_id));
	ink_instance_iter_init(&it, b);
	while (ink_instance_next(&it, &in)) {
		const struct btf_type *proto = ink_btf_func_proto(btf, in.callee_id);
		const struct btf_param *params = ink_btf_params(proto);
		struct ink_range_iter r;
		struct ink_exit_iter x;
		s32 start;
		u32 len;
		u8 kind;

		ink_range_iter_init(&r, &in);
		while (ink_range_next(&r, &start, &len))
			sum += (u32)start + len;
		ink_exit_iter_init(&x, &in);
		while (ink_exit_next(&x, &start, &kind))
			sum += (u32)start + kind;
		for (i = 0; i < in.nr_parms; i++) {
			const u8 *e = b->loc + ink_instance_parm(&in, i);
			struct ink_loc_op op;
			u32 n;
			struct ink_scalar sc;

			ink_btf_scalar(btf, params[i].type, &sc);
			sum += sc.size + ink_parm_ambiguous(&in, i);
			while ((n = ink_loc_decode(e, (u32)(b->loc + b->loc_len - e), &op)) &&
			       op.op != LOC_END_OF_EXPR) {
				sum += op.op + op.reg + op.size + (u64)op.val;
				e += n;
			}
		}
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ink_open_env env = { .base = &base };
	struct ink_err err = { 0 };
	struct ink_blob b;
	struct ink_btf split;
	void *blob;

	if (!have_base || size > INKPROBE_BLOB_MAX_LEN)
		return 0;
	/* an exact-size copy, as the open makes of the BTF: ASan sees reads past the end */
	blob = malloc(size ? size : 1);
	memcpy(blob, data, size);
	if (!ink_blob_open(&b, &split, blob, (uint32_t)size, &env, &err)) {
		blob_fuzz_sink += walk(&b, &split);
		ink_blob_close(&split);
	}
	free(blob);
	return 0;
}
