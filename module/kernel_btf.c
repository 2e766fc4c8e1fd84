// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's BTF.  Modules cannot reach the kernel's struct btf,
 * so inkprobe reads /sys/kernel/btf/vmlinux once, checks it with the shared
 * reader and keeps it: every blob's BTF is split on it.
 */
#include <linux/crc32.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "debugfs_files.h"
#include "error_log.h"
#include "kernel_btf.h"
#include "../lib/blob_open.h"
#include "../lib/btf_lite.h"

#define SYSFS_BTF_MAX	(64U << 20)

static struct {
	void *data;
	size_t len;
	u32 crc;
	struct ink_btf btf;
	bool loaded;
} vml;

static u32 crc32_ieee(const void *p, size_t len)
{
	return ~crc32_le(~0U, p, len);
}

/*
 * Reads a whole sysfs file into a vmalloc'd buffer.  Plain file reads, not
 * kernel_read_file(): that one is for firmware and modules, and LSMs such
 * as IPE object to other uses.
 */
ssize_t ink_read_sysfs(const char *path, size_t max, void **buf)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t size, pos = 0;
	ssize_t n = 0;

	*buf = NULL;
	if (IS_ERR(f))
		return PTR_ERR(f);
	size = i_size_read(file_inode(f));
	if (size <= 0 || size > max) {
		n = -EFBIG;
		goto out;
	}
	/* the caller reports -ENOMEM where it arrives (error_log) */
	*buf = __vmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!*buf) {
		n = -ENOMEM;
		goto out;
	}
	while (pos < size) {
		n = kernel_read(f, *buf + pos, size - pos, &pos);
		if (n <= 0)
			break;
	}
	if (n < 0 || pos != size) {
		vfree(*buf);
		*buf = NULL;
		n = n < 0 ? n : -EIO;
		goto out;
	}
	n = size;
out:
	filp_close(f, NULL);
	return n;
}

/* Reads /sys/kernel/btf/<name> into a vmalloc'd buffer. */
static ssize_t read_sysfs_btf(const char *name, void **buf)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", name);
	return ink_read_sysfs(path, SYSFS_BTF_MAX, buf);
}

const struct ink_btf *ink_vmlinux_btf(u32 *len, u32 *crc)
{
	struct ink_err err = { };
	void *buf;
	ssize_t n;
	int ret;

	lockdep_assert_held(&ink_mutex);
	if (!vml.loaded) {
		n = read_sysfs_btf("vmlinux", &buf);
		if (n < 0) {
			ink_error_log(NULL, 0, "cannot read /sys/kernel/btf/vmlinux (%zd)", n);
			return ERR_PTR(n);
		}
		ret = ink_btf_load(&vml.btf, buf, (u32)n, NULL, &err);
		if (ret) {
			ink_error_log(NULL, 0, "kernel BTF: %s at %u", err.msg, err.off);
			vfree(buf);
			return ERR_PTR(ret);
		}
		vml.data = buf;
		vml.len = n;
		vml.crc = crc32_ieee(buf, n);
		vml.loaded = true;
	}
	*len = vml.len;
	*crc = vml.crc;
	return &vml.btf;
}

int ink_sysfs_btf_crc(const char *name, u32 *len, u32 *crc)
{
	void *buf;
	ssize_t n = read_sysfs_btf(name, &buf);

	if (n < 0)
		return n;
	*len = n;
	*crc = crc32_ieee(buf, n);
	vfree(buf);
	return 0;
}

void ink_kernel_btf_exit(void)
{
	if (!vml.loaded)
		return;
	ink_btf_unload(&vml.btf);
	vfree(vml.data);
	memset(&vml, 0, sizeof(vml));
}
