// SPDX-License-Identifier: GPL-2.0
/*
 * trace_pipe lines to JSON.  The line format is module/trace_output.c's:
 *
 *   "%16s-%-7d [%03d] %5llu.%06u: %s:%s: (%s+0x%x)" then " name=value" per argument
 *
 * A comm may hold spaces, dashes and even " [": the header is the first
 * " [" that is preceded by "-<pid>" and followed by "<cpu>] <sec>.<usec>: ".
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "event_parse.h"

static void add_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) add_fmt(struct buf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_add(b, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Length of the valid UTF-8 sequence at @s, 0 if there is none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	static const unsigned int min_cp[] = { 0, 0x80, 0x800, 0x10000 };
	unsigned int cp, need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1;
	else if ((s[0] & 0xf0) == 0xe0)
		need = 2;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 3;
	else
		return 0;
	if (n <= need)
		return 0;
	cp = s[0] & (0x3f >> need);
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min_cp[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

void json_str(struct buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t n;

	buf_add_u8(b, '"');
	while (p < end) {
		n = utf8_seq(p, end - p);
		if (n > 1 || (n == 1 && *p >= 0x20 && *p != '"' && *p != '\\')) {
			buf_add(b, p, n);
			p += n;
			continue;
		}
		if (*p == '"' || *p == '\\')
			add_fmt(b, "\\%c", *p);
		else if (*p == '\n')
			add_str(b, "\\n");
		else if (*p == '\t')
			add_str(b, "\\t");
		else
			add_fmt(b, "\\u%04x", *p);
		p++;
	}
	buf_add_u8(b, '"');
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A span as a JSON string; a string value's escapes (\", \\, \xNN) undone first. */
static void json_span(struct buf *b, struct span s)
{
	struct buf raw = { 0 };
	size_t i;

	if (!s.escaped) {
		json_str(b, s.p, s.len);
		return;
	}
	for (i = 0; i < s.len; i++) {
		if (s.p[i] == '\\' && i + 3 < s.len && s.p[i + 1] == 'x' &&
		    hex_val(s.p[i + 2]) >= 0 && hex_val(s.p[i + 3]) >= 0) {
			buf_add_u8(&raw, (uint8_t)(hex_val(s.p[i + 2]) << 4 | hex_val(s.p[i + 3])));
			i += 3;
		} else if (s.p[i] == '\\' && i + 1 < s.len) {
			buf_add_u8(&raw, (uint8_t)s.p[++i]);
		} else {
			buf_add_u8(&raw, (uint8_t)s.p[i]);
		}
	}
	json_str(b, (const char *)raw.data, raw.len);
	buf_free(&raw);
}

static int digit_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digits of @base at *s, advancing it; false if none or on overflow. */
static bool parse_num(const char **s, int base, unsigned long long *v)
{
	const char *p = *s;
	unsigned long long n = 0;
	int d;

	for (; (d = digit_val(*p)) >= 0 && d < base; p++) {
		if (n > (ULLONG_MAX - d) / base)
			return false;
		n = n * base + d;
	}
	if (p == *s)
		return false;
	*s = p;
	*v = n;
	return true;
}

/* Skips digits; false if there are none. */
static bool skip_digits(const char **s)
{
	size_t n = strspn(*s, "0123456789");

	*s += n;
	return n;
}

/* The header, if @br (a " [" in @line) is where it is. */
static bool parse_head(const char *line, const char *br, struct event_line *ev)
{
	const char *p = br, *digits, *dash, *close, *plus;

	/* "<comm>-<pid>": %16s then %-7d, so spaces on both sides */
	while (p > line && p[-1] == ' ')
		p--;
	for (digits = p; digits > line && isdigit((unsigned char)digits[-1]);)
		digits--;
	if (digits == p || digits == line || digits[-1] != '-')
		return false;
	dash = digits - 1;
	if (!parse_num(&digits, 10, &ev->pid))
		return false;
	ev->comm.p = line + strspn(line, " ");
	ev->comm.len = dash - ev->comm.p;

	/* "[<cpu>] <sec>.<usec>: " */
	p = br + 2;
	if (!parse_num(&p, 10, &ev->cpu) || *p++ != ']' || *p != ' ')
		return false;
	p += strspn(p, " ");
	ev->ts.p = p;
	if (!skip_digits(&p) || *p++ != '.' || !skip_digits(&p) || strncmp(p, ": ", 2))
		return false;
	ev->ts.len = p - ev->ts.p;
	p += 2;

	/* "<group>:<event>: (<caller>+0x<off>)" */
	ev->group = (struct span){ .p = p, strcspn(p, ": ") };
	p += ev->group.len;
	if (!ev->group.len || *p++ != ':')
		return false;
	ev->event = (struct span){ .p = p, strcspn(p, ": ") };
	p += ev->event.len;
	if (!ev->event.len || strncmp(p, ": (", 3))
		return false;
	p += 3;
	close = strchr(p, ')');
	if (!close)
		return false;
	for (plus = close; plus > p && plus[-1] != '+';)
		plus--;
	if (plus == p || plus - 1 == p)
		return false;
	ev->caller = (struct span){ .p = p, plus - 1 - p };
	if (strncmp(plus, "0x", 2))
		return false;
	plus += 2;
	if (!parse_num(&plus, 16, &ev->offset) || plus != close)
		return false;
	p = close + 1;
	if (*p && *p++ != ' ')
		return false;
	ev->args = p;
	return true;
}

bool event_line_parse(const char *line, struct event_line *ev)
{
	const char *br;

	memset(ev, 0, sizeof(*ev));
	for (br = strstr(line, " ["); br; br = strstr(br + 1, " ["))
		if (parse_head(line, br, ev))
			return true;
	return false;
}

/* @s starts with "NAME=" (an argument name is an identifier). */
static bool at_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return *s == '=';
}

bool event_next_arg(const char **args, struct span *name, struct span *val)
{
	const char *p = *args + strspn(*args, " "), *end;

	*args = p;
	if (!at_name(p))
		return false;
	end = strchr(p, '=');
	*name = (struct span){ .p = p, end - p };
	p = end + 1;
	if (*p == '"') {
		/* the module escapes '"' and '\\': the first bare quote ends it */
		for (end = p + 1; *end && *end != '"'; end++)
			if (*end == '\\' && end[1])
				end++;
		if (*end != '"')
			return false;
		*val = (struct span){ .p = p + 1, end - p - 1, true };
		p = end + 1;
	} else if (*p == '(') {		/* (optimized out), (fault) */
		end = strchr(p, ')');
		if (!end)
			return false;
		*val = (struct span){ .p = p, end + 1 - p };
		p = end + 1;
	} else {
		*val = (struct span){ .p = p, strcspn(p, " ") };
		p += val->len;
	}
	if (*p && *p != ' ')
		return false;
	*args = p;
	return true;
}

bool event_is_stack_line(const char *line)
{
	return !strncmp(line, " => ", 4);
}

/* An event's object, without its closing brace; false if @line is not an event. */
static bool event_to_json(const char *line, struct buf *b)
{
	struct event_line ev;
	struct span name, val;
	const char *args;
	bool first = true;

	if (!event_line_parse(line, &ev))
		return false;
	add_str(b, "{\"comm\":");
	json_span(b, ev.comm);
	add_fmt(b, ",\"pid\":%llu,\"cpu\":%llu,\"ts\":", ev.pid, ev.cpu);
	json_span(b, ev.ts);
	add_str(b, ",\"group\":");
	json_span(b, ev.group);
	add_str(b, ",\"event\":");
	json_span(b, ev.event);
	add_str(b, ",\"caller\":");
	json_span(b, ev.caller);
	add_fmt(b, ",\"offset\":%llu,\"args\":{", ev.offset);
	for (args = ev.args; event_next_arg(&args, &name, &val); first = false) {
		if (!first)
			buf_add_u8(b, ',');
		json_span(b, name);
		buf_add_u8(b, ':');
		json_span(b, val);
	}
	buf_add_u8(b, '}');
	return !*args;
}

void event_json_line(struct event_json *ej, const char *line, struct buf *out)
{
	if (ej->pending.len && event_is_stack_line(line)) {
		add_str(&ej->pending, ej->nr_frames++ ? "," : ",\"stack\":[");
		json_str(&ej->pending, line + 4, strlen(line + 4));
		return;
	}
	event_json_flush(ej, out);
	if (!event_to_json(line, &ej->pending)) {
		ej->pending.len = 0;
		add_str(&ej->pending, "{\"raw\":");
		json_str(&ej->pending, line, strlen(line));
	}
}

void event_json_flush(struct event_json *ej, struct buf *out)
{
	if (!ej->pending.len)
		return;
	buf_add(out, ej->pending.data, ej->pending.len);
	add_str(out, ej->nr_frames ? "]}\n" : "}\n");
	ej->pending.len = 0;
	ej->nr_frames = 0;
}

void event_json_free(struct event_json *ej)
{
	buf_free(&ej->pending);
	ej->nr_frames = 0;
}
