/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GNU build IDs: from hexadecimal, from ELF notes, and of the running kernel
 * and its loaded modules, as sysfs shows their notes:
 *   /sys/kernel/notes                       the vmlinux's note sections
 *   /sys/module/NAME/notes/.note.gnu.build-id   one per note section of a module
 * $INKPROBE_SYSFS_DIR stands in for /sys (tests).
 */
#ifndef _INKPROBE_USER_BUILD_ID_H
#define _INKPROBE_USER_BUILD_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../uapi/inkprobe.h"

#define BUILD_ID_HEX_LEN	(2 * INKPROBE_BUILD_ID_MAX + 1)

struct build_id {
	uint8_t id[INKPROBE_BUILD_ID_MAX];
	uint32_t len;
};

/* @hex, 2 to 40 hexadecimal digits, an even number; false otherwise. */
bool build_id_parse(const char *hex, struct build_id *out);
/* Lower-case hexadecimal, as debuginfod's URLs have it. */
void build_id_hex(const struct build_id *b, char out[BUILD_ID_HEX_LEN]);
bool build_id_eq(const struct build_id *a, const struct build_id *b);

/*
 * The NT_GNU_BUILD_ID note (owner "GNU") among the ELF notes in @len bytes
 * of @data, laid out as the kernel lays them out: 12-byte header (namesz,
 * descsz, type in host order), name and descriptor each padded to 4 bytes.
 * Returns 1 and *@out when found, 0 when the notes hold none, -1 when they
 * are cut short or a size is out of range before one is found (@why says
 * what), or when the build ID is longer than INKPROBE_BUILD_ID_MAX.
 */
int build_id_from_notes(const void *data, size_t len, struct build_id *out, char *why,
			size_t why_len);

/* $INKPROBE_SYSFS_DIR, or "/sys". */
const char *sysfs_root(void);

/*
 * The build ID of the running kernel (/sys/kernel/notes), or of the loaded
 * module @name ('-' taken as '_', as the kernel names modules); 0, or -1
 * with the reason in @why.
 */
int build_id_of_kernel(struct build_id *out, char *why, size_t why_len);
int build_id_of_module(const char *name, struct build_id *out, char *why, size_t why_len);

/*
 * The loaded modules that have notes in sysfs (built-in ones have none),
 * sorted by name: a malloc'd array of malloc'd names, *@nr of them.
 */
char **loaded_modules(size_t *nr);
void free_names(char **names, size_t nr);

#endif /* _INKPROBE_USER_BUILD_ID_H */
