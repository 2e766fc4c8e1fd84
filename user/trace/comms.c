// SPDX-License-Identifier: GPL-2.0
/* Task names by PID: an open-addressing table (comms.h). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comms.h"
#include "../common/util.h"

static size_t comm_hash(int pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

void ink_comms_put(struct ink_comms *c, int pid, const char *comm, size_t len)
{
	struct ink_comm_slot *s;
	size_t i;

	if (pid <= 0)
		return;
	if (2 * (c->len + 1) > c->cap) {
		struct ink_comms n = { .cap = c->cap ? 2 * c->cap : 4096 };

		n.slots = xcalloc(n.cap, sizeof(*n.slots));
		for (i = 0; i < c->cap; i++)
			if (c->slots[i].pid)
				ink_comms_put(&n, c->slots[i].pid, c->slots[i].comm,
					      strlen(c->slots[i].comm));
		free(c->slots);
		*c = n;
	}
	for (i = comm_hash(pid, c->cap); c->slots[i].pid && c->slots[i].pid != pid;
	     i = (i + 1) & (c->cap - 1))
		;
	s = &c->slots[i];
	if (!s->pid)
		c->len++;
	s->pid = pid;
	len = strnlen(comm, len < INK_COMM_LEN - 1 ? len : INK_COMM_LEN - 1);
	memcpy(s->comm, comm, len);
	s->comm[len] = '\0';
}

const char *ink_comms_get(const struct ink_comms *c, int pid)
{
	size_t i;

	if (!pid)
		return "<idle>";
	for (i = c->cap ? comm_hash(pid, c->cap) : 0; c->cap && c->slots[i].pid;
	     i = (i + 1) & (c->cap - 1))
		if (c->slots[i].pid == pid)
			return c->slots[i].comm;
	return NULL;
}

void ink_comms_snapshot(struct ink_comms *c)
{
	DIR *proc = opendir("/proc"), *tasks;
	struct dirent *p, *t;
	char path[600], comm[64];

	while (proc && (p = readdir(proc))) {
		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			ssize_t n;
			int fd;

			if (!isdigit((unsigned char)t->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", p->d_name, t->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
			if (fd >= 0)
				close(fd);
			if (n <= 0)
				continue;
			if (comm[n - 1] == '\n')
				n--;
			ink_comms_put(c, atoi(t->d_name), comm, n);
		}
		if (tasks)
			closedir(tasks);
	}
	if (proc)
		closedir(proc);
}

void ink_comms_free(struct ink_comms *c)
{
	free(c->slots);
	c->slots = NULL;
	c->cap = c->len = 0;
}
