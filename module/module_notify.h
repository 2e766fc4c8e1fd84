/* SPDX-License-Identifier: GPL-2.0 */
/* module_notify.c: module load and unload, for the blob store; for main.c. */
#ifndef _INKPROBE_MODULE_NOTIFY_H
#define _INKPROBE_MODULE_NOTIFY_H

/* The module notifier, for ink_target_module(). */
int ink_module_notify_init(void);
void ink_module_notify_exit(void);

#endif /* _INKPROBE_MODULE_NOTIFY_H */
