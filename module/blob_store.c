// SPDX-License-Identifier: GPL-2.0
/*
 * Blobs: one per target ("vmlinux" or a module name).
 *
 * A blob written to "blob" is accepted only when
 *   - the shared validator accepts its structure and its BTF (split on the
 *     running kernel's BTF, whose CRC must be the one the blob names),
 *   - its build ID is the running target's (vmlinux: /sys/kernel/notes;
 *     module: the NT_GNU_BUILD_ID note in the module's memory),
 *   - every symbol it names is where kallsyms says, with that size.
 * Addresses are relocated here: vmlinux symbols by the KASLR slide measured
 * on INKPROBE_VMLINUX_ANCHOR, module symbols from the module's own symbol
 * table.  A module's blob waits until the module loads, and its probes
 * leave and return with the module (module notifier).
 */
#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "blob_store.h"
#include "build_id.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "inline_map.h"
#include "kallsyms.h"
#include "kernel_btf.h"
#include "name_index.h"
#include "../lib/blob_open.h"

LIST_HEAD(ink_targets);
static const struct ink_target_ops *target_ops;	/* ink_mutex */

void ink_target_ops_register(const struct ink_target_ops *ops)
{
	mutex_lock(&ink_mutex);
	target_ops = ops;
	mutex_unlock(&ink_mutex);
}

/* What uses @t, for an error message: "" when nothing registered says. */
static void target_users(const struct ink_target *t, char *buf, size_t n)
{
	buf[0] = '\0';
	if (target_ops)
		target_ops->users(t, buf, n);
}

struct ink_target *ink_target_find(const char *name)
{
	struct ink_target *t;

	list_for_each_entry(t, &ink_targets, list)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

static void target_free(struct ink_target *t)
{
	if (!t)
		return;
	ink_inline_map_free(t);
	ink_name_index_free(t);
	ink_blob_close(&t->btf);
	kvfree(t->sym_addr);
	kvfree(t->data);
	kfree(t);
}

/*
 * vmlinux: symbols are checked by address, one group of aliases at a time
 * (Documentation/blob-format.rst, SYMBOLS).  kallsyms names one symbol per
 * address: a symbol resolves when kallsyms has a symbol starting at its
 * address, at least as long, named like any SYMBOLS entry at that address.
 */
struct sym_order {
	s32 addr;
	u32 index;
};

static int sym_order_cmp(const void *a, const void *b)
{
	const struct sym_order *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int resolve_vmlinux(struct ink_target *t)
{
	const struct ink_blob *b = &t->blob;
	char name[KSYM_NAME_LEN], mod[MODULE_NAME_LEN];
	unsigned long off, ksize, addr;
	struct sym_order *order;
	u32 i, j, k;
	bool named;

	order = kvmalloc_array(max(b->nr_syms, 1U), sizeof(*order), GFP_KERNEL);
	if (!order)
		return -ENOMEM;
	for (i = 0; i < b->nr_syms; i++)
		order[i] = (struct sym_order){ b->syms[i].addr, i };
	sort(order, b->nr_syms, sizeof(*order), sym_order_cmp, NULL);
	for (i = 0; i < b->nr_syms; i = j) {
		for (j = i + 1; j < b->nr_syms && order[j].addr == order[i].addr; j++)
			;
		/* addr is relative to the anchor's link address */
		addr = (unsigned long)&sprint_symbol + order[i].addr;
		named = ink_kallsyms_at(addr, name, &off, &ksize, mod) && !off && !*mod;
		for (k = i; named && k < j; k++)
			if (!strcmp(name, ink_btf_name(&t->btf, b->syms[order[k].index].btf_id)))
				break;
		named = named && k < j;
		for (k = i; k < j; k++) {
			const struct inkprobe_symbol *s = &b->syms[order[k].index];

			if (named && ksize >= ink_symbol_size(s))
				t->sym_addr[order[k].index] = addr;
			else
				t->nr_unresolved++;
		}
	}
	kvfree(order);
	return 0;
}

/*
 * A module: the dup_index-th symbol of its name in the module's own symbol
 * table, which lists every name at an address; kallsyms must have a symbol
 * starting there, in this module, at least as long, under any of them.
 */
static int resolve_module(struct ink_target *t, struct module *mod)
{
	char name[KSYM_NAME_LEN], kmod[MODULE_NAME_LEN];
	const struct ink_blob *b = &t->blob;
	unsigned long addr, off, ksize;
	u32 i;

	t->nr_unresolved = 0;
	for (i = 0; i < b->nr_syms; i++) {
		const char *want = ink_btf_name(&t->btf, b->syms[i].btf_id);

		addr = ink_module_symbol(mod, want, ink_symbol_dup(&b->syms[i]));
		if (addr && ink_kallsyms_at(addr, name, &off, &ksize, kmod) && !off &&
		    !strcmp(kmod, mod->name) && ksize >= ink_symbol_size(&b->syms[i]) &&
		    ink_module_symbol_at(mod, name, addr))
			t->sym_addr[i] = addr;
		else
			t->nr_unresolved++;
	}
	return 0;
}

/* The module's BTF must be the one the blob was generated with. */
static int check_module_btf(struct ink_target *t, struct module *mod)
{
	const struct inkprobe_target *tgt = t->blob.target;
	u32 len, crc;
	int ret = -ENOENT;

#ifdef CONFIG_DEBUG_INFO_BTF_MODULES
	if (mod->btf_data) {	/* while the module is coming */
		len = mod->btf_data_size;
		crc = ~crc32_le(~0U, mod->btf_data, len);
		ret = 0;
	}
#endif
	if (ret)
		ret = ink_sysfs_btf_crc(mod->name, &len, &crc);
	if (ret)
		return ret;
	return len == tgt->btf_len && crc == tgt->btf_crc ? 0 : -ENOEXEC;
}

/* Makes a module target live on @mod (ink_mutex held). */
static int apply_module(struct ink_target *t, struct module *mod)
{
	int ret;

	ret = ink_module_build_id_check(mod, t->blob.target);
	if (ret) {
		ink_error_log(NULL, 0, "blob for %s: build ID differs from the loaded module",
			      t->name);
		return ret;
	}
	ret = check_module_btf(t, mod);
	if (ret == -ENOEXEC)
		ink_error_log(NULL, 0, "blob for %s: module BTF differs from the blob's", t->name);
	else if (ret)
		ink_error_log(NULL, 0, "blob for %s: cannot read the module's BTF (%d)", t->name,
			      ret);
	if (ret)
		return ret;
	mutex_lock(&ink_frames_mutex);
	memset(t->sym_addr, 0, t->blob.nr_syms * sizeof(*t->sym_addr));
	ink_inline_map_free(t);		/* runtime addresses change */
	resolve_module(t, mod);
	t->mod = mod;
	t->live = true;
	mutex_unlock(&ink_frames_mutex);
	return 0;
}

/* The loaded module called @name, pinned; NULL if not loaded (or going). */
static struct module *get_loaded_module(const char *name)
{
	struct kobject *kobj = kset_find_obj(THIS_MODULE->mkobj.kobj.kset, name);
	struct module *mod = NULL;

	if (!kobj)
		return NULL;
	mod = container_of(kobj, struct module_kobject, kobj)->mod;
	if (!mod || !try_module_get(mod))
		mod = NULL;
	kobject_put(kobj);
	return mod;
}

/* What ink_blob_load() tells the open: the target and the file it came through. */
struct blob_open_ctx {
	struct ink_target *t;
	const char *what;
};

/* The running kernel's BTF, for a parsed blob generated on it; else refused. */
static int blob_target_btf(void *arg, const struct ink_blob *b, const struct ink_btf **base,
			   struct ink_err *err)
{
	struct blob_open_ctx *ctx = arg;
	struct ink_target *t = ctx->t;
	const struct ink_btf *vbtf;
	u32 vlen, vcrc;

	strscpy(t->name, b->target->name, sizeof(t->name));
	t->is_module = strcmp(t->name, "vmlinux") != 0;
	vbtf = ink_vmlinux_btf(&vlen, &vcrc);
	if (IS_ERR(vbtf))
		return PTR_ERR(vbtf);
	if (vlen != b->target->vmlinux_btf_len || vcrc != b->target->vmlinux_btf_crc) {
		ink_error_log(ctx->what, 0,
			      "blob for %s was generated for another kernel build (its vmlinux BTF differs from the running kernel's)",
			      t->name);
		return -ENOEXEC;
	}
	*base = vbtf;
	return 0;
}

int ink_blob_load(void *data, u32 len, const char *what)
{
	struct ink_target *t, *old;
	struct ink_err err = { };
	struct blob_open_ctx ctx = { .what = what };
	const struct ink_open_env env = { .target_btf = blob_target_btf, .arg = &ctx };
	struct module *mod;
	char names[128];
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		kvfree(data);
		return -ENOMEM;
	}
	t->data = data;
	t->len = len;
	ctx.t = t;

	mutex_lock(&ink_mutex);
	ret = ink_blob_open(&t->blob, &t->btf, data, len, &env, &err);
	if (ret) {
		if (err.phase == INK_OPEN_PARSE)
			ink_error_log(what, 0, "invalid blob: %s at byte %u", err.msg, err.off);
		else if (err.phase != INK_OPEN_TARGET)
			ink_error_log(what, 0, "invalid blob BTF: %s at byte %u", err.msg,
				      err.off);
		goto fail;
	}
	t->sym_addr = kvcalloc(max(t->blob.nr_syms, 1U), sizeof(*t->sym_addr), GFP_KERNEL);
	if (!t->sym_addr) {
		ret = -ENOMEM;
		goto fail;
	}

	old = ink_target_find(t->name);
	if (old && old->users) {
		target_users(old, names, sizeof(names));
		ink_error_log(what, 0, "blob for %s is used by events %s: remove them first",
			      t->name, names);
		ret = -EBUSY;
		goto fail;
	}

	if (!t->is_module) {
		ret = ink_vmlinux_build_id_check(t->blob.target);
		if (ret) {
			ink_error_log(what, 0, "blob for vmlinux: build ID differs from the running kernel");
			goto fail;
		}
		ret = resolve_vmlinux(t);
		if (ret)
			goto fail;
		t->live = true;
	} else {
		mod = get_loaded_module(t->name);
		if (mod) {
			ret = apply_module(t, mod);
			module_put(mod);
			if (ret)
				goto fail;
		}
	}
	mutex_lock(&ink_frames_mutex);
	if (old)
		list_del(&old->list);
	list_add_tail(&t->list, &ink_targets);
	mutex_unlock(&ink_frames_mutex);
	target_free(old);
	mutex_unlock(&ink_mutex);
	return 0;
fail:
	mutex_unlock(&ink_mutex);
	target_free(t);
	return ret;
}

/* ---- "blobs": list; "-NAME" unloads ---- */

static int blobs_show(struct seq_file *m, void *v)
{
	struct ink_target *t;
	u32 i;

	mutex_lock(&ink_mutex);
	list_for_each_entry(t, &ink_targets, list) {
		seq_printf(m, "%s build-id=", t->name);
		for (i = 0; i < t->blob.target->build_id_len; i++)
			seq_printf(m, "%02x", t->blob.target->build_id[i]);
		seq_printf(m, " instances=%u symbols=%u %s unresolved=%u probes=%u\n",
			   t->blob.nr_instances, t->blob.nr_syms,
			   t->live ? "live" : "waiting", t->nr_unresolved, t->users);
	}
	mutex_unlock(&ink_mutex);
	return 0;
}

static int blobs_open(struct inode *inode, struct file *file)
{
	return ink_single_open_admin(inode, file, blobs_show);
}

static ssize_t blobs_write(struct file *file, const char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	char cmd[INKPROBE_TARGET_NAME_LEN + 4], *name, names[128];
	struct ink_target *t;
	int ret = 0;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	name = strim(cmd);
	if (!*name)
		return count;
	if (name[0] != '-') {
		ink_error_log(name, 0, "expected -NAME to unload a blob");
		return -EINVAL;
	}
	mutex_lock(&ink_mutex);
	t = ink_target_find(name + 1);
	if (!t) {
		ink_error_log(name, 1, "no blob for this target");
		ret = -ENOENT;
	} else if (t->users) {
		target_users(t, names, sizeof(names));
		ink_error_log(name, 1, "blob is used by events %s: remove them first", names);
		ret = -EBUSY;
	} else {
		mutex_lock(&ink_frames_mutex);
		list_del(&t->list);
		mutex_unlock(&ink_frames_mutex);
		target_free(t);
	}
	mutex_unlock(&ink_mutex);
	return ret ? ret : count;
}

static const struct file_operations blobs_fops = {
	.owner = THIS_MODULE,
	.open = blobs_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = blobs_write,
	.release = single_release,
};

/*
 * ---- "loaded_blob": write a target's name, read its blob back ----
 *
 * The blob as it was validated (raw, decompressed), copied at the write:
 * a blob replaced or unloaded meanwhile does not change what is read.  The
 * file is a stream (no f_pos lock): the copy has a lock of its own, so
 * that a read and a write on one open file in two threads cannot meet.
 */

struct blob_copy {
	struct mutex lock;
	void *data;
	u32 len, pos;
};

static int loaded_blob_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);
	struct blob_copy *c;

	if (ret)
		return ret;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	mutex_init(&c->lock);
	file->private_data = c;
	return nonseekable_open(inode, file);
}

static ssize_t loaded_blob_write(struct file *file, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct blob_copy *c = file->private_data;
	char cmd[INKPROBE_TARGET_NAME_LEN + 2], *name;
	struct ink_target *t;
	void *data = NULL;
	u32 len = 0;
	int ret = 0;

	if (!count || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	name = strim(cmd);
	mutex_lock(&ink_mutex);
	t = ink_target_find(name);
	if (!t) {
		ink_error_log(name, 0, "no blob for this target");
		ret = -ENOENT;
	} else {
		len = t->len;
		data = kvmalloc(len, GFP_KERNEL);
		if (data)
			memcpy(data, t->data, len);
		else
			ret = -ENOMEM;
	}
	mutex_unlock(&ink_mutex);
	if (ret)
		return ret;
	mutex_lock(&c->lock);
	kvfree(c->data);
	c->data = data;
	c->len = len;
	c->pos = 0;
	mutex_unlock(&c->lock);
	return count;
}

static ssize_t loaded_blob_read(struct file *file, char __user *ubuf, size_t count,
				loff_t *ppos)
{
	struct blob_copy *c = file->private_data;
	ssize_t n;

	mutex_lock(&c->lock);
	n = min_t(size_t, count, c->len - c->pos);
	if (copy_to_user(ubuf, (u8 *)c->data + c->pos, n))
		n = -EFAULT;
	else
		c->pos += n;
	mutex_unlock(&c->lock);
	return n;
}

static int loaded_blob_release(struct inode *inode, struct file *file)
{
	struct blob_copy *c = file->private_data;

	mutex_destroy(&c->lock);
	kvfree(c->data);
	kfree(c);
	return 0;
}

static const struct file_operations loaded_blob_fops = {
	.owner = THIS_MODULE,
	.open = loaded_blob_open,
	.write = loaded_blob_write,
	.read = loaded_blob_read,
	.release = loaded_blob_release,
};

/* ---- a module target follows its module ---- */

void ink_target_module(struct module *mod, bool coming)
{
	struct ink_target *t;

	mutex_lock(&ink_mutex);
	t = ink_target_find(mod->name);
	if (t && t->is_module) {
		if (coming) {
			if (!apply_module(t, mod) && target_ops)
				target_ops->back(t);
		} else if (t->live) {
			if (target_ops)
				target_ops->gone(t);
			mutex_lock(&ink_frames_mutex);
			ink_inline_map_free(t);
			t->live = false;
			t->mod = NULL;
			mutex_unlock(&ink_frames_mutex);
		}
	}
	mutex_unlock(&ink_mutex);
}

int ink_blob_store_init(struct dentry *dir)
{
	debugfs_create_file("blobs", 0600, dir, NULL, &blobs_fops);
	debugfs_create_file("loaded_blob", 0600, dir, NULL, &loaded_blob_fops);
	return 0;
}

void ink_blob_store_exit(void)
{
	struct ink_target *t, *tmp;

	list_for_each_entry_safe(t, tmp, &ink_targets, list) {
		mutex_lock(&ink_frames_mutex);
		list_del(&t->list);
		mutex_unlock(&ink_frames_mutex);
		target_free(t);
	}
}
