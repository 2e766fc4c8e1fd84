// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe gen on inkprobe_target.ko of the first test kernel, checked
 * against an independent DWARF reader: `perf probe -m MODULE -D` (perf's
 * own, elfutils-based probe finder) gives each instance's caller+offset and
 * fetch-args.  Every instance site must be the one perf finds; every
 * argument is perf's fetch-arg where perf is right, and otherwise what the
 * target's source says it is (a constant, a field at its offset, the
 * address of a global, two registers for a two-word struct, ...).  Where
 * perf is wrong (Documentation/generating.rst lists how), nothing asserts
 * what perf says: these tests test inkprobe, not perf.
 *
 * Covers every location class: register, constant, register+offset value,
 * memory at register+offset, frame base, relocated address, pieces,
 * arithmetic, optimized out; and out-of-line copies, .constprop and .isra
 * clones, duplicate static names, functions GCC splits in two, two calls
 * merged at one address.  Also: two gen runs give the same bytes, and gen
 * refuses a --base-btf of another build.
 *
 * Sites kprobes refuse: the module's own tables, as readelf and objdump
 * read them (the relocations of __jump_table, .static_call_sites and
 * __bug_table, the instruction lengths), say where no probe may go; no
 * record of the blob is there, the instance that starts with a static call
 * is probed at the instruction after it, the one that starts on a static
 * branch has no record.
 */
#include <ctype.h>
#include <limits.h>
#include <regex.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "host_test.h"

#define MAX_INST	8
#define MAX_ARGS	8
#define TEXT		128

struct inst {
	char site[TEXT];		/* caller+0xoff */
	int nr_args;
	char name[MAX_ARGS][32];
	char fetch[MAX_ARGS][TEXT];	/* without the :type */
	char type[MAX_ARGS][16];
};

static const char *top(void)
{
	return host_env("INKPROBE_TOP", ".");
}

static void paths(char *ko, char *vmlinux, char *blob, size_t n)
{
	snprintf(ko, n, "%s/build/%s/kmod/inkprobe_target.ko", top(), host_kernel());
	snprintf(vmlinux, n, "%s/kernels/%s/build/vmlinux",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), host_kernel());
	snprintf(blob, n, "%s/build/%s/blobs/inkprobe_target.inkb", top(), host_kernel());
}

/* The next space-separated token of *@s, spaces inside (), {} included. */
static char *token(char **s)
{
	char *start = *s, *p;
	int depth = 0;

	while (*start == ' ')
		start++;
	if (!*start)
		return NULL;
	for (p = start; *p && (depth || *p != ' '); p++) {
		if (*p == '(' || *p == '{')
			depth++;
		else if ((*p == ')' || *p == '}') && depth)
			depth--;
	}
	if (*p)
		*p++ = '\0';
	*s = p;
	return start;
}

/* "p:GROUP/EVENT [MOD:]CALLER+OFF name=fetch:type ..." -> @in */
static bool parse_line(char *line, struct inst *in)
{
	char *rest = line, *tok, *colon;
	unsigned long off;

	memset(in, 0, sizeof(*in));
	line[strcspn(line, "\t\n")] = '\0';
	if (strncmp(line, "p:", 2) || !token(&rest))
		return false;
	tok = token(&rest);
	if (!tok)
		return false;
	colon = strchr(tok, ':');	/* module prefix */
	if (colon)
		tok = colon + 1;
	colon = strrchr(tok, '+');
	if (!colon)
		return false;
	off = strtoul(colon + 1, NULL, 0);	/* perf: decimal, dump: 0x */
	snprintf(in->site, TEXT, "%.*s+0x%lx", (int)(colon - tok), tok, off);
	while ((tok = token(&rest)) && in->nr_args < MAX_ARGS) {
		char *eq = strchr(tok, '=');
		char *ty = strrchr(tok, ':');

		if (!eq)
			continue;
		snprintf(in->name[in->nr_args], 32, "%.*s", (int)(eq - tok), tok);
		if (ty && ty > eq && !strpbrk(ty, "})")) {
			snprintf(in->type[in->nr_args], 16, "%s", ty + 1);
			*ty = '\0';
		}
		snprintf(in->fetch[in->nr_args], TEXT, "%s", eq + 1);
		in->nr_args++;
	}
	return true;
}

/* Runs @cmd; its "p:" lines, sorted by site, into @out. */
static int run(const char *cmd, struct inst *out)
{
	FILE *f = popen(cmd, "r");
	char line[1024];
	int n = 0, i, j;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < MAX_INST)
		if (parse_line(line, &out[n]))
			n++;
	pclose(f);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(out[i].site, out[j].site) > 0) {
				struct inst t = out[i];

				out[i] = out[j];
				out[j] = t;
			}
	return n;
}

static int ours(const char *func, struct inst *out)
{
	char ko[512], vml[512], blob[512], cmd[2048];

	paths(ko, vml, blob, sizeof(ko));
	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san dump --base-btf %s --module-btf %s "
		 "--func %s %s 2>&1", top(), vml, ko, func, blob);
	return run(cmd, out);
}

static int perf(const char *spec, struct inst *out)
{
	char ko[512], vml[512], blob[512], cmd[2048];

	paths(ko, vml, blob, sizeof(ko));
	snprintf(cmd, sizeof(cmd), "perf probe -q -m %s -D '%s' 2>/dev/null", ko, spec);
	return run(cmd, out);
}

static const char *arg(const struct inst *in, const char *name)
{
	int i;

	for (i = 0; i < in->nr_args; i++)
		if (!strcmp(in->name[i], name))
			return in->fetch[i];
	return "(missing)";
}

static bool matches(const char *s, const char *re)
{
	regex_t r;
	bool ok;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
		return false;
	ok = !regexec(&r, s, 0, NULL, 0);
	regfree(&r);
	return ok;
}

#define REG	"%(ax|bx|cx|dx|si|di|bp|sp|r8|r9|r1[0-5])"

/* Our sites are perf's, in the same order. */
static void same_sites(struct __test_metadata *_metadata, const struct inst *a, int na,
		       const struct inst *b, int nb)
{
	int i;

	ASSERT_EQ(na, nb);
	for (i = 0; i < na; i++)
		EXPECT_STREQ(a[i].site, b[i].site);
}

TEST(register_and_constant)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no = ours("tgt_mix", o), np = perf("tgt_mix reg obj", p), i;

	ASSERT_EQ(2, no);
	same_sites(_metadata, o, no, p, np);
	EXPECT_TRUE(matches(o[0].site, "^tgt_caller_a\\+"));
	EXPECT_TRUE(matches(o[1].site, "^tgt_caller_b\\+"));
	EXPECT_STREQ("\\7", arg(&o[0], "konst"));
	EXPECT_STREQ("\\-11", arg(&o[1], "konst"));
	EXPECT_STREQ("s32", o[0].type[1]);
	for (i = 0; i < 2; i++) {
		EXPECT_TRUE(matches(arg(&o[i], "reg"), "^" REG "$"));
		EXPECT_STREQ(arg(&p[i], "reg"), arg(&o[i], "reg"));
		EXPECT_STREQ(arg(&p[i], "obj"), arg(&o[i], "obj"));
	}
}

TEST(register_plus_offset_value)
{
	struct inst o[MAX_INST], p[MAX_INST];
	char want[TEXT];
	int no = ours("tgt_loc_regoff", o), np = perf("tgt_loc_regoff field", p);

	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	/*
	 * &o->weight: the register perf names (perf is right about it, not
	 * about reading memory there) + 8, the offset of weight, as a value
	 */
	ASSERT_TRUE(matches(arg(&p[0], "field"), "^\\+8\\(" REG "\\)$"));
	snprintf(want, sizeof(want), "{%.*s+8}", (int)strlen(arg(&p[0], "field")) - 4,
		 arg(&p[0], "field") + 3);
	EXPECT_STREQ(want, arg(&o[0], "field"));
}

TEST(memory_at_register_plus_offset)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no = ours("tgt_loc_mem", o), np = perf("tgt_loc_mem", p);

	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	/* n is o->weight, read where it lives: 4 bytes at a register + 8 */
	EXPECT_TRUE(matches(arg(&o[0], "n"), "^\\+8\\(" REG "\\)$"));
	EXPECT_STREQ("u32", o[0].type[0]);
	EXPECT_TRUE(matches(arg(&o[0], "salt"), "^" REG "$"));
}

TEST(frame_base_and_out_of_line_copy)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no = ours("tgt_part", o), np = perf("tgt_part a1 a2 a3 a4 a5 a6 a7", p), i, j;

	ASSERT_EQ(3, no);
	same_sites(_metadata, o, no, p, np);
	/* the out-of-line copy: a7 on the stack at entry (frame base = CFA) */
	EXPECT_STREQ("tgt_part+0x0", o[0].site);
	for (j = 0; j < 7; j++)
		EXPECT_STREQ(p[0].fetch[j], o[0].fetch[j]);
	EXPECT_STREQ("+8(%sp)", arg(&o[0], "a7"));
	/* inlined copies: every argument found */
	for (i = 1; i < 3; i++)
		for (j = 0; j < 7; j++)
			EXPECT_STRNE("(optimized out)", o[i].fetch[j]);
	/* a2 was spilled: a stack slot, as register sp + offset */
	EXPECT_TRUE(matches(arg(&o[1], "a2"), "^\\+[0-9]+\\(%sp\\)$"));
}

TEST(relocated_address)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no = ours("tgt_loc_global", o), np = perf("tgt_loc_global g by", p);

	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	/* the address of tgt_global_obj, relocated at load (LOC_SYMBOL_ADDR) */
	EXPECT_STREQ("{&tgt_global_obj+0}", arg(&o[0], "g"));
	EXPECT_STREQ(arg(&p[0], "by"), arg(&o[0], "by"));
}

TEST(pieces)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no = ours("tgt_loc_pair", o), np = perf("tgt_loc_pair", p);

	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	/* struct tgt_pair by value: lo and hi in two registers */
	EXPECT_TRUE(matches(arg(&o[0], "p"), "^\\{pieces " REG ":4 " REG ":4\\}$"));
}

TEST(arithmetic_and_location_views)
{
	struct inst o[MAX_INST], p[MAX_INST];
	char want[TEXT];
	int no = ours("tgt_loc_unused", o), np = perf("tgt_loc_unused", p);

	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	EXPECT_TRUE(matches(arg(&o[0], "used"), "^" REG "$"));
	/* GCC keeps x * 7 for the unused argument: an exact multiplication */
	snprintf(want, sizeof(want), "{(%s*\\7)}", arg(&o[0], "used"));
	EXPECT_STREQ(want, arg(&o[0], "unused"));
}

TEST(register_at_stack_caller)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no = ours("tgt_loc_stack", o), np = perf("tgt_loc_stack spilled", p);

	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	EXPECT_STREQ(arg(&p[0], "spilled"), arg(&o[0], "spilled"));
}

TEST(constprop_and_isra_clones)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no, np;

	no = ours("tgt_cp", o);
	np = perf("tgt_cp x mode", p);
	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	EXPECT_TRUE(matches(o[0].site, "^tgt_cp\\.constprop\\.[0-9]+\\+0x0$"));
	EXPECT_STREQ(arg(&p[0], "x"), arg(&o[0], "x"));
	EXPECT_STREQ("\\3", arg(&o[0], "mode"));
	EXPECT_STREQ(arg(&p[0], "mode"), arg(&o[0], "mode"));

	no = ours("tgt_sra", o);
	np = perf("tgt_sra x", p);
	ASSERT_EQ(1, no);
	same_sites(_metadata, o, no, p, np);
	EXPECT_TRUE(matches(o[0].site, "^tgt_sra\\.isra\\.[0-9]+\\+0x0$"));
	/* o is passed as o->weight: DW_OP_GNU_parameter_ref, unavailable */
	EXPECT_STREQ("(optimized out)", arg(&o[0], "o"));
	EXPECT_STREQ(arg(&p[0], "x"), arg(&o[0], "x"));
}

TEST(duplicate_static_names)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no = ours("tgt_dup", o), np = perf("tgt_dup x", p), i, dups = 0;
	struct ink_btf vmlinux, split;
	struct ink_open_env env = { .base = &vmlinux };
	struct ink_blob b;
	struct ink_err err;
	uint32_t len;
	void *data = host_target_blob(&len);

	ASSERT_EQ(2, no);
	same_sites(_metadata, o, no, p, np);
	for (i = 0; i < 2; i++) {
		EXPECT_STREQ("tgt_dup+0x0", o[i].site);
		EXPECT_STREQ(arg(&p[i], "x"), arg(&o[i], "x"));
	}
	/* two SYMBOLS entries named tgt_dup, told apart by dup_index */
	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, host_vmlinux_btf(&vmlinux));
	ASSERT_EQ(0, ink_blob_open(&b, &split, data, len, &env, &err));
	for (i = 0; i < (int)b.nr_syms; i++)
		if (!strcmp(ink_btf_name(&split, b.syms[i].btf_id), "tgt_dup"))
			dups |= 1 << ink_symbol_dup(&b.syms[i]);
	EXPECT_EQ(3, dups);
	ink_blob_close(&split);
	free(data);
}

/* Lines of `dump @opts --func @func` matching @re. */
static int dump_opt_lines(const char *opts, const char *func, const char *re)
{
	char ko[512], vml[512], blob[512], cmd[2048], line[1024];
	FILE *f;
	int n = 0;

	paths(ko, vml, blob, sizeof(ko));
	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san dump %s --base-btf %s --module-btf %s "
		 "--func %s %s 2>&1", top(), opts, vml, ko, func, blob);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += matches(line, re);
	pclose(f);
	return n;
}

static int dump_lines(const char *func, const char *re)
{
	return dump_opt_lines("", func, re);
}

TEST(split_functions)
{
	struct inst o[MAX_INST], p[MAX_INST];
	int no, np, i;

	/*
	 * The rest of tgt_uncharge() is inlined back into each of its three
	 * copies, where DWARF calls it a copy of tgt_uncharge() from its own
	 * first line: no instance.  perf does not look inside an instance.
	 */
	no = ours("tgt_uncharge", o);
	np = perf("tgt_uncharge a size", p);
	ASSERT_EQ(3, no);
	same_sites(_metadata, o, no, p, np);
	for (i = 0; i < no; i++) {
		EXPECT_STREQ(arg(&p[i], "a"), arg(&o[i], "a"));
		EXPECT_STREQ(arg(&p[i], "size"), arg(&o[i], "size"));
	}
	/* tgt_split(): three inlined heads and the out-of-line rest, marked */
	no = ours("tgt_split", o);
	np = perf("tgt_split a x", p);
	ASSERT_EQ(4, no);
	same_sites(_metadata, o, no, p, np);
	EXPECT_TRUE(matches(o[0].site, "^tgt_split\\.part\\.[0-9]+\\+0x0$"));
	for (i = 0; i < no; i++)
		EXPECT_STREQ(arg(&p[i], "x"), arg(&o[i], "x"));
	EXPECT_EQ(1, dump_lines("tgt_split", "tgt_split\\.part\\.[0-9]+\\+0x0 .*# out-of-line, split part"));
	EXPECT_EQ(1, dump_lines("tgt_split", "split part"));
}

TEST(merged_calls_keep_only_common_locations)
{
	struct inst o[MAX_INST];

	/*
	 * tgt_merge_caller()'s two calls of tgt_merged() start at one
	 * instruction: one record.  scale is 7 in both; v is a in one call
	 * and a + b in the other, shift 12 and 13: neither may be printed.
	 */
	ASSERT_EQ(1, ours("tgt_merged", o));
	EXPECT_TRUE(matches(o[0].site, "^tgt_merge_caller\\+0x[0-9a-f]+$"));
	ASSERT_EQ(3, o[0].nr_args);
	EXPECT_STREQ("(optimized out)", arg(&o[0], "v"));
	EXPECT_STREQ("(optimized out)", arg(&o[0], "shift"));
	EXPECT_STREQ("\\7", arg(&o[0], "scale"));
	EXPECT_STREQ("u32", o[0].type[2]);
	EXPECT_EQ(1, dump_lines("tgt_merged", "# inline, merged: 2 calls share this address, "
				"ambiguous \\(v shift\\)"));
}

TEST(instance_ranges_hold_the_entry)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	struct ink_btf vmlinux, split;
	struct ink_open_env env = { .base = &vmlinux };
	struct ink_blob b;
	struct ink_err err;
	uint32_t len, n = 0;
	void *data = host_target_blob(&len);

	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, host_vmlinux_btf(&vmlinux));
	ASSERT_EQ(0, ink_blob_open(&b, &split, data, len, &env, &err));
	ink_instance_iter_init(&it, &b);
	while (ink_instance_next(&it, &in)) {
		struct ink_range_iter r;
		bool entry = false, probe = false;
		s64 first = INT64_MAX;
		s32 start;
		u32 rlen;

		ASSERT_NE(0, in.nr_ranges);
		ink_range_iter_init(&r, &in);
		while (ink_range_next(&r, &start, &rlen)) {
			entry |= (s64)in.entry_offset >= start &&
				 (s64)in.entry_offset < (s64)start + rlen;
			probe |= (s64)in.caller_offset >= start &&
				 (s64)in.caller_offset < (s64)start + rlen;
			if (start < first)
				first = start;
		}
		/*
		 * GCC may put an inlined copy's entry (a location view) on the
		 * caller's instruction just before the copy's own code, e.g.
		 * tgt_stack_innermost on tgt_chain_c's "pop %rbx"; a probe
		 * there sees the arguments already set up.
		 */
		EXPECT_TRUE(entry || ((s64)in.entry_offset < first &&
				      first - (s64)in.entry_offset <= 15));
		EXPECT_TRUE(probe || in.caller_offset == in.entry_offset);
		n++;
	}
	EXPECT_EQ(b.nr_instances, n);
	ink_blob_close(&split);
	free(data);
}

/* The number after @key in @text, or -1. */
static long stat_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

TEST(stats_ceiling)
{
	char ko[512], vml[512], blob[512], cmd[2048], out[8192];
	long total, located, decodable;
	size_t len;
	FILE *f;

	paths(ko, vml, blob, sizeof(ko));
	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san gen --stats --base-btf %s -o %s/build/"
		 "check/stats-test.inkb %s 2>&1", top(), vml, top(), ko);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = '\0';
	ASSERT_EQ(0, pclose(f)) TH_LOG("%s", out);
	/* tgt_merge.c: one merged record, v and shift ambiguous */
	EXPECT_NE(NULL, strstr(out, "merged records: 1 (2 parameters ambiguous")) TH_LOG("%s", out);
	total = stat_after(out, "\nparameters");
	located = stat_after(out, "ceiling, located   somewhere in the instance:");
	decodable = stat_after(out, "ceiling, decodable somewhere in the instance:");
	ASSERT_LT(0, total) TH_LOG("%s", out);
	/* every parameter of the target has a location somewhere */
	EXPECT_EQ(total, located);
	/*
	 * decodable nowhere: tgt_loc_implicit's p (an implicit pointer),
	 * tgt_sra's o (a parameter reference) and tgt_ex_fault's out (the
	 * address of its caller's v, which GCC keeps in a register); the
	 * ambiguous ones are decodable at their own call's pc, the only ones
	 * not at the probe pc
	 */
	EXPECT_EQ(total - 3, decodable);
	EXPECT_NE(NULL, strstr(out, "decodable elsewhere in the instance, by reason:\n"
			       "  ambiguous: merged calls differ  ")) TH_LOG("%s", out);
	EXPECT_EQ(2, stat_after(out, "by reason:\n  ambiguous: merged calls differ"));
}

/* gen of the target module on base @base; its output in @out; exit status. */
static int gen_on_base(const char *base, char *out, size_t n)
{
	char ko[512], vml[512], blob[512], cmd[2048];
	size_t len = 0;
	FILE *f;
	int st;

	paths(ko, vml, blob, sizeof(ko));
	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san gen --base-btf %s -o %s/build/check/"
		 "base-test.inkb %s 2>&1", top(), base, top(), ko);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	len = fread(out, 1, n - 1, f);
	out[len] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* @vmlinux's .BTF as a raw BTF file at @path; with @shift a PTR type first. */
static int write_raw_btf(const char *vmlinux, const char *path, bool shift)
{
	struct btf *btf = btf__parse(vmlinux, NULL);
	struct btf_header h;
	const uint8_t *raw;
	uint32_t len, ptr[3] = { 0, BTF_KIND_PTR << 24, 0 };
	FILE *f;

	if (!btf)
		return -1;
	raw = btf__raw_data(btf, &len);
	f = fopen(path, "w");
	if (!raw || !f)
		return -1;
	memcpy(&h, raw, sizeof(h));
	if (shift) {
		h.type_len += sizeof(ptr);
		h.str_off += sizeof(ptr);
	}
	fwrite(&h, sizeof(h), 1, f);
	if (shift)
		fwrite(ptr, sizeof(ptr), 1, f);
	fwrite(raw + h.hdr_len, len - h.hdr_len, 1, f);
	btf__free(btf);
	return fclose(f);
}

TEST(base_btf_of_another_build_refused)
{
	char ko[512], vml[512], blob[512], other[512], raw[512], out[4096];
	const char *k = host_kernel(), *o = strcmp(k, "6.1") ? "6.1" : "6.12";

	paths(ko, vml, blob, sizeof(ko));
	snprintf(other, sizeof(other), "%s/kernels/%s/build/vmlinux",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), o);
	snprintf(raw, sizeof(raw), "%s/build/check/base-test.btf", top());
	/* the right base, as an ELF file and as raw BTF */
	EXPECT_EQ(0, gen_on_base(vml, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(0, write_raw_btf(vml, raw, false));
	EXPECT_EQ(0, gen_on_base(raw, out, sizeof(out))) TH_LOG("%s", out);
	/* the other kernel's vmlinux: its release */
	EXPECT_NE(0, gen_on_base(other, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "was built for")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ko));
	EXPECT_NE(NULL, strstr(out, other));
	/* its BTF alone: no release, the module's string offsets miss */
	ASSERT_EQ(0, write_raw_btf(other, raw, false));
	EXPECT_NE(0, gen_on_base(raw, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "does not fit the --base-btf")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, raw));
	/* the right BTF with one type added at the front: every id moves */
	ASSERT_EQ(0, write_raw_btf(vml, raw, true));
	EXPECT_NE(0, gen_on_base(raw, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "does not fit the --base-btf")) TH_LOG("%s", out);
}

/* ---- sites kprobes refuse, from readelf and objdump ---- */

#define MAX_SITES	64

struct site {
	char sec[32];		/* the text section, e.g. ".text" */
	unsigned long start, end;
	char kind[16];
	unsigned long entry;	/* the table entry's offset */
	unsigned long target;	/* a jump label's target, 0 if none */
};

struct sites {
	struct site s[MAX_SITES];
	int n;
};

/* The length of the instruction at @sec+@addr, from objdump -d; 0 if none. */
static unsigned long insn_len(const char *ko, const char *sec, unsigned long addr)
{
	char cmd[1024], line[512];
	unsigned long a, len = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d -j %s --start-address=0x%lx --stop-address=0x%lx %s",
		 sec, addr, addr + 16, ko);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *p;

		if (sscanf(line, " %lx:", &a) != 1 || a != addr || !tab || len)
			continue;
		/* "  17b9:\t66 90                \txchg   %ax,%ax" */
		for (p = tab + 1; *p && *p != '\t'; p++)
			len += isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) &&
			       (p[2] == ' ' || p[2] == '\t' || !p[2]) && (p == tab + 1 || p[-1] == ' ');
	}
	pclose(f);
	return len;
}

/*
 * readelf -rW: every entry of __jump_table (16 bytes: code, target, key),
 * .static_call_sites (8: addr, key) and __bug_table (any text relocation:
 * the ud2) that points into text, "SEC + ADDEND".
 */
static void read_sites(const char *ko, struct sites *out)
{
	char cmd[1024], line[512], table[64] = "", sec[32];
	unsigned long off, addend;
	FILE *f;

	out->n = 0;
	snprintf(cmd, sizeof(cmd), "readelf -rW %s", ko);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && out->n < MAX_SITES) {
		struct site *s = &out->s[out->n];

		if (sscanf(line, "Relocation section '.rela%63[^']'", table) == 1)
			continue;
		if (sscanf(line, "%lx %*s %*s %*s %31s + %lx", &off, sec, &addend) != 3 ||
		    strncmp(sec, ".text", 5))
			continue;
		/* jump_entry.target, after its code */
		if (!strcmp(table, "__jump_table") && off % 16 == 4 && out->n &&
		    !strcmp(out->s[out->n - 1].kind, "jump label") &&
		    out->s[out->n - 1].entry == off - 4) {
			out->s[out->n - 1].target = addend;
			continue;
		}
		memset(s, 0, sizeof(*s));
		snprintf(s->sec, sizeof(s->sec), "%s", sec);
		s->entry = off;
		s->start = addend;
		if (!strcmp(table, "__jump_table") && off % 16 == 0) {
			s->end = addend + insn_len(ko, sec, addend);
			snprintf(s->kind, sizeof(s->kind), "jump label");
		} else if (!strcmp(table, ".static_call_sites") && off % 8 == 0) {
			s->end = addend + 5;
			snprintf(s->kind, sizeof(s->kind), "static call");
		} else if (!strcmp(table, "__bug_table")) {
			s->end = addend + 1;
			snprintf(s->kind, sizeof(s->kind), "BUG");
		} else {
			continue;
		}
		out->n++;
	}
	pclose(f);
}

/* @name's section and value from readelf -sW / -SW; false if none. */
static bool elf_symbol(const char *ko, const char *name, char *sec, size_t n, unsigned long *value)
{
	char cmd[1024], line[512], sym[256], names[64][32] = { { 0 } };
	unsigned int ndx;
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -SW %s", ko);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char nm[32];

		if (sscanf(line, " [%u] %31s", &ndx, nm) == 2 && ndx < 64)
			snprintf(names[ndx], sizeof(names[ndx]), "%s", nm);
	}
	pclose(f);
	snprintf(cmd, sizeof(cmd), "readelf -sW %s", ko);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: %lx %*u FUNC %*s %*s %u %255s", value, &ndx, sym) == 3 &&
		    !strcmp(sym, name) && ndx < 64) {
			snprintf(sec, n, "%s", names[ndx]);
			found = true;
		}
	pclose(f);
	return found;
}

/* The refused site at @caller+@off, or NULL. */
static const struct site *site_at(const char *ko, const struct sites *ss, const char *caller,
				  unsigned long off)
{
	unsigned long value;
	char sec[32];
	int i;

	if (!elf_symbol(ko, caller, sec, sizeof(sec), &value))
		return NULL;
	for (i = 0; i < ss->n; i++)
		if (!strcmp(ss->s[i].sec, sec) && value + off >= ss->s[i].start &&
		    value + off < ss->s[i].end)
			return &ss->s[i];
	return NULL;
}

/* "caller+0xoff" -> caller, off */
static void split_site(const char *site, char *caller, size_t n, unsigned long *off)
{
	const char *plus = strrchr(site, '+');

	snprintf(caller, n, "%.*s", (int)(plus - site), site);
	*off = strtoul(plus + 1, NULL, 0);
}

TEST(no_record_on_a_refused_site)
{
	char ko[512], vml[512], blob[512], cmd[2048], line[512], caller[128];
	struct sites ss;
	unsigned long off, addr;
	int records = 0, jl = 0, sc = 0, bug = 0, i;
	FILE *f;

	paths(ko, vml, blob, sizeof(ko));
	read_sites(ko, &ss);
	for (i = 0; i < ss.n; i++) {
		jl += !strcmp(ss.s[i].kind, "jump label");
		sc += !strcmp(ss.s[i].kind, "static call");
		bug += !strcmp(ss.s[i].kind, "BUG");
		/* every jump label is a 2- or 5-byte instruction */
		EXPECT_TRUE(ss.s[i].end - ss.s[i].start == 2 || ss.s[i].end - ss.s[i].start == 5 ||
			    strcmp(ss.s[i].kind, "jump label"));
	}
	/* tgt_refuse.c and tgt_sites.c hold each kind */
	EXPECT_LE(3, jl);
	EXPECT_LE(2, sc);
	EXPECT_LE(1, bug);
	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san dump --addresses --base-btf %s "
		 "--module-btf %s %s 2>&1", top(), vml, ko, blob);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char site[256];
		const struct site *s;

		ASSERT_EQ(2, sscanf(line, "%lx %255s", &addr, site)) TH_LOG("%s", line);
		split_site(site, caller, sizeof(caller), &off);
		s = site_at(ko, &ss, caller, off);
		EXPECT_EQ(NULL, s) TH_LOG("%s: on a %s site", site, s->kind);
		records++;
	}
	pclose(f);
	EXPECT_LT(40, records);
}

TEST(static_call_at_entry_probed_after_it)
{
	struct inst o[MAX_INST], p[MAX_INST], q[MAX_INST];
	char ko[512], vml[512], blob[512], caller[128], spec[256];
	const struct site *s;
	struct sites ss;
	unsigned long off;

	paths(ko, vml, blob, sizeof(ko));
	read_sites(ko, &ss);
	/* the premise: perf's instance starts on a static call */
	ASSERT_EQ(1, perf("tgt_at_call", p));
	split_site(p[0].site, caller, sizeof(caller), &off);
	EXPECT_STREQ("tgt_sites_call_caller", caller);
	s = site_at(ko, &ss, caller, off);
	ASSERT_NE(NULL, s);
	ASSERT_STREQ("static call", s->kind);
	/* the probe right after the call's 5 bytes, the entry kept */
	ASSERT_EQ(1, ours("tgt_at_call", o));
	snprintf(spec, sizeof(spec), "%s+0x%lx", caller, off + 5);
	EXPECT_STREQ(spec, o[0].site);
	snprintf(spec, sizeof(spec), "tgt_at_call inkprobe_target:%s\\+0x%lx .*# inline, "
		 "entry \\+0x%lx\n", caller, off + 5, off);
	EXPECT_EQ(1, dump_lines("tgt_at_call", spec)) TH_LOG("%s", spec);
	/* v and k where perf finds them at that address */
	snprintf(spec, sizeof(spec), "%s+%lu v k", caller, off + 5);
	ASSERT_EQ(1, perf(spec, q));
	EXPECT_STREQ(arg(&q[0], "v"), arg(&o[0], "v"));
	EXPECT_STREQ(arg(&q[0], "k"), arg(&o[0], "k"));
	EXPECT_TRUE(matches(arg(&o[0], "v"), "^" REG "$"));
}

TEST(static_branch_at_entry_no_record)
{
	struct inst o[MAX_INST], p[MAX_INST];
	char ko[512], vml[512], blob[512], caller[128], spec[256];
	const struct site *s;
	struct sites ss;
	unsigned long off;

	paths(ko, vml, blob, sizeof(ko));
	read_sites(ko, &ss);
	/* perf: two instances, tgt_sites_branch's on a jump label */
	ASSERT_EQ(2, perf("tgt_at_branch v k", p));
	split_site(p[0].site, caller, sizeof(caller), &off);
	ASSERT_STREQ("tgt_sites_branch", caller);
	s = site_at(ko, &ss, caller, off);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("jump label", s->kind);
	split_site(p[1].site, caller, sizeof(caller), &off);
	ASSERT_STREQ("tgt_sites_plain", caller);
	EXPECT_EQ(NULL, site_at(ko, &ss, caller, off));
	/* the copy on the jump label: a NO_PROBE record, shown with --no-probe alone */
	split_site(p[0].site, caller, sizeof(caller), &off);
	snprintf(spec, sizeof(spec), "^p:inline/tgt_at_branch inkprobe_target:%s\\+0x%lx\t# "
		 "inline, no probe\n", caller, off);
	EXPECT_EQ(1, dump_opt_lines("--no-probe", "tgt_at_branch", spec)) TH_LOG("%s", spec);
	EXPECT_EQ(2, dump_opt_lines("--no-probe", "tgt_at_branch", "^p:inline/tgt_at_branch "));
	/* only the other one has a probeable record, where perf has it */
	ASSERT_EQ(1, ours("tgt_at_branch", o));
	EXPECT_STREQ(p[1].site, o[0].site);
	EXPECT_STREQ(arg(&p[1], "v"), arg(&o[0], "v"));
	EXPECT_STREQ(arg(&p[1], "k"), arg(&o[0], "k"));
	EXPECT_STREQ("\\1", arg(&o[0], "store"));
}

/*
 * From @start (in @sec of @ko), objdump's instructions up to the first jmp:
 * its target, or 0 if a ret, another jump or a call comes first.
 */
static unsigned long block_jumps_to(const char *ko, const char *sec, unsigned long start)
{
	char cmd[1024], line[512];
	unsigned long to = 0, a;
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d -j %s --start-address=0x%lx --stop-address=0x%lx %s",
		 sec, start, start + 64, ko);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && !to && n >= 0) {
		char *tab = strchr(line, '\t'), *mn;

		if (sscanf(line, " %lx:", &a) != 1 || !tab || !(mn = strchr(tab + 1, '\t')))
			continue;
		mn++;
		if (!strncmp(mn, "jmp ", 4))
			to = strtoul(mn + 4, NULL, 16);
		else if (mn[0] == 'j' || !strncmp(mn, "ret", 3) || !strncmp(mn, "call", 4))
			n = -1;
		else
			n++;
	}
	pclose(f);
	return n >= 0 ? to : 0;
}

TEST(static_branch_that_rejoins_probed_after_it)
{
	struct inst o[MAX_INST], p[MAX_INST], q[MAX_INST];
	char ko[512], vml[512], blob[512], caller[128], spec[256], sec[32];
	unsigned long off, value, len;
	const struct site *s;
	struct sites ss;

	paths(ko, vml, blob, sizeof(ko));
	read_sites(ko, &ss);
	/* the premise: perf's instance starts on a jump label ... */
	ASSERT_EQ(1, perf("tgt_at_rejoin", p));
	split_site(p[0].site, caller, sizeof(caller), &off);
	EXPECT_STREQ("tgt_sites_rejoin_caller", caller);
	s = site_at(ko, &ss, caller, off);
	ASSERT_NE(NULL, s);
	ASSERT_STREQ("jump label", s->kind);
	ASSERT_TRUE(elf_symbol(ko, caller, sec, sizeof(sec), &value));
	ASSERT_EQ(value + off, s->start);
	len = s->end - s->start;
	/* ... whose target block jumps straight back to the instruction after it */
	ASSERT_NE(0UL, s->target);
	EXPECT_EQ(s->end, block_jumps_to(ko, sec, s->target));
	/* the probe there, the entry kept, v and k where perf finds them */
	ASSERT_EQ(1, ours("tgt_at_rejoin", o));
	snprintf(spec, sizeof(spec), "%s+0x%lx", caller, off + len);
	EXPECT_STREQ(spec, o[0].site);
	snprintf(spec, sizeof(spec), "tgt_at_rejoin inkprobe_target:%s\\+0x%lx .*# inline, "
		 "entry \\+0x%lx\n", caller, off + len, off);
	EXPECT_EQ(1, dump_lines("tgt_at_rejoin", spec)) TH_LOG("%s", spec);
	snprintf(spec, sizeof(spec), "%s+%lu v k", caller, off + len);
	ASSERT_EQ(1, perf(spec, q));
	EXPECT_STREQ(arg(&q[0], "v"), arg(&o[0], "v"));
	EXPECT_STREQ(arg(&q[0], "k"), arg(&o[0], "k"));
	EXPECT_TRUE(matches(arg(&o[0], "v"), "^" REG "$"));
}

/* ---- NO_PROBE records: inlined copies in code kprobes refuse (tgt_noprobe.c) ---- */

#define MAX_RANGES	8

/*
 * llvm-dwarfdump's first inlined copy of @callee in the subprogram @caller:
 * its entry pc and ranges, as offsets from the caller's low_pc.  The
 * number of ranges, -1 if there is no such copy.
 */
static int dwarf_copy(const char *ko, const char *caller, const char *callee,
		      unsigned long *entry, unsigned long r[][2])
{
	char cmd[1024], line[1024], origin[128];
	unsigned long low = ULONG_MAX, a, b, lo = 0;
	bool tag_inlined = false;
	int state = 0, n = 0;	/* 0: before the copy, 1: in its attributes, 2: after */
	FILE *f;

	snprintf(origin, sizeof(origin), "\"%s\")", callee);
	snprintf(cmd, sizeof(cmd), "llvm-dwarfdump --debug-info --show-children --name=%s %s",
		 caller, ko);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "DW_TAG_")) {
			if (state == 1)
				state = 2;
			tag_inlined = strstr(line, "DW_TAG_inlined_subroutine");
			continue;
		}
		if (low == ULONG_MAX && sscanf(line, " DW_AT_low_pc (0x%lx)", &a) == 1) {
			low = a;	/* the subprogram's, before any child */
			continue;
		}
		if (!state && tag_inlined && strstr(line, "DW_AT_abstract_origin") &&
		    strstr(line, origin)) {
			state = 1;
			continue;
		}
		if (state != 1 || n >= MAX_RANGES)
			continue;
		if (sscanf(line, " DW_AT_entry_pc (0x%lx)", &a) == 1) {
			*entry = a - low;
		} else if (sscanf(line, " [0x%lx, 0x%lx)", &a, &b) == 2 ||
			   sscanf(line, " DW_AT_ranges (0x%*x [0x%lx, 0x%lx)", &a, &b) == 2) {
			r[n][0] = a - low;
			r[n++][1] = b - low;
		} else if (sscanf(line, " DW_AT_low_pc (0x%lx)", &a) == 1) {
			lo = a;
		} else if (sscanf(line, " DW_AT_high_pc (0x%lx)", &a) == 1) {
			r[n][0] = lo - low;
			r[n++][1] = a - low;
		}
	}
	pclose(f);
	return state ? n : -1;
}

/* The functions of _kprobe_blacklist (NOKPROBE_SYMBOL()), from readelf -rW: "SEC + ADDEND". */
static int blacklist(const char *ko, char secs[][32], unsigned long *addends, int max)
{
	char cmd[1024], line[512], table[64] = "";
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -rW %s", ko);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		if (sscanf(line, "Relocation section '.rela%63[^']'", table) == 1)
			continue;
		if (!strcmp(table, "_kprobe_blacklist") &&
		    sscanf(line, "%*x %*s %*s %*s %31s + %lx", secs[n], &addends[n]) == 2)
			n++;
	}
	pclose(f);
	return n;
}

/* Whether kprobes refuse all of @caller: noinstr, kprobes or entry text, or blacklisted. */
static bool refused_text(const char *ko, const char *caller, char bl_secs[][32],
			 const unsigned long *bl, int nr_bl)
{
	unsigned long value;
	char sec[32];
	int i;

	if (!elf_symbol(ko, caller, sec, sizeof(sec), &value))
		return false;
	if (!strcmp(sec, ".noinstr.text") || !strcmp(sec, ".kprobes.text") ||
	    !strcmp(sec, ".entry.text"))
		return true;
	for (i = 0; i < nr_bl; i++)
		if (!strcmp(bl_secs[i], sec) && bl[i] == value)
			return true;
	return false;
}

/* The record of @callee in @caller, NO_PROBE or not as @no_probe; false if none. */
static bool find_record(const struct ink_blob *b, const struct ink_btf *btf, const char *callee,
			const char *caller, bool no_probe, struct ink_instance *out)
{
	struct ink_instance_iter it;
	struct ink_instance in;

	ink_instance_iter_init(&it, b);
	while (ink_instance_next(&it, &in))
		if (!strcmp(ink_btf_name(btf, in.callee_id), callee) &&
		    !strcmp(ink_btf_name(btf, in.caller_id), caller) &&
		    !!(in.flags & BTF_INLINE_EXT_NO_PROBE) == no_probe) {
			*out = in;
			return true;
		}
	return false;
}

TEST(no_probe_records_hold_the_dwarf_ranges)
{
	static const char *const copies[][2] = {
		{ "tgt_np_noinstr", "tgt_np_helper" },
		{ "tgt_np_noinstr", "tgt_np_only" },
		{ "tgt_np_nokprobe", "tgt_np_helper" },
	};
	char ko[512], vml[512], blob[512], sec[32], bl_secs[16][32];
	unsigned long bl[16], value, r[MAX_RANGES][2], entry;
	struct ink_btf vmlinux, split;
	struct ink_open_env env = { .base = &vmlinux };
	struct ink_instance in;
	struct ink_blob b;
	struct ink_err err;
	uint32_t len;
	void *data = host_target_blob(&len);
	int nr_bl, n, i, j;

	paths(ko, vml, blob, sizeof(ko));
	/* the premises, from readelf: one caller in .noinstr.text, one blacklisted */
	ASSERT_TRUE(elf_symbol(ko, "tgt_np_noinstr", sec, sizeof(sec), &value));
	EXPECT_STREQ(".noinstr.text", sec);
	nr_bl = blacklist(ko, bl_secs, bl, 16);
	ASSERT_TRUE(elf_symbol(ko, "tgt_np_nokprobe", sec, sizeof(sec), &value));
	ASSERT_EQ(1, nr_bl);
	EXPECT_STREQ(sec, bl_secs[0]);
	EXPECT_EQ(value, bl[0]);
	ASSERT_TRUE(refused_text(ko, "tgt_np_nokprobe", bl_secs, bl, nr_bl));
	EXPECT_FALSE(refused_text(ko, "tgt_np_plain", bl_secs, bl, nr_bl));

	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, host_vmlinux_btf(&vmlinux));
	ASSERT_EQ(0, ink_blob_open(&b, &split, data, len, &env, &err));
	for (i = 0; i < 3; i++) {
		struct ink_range_iter it;
		s32 start;
		u32 rlen;

		entry = ULONG_MAX;
		n = dwarf_copy(ko, copies[i][0], copies[i][1], &entry, r);
		ASSERT_LT(0, n) TH_LOG("%s in %s: not in the DWARF", copies[i][1], copies[i][0]);
		ASSERT_TRUE(find_record(&b, &split, copies[i][1], copies[i][0], true, &in))
			TH_LOG("%s in %s: no NO_PROBE record", copies[i][1], copies[i][0]);
		EXPECT_FALSE(find_record(&b, &split, copies[i][1], copies[i][0], false, &in));
		EXPECT_EQ(BTF_INLINE_EXT_NO_PROBE | BTF_INLINE_EXT_RANGES, in.flags);
		EXPECT_EQ(0, in.nr_parms);
		EXPECT_EQ(entry, in.caller_offset);
		EXPECT_EQ(entry, in.entry_offset);
		ASSERT_EQ(n, in.nr_ranges);
		ink_range_iter_init(&it, &in);
		for (j = 0; j < n && ink_range_next(&it, &start, &rlen); j++) {
			EXPECT_EQ(r[j][0], (unsigned long)start) TH_LOG("%s range %d", copies[i][0], j);
			EXPECT_EQ(r[j][1] - r[j][0], rlen) TH_LOG("%s range %d", copies[i][0], j);
		}
		EXPECT_EQ(n, j);
	}
	/* the plain copy is an ordinary record, v and all */
	ASSERT_TRUE(find_record(&b, &split, "tgt_np_helper", "tgt_np_plain", false, &in));
	EXPECT_EQ(1, in.nr_parms);
	EXPECT_FALSE(find_record(&b, &split, "tgt_np_helper", "tgt_np_plain", true, &in));
	ink_blob_close(&split);
	free(data);
}

/*
 * Every record whose caller kprobes refuse (readelf: its section, the
 * blacklist) is NO_PROBE, and every NO_PROBE record is in such a caller or
 * has its entry on a site kprobes refuse (read_sites()): no probeable
 * record lies in refused text, and no probeable copy is kept from probes.
 */
TEST(no_probeable_record_in_refused_text)
{
	char ko[512], vml[512], blob[512], bl_secs[16][32];
	unsigned long bl[16];
	struct ink_btf vmlinux, split;
	struct ink_open_env env = { .base = &vmlinux };
	struct ink_instance_iter it;
	struct ink_instance in;
	struct sites ss;
	struct ink_blob b;
	struct ink_err err;
	uint32_t len, in_text = 0, on_site = 0, no_probe = 0, total = 0;
	void *data = host_target_blob(&len);
	int nr_bl;

	paths(ko, vml, blob, sizeof(ko));
	nr_bl = blacklist(ko, bl_secs, bl, 16);
	read_sites(ko, &ss);
	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, host_vmlinux_btf(&vmlinux));
	ASSERT_EQ(0, ink_blob_open(&b, &split, data, len, &env, &err));
	ink_instance_iter_init(&it, &b);
	while (ink_instance_next(&it, &in)) {
		const char *caller = ink_btf_name(&split, in.caller_id);
		bool np = in.flags & BTF_INLINE_EXT_NO_PROBE;

		total++;
		no_probe += np;
		if (refused_text(ko, caller, bl_secs, bl, nr_bl)) {
			EXPECT_TRUE(np) TH_LOG("%s in %s: probeable in refused text",
					       ink_btf_name(&split, in.callee_id), caller);
			in_text++;
		} else if (np) {
			EXPECT_NE(NULL, site_at(ko, &ss, caller, in.entry_offset))
				TH_LOG("%s in %s+0x%x: NO_PROBE, not on a refused site",
				       ink_btf_name(&split, in.callee_id), caller, in.entry_offset);
			on_site++;
		}
	}
	/* tgt_noprobe.c: two copies in tgt_np_noinstr, one in tgt_np_nokprobe */
	EXPECT_EQ(3, in_text);
	/* tgt_sites.c: at least tgt_at_branch in tgt_sites_branch, on a jump label */
	EXPECT_LE(1, on_site);
	EXPECT_EQ(no_probe, in_text + on_site);
	TH_LOG("%u records, %u NO_PROBE: %u in refused text, %u on refused sites", total,
	       no_probe, in_text, on_site);
	ink_blob_close(&split);
	free(data);
}

TEST(gen_is_deterministic)
{
	char ko[512], vml[512], blob[512], cmd[4096];
	uint32_t l1 = 0, l2 = 0;
	void *a, *b;
	int i;

	paths(ko, vml, blob, sizeof(ko));
	for (i = 1; i <= 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san gen --base-btf %s "
			 "-o %s/build/check/determinism-%d.inkb %s", top(), vml, top(), i, ko);
		ASSERT_EQ(0, system(cmd));
	}
	snprintf(cmd, sizeof(cmd), "%s/build/check/determinism-1.inkb", top());
	a = read_file(cmd, &l1);
	snprintf(cmd, sizeof(cmd), "%s/build/check/determinism-2.inkb", top());
	b = read_file(cmd, &l2);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(l1, l2);
	EXPECT_EQ(0, memcmp(a, b, l1));
	free(a);
	free(b);
}

TEST_HARNESS_MAIN
