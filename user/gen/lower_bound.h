/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The binary search gen's sorted tables share: the first element whose
 * 64-bit key (an address, a pc) is not below a given one.
 */
#ifndef _INKPROBE_GEN_LOWER_BOUND_H
#define _INKPROBE_GEN_LOWER_BOUND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The index of the first of the @nr elements at @base (@size bytes each,
 * sorted by the uint64_t @key_off bytes into each) whose key is not below
 * @key; @nr when every key is below it.
 */
static inline size_t lower_bound(const void *base, size_t nr, size_t size, size_t key_off,
				 uint64_t key)
{
	const char *p = base;
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, p + mid * size + key_off, sizeof(k));
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* lower_bound() of the @nr elements of array @arr, sorted by their @field. */
#define LOWER_BOUND(arr, nr, field, key)					\
	lower_bound((arr), (nr), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (key))

#endif /* _INKPROBE_GEN_LOWER_BOUND_H */
