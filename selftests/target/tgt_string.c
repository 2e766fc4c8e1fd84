// SPDX-License-Identifier: GPL-2.0
/*
 * :string arguments: a pointer to char (through a typedef and const:
 * __kernel_caddr_t is char *), and an array of char inside a struct, read
 * where it is; strings at the edge of readable memory and with bytes that
 * print escaped.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "tgt.h"

struct tgt_label {
	u32 len;
	char name[16];
	const char *note;
};

static unsigned long tgt_strings_calls;

static __always_inline u64 tgt_strings(const struct tgt_label *l, const __kernel_caddr_t s)
{
	WRITE_ONCE(tgt_strings_calls, tgt_strings_calls + 1);	/* code of its own */
	return l->len + strlen(s);
}

static TGT_CALLER u64 tgt_strings_caller(const struct tgt_label *l, const __kernel_caddr_t s)
{
	tgt_expect("tgt_strings %s name=\"%s\" note=\"%s\" s=\"%s\"", __func__, l->name,
		   l->note, s);
	return tgt_strings(l, s);
}

u64 tgt_run_strings(u64 a)
{
	struct tgt_label l = { .note = "a note" };
	char s[24];

	snprintf(l.name, sizeof(l.name), "name%llu", a % 1000);
	l.len = strlen(l.name);
	snprintf(s, sizeof(s), "text %llu", a);
	return tgt_strings_caller(&l, s);
}

/*
 * "stredge A": :string at the edge of readable memory.  Two one-page
 * vmalloc areas, each followed by its guard page, which is never mapped:
 *
 *   edge  "edge A" whose NUL is the last byte of the first page
 *   cut   "cutNNN" (NNN = A % 1000) in the last 6 bytes of the second
 *         page, without a NUL: the next byte is in the guard page
 *   bad   the first byte of the second page's guard page: every read faults
 *   odd   quotes, backslashes and bytes outside printable ASCII:
 *         q"b\s, then 0x0a 0x09 0x01 0x1b 0x7f 0x80 0xff, then "end"
 *
 * Nothing here reads the strings: the inlined copy only passes the
 * pointers on (tgt_str_edge_sink), so a pointer into the guard page is
 * safe.  No expected lines: the tests know the values.
 */
static unsigned long tgt_str_edge_sink;

static __always_inline void tgt_str_edge(const char *edge, const char *cut, const char *bad,
					 const char *odd)
{
	WRITE_ONCE(tgt_str_edge_sink, (unsigned long)edge ^ (unsigned long)cut ^
		   (unsigned long)bad ^ (unsigned long)odd);
}

static TGT_CALLER void tgt_str_edge_caller(const char *edge, const char *cut, const char *bad,
					   const char *odd)
{
	tgt_str_edge(edge, cut, bad, odd);
}

int tgt_run_str_edge(u64 a)
{
	static const char odd[] = "q\"b\\s\n\t\x01\x1b\x7f\x80\xff" "end";
	char *first = vmalloc(PAGE_SIZE), *second = vmalloc(PAGE_SIZE), *edge, *cut;
	int n;

	if (!first || !second) {
		vfree(first);
		vfree(second);
		return -ENOMEM;
	}
	/* no memcpy(): its fortified checks would be inlined instances too */
	memset(first, 'x', PAGE_SIZE);
	n = snprintf(NULL, 0, "edge %llu", a) + 1;
	edge = first + PAGE_SIZE - n;
	snprintf(edge, n, "edge %llu", a);
	memset(second, 'y', PAGE_SIZE);
	cut = second + PAGE_SIZE - 6;
	cut[0] = 'c';
	cut[1] = 'u';
	cut[2] = 't';
	cut[3] = '0' + a / 100 % 10;
	cut[4] = '0' + a / 10 % 10;
	cut[5] = '0' + a % 10;
	tgt_str_edge_caller(edge, cut, second + PAGE_SIZE, odd);
	vfree(first);
	vfree(second);
	return 0;
}
