/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Task names by PID for the trace reader (Documentation/trace-events.rst,
 * "inkprobe trace", task names): the names of the tasks that exist when it
 * starts, from /proc, then those task:task_newtask and task:task_rename
 * records give.  A name is at most INK_COMM_LEN - 1 bytes, as the kernel's.
 */
#ifndef _INKPROBE_USER_COMMS_H
#define _INKPROBE_USER_COMMS_H

#include <stddef.h>

#define INK_COMM_LEN	16

struct ink_comm_slot {
	int pid;		/* 0: empty (pid 0 is "<idle>", never stored) */
	char comm[INK_COMM_LEN];
};

struct ink_comms {
	struct ink_comm_slot *slots;
	size_t cap, len;
};

/* Sets @pid's name to the first @len bytes of @comm (up to a NUL); pid <= 0 is ignored. */
void ink_comms_put(struct ink_comms *c, int pid, const char *comm, size_t len);
/* @pid's name; "<idle>" for 0, NULL if not known. */
const char *ink_comms_get(const struct ink_comms *c, int pid);
/* The names of every task now, from /proc/PID/task/TID/comm. */
void ink_comms_snapshot(struct ink_comms *c);
void ink_comms_free(struct ink_comms *c);

#endif /* _INKPROBE_USER_COMMS_H */
