// SPDX-License-Identifier: GPL-2.0
/*
 * The trace reader's parts on the host, under ASan/UBSan:
 * - records rendered from their fields (user/trace/record.c): an event's
 *   format as inkprobe.ko writes it, parsed by libtraceevent, and records
 *   made here byte by byte; the text and JSON expected are written out from
 *   those bytes;
 * - the stack's print fmt as libtraceevent 1.7 prints it without the plugin:
 *   each frame in hex;
 * - inline frames from the blob (user/trace/inline_frames.c) against
 *   binutils' addr2line -i on the same inkprobe_target.ko (its own DWARF
 *   reader): at every byte of every function of .text, the inlined
 *   functions that hold it, innermost first, must be addr2line's; the
 *   differences are listed, with why, in selftests/reader-frames-differences.txt
 *   (for the first test kernel: the host tests run for it).
 */
#include <event-parse.h>

#include "kselftest_harness.h"
#include "host_test.h"
#include "../../user/trace/inline_frames.h"
#include "../../user/trace/record.h"

/* ---- records ---- */

/*
 * p:tgt/mix tgt_mix reg konst obj weight=obj->weight name=... as the module
 * lays it out (Documentation/trace-events.rst), with a string.
 */
static const char mix_format[] =
	"name: mix\n"
	"ID: 1360\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 __optimized_out;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 __fault;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 reg;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:s32 konst;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 obj;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 weight;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:52;\tsize:4;\tsigned:1;\n"
	"\tfield:s8 small;\toffset:56;\tsize:1;\tsigned:1;\n"
	"\n"
	"print fmt: \"(%pS) reg=%llu%s%s konst=%d%s%s obj=0x%llx%s%s weight=%u%s%s "
	"name=\\\"%s\\\"%s%s small=%d%s%s\", REC->__probe_ip, "
	"REC->reg, (REC->__optimized_out & 0x1) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x1) ? \" (fault)\" : \"\", "
	"REC->konst, (REC->__optimized_out & 0x2) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x2) ? \" (fault)\" : \"\", "
	"REC->obj, (REC->__optimized_out & 0x4) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x4) ? \" (fault)\" : \"\", "
	"REC->weight, (REC->__optimized_out & 0x8) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x8) ? \" (fault)\" : \"\", "
	"__get_str(name), (REC->__optimized_out & 0x10) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x10) ? \" (fault)\" : \"\", "
	"REC->small, (REC->__optimized_out & 0x20) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x20) ? \" (fault)\" : \"\"\n";

struct rec_buf {
	unsigned char b[256];
	unsigned int len;
};

static void put(struct rec_buf *r, unsigned int off, const void *v, unsigned int n)
{
	memcpy(r->b + off, v, n);
	if (off + n > r->len)
		r->len = off + n;
}

static void put64(struct rec_buf *r, unsigned int off, uint64_t v)
{
	put(r, off, &v, 8);
}

static void put32(struct rec_buf *r, unsigned int off, uint32_t v)
{
	put(r, off, &v, 4);
}

/* A mix record: reg, konst, obj, weight, name, small; optimized-out and fault bits. */
static void mix_record(struct rec_buf *r, uint32_t oo, uint32_t fault, const char *name)
{
	uint16_t id = 1360;
	size_t n = strlen(name) + 1;
	int8_t small = -128;

	memset(r, 0, sizeof(*r));
	put(r, 0, &id, 2);
	put32(r, 4, 4242);				/* common_pid */
	put64(r, 8, 0xffffffffc0123456ULL);		/* __probe_ip */
	put32(r, 16, oo);
	put32(r, 20, fault);
	put64(r, 24, 18446744073709551615ULL);		/* reg: u64 max */
	put32(r, 32, (uint32_t)-11);			/* konst */
	put64(r, 40, 0xff7830d2c04f3b68ULL);		/* obj */
	put32(r, 48, 9);				/* weight */
	put32(r, 52, (uint32_t)n << 16 | 60);		/* name: __data_loc */
	put(r, 56, &small, 1);
	put(r, 60, name, (unsigned int)n);
}

/* A symbol table of one function, as a trace.dat's kallsyms gives it. */
static bool one_sym(void *ctx, uint64_t addr, struct ink_sym *out)
{
	if (addr < 0xffffffffc0123400ULL || addr >= 0xffffffffc0123500ULL)
		return false;
	out->name = "tgt_caller_a";
	out->start = 0xffffffffc0123400ULL;
	out->size = 0x100;
	out->module = "inkprobe_target";
	out->module_known = true;
	return true;
}

FIXTURE(rec) {
	struct tep_handle *tep;
	struct ink_rec_fmt fmt;
	struct ink_symbolizer syms;
	struct ink_rec_ctx ctx;
	struct buf out;
};

FIXTURE_SETUP(rec)
{
	struct tep_event *ev;

	self->tep = tep_alloc();
	ASSERT_NE(NULL, self->tep);
	tep_set_long_size(self->tep, 8);
	ASSERT_EQ(0, tep_parse_event(self->tep, mix_format, sizeof(mix_format) - 1, "tgt"));
	ev = tep_find_event(self->tep, 1360);
	ASSERT_NE(NULL, ev);
	ASSERT_TRUE(ink_rec_fmt_init(&self->fmt, ev));
	self->syms = (struct ink_symbolizer){ .lookup = one_sym };
	self->ctx = (struct ink_rec_ctx){ .syms = &self->syms };
	memset(&self->out, 0, sizeof(self->out));
}

FIXTURE_TEARDOWN(rec)
{
	buf_free(&self->out);
	tep_free(self->tep);
}

static const char *text_of(struct buf *b)
{
	buf_add_u8(b, '\0');
	b->len--;
	return (const char *)b->data;
}

TEST_F(rec, layout_from_the_format)
{
	const struct ink_rec_fmt *f = &self->fmt;

	EXPECT_TRUE(f->inkprobe);
	EXPECT_FALSE(f->stack);
	EXPECT_EQ(4, f->pid_off);
	ASSERT_EQ(6, f->nr_fields);
	EXPECT_STREQ("reg", f->fields[0].name);
	EXPECT_EQ(REC_U, f->fields[0].kind);
	EXPECT_EQ(REC_S, f->fields[1].kind);
	/* hex is a way of printing: the print fmt says it */
	EXPECT_EQ(REC_X, f->fields[2].kind);
	EXPECT_EQ(REC_U, f->fields[3].kind);
	EXPECT_EQ(REC_STR, f->fields[4].kind);
	EXPECT_EQ(REC_S, f->fields[5].kind);
}

TEST_F(rec, text_as_the_module_prints_it)
{
	struct rec_buf r;

	mix_record(&r, 0, 0, "a \"b\" \\ \x01\xff");
	ink_rec_text(&self->out, &self->ctx, &self->fmt, r.b, r.len);
	EXPECT_STREQ("(tgt_caller_a+0x56) reg=18446744073709551615 konst=-11 "
		     "obj=0xff7830d2c04f3b68 weight=9 name=\"a \\\"b\\\" \\\\ \\x01\\xff\" small=-128",
		     text_of(&self->out));
}

TEST_F(rec, json_numbers_are_numbers)
{
	struct rec_buf r;

	mix_record(&r, 0, 0, "x");
	ink_rec_json(&self->out, &self->ctx, &self->fmt, r.b, r.len);
	EXPECT_STREQ(",\"ip\":18446744072637002838,\"caller\":\"tgt_caller_a\",\"offset\":86,"
		     "\"args\":{\"reg\":18446744073709551615,\"konst\":-11,"
		     "\"obj\":18408517158604585832,\"weight\":9,\"name\":\"x\",\"small\":-128}",
		     text_of(&self->out));
}

TEST_F(rec, unavailable_values)
{
	struct rec_buf r;

	/* konst optimized out, weight faulted, name both: the fault wins */
	mix_record(&r, 0x2 | 0x10, 0x8 | 0x10, "never");
	ink_rec_text(&self->out, &self->ctx, &self->fmt, r.b, r.len);
	EXPECT_STREQ("(tgt_caller_a+0x56) reg=18446744073709551615 konst=(optimized out) "
		     "obj=0xff7830d2c04f3b68 weight=(fault) name=(fault) small=-128",
		     text_of(&self->out));
	self->out.len = 0;
	ink_rec_json(&self->out, &self->ctx, &self->fmt, r.b, r.len);
	EXPECT_STREQ(",\"ip\":18446744072637002838,\"caller\":\"tgt_caller_a\",\"offset\":86,"
		     "\"args\":{\"reg\":18446744073709551615,\"konst\":null,"
		     "\"obj\":18408517158604585832,\"weight\":null,\"name\":null,\"small\":-128},"
		     "\"missing\":{\"konst\":\"optimized out\",\"weight\":\"fault\","
		     "\"name\":\"fault\"}",
		     text_of(&self->out));
}

TEST_F(rec, without_symbols_and_cut_records)
{
	struct ink_rec_ctx bare = { 0 };
	struct rec_buf r;

	mix_record(&r, 0, 0, "abc");
	ink_rec_text(&self->out, &bare, &self->fmt, r.b, r.len);
	EXPECT_STREQ("(0xffffffffc0123456) reg=18446744073709551615 konst=-11 "
		     "obj=0xff7830d2c04f3b68 weight=9 name=\"abc\" small=-128",
		     text_of(&self->out));
	/* the string's bytes beyond the record: said, not read */
	self->out.len = 0;
	ink_rec_text(&self->out, &bare, &self->fmt, r.b, 62);
	EXPECT_STREQ("(0xffffffffc0123456) reg=18446744073709551615 konst=-11 "
		     "obj=0xff7830d2c04f3b68 weight=9 name=(bad record) small=-128",
		     text_of(&self->out));
}

TEST(json_escaping)
{
	struct buf b = { 0 };
	const char *s = "a\"b\\c\td\x01 \xc3\xa9 \xff\xc3(";

	ink_json_str(&b, s, strlen(s));
	buf_add_u8(&b, '\0');
	EXPECT_STREQ("\"a\\\"b\\\\c\\td\\u0001 \xc3\xa9 \\u00ff\\u00c3(\"", (char *)b.data);
	b.len = 0;
	s = "\xf0\x9f\x98\x80 \xc0\x80 \xed\xa0\x80";
	ink_json_str(&b, s, strlen(s));
	buf_add_u8(&b, '\0');
	EXPECT_STREQ("\"\xf0\x9f\x98\x80 \\u00c0\\u0080 \\u00ed\\u00a0\\u0080\"", (char *)b.data);
	buf_free(&b);
}

/* ---- a stacktrace event ---- */

/*
 * p:st/in tgt_stack_innermost v stacktrace: frames at 48 (the fixed part's
 * end), REC->__probe_ip[5] the first; the print fmt of module/trace_event.c
 * for one argument (32 frames).
 */
static char *stack_format(void)
{
	struct buf b = { 0 };
	char tmp[160];
	int i;

	ink_put_str(&b, "name: in\nID: 1363\nformat:\n"
		    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		    "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		    "\tfield:u32 __optimized_out;\toffset:16;\tsize:4;\tsigned:0;\n"
		    "\tfield:u32 __fault;\toffset:20;\tsize:4;\tsigned:0;\n"
		    "\tfield:u64 v;\toffset:24;\tsize:8;\tsigned:0;\n"
		    "\tfield:__data_loc unsigned long[] __stack;\toffset:32;\tsize:4;\tsigned:0;\n"
		    "\tfield:__data_loc u8[] __stack_flags;\toffset:36;\tsize:4;\tsigned:0;\n"
		    "\tfield:u32 __probe_idx;\toffset:40;\tsize:4;\tsigned:0;\n"
		    "\tfield:u32 __nr_frames;\toffset:44;\tsize:4;\tsigned:0;\n\n"
		    "print fmt: \"(%pS) v=%llu%s%s stack=");
	for (i = 0; i < 32; i++)
		ink_put_str(&b, i ? " %s" : "%s");
	ink_put_str(&b, "\", REC->__probe_ip, REC->v, (REC->__optimized_out & 0x1) ? "
		    "\" (optimized out)\" : \"\", (REC->__fault & 0x1) ? \" (fault)\" : \"\"");
	for (i = 0; i < 32; i++) {
		snprintf(tmp, sizeof(tmp), ", __print_symbolic(REC->__nr_frames > %d ? "
			 "REC->__probe_ip[%d] : 0, { 0, \"\" })", i, 5 + i);
		ink_put_str(&b, tmp);
	}
	ink_put_str(&b, "\n");
	buf_add_u8(&b, '\0');
	return (char *)b.data;
}

/* Three frames: the probe site (exact), two return addresses, the last a guess. */
static void stack_record(struct rec_buf *r, const uint64_t frames[3])
{
	static const uint8_t flags[3] = { 1, 0, 2 };
	uint16_t id = 1363;

	memset(r, 0, sizeof(*r));
	put(r, 0, &id, 2);
	put32(r, 4, 77);
	put64(r, 8, frames[0]);
	put64(r, 24, 89);
	put32(r, 32, 24u << 16 | 48);		/* __stack: 3 frames at 48 */
	put32(r, 36, 3u << 16 | 72);		/* __stack_flags at 72 */
	put32(r, 40, 0);
	put32(r, 44, 3);
	put(r, 48, frames, 24);
	put(r, 72, flags, 3);
	r->len = 76;
}

TEST(stack_print_fmt_without_the_plugin_is_hex)
{
	const uint64_t frames[3] = { 0xffffffffc05e556eULL, 0xffffffffc05e55b3ULL,
				     0xffffffff81000123ULL };
	struct tep_handle *tep = tep_alloc();
	char *format = stack_format();
	struct tep_record rec = { 0 };
	struct trace_seq s;
	struct rec_buf r;

	tep_set_long_size(tep, 8);
	ASSERT_EQ(0, tep_parse_event(tep, format, strlen(format), "st"));
	stack_record(&r, frames);
	rec.data = r.b;
	rec.size = (int)r.len;
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	/* 29 frames absent: a space each */
	EXPECT_STREQ("(0xffffffffc05e556e) v=89 stack=0xffffffffc05e556e 0xffffffffc05e55b3 "
		     "0xffffffff81000123                             ", s.buffer);
	trace_seq_destroy(&s);
	free(format);
	tep_free(tep);
}

TEST(stack_frames_as_text_and_json)
{
	const uint64_t frames[3] = { 0xffffffffc0123456ULL, 0xffffffffc01234a0ULL,
				     0xffffffff81000123ULL };
	struct ink_symbolizer syms = { .lookup = one_sym };
	struct ink_rec_ctx ctx = { .syms = &syms };
	struct tep_handle *tep = tep_alloc();
	char *format = stack_format();
	struct ink_rec_fmt f;
	struct buf out = { 0 };
	struct rec_buf r;

	tep_set_long_size(tep, 8);
	ASSERT_EQ(0, tep_parse_event(tep, format, strlen(format), "st"));
	ASSERT_TRUE(ink_rec_fmt_init(&f, tep_find_event(tep, 1363)));
	EXPECT_TRUE(f.stack);
	ASSERT_EQ(1, f.nr_fields);
	stack_record(&r, frames);
	ink_rec_text(&out, &ctx, &f, r.b, r.len);
	buf_add_u8(&out, '\0');
	EXPECT_STREQ("(tgt_caller_a+0x56) v=89\n"
		     " => tgt_caller_a+0x56/0x100 [inkprobe_target]\n"
		     " => tgt_caller_a+0xa0/0x100 [inkprobe_target]\n"
		     " => ? 0xffffffff81000123", (char *)out.data);
	out.len = 0;
	ink_rec_json(&out, &ctx, &f, r.b, r.len);
	buf_add_u8(&out, '\0');
	EXPECT_STREQ(",\"ip\":18446744072637002838,\"caller\":\"tgt_caller_a\",\"offset\":86,"
		     "\"args\":{\"v\":89},\"stack\":["
		     "{\"addr\":18446744072637002838,\"symbol\":\"tgt_caller_a\",\"offset\":86,"
		     "\"module\":\"inkprobe_target\"},"
		     "{\"addr\":18446744072637002912,\"symbol\":\"tgt_caller_a\",\"offset\":160,"
		     "\"module\":\"inkprobe_target\"},"
		     "{\"addr\":18446744071578845475,\"guess\":true}]", (char *)out.data);
	buf_free(&out);
	free(format);
	tep_free(tep);
}

/* ---- inline frames against addr2line ---- */

struct ko_sym {
	char name[128];
	uint64_t value, size;
	int dup;
};

static const char *ko_path(void)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/build/%s/kmod/inkprobe_target.ko",
		 host_env("INKPROBE_TOP", "."), host_kernel());
	return path;
}

/*
 * The .ko's functions in .text (readelf), each with its duplicate index:
 * the defined symbols of its name before it in the symbol table, as the
 * module counts them (and /proc/kallsyms lists them).  How many, or -1.
 */
static int ko_functions(struct ko_sym *out, int max)
{
	static struct host_run r;
	char *line, *save = NULL, text_ndx[16] = "";
	static char names[8192][128];
	int n = 0, nr_names = 0, i;

	if (host_run(&r, "readelf -SW %s | sed -n 's/^ *\\[ *\\([0-9]*\\)\\] \\.text .*/\\1/p'",
		     ko_path()))
		return -1;
	r.out[strcspn(r.out, "\n")] = '\0';
	if (strlen(r.out) >= sizeof(text_ndx))
		return -1;
	memcpy(text_ndx, r.out, strlen(r.out) + 1);
	if (!*text_ndx ||
	    host_run(&r, "readelf -sW %s | awk 'NR > 3 && $7 != \"UND\" && NF >= 8 "
		     "{ print $2, $3, $4, $7, $8 }'", ko_path()))
		return -1;
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long value, size;
		char type[16], ndx[16], name[128];
		int dup = 0;

		if (sscanf(line, "%llx %llu %15s %15s %127s", &value, &size, type, ndx, name) != 5)
			continue;
		for (i = 0; i < nr_names; i++)
			dup += !strcmp(names[i], name);
		if (nr_names < 8192)
			snprintf(names[nr_names++], sizeof(names[0]), "%s", name);
		if (strcmp(type, "FUNC") || strcmp(ndx, text_ndx) || !size || n == max)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		out[n].value = value;
		out[n].size = size;
		out[n].dup = dup;
		n++;
	}
	return n;
}

/*
 * The listed differences of this kernel: lines "KERNEL FUNC [ADDR2LINE'S]
 * [THE BLOB'S] # why" of the differences file (each list innermost first).
 */
struct diff {
	char key[600];		/* "FUNC [...] [...]" */
	bool seen;
};

static int read_diffs(struct diff *d, int max)
{
	char path[1024], line[1024], k[64];
	int n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/selftests/reader-frames-differences.txt",
		 host_env("INKPROBE_TOP", "."));
	snprintf(k, sizeof(k), "%s ", host_kernel());
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (n < max && fgets(line, sizeof(line), fp)) {
		char *hash = strstr(line, " #");

		if (strncmp(line, k, strlen(k)) || !hash)
			continue;
		*hash = '\0';
		snprintf(d[n].key, sizeof(d[n].key), "%s", line + strlen(k));
		d[n++].seen = false;
	}
	fclose(fp);
	return n;
}

static bool listed(struct diff *d, int n, const char *func, const char *want, const char *got)
{
	char key[4400];
	int i;

	snprintf(key, sizeof(key), "%s [%s] [%s]", func, want, got);
	for (i = 0; i < n; i++)
		if (!strcmp(d[i].key, key))
			return d[i].seen = true;
	return false;
}

/* The test's symbol table: the .ko's .text functions at a made-up base. */
#define KO_BASE		0xffffffffc0000000ULL

static struct ko_sym ko_fns[4096];
static int ko_nr;

static uint64_t ko_addr_of(void *ctx, const char *module, const char *name, int dup)
{
	int i;

	if (!module || strcmp(module, "inkprobe_target"))
		return 0;
	for (i = 0; i < ko_nr; i++)
		if (ko_fns[i].dup == dup && !strcmp(ko_fns[i].name, name))
			return KO_BASE + ko_fns[i].value;
	return 0;
}

TEST(inline_frames_are_addr2line_s)
{
	struct ko_sym *fns = ko_fns;
	static struct host_run r;
	char blob[1024], vmlinux[1024], why[256], list[64], *p, *out;
	static struct diff diffs[64];
	int nr_diffs;
	int nfn = ko_nr = ko_functions(fns, 4096), i, checked = 0, with_inline = 0, bad = 0;
	int known = 0;
	struct ink_frames *f = ink_frames_new();
	FILE *addrs;
	uint64_t off;

	ASSERT_LT(0, nfn);
	snprintf(blob, sizeof(blob), "%s/build/%s/blobs/inkprobe_target.inkb",
		 host_env("INKPROBE_TOP", "."), host_kernel());
	snprintf(vmlinux, sizeof(vmlinux), "%s/kernels/%s/build/vmlinux",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), host_kernel());
	ASSERT_EQ(0, ink_frames_add(f, blob, vmlinux, false, why, sizeof(why))) TH_LOG("%s", why);
	/* callers found by address, as inkprobe trace finds them with /proc/kallsyms */
	ink_frames_set_symbols(f, ko_addr_of, NULL, NULL);
	snprintf(list, sizeof(list), "/tmp/inkprobe-reader-addrs.%d", (int)getpid());
	addrs = fopen(list, "w");
	ASSERT_NE(NULL, addrs);
	for (i = 0; i < nfn; i++)
		for (off = 0; off < fns[i].size; off++)
			fprintf(addrs, "0x%llx\n", (unsigned long long)(fns[i].value + off));
	fclose(addrs);
	/* its output can be long: into a file */
	ASSERT_EQ(0, host_run(&r, "addr2line -a -i -f -j .text -e %s <%s | "
			      "awk '/^0x[0-9a-f]+$/ { if (l) print l; l = $0; c = 0; next } "
			      "c++ %% 2 == 0 { l = l \" \" $0 }  END { print l }' >%s.out; rm -f %s",
			      ko_path(), list, list, list));
	{
		char path[128];
		uint32_t len;

		snprintf(path, sizeof(path), "%s.out", list);
		out = (char *)read_file(path, &len);
		out = realloc(out, len + 1);
		out[len] = '\0';
		unlink(path);
	}
	nr_diffs = read_diffs(diffs, 64);
	ASSERT_LE(0, nr_diffs);
	/* one line per address: "0xADDR NAME..." innermost first, the function itself last */
	p = out;
	for (i = 0; i < nfn; i++) {
		for (off = 0; off < fns[i].size; off++) {
			struct ink_sym sym = {
				.name = fns[i].name, .start = KO_BASE + fns[i].value,
				.size = fns[i].size,
				.module = "inkprobe_target", .module_known = true,
				.dup_index = fns[i].dup,
			};
			const char *names[INK_INLINE_DEPTH];
			char want[2048] = "", got[2048] = "", *nl, *sp, *last;
			unsigned int n, j;

			nl = strchr(p, '\n');
			ASSERT_NE(NULL, nl);
			*nl = '\0';
			sp = strchr(p, ' ');
			ASSERT_NE(NULL, sp);
			/* drop the address and the outermost name: the inlined ones stay */
			snprintf(want, sizeof(want), "%s", sp + 1);
			last = strrchr(want, ' ');
			if (last)
				*last = '\0';
			else
				want[0] = '\0';
			p = nl + 1;
			n = ink_frames_at(f, &sym, KO_BASE + fns[i].value + off, false, true,
					  names, INK_INLINE_DEPTH);
			for (j = 0; j < n; j++)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
					 j ? " " : "", names[j]);
			checked++;
			with_inline += *want != '\0';
			if (!strcmp(want, got))
				continue;
			if (listed(diffs, nr_diffs, fns[i].name, want, got)) {
				known++;
				continue;
			}
			if (bad++ < 40)
				TH_LOG("%s+0x%llx: addr2line [%s], blob [%s]", fns[i].name,
				       (unsigned long long)off, want, got);
		}
	}
	TH_LOG("%d functions, %d addresses, %d of them in inlined code, %d listed differences",
	       nfn, checked, with_inline, known);
	EXPECT_EQ(0, bad);
	EXPECT_LT(100, with_inline);
	/* a listed difference that no longer occurs must go */
	for (i = 0; i < nr_diffs; i++)
		EXPECT_TRUE(diffs[i].seen) TH_LOG("listed, not seen: %s", diffs[i].key);
	free(out);
	ink_frames_free(f);
}

/*
 * Code kprobes refuse: tgt_np_noinstr() in .noinstr.text, whose inlined
 * copies have NO_PROBE records (ranges alone).  At every byte the inline
 * frames are addr2line -i's, with no listed difference.
 */
TEST(inline_frames_in_noinstr_text_are_addr2line_s)
{
	static struct host_run r;
	char blob[1024], vmlinux[1024], why[256], list[64], *p;
	unsigned long long value = 0, size = 0, off;
	int checked = 0, with_inline = 0, helper = 0, only = 0, bad = 0, n;
	struct ink_frames *f = ink_frames_new();
	unsigned int ndx = 0;
	FILE *addrs;

	/* one symbol of the name, its section .noinstr.text (readelf) */
	ASSERT_EQ(0, host_run(&r, "readelf -sW %s | awk '$8 == \"tgt_np_noinstr\" "
			      "{ print $2, $3, $4, $7 }'", ko_path()));
	ASSERT_EQ(3, sscanf(r.out, "%llx %llu FUNC %u", &value, &size, &ndx)) TH_LOG("%s", r.out);
	ASSERT_EQ(strlen(r.out) - 1, strcspn(r.out, "\n")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, host_run(&r, "readelf -SW %s | sed -n 's/^ *\\[ *%u\\] \\([^ ]*\\) .*/\\1/p'",
			      ko_path(), ndx));
	ASSERT_STREQ(".noinstr.text\n", r.out);
	/* the .text functions, and this one at a made-up offset past them */
	n = ko_nr = ko_functions(ko_fns, 4095);
	ASSERT_LT(0, n);
	snprintf(ko_fns[n].name, sizeof(ko_fns[n].name), "tgt_np_noinstr");
	ko_fns[n].value = 0x10000000 + value;
	ko_fns[n].size = size;
	ko_fns[n].dup = 0;
	ko_nr++;
	snprintf(blob, sizeof(blob), "%s/build/%s/blobs/inkprobe_target.inkb",
		 host_env("INKPROBE_TOP", "."), host_kernel());
	snprintf(vmlinux, sizeof(vmlinux), "%s/kernels/%s/build/vmlinux",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), host_kernel());
	ASSERT_EQ(0, ink_frames_add(f, blob, vmlinux, false, why, sizeof(why))) TH_LOG("%s", why);
	ink_frames_set_symbols(f, ko_addr_of, NULL, NULL);
	snprintf(list, sizeof(list), "/tmp/inkprobe-reader-noinstr.%d", (int)getpid());
	addrs = fopen(list, "w");
	ASSERT_NE(NULL, addrs);
	for (off = 0; off < size; off++)
		fprintf(addrs, "0x%llx\n", value + off);
	fclose(addrs);
	ASSERT_EQ(0, host_run(&r, "addr2line -a -i -f -j .noinstr.text -e %s <%s | "
			      "awk '/^0x[0-9a-f]+$/ { if (l) print l; l = $0; c = 0; next } "
			      "c++ %% 2 == 0 { l = l \" \" $0 }  END { print l }'; rm -f %s",
			      ko_path(), list, list));
	p = r.out;
	for (off = 0; off < size; off++) {
		struct ink_sym sym = {
			.name = "tgt_np_noinstr", .start = KO_BASE + ko_fns[n].value, .size = size,
			.module = "inkprobe_target", .module_known = true, .dup_index = 0,
		};
		const char *names[INK_INLINE_DEPTH];
		char want[2048] = "", got[2048] = "", *nl, *sp, *last;
		unsigned int k, j;

		nl = strchr(p, '\n');
		ASSERT_NE(NULL, nl);
		*nl = '\0';
		sp = strchr(p, ' ');
		ASSERT_NE(NULL, sp);
		snprintf(want, sizeof(want), "%s", sp + 1);
		last = strrchr(want, ' ');
		if (last)
			*last = '\0';
		else
			want[0] = '\0';
		p = nl + 1;
		k = ink_frames_at(f, &sym, sym.start + off, false, true, names, INK_INLINE_DEPTH);
		for (j = 0; j < k; j++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", j ? " " : "",
				 names[j]);
		checked++;
		with_inline += *want != '\0';
		helper += !strcmp(got, "tgt_np_helper");
		only += !strcmp(got, "tgt_np_only");
		if (strcmp(want, got) && bad++ < 40)
			TH_LOG("tgt_np_noinstr+0x%llx: addr2line [%s], blob [%s]", off, want, got);
	}
	TH_LOG("%d addresses, %d in inlined code: %d tgt_np_helper, %d tgt_np_only", checked,
	       with_inline, helper, only);
	EXPECT_EQ(0, bad);
	EXPECT_LT(0, helper);
	EXPECT_LT(0, only);
	ink_frames_free(f);
}

TEST_HARNESS_MAIN
