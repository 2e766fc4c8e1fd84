// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe load: blobs into inkprobe.ko, in one write each, as they are
 * (the kernel decompresses and validates them): the files named, or
 * without BLOB the blobs of the running kernel and of its loaded modules
 * (or of the build IDs named), fetched from debuginfod as 'inkprobe
 * publish' left them there (Documentation/debuginfod.rst).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../common/blob_file.h"
#include "../common/build_id.h"
#include "commands.h"
#include "debugfs.h"
#include "../common/debuginfod.h"
#include "../common/util.h"

static const char load_usage[] =
	"usage: inkprobe load BLOB...\n"
	"       inkprobe load [--all] [--running-kernel] [--module NAME]... [--build-id HEX]...\n"
	"\n"
	"Loads each blob made by 'inkprobe gen' into inkprobe.ko, in one write,\n"
	"compressed or raw (--raw) as it is: the kernel decompresses it.\n"
	"A blob replaces the loaded blob of its target (vmlinux or a module) unless\n"
	"probes use it; a module's blob may be loaded before the module.\n"
	"\n"
	"Without BLOB, fetches the blobs by build ID from the debuginfod servers in\n"
	"DEBUGINFOD_URLS, as 'inkprobe publish' left them there, and prints a line\n"
	"per target: TARGET build-id=HEX loaded|already loaded|no blob|failed.\n"
	"  --all               the running kernel and every loaded module (the default)\n"
	"  --running-kernel    the running kernel's (/sys/kernel/notes)\n"
	"  --module NAME       the loaded module NAME's (/sys/module/NAME/notes)\n"
	"  --build-id HEX      the blob of this build ID, for a module not loaded yet\n";

/* Loads @len bytes of blob (freed); @path names it in messages.  Exit status. */
static int load_bytes(const char *path, uint8_t *data, uint32_t len)
{
	char what[PATH_MAX + 8], regen[640];
	const struct ctl_hint hints[] = {
		{ ENOEXEC, regen },
		{ EBUSY, "probes use the loaded blob of this target: remove them first "
			 "(inkprobe list; inkprobe del GRP/EVENT)" },
		{ EINVAL, "not a valid blob: 'inkprobe dump BLOB' tells more; "
			  "regenerate it with inkprobe gen" },
		{ EFBIG, "load inkprobe.ko with a larger blob_max_kb "
			 "(rmmod inkprobe; insmod inkprobe.ko blob_max_kb=KB)" },
		{ ENOENT, "inkprobe.ko needs the kernel's BTF: /sys/kernel/btf/vmlinux "
			  "(CONFIG_DEBUG_INFO_BTF=y) and, for a module, its BTF" },
		{ 0 },
	};
	struct ink_err err = { 0 };
	struct blob_target t;
	struct utsname uts;
	char why[160];
	int ret;

	if (!len) {	/* the kernel would take an empty write for nothing */
		free(data);
		warnx("load %s: an empty file is not a blob", path);
		return 1;
	}
	/*
	 * The kernel decompresses and validates it, and the file goes as it is;
	 * parsed here only to name the target in a hint.
	 */
	if (blob_peek(data, len, &t, why, sizeof(why), &err))
		t.name[0] = '\0';
	if (uname(&uts))
		snprintf(uts.release, sizeof(uts.release), "$(uname -r)");
	if (*t.name && strcmp(t.name, "vmlinux"))
		snprintf(regen, sizeof(regen),
			 "regenerate it from the %s.ko that is loaded, built for this kernel: "
			 "inkprobe gen --base-btf /sys/kernel/btf/vmlinux -o %s %s.ko",
			 t.name, path, t.name);
	else
		snprintf(regen, sizeof(regen),
			 "regenerate it from this kernel's vmlinux with DWARF: inkprobe gen -o %s "
			 "/usr/lib/debug/boot/vmlinux-%s (Debian: linux-image-%s-dbg)",
			 path, uts.release, uts.release);

	snprintf(what, sizeof(what), "load %s", path);
	ret = ctl_command("blob", O_WRONLY, data, len, what, hints);
	free(data);
	return ret;
}

static int load_one(const char *path)
{
	uint32_t len;
	uint8_t *data = read_file(path, &len);

	return load_bytes(path, data, len);
}

struct want {
	char name[INKPROBE_TARGET_NAME_LEN];	/* "" for --build-id: any target */
	struct build_id id;
};

struct wants {
	struct want *v;
	size_t nr, cap;
};

/*
 * A fetched blob must be the one asked for; NULL if so, else why not.
 * @name: the blob's target.
 */
static const char *check_blob(const struct want *w, const uint8_t *data, uint32_t len,
			      char name[INKPROBE_TARGET_NAME_LEN], char *why, size_t why_len)
{
	struct ink_err err = { 0 };
	char hex[BUILD_ID_HEX_LEN];
	struct blob_target t;

	switch (blob_peek(data, len, &t, why, why_len, &err)) {
	case BLOB_PEEK_BAD_FRAME:
		return why;
	case BLOB_PEEK_BAD_BLOB:
		snprintf(why, why_len, "not a valid blob: %s", err.msg);
		return why;
	}
	memcpy(name, t.name, INKPROBE_TARGET_NAME_LEN);
	build_id_hex(&t.id, hex);
	if (!build_id_eq(&t.id, &w->id))
		snprintf(why, why_len, "the server's blob is for build ID %s", hex);
	else if (*w->name && strncmp(t.name, w->name, sizeof(w->name)))
		snprintf(why, why_len, "the server's blob is for target %s", t.name);
	else
		why = NULL;
	return why;
}

/*
 * The target whose loaded blob (a "blobs" line: "NAME build-id=HEX ...")
 * has @hex, and is @name unless @name is "": copied to @out, else false.
 */
static bool loaded_already(const char *blobs, const char *name, const char *hex, char *out,
			   size_t out_len)
{
	const char *line, *sp;
	char key[BUILD_ID_HEX_LEN + 16];

	snprintf(key, sizeof(key), " build-id=%s ", hex);
	for (line = blobs; *line; line = *sp ? sp + 1 : sp) {
		const char *eol = strchrnul(line, '\n'), *at = strstr(line, key);
		size_t n = strcspn(line, " \n");

		sp = eol;
		if (!at || at > eol || at != line + n)
			continue;
		if (*name && (strlen(name) != n || strncmp(line, name, n)))
			continue;
		snprintf(out, out_len, "%.*s", (int)n, line);
		return true;
	}
	return false;
}

/* Where fetch_one() says what it did: stdout, or stderr for trace. */
static FILE *status_out;

/* 0 loaded, 1 failed, 2 no blob on the servers */
static int fetch_one(const struct want *w, const char *blobs)
{
	char hex[BUILD_ID_HEX_LEN], name[INKPROBE_TARGET_NAME_LEN], path[INKPROBE_TARGET_NAME_LEN + 8];
	char what[INKPROBE_TARGET_NAME_LEN + BUILD_ID_HEX_LEN + 16], why[256];
	uint8_t *data;
	uint32_t len;
	int ret;

	build_id_hex(&w->id, hex);
	/* a blob of this build is loaded (probes may use it): nothing to fetch */
	if (loaded_already(blobs, w->name, hex, name, sizeof(name))) {
		fprintf(status_out, "%s build-id=%s already loaded\n", name, hex);
		return 0;
	}
	snprintf(what, sizeof(what), "%s%sbuild-id=%s", w->name, *w->name ? " " : "", hex);
	ret = debuginfod_fetch_blob(&w->id, what, &data, &len);
	if (ret) {
		fprintf(status_out, "%s %s\n", what, ret == -ENOENT ? "no blob" : "failed");
		return ret == -ENOENT ? 2 : 1;
	}
	if (check_blob(w, data, len, name, why, sizeof(why))) {
		free(data);
		warnx("%s: %s", what, why);
		fprintf(status_out, "%s failed\n", what);
		return 1;
	}
	snprintf(what, sizeof(what), "%s build-id=%s", name, hex);
	snprintf(path, sizeof(path), "%s.inkb", name);
	ret = load_bytes(path, data, len);
	fprintf(status_out, "%s %s\n", what, ret ? "failed" : "loaded");
	return ret ? 1 : 0;
}

static void add_kernel(struct wants *ws)
{
	struct want *w = VEC_PUSH(ws->v, ws->nr, ws->cap);
	char why[640];

	memset(w, 0, sizeof(*w));
	strcpy(w->name, "vmlinux");
	if (build_id_of_kernel(&w->id, why, sizeof(why)))
		die("the running kernel's build ID: %s", why);
}

static void add_module(struct wants *ws, const char *name)
{
	struct want *w = VEC_PUSH(ws->v, ws->nr, ws->cap);
	char why[640];
	size_t i;

	memset(w, 0, sizeof(*w));
	if (build_id_of_module(name, &w->id, why, sizeof(why)))
		die("%s", why);
	for (i = 0; name[i] && i + 1 < sizeof(w->name); i++)
		w->name[i] = name[i] == '-' ? '_' : name[i];
}

/*
 * Fetches and loads the blobs @ws names, or with @all those of the running
 * kernel and every loaded module: the exit status.
 */
static int load_by_build_id(struct wants *ws, bool all)
{
	int ret = 0, r, loaded = 0, missing = 0;
	char **mods, *blobs;
	size_t i, nr;

	debuginfod_need_urls("load without BLOB");
	/* what is loaded; and inkprobe.ko must be, before anything is fetched */
	blobs = ctl_read("blobs");
	if (all) {
		ws->nr = 0;	/* every target, each once */
		add_kernel(ws);
		mods = loaded_modules(&nr);
		for (i = 0; i < nr; i++)
			add_module(ws, mods[i]);
		free_names(mods, nr);
	}
	for (i = 0; i < ws->nr; i++) {
		r = fetch_one(&ws->v[i], blobs);
		fflush(status_out);
		loaded += r == 0;
		missing += r == 2;
		/* with --all, a target without a published blob is no error */
		if (r == 1 || (r == 2 && !all))
			ret = 1;
	}
	if (all && !loaded) {
		warnx("no blob for this kernel or its %zu modules on %s: publish them "
		      "(inkprobe publish)", ws->nr - 1, getenv("DEBUGINFOD_URLS"));
		ret = 1;
	} else if (missing && !all) {
		warnx("%d of %zu blobs not on %s", missing, ws->nr, getenv("DEBUGINFOD_URLS"));
	}
	free(blobs);
	return ret;
}

int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "running-kernel", no_argument, NULL, 'k' },
		{ "module", required_argument, NULL, 'm' },
		{ "build-id", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool all = false, any = false;
	struct wants ws = { 0 };
	struct want *w;
	int c, i, ret;

	status_out = stdout;

	/* options first: what follows is BLOB operands */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'k':
			add_kernel(&ws);
			break;
		case 'm':
			add_module(&ws, optarg);
			break;
		case 'b':
			w = VEC_PUSH(ws.v, ws.nr, ws.cap);
			memset(w, 0, sizeof(*w));
			if (!build_id_parse(optarg, &w->id))
				die("--build-id %s: not a build ID (2 to %d hexadecimal digits, "
				    "an even number)", optarg, 2 * INKPROBE_BUILD_ID_MAX);
			break;
		case 'h':
			fputs(load_usage, stdout);
			return 0;
		default:
			fputs(load_usage, stderr);
			return 2;
		}
		any = true;
	}
	if (optind < argc) {	/* BLOB..., without options */
		free(ws.v);
		if (any) {
			fputs(load_usage, stderr);
			return 2;
		}
		for (i = optind, ret = 0; i < argc; i++)
			ret |= load_one(argv[i]);
		return ret;
	}
	ret = load_by_build_id(&ws, all || !any);
	free(ws.v);
	return ret;
}

bool blob_loaded(const char *target)
{
	char *blobs = ctl_read("blobs"), key[INKPROBE_TARGET_NAME_LEN + 16];
	const char *line;
	bool found = false;

	snprintf(key, sizeof(key), "%s build-id=", target);
	for (line = blobs; *line && !found; line = strchrnul(line, '\n'), line += !!*line)
		found = !strncmp(line, key, strlen(key));
	free(blobs);
	return found;
}

int load_blob_file(const char *path, char *target, size_t n, bool *loaded)
{
	char hex[BUILD_ID_HEX_LEN], why[160], *blobs;
	struct ink_err err = { 0 };
	struct blob_target t;
	uint32_t len;
	uint8_t *data = read_file(path, &len);
	bool already;

	*loaded = false;
	if (blob_peek(data, len, &t, why, sizeof(why), &err)) {
		free(data);
		warnx("load %s: not a valid blob: %s", path, *why ? why : err.msg);
		return 1;
	}
	snprintf(target, n, "%s", t.name);
	build_id_hex(&t.id, hex);
	blobs = ctl_read("blobs");
	already = loaded_already(blobs, t.name, hex, why, sizeof(why));
	free(blobs);
	if (already) {
		free(data);
		return 0;
	}
	if (load_bytes(path, data, len))
		return 1;
	*loaded = true;
	return 0;
}

int load_running_blob(const char *module, char *target, size_t n, bool *loaded)
{
	char hex[BUILD_ID_HEX_LEN], *blobs;
	struct wants ws = { 0 };
	int ret;

	*loaded = false;
	if (module)
		add_module(&ws, module);
	else
		add_kernel(&ws);
	snprintf(target, n, "%s", ws.v[0].name);
	build_id_hex(&ws.v[0].id, hex);
	blobs = ctl_read("blobs");
	if (loaded_already(blobs, ws.v[0].name, hex, target, n)) {
		free(blobs);
		free(ws.v);
		return 0;
	}
	status_out = stderr;
	ret = fetch_one(&ws.v[0], blobs);
	fflush(stderr);
	*loaded = !ret;
	free(blobs);
	free(ws.v);
	return ret ? 1 : 0;
}
