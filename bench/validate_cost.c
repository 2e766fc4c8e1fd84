// SPDX-License-Identifier: GPL-2.0
/*
 * The shared validator's cost, for callgrind (make bench): what
 * inkprobe.ko runs on a blob written to debugfs, ink_blob_open(), in the
 * same phases (its phase hook).
 *
 *   valgrind --tool=callgrind --instr-atstart=no validate_cost VMLINUX BLOB...
 *
 * VMLINUX is an ELF holding the kernel's .BTF (or raw BTF).  A compressed
 * BLOB is decompressed first, outside the phases: they measure the
 * validator on the raw blob, as the module runs it.  Only the phases are
 * instrumented; each ends with a callgrind dump named
 * "<phase> <blob>":
 *
 *   base    ink_btf_load: open + index of the vmlinux BTF (the module
 *           does this once, on the first blob)
 *   parse   ink_blob_parse: header, sections, every instance, location
 *           expression and range
 *   btf     ink_btf_load of the blob's split BTF
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
#include "../lib/blob_open.h"
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

/* ink_blob_open()'s phase hook: @arg is the blob's name. */
static void blob_phase(void *arg, enum ink_open_phase phase, bool done)
{
	static const char *const names[] = {
		[INK_OPEN_PARSE] = "parse", [INK_OPEN_BTF] = "btf", [INK_OPEN_CHECK] = "check",
	};

	if (!done)
		phase_start();
	else
		phase_end(names[phase], arg);
}

int main(int argc, char **argv)
{
	struct ink_err err = { 0 };
	struct ink_btf base;
	struct btf *btf;
	const void *raw;
	u32 len;
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
	phase_start();
	ret = ink_btf_load(&base, copy, len, NULL, &err);
	phase_end("base", "vmlinux");
	if (ret) {
		fprintf(stderr, "validate_cost: vmlinux BTF refused: %s\n", err.msg);
		return 1;
	}

	for (i = 2; i < argc; i++) {
		struct ink_open_env env = { .base = &base, .phase = blob_phase, .arg = argv[i] };
		struct ink_blob b;
		struct ink_btf split;
		void *data;
		u32 blen;

		data = read_blob(argv[i], &blen);	/* exits on failure */
		ret = ink_blob_open(&b, &split, data, blen, &env, &err);
		if (ret && err.phase == INK_OPEN_PARSE)
			printf("%s instances=0 symbols=0 accepted=no (%s)\n", argv[i], err.msg);
		else
			printf("%s instances=%u symbols=%u accepted=%s%s%s%s\n", argv[i],
			       b.nr_instances, b.nr_syms, ret ? "no" : "yes",
			       ret ? " (" : "", ret ? err.msg : "", ret ? ")" : "");
		if (!ret)
			ink_blob_close(&split);
		free(data);
	}
	return 0;
}
