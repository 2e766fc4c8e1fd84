// SPDX-License-Identifier: GPL-2.0
/*
 * The "blob" file: a blob written in pieces, raw or as one zstd frame
 * (blob_zstd.c), handed whole to the blob store (ink_blob_load()).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/zstd.h>

#include "blob_store.h"
#include "blob_upload.h"
#include "blob_zstd.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "../lib/blob.h"

/*
 * ---- "blob": written blobs, accumulated until blob_len bytes arrived ----
 *
 * The first bytes tell a raw blob from a zstd frame: a frame goes to
 * blob_zstd.c, which gives its content back once the frame is complete.
 * Bytes that can start neither, and every header field as soon as its
 * bytes arrive, are refused by the write() that brings them.  The buffer
 * grows with what arrives, never beyond the header's blob_len, which may
 * not exceed blob_max_kb.
 */

static unsigned int blob_max_kb = 32768;
module_param(blob_max_kb, uint, 0444);
MODULE_PARM_DESC(blob_max_kb, "largest blob accepted, in KB (raw, or a zstd frame's content)");

/* The largest blob accepted, in bytes. */
static size_t blob_max_len(void)
{
	return min_t(u64, (u64)blob_max_kb << 10, INKPROBE_BLOB_MAX_LEN);
}

#define ZSTD_MAGIC_LEN	4

struct blob_upload {
	struct mutex lock;	/* one write() or flush at a time: writers may share the file */
	struct inkprobe_blob_header hdr;
	u32 have;		/* bytes received (raw blob) */
	u8 *buf;		/* the raw blob so far, once its header is complete */
	size_t cap;		/* of buf */
	int status;		/* 1: loaded, <0: failed, 0: in progress */
	bool zstd;		/* a zstd frame: the bytes go to @z */
	struct ink_zstd_upload z;
};

/* @count more bytes of a zstd frame: 0 or -errno. */
static int blob_write_zstd(struct blob_upload *u, const char __user *ubuf, size_t count)
{
	void *blob;
	u32 len;
	int ret;

	ret = ink_zstd_write(&u->z, ubuf, count, &blob, &len);
	if (ret == -EFAULT)
		return ret;
	if (!ret && blob)
		ret = ink_blob_load(blob, len, "blob") ?: 1;
	if (ret)
		u->status = ret;
	return min(ret, 0);
}

static int blob_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	struct blob_upload *u;

	if (ret)
		return ret;
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	mutex_init(&u->lock);
	file->private_data = u;
	return 0;
}

/* Header bytes, up to the end of the next field: 0, or -errno with the reason logged. */
static int blob_header_bytes(struct blob_upload *u, const char __user *ubuf, size_t *n)
{
	static const u8 ends[] = { ZSTD_MAGIC_LEN, 6, 8, 12, 16 };
	const u32 zstd_magic = cpu_to_le32(ZSTD_MAGICNUMBER);
	struct ink_err err = { };
	unsigned int i;

	for (i = 0; ends[i] <= u->have; i++)
		;
	*n = min_t(size_t, *n, ends[i] - u->have);
	if (copy_from_user((u8 *)&u->hdr + u->have, ubuf, *n))
		return -EFAULT;
	u->have += *n;
	if (u->have <= ZSTD_MAGIC_LEN && !memcmp(&u->hdr, &zstd_magic, u->have))
		return 0;	/* a zstd frame, so far */
	if (ink_blob_check_prefix(&u->hdr, u->have, &err)) {
		ink_error_log("blob", 0, "invalid blob: %s at byte %u", err.msg, err.off);
		return -EINVAL;
	}
	if (u->have == sizeof(u->hdr) && u->hdr.blob_len > blob_max_len()) {
		ink_error_log("blob", 0,
			      "invalid blob: %u bytes, more than blob_max_kb=%u (module parameter)",
			      u->hdr.blob_len, blob_max_kb);
		return -EFBIG;
	}
	return 0;
}

static ssize_t blob_write_locked(struct blob_upload *u, const char __user *ubuf, size_t count)
{
	size_t done = 0, n;
	int ret;

	if (u->status)
		return u->status < 0 ? u->status : -EINVAL;	/* one blob per open */
	if (u->zstd) {
		ret = blob_write_zstd(u, ubuf, count);
		return ret ? ret : count;
	}
	while (done < count) {
		if (u->have < sizeof(u->hdr)) {
			n = count - done;
			ret = blob_header_bytes(u, ubuf + done, &n);
			if (ret)
				return ret == -EFAULT ? ret : (u->status = ret);
			done += n;
			if (u->have == ZSTD_MAGIC_LEN && ink_zstd_magic(&u->hdr)) {
				ink_zstd_begin(&u->z, &u->hdr, blob_max_len());
				u->zstd = true;
				ret = blob_write_zstd(u, ubuf + done, count - done);
				return ret ? ret : count;
			}
			if (u->have == sizeof(u->hdr)) {
				ret = ink_grow(&u->buf, &u->cap, 0, u->have, u->hdr.blob_len);
				if (ret)
					return u->status = ret;
				memcpy(u->buf, &u->hdr, sizeof(u->hdr));
			}
			continue;
		}
		n = min_t(size_t, count - done, u->hdr.blob_len - u->have);
		if (!n) {
			ink_error_log("blob", 0, "invalid blob: data after blob_len bytes");
			return u->status = -EINVAL;
		}
		ret = ink_grow(&u->buf, &u->cap, u->have, u->have + n, u->hdr.blob_len);
		if (ret)
			return u->status = ret;
		if (copy_from_user(u->buf + u->have, ubuf + done, n))
			return -EFAULT;
		u->have += n;
		done += n;
	}
	if (u->buf && u->have == u->hdr.blob_len) {
		ret = ink_blob_load(u->buf, u->have, "blob");
		u->buf = NULL;		/* owned by ink_blob_load() now */
		if (ret)
			return u->status = ret;
		u->status = 1;
	}
	return done;
}

static ssize_t blob_write(struct file *file, const char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct blob_upload *u = file->private_data;
	ssize_t ret;

	if (mutex_lock_interruptible(&u->lock))
		return -EINTR;
	ret = blob_write_locked(u, ubuf, count);
	mutex_unlock(&u->lock);
	return ret;
}

/* close(): a blob cut short is an error the writer sees. */
static int blob_flush(struct file *file, fl_owner_t id)
{
	struct blob_upload *u = file->private_data;
	int ret = 0;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	mutex_lock(&u->lock);
	if (u->status || !u->have) {
		/* loaded, refused already, or nothing written */
	} else if (u->zstd) {
		ret = u->status = ink_zstd_flush(&u->z);
	} else {
		ink_error_log("blob", 0, "invalid blob: truncated (%u of %u bytes)", u->have,
			      u->have < sizeof(u->hdr) ? (u32)sizeof(u->hdr) : u->hdr.blob_len);
		ret = u->status = -EINVAL;
	}
	mutex_unlock(&u->lock);
	return ret;
}

static int blob_release(struct inode *inode, struct file *file)
{
	struct blob_upload *u = file->private_data;

	kvfree(u->buf);
	if (u->zstd)
		ink_zstd_free(&u->z);
	mutex_destroy(&u->lock);
	kfree(u);
	return 0;
}

static const struct file_operations blob_fops = {
	.owner = THIS_MODULE,
	.open = blob_open,
	.write = blob_write,
	.flush = blob_flush,
	.release = blob_release,
};

void ink_blob_upload_init(struct dentry *dir)
{
	/*
	 * _unsafe: debugfs then installs blob_fops itself at open, so .flush
	 * runs and close() reports a blob cut short.  The file goes only at
	 * module exit, and an open file pins the module.
	 */
	debugfs_create_file_unsafe("blob", 0200, dir, NULL, &blob_fops);
}
