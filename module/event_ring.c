// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU event buffers: one single-producer single-consumer ring of fixed
 * size records per CPU.  The producer is the probe handler on that CPU
 * (preemption off); a nested producer on the same CPU (an NMI, say) finds
 * the ring busy and the hit counts as lost.  The consumer is trace_pipe,
 * serialized by its own mutex.  head and tail only grow; head - tail is the
 * fill level.  No locks, no allocation on the producer side.
 */
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/vmalloc.h>

#include "inkprobe.h"

static unsigned int buffer_entries = 1024;
module_param(buffer_entries, uint, 0444);
MODULE_PARM_DESC(buffer_entries, "records per CPU buffer (rounded up to a power of two)");

struct ink_ring {
	unsigned int head;		/* producer */
	unsigned int tail;		/* consumer */
	unsigned int busy;		/* producer nesting guard */
	struct ink_record *slots;
};

static DEFINE_PER_CPU(struct ink_ring, rings);
static unsigned int ring_mask;
static struct irq_work wake_work;
DECLARE_WAIT_QUEUE_HEAD(ink_ring_wait);

static void wake_readers(struct irq_work *w)
{
	wake_up_all(&ink_ring_wait);
}

struct ink_record *ink_ring_reserve(void)
{
	struct ink_ring *r = this_cpu_ptr(&rings);
	unsigned int tail;

	if (this_cpu_inc_return(rings.busy) != 1)
		goto busy;
	/* pairs with the reader's release in ink_ring_consume(): slot reusable */
	tail = smp_load_acquire(&r->tail);
	if (r->head - tail > ring_mask)
		goto busy;
	return &r->slots[r->head & ring_mask];
busy:
	this_cpu_dec(rings.busy);
	return NULL;
}
NOKPROBE_SYMBOL(ink_ring_reserve);

void ink_ring_commit(void)
{
	struct ink_ring *r = this_cpu_ptr(&rings);

	/* pairs with the reader's acquire in ink_ring_peek(): record complete */
	smp_store_release(&r->head, r->head + 1);
	this_cpu_dec(rings.busy);
	/*
	 * Only a reader that sleeps needs waking: one that is draining finds
	 * this record anyway.  wq_has_sleeper()'s barrier pairs with the one
	 * in prepare_to_wait(): either the reader sees this record before it
	 * sleeps or we see it on the queue.
	 */
	if (wq_has_sleeper(&ink_ring_wait))
		irq_work_queue(&wake_work);
}
NOKPROBE_SYMBOL(ink_ring_commit);

struct ink_record *ink_ring_peek(int *cpu_out)
{
	struct ink_record *best = NULL;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ink_ring *r = per_cpu_ptr(&rings, cpu);
		/* pairs with the producer's release in ink_ring_commit() */
		unsigned int head = smp_load_acquire(&r->head);
		struct ink_record *rec;

		if (!r->slots || head == r->tail)
			continue;
		rec = &r->slots[r->tail & ring_mask];
		if (!best || rec->ts < best->ts) {
			best = rec;
			*cpu_out = cpu;
		}
	}
	return best;
}

void ink_ring_consume(int cpu)
{
	struct ink_ring *r = per_cpu_ptr(&rings, cpu);

	/* the record is read: pairs with the producer's acquire in ink_ring_reserve() */
	smp_store_release(&r->tail, r->tail + 1);
}

bool ink_ring_empty(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ink_ring *r = per_cpu_ptr(&rings, cpu);

		/* pairs with the producer's release in ink_ring_commit() */
		if (r->slots && smp_load_acquire(&r->head) != READ_ONCE(r->tail))
			return false;
	}
	return true;
}

int ink_ring_init(void)
{
	unsigned int n = roundup_pow_of_two(clamp(buffer_entries, 16U, 1U << 20));
	int cpu;

	ring_mask = n - 1;
	init_irq_work(&wake_work, wake_readers);
	for_each_possible_cpu(cpu) {
		struct ink_ring *r = per_cpu_ptr(&rings, cpu);

		r->slots = vzalloc(array_size(n, sizeof(*r->slots)));
		if (!r->slots) {
			ink_ring_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void ink_ring_exit(void)
{
	int cpu;

	irq_work_sync(&wake_work);
	for_each_possible_cpu(cpu) {
		struct ink_ring *r = per_cpu_ptr(&rings, cpu);

		vfree(r->slots);
		r->slots = NULL;
		r->head = r->tail = 0;
	}
}
