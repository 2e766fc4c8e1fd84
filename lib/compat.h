/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few definitions lib/ needs, from the kernel or from libc, so that the
 * same C files build into inkprobe.ko and into the userspace tool.
 */
#ifndef _INKPROBE_LIB_COMPAT_H
#define _INKPROBE_LIB_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <uapi/linux/btf.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <sys/cdefs.h>		/* __always_inline */
#include <linux/btf.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif
#endif

/*
 * Sorting a few elements in place, as each side always sorted them: the
 * kernel's sort() (a heapsort), libc's qsort() (glibc: a merge sort, which
 * keeps equal elements in their order).  Equal elements may come in a
 * different order on each side.
 */
#ifdef __KERNEL__
#include <linux/sort.h>
static inline void ink_sort(void *base, size_t num, size_t size,
			    int (*cmp)(const void *, const void *))
{
	sort(base, num, size, cmp, NULL);
}
#else
#include <stdlib.h>
static inline void ink_sort(void *base, size_t num, size_t size,
			    int (*cmp)(const void *, const void *))
{
	qsort(base, num, size, cmp);
}
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "inkprobe blobs are little-endian; big-endian hosts are not supported"
#endif

/* Unaligned little-endian loads (the host is little-endian, see above). */
static inline u16 ink_get16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 ink_get32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u64 ink_get64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Where and why validation failed: a static message and a byte offset;
 * for ink_blob_open(), also its phase that failed (enum ink_open_phase).
 */
struct ink_err {
	const char *msg;
	u32 off;
	u32 phase;
};

static inline int ink_fail(struct ink_err *err, const char *msg, u32 off)
{
	if (err) {
		err->msg = msg;
		err->off = off;
	}
	return -EINVAL;
}

#endif /* _INKPROBE_LIB_COMPAT_H */
