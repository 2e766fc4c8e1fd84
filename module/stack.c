// SPDX-License-Identifier: GPL-2.0
/*
 * Stack traces with inline frames.
 *
 * At a hit (handler context) the ORC unwinder walks the stack from the
 * probe's pt_regs and only addresses are kept.  Frames are printed later,
 * in process context: each code address is expanded into the inlined
 * functions that contain it, innermost first, then its symbol:
 *
 *	 => tgt_stack_innermost [inlined]
 *	 => tgt_stack_inner [inlined]
 *	 => tgt_chain_c+0x1e/0x50 [inkprobe_target]
 *
 * ORC ends a walk at its first error (no ORC data, or a frame it cannot
 * follow).  The rest of that stack is then scanned, as the kernel's own
 * dumps do, for words that look like return addresses (kernel addresses
 * right after a call instruction); those are marked "? ".  The "stack" file
 * unwinds any task that is not running, on demand.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/unwind.h>

#include "inkprobe.h"
#include "blob_store.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "inline_map.h"
#include "probe_event.h"
#include "stack.h"

#define SCAN_WORDS	512	/* stack words scanned after an unwinder error */

/* Whether the instruction before @addr is a call (direct, or through a register or memory). */
static bool after_call(unsigned long addr)
{
	u8 b[6];

	if (addr < __START_KERNEL_map ||
	    copy_from_kernel_nofault(b, (void *)(addr - sizeof(b)), sizeof(b)))
		return false;
	return b[1] == 0xe8 ||					/* call rel32 */
	       (b[0] == 0xff && b[1] == 0x15) ||		/* call *rel32(%rip) */
	       (b[4] == 0xff && (b[5] & 0xf8) == 0xd0) ||	/* call *%reg */
	       (b[3] == 0x41 && b[4] == 0xff && (b[5] & 0xf8) == 0xd0);	/* call *%r8-15 */
}
NOKPROBE_SYMBOL(after_call);

/*
 * After an unwinder error: the words above the stack pointer it stopped at,
 * up to the end of that stack, that look like return addresses.
 */
static unsigned int scan(const struct unwind_state *st, unsigned long *frames, u8 *flags,
			 unsigned int n, unsigned int max)
{
	unsigned long sp = st->sp, end = (unsigned long)st->stack_info.end, word;
	unsigned int i;

	if (!sp || sp & (sizeof(long) - 1) || sp >= end)
		return n;
	for (i = 0; i < SCAN_WORDS && n < max && sp < end; i++, sp += sizeof(long)) {
		if (copy_from_kernel_nofault(&word, (void *)sp, sizeof(word)))
			break;
		if (after_call(word)) {
			frames[n] = word;
			flags[n++] = INK_FRAME_GUESS;
		}
	}
	return n;
}
NOKPROBE_SYMBOL(scan);

/* Fills @frames (and @flags) from an unwinder already started. */
static unsigned int walk(struct unwind_state *st, unsigned long *frames, u8 *flags,
			 unsigned int n, unsigned int max)
{
	for (; !unwind_done(st) && n < max; unwind_next_frame(st)) {
		unsigned long addr = unwind_get_return_address(st);
		bool partial;

		if (!addr)		/* user mode, or not kernel text */
			break;
		frames[n] = addr;
		/* an instruction pointer from entry pt_regs, not a return address */
		flags[n] = unwind_get_entry_regs(st, &partial) ? INK_FRAME_EXACT : 0;
		n++;
	}
	return unwind_error(st) ? scan(st, frames, flags, n, max) : n;
}
NOKPROBE_SYMBOL(walk);

unsigned int ink_stack_capture(unsigned long *frames, u8 *flags, struct pt_regs *regs,
			       unsigned long site)
{
	struct unwind_state st;
	struct pt_regs at_site;

	frames[0] = site;
	flags[0] = INK_FRAME_EXACT;
	/*
	 * A kprobe handler sees regs->ip == site + 1 (int3 semantics, which
	 * optprobes emulate).  ORC must look up the site itself: at site + 1
	 * it would find the rules after a one-byte instruction (a push or
	 * pop) the CPU has not executed yet.
	 */
	at_site = *regs;
	at_site.ip = site;
	/* starting from regs, the unwinder skips the regs frame itself */
	unwind_start(&st, current, &at_site, NULL);
	return walk(&st, frames, flags, 1, INK_MAX_FRAMES);
}
NOKPROBE_SYMBOL(ink_stack_capture);

/* The ORC CFA at @ip with the registers @sp and @bp, or 0 (one unwinder step). */
static unsigned long cfa_with(unsigned long ip, unsigned long sp, unsigned long bp)
{
	struct unwind_state st;
	struct pt_regs regs = {
		.ip = ip, .sp = sp, .bp = bp, .cs = __KERNEL_CS, .flags = X86_EFLAGS_FIXED,
	};

	/* starting from regs, the unwinder steps out of @ip's frame: st.sp is its CFA */
	unwind_start(&st, current, &regs, NULL);
	return unwind_error(&st) ? 0 : st.sp;
}

int ink_stack_cfa_rule(unsigned long addr, u8 *reg_off, s32 *off)
{
	/*
	 * Registers that point into this stack, where the unwinder may read
	 * (what it reads above them is this stack's older frames): the CFA
	 * follows %sp, or %bp, by what the rule adds to it.
	 */
	unsigned long area[8] = { 0 };
	unsigned long sp = (unsigned long)area, bp = sp + 2 * sizeof(long);
	unsigned long cfa = cfa_with(addr, sp, bp);

	if (!cfa)
		return -ENOENT;
	if (cfa_with(addr, sp + sizeof(long), bp) == cfa + sizeof(long) &&
	    cfa_with(addr, sp, bp + sizeof(long)) == cfa) {
		*reg_off = offsetof(struct pt_regs, sp);
		*off = cfa - sp;
		return 0;
	}
	if (cfa_with(addr, sp, bp + sizeof(long)) == cfa + sizeof(long) &&
	    cfa_with(addr, sp + sizeof(long), bp) == cfa) {
		*reg_off = offsetof(struct pt_regs, bp);
		*off = cfa - bp;
		return 0;
	}
	return -ENOENT;
}

unsigned int ink_code_inline_frames(unsigned long addr, const char **names, unsigned int max)
{
	struct ink_target *t;
	unsigned int n;

	list_for_each_entry(t, &ink_targets, list) {
		n = ink_inline_frames(t, addr, names, max);
		if (n)
			return n;
	}
	return 0;
}

/*
 * One line into @sb, or nothing: a line that does not fit is taken back,
 * so that @sb ends with a whole line.
 */
static __printf(2, 3) bool put_line(struct seq_buf *sb, const char *fmt, ...)
{
	unsigned int len = sb->len;
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	seq_buf_printf(sb, "%pV", &vaf);
	va_end(args);
	if (!seq_buf_has_overflowed(sb))
		return true;
	sb->len = len;
	return false;
}

/* Where the formatter may sleep: not in a dump of the buffers from an oops or sysrq. */
static bool may_sleep(void)
{
	return in_task() && !irqs_disabled() && !preempt_count() && !oops_in_progress;
}

void ink_stack_format(struct seq_buf *sb, const struct ink_probe *p,
		      const unsigned long *frames, const u8 *flags, unsigned int nr)
{
	const char *names[INK_MAX_INLINE_DEPTH];
	unsigned int i, j, ni = 0, mark[INK_MAX_FRAMES];
	bool expand = may_sleep();

	nr = min(nr, INK_MAX_FRAMES);
	if (expand)
		mutex_lock(&ink_frames_mutex);
	for (i = 0; i < nr; i++) {
		bool exact = flags[i] & INK_FRAME_EXACT;
		const char *q = (flags[i] & INK_FRAME_GUESS) ? "? " : "";

		mark[i] = sb->len;
		if (!expand)
			ni = 0;
		else if (!i && p)	/* the probe site: the probed instance */
			ni = ink_inline_site_frames(p, names, ARRAY_SIZE(names));
		/* a return address belongs to its call instruction: look before it */
		else
			ni = ink_code_inline_frames(exact ? frames[i] : frames[i] - 1, names,
						    ARRAY_SIZE(names));
		for (j = 0; j < ni; j++)
			if (!put_line(sb, " => %s%s [inlined]\n", q, names[j]))
				goto cut;
		if (!put_line(sb, exact ? " => %s%pS\n" : " => %s%pB\n", q, (void *)frames[i]))
			goto cut;
	}
	goto out;
cut:
	/* frames i.. do not fit: say so, taking frames back until that fits */
	for (;;) {
		sb->len = mark[i];
		if (put_line(sb, " => ... (%u more frames)\n", nr - i) || !i)
			break;
		i--;
	}
out:
	if (expand)
		mutex_unlock(&ink_frames_mutex);
}

/* ---- "stack": write a TID, read its kernel stack ---- */

#define STACK_TEXT_MAX	8192

/* The stack of @task, which is not running; -EBUSY if it ran meanwhile. */
static int unwind_task(struct task_struct *task, unsigned long *frames, u8 *flags,
		       unsigned int *nr)
{
	unsigned long switches = task->nvcsw + task->nivcsw;
	struct unwind_state st;

	if (task == current) {
		unwind_start(&st, current, NULL, NULL);
		*nr = walk(&st, frames, flags, 0, INK_MAX_FRAMES);
		return 0;
	}
	if (READ_ONCE(task->on_cpu))
		return -EBUSY;
	unwind_start(&st, task, NULL, NULL);
	*nr = walk(&st, frames, flags, 0, INK_MAX_FRAMES);
	/* the stack reads above before the checks below: a switch shows in them */
	smp_rmb();
	if (READ_ONCE(task->on_cpu) || switches != task->nvcsw + task->nivcsw)
		return -EBUSY;	/* it woke up while being unwound */
	return 0;
}

static int stack_of(pid_t tid, struct ink_answer *a)
{
	unsigned long frames[INK_MAX_FRAMES];
	u8 flags[INK_MAX_FRAMES];
	struct task_struct *task;
	unsigned int nr = 0;
	int ret;

	rcu_read_lock();
	task = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	if (!try_get_task_stack(task)) {
		put_task_struct(task);
		return -ESRCH;		/* exited: no stack left */
	}
	ret = unwind_task(task, frames, flags, &nr);
	/*
	 * put_task_stack() is not exported; a live task holds its own
	 * reference, so dropping ours never frees.  Should the task have died
	 * meanwhile, its stack stays allocated rather than freed under us.
	 */
	if (!refcount_dec_not_one(&task->stack_refcount))
		pr_info_once("inkprobe: kept the stack of exited task %d\n", tid);
	if (!ret) {
		struct seq_buf sb;

		seq_buf_init(&sb, a->text, a->cap);
		seq_buf_printf(&sb, "%s-%d stack:\n", task->comm, tid);
		ink_stack_format(&sb, NULL, frames, flags, nr);
		a->len = seq_buf_used(&sb);
	}
	put_task_struct(task);
	return ret;
}

static int stack_open(struct inode *inode, struct file *file)
{
	return ink_answer_open(inode, file, STACK_TEXT_MAX);
}

static ssize_t stack_write(struct file *file, const char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct ink_answer *a = file->private_data;
	char buf[24];
	int tid, ret;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (kstrtoint(strim(buf), 10, &tid) || tid <= 0) {
		ink_error_log(buf, 0, "expected a thread ID");
		return -EINVAL;
	}
	mutex_lock(&a->lock);
	a->len = a->pos = 0;
	ret = stack_of(tid, a);
	mutex_unlock(&a->lock);
	if (ret == -ESRCH)
		ink_error_log(buf, 0, "no such task");
	else if (ret == -EBUSY)
		ink_error_log(buf, 0, "task %d is running on another CPU: try again", tid);
	return ret ? ret : count;
}

static const struct file_operations stack_fops = {
	.owner = THIS_MODULE,
	.open = stack_open,
	.write = stack_write,
	.read = ink_answer_read,
	.release = ink_answer_release,
};

int ink_stack_init(struct dentry *dir)
{
	debugfs_create_file("stack", 0600, dir, NULL, &stack_fops);
	return 0;
}
