// SPDX-License-Identifier: GPL-2.0
/*
 * The shared validator's cost, for callgrind (make bench): what
 * inkprobe.ko runs on a blob written to debugfs, in the same phases.
 *
 *   valgrind --tool=callgrind --instr-atstart=no validate_cost VMLINUX BLOB...
 *
 * VMLINUX is an ELF holding the kernel's .BTF (or raw BTF).  A compressed
 * BLOB is decompressed first, outside the phases: they measure the
 * validator on the raw blob, as the module runs it.  Only the phases are
 * instrumented; each ends with a callgrind dump named
 * "<phase> <blob>":
 *
 *   base    ink_btf_open + ink_btf_index of the vmlinux BTF (the module
 *           does this once, on the first blob)
 *   parse   ink_blob_parse: header, sections, every instance, location
 *           expression and range
 *   btf     ink_btf_open + ink_btf_index of the blob's split BTF
 *   check   ink_blob_check_btf: every BTF id the blob uses
 *
 * It also prints "BLOB instances=N symbols=N accepted=yes|no" per blob.
 */
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "../lib/blob.h"
#include "../lib/btf_lite.h"
#include "../user/common/blob_file.h"

static void phase_start(void)
{
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_ZERO_STATS;
}

static void phase_end(const char *phase, const char *what)
{
	char name[512];

	snprintf(name, sizeof(name), "%s %s", phase, what);
	CALLGRIND_DUMP_STATS_AT(name);
	CALLGRIND_STOP_INSTRUMENTATION;
}

int main(int argc, char **argv)
{
	struct ink_err err = { 0 };
	struct ink_btf base;
	struct btf *btf;
	const void *raw;
	u32 len, *offs;
	void *copy;
	int i, ret;

	if (argc < 3) {
		fprintf(stderr, "usage: validate_cost VMLINUX BLOB...\n");
		return 2;
	}
	btf = btf__parse(argv[1], NULL);
	raw = btf ? btf__raw_data(btf, &len) : NULL;
	if (!raw) {
		fprintf(stderr, "validate_cost: no BTF in %s\n", argv[1]);
		return 1;
	}
	copy = malloc(len);
	memcpy(copy, raw, len);
	btf__free(btf);
	offs = NULL;
	phase_start();
	ret = ink_btf_open(&base, copy, len, NULL, &err);
	if (!ret) {
		offs = calloc(base.nr_types + 1, sizeof(u32));
		ret = ink_btf_index(&base, offs, &err);
	}
	phase_end("base", "vmlinux");
	if (ret) {
		fprintf(stderr, "validate_cost: vmlinux BTF refused: %s\n", err.msg);
		return 1;
	}

	for (i = 2; i < argc; i++) {
		struct ink_blob b;
		struct ink_btf split;
		void *data, *btf_copy;
		u32 blen;

		data = read_blob(argv[i], &blen);	/* exits on failure */
		phase_start();
		ret = ink_blob_parse(&b, data, blen, &err);
		phase_end("parse", argv[i]);
		if (ret) {
			printf("%s instances=0 symbols=0 accepted=no (%s)\n", argv[i], err.msg);
			free(data);
			continue;
		}
		/* the module keeps the blob 8-aligned; the BTF reader wants 4 */
		btf_copy = malloc(b.btf_len ? b.btf_len : 1);
		memcpy(btf_copy, b.btf, b.btf_len);
		offs = NULL;
		phase_start();
		ret = ink_btf_open(&split, btf_copy, b.btf_len, &base, &err);
		if (!ret) {
			offs = calloc(split.nr_types + 1, sizeof(u32));
			ret = ink_btf_index(&split, offs, &err);
		}
		phase_end("btf", argv[i]);
		if (!ret) {
			phase_start();
			ret = ink_blob_check_btf(&b, &split, &err);
			phase_end("check", argv[i]);
		}
		printf("%s instances=%u symbols=%u accepted=%s%s%s%s\n", argv[i],
		       b.nr_instances, b.nr_syms, ret ? "no" : "yes",
		       ret ? " (" : "", ret ? err.msg : "", ret ? ")" : "");
		free(offs);
		free(btf_copy);
		free(data);
	}
	return 0;
}
