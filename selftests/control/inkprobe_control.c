// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe_control: positive controls for the debug test kernel.  Each file
 * of /sys/kernel/debug/inkprobe_control plants one bug when written to, so
 * that its detector must report it in the kernel log:
 *
 *	kasan_uaf	a read of a freed kmalloc object (KASAN)
 *	kasan_oob	a read past the end of a kmalloc object (KASAN)
 *	kfence_uaf	a read of a freed object KFENCE sampled (KFENCE)
 *	lock_inversion	two mutexes taken in both orders (lockdep)
 *	sleep_atomic	a GFP_KERNEL allocation under a spinlock (might_sleep)
 *	rcu		rcu_dereference() outside a reader (PROVE_RCU)
 *	leak		four objects whose pointers are dropped (kmemleak)
 *	ubsan		an array index out of bounds (UBSAN)
 *	debugobjects	a kfree() of an armed timer (DEBUG_OBJECTS)
 *
 * Each bug is kept harmless: the bad accesses read memory that is still
 * mapped (or that KFENCE unprotects after reporting), no lock is really
 * waited for, nothing sleeps, the timer is deactivated by debugobjects'
 * own fix-up.  The index, offset and pointer of each access go through
 * OPTIMIZER_HIDE_VAR() so that the compiler neither sees the bug nor
 * removes the access.  Only for a kernel built with the detectors
 * (scripts/debug-kernel.config); selftests/control/run-controls.sh
 * writes the files one at a time and keeps the log of each.
 */
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kfence.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

static struct dentry *control_dir;

/*
 * A kmalloc object KFENCE did not sample: KASAN leaves KFENCE's pool
 * unpoisoned, so a bad read of a sampled object is KFENCE's to catch (past
 * its end, only when that is its guard page).  KFENCE samples one
 * allocation per kfence.sample_interval: the next one is the slab's.  (CI
 * of ef14a56: kasan_oob read KFENCE's canary byte, 0xaf, and no report.)
 */
static char *kmalloc_not_kfence(size_t size)
{
	char *p;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		p = kmalloc(size, GFP_KERNEL);
		if (!p || !is_kfence_address(p))
			return p;
		kfree(p);
	}
	return NULL;
}

static noinline void control_kasan_uaf(void)
{
	char *p = kmalloc_not_kfence(64);
	size_t i = 8;

	if (!p)
		return;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	OPTIMIZER_HIDE_VAR(i);
	pr_info("inkprobe_control: kasan_uaf read %d\n", READ_ONCE(p[i]));
}

static noinline void control_kasan_oob(void)
{
	char *p = kmalloc_not_kfence(61);
	size_t i = 61;

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(p);
	OPTIMIZER_HIDE_VAR(i);
	pr_info("inkprobe_control: kasan_oob read %d\n", READ_ONCE(p[i]));
	kfree(p);
}

/*
 * KFENCE hands out one sampled object per kfence.sample_interval: allocate
 * (and free) until an object comes from its pool, as the kernel's own
 * KFENCE test does, for at most ten seconds.
 */
static noinline void control_kfence_uaf(void)
{
	unsigned long end = jiffies + 10 * HZ;
	char *p;

	do {
		p = kmalloc(32, GFP_KERNEL);
		if (!p || is_kfence_address(p))
			break;
		kfree(p);
		p = NULL;
		cond_resched();
	} while (time_before(jiffies, end));
	if (!p) {
		pr_err("inkprobe_control: kfence_uaf: no KFENCE object in 10 s\n");
		return;
	}
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("inkprobe_control: kfence_uaf read %d\n", READ_ONCE(p[0]));
}

static DEFINE_MUTEX(control_lock_a);
static DEFINE_MUTEX(control_lock_b);

/* A then B, later B then A: lockdep reports the cycle, no thread waits */
static noinline void control_lock_inversion(void)
{
	mutex_lock(&control_lock_a);
	mutex_lock(&control_lock_b);
	mutex_unlock(&control_lock_b);
	mutex_unlock(&control_lock_a);

	mutex_lock(&control_lock_b);
	mutex_lock(&control_lock_a);
	mutex_unlock(&control_lock_a);
	mutex_unlock(&control_lock_b);
}

static DEFINE_SPINLOCK(control_spin);

static noinline void control_sleep_atomic(void)
{
	void *p;

	spin_lock(&control_spin);
	p = kmalloc(16, GFP_KERNEL);
	spin_unlock(&control_spin);
	kfree(p);
}

struct control_item {
	int value;
};

static struct control_item control_item_storage = { .value = 42 };
static struct control_item __rcu *control_item_ptr;

static noinline void control_rcu(void)
{
	struct control_item *item;

	rcu_assign_pointer(control_item_ptr, &control_item_storage);
	item = rcu_dereference(control_item_ptr);
	pr_info("inkprobe_control: rcu read %d\n", item->value);
}

/*
 * The count it says tells a leak kmemleak missed from an allocation that
 * failed; KFENCE's objects are counted apart (KFENCE keeps each one's
 * address in its metadata).
 */
static noinline void control_leak(void)
{
	int i, made = 0, kfence = 0;

	for (i = 0; i < 4; i++) {
		char *p = kmalloc(64, GFP_KERNEL);

		if (!p)
			break;
		strscpy(p, "inkprobe_control leak", 64);
		made++;
		kfence += is_kfence_address(p);
		OPTIMIZER_HIDE_VAR(p);
	}
	pr_info("inkprobe_control: leak: %d objects of 64 bytes dropped (%d from KFENCE)\n",
		made, kfence);
}

struct control_array {
	int slot[4];
	int after;
};

static struct control_array control_array = { .slot = { 1, 2, 3, 4 }, .after = 5 };

/*
 * A plain read: READ_ONCE() takes the element's address, which GCC's bounds
 * check allows one past the end.  A global, so that "after" is stored.
 */
static noinline void control_ubsan(void)
{
	size_t i = 4;
	int v;

	OPTIMIZER_HIDE_VAR(i);
	/* slot[4] is "after": in bounds for KASAN, out of bounds for UBSAN */
	v = control_array.slot[i];
	pr_info("inkprobe_control: ubsan read %d\n", v);
}

struct control_timer {
	struct timer_list timer;
};

static void control_timer_fn(struct timer_list *t)
{
}

static noinline void control_debugobjects(void)
{
	struct control_timer *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return;
	timer_setup(&c->timer, control_timer_fn, 0);
	mod_timer(&c->timer, jiffies + 3600 * HZ);
	/* debugobjects reports "free active" and deactivates the timer */
	kfree(c);
}

struct control {
	const char *name;
	void (*fn)(void);
};

static struct control controls[] = {
	{ "kasan_uaf", control_kasan_uaf },
	{ "kasan_oob", control_kasan_oob },
	{ "kfence_uaf", control_kfence_uaf },
	{ "lock_inversion", control_lock_inversion },
	{ "sleep_atomic", control_sleep_atomic },
	{ "rcu", control_rcu },
	{ "leak", control_leak },
	{ "ubsan", control_ubsan },
	{ "debugobjects", control_debugobjects },
};

static ssize_t control_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *ppos)
{
	struct control *c = file->private_data;

	c->fn();
	return len;
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = control_write,
	.llseek = noop_llseek,
};

static int __init control_init(void)
{
	size_t i;

	control_dir = debugfs_create_dir("inkprobe_control", NULL);
	for (i = 0; i < ARRAY_SIZE(controls); i++)
		debugfs_create_file(controls[i].name, 0200, control_dir,
				    &controls[i], &control_fops);
	return 0;
}

static void __exit control_exit(void)
{
	debugfs_remove(control_dir);
}

module_init(control_init);
module_exit(control_exit);
MODULE_DESCRIPTION("Positive controls for the debug kernel's detectors");
MODULE_LICENSE("GPL");
