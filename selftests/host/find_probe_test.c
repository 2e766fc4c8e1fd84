// SPDX-License-Identifier: GPL-2.0
/*
 * Finding what to probe (issue 13: 6), on the first test kernel's
 * inkprobe_target.ko blob, with what the target's source says:
 *
 *   - inkprobe funcs: per function, the inlined calls, the probe addresses
 *     they are at and the out-of-line copies (tgt_mix() inlined into two
 *     callers; tgt_merged() twice at one address; tgt_part() inlined twice
 *     and called through a pointer; tgt_split() three heads and its .part;
 *     the .constprop and .isra clones; two static tgt_dup());
 *   - inkprobe vars: each instance's caller and each parameter's C type as
 *     declared in the source, available or why not (an implicit pointer, a
 *     parameter reference, merged calls passing different values);
 *   - dump --func, funcs and vars with nothing to show fail with a message;
 *   - user/tool/btf_c_type.c on the kernel's own BTF: a pointer to a struct, a
 *     pointer to const char, an array, a function pointer, a function.
 */
#include "kselftest_harness.h"
#include "host_test.h"
#include "../../user/tool/btf_c_type.h"

static const char *top(void)
{
	return host_env("INKPROBE_TOP", ".");
}

/* Runs `inkprobe-san CMD ... BLOB` with the target's BTF from files. */
static int tool(struct host_run *r, const char *cmd, const char *args)
{
	const char *cache = host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), *k = host_kernel();

	return host_run(r, "%s/build/inkprobe-san %s --base-btf %s/kernels/%s/build/vmlinux "
			"--module-btf %s/build/%s/kmod/inkprobe_target.ko %s "
			"%s/build/%s/blobs/inkprobe_target.inkb", top(), cmd, cache, k, top(), k,
			args, top(), k);
}

/* The funcs line of @func: INLINED SITES OUT-OF-LINE, or -1s. */
static void counts(const char *out, const char *func, int c[3])
{
	char re[256];
	const char *p = out;
	size_t n = strlen(func);

	c[0] = c[1] = c[2] = -1;
	snprintf(re, sizeof(re), "^%s +[0-9]+ +[0-9]+ +[0-9]+$", func);
	if (host_lines(out, re) != 1)
		return;
	while ((p = strstr(p, func))) {
		if ((p == out || p[-1] == '\n') && p[n] == ' ') {
			sscanf(p + n, "%d %d %d", &c[0], &c[1], &c[2]);
			return;
		}
		p += n;
	}
}

TEST(funcs_counts_from_the_source)
{
	static const struct {
		const char *func;
		int inlined, sites, out_of_line;
	} want[] = {
		{ "tgt_mix", 2, 2, 0 },		/* tgt_caller_a(), tgt_caller_b() */
		{ "tgt_merged", 2, 1, 0 },	/* two calls, one address */
		{ "tgt_part", 2, 2, 1 },	/* and through tgt_part_ptr */
		{ "tgt_uncharge", 2, 2, 1 },	/* and through tgt_uncharge_ptr */
		{ "tgt_split", 3, 3, 1 },	/* three heads, tgt_split.part.N */
		{ "tgt_refused", 4, 4, 0 },	/* four callers */
		{ "tgt_cp", 0, 0, 1 },		/* tgt_cp.constprop.N */
		{ "tgt_sra", 0, 0, 1 },		/* tgt_sra.isra.N */
		{ "tgt_dup", 0, 0, 2 },		/* tgt_dup_a.c's and tgt_dup_b.c's */
		{ "tgt_loc_pair", 1, 1, 0 },
		{ "tgt_strings", 1, 1, 0 },
	};
	struct host_run r;
	size_t i;
	int c[3];

	ASSERT_EQ(0, tool(&r, "funcs", "")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, host_lines(r.out, "^FUNCTION +INLINED +SITES +OUT-OF-LINE$"));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		counts(r.out, want[i].func, c);
		EXPECT_EQ(want[i].inlined, c[0]) TH_LOG("%s", want[i].func);
		EXPECT_EQ(want[i].sites, c[1]) TH_LOG("%s", want[i].func);
		EXPECT_EQ(want[i].out_of_line, c[2]) TH_LOG("%s", want[i].func);
	}
	/* callers are not listed: they have no instances of their own */
	EXPECT_EQ(0, host_lines(r.out, "^tgt_caller_a "));
	EXPECT_EQ(1, host_lines(r.out, "^[0-9]+ functions, [0-9]+ inlined calls, [0-9]+ "
				"out-of-line copies$"));
}

TEST(funcs_glob)
{
	struct host_run r;
	int c[3];

	/* a shell pattern: exactly the functions it names */
	ASSERT_EQ(0, tool(&r, "funcs", "'tgt_[ms][ir][xa]*'")) TH_LOG("%s", r.err);
	counts(r.out, "tgt_mix", c);
	EXPECT_EQ(2, c[0]);
	counts(r.out, "tgt_sra", c);
	EXPECT_EQ(1, c[2]);
	EXPECT_EQ(0, host_lines(r.out, "^tgt_merged "));
	EXPECT_EQ(1, host_lines(r.out, "^2 functions, 2 inlined calls, 1 out-of-line copies$"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, tool(&r, "funcs", "tgt_merged"));
	EXPECT_EQ(1, host_lines(r.out, "^1 functions, 2 inlined calls, 0 out-of-line copies$"));
	/* nothing matches: a message, exit status 1 */
	EXPECT_EQ(1, tool(&r, "funcs", "'zz_no_such_*'"));
	EXPECT_STREQ("", r.out);
	EXPECT_NE(NULL, strstr(r.err, "no function matching 'zz_no_such_*' has instances in "))
		TH_LOG("%s", r.err);
}

TEST(vars_tgt_mix)
{
	struct host_run r, d;

	ASSERT_EQ(0, tool(&r, "vars", "tgt_mix")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, host_lines(r.out, "^tgt_mix inkprobe_target:tgt_caller_a\\+0x[0-9a-f]+ "
				"\\(inline\\)$")) TH_LOG("%s", r.out);
	EXPECT_EQ(1, host_lines(r.out, "^tgt_mix inkprobe_target:tgt_caller_b\\+0x[0-9a-f]+ "
				"\\(inline\\)$"));
	/* static __always_inline u64 tgt_mix(u64 reg, int konst, const struct tgt_obj *obj) */
	EXPECT_EQ(2, host_lines(r.out, "^\tu64 reg +available: %[a-z0-9]+$"));
	EXPECT_EQ(1, host_lines(r.out, "^\tint konst +available: \\\\7$"));
	EXPECT_EQ(1, host_lines(r.out, "^\tint konst +available: \\\\-11$"));
	EXPECT_EQ(2, host_lines(r.out, "^\tconst struct tgt_obj \\*obj +available: "));
	EXPECT_EQ(0, host_lines(r.out, "unavailable"));
	/* the same sites as dump */
	ASSERT_EQ(0, tool(&d, "dump --func tgt_mix", ""));
	EXPECT_EQ(2, host_lines(d.out, "^p:inline/tgt_mix inkprobe_target:tgt_caller_[ab]\\+"));
	{
		char caller[128], re[256];
		const char *p = strstr(d.out, "inkprobe_target:");
		unsigned int off;

		ASSERT_NE(NULL, p);
		snprintf(caller, sizeof(caller), "%.*s", (int)strcspn(p, "+"), p);
		ASSERT_EQ(1, sscanf(p + strlen(caller), "+0x%x", &off));
		snprintf(re, sizeof(re), "^tgt_mix %s\\+0x%x \\(inline\\)$", caller, off);
		EXPECT_EQ(1, host_lines(r.out, re)) TH_LOG("%s in %s", re, r.out);
	}
}

TEST(vars_unavailable_and_why)
{
	struct host_run r;

	/* two calls at one address: shift is 12 and 13, v is a and a + b; scale 7 */
	ASSERT_EQ(0, tool(&r, "vars", "tgt_merged")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, host_lines(r.out, "^tgt_merged inkprobe_target:tgt_merge_caller\\+0x[0-9a-f]+ "
				"\\(inline, 2 calls merged\\)$")) TH_LOG("%s", r.out);
	EXPECT_EQ(1, host_lines(r.out, "^\tu64 v +unavailable: the 2 calls merged here pass "
				"different values$"));
	EXPECT_EQ(1, host_lines(r.out, "^\tu32 shift +unavailable: the 2 calls merged here "
				"pass different values$"));
	EXPECT_EQ(1, host_lines(r.out, "^\tu32 scale +available: \\\\7$"));
	/* an implicit pointer: the pointer itself has no value */
	ASSERT_EQ(0, tool(&r, "vars", "tgt_loc_implicit"));
	EXPECT_EQ(1, host_lines(r.out, "^\tconst u32 \\*p +unavailable: optimized out at the "
				"probe address$")) TH_LOG("%s", r.out);
	/* .isra: o is passed as o->weight, a parameter reference */
	ASSERT_EQ(0, tool(&r, "vars", "tgt_sra"));
	EXPECT_EQ(1, host_lines(r.out, "^tgt_sra inkprobe_target:tgt_sra\\.isra\\.[0-9]+\\+0x0 "
				"\\(out-of-line\\)$")) TH_LOG("%s", r.out);
	EXPECT_EQ(1, host_lines(r.out, "^\tconst struct tgt_obj \\*o +unavailable: optimized out "
				"at the probe address$"));
	EXPECT_EQ(1, host_lines(r.out, "^\tu64 x +available: %si$"));
}

TEST(vars_c_types_from_the_source)
{
	static const struct {
		const char *func;
		int instances;
		const char *lines[3];
	} want[] = {
		{ "tgt_strings", 1, { "^\tconst struct tgt_label \\*l +available",
				      "^\tconst __kernel_caddr_t s +available" } },
		{ "tgt_loc_pair", 1, { "^\tstruct tgt_pair p +available: \\{pieces " } },
		{ "tgt_loc_regoff", 1, { "^\tconst u32 \\*field +available: \\{" } },
		{ "tgt_uncharge", 3, { "^\tstruct tgt_acct \\*a +available", "^\tint size +available" } },
		{ "tgt_split", 4, { "^\tconst struct tgt_acct \\*a +available", "^\ts64 x +available" } },
		{ "tgt_part", 3, { "^\tu64 a7 +available" } },
	};
	struct host_run r;
	size_t i, j;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char re[128];

		ASSERT_EQ(0, tool(&r, "vars", want[i].func)) TH_LOG("%s", r.err);
		snprintf(re, sizeof(re), "^%s inkprobe_target:", want[i].func);
		EXPECT_EQ(want[i].instances, host_lines(r.out, re)) TH_LOG("%s", r.out);
		for (j = 0; j < 3 && want[i].lines[j]; j++)
			EXPECT_EQ(want[i].instances, host_lines(r.out, want[i].lines[j]))
				TH_LOG("%s: %s in\n%s", want[i].func, want[i].lines[j], r.out);
	}
	/* tgt_split.part.N: the rest of the function, marked */
	ASSERT_EQ(0, tool(&r, "vars", "tgt_split"));
	EXPECT_EQ(1, host_lines(r.out, "^tgt_split inkprobe_target:tgt_split\\.part\\.[0-9]+\\+0x0 "
				"\\(out-of-line, split part\\)$"));
}

TEST(nothing_to_show_fails)
{
	struct host_run r;

	EXPECT_EQ(1, tool(&r, "vars", "tgt_no_such_function"));
	EXPECT_STREQ("", r.out);
	EXPECT_NE(NULL, strstr(r.err, "no instance of tgt_no_such_function in ")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, tool(&r, "dump --func tgt_no_such_function", ""));
	EXPECT_STREQ("", r.out);
	EXPECT_NE(NULL, strstr(r.err, "no instance of tgt_no_such_function in ")) TH_LOG("%s", r.err);
	/* a caller is not a callee */
	EXPECT_EQ(1, tool(&r, "dump --func tgt_caller_a", ""));
	/* usage */
	EXPECT_EQ(2, host_run(&r, "%s/build/inkprobe-san vars", top()));
	EXPECT_NE(NULL, strstr(r.err, "usage: inkprobe vars"));
	EXPECT_EQ(2, host_run(&r, "%s/build/inkprobe-san funcs a b c", top()));
	EXPECT_NE(NULL, strstr(r.err, "usage: inkprobe funcs"));
	/* without BLOB: the blobs inkprobe.ko has loaded, and here it is not */
	EXPECT_EQ(1, host_run(&r, "INKPROBE_DEBUGFS_DIR=/nonexistent/inkprobe "
			      "%s/build/inkprobe-san funcs 'tgt_*'", top()));
	EXPECT_NE(NULL, strstr(r.err, "inkprobe.ko is not loaded")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, host_run(&r, "INKPROBE_DEBUGFS_DIR=/nonexistent/inkprobe "
			      "%s/build/inkprobe-san vars tgt_mix", top()));
	EXPECT_NE(NULL, strstr(r.err, "inkprobe.ko is not loaded")) TH_LOG("%s", r.err);
}

/* The type of member @member of struct @strct as C, named @name. */
static const char *member_decl(const struct ink_btf *btf, const char *strct, const char *member,
			       const char *name)
{
	static char out[512];
	u32 id = ink_btf_find(btf, strct, BTF_KIND_STRUCT), off, type;

	if (!id || ink_btf_member(btf, id, member, &off, &type))
		return "(no such member)";
	btf_c_decl(btf, type, name, out, sizeof(out));
	return out;
}

TEST(c_types_of_kernel_btf)
{
	struct ink_btf vmlinux;
	char out[512];
	u32 id;

	ASSERT_EQ(0, host_vmlinux_btf(&vmlinux));
	EXPECT_STREQ("struct mm_struct *mm", member_decl(&vmlinux, "task_struct", "mm", "mm"));
	EXPECT_STREQ("struct mm_struct *", member_decl(&vmlinux, "task_struct", "mm", NULL));
	EXPECT_STREQ("unsigned int __state", member_decl(&vmlinux, "task_struct", "__state",
							 "__state"));
	EXPECT_STREQ("char comm[16]", member_decl(&vmlinux, "task_struct", "comm", "comm"));
	EXPECT_STREQ("const char *name", member_decl(&vmlinux, "kernfs_node", "name", "name"));
	/* ssize_t (*read) (struct file *, char __user *, size_t, loff_t *); */
	EXPECT_STREQ("ssize_t (*read)(struct file *, char *, size_t, loff_t *)",
		     member_decl(&vmlinux, "file_operations", "read", "read"));
	EXPECT_STREQ("ssize_t (*)(struct file *, char *, size_t, loff_t *)",
		     member_decl(&vmlinux, "file_operations", "read", ""));
	/* struct list_head { struct list_head *next, *prev; } */
	EXPECT_STREQ("struct list_head *prev", member_decl(&vmlinux, "list_head", "prev", "prev"));
	/* a FUNC: its prototype, named */
	id = ink_btf_find(&vmlinux, "vfs_read", BTF_KIND_FUNC);
	ASSERT_NE(0, id);
	btf_c_decl(&vmlinux, id, NULL, out, sizeof(out));
	EXPECT_STREQ("ssize_t vfs_read(struct file *, char *, size_t, loff_t *)", out);
	/* void, and a pointer to it */
	btf_c_decl(&vmlinux, 0, "x", out, sizeof(out));
	EXPECT_STREQ("void x", out);
	EXPECT_STREQ("void *private_data", member_decl(&vmlinux, "file", "private_data",
						       "private_data"));
}

/*
 * Crafted BTF ends: a pointer to itself, and a prototype whose eight
 * parameters point to it again (8^16 types within the depth limit alone).
 */
TEST(c_types_of_crafted_btf_end)
{
	uint32_t raw[] = {
		0x0001eb9f, 24, 0, 25 * 4, 25 * 4, 4,	/* header: types, strings */
		0, BTF_KIND_PTR << 24, 1,		/* 1: a pointer to 1 */
		0, BTF_KIND_FUNC_PROTO << 24 | 8, 0,	/* 2: void (3, 3, 3, 3, 3, 3, 3, 3) */
		0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3,
		0, BTF_KIND_PTR << 24, 2,		/* 3: a pointer to 2 */
		0,					/* strings: "" */
	};
	struct ink_btf btf;
	struct ink_err err = { 0 };
	uint32_t offs[4];
	char out[512];

	ASSERT_EQ(0, ink_btf_open(&btf, raw, sizeof(raw), NULL, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ink_btf_index(&btf, offs, &err)) TH_LOG("%s", err.msg);
	btf_c_decl(&btf, 1, "p", out, sizeof(out));
	EXPECT_EQ(0, strncmp(out, "? ***", 5)) TH_LOG("%s", out);
	btf_c_decl(&btf, 3, "f", out, sizeof(out));
	/* cut at 1024 types: it ends, within the buffer, "?" where it was cut */
	EXPECT_NE(NULL, strstr(out, " (*f)(")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "void (*)(void (*)(")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strchr(out, '?')) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
