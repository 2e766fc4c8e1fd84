// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe: inline-aware kprobes.  This is the command dispatcher; each
 * command lives in its own file.
 */
#include <stdio.h>
#include <string.h>

#include "tool/commands.h"
#include "tool/dump.h"
#include "gen/gen.h"

/*
 * The names are in the table itself, not pointers to string literals: the
 * linker merges those with every other object's strings, all over
 * .rodata, and finding a command then read a page of the file from disk
 * per name (Documentation/benchmarks.rst, profile symbolization).  A name
 * may fill its array: it is never read as a C string.
 */
struct command {
	char name[8];
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "gen", cmd_gen, "write the inline-instance blob of a vmlinux or module" },
	{ "dump", cmd_dump, "print a blob's instances in kprobe_events syntax" },
	{ "funcs", cmd_funcs, "list the functions a blob has instances of" },
	{ "vars", cmd_vars, "list a function's instances and their parameters" },
	{ "publish", cmd_publish, "write a blob as a file debuginfod serves by build ID" },
	{ "load", cmd_load, "load blobs into inkprobe.ko" },
	{ "unload", cmd_unload, "unload the blob of a target" },
	{ "add", cmd_add, "define an event: 'p:GRP/EVENT TARGET ARGS...'" },
	{ "del", cmd_del, "remove events" },
	{ "list", cmd_list, "list the events, or the loaded blobs (--blobs)" },
	{ "stats", cmd_stats, "print each event's hit and loss counters" },
	{ "trace", cmd_trace, "stream events, as text or JSON" },
	{ "latency", cmd_latency, "a histogram of how long a function's calls take" },
	{ "profile", cmd_profile, "sample kernel stacks: a profile that names inlined functions" },
	{ "stack", cmd_stack, "print a task's kernel stack" },
};

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: inkprobe COMMAND [ARGS...]   (inkprobe COMMAND --help)\n\n", f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8.*s %s\n", (int)sizeof(commands[i].name), commands[i].name,
			commands[i].help);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strlen(argv[1]) <= sizeof(commands[i].name) &&
		    !strncmp(argv[1], commands[i].name, sizeof(commands[i].name)))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "inkprobe: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
