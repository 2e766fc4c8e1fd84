/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers for the userspace tool: allocation, buffers, a hash map. */
#ifndef _INKPROBE_USER_UTIL_H
#define _INKPROBE_USER_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Function @name of @lib, dlopen()ed as @soname, into the function pointer
 * at @fn; dies, saying @hint, when the library has none.
 */
void dl_function(void *lib, const char *soname, const char *name, void *fn, const char *hint);
/*
 * The whole file @path, malloc'd, its length in *@len; NULL with errno
 * (EFBIG past @max bytes).  Never exits: the plugin calls it in trace-cmd.
 */
uint8_t *read_whole_file(const char *path, size_t *len, size_t max);

/* @len bytes as lowercase hex into @out (2 * @len + 1 bytes). */
void hex_bytes(const uint8_t *p, uint32_t len, char *out);
/* Grow *arr (of elements of size sz) so it holds at least n; *cap tracks capacity. */
void grow(void **arr, size_t *cap, size_t n, size_t sz);
#define VEC_PUSH(arr, len, cap) \
	(grow((void **)&(arr), &(cap), (len) + 1, sizeof(*(arr))), &(arr)[(len)++])

/* A growable byte buffer. */
struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};
void buf_add(struct buf *b, const void *p, size_t n);
void buf_add_u8(struct buf *b, uint8_t v);
void buf_add_u16(struct buf *b, uint16_t v);
void buf_add_u32(struct buf *b, uint32_t v);
void buf_add_u64(struct buf *b, uint64_t v);
void buf_align(struct buf *b, size_t a);
void buf_free(struct buf *b);

/* Open-addressing map from byte strings (copied) to uint32_t values. */
struct hmap {
	struct hmap_slot *slots;
	size_t cap;
	size_t len;
};
struct hmap_slot {
	uint8_t *key;		/* NULL: empty */
	size_t key_len;
	uint64_t hash;
	uint32_t val;
};
/* Returns true and *val if present. */
bool hmap_get(const struct hmap *m, const void *key, size_t len, uint32_t *val);
/* Inserts or replaces. */
void hmap_put(struct hmap *m, const void *key, size_t len, uint32_t val);
void hmap_free(struct hmap *m);

/* Strings kept once each, for as long as the pool. */
struct str_pool {
	struct hmap index;	/* string -> index in strs */
	char **strs;
	size_t nr, cap;
};
/* @s's @len bytes as a NUL-terminated string of the pool: the same pointer each time. */
const char *str_pool_intern(struct str_pool *p, const char *s, size_t len);
void str_pool_free(struct str_pool *p);

#endif /* _INKPROBE_USER_UTIL_H */
