/* SPDX-License-Identifier: GPL-2.0 */
/* inkprobe dump: instances and arguments in kprobe_events syntax. */
#ifndef _INKPROBE_DUMP_H
#define _INKPROBE_DUMP_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/blob_file.h"

/*
 * Formats the location expression at @off of @bf as a fetch-arg.  Returns
 * false for the empty expression; *plain tells whether kprobe_events could
 * parse the text.
 */
bool format_location(const struct blob_file *bf, uint32_t off, char *out, size_t n,
		     bool *plain);
/* The default fetch type of a BTF type, as ":u64"/":s32"/":x64". */
void format_type(const struct ink_btf *btf, u32 type_id, char *out, size_t n);
int cmd_dump(int argc, char **argv);

#endif /* _INKPROBE_DUMP_H */
