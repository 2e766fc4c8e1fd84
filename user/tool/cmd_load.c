// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe load without BLOB: the blobs of the running kernel and of its
 * loaded modules (or of the build IDs named), fetched from debuginfod as
 * 'inkprobe publish' left them there (Documentation/debuginfod.rst).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/blob_file.h"
#include "../common/build_id.h"
#include "commands.h"
#include "debugfs.h"
#include "../common/debuginfod.h"
#include "../common/util.h"

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
		printf("%s build-id=%s already loaded\n", name, hex);
		return 0;
	}
	snprintf(what, sizeof(what), "%s%sbuild-id=%s", w->name, *w->name ? " " : "", hex);
	ret = debuginfod_fetch_blob(&w->id, what, &data, &len);
	if (ret) {
		printf("%s %s\n", what, ret == -ENOENT ? "no blob" : "failed");
		return ret == -ENOENT ? 2 : 1;
	}
	if (check_blob(w, data, len, name, why, sizeof(why))) {
		free(data);
		warnx("%s: %s", what, why);
		printf("%s failed\n", what);
		return 1;
	}
	snprintf(what, sizeof(what), "%s build-id=%s", name, hex);
	snprintf(path, sizeof(path), "%s.inkb", name);
	ret = load_bytes(path, data, len);
	printf("%s %s\n", what, ret ? "failed" : "loaded");
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

int load_fetch(int argc, char **argv, const char *usage)
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
	int c, ret = 0, r, loaded = 0, missing = 0;
	struct wants ws = { 0 };
	struct want *w;
	char **mods, *blobs;
	size_t i, nr;

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
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
		any = true;
	}
	if (optind < argc) {
		free(ws.v);
		if (!any)
			return -1;	/* BLOB... */
		fputs(usage, stderr);
		return 2;
	}
	if (!any)
		all = true;
	debuginfod_need_urls("load without BLOB");
	/* what is loaded; and inkprobe.ko must be, before anything is fetched */
	blobs = ctl_read("blobs");
	if (all) {
		ws.nr = 0;	/* every target, each once */
		add_kernel(&ws);
		mods = loaded_modules(&nr);
		for (i = 0; i < nr; i++)
			add_module(&ws, mods[i]);
		free_names(mods, nr);
	}
	for (i = 0; i < ws.nr; i++) {
		r = fetch_one(&ws.v[i], blobs);
		fflush(stdout);
		loaded += r == 0;
		missing += r == 2;
		/* with --all, a target without a published blob is no error */
		if (r == 1 || (r == 2 && !all))
			ret = 1;
	}
	if (all && !loaded) {
		warnx("no blob for this kernel or its %zu modules on %s: publish them "
		      "(inkprobe publish)", ws.nr - 1, getenv("DEBUGINFOD_URLS"));
		ret = 1;
	} else if (missing && !all) {
		warnx("%d of %zu blobs not on %s", missing, ws.nr, getenv("DEBUGINFOD_URLS"));
	}
	free(blobs);
	free(ws.v);
	return ret;
}
