// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe dump BLOB [--func NAME] [--ranges] [--exits] [--addresses] [--base-btf FILE]
 *                    [--module-btf FILE]
 *
 * One line per instance, as a kprobe_events definition where the location
 * can be said in kprobe_events' fetch-arg syntax, so it diffs against
 * `perf probe -D`:
 *
 *   p:inline/FUNC CALLER+0xOFF name=FETCHARG:TYPE ...   # inline|out-of-line
 *
 * Locations kprobe_events cannot express are shown in braces:
 * {%si+16} (a register plus an offset as a value), {&sym+8} (an address),
 * {(%si&0xff)} (arithmetic, C operators), {pieces ...}; an unavailable
 * argument is (optimized out).  --ranges adds each instance's code ranges,
 * --exits an inlined instance's exits (blob-format.rst, "Exits"), each as
 * CALLER+0xOFF:KIND, or "no exits" when the blob lists none:
 *
 *   ..., exits tgt_ex_goto_caller+0x3c:LAND tgt_ex_goto_caller+0x51:LEAVE
 * A record several inlined calls share says so, and names the arguments
 * left out because the calls' locations differ (ambiguous).
 *
 * --addresses prints only where each record's probe goes, for audits of
 * the probe pcs against the target's own tables, one record a line:
 *
 *   0xADDRESS CALLER+0xOFF
 *
 * ADDRESS in lowercase hex: for vmlinux the link-time address, for a module
 * the caller's st_value (an offset in its section) plus OFF.  Nothing else
 * is printed (scripts/audit-sites reads it).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/blob_file.h"
#include "dump.h"
#include "../common/util.h"

static const char dump_usage[] =
	"usage: inkprobe dump BLOB [--func NAME] [--ranges] [--exits] [--addresses]\n"
	"                          [--no-probe] [--base-btf FILE] [--module-btf FILE]\n"
	"\n"
	"Prints every instance in BLOB with its arguments in kprobe_events syntax.\n"
	"--ranges adds its code ranges, --exits an inlined instance's exits\n"
	"(CALLER+0xOFF:KIND, KIND LAND, LEAVE, LEAVE_JCC or LEAVE_INDIRECT).\n"
	"--no-probe also prints the inlined copies no probe may take (noinstr,\n"
	"entry or NOKPROBE code, a pc kprobes refuse), \"# inline, no probe\",\n"
	"whose records hold their ranges alone (for stacks and profiles).\n"
	"--addresses: only each record's probe address, \"0xADDRESS CALLER+0xOFF\"\n"
	"(vmlinux: link-time address; module: offset in the caller's section).\n"
	"Names come from the target's BTF: /sys/kernel/btf/* of the running kernel,\n"
	"or the files given (a vmlinux or .ko, or raw BTF).\n";

/* kprobe_events register names, by DWARF x86-64 number */
static const char *const reg_names[LOC_MAX_REGISTER + 1] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

#define ARG_MAX	256

/* A value on the formatting stack: still foldable into +OFF(%REG)/@SYM, or text. */
struct fmt_val {
	enum { V_TEXT, V_REGOFF, V_SYMADDR } kind;
	u8 reg;
	s64 off;
	u32 sym;
	bool plain;		/* expressible in kprobe_events */
	char text[ARG_MAX];
};

static const char *symbol_name(const struct blob_file *bf, uint32_t idx)
{
	return ink_btf_name(blob_file_btf(bf), bf->blob.syms[idx].btf_id);
}

/* The text of @v as a value. */
static void render(const struct blob_file *bf, struct fmt_val *v)
{
	if (v->kind == V_REGOFF)
		snprintf(v->text, ARG_MAX, "{%%%s%+lld}", reg_names[v->reg], (long long)v->off);
	else if (v->kind == V_SYMADDR)
		snprintf(v->text, ARG_MAX, "{&%s%+lld}", symbol_name(bf, v->sym),
			 (long long)v->off);
	v->plain = v->plain && v->kind == V_TEXT;
	v->kind = V_TEXT;
}

/* @t without the braces render() puts around non-kprobe_events syntax. */
static const char *bare(char *t)
{
	size_t n = strlen(t);

	if (n >= 2 && t[0] == '{' && t[n - 1] == '}') {
		t[n - 1] = '\0';
		return t + 1;
	}
	return t;
}

/* Memory at @v, read with @size bytes; @last: the argument's final fetch. */
static void deref(const struct blob_file *bf, struct fmt_val *v, u8 size, bool last)
{
	char tmp[ARG_MAX];

	if (v->kind == V_REGOFF) {
		snprintf(tmp, sizeof(tmp), "%+lld(%%%s)", (long long)v->off, reg_names[v->reg]);
	} else if (v->kind == V_SYMADDR) {
		snprintf(tmp, sizeof(tmp), "@%s%+lld", symbol_name(bf, v->sym), (long long)v->off);
	} else {
		snprintf(tmp, sizeof(tmp), "+0(%s)", v->text);
	}
	memcpy(v->text, tmp, sizeof(tmp));
	v->kind = V_TEXT;
	/* kprobe_events reads intermediate pointers as 8 bytes; the type sizes the last */
	if (!last && size != 8)
		v->plain = false;
}

/*
 * Formats the expression at @off.  Returns false when the argument is
 * unavailable.  *plain says whether the text is kprobe_events syntax.
 */
bool format_location(const struct blob_file *bf, uint32_t off, char *out, size_t n,
		     bool *plain)
{
	const struct ink_blob *b = &bf->blob;
	struct fmt_val st[LOC_MAX_STACK + 1];	/* +1: the slot an operator clears */
	char pieces[ARG_MAX] = "";
	struct ink_loc_op op;
	uint32_t pos = off, len;
	size_t used;
	int sp = 0;

	for (;;) {
		struct fmt_val *v = &st[sp];
		const struct ink_loc_op_info *info;

		len = ink_loc_decode(b->loc + pos, b->loc_len - pos, &op);
		if (!len || pos - off >= LOC_MAX_EXPR_LEN)
			return false;	/* not on a validated blob */
		pos += len;
		memset(v, 0, sizeof(*v));
		v->plain = true;
		info = &ink_loc_ops[op.op];
		switch (info->effect) {
		case INK_EFF_END:
			if (pos - len == off)
				return false;
			if (pieces[0]) {
				snprintf(out, n, "{pieces%s}", pieces);
				*plain = false;
				return true;
			}
			render(bf, &st[0]);
			snprintf(out, n, "%s", st[0].text);
			*plain = st[0].plain;
			return true;
		case INK_EFF_REG:
			if (info->operand == INK_OPND_REG) {
				snprintf(v->text, ARG_MAX, "%%%s", reg_names[op.reg]);
			} else {
				v->kind = V_REGOFF;
				v->reg = op.reg;
				v->off = op.val;
			}
			sp++;
			break;
		case INK_EFF_SYM:
			v->kind = V_SYMADDR;
			v->sym = op.sym;
			v->off = op.val;
			sp++;
			break;
		case INK_EFF_DEREF:
			deref(bf, &st[sp - 1], op.size, b->loc[pos] == LOC_END_OF_EXPR);
			break;
		case INK_EFF_BINARY: {
			char tmp[ARG_MAX];

			render(bf, &st[sp - 2]);
			render(bf, &st[sp - 1]);
			snprintf(tmp, sizeof(tmp), "(%s%s%s)", bare(st[sp - 2].text), info->sym,
				 bare(st[sp - 1].text));
			snprintf(st[sp - 2].text, ARG_MAX, "{%.*s}", ARG_MAX - 3, tmp);
			st[sp - 2].plain = false;
			sp--;
			break;
		}
		case INK_EFF_UNARY: {
			char tmp[ARG_MAX];

			render(bf, &st[sp - 1]);
			if (info->operand != INK_OPND_SHIFT)
				snprintf(tmp, sizeof(tmp), "%s%s", info->sym, bare(st[sp - 1].text));
			else
				snprintf(tmp, sizeof(tmp), "(%s%s%lld)", bare(st[sp - 1].text),
					 info->sym, (long long)op.val);
			snprintf(st[sp - 1].text, ARG_MAX, "{%.*s}", ARG_MAX - 3, tmp);
			st[sp - 1].plain = false;
			break;
		}
		case INK_EFF_PIECE:
			render(bf, &st[sp - 1]);
			used = strlen(pieces);
			snprintf(pieces + used, sizeof(pieces) - used, " %s:%d", st[sp - 1].text,
				 op.size);
			sp--;
			break;
		case INK_EFF_CONST:	/* kprobe_events immediates */
			snprintf(v->text, ARG_MAX, "\\%lld", (long long)op.val);
			sp++;
			break;
		}
	}
}

/* ":u64"-style type of parameter @i of the callee. */
void format_type(const struct ink_btf *btf, u32 type_id, char *out, size_t n)
{
	struct ink_scalar s;

	ink_btf_scalar(btf, type_id, &s);
	if (!s.size)
		snprintf(out, n, ":x64");
	else
		snprintf(out, n, ":%c%d", s.is_hex ? 'x' : s.is_signed ? 's' : 'u', s.size * 8);
}

/* Why a merged record's parameters are empty: the calls sharing it differ. */
static void print_merged(const struct ink_btf *btf, const struct btf_param *params,
			 const struct ink_instance *in)
{
	const char *sep = " (";
	uint32_t i;

	printf(", merged: %u calls share this address", in->merged_calls);
	if (!in->nr_ambiguous)
		return;
	printf(", ambiguous");
	for (i = 0; i < in->nr_parms; i++) {
		const char *name = ink_btf_str(btf, params[i].name_off);

		if (!ink_parm_ambiguous(in, i))
			continue;
		if (*name)
			printf("%s%s", sep, name);
		else
			printf("%sarg%u", sep, i + 1);
		sep = " ";
	}
	putchar(')');
}

static const char *const exit_kinds[BTF_INLINE_EXIT_KIND_MAX + 1] = {
	[BTF_INLINE_EXIT_LAND] = "LAND",
	[BTF_INLINE_EXIT_LEAVE] = "LEAVE",
	[BTF_INLINE_EXIT_LEAVE_JCC] = "LEAVE_JCC",
	[BTF_INLINE_EXIT_LEAVE_INDIRECT] = "LEAVE_INDIRECT",
};

static void print_exits(const struct ink_btf *btf, const struct ink_instance *in)
{
	struct ink_exit_iter it;
	s32 off;
	u8 kind;

	if (in->flags & (BTF_INLINE_EXT_OUT_OF_LINE | BTF_INLINE_EXT_NO_PROBE))
		return;
	if (!in->nr_exits) {
		printf(", no exits");
		return;
	}
	printf(", exits");
	ink_exit_iter_init(&it, in);
	while (ink_exit_next(&it, &off, &kind))
		printf(" %s%s0x%x:%s", ink_btf_name(btf, in->caller_id), off < 0 ? "-" : "+",
		       off < 0 ? -(u32)off : (u32)off, exit_kinds[kind]);
}

static void print_instance(const struct blob_file *bf, const struct ink_instance *in,
			   bool ranges, bool exits)
{
	const struct ink_btf *btf = blob_file_btf(bf);
	const struct btf_type *proto = ink_btf_func_proto(btf, in->callee_id);
	const struct btf_param *params = ink_btf_params(proto);
	const struct inkprobe_target *t = bf->blob.target;
	bool module = strcmp(t->name, "vmlinux");
	uint32_t i;

	printf("p:inline/%s %s%s%s+0x%x", ink_btf_name(btf, in->callee_id),
	       module ? t->name : "", module ? ":" : "",
	       ink_btf_name(btf, in->caller_id), in->caller_offset);
	for (i = 0; i < in->nr_parms; i++) {
		const char *name = ink_btf_str(btf, params[i].name_off);
		char arg[ARG_MAX], type[16], argname[32];
		bool plain;

		if (!*name) {
			snprintf(argname, sizeof(argname), "arg%u", i + 1);
			name = argname;
		}
		if (!format_location(bf, ink_instance_parm(in, i), arg, sizeof(arg), &plain)) {
			printf(" %s=(optimized out)", name);
			continue;
		}
		format_type(btf, params[i].type, type, sizeof(type));
		printf(" %s=%s%s", name, arg, type);
	}
	printf("\t# %s", (in->flags & BTF_INLINE_EXT_OUT_OF_LINE) ? "out-of-line" : "inline");
	if (in->flags & BTF_INLINE_EXT_NO_PROBE)
		printf(", no probe");
	if (in->flags & BTF_INLINE_EXT_SPLIT_PART)
		printf(", split part");
	if (in->entry_offset != in->caller_offset)
		printf(", entry +0x%x", in->entry_offset);
	if (in->flags & BTF_INLINE_EXT_MERGED)
		print_merged(btf, params, in);
	if (ranges && in->nr_ranges) {
		struct ink_range_iter it;
		s32 start;
		u32 len;

		printf(", ranges");
		ink_range_iter_init(&it, in);
		while (ink_range_next(&it, &start, &len))
			printf(" %s0x%x+0x%x", start < 0 ? "-" : "",
			       start < 0 ? (u32)-(s64)start : (u32)start, len);
		if (in->depth)
			printf(", depth %u", in->depth);
	}
	if (exits)
		print_exits(btf, in);
	putchar('\n');
}

/*
 * The probe address of @in: the caller's SYMBOLS entry (the one with its
 * BTF id) plus the offset.
 */
static void print_address(const struct blob_file *bf, const struct ink_instance *in)
{
	const struct ink_btf *btf = blob_file_btf(bf);
	const struct ink_blob *b = &bf->blob;
	u64 base = b->target->anchor_addr;
	u32 i;

	for (i = 0; i < b->nr_syms && b->syms[i].btf_id != in->caller_id; i++)
		;
	if (i == b->nr_syms)
		die("no symbol for caller %s", ink_btf_name(btf, in->caller_id));
	printf("0x%llx %s+0x%x\n",
	       (unsigned long long)(base + (u64)(s64)b->syms[i].addr + in->caller_offset),
	       ink_btf_name(btf, in->caller_id), in->caller_offset);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "func", required_argument, NULL, 'f' },
		{ "base-btf", required_argument, NULL, 'b' },
		{ "module-btf", required_argument, NULL, 'm' },
		{ "ranges", no_argument, NULL, 'r' },
		{ "addresses", no_argument, NULL, 'a' },
		{ "exits", no_argument, NULL, 'e' },
		{ "no-probe", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *func = NULL, *vmlinux_btf = NULL, *module_btf = NULL;
	struct ink_instance_iter it;
	struct ink_instance in;
	struct blob_file bf;
	bool ranges = false, addresses = false, exits = false, no_probe = false;
	uint32_t shown = 0;
	int c;

	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			func = optarg;
			break;
		case 'b':
			vmlinux_btf = optarg;
			break;
		case 'm':
			module_btf = optarg;
			break;
		case 'r':
			ranges = true;
			break;
		case 'a':
			addresses = true;
			break;
		case 'e':
			exits = true;
			break;
		case 'n':
			no_probe = true;
			break;
		case 'h':
			fputs(dump_usage, stdout);
			return 0;
		default:
			fputs(dump_usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc || (addresses && (ranges || exits || no_probe))) {
		fputs(dump_usage, stderr);
		return 2;
	}
	blob_file_open(&bf, argv[optind], vmlinux_btf, module_btf);
	ink_instance_iter_init(&it, &bf.blob);
	while (ink_instance_next(&it, &in)) {
		if (func && strcmp(ink_btf_name(blob_file_btf(&bf), in.callee_id), func))
			continue;
		/* a record no probe may take is no definition */
		if ((in.flags & BTF_INLINE_EXT_NO_PROBE) && !no_probe)
			continue;
		if (addresses)
			print_address(&bf, &in);
		else
			print_instance(&bf, &in, ranges, exits);
		shown++;
	}
	blob_file_close(&bf);
	if (func && !shown) {
		fprintf(stderr, "inkprobe: no instance of %s in %s (inkprobe funcs lists the "
			"functions it has)\n", func, argv[optind]);
		return 1;
	}
	return 0;
}
