// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("inkprobe: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void dl_function(void *lib, const char *soname, const char *name, void *fn, const char *hint)
{
	void *sym = dlsym(lib, name);

	if (!sym)
		die("%s: no %s (%s)", soname, name, hint);
	/* dlsym()'s object pointer into a function pointer, without aliasing it */
	memcpy(fn, &sym, sizeof(sym));
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	fputs("inkprobe: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void hex_bytes(const uint8_t *p, uint32_t len, char *out)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * len] = '\0';
}

void grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap;

	if (n <= c)
		return;
	c = c ? c : 16;
	while (c < n)
		c *= 2;
	*arr = xrealloc(*arr, c * sz);
	*cap = c;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	grow((void **)&b->data, &b->cap, b->len + n, 1);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

void buf_add_u8(struct buf *b, uint8_t v)
{
	buf_add(b, &v, 1);
}

void buf_add_u16(struct buf *b, uint16_t v)
{
	buf_add(b, &v, 2);
}

void buf_add_u32(struct buf *b, uint32_t v)
{
	buf_add(b, &v, 4);
}

void buf_add_u64(struct buf *b, uint64_t v)
{
	buf_add(b, &v, 8);
}

void buf_align(struct buf *b, size_t a)
{
	static const uint8_t zero[16];

	while (b->len % a)
		buf_add(b, zero, 1);
}

void buf_free(struct buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* FNV-1a, 64-bit */
static uint64_t hash_bytes(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static struct hmap_slot *find_slot(struct hmap_slot *slots, size_t cap, uint64_t h,
				   const void *key, size_t len)
{
	size_t i = h & (cap - 1);

	for (;; i = (i + 1) & (cap - 1)) {
		struct hmap_slot *s = &slots[i];

		if (!s->key)
			return s;
		if (s->hash == h && s->key_len == len && !memcmp(s->key, key, len))
			return s;
	}
}

bool hmap_get(const struct hmap *m, const void *key, size_t len, uint32_t *val)
{
	struct hmap_slot *s;

	if (!m->cap)
		return false;
	s = find_slot(m->slots, m->cap, hash_bytes(key, len), key, len);
	if (!s->key)
		return false;
	*val = s->val;
	return true;
}

static void rehash(struct hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct hmap_slot *slots = xcalloc(cap, sizeof(*slots));

	for (i = 0; i < m->cap; i++) {
		struct hmap_slot *s = &m->slots[i];

		if (s->key)
			*find_slot(slots, cap, s->hash, s->key, s->key_len) = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
}

void hmap_put(struct hmap *m, const void *key, size_t len, uint32_t val)
{
	uint64_t h = hash_bytes(key, len);
	struct hmap_slot *s;

	if ((m->len + 1) * 4 > m->cap * 3)
		rehash(m);
	s = find_slot(m->slots, m->cap, h, key, len);
	if (!s->key) {
		s->key = xmalloc(len ? len : 1);
		memcpy(s->key, key, len);
		s->key_len = len;
		s->hash = h;
		m->len++;
	}
	s->val = val;
}

void hmap_free(struct hmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

const char *str_pool_intern(struct str_pool *p, const char *s, size_t len)
{
	uint32_t idx;
	char *copy;

	if (hmap_get(&p->index, s, len, &idx))
		return p->strs[idx];
	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	*VEC_PUSH(p->strs, p->nr, p->cap) = copy;
	hmap_put(&p->index, copy, len, (uint32_t)(p->nr - 1));
	return copy;
}

void str_pool_free(struct str_pool *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->strs[i]);
	free(p->strs);
	hmap_free(&p->index);
	memset(p, 0, sizeof(*p));
}

uint8_t *read_whole_file(const char *path, size_t *len, size_t max)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *data = NULL, *p;
	size_t cap = 0, n;

	*len = 0;
	if (!fp)
		return NULL;
	for (;;) {
		if (*len == cap) {
			cap = cap ? 2 * cap : 65536;
			p = cap <= max ? realloc(data, cap) : NULL;
			if (!p) {
				free(data);
				fclose(fp);
				errno = cap > max ? EFBIG : ENOMEM;
				return NULL;
			}
			data = p;
		}
		n = fread(data + *len, 1, cap - *len, fp);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		free(data);
		fclose(fp);
		errno = EIO;
		return NULL;
	}
	fclose(fp);
	return data;
}
