// SPDX-License-Identifier: GPL-2.0
/*
 * The exits gen finds for the copies of selftests/target/tgt_exits.c, on
 * the first test kernel's inkprobe_target.ko and the blob make check
 * generated for it: each copy has exactly the exits its source and its
 * compiled code have.  The oracle is objdump's disassembly of each caller
 * (with its relocations), read here, and the reasoning below, written
 * after reading 6.1's objdump (GCC 12) by hand; nothing of gen's decoding
 * is used.  Offsets are not asserted (they follow the compiler); the
 * number of exits of each kind is, and what each exit pc holds in
 * objdump: the instruction a LAND pc lands on, and what it comes after;
 * the instruction a LEAVE pc is.
 *
 *   tgt_ex_early   two ways out, each into its own copy of the caller's
 *                  "r + 5" (GCC duplicates the caller's tail into both
 *                  paths): 2 LAND, each on a "lea 0x5(...)"
 *   tgt_ex_loop    the break and the loop's end both reach the caller's
 *                  "* 9" (lea (%r,%r,8)): GCC gives the "done" path its
 *                  own copy of it, the break path and the fall-out share
 *                  the other: 2 LAND, each on a "lea (R,R,8)"
 *   tgt_ex_goto    every path meets at the shared epilogue (out:) inside
 *                  the copy, which stores and falls to the caller's
 *                  "pop": 1 LAND, on a pop
 *   tgt_ex_switch  the jump table's indirect jump (through
 *                  __x86_indirect_thunk_rax: the handler must decide from
 *                  its register) is LEAVE_INDIRECT; each of the 7 cases
 *                  and the default returns into its own copy of the
 *                  caller's "+ 13" right after its call of tgt_ex_note():
 *                  8 LAND, each after a call of tgt_ex_note (the default's
 *                  "0 + 13" is folded into a "mov $0xd,%eax" that DWARF
 *                  gives the copy: its exit lands on the caller's pop
 *                  after it)
 *   tgt_ex_tail    the call of tgt_ex_tail_target() is a tail call, a jmp
 *                  out of the caller: 1 LEAVE, on that jmp
 *   tgt_ex_never   the call of the noreturn tgt_ex_stop() and BUG_ON()'s
 *                  ud2 never return: no exit there or after them; the
 *                  normal path returns after its call of tgt_ex_note():
 *                  1 LAND
 *   tgt_ex_fault   __get_kernel_nofault()'s read has an __ex_table entry;
 *                  with asm goto outputs (6.1, sid) its fixup is the
 *                  label at the copy's end: the fault path leaves the
 *                  copy at the pc the read path falls through to after
 *                  its call of tgt_ex_note(): 1 LAND, the fixup; without
 *                  them (6.12) the fixup is the instruction after the
 *                  read, inside the copy
 *   tgt_ex_cold    the unlikely() path is tgt_ex_cold_caller.cold, whose
 *                  last instruction jumps back into the caller: 1 LAND,
 *                  that jump's target, also where the hot path goes on
 */
#include "kselftest_harness.h"
#include "host_test.h"

#define MAX_EXITS	16
#define MAX_INSNS	256

struct exit {
	unsigned long off;
	char kind[16];
};

/* One instruction of objdump's disassembly: its offset, text, relocation. */
struct insn {
	unsigned long off;
	char text[160];
	char reloc[96];
};

static const char *top(void)
{
	return host_env("INKPROBE_TOP", ".");
}

/* The exits `dump --exits` lists for the copy of @callee in @caller; -1 if none. */
static int exits_of(const char *callee, const char *caller, struct exit *e, int max)
{
	static struct host_run r;
	char pat[160], *line, *p;
	int n = 0;

	if (host_run(&r, "%s/build/inkprobe-san dump --exits --base-btf %s/kernels/%s/build/vmlinux "
		     "--module-btf %s/build/%s/kmod/inkprobe_target.ko "
		     "%s/build/%s/blobs/inkprobe_target.inkb",
		     top(), host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), host_kernel(),
		     top(), host_kernel(), top(), host_kernel()))
		return -1;
	snprintf(pat, sizeof(pat), "p:inline/%s inkprobe_target:%s+", callee, caller);
	line = strstr(r.out, pat);
	if (!line || strstr(line + 1, pat))
		return -1;	/* not exactly one copy */
	line[strcspn(line, "\n")] = '\0';
	p = strstr(line, ", exits ");
	if (!p)
		return strstr(line, ", no exits") ? 0 : -1;
	p += strlen(", exits ");
	snprintf(pat, sizeof(pat), "%s+0x", caller);
	while (n < max && (p = strstr(p, pat))) {
		char *end;

		p += strlen(pat);
		e[n].off = strtoul(p, &end, 16);
		if (*end != ':')
			return -1;
		sscanf(end + 1, "%15[A-Z_]", e[n].kind);
		p = end;
		n++;
	}
	return n;
}

/* The address of the symbol disassemble() read last, in its section. */
static unsigned long disassembled_at;

/* objdump's instructions of @caller in the target module. */
static int disassemble(const char *caller, struct insn *in, int max)
{
	static struct host_run r;
	unsigned long start = 0;
	char *line, *save = NULL;
	int n = 0;

	if (host_run(&r, "objdump -dr --no-show-raw-insn %s/build/%s/kmod/inkprobe_target.ko | "
		     "awk '$2 == \"<%s>:\" { p = 1; print; next } p && /^$/ { exit } p'",
		     top(), host_kernel(), caller))
		return -1;
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long a;
		char text[160];

		if (strstr(line, ">:")) {	/* "ADDR <CALLER>:" */
			sscanf(line, "%lx", &start);
			disassembled_at = start;
			continue;
		}
		if (n && strstr(line, "R_X86_64_")) {
			snprintf(in[n - 1].reloc, sizeof(in[n - 1].reloc), "%s",
				 strstr(line, "R_X86_64_"));
			continue;
		}
		if (sscanf(line, " %lx:\t%159[^\n]", &a, text) != 2 || n == max)
			continue;
		in[n].off = a - start;
		snprintf(in[n].text, sizeof(in[n].text), "%s", text);
		in[n].reloc[0] = '\0';
		n++;
	}
	return n;
}

/* The instruction at @off, or NULL when @off is no instruction boundary. */
static const struct insn *at(const struct insn *in, int n, unsigned long off)
{
	int i;

	for (i = 0; i < n; i++)
		if (in[i].off == off)
			return &in[i];
	return NULL;
}

static bool matches(const char *text, const char *re)
{
	return host_lines(text, re) == 1;
}

static int count_kind(const struct exit *e, int n, const char *kind)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += !strcmp(e[i].kind, kind);
	return c;
}

struct copy {
	const char *callee, *caller;
	int land, leave, leave_jcc, leave_indirect;
	const char *land_on;		/* regex a LAND pc's instruction matches, or NULL */
	bool land_after_note;		/* the instruction before a LAND calls tgt_ex_note */
	const char *leave_on;		/* regex a LEAVE(_INDIRECT) pc's instruction matches */
	const char *leave_reloc;	/* and its relocation, or NULL */
};

static void check_copy(struct __test_metadata *_metadata, const struct copy *c)
{
	static struct insn in[MAX_INSNS];
	struct exit e[MAX_EXITS];
	int n, ni, i;

	n = exits_of(c->callee, c->caller, e, MAX_EXITS);
	ni = disassemble(c->caller, in, MAX_INSNS);
	ASSERT_LT(0, ni) TH_LOG("no disassembly of %s", c->caller);
	ASSERT_LE(0, n) TH_LOG("no single record of %s in %s with exits", c->callee, c->caller);
	EXPECT_EQ(c->land + c->leave + c->leave_jcc + c->leave_indirect, n);
	EXPECT_EQ(c->land, count_kind(e, n, "LAND"));
	EXPECT_EQ(c->leave, count_kind(e, n, "LEAVE"));
	EXPECT_EQ(c->leave_jcc, count_kind(e, n, "LEAVE_JCC"));
	EXPECT_EQ(c->leave_indirect, count_kind(e, n, "LEAVE_INDIRECT"));
	for (i = 0; i < n; i++) {
		const struct insn *x = at(in, ni, e[i].off);

		ASSERT_NE(NULL, x) TH_LOG("%s: exit +0x%lx is no instruction boundary",
					  c->callee, e[i].off);
		if (i)	/* increasing, one per pc */
			EXPECT_LT(e[i - 1].off, e[i].off);
		if (!strcmp(e[i].kind, "LAND")) {
			if (c->land_on)
				EXPECT_TRUE(matches(x->text, c->land_on))
					TH_LOG("%s: LAND +0x%lx on '%s'", c->callee, e[i].off,
					       x->text);
			if (c->land_after_note) {
				ASSERT_LT(&in[1], x);
				EXPECT_TRUE(matches(x[-1].text, "^call .*<tgt_ex_note>") ||
					    (matches(x[-1].text, "^mov +\\$0xd,%eax") &&
					     matches(x[-2].text, "^call .*<tgt_ex_note>")))
					TH_LOG("%s: LAND +0x%lx after '%s'", c->callee, e[i].off,
					       x[-1].text);
			}
		} else {
			EXPECT_TRUE(matches(x->text, c->leave_on))
				TH_LOG("%s: %s +0x%lx on '%s'", c->callee, e[i].kind, e[i].off,
				       x->text);
			if (c->leave_reloc)
				EXPECT_TRUE(matches(x->reloc, c->leave_reloc))
					TH_LOG("%s: %s +0x%lx relocated '%s'", c->callee,
					       e[i].kind, e[i].off, x->reloc);
		}
	}
}

/* The copies whose exits check_copy() alone asserts, a variant each. */
FIXTURE(copy) {};

FIXTURE_SETUP(copy)
{
}

FIXTURE_TEARDOWN(copy)
{
}

FIXTURE_VARIANT(copy) {
	struct copy c;
};

FIXTURE_VARIANT_ADD(copy, early_return) {
	.c = { "tgt_ex_early", "tgt_ex_early_caller", .land = 2,
	       .land_on = "^lea +0x5\\(" },
};

FIXTURE_VARIANT_ADD(copy, loop_with_break) {
	.c = { "tgt_ex_loop", "tgt_ex_loop_caller", .land = 2,
	       .land_on = "^lea +\\((%[a-z0-9]+),\\1,8\\)" },
};

FIXTURE_VARIANT_ADD(copy, goto_shared_epilogue) {
	.c = { "tgt_ex_goto", "tgt_ex_goto_caller", .land = 1,
	       .land_on = "^pop " },
};

FIXTURE_VARIANT_ADD(copy, jump_table_switch) {
	.c = { "tgt_ex_switch", "tgt_ex_switch_caller", .land = 8,
	       .leave_indirect = 1, .land_after_note = true,
	       .leave_on = "^jmp ",
	       .leave_reloc = "__x86_indirect_thunk_rax" },
};

FIXTURE_VARIANT_ADD(copy, tail_call) {
	.c = { "tgt_ex_tail", "tgt_ex_tail_caller", .leave = 1,
	       .leave_on = "^jmp .*<tgt_ex_tail_target>" },
};

TEST_F(copy, exits)
{
	check_copy(_metadata, &variant->c);
}

/* The noreturn call and BUG_ON()'s ud2: no exit on them or after them. */
TEST(noreturn_paths_have_no_exit)
{
	const struct copy c = { "tgt_ex_never", "tgt_ex_never_caller", .land = 1,
				.land_after_note = true };
	static struct insn in[MAX_INSNS];
	struct exit e[MAX_EXITS];
	int n, ni, i, j, stops = 0;

	check_copy(_metadata, &c);
	n = exits_of(c.callee, c.caller, e, MAX_EXITS);
	ni = disassemble(c.caller, in, MAX_INSNS);
	ASSERT_EQ(1, n);
	for (i = 0; i < ni; i++) {
		/* a call of tgt_ex_stop (in .text.unlikely: relocated), and the ud2 */
		bool stop = strstr(in[i].text, "ud2") ||
			    (matches(in[i].text, "^call ") &&
			     !strstr(in[i].text, "tgt_ex_note") && !strstr(in[i].reloc, "__fentry__"));

		if (!stop)
			continue;
		stops++;
		for (j = 0; j < n; j++)
			EXPECT_TRUE(e[j].off < in[i].off)
				TH_LOG("exit +0x%lx at or after '%s' at +0x%lx", e[j].off,
				       in[i].text, in[i].off);
	}
	/* both dead ends are there: the test would prove nothing otherwise */
	EXPECT_EQ(2, stops);
}

/*
 * The __ex_table entries of the target module whose instruction is in
 * [@lo, @hi) of .text: their instruction and fixup, from objdump's
 * relocations of the table (12-byte entries: insn, fixup, data).
 */
static int ex_entries(unsigned long lo, unsigned long hi, unsigned long *insn,
		      unsigned long *fixup, int max)
{
	static struct host_run r;
	unsigned long at[64], to[64];
	char *line, *save = NULL;
	int n = 0, i, j, k = 0;

	if (host_run(&r, "objdump -r -j __ex_table %s/build/%s/kmod/inkprobe_target.ko",
		     top(), host_kernel()))
		return -1;
	for (line = strtok_r(r.out, "\n", &save); line && n < 64;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%lx R_X86_64_PC32 .text+0x%lx", &at[n], &to[n]) == 2)
			n++;
	for (i = 0; i < n; i++) {
		if (at[i] % 12 || to[i] < lo || to[i] >= hi)
			continue;
		for (j = 0; j < n && at[j] != at[i] + 4; j++)
			;
		if (j == n || k == max)
			return -1;
		insn[k] = to[i];
		fixup[k++] = to[j];
	}
	return k;
}

/*
 * The read through the exception table: its fault resumes at the fixup,
 * the copy's one exit when the fixup is outside the copy.
 */
TEST(fault_path_leaves_at_its_fixup)
{
	const struct copy c = { "tgt_ex_fault", "tgt_ex_fault_caller", .land = 1,
				.land_after_note = true };
	static struct insn in[MAX_INSNS];
	unsigned long insn[4], fixup[4];
	const struct insn *x;
	struct exit e[MAX_EXITS];
	int n, ni;

	check_copy(_metadata, &c);
	n = exits_of(c.callee, c.caller, e, MAX_EXITS);
	ni = disassemble(c.caller, in, MAX_INSNS);
	ASSERT_EQ(1, n);
	ASSERT_LT(0, ni);
	/* one read may fault: a load through the pointer */
	ASSERT_EQ(1, ex_entries(disassembled_at, disassembled_at + in[ni - 1].off + 1, insn,
				fixup, 4));
	x = at(in, ni, insn[0] - disassembled_at);
	ASSERT_NE(NULL, x);
	EXPECT_TRUE(matches(x->text, "^mov +(0x0)?\\(%[a-z0-9]+\\),%")) TH_LOG("'%s'", x->text);
	if (fixup[0] - disassembled_at == e[0].off) {
		TH_LOG("the fault leaves the copy at its fixup +0x%lx", e[0].off);
	} else {
		/* no asm goto outputs: the fixup resumes after the read, in the copy */
		EXPECT_EQ(insn[0] + (x[1].off - x[0].off), fixup[0]);
		EXPECT_LT(fixup[0] - disassembled_at, e[0].off);
	}
}

/* The unlikely() path in tgt_ex_cold_caller.cold jumps back to the exit. */
TEST(cold_part_jumps_back_to_its_exit)
{
	const struct copy c = { "tgt_ex_cold", "tgt_ex_cold_caller", .land = 1 };
	static struct insn in[MAX_INSNS], cold[MAX_INSNS];
	unsigned long caller, back;
	struct exit e[MAX_EXITS];
	int n, ni, nc;

	check_copy(_metadata, &c);
	n = exits_of(c.callee, c.caller, e, MAX_EXITS);
	ni = disassemble(c.caller, in, MAX_INSNS);
	caller = disassembled_at;
	ASSERT_EQ(1, n);
	ASSERT_LT(0, ni);
	nc = disassemble("tgt_ex_cold_caller.cold", cold, MAX_INSNS);
	ASSERT_LT(0, nc) TH_LOG("GCC made no tgt_ex_cold_caller.cold");
	/* "jmp" relocated to .text+A: its target is A + 4 */
	EXPECT_TRUE(matches(cold[nc - 1].text, "^jmp ")) TH_LOG("'%s'", cold[nc - 1].text);
	ASSERT_EQ(1, sscanf(cold[nc - 1].reloc, "R_X86_64_PC32 .text+0x%lx", &back))
		TH_LOG("'%s'", cold[nc - 1].reloc);
	EXPECT_EQ(e[0].off, back + 4 - caller);
}

TEST_HARNESS_MAIN
