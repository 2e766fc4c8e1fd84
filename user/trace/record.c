// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe records from their fields, as text and JSON.  The layout comes
 * from the event's format (libtraceevent's struct tep_event), the way each
 * argument prints from its print fmt ("NAME=0x%llx" is hex, "NAME=%lld"
 * signed...), values from the record's bytes.
 */
#include <string.h>

#include <event-parse.h>

#include "record.h"
#include "../../uapi/inkprobe_bpf.h"

/* ------------------------------------------------------------------ */
/* Output helpers                                                       */

void ink_put_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void ink_put_u64(struct buf *b, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf_add(b, tmp + i, sizeof(tmp) - i);
}

void ink_put_s64(struct buf *b, int64_t v)
{
	if (v < 0) {
		buf_add_u8(b, '-');
		ink_put_u64(b, -(uint64_t)v);
	} else {
		ink_put_u64(b, (uint64_t)v);
	}
}

void ink_put_hex(struct buf *b, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	buf_add(b, tmp + i, sizeof(tmp) - i);
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

void ink_json_str(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
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
		if (*p == '"' || *p == '\\') {
			buf_add_u8(b, '\\');
			buf_add_u8(b, *p);
		} else if (*p == '\n') {
			ink_put_str(b, "\\n");
		} else if (*p == '\t') {
			ink_put_str(b, "\\t");
		} else {
			char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

			buf_add(b, u, sizeof(u));
		}
		p++;
	}
	buf_add_u8(b, '"');
}

/* A string as the module's output function prints it: \" \\ and \xNN escaped. */
static void text_str(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	buf_add_u8(b, '"');
	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			buf_add_u8(b, '\\');
			buf_add_u8(b, c);
		} else if (c < 0x20 || c >= 0x7f) {
			char x[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			buf_add(b, x, sizeof(x));
		} else {
			buf_add_u8(b, c);
		}
	}
	buf_add_u8(b, '"');
}

/* ------------------------------------------------------------------ */
/* Layout                                                               */

static const char *const stack_fields[] = {
	"__stack", "__stack_flags", "__probe_idx", "__nr_frames",
};

static bool is_stack_field(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(stack_fields) / sizeof(stack_fields[0]); i++)
		if (!strcmp(name, stack_fields[i]))
			return true;
	return false;
}

/* How the print fmt prints " NAME=": hex ("0x%"), else as @dflt. */
static enum ink_rec_kind printed_as(const char *fmt, const char *name, enum ink_rec_kind dflt)
{
	size_t n = strlen(name);
	const char *p;

	for (p = fmt ? strstr(fmt, name) : NULL; p; p = strstr(p + 1, name)) {
		if (p == fmt || p[-1] != ' ' || p[n] != '=')
			continue;
		return !strncmp(p + n + 1, "0x%", 3) ? REC_X : dflt;
	}
	return dflt;
}

bool ink_rec_fmt_init(struct ink_rec_fmt *f, const struct tep_event *ev)
{
	const struct tep_format_field *fl;
	bool ip = false, oo = false, fault = false, pid = false;
	unsigned int frames = 0, flags = 0, nr = 0;

	memset(f, 0, sizeof(*f));
	f->system = ev->system;
	f->name = ev->name;
	f->id = ev->id;
	for (fl = ev->format.common_fields; fl; fl = fl->next) {
		if (!strcmp(fl->name, "common_pid") && fl->size == 4) {
			f->pid_off = fl->offset;
			pid = true;
		}
	}
	for (fl = ev->format.fields; fl; fl = fl->next) {
		struct ink_rec_field *a;

		if (!strcmp(fl->name, "__probe_ip") && fl->size == 8) {
			f->ip_off = fl->offset;
			ip = true;
			continue;
		}
		if (!strcmp(fl->name, "__optimized_out") && fl->size == 4) {
			f->oo_off = fl->offset;
			oo = true;
			continue;
		}
		if (!strcmp(fl->name, "__fault") && fl->size == 4) {
			f->fault_off = fl->offset;
			fault = true;
			continue;
		}
		if (is_stack_field(fl->name)) {
			if (!strcmp(fl->name, "__stack") && fl->size == 4)
				frames = fl->offset, f->stack_off = frames;
			else if (!strcmp(fl->name, "__stack_flags") && fl->size == 4)
				flags = fl->offset, f->flags_off = flags;
			else if (!strcmp(fl->name, "__nr_frames") && fl->size == 4)
				nr = fl->offset, f->nr_frames_off = nr;
			continue;
		}
		if (f->nr_fields == INK_REC_MAX_ARGS)
			continue;
		a = &f->fields[f->nr_fields++];
		a->name = fl->name;
		a->off = fl->offset;
		a->size = fl->size;
		a->dynamic = fl->flags & TEP_FIELD_IS_DYNAMIC;
		if (fl->flags & TEP_FIELD_IS_STRING)
			a->kind = REC_STR;
		else
			a->kind = fl->flags & TEP_FIELD_IS_SIGNED ? REC_S : REC_U;
		if ((fl->flags & TEP_FIELD_IS_ARRAY) && a->kind != REC_STR && !a->dynamic &&
		    fl->arraylen > 0 && fl->size / fl->arraylen >= 1 && fl->size / fl->arraylen <= 8)
			a->arraylen = fl->arraylen;
		if (a->kind != REC_STR)
			a->kind = printed_as(ev->print_fmt.format, a->name, a->kind);
	}
	f->inkprobe = ip && oo && fault;
	f->stack = f->inkprobe && frames && flags && nr;
	return pid;
}

/* ------------------------------------------------------------------ */
/* Values                                                               */

static uint64_t get(const void *data, unsigned int size, unsigned int off, unsigned int len)
{
	uint64_t v = 0;

	/* @off comes from the format: it may be anything */
	if (off <= size && len <= size - off && len <= sizeof(v))
		memcpy(&v, (const char *)data + off, len);	/* little-endian */
	return v;
}

static int64_t sext(uint64_t v, unsigned int size)
{
	unsigned int shift = 64 - 8 * (size ? size : 8);

	return (int64_t)(v << shift) >> shift;
}

/* A __data_loc's bytes: false if it lies outside the record. */
static bool data_loc(const void *data, unsigned int size, unsigned int off, const char **p,
		     unsigned int *len)
{
	uint32_t loc = (uint32_t)get(data, size, off, 4);
	unsigned int o = loc & 0xffff, l = loc >> 16;

	if (off > size || size - off < 4 || o + l > size)
		return false;
	*p = (const char *)data + o;
	*len = l;
	return true;
}

/* A string field: its bytes up to the NUL. */
static bool string_of(const struct ink_rec_field *a, const void *data, unsigned int size,
		      const char **p, size_t *len)
{
	unsigned int l;

	if (a->dynamic) {
		if (!data_loc(data, size, a->off, p, &l))
			return false;
	} else {
		if (a->off > size || a->size > size - a->off)
			return false;
		*p = (const char *)data + a->off;
		l = a->size;
	}
	*len = strnlen(*p, l);
	return true;
}

/* ------------------------------------------------------------------ */
/* Symbols and frames                                                   */

static bool lookup(const struct ink_rec_ctx *c, uint64_t addr, struct ink_sym *s)
{
	memset(s, 0, sizeof(*s));
	s->dup_index = -1;
	return c && c->syms && c->syms->lookup(c->syms->ctx, addr, s) && s->name;
}

unsigned int ink_rec_frames(const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
			    const void *data, unsigned int size, struct ink_rec_frame *out,
			    unsigned int max)
{
	const char *frames, *flags;
	unsigned int flen, glen, nr, i;

	if (!f->stack || !data_loc(data, size, f->stack_off, &frames, &flen) ||
	    !data_loc(data, size, f->flags_off, &flags, &glen))
		return 0;
	nr = (unsigned int)get(data, size, f->nr_frames_off, 4);
	if (nr > glen || nr * 8 > flen)
		return 0;
	if (nr > max)
		nr = max;
	for (i = 0; i < nr; i++) {
		struct ink_rec_frame *fr = &out[i];
		uint64_t a;

		memcpy(&a, frames + 8 * i, 8);
		fr->addr = a;
		fr->exact = flags[i] & INKPROBE_FRAME_EXACT;
		fr->guess = flags[i] & INKPROBE_FRAME_GUESS;
		/* a return address belongs to its call instruction */
		lookup(c, fr->exact ? a : a - 1, &fr->sym);
		fr->nr_inline = c && c->frames && fr->sym.name ?
			ink_frames_at(c->frames, &fr->sym, a, i == 0, fr->exact, fr->inlined,
				      INK_INLINE_DEPTH) : 0;
	}
	return nr;
}

void ink_rec_frame_text(struct buf *out, const struct ink_rec_frame *fr)
{
	if (fr->guess)
		ink_put_str(out, "? ");
	if (!fr->sym.name) {
		ink_put_hex(out, fr->addr);
		return;
	}
	ink_put_str(out, fr->sym.name);
	buf_add_u8(out, '+');
	ink_put_hex(out, fr->addr - fr->sym.start);
	if (fr->sym.size) {
		buf_add_u8(out, '/');
		ink_put_hex(out, fr->sym.size);
	}
	if (fr->sym.module) {
		ink_put_str(out, " [");
		ink_put_str(out, fr->sym.module);
		buf_add_u8(out, ']');
	}
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */

static void site_text(struct buf *out, const struct ink_rec_ctx *c, uint64_t ip)
{
	struct ink_sym s;

	if (!lookup(c, ip, &s)) {
		ink_put_hex(out, ip);
		return;
	}
	ink_put_str(out, s.name);
	buf_add_u8(out, '+');
	ink_put_hex(out, ip - s.start);
}

static void value_text(struct buf *out, const struct ink_rec_field *a, const void *data,
		       unsigned int size)
{
	const char *p;
	size_t len;
	uint64_t v;
	unsigned int i;

	if (a->kind == REC_STR) {
		if (string_of(a, data, size, &p, &len))
			text_str(out, p, len);
		else
			ink_put_str(out, "(bad record)");
		return;
	}
	if (a->arraylen) {
		unsigned int el = a->size / a->arraylen;

		buf_add_u8(out, '{');
		for (i = 0; i < a->arraylen; i++) {
			if (i)
				buf_add_u8(out, ',');
			v = get(data, size, a->off + i * el, el);
			if (a->kind == REC_S)
				ink_put_s64(out, sext(v, el));
			else if (a->kind == REC_X)
				ink_put_hex(out, v);
			else
				ink_put_u64(out, v);
		}
		buf_add_u8(out, '}');
		return;
	}
	if (a->dynamic || a->size > 8) {
		ink_put_str(out, "(not shown)");
		return;
	}
	v = get(data, size, a->off, a->size);
	if (a->kind == REC_S)
		ink_put_s64(out, sext(v, a->size));
	else if (a->kind == REC_X)
		ink_put_hex(out, v);
	else
		ink_put_u64(out, v);
}

void ink_rec_text(struct buf *out, const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
		  const void *data, unsigned int size)
{
	uint32_t oo, fault;
	unsigned int i;

	if (f->inkprobe) {
		buf_add_u8(out, '(');
		site_text(out, c, get(data, size, f->ip_off, 8));
		buf_add_u8(out, ')');
	}
	oo = f->inkprobe ? (uint32_t)get(data, size, f->oo_off, 4) : 0;
	fault = f->inkprobe ? (uint32_t)get(data, size, f->fault_off, 4) : 0;
	for (i = 0; i < f->nr_fields; i++) {
		const struct ink_rec_field *a = &f->fields[i];

		if (i || f->inkprobe)
			buf_add_u8(out, ' ');
		ink_put_str(out, a->name);
		buf_add_u8(out, '=');
		if (i < 32 && (fault & (1U << i)))
			ink_put_str(out, "(fault)");
		else if (i < 32 && (oo & (1U << i)))
			ink_put_str(out, "(optimized out)");
		else
			value_text(out, a, data, size);
	}
	ink_rec_stack_text(out, c, f, data, size);
}

void ink_rec_stack_text(struct buf *out, const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
			const void *data, unsigned int size)
{
	struct ink_rec_frame frames[INK_REC_MAX_FRAMES];
	unsigned int i, j, nr;

	nr = ink_rec_frames(c, f, data, size, frames, INK_REC_MAX_FRAMES);
	for (i = 0; i < nr; i++) {
		for (j = 0; j < frames[i].nr_inline; j++) {
			ink_put_str(out, "\n => ");
			if (frames[i].guess)
				ink_put_str(out, "? ");
			ink_put_str(out, frames[i].inlined[j]);
			ink_put_str(out, " [inlined]");
		}
		ink_put_str(out, "\n => ");
		ink_rec_frame_text(out, &frames[i]);
	}
}

int ink_rec_field_index(const struct ink_rec_fmt *f, const char *name)
{
	unsigned int i;

	for (i = 0; i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, name))
			return (int)i;
	return -1;
}

bool ink_rec_u64(const struct ink_rec_fmt *f, int idx, const void *data, unsigned int size,
		 uint64_t *v)
{
	const struct ink_rec_field *a;

	if (idx < 0 || (unsigned int)idx >= f->nr_fields)
		return false;
	a = &f->fields[idx];
	if (a->kind == REC_STR || a->dynamic || a->arraylen || a->size > 8 || !a->size ||
	    a->off > size || a->size > size - a->off)
		return false;
	*v = get(data, size, a->off, a->size);
	return true;
}

uint64_t ink_rec_ip(const struct ink_rec_fmt *f, const void *data, unsigned int size)
{
	return f->inkprobe ? get(data, size, f->ip_off, 8) : 0;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */

static void value_json(struct buf *out, const struct ink_rec_field *a, const void *data,
		       unsigned int size)
{
	const char *p;
	size_t len;
	uint64_t v;
	unsigned int i;

	if (a->kind == REC_STR) {
		if (string_of(a, data, size, &p, &len))
			ink_json_str(out, p, len);
		else
			ink_put_str(out, "null");
		return;
	}
	if (a->arraylen) {
		unsigned int el = a->size / a->arraylen;

		buf_add_u8(out, '[');
		for (i = 0; i < a->arraylen; i++) {
			if (i)
				buf_add_u8(out, ',');
			v = get(data, size, a->off + i * el, el);
			if (a->kind == REC_S)
				ink_put_s64(out, sext(v, el));
			else
				ink_put_u64(out, v);
		}
		buf_add_u8(out, ']');
		return;
	}
	if (a->dynamic || a->size > 8 || a->off > size || a->size > size - a->off) {
		ink_put_str(out, "null");
		return;
	}
	v = get(data, size, a->off, a->size);
	if (a->kind == REC_S)
		ink_put_s64(out, sext(v, a->size));
	else
		ink_put_u64(out, v);
}

static void json_key(struct buf *out, const char *key)
{
	buf_add_u8(out, '"');
	ink_put_str(out, key);	/* field names are identifiers */
	ink_put_str(out, "\":");
}

static void frame_json(struct buf *out, const struct ink_rec_frame *fr)
{
	unsigned int j;

	ink_put_str(out, "{\"addr\":");
	ink_put_u64(out, fr->addr);
	if (fr->sym.name) {
		ink_put_str(out, ",\"symbol\":");
		ink_json_str(out, fr->sym.name, strlen(fr->sym.name));
		ink_put_str(out, ",\"offset\":");
		ink_put_u64(out, fr->addr - fr->sym.start);
		if (fr->sym.module) {
			ink_put_str(out, ",\"module\":");
			ink_json_str(out, fr->sym.module, strlen(fr->sym.module));
		}
	}
	if (fr->nr_inline) {
		ink_put_str(out, ",\"inlined\":[");
		for (j = 0; j < fr->nr_inline; j++) {
			if (j)
				buf_add_u8(out, ',');
			ink_json_str(out, fr->inlined[j], strlen(fr->inlined[j]));
		}
		buf_add_u8(out, ']');
	}
	if (fr->guess)
		ink_put_str(out, ",\"guess\":true");
	buf_add_u8(out, '}');
}

void ink_rec_json(struct buf *out, const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
		  const void *data, unsigned int size)
{
	struct ink_rec_frame frames[INK_REC_MAX_FRAMES];
	uint32_t oo = 0, fault = 0;
	unsigned int i, nr, missing = 0;
	struct ink_sym s;
	uint64_t ip;

	if (f->inkprobe) {
		ip = get(data, size, f->ip_off, 8);
		ink_put_str(out, ",\"ip\":");
		ink_put_u64(out, ip);
		if (lookup(c, ip, &s)) {
			ink_put_str(out, ",\"caller\":");
			ink_json_str(out, s.name, strlen(s.name));
			ink_put_str(out, ",\"offset\":");
			ink_put_u64(out, ip - s.start);
		}
		oo = (uint32_t)get(data, size, f->oo_off, 4);
		fault = (uint32_t)get(data, size, f->fault_off, 4);
	}
	ink_put_str(out, f->inkprobe ? ",\"args\":{" : ",\"fields\":{");
	for (i = 0; i < f->nr_fields; i++) {
		const struct ink_rec_field *a = &f->fields[i];

		if (i)
			buf_add_u8(out, ',');
		json_key(out, a->name);
		if (i < 32 && ((fault | oo) & (1U << i))) {
			ink_put_str(out, "null");
			missing++;
		} else {
			value_json(out, a, data, size);
		}
	}
	buf_add_u8(out, '}');
	if (missing) {
		ink_put_str(out, ",\"missing\":{");
		for (i = 0, missing = 0; i < f->nr_fields && i < 32; i++) {
			if (!((fault | oo) & (1U << i)))
				continue;
			if (missing++)
				buf_add_u8(out, ',');
			json_key(out, f->fields[i].name);
			ink_put_str(out, fault & (1U << i) ? "\"fault\"" : "\"optimized out\"");
		}
		buf_add_u8(out, '}');
	}
	if (!f->stack)
		return;
	nr = ink_rec_frames(c, f, data, size, frames, INK_REC_MAX_FRAMES);
	ink_put_str(out, ",\"stack\":[");
	for (i = 0; i < nr; i++) {
		if (i)
			buf_add_u8(out, ',');
		frame_json(out, &frames[i]);
	}
	buf_add_u8(out, ']');
}
