// SPDX-License-Identifier: GPL-2.0
/*
 * Is a blob the running build's?  Its target's GNU build ID must be the
 * running kernel's (/sys/kernel/notes) or, for a module, the one in the
 * NT_GNU_BUILD_ID note in the module's memory.
 */
#include <linux/elf.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "build_id.h"
#include "error_log.h"
#include "kallsyms.h"
#include "kernel_btf.h"
#include "../uapi/inkprobe.h"

#define NT_GNU_BUILD_ID	3	/* the kernel's headers do not name it */

/* Finds NT_GNU_BUILD_ID with @id in a buffer of ELF notes. */
static bool notes_have_build_id(const void *notes, size_t len, const u8 *id, u32 id_len)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= len) {
		const Elf64_Nhdr *n = notes + off;
		size_t name_sz = ALIGN(n->n_namesz, 4), desc_sz = ALIGN(n->n_descsz, 4);
		size_t next = off + sizeof(*n) + name_sz + desc_sz;

		if (next > len || next < off)
			return false;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && n->n_descsz == id_len &&
		    !memcmp((const char *)(n + 1), "GNU", 4) &&
		    !memcmp((const char *)(n + 1) + name_sz, id, id_len))
			return true;
		off = next;
	}
	return false;
}

int ink_vmlinux_build_id_check(const struct inkprobe_target *tgt)
{
	void *buf;
	ssize_t n;
	bool ok;

	n = ink_read_sysfs("/sys/kernel/notes", 1 << 16, &buf);
	if (n < 0) {
		ink_error_log(NULL, 0, "cannot read /sys/kernel/notes (%zd)", n);
		return n;
	}
	ok = notes_have_build_id(buf, n, tgt->build_id, tgt->build_id_len);
	vfree(buf);
	return ok ? 0 : -ENOEXEC;
}

/*
 * The module's NT_GNU_BUILD_ID note is in its read-only data.  The scan
 * reads that memory as bytes, not as the module's objects: under KASAN
 * the gaps between its globals are red zones, and memcmp() there is a
 * global-out-of-bounds report.  It is copied a window at a time with
 * copy_from_kernel_nofault(), which is not instrumented, and searched there.
 */
#define SCAN_STEP	256

int ink_module_build_id_check(struct module *mod, const struct inkprobe_target *tgt)
{
	u8 pattern[12 + 4 + INKPROBE_BUILD_ID_MAX], win[SCAN_STEP + sizeof(pattern)];
	u32 plen = 16 + tgt->build_id_len;
	size_t size, off, n, i;
	const u8 *base;
	Elf64_Nhdr nh = {
		.n_namesz = 4, .n_descsz = tgt->build_id_len, .n_type = NT_GNU_BUILD_ID,
	};

	ink_module_mem(mod, INK_MOD_RODATA, &base, &size);

	memcpy(pattern, &nh, sizeof(nh));
	memcpy(pattern + 12, "GNU", 4);
	memcpy(pattern + 16, tgt->build_id, tgt->build_id_len);
	if (!base || size < plen)
		return -ENOEXEC;
	/* notes are 4-byte aligned; a window holds every match starting in its step */
	for (off = 0; off + plen <= size; off += SCAN_STEP) {
		n = min(size - off, sizeof(win));
		if (copy_from_kernel_nofault(win, base + off, n))
			continue;
		for (i = 0; i < SCAN_STEP && i + plen <= n; i += 4)
			if (!memcmp(win + i, pattern, plen))
				return 0;
	}
	return -ENOEXEC;
}
