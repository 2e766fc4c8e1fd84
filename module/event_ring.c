// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU event buffers: one single-producer single-consumer ring of bytes
 * per CPU, holding records of their own size (struct ink_record).  The
 * producer is the probe handler on that CPU (preemption off); a nested
 * producer on the same CPU (an NMI, say) finds the ring busy and the hit
 * counts as lost.  The consumer is trace_pipe, serialized by its own mutex.
 * head and tail count bytes and only grow; head - tail is the fill level.
 * A record never wraps: when it would not fit before the end of the
 * buffer, a padding record (event_id 0) fills the end and the record
 * starts over at the beginning.  No locks, no allocation on the producer
 * side.
 */
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/vmalloc.h>

#include "inkprobe.h"

#define MIN_KB		8
#define MAX_KB		(1U << 20)

static unsigned int buffer_kb = 1024;
module_param(buffer_kb, uint, 0444);
MODULE_PARM_DESC(buffer_kb, "KB per CPU buffer (rounded up to a power of two, 8 KB to 1 GB)");

DEFINE_PER_CPU(struct ink_ring, ink_rings);
unsigned long ink_ring_size;
static struct irq_work wake_work;
DECLARE_WAIT_QUEUE_HEAD(ink_ring_wait);

static void wake_readers(struct irq_work *w)
{
	wake_up_all(&ink_ring_wait);
}

static struct ink_record *rec_at(const struct ink_ring *r, unsigned long pos)
{
	return (struct ink_record *)(r->buf + (pos & (ink_ring_size - 1)));
}
NOKPROBE_SYMBOL(rec_at);

void ink_ring_wake(void)
{
	irq_work_queue(&wake_work);
}
NOKPROBE_SYMBOL(ink_ring_wake);

/* The oldest record of CPU @r's ring, padding consumed; NULL if empty. */
static struct ink_record *first_record(struct ink_ring *r)
{
	/* pairs with the producer's release in ink_ring_commit() */
	unsigned long head = smp_load_acquire(&r->head);
	struct ink_record *rec;

	while (r->buf && r->tail != head) {
		rec = rec_at(r, r->tail);
		if (rec->event_id)
			return rec;
		/* padding, always followed by a record in the same commit */
		smp_store_release(&r->tail, r->tail + rec->len);
	}
	return NULL;
}

struct ink_record *ink_ring_peek(int *cpu_out)
{
	struct ink_record *best = NULL, *rec;
	int cpu;

	for_each_possible_cpu(cpu) {
		rec = first_record(per_cpu_ptr(&ink_rings, cpu));
		if (rec && (!best || rec->ts < best->ts)) {
			best = rec;
			*cpu_out = cpu;
		}
	}
	return best;
}

void ink_ring_consume(int cpu)
{
	struct ink_ring *r = per_cpu_ptr(&ink_rings, cpu);

	/* the record is read: pairs with the producer's acquire in ink_ring_reserve() */
	smp_store_release(&r->tail, r->tail + rec_at(r, r->tail)->len);
}

bool ink_ring_empty(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ink_ring *r = per_cpu_ptr(&ink_rings, cpu);

		/* pairs with the producer's release in ink_ring_commit() */
		if (r->buf && smp_load_acquire(&r->head) != READ_ONCE(r->tail))
			return false;
	}
	return true;
}

int ink_ring_init(void)
{
	int cpu;

	ink_ring_size = roundup_pow_of_two((unsigned long)clamp(buffer_kb, MIN_KB, MAX_KB) << 10);
	init_irq_work(&wake_work, wake_readers);
	for_each_possible_cpu(cpu) {
		struct ink_ring *r = per_cpu_ptr(&ink_rings, cpu);

		r->buf = vzalloc(ink_ring_size);
		if (!r->buf) {
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
		struct ink_ring *r = per_cpu_ptr(&ink_rings, cpu);

		vfree(r->buf);
		r->buf = NULL;
		r->head = r->tail = 0;
	}
}
