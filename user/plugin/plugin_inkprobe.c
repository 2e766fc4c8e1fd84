// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_inkprobe.so: a libtraceevent plugin that prints inkprobe's
 * stacktrace events as tracefs' trace does -- each frame on a line of its
 * own, " => caller+0xoff", with the inline frames where the blob is at hand
 * (Documentation/trace-events.rst, "trace-cmd and perf").
 *
 * libtraceevent loads plugins before it reads the events, and finds the
 * event of a handler by its system and name: the plugin registers one for
 * each inkprobe event with a stack defined when it loads (inkprobe.ko's
 * stats file, and each event's tracefs format), and for the events named
 * in $INKPROBE_EVENTS ("GROUP/EVENT", ',' between them).  Blobs come from
 * $INKPROBE_BLOBS (files and directories, ':' between them), each checked
 * against the running kernel's build (record.c, inline_frames.c).
 *
 * It runs inside trace-cmd (libtraceevent 1.7) and perf (perf 6.1 has a
 * copy of libtraceevent of its own, which exports only the functions a
 * plugin may call): it calls no other, it links against no libtraceevent,
 * and everything but the plugin's entry points is hidden.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "../trace/inline_frames.h"
#include "../trace/record.h"

#define EXPORT	__attribute__((visibility("default")))

struct handled {
	struct tep_handle *tep;
	char *group, *event;
	struct ink_rec_fmt fmt;
	bool have_fmt, not_ours;
	struct handled *next;
};

static struct handled *handled;
static struct ink_frames *frames;
static struct buf text;

static bool tep_lookup(void *ctx, uint64_t addr, struct ink_sym *out)
{
	struct tep_handle *tep = ctx;
	const char *name = tep_find_function(tep, addr);

	if (!name)
		return false;
	out->name = name;
	out->start = tep_find_function_address(tep, addr);
	out->module_known = false;
	out->dup_index = -1;
	return true;
}

static int print_stack_event(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	struct handled *h = context;
	struct ink_symbolizer syms = { .lookup = tep_lookup, .ctx = h->tep };
	struct ink_rec_ctx ctx = { .syms = &syms, .frames = frames };

	if (!h->have_fmt) {
		h->not_ours = !ink_rec_fmt_init(&h->fmt, event) || !h->fmt.inkprobe;
		h->have_fmt = true;
	}
	if (h->not_ours) {
		/* not an inkprobe event after all: its fields, one by one */
		trace_seq_puts(s, "[not an inkprobe event]");
		return 0;
	}
	text.len = 0;
	ink_rec_text(&text, &ctx, &h->fmt, record->data, record->size);
	buf_add_u8(&text, '\0');
	trace_seq_puts(s, (const char *)text.data);
	return 0;
}

static void add(struct tep_handle *tep, const char *group, size_t glen, const char *event)
{
	struct handled *h = calloc(1, sizeof(*h));

	if (!h)
		return;
	h->tep = tep;
	h->group = strndup(group, glen);
	h->event = strdup(event);
	if (!h->group || !h->event ||
	    tep_register_event_handler(tep, -1, h->group, h->event, print_stack_event, h) < 0) {
		free(h->group);
		free(h->event);
		free(h);
		return;
	}
	h->next = handled;
	handled = h;
}

/* "GROUP/EVENT" (or "GROUP:EVENT"); with @check, only one whose format has a stack. */
static void add_spec(struct tep_handle *tep, const char *spec, bool check)
{
	const char *sep = strpbrk(spec, "/:");
	char path[512], line[256];
	bool stack = !check;
	FILE *fp;

	if (!sep || sep == spec || !sep[1])
		return;
	if (check) {
		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%.*s/%s/format",
			 (int)(sep - spec), spec, sep + 1);
		fp = fopen(path, "r");
		while (fp && !stack && fgets(line, sizeof(line), fp))
			stack = strstr(line, " __nr_frames;") != NULL;
		if (fp)
			fclose(fp);
	}
	if (stack)
		add(tep, spec, sep - spec, sep + 1);
}

/* The inkprobe events defined now: the first word of each line of "stats". */
static void add_defined(struct tep_handle *tep)
{
	const char *dir = getenv("INKPROBE_DEBUGFS_DIR");
	char path[512], line[1024];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/stats",
		 dir && *dir ? dir : "/sys/kernel/debug/inkprobe");
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		line[strcspn(line, " \n")] = '\0';
		add_spec(tep, line, true);
	}
	if (fp)
		fclose(fp);
}

EXPORT int TEP_PLUGIN_LOADER(struct tep_handle *tep);
EXPORT int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	const char *names = getenv("INKPROBE_EVENTS");
	char *copy, *spec, *save = NULL;

	if (!frames) {
		frames = ink_frames_new();
		if (frames)
			ink_frames_add_list(frames, getenv("INKPROBE_BLOBS"), NULL);
	}
	add_defined(tep);
	copy = names ? strdup(names) : NULL;
	for (spec = copy ? strtok_r(copy, ",", &save) : NULL; spec;
	     spec = strtok_r(NULL, ",", &save))
		add_spec(tep, spec, false);
	free(copy);
	return 0;
}

EXPORT void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);
EXPORT void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct handled **p = &handled, *h;

	while ((h = *p)) {
		if (h->tep != tep) {
			p = &h->next;
			continue;
		}
		*p = h->next;
		tep_unregister_event_handler(tep, -1, h->group, h->event, print_stack_event, h);
		free(h->group);
		free(h->event);
		free(h);
	}
	if (!handled) {
		ink_frames_free(frames);
		frames = NULL;
		buf_free(&text);
	}
}
