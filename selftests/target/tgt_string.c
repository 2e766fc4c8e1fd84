// SPDX-License-Identifier: GPL-2.0
/*
 * :string arguments: a pointer to char (through a typedef and const:
 * __kernel_caddr_t is char *), and an array of char inside a struct, read
 * where it is.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/string.h>

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
