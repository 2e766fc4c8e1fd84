// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe_target: a module whose inlining is known, for inkprobe's selftests.
 *
 * Writing "A B W" to /sys/kernel/debug/inkprobe_target/trigger calls each
 * noinline caller once with values derived from A, B and W; every inlined
 * callee records the arguments it received, and
 * /sys/kernel/debug/inkprobe_target/expected lists them, one line per call,
 * in the order of the calls:
 *
 *	<callee> <caller> name=value ...
 *
 * Pointer fields are named after the field: obj->weight prints as weight=.
 * Values are printed as inkprobe prints them by default (pointers in hex,
 * integers in decimal), so a test compares strings.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/kernel.h>

/* Neither inlined nor cloned (no .constprop/.isra copies): stable callers. */
#define TGT_CALLER	noinline __attribute__((__noipa__))

struct tgt_obj {
	u64 cookie;
	u32 weight;
};

#define EXPECT_LINES	16
#define EXPECT_LEN	160

static DEFINE_MUTEX(tgt_lock);
static char expected[EXPECT_LINES][EXPECT_LEN];
static unsigned int nr_expected;

static __printf(1, 2) void expect(const char *fmt, ...)
{
	va_list ap;

	if (nr_expected >= EXPECT_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(expected[nr_expected++], EXPECT_LEN, fmt, ap);
	va_end(ap);
}

/*
 * tgt_mix() is inlined into tgt_caller_a() and tgt_caller_b().  At each
 * inlined copy, @reg is in a register, @konst is a constant of the call
 * site, and @obj is a pointer the probe reads through (obj->weight).
 */
static __always_inline u64 tgt_mix(u64 reg, int konst, const struct tgt_obj *obj)
{
	return (reg * 3 + konst) ^ READ_ONCE(obj->weight);
}

static TGT_CALLER u64 tgt_caller_a(u64 x, const struct tgt_obj *o)
{
	expect("tgt_mix tgt_caller_a reg=%llu konst=%d obj=0x%px weight=%u",
	       x, 7, o, o->weight);
	return tgt_mix(x, 7, o) + 1;
}

static TGT_CALLER u64 tgt_caller_b(u64 x, const struct tgt_obj *o)
{
	u64 y = x ^ 0x5a5a;

	expect("tgt_mix tgt_caller_b reg=%llu konst=%d obj=0x%px weight=%u",
	       y, -11, o, o->weight);
	return tgt_mix(y, -11, o) + 2;
}

static u64 tgt_sink;

static ssize_t trigger_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tgt_obj obj_a, obj_b;
	char buf[96];
	u64 a, b;
	u32 w;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%llu %llu %u", &a, &b, &w) != 3)
		return -EINVAL;

	obj_a.cookie = a;
	obj_a.weight = w;
	obj_b.cookie = b;
	obj_b.weight = w + 1;

	mutex_lock(&tgt_lock);
	nr_expected = 0;
	tgt_sink += tgt_caller_a(a, &obj_a);
	tgt_sink += tgt_caller_b(b, &obj_b);
	mutex_unlock(&tgt_lock);
	return count;
}

static int expected_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&tgt_lock);
	for (i = 0; i < nr_expected; i++)
		seq_printf(m, "%s\n", expected[i]);
	mutex_unlock(&tgt_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(expected);

static const struct file_operations trigger_fops = {
	.owner = THIS_MODULE,
	.write = trigger_write,
};

static struct dentry *tgt_dir;

static int __init tgt_init(void)
{
	tgt_dir = debugfs_create_dir("inkprobe_target", NULL);
	debugfs_create_file("trigger", 0200, tgt_dir, NULL, &trigger_fops);
	debugfs_create_file("expected", 0400, tgt_dir, NULL, &expected_fops);
	return 0;
}

static void __exit tgt_exit(void)
{
	debugfs_remove(tgt_dir);
}

module_init(tgt_init);
module_exit(tgt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("inkprobe selftest target: functions with known inlining");
