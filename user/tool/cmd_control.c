// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe unload|add|del|list|stats: blobs, event definitions and
 * counters, through inkprobe.ko's control files (Documentation/control.rst);
 * load is cmd_load.c.
 * Every command is one write(); "probes" is always opened with O_APPEND,
 * since opening it with O_TRUNC would remove every event.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "debugfs.h"
#include "event_parse.h"
#include "../common/util.h"

int parse_simple_args(int argc, char **argv, const char *usage, const char *flag, bool *set,
		      int min, int max)
{
	struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ flag, no_argument, NULL, 'f' },
		{ 0 },
	};
	int c;

	if (!flag)
		opts[1] = opts[2];
	/*
	 * "+": stop at the first operand; and at a word starting "-:", which
	 * is one (del -:GRP/EVENT), not options
	 */
	while ((optind >= argc || strncmp(argv[optind], "-:", 2)) &&
	       (c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'f') {
			*set = true;
			continue;
		}
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		fputs(usage, stderr);
		return 2;
	}
	if (argc - optind < min || argc - optind > max) {
		fputs(usage, stderr);
		return 2;
	}
	return -1;
}

static const char unload_usage[] =
	"usage: inkprobe unload TARGET...\n"
	"\n"
	"Unloads the blob of each TARGET: vmlinux or a module's name, as\n"
	"'inkprobe list --blobs' shows them.  Remove the probes that use it first.\n";

int cmd_unload(int argc, char **argv)
{
	static const struct ctl_hint hints[] = {
		{ ENOENT, "'inkprobe list --blobs' shows the loaded blobs" },
		{ EBUSY, "remove those events first: inkprobe del GRP/EVENT" },
		{ 0 },
	};
	int ret = parse_simple_args(argc, argv, unload_usage, NULL, NULL, 1, INT_MAX), i;
	char cmd[PATH_MAX], what[PATH_MAX];

	if (ret >= 0)
		return ret;
	for (i = optind, ret = 0; i < argc; i++) {
		snprintf(cmd, sizeof(cmd), "-%s", argv[i]);
		snprintf(what, sizeof(what), "unload %s", argv[i]);
		ret |= ctl_command("blobs", O_WRONLY, cmd, strlen(cmd), what, hints);
	}
	return ret;
}

static const char add_usage[] =
	"usage: inkprobe add 'p[:[GRP/]EVENT] TARGET [FETCHARG...] [stacktrace] [strict]'\n"
	"\n"
	"Defines an event: a kprobe on every instance of TARGET, inlined or not,\n"
	"enabled at once.  The definition may also be given as separate words.\n"
	"\n"
	"  TARGET   [MOD:]FUNC | [MOD:]FUNC@CALLER | [MOD:]CALLER+OFF\n"
	"  FETCHARG [NAME=]EXPR[:TYPE]   EXPR: PARAM, PARAM->FIELD..., $argN, $comm\n"
	"  TYPE     u8..u64, s8..s64, x8..x64, string\n"
	"\n"
	"GRP defaults to inkprobe, EVENT to the function's name.  Instances kprobes\n"
	"refuse are left out, each reported; with strict, one refusal refuses all.\n";

int cmd_add(int argc, char **argv)
{
	static const struct ctl_hint hints[] = {
		{ ENOENT, "'inkprobe list --blobs' shows the loaded blobs, "
			  "'inkprobe dump BLOB --func FUNC' the instances and parameter names" },
		{ EEXIST, "remove it first (inkprobe del GRP/EVENT) or give another name" },
		{ 0 },
	};
	int ret = parse_simple_args(argc, argv, add_usage, NULL, NULL, 1, INT_MAX), i;
	struct buf def = { 0 };
	bool blank = true;

	if (ret >= 0)
		return ret;
	for (i = optind; i < argc; i++) {
		if (i > optind)
			buf_add_u8(&def, ' ');
		buf_add(&def, argv[i], strlen(argv[i]));
		blank = blank && !argv[i][strspn(argv[i], " \t\n")];
	}
	if (blank) {	/* the kernel would take it for nothing */
		buf_free(&def);
		fputs(add_usage, stderr);
		return 2;
	}
	ret = ctl_command("probes", O_WRONLY | O_APPEND, def.data, def.len, "add", hints);
	buf_free(&def);
	return ret;
}

static const char del_usage[] =
	"usage: inkprobe del [-:][GRP/]EVENT...\n"
	"\n"
	"Removes each event and its kprobes.  Without GRP, EVENT must name events\n"
	"in one group only.\n";

int cmd_del(int argc, char **argv)
{
	static const struct ctl_hint hints[] = {
		{ ENOENT, "'inkprobe list' shows the events" },
		{ 0 },
	};
	int ret = parse_simple_args(argc, argv, del_usage, NULL, NULL, 1, INT_MAX), i;
	char cmd[PATH_MAX], what[PATH_MAX];
	const char *ev;

	if (ret >= 0)
		return ret;
	for (i = optind, ret = 0; i < argc; i++) {
		ev = strncmp(argv[i], "-:", 2) ? argv[i] : argv[i] + 2;
		snprintf(cmd, sizeof(cmd), "-:%s", ev);
		snprintf(what, sizeof(what), "del %s", ev);
		ret |= ctl_command("probes", O_WRONLY | O_APPEND, cmd, strlen(cmd), what, hints);
	}
	return ret;
}

static const char list_usage[] =
	"usage: inkprobe list [--blobs]\n"
	"\n"
	"Prints the event definitions, or with --blobs the loaded blobs:\n"
	"  TARGET build-id=HEX instances=N symbols=N live|waiting unresolved=N probes=N\n";

int cmd_list(int argc, char **argv)
{
	bool blobs = false;
	int ret = parse_simple_args(argc, argv, list_usage, "blobs", &blobs, 0, 0);

	return ret >= 0 ? ret : ctl_cat(blobs ? "blobs" : "probes");
}

static const char stats_usage[] =
	"usage: inkprobe stats [--json]\n"
	"\n"
	"Prints the counters of every event:\n"
	"  GRP/EVENT probes=N live=N refused=N notrace=N hits=N missed=N\n"
	"    ftrace_hits=N ftrace_written=N ftrace_filtered=N ftrace_lost=N\n"
	"    perf_hits=N perf_written=N perf_lost=N\n"
	"--json prints one object per event:\n"
	"  {\"group\":\"GRP\",\"event\":\"EVENT\",\"probes\":N,...,\"perf_lost\":N}\n";

static void add_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* One stats line (modified) as a JSON object: numbers stay numbers. */
static void stats_json(char *line, struct buf *out)
{
	char *save = NULL, *tok = strtok_r(line, " ", &save), *slash, *eq;

	if (!tok)
		return;
	slash = strchr(tok, '/');
	add_str(out, "{\"group\":");
	json_str(out, tok, slash ? (size_t)(slash - tok) : 0);
	add_str(out, ",\"event\":");
	tok = slash ? slash + 1 : tok;
	json_str(out, tok, strlen(tok));
	while ((tok = strtok_r(NULL, " ", &save))) {
		buf_add_u8(out, ',');
		eq = strchr(tok, '=');
		if (!eq) {	/* "enabled" or "disabled" */
			json_str(out, "enabled", strlen("enabled"));
			add_str(out, strcmp(tok, "disabled") ? ":true" : ":false");
			continue;
		}
		json_str(out, tok, eq - tok);
		buf_add_u8(out, ':');
		eq++;
		if (*eq && !eq[strspn(eq, "0123456789")])
			add_str(out, eq);
		else
			json_str(out, eq, strlen(eq));
	}
	add_str(out, "}\n");
}

int cmd_stats(int argc, char **argv)
{
	char *text, *line, *save = NULL;
	struct buf out = { 0 };
	bool json = false;
	int ret = parse_simple_args(argc, argv, stats_usage, "json", &json, 0, 0);

	if (ret >= 0)
		return ret;
	if (!json)
		return ctl_cat("stats");
	text = ctl_read("stats");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		stats_json(line, &out);
	if (out.len)
		fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	free(text);
	if (fflush(stdout)) {
		warnx("stdout: %s", strerror(errno));
		return 1;
	}
	return 0;
}
