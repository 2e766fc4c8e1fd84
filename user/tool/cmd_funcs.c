// SPDX-License-Identifier: GPL-2.0
/*
 * Finding what to probe, like perf probe's --funcs and --vars:
 *
 *   inkprobe funcs [GLOB] [BLOB] the functions with instances in BLOB: how
 *                                many inlined calls, at how many probe
 *                                addresses, and how many out-of-line copies
 *   inkprobe vars FUNC [BLOB]    each instance of FUNC: where it is, and each
 *                                parameter with its C type, available at the
 *                                probe address or why not
 *
 * Both read only the blob and the target's BTF (as dump does), so they run
 * where the blob is loaded, without DWARF.  Without BLOB they read the
 * blobs inkprobe.ko has loaded, each read back through its "loaded_blob"
 * file (Documentation/control.rst), as perf probe --funcs reads the
 * running kernel.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/blob_file.h"
#include "btf_c_type.h"
#include "commands.h"
#include "debugfs.h"
#include "dump.h"
#include "../common/util.h"

static const char funcs_usage[] =
	"usage: inkprobe funcs [GLOB] [BLOB] [--base-btf FILE] [--module-btf FILE]\n"
	"\n"
	"Lists the functions BLOB has instances of (those whose name matches GLOB,\n"
	"a shell pattern): inlined calls, the probe addresses they are at (calls\n"
	"the compiler merged share one), and out-of-line copies that need more\n"
	"than a kprobe (clones, split parts, functions also inlined).\n"
	"Without BLOB (one operand that is not a file is GLOB), the blobs loaded in\n"
	"inkprobe.ko, read back from it: a function's counts add up across them.\n"
	"Names come from the target's BTF: /sys/kernel/btf/* of the running kernel,\n"
	"or the files given (a vmlinux or .ko, or raw BTF).\n";

static const char vars_usage[] =
	"usage: inkprobe vars FUNC [BLOB] [--base-btf FILE] [--module-btf FILE]\n"
	"\n"
	"For each instance of FUNC in BLOB: its probe address (caller+offset) and\n"
	"each parameter with its C type, available there (and where) or not (and\n"
	"why).  Names and types come from the target's BTF, as for funcs.\n"
	"Without BLOB, every blob loaded in inkprobe.ko, read back from it.\n";

/* Options and operands shared by both commands; returns -1 to go on. */
static int parse(int argc, char **argv, const char *usage, int min, int max,
		 const char **vmlinux_btf, const char **module_btf)
{
	static const struct option opts[] = {
		{ "base-btf", required_argument, NULL, 'b' },
		{ "module-btf", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			*vmlinux_btf = optarg;
			break;
		case 'm':
			*module_btf = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (argc - optind < min || argc - optind > max) {
		fputs(usage, stderr);
		return 2;
	}
	return -1;
}

struct blobs {
	struct blob_file *v;
	size_t nr, cap;
	char what[64];		/* where they come from, for messages */
};

/*
 * The blobs inkprobe.ko has loaded, each read back whole ("loaded_blob"):
 * every target of the "blobs" file but those waiting for their module,
 * whose BTF is not in /sys/kernel/btf yet (said on stderr).
 */
static void open_loaded(struct blobs *bs, const char *vmlinux_btf, const char *module_btf)
{
	char *list = ctl_read("blobs"), *line, *save = NULL, what[INKPROBE_TARGET_NAME_LEN + 32];
	unsigned char *data;
	size_t len;

	snprintf(bs->what, sizeof(bs->what), "the blobs loaded in inkprobe.ko");
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool waiting = strstr(line, " waiting ") != NULL;

		line[strcspn(line, " ")] = '\0';
		if (waiting) {
			warnx("%s: its blob waits for the module to load: not read", line);
			continue;
		}
		data = ctl_read_blob(line, &len);
		if (!data && errno == ENOENT)
			continue;	/* unloaded meanwhile */
		if (!data)
			die("%s: reading the blob of %s: %s", ctl_path("loaded_blob"), line,
			    strerror(errno));
		snprintf(what, sizeof(what), "the loaded blob of %s", line);
		blob_file_open_data(VEC_PUSH(bs->v, bs->nr, bs->cap), data, (uint32_t)len, what,
				    vmlinux_btf, module_btf);
	}
	free(list);
	if (!bs->nr)
		die("no blob is loaded in inkprobe.ko: load one (inkprobe load), or name a "
		    "blob file");
}

/* @path, or without it the loaded blobs. */
static void open_blobs(struct blobs *bs, const char *path, const char *vmlinux_btf,
		       const char *module_btf)
{
	memset(bs, 0, sizeof(*bs));
	if (!path) {
		open_loaded(bs, vmlinux_btf, module_btf);
		return;
	}
	snprintf(bs->what, sizeof(bs->what), "%s", path);
	blob_file_open(VEC_PUSH(bs->v, bs->nr, bs->cap), path, vmlinux_btf, module_btf);
}

static void close_blobs(struct blobs *bs)
{
	size_t i;

	for (i = 0; i < bs->nr; i++)
		blob_file_close(&bs->v[i]);
	free(bs->v);
}

/* An operand that names a file that exists: a blob, not a GLOB. */
static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISDIR(st.st_mode);
}

struct func_count {
	const char *name;
	uint32_t inlined;	/* inlined calls */
	uint32_t sites;		/* records of them: probe addresses */
	uint32_t out_of_line;	/* out-of-line copies with a record */
};

static int count_cmp(const void *a, const void *b)
{
	return strcmp(((const struct func_count *)a)->name, ((const struct func_count *)b)->name);
}

/* Counts @bf's instances of functions matching @glob (NULL: all) into *@f. */
static void count_blob(const struct blob_file *bf, const char *glob, struct hmap *index,
		       struct func_count **f, size_t *nr, size_t *cap)
{
	struct ink_instance_iter it;
	struct ink_instance in;

	ink_instance_iter_init(&it, &bf->blob);
	while (ink_instance_next(&it, &in)) {
		const char *name = ink_btf_name(blob_file_btf(bf), in.callee_id);
		struct func_count *c;
		uint32_t k;

		/* ranges only (NO_PROBE): nothing to probe or read there */
		if ((glob && fnmatch(glob, name, 0)) || (in.flags & BTF_INLINE_EXT_NO_PROBE))
			continue;
		if (!hmap_get(index, name, strlen(name), &k)) {
			k = (uint32_t)*nr;
			hmap_put(index, name, strlen(name), k);
			*VEC_PUSH(*f, *nr, *cap) = (struct func_count){ .name = name };
		}
		c = &(*f)[k];
		if (in.flags & BTF_INLINE_EXT_OUT_OF_LINE) {
			c->out_of_line++;
		} else {
			c->sites++;
			c->inlined += in.merged_calls ? in.merged_calls : 1;
		}
	}
}

int cmd_funcs(int argc, char **argv)
{
	const char *vmlinux_btf = NULL, *module_btf = NULL, *glob = NULL, *path = NULL;
	struct func_count *f = NULL;
	size_t nr = 0, cap = 0, i, b;
	struct hmap index = { 0 };
	struct blobs bs;
	uint64_t calls = 0, copies = 0;
	int ret = parse(argc, argv, funcs_usage, 0, 2, &vmlinux_btf, &module_btf);

	if (ret >= 0)
		return ret;
	if (argc - optind == 2 || (argc - optind == 1 && !is_file(argv[optind])))
		glob = argv[optind++];
	if (optind < argc)
		path = argv[optind];
	open_blobs(&bs, path, vmlinux_btf, module_btf);
	for (b = 0; b < bs.nr; b++)
		count_blob(&bs.v[b], glob, &index, &f, &nr, &cap);
	hmap_free(&index);
	if (!nr) {
		fprintf(stderr, "inkprobe: no function%s%s%s has instances in %s\n",
			glob ? " matching '" : "", glob ? glob : "", glob ? "'" : "", bs.what);
		close_blobs(&bs);
		return 1;
	}
	qsort(f, nr, sizeof(*f), count_cmp);
	printf("%-40s %8s %6s %12s\n", "FUNCTION", "INLINED", "SITES", "OUT-OF-LINE");
	for (i = 0; i < nr; i++) {
		printf("%-40s %8u %6u %12u\n", f[i].name, f[i].inlined, f[i].sites,
		       f[i].out_of_line);
		calls += f[i].inlined;
		copies += f[i].out_of_line;
	}
	printf("%zu functions, %llu inlined calls, %llu out-of-line copies\n", nr,
	       (unsigned long long)calls, (unsigned long long)copies);
	free(f);
	close_blobs(&bs);
	return 0;
}

/* One parameter of an instance: its declaration, and where it is or why not. */
static void print_var(const struct blob_file *bf, const struct ink_instance *in,
		      const struct btf_param *p, uint32_t i)
{
	const struct ink_btf *btf = blob_file_btf(bf);
	const char *name = ink_btf_str(btf, p->name_off);
	char argname[32], decl[512], where[256];
	bool plain;

	if (!*name) {
		snprintf(argname, sizeof(argname), "arg%u", i + 1);
		name = argname;
	}
	btf_c_decl(btf, p->type, name, decl, sizeof(decl));
	if (format_location(bf, ink_instance_parm(in, i), where, sizeof(where), &plain))
		printf("\t%-40s available: %s\n", decl, where);
	else if (ink_parm_ambiguous(in, i))
		printf("\t%-40s unavailable: the %u calls merged here pass different values\n",
		       decl, in->merged_calls);
	else
		printf("\t%-40s unavailable: optimized out at the probe address\n", decl);
}

/* Each instance of @func in @bf, with its parameters; how many. */
static uint32_t print_vars(const struct blob_file *bf, const char *func)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	const struct ink_btf *btf = blob_file_btf(bf);
	bool module;
	uint32_t n = 0, i;

	module = strcmp(bf->blob.target->name, "vmlinux");
	ink_instance_iter_init(&it, &bf->blob);
	while (ink_instance_next(&it, &in)) {
		const struct btf_type *proto;
		const struct btf_param *params;

		if (strcmp(ink_btf_name(btf, in.callee_id), func) ||
		    (in.flags & BTF_INLINE_EXT_NO_PROBE))
			continue;
		proto = ink_btf_func_proto(btf, in.callee_id);
		params = ink_btf_params(proto);
		printf("%s %s%s%s+0x%x (%s", func, module ? bf->blob.target->name : "",
		       module ? ":" : "", ink_btf_name(btf, in.caller_id), in.caller_offset,
		       (in.flags & BTF_INLINE_EXT_OUT_OF_LINE) ? "out-of-line" : "inline");
		if (in.flags & BTF_INLINE_EXT_SPLIT_PART)
			printf(", split part");
		if (in.flags & BTF_INLINE_EXT_MERGED)
			printf(", %u calls merged", in.merged_calls);
		printf(")\n");
		for (i = 0; i < in.nr_parms; i++)
			print_var(bf, &in, &params[i], i);
		if (!in.nr_parms)
			printf("\t(no parameters)\n");
		n++;
	}
	return n;
}

int cmd_vars(int argc, char **argv)
{
	const char *vmlinux_btf = NULL, *module_btf = NULL, *func, *path = NULL;
	struct blobs bs;
	uint32_t n = 0;
	size_t b;
	int ret = parse(argc, argv, vars_usage, 1, 2, &vmlinux_btf, &module_btf);

	if (ret >= 0)
		return ret;
	func = argv[optind];
	if (optind + 1 < argc)
		path = argv[optind + 1];
	open_blobs(&bs, path, vmlinux_btf, module_btf);
	for (b = 0; b < bs.nr; b++)
		n += print_vars(&bs.v[b], func);
	if (!n)
		fprintf(stderr, "inkprobe: no instance of %s in %s (inkprobe funcs lists the "
			"functions it has)\n", func, bs.what);
	close_blobs(&bs);
	return n ? 0 : 1;
}
