// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe_target: a module whose inlining is known, for inkprobe's tests.
 *
 * Writing a scenario to /sys/kernel/debug/inkprobe_target/trigger runs it:
 *
 *	mix A B W	tgt_mix() inlined into two callers (tgt_inline.c)
 *	loc A B		one inlined function per location class (tgt_inline.c)
 *	fault A		an inlined function given a pointer to nowhere (tgt_inline.c)
 *	partial N	a partially inlined function, N calls per copy (tgt_clones.c)
 *	clones A	.constprop and .isra clones (tgt_clones.c)
 *	dups A		two static functions named tgt_dup (tgt_dup_a.c, tgt_dup_b.c)
 *	split X		functions GCC splits in two, each copy twice (tgt_split.c)
 *	alias A		a caller with two names (tgt_alias.c)
 *	refuse A	four callers of tgt_refused(), three with refused sites (tgt_refuse.c)
 *	strings A	:string arguments (tgt_string.c)
 *	stredge A	:string at a page's end, in a guard page, escaped (tgt_string.c)
 *	merge A		two calls of tgt_merged() at one address (tgt_merge.c)
 *	sites A		inlined functions starting with a static call or branch (tgt_sites.c)
 *	rejoin A ON	tgt_at_rejoin(), its static key ON (0 or 1) for the call (tgt_sites.c)
 *	stack V		a noinline chain with inlined code (tgt_stack.c)
 *	stackirq V	the same chain from an hrtimer interrupting tgt_spin()
 *	noorc V		the same chain called from a function without ORC data
 *	block MS	the writer blocks MS milliseconds in tgt_block_here()
 *	bench N		N calls of tgt_bench_caller(), timed: "bench calls=N ns=T"
 *	kprobe OFF	an empty kprobe at tgt_bench_caller+OFF, on or off again
 *	notrace A	tgt_nt() in a notrace caller and a traced one (tgt_notrace.c)
 *	nested N M	N calls of tgt_nt_traced(), M more inside a kprobe's handler
 *	exits A		one inlined function per way of leaving it (tgt_exits.c): its
 *			lines say the path each call took, "<callee> <caller> path=P"
 *	order A		copies whose exits and entries share pcs (tgt_order.c):
 *			"enter|exit <callee> <caller> call=N", in the order the
 *			calls start and end
 *	latency US	tgt_lat_wait() inlined, waiting US microseconds, once per
 *			context: task, softirq, hardirq, recursion (three nested
 *			copies), a 10 ms sleep (tgt_latency.c); each line,
 *			in exit order, says "<callee> <caller> ctx=C inner_ns=N
 *			outer_ns=N cpu_in=C cpu_out=C pid=P": the call's own
 *			times inside its copy and around it
 *	latsleep MS	the sleeping call alone (a test may migrate it), MS ms
 *	latool US N	N calls of tgt_lat_outofline(), never inlined
 *	noprobe A	tgt_np_helper() in noinstr, NOKPROBE and plain callers; only the
 *			plain copy may be probed and records a line (tgt_noprobe.c)
 *	spin MS		tgt_spin_run() spins MS ms (at most 10000), in slices
 *			alternating with its inlined tgt_spin_inner(); says
 *			"tgt_spin_inner tgt_spin_run inner_ns=N total_ns=N"
 *			(tgt_profile.c)
 *
 * /sys/kernel/debug/inkprobe_target/expected then lists what each copy
 * received, one line per call, in call order:
 *
 *	<callee> <caller> name=value ...
 *
 * with values as inkprobe prints them by default (pointers in hex, integers
 * in decimal, "(optimized out)" where the compiler keeps nothing), so tests
 * compare strings.  A pointer field obj->weight is named "weight".  Addresses
 * are printed with %px on purpose: tests compare them with decoded pointers.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "tgt.h"

#define EXPECT_LINES	64
#define EXPECT_LEN	192

static DEFINE_MUTEX(tgt_lock);
static char expected[EXPECT_LINES][EXPECT_LEN];
static unsigned int nr_expected;
static u64 tgt_sink;

void tgt_expect(const char *fmt, ...)
{
	va_list ap;

	if (nr_expected >= EXPECT_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(expected[nr_expected++], EXPECT_LEN, fmt, ap);
	va_end(ap);
}

static int run_scenario(char *buf)
{
	unsigned long long a, b;
	long long x;
	unsigned int w;

	if (sscanf(buf, "mix %llu %llu %u", &a, &b, &w) == 3)
		tgt_sink += tgt_run_mix(a, b, w);
	else if (sscanf(buf, "loc %llu %llu", &a, &b) == 2)
		tgt_sink += tgt_run_locations(a, b);
	else if (sscanf(buf, "fault %llu", &a) == 1)
		tgt_sink += tgt_run_fault(a);
	else if (sscanf(buf, "partial %u", &w) == 1 && w <= 1000)
		tgt_sink += tgt_run_partial(w);
	else if (sscanf(buf, "clones %llu", &a) == 1)
		tgt_sink += tgt_run_clones(a);
	else if (sscanf(buf, "dups %llu", &a) == 1)
		tgt_sink += tgt_run_dups(a);
	else if (sscanf(buf, "split %lld", &x) == 1)
		tgt_sink += tgt_run_split(x);
	else if (sscanf(buf, "alias %llu", &a) == 1)
		tgt_sink += tgt_run_alias(a);
	else if (sscanf(buf, "refuse %llu", &a) == 1)
		tgt_sink += tgt_run_refuse(a);
	else if (sscanf(buf, "strings %llu", &a) == 1)
		tgt_sink += tgt_run_strings(a);
	else if (sscanf(buf, "stredge %llu", &a) == 1)
		return tgt_run_str_edge(a);
	else if (sscanf(buf, "merge %llu", &a) == 1)
		tgt_sink += tgt_run_merge(a);
	else if (sscanf(buf, "sites %llu", &a) == 1)
		tgt_sink += tgt_run_sites(a);
	else if (sscanf(buf, "rejoin %llu %u", &a, &w) == 2 && w <= 1)
		tgt_sink += tgt_run_rejoin(a, w);
	else if (sscanf(buf, "stack %llu", &a) == 1)
		tgt_sink += tgt_run_stack(a);
	else if (sscanf(buf, "stackirq %llu", &a) == 1)
		tgt_sink += tgt_run_stackirq(a);
	else if (sscanf(buf, "noorc %llu", &a) == 1)
		tgt_sink += tgt_run_noorc(a);
	else if (sscanf(buf, "bench %llu", &a) == 1 && a <= 100000000)
		tgt_sink += tgt_run_bench(a);
	else if (sscanf(buf, "exits %llu", &a) == 1)
		tgt_sink += tgt_run_exits(a);
	else if (sscanf(buf, "order %llu", &a) == 1)
		tgt_sink += tgt_run_order(a);
	else if (sscanf(buf, "noprobe %llu", &a) == 1)
		tgt_sink += tgt_run_noprobe(a);
	else if (sscanf(buf, "latency %llu", &a) == 1 && a <= 100000)
		tgt_sink += tgt_run_latency(a);
	else if (sscanf(buf, "latsleep %u", &w) == 1 && w <= 60000)
		tgt_sink += tgt_run_lat_sleep(w);
	else if (sscanf(buf, "latool %llu %u", &a, &w) == 2 && a <= 100000 &&
		 w <= EXPECT_LINES)
		tgt_sink += tgt_run_lat_ool(a, w);
	else if (sscanf(buf, "spin %u", &w) == 1 && w <= 10000)
		tgt_sink += tgt_run_spin(w);
	else if (sscanf(buf, "notrace %llu", &a) == 1)
		tgt_sink += tgt_run_notrace(a);
	else if (sscanf(buf, "nested %llu %llu", &a, &b) == 2 && a <= 1000 && b <= 1000)
		return tgt_run_nested(a, b);
	else if (sscanf(buf, "kprobe %u", &w) == 1)
		return tgt_toggle_empty_kprobe(w);
	else
		return -EINVAL;
	return 0;
}

static ssize_t trigger_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[96];
	unsigned int ms;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	/* blocking needs no log, and must not hold up other writers */
	if (sscanf(buf, "block %u", &ms) == 1 && ms <= 60000) {
		tgt_sink += tgt_run_block(ms);
		return count;
	}
	mutex_lock(&tgt_lock);
	nr_expected = 0;
	ret = run_scenario(buf);
	mutex_unlock(&tgt_lock);
	return ret ? ret : count;
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
	tgt_bench_exit();
}

module_init(tgt_init);
module_exit(tgt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("inkprobe selftest target: functions with known inlining");
