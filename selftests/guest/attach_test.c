// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching: a caller with two names.
 *
 * tgt_aliased() is inlined into a function with two names; gen names the
 * caller by one, kallsyms the address by the other: the probe must attach
 * and record exact arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "guest_util.h"

/* The runtime address of @name in inkprobe_target, from /proc/kallsyms; 0 if none. */
static unsigned long kallsyms_addr(const char *name)
{
	char *all = read_file("/proc/kallsyms", NULL), *line, *save = NULL;
	unsigned long addr = 0, a;
	char sym[256], mod[64];

	for (line = all ? strtok_r(all, "\n", &save) : NULL; line && !addr;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%lx %*s %255s [%63[^]]]", &a, sym, mod) == 3 &&
		    !strcmp(mod, "inkprobe_target") && !strcmp(sym, name))
			addr = a;
	free(all);
	return addr;
}

/* ---- a caller with two names ---- */

TEST(alias_caller_attaches_with_exact_args)
{
	char *all, *line, *lines[4], caller[64], first[32];
	unsigned long a, b;
	const char *args;
	unsigned int off;
	int n;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	drain_events();
	/* the premise: kallsyms names the address by the other name */
	a = kallsyms_addr("tgt_named_a");
	b = kallsyms_addr("tgt_named_b");
	ASSERT_NE(0UL, a);
	ASSERT_EQ(a, b);
	{
		char *ks = read_file("/proc/kallsyms", NULL), pat[64], *at;

		ASSERT_NE(NULL, ks);
		snprintf(pat, sizeof(pat), "%016lx t tgt_named_b\t[inkprobe_target]", a);
		at = strstr(ks, pat);
		ASSERT_NE(NULL, at) TH_LOG("no %s", pat);
		snprintf(first, sizeof(first), "%016lx ", a);
		/* tgt_named_b is the first entry at that address */
		EXPECT_EQ(at, strstr(ks, first));
		free(ks);
	}
	all = read_file(INK_DIR "/blobs", NULL);
	ASSERT_NE(NULL, all);
	line = strstr(all, "inkprobe_target ");
	ASSERT_NE(NULL, line);
	EXPECT_NE(NULL, strstr(line, " unresolved=0 ")) TH_LOG("%s", line);
	free(all);

	ASSERT_EQ(0, probes_cmd("p:al/tgt_aliased tgt_aliased v k", false)) {
		TH_LOG("%s", last_error());
	}
	EXPECT_EQ(0, check_scenario("alias 424242", "al", 2000));
	/* by the name gen gave it */
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "alias 7", false));
	n = read_events(lines, 4, 1000);
	ASSERT_EQ(1, n);
	ASSERT_TRUE(parse_event(lines[0], caller, sizeof(caller), &off, &args));
	EXPECT_STREQ("tgt_named_a", caller);
	EXPECT_STREQ("v=7 k=5", args);
	free_lines(lines, n);
	ASSERT_EQ(0, clear_probes());
}

TEST_HARNESS_MAIN
