// SPDX-License-Identifier: GPL-2.0
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "blob_file.h"
#include "blob_zstd.h"
#include "elf_file.h"
#include "util.h"

uint8_t *read_file(const char *path, uint32_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = { 0 };
	uint8_t chunk[65536];
	size_t n;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf_add(&b, chunk, n);
		if (b.len > INKPROBE_BLOB_MAX_LEN)
			die("%s: larger than %u bytes", path, INKPROBE_BLOB_MAX_LEN);
	}
	if (ferror(f))
		die("%s: read error", path);
	fclose(f);
	*len = (uint32_t)b.len;
	return b.data ? b.data : xcalloc(1, 1);
}

uint8_t *read_blob(const char *path, uint32_t *len)
{
	uint8_t *data = read_file(path, len), *raw;
	char why[160];

	if (!blob_is_zstd(data, *len))
		return data;
	raw = blob_zstd_decompress(data, *len, len, why, sizeof(why));
	if (!raw)
		die("%s: invalid blob: %s", path, why);
	free(data);
	return raw;
}

int blob_peek(const uint8_t *data, uint32_t len, struct blob_target *t, char *why,
	      size_t why_len, struct ink_err *err)
{
	uint8_t *frame = NULL;
	struct ink_blob b;
	int ret = 0;

	if (blob_is_zstd(data, len)) {
		frame = blob_zstd_decompress(data, len, &len, why, why_len);
		if (!frame)
			return BLOB_PEEK_BAD_FRAME;
		data = frame;
	}
	if (ink_blob_parse(&b, data, len, err)) {
		ret = BLOB_PEEK_BAD_BLOB;
	} else {
		memcpy(t->name, b.target->name, sizeof(t->name));
		t->name[sizeof(t->name) - 1] = '\0';
		t->id.len = b.target->build_id_len;
		memcpy(t->id.id, b.target->build_id, t->id.len);
	}
	free(frame);
	return ret;
}

/* Raw BTF bytes from an ELF file's .BTF or a raw BTF file (libbpf). */
static void *load_raw_btf(const char *path, struct btf *base, uint32_t *len,
			  struct btf **out)
{
	struct btf *btf;
	const void *raw;
	void *copy;

	btf_file_check(path, base ? "the module BTF" : "the vmlinux BTF");
	btf = base ? btf__parse_split(path, base) : btf__parse(path, NULL);
	if (!btf)
		die("%s: no BTF: %s", path, strerror(errno));
	raw = btf__raw_data(btf, len);
	if (!raw)
		die("%s: cannot read BTF", path);
	copy = xmalloc(*len);
	memcpy(copy, raw, *len);
	*out = btf;
	return copy;
}

static void check_crc(const void *raw, uint32_t len, uint32_t want_len, uint32_t want_crc,
		      const char *what)
{
	if (len != want_len || (uint32_t)crc32(0, raw, len) != want_crc)
		die("%s is not the BTF this blob was generated against "
		    "(another kernel or module build?)", what);
}

struct btf_files {
	struct blob_file *bf;
	const char *vmlinux_btf, *module_btf;
};

/* The vmlinux BTF of the parsed blob's target, and for a module its BTF's identity. */
static int target_btf(void *arg, const struct ink_blob *b, const struct ink_btf **base,
		      struct ink_err *err)
{
	struct btf_files *files = arg;
	const struct inkprobe_target *t = b->target;
	const char *vmlinux_btf = files->vmlinux_btf, *module_btf = files->module_btf;
	struct btf *vml = NULL, *mod = NULL;
	char sysfs[128];
	uint32_t len;
	void *raw;

	if (!vmlinux_btf)
		vmlinux_btf = "/sys/kernel/btf/vmlinux";
	raw = load_raw_btf(vmlinux_btf, NULL, &len, &vml);
	check_crc(raw, len, t->vmlinux_btf_len, t->vmlinux_btf_crc, vmlinux_btf);
	if (ink_btf_load(&files->bf->vmlinux, raw, len, NULL, err))
		die("%s: bad BTF: %s at byte %u", vmlinux_btf, err->msg, err->off);
	files->bf->vmlinux_raw = raw;
	/* a module's blob carries the module's BTF; check it is that build's */
	if (strcmp(t->name, "vmlinux")) {
		if (!module_btf) {
			snprintf(sysfs, sizeof(sysfs), "/sys/kernel/btf/%s", t->name);
			module_btf = sysfs;
		}
		raw = load_raw_btf(module_btf, vml, &len, &mod);
		check_crc(raw, len, t->btf_len, t->btf_crc, module_btf);
		free(raw);
	}
	btf__free(mod);
	btf__free(vml);
	*base = &files->bf->vmlinux;
	return 0;
}

void blob_file_open(struct blob_file *bf, const char *path, const char *vmlinux_btf,
		    const char *module_btf)
{
	uint32_t len;
	uint8_t *data = read_blob(path, &len);

	blob_file_open_data(bf, data, len, path, vmlinux_btf, module_btf);
}

void blob_file_open_data(struct blob_file *bf, uint8_t *data, uint32_t len, const char *path,
			 const char *vmlinux_btf, const char *module_btf)
{
	struct btf_files files = { bf, vmlinux_btf, module_btf };
	const struct ink_open_env env = { .target_btf = target_btf, .arg = &files };
	struct ink_err err = { 0 };

	memset(bf, 0, sizeof(*bf));
	bf->data = data;
	bf->len = len;
	if (ink_blob_open(&bf->blob, &bf->btf, bf->data, bf->len, &env, &err)) {
		if (err.phase == INK_OPEN_BTF)
			die("blob: bad BTF: %s at byte %u", err.msg, err.off);
		die("%s: invalid blob: %s at byte %u", path, err.msg, err.off);
	}
}

void blob_file_close(struct blob_file *bf)
{
	ink_blob_close(&bf->btf);
	ink_btf_unload(&bf->vmlinux);
	free(bf->vmlinux_raw);
	free(bf->data);
	memset(bf, 0, sizeof(*bf));
}
