// SPDX-License-Identifier: GPL-2.0
/*
 * The grammar of the probes file (Documentation/control.rst), that of
 * kprobe_events:
 *
 *   p[:[GRP/]EVENT] TARGET [FETCHARG...] [stacktrace] [strict]   define
 *   r[:[GRP/]EVENT] TARGET [FETCHARG...] [stacktrace] [strict]   exits
 *   -:[GRP/]EVENT                          remove
 *   TARGET: [MOD:]FUNC | [MOD:]FUNC@CALLER | [MOD:]CALLER+OFF | [MOD:]FUNC@CALLER+OFF
 *
 * A FETCHARG is parsed by fetch.c.  Errors go to the command's log context
 * (error_log.c), the caret under the word at fault, and refuse the
 * command as a whole.
 */
#include <linux/ctype.h>
#include <linux/string.h>

#include "inkprobe.h"
#include "error_log.h"
#include "fetch.h"
#include "probe.h"
#include "probe_event.h"

int ink_parse_words(char *line, struct ink_words *w)
{
	char *s, *hash;

	if (strlen(line) >= INK_CMD_MAX) {
		ink_log_init(line, NULL, 0);
		ink_log_err(0, "command too long");
		return -E2BIG;
	}
	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	strim(line);
	w->n = 0;
	if (!*line)
		return 0;
	strscpy(w->cmd, line, sizeof(w->cmd));
	for (s = line; *s;) {
		while (isspace(*s))
			*s++ = '\0';
		if (!*s)
			break;
		w->pos[w->n] = s - line;
		if (w->n == INK_MAX_WORDS) {
			ink_log_init(w->cmd, w->pos, w->n + 1);
			ink_log_set_index(w->n);
			ink_log_err(0, "too many arguments (at most %d)", INK_MAX_ARGS);
			return -E2BIG;
		}
		w->word[w->n++] = s;
		while (*s && !isspace(*s))
			s++;
	}
	ink_log_init(w->cmd, w->pos, w->n);
	return w->n;
}

int ink_parse_kind(const struct ink_words *w)
{
	switch (w->word[0][0]) {
	case 'p':
	case 'r':
	case '-':
		return w->word[0][0];
	default:
		ink_log_err(0, "unknown command: expected p, r or -");
		return -EINVAL;
	}
}

static bool valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n >= INK_NAME_LEN || !(isalpha(s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < n; i++)
		if (!(isalnum(s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* @text is the command's current word. */
static int parse_target(struct target_spec *ts, const char *text)
{
	char buf[KSYM_NAME_LEN + INKPROBE_TARGET_NAME_LEN + 24], *s, *c;
	unsigned long long off;

	memset(ts, 0, sizeof(*ts));
	if (strscpy(buf, text, sizeof(buf)) < 0)
		goto too_long;
	s = buf;
	c = strchr(s, ':');
	if (c) {
		*c = '\0';
		if (strscpy(ts->mod, s, sizeof(ts->mod)) < 0 || !*ts->mod)
			goto bad;
		s = c + 1;
	}
	c = strchr(s, '+');
	if (c) {
		*c = '\0';
		if (kstrtoull(c + 1, 0, &off) || off > U32_MAX) {
			ink_log_err(c + 1 - buf, "bad offset");
			return -EINVAL;
		}
		ts->has_off = true;
		ts->off = off;
		c = strchr(s, '@');	/* FUNC@CALLER+OFF: one function's instance */
		if (c) {
			*c = '\0';
			if (strscpy(ts->func, s, sizeof(ts->func)) < 0)
				goto too_long;
			s = c + 1;
			if (!*ts->func)
				goto bad;
		}
		if (strscpy(ts->caller, s, sizeof(ts->caller)) < 0)
			goto too_long;
		if (!*ts->caller)
			goto bad;
		return 0;
	}
	c = strchr(s, '@');
	if (c) {
		*c = '\0';
		if (strscpy(ts->caller, c + 1, sizeof(ts->caller)) < 0)
			goto too_long;
		if (!*ts->caller)
			goto bad;
	}
	if (strscpy(ts->func, s, sizeof(ts->func)) < 0)
		goto too_long;
	if (!*ts->func)
		goto bad;
	return 0;
too_long:
	ink_log_err(0, "target name too long");
	return -E2BIG;
bad:
	ink_log_err(0, "bad target: expected [MOD:]FUNC, FUNC@CALLER, CALLER+OFF or FUNC@CALLER+OFF");
	return -EINVAL;
}

int ink_parse_define(struct ink_words *w, struct target_spec *ts, struct ink_event *ev)
{
	char **tok = w->word, *name, *slash;
	int i, ret;

	if (w->n < 2) {
		ink_log_set_index(w->n);
		ink_log_err(0, "missing target");
		return -EINVAL;
	}
	for (i = INK_WORD_ARGS; i < w->n; i++) {
		if (strcmp(tok[i], "if"))
			continue;
		ink_log_set_index(i);
		ink_log_err(0, "filters are not supported on the definition line (kprobe_events takes them in events/GRP/EVENT/filter)");
		return -EINVAL;
	}
	if (w->n - INK_WORD_ARGS > INK_MAX_ARGS) {
		ink_log_set_index(INK_WORD_ARGS + INK_MAX_ARGS);
		ink_log_err(0, "too many arguments (at most %d)", INK_MAX_ARGS);
		return -E2BIG;
	}
	ink_log_set_index(INK_WORD_TARGET);
	ret = parse_target(ts, tok[INK_WORD_TARGET]);
	if (ret)
		return ret;

	strscpy(ev->group, INK_DEFAULT_GROUP, sizeof(ev->group));
	strscpy(ev->name, *ts->func ? ts->func : ts->caller, sizeof(ev->name));
	ink_log_set_index(INK_WORD_EVENT);
	if (tok[0][1] == ':') {
		name = tok[0] + 2;
		slash = strchr(name, '/');
		if (slash) {
			*slash = '\0';
			if (!valid_name(name)) {
				ink_log_err(2, "bad group name");
				return -EINVAL;
			}
			strscpy(ev->group, name, sizeof(ev->group));
			name = slash + 1;
		}
		if (!valid_name(name)) {
			ink_log_err(name - tok[0], "bad event name");
			return -EINVAL;
		}
		strscpy(ev->name, name, sizeof(ev->name));
	} else if (tok[0][1]) {
		ink_log_err(1, "expected %c or %c:[GRP/]EVENT", tok[0][0], tok[0][0]);
		return -EINVAL;
	}
	if (!valid_name(ev->name)) {
		ink_log_set_index(INK_WORD_TARGET);
		ink_log_err(0, "cannot name an event after this target: give p:EVENT");
		return -EINVAL;
	}
	return 0;
}

int ink_parse_fetchargs(const struct ink_words *w, struct ink_event *ev)
{
	char *const *tok = w->word;
	unsigned int i, j;
	int ntok = w->n, ret;

	/* options, the last words: "stacktrace", "strict" (a parameter of that name: x=strict) */
	for (; ntok > INK_WORD_ARGS; ntok--) {
		if (!strcmp(tok[ntok - 1], "stacktrace") && !ev->stacktrace)
			ev->stacktrace = true;
		else if (!strcmp(tok[ntok - 1], "strict") && !ev->strict)
			ev->strict = true;
		else
			break;
	}
	ev->nr_args = ntok - INK_WORD_ARGS;
	for (i = 0; i < ev->nr_args; i++) {
		ink_log_set_index(INK_WORD_ARGS + i);
		ret = ink_fetch_parse(&ev->args[i], tok[INK_WORD_ARGS + i]);
		if (ret)
			return ret;
		if (!ev->is_return && (ev->args[i].retval || ev->args[i].duration)) {
			ink_log_err(0, "%s is for r events",
				    ev->args[i].retval ? "$retval" : "$duration");
			return -EINVAL;
		}
		/*
		 * An r event's parameters are the call's arguments: fetched at
		 * its entry, where the blob has their locations, and written
		 * with its exit (Documentation/exit-probes.rst).
		 */
		if (ev->is_return && !ev->args[i].comm && !ev->args[i].retval &&
		    !ev->args[i].duration)
			ev->entry_args |= BIT(i);
		ev->paired |= ev->args[i].duration || (ev->entry_args & BIT(i));
		for (j = 0; j < i; j++) {
			if (strcmp(ev->args[j].name, ev->args[i].name))
				continue;
			ink_log_err(0, "argument %u is named '%s' too: give this one another NAME=",
				    j + 1, ev->args[i].name);
			return -EINVAL;
		}
		if (ev->args[i].type && ev->args[i].type->is_string) {
			if (ev->nr_strs == INK_MAX_STR_ARGS) {
				ink_log_err(0, "at most %d string arguments", INK_MAX_STR_ARGS);
				return -E2BIG;
			}
			ev->args[i].str_slot = ev->nr_strs++;
		}
	}
	return 0;
}

int ink_parse_remove(struct ink_words *w, char **group, char **name)
{
	char **tok = w->word, *slash;

	ink_log_set_index(INK_WORD_EVENT);
	if (tok[0][1] != ':' || !tok[0][2] || w->n > 1) {
		ink_log_err(0, "expected -:[GRP/]EVENT");
		return -EINVAL;
	}
	*group = NULL;
	*name = tok[0] + 2;
	slash = strchr(*name, '/');
	if (slash) {
		*slash = '\0';
		*group = *name;
		*name = slash + 1;
	}
	return 0;
}
