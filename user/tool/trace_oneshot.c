// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe trace 'FUNC ARGS...' [--stack] [--filter EXPR]: one command for
 * the common case (Documentation/control.rst, "One command").  What is
 * missing is loaded, in this order, each step only when needed:
 *
 *   inkprobe.ko     when /sys/module/inkprobe does not exist: the file of
 *                   --kmod (finit_module), else 'modprobe inkprobe';
 *   blobs           each --blob FILE whose target and build ID inkprobe.ko
 *                   does not have (as 'inkprobe load FILE');
 *   the definition  p:inkprobe_trace_PID/FUNC TARGET ARGS... [stacktrace];
 *                   when it fails and the target's blob (MOD's for
 *                   MOD:FUNC, else the running kernel's) is not loaded, that
 *                   blob is fetched by build ID (as 'inkprobe load
 *                   --running-kernel' does) and the definition tried again.
 *
 * At the end -- --count, --timeout, Ctrl-C, SIGTERM, SIGHUP, a closed
 * stdout -- exactly what was added is removed, newest first: the event,
 * the blobs, inkprobe.ko.  A reader killed by SIGKILL leaves them; the
 * next one-command trace removes its event (not the blobs or module: what
 * it loaded is not recorded anywhere).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "debugfs.h"
#include "trace_oneshot.h"
#include "../common/util.h"

extern char **environ;

static bool module_present(void)
{
	struct stat st;

	return !stat("/sys/module/inkprobe", &st);
}

/* 'modprobe inkprobe', its output to stderr: its exit status (-1: not run). */
static int modprobe(void)
{
	char *argv[] = { "modprobe", "inkprobe", NULL };
	posix_spawn_file_actions_t fa;
	int st = 0, ret;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	ret = posix_spawnp(&pid, "modprobe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		errno = ret;
		return -1;
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int insert_module(struct oneshot *o, const char *ko)
{
	int fd, r;

	if (module_present())
		return 0;
	if (ko) {
		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			warnx("trace: %s: %s", ko, strerror(errno));
			return 1;
		}
		r = syscall(SYS_finit_module, fd, "", 0);
		close(fd);
		if (r && errno == EEXIST)
			return 0;	/* loaded meanwhile, not by this trace */
		if (r) {
			warnx("trace: insmod %s: %s", ko, strerror(errno));
			return 1;
		}
	} else {
		r = modprobe();
		if (r) {
			warnx("trace: inkprobe.ko is not loaded and 'modprobe inkprobe' %s: install "
			      "it (make install-modules) or give its file (--kmod FILE)",
			      r < 0 ? strerror(errno) : "failed");
			return 1;
		}
	}
	o->inserted = true;
	return 0;
}

/* Notes that @target's blob was loaded by this trace. */
static void note_loaded(struct oneshot *o, const char *target)
{
	if (o->nr_loaded < ONESHOT_MAX_BLOBS)
		snprintf(o->loaded[o->nr_loaded++], sizeof(o->loaded[0]), "%s", target);
}

/* A word a tracefs event name can hold: letters, digits, '_'. */
static void event_name(char *out, size_t n, const char *target)
{
	const char *colon = strchr(target, ':');
	size_t i;

	if (colon)
		target = colon + 1;	/* MOD:FUNC */
	for (i = 0; i + 1 < n && target[i] && target[i] != '@' && target[i] != '+'; i++)
		out[i] = isalnum((unsigned char)target[i]) ? target[i] : '_';
	out[i] = '\0';
}

/* "GRP/EVENT" or "EVENT" after "p:" or "r:": the group and event. */
static bool named_event(struct oneshot *o, const char *name)
{
	const char *slash = strchr(name, '/');

	if (!*name || (slash && (slash == name || !slash[1])))
		return false;
	if (slash)
		snprintf(o->group, sizeof(o->group), "%.*s", (int)(slash - name), name);
	else
		snprintf(o->group, sizeof(o->group), "inkprobe");
	snprintf(o->event, sizeof(o->event), "%s", slash ? slash + 1 : name);
	return true;
}

static const struct ctl_hint define_hints[] = {
	{ ENOENT, "'inkprobe funcs GLOB' lists the functions of the loaded blobs, "
		  "'inkprobe vars FUNC' their instances and parameters" },
	{ EEXIST, "give another name, or trace the event that exists: inkprobe trace -e GRP/EVENT" },
	{ 0 },
};

int oneshot_parse(struct oneshot *o, char **words, int nr, bool stack)
{
	struct buf def = { 0 }, spec = { 0 };
	char kind = 'p', head[160], *save = NULL, *w;
	bool has_stack = false;
	const char *target;
	int i, ret = 2;

	/* the words as one string, split again on blanks */
	for (i = 0; i < nr; i++) {
		if (i)
			buf_add_u8(&spec, ' ');
		buf_add(&spec, words[i], strlen(words[i]));
	}
	buf_add_u8(&spec, '\0');
	nr = 0;
	words = NULL;
	for (w = strtok_r((char *)spec.data, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		words = xrealloc(words, (nr + 1) * sizeof(*words));
		words[nr++] = w;
	}
	i = 0;
	if (nr && (words[0][0] == 'p' || words[0][0] == 'r') &&
	    (!words[0][1] || words[0][1] == ':')) {
		kind = words[0][0];
		if (words[0][1] && !named_event(o, words[0] + 2)) {
			warnx("trace: '%s': expected %c:GRP/EVENT or %c:EVENT", words[0], kind,
			      kind);
			goto out;
		}
		i = 1;
	}
	if (i >= nr) {
		warnx("trace: no function to probe in the probe spec");
		goto out;
	}
	target = words[i++];
	if (!*o->event) {
		snprintf(o->group, sizeof(o->group), "inkprobe_trace_%d", (int)getpid());
		event_name(o->event, sizeof(o->event), target);
	}
	/* the blob the target needs: MOD's for MOD:FUNC, else the kernel's */
	w = strchr(target, ':');
	snprintf(o->target_blob, sizeof(o->target_blob), "%.*s", w ? (int)(w - target) : 7,
		 w ? target : "vmlinux");
	snprintf(head, sizeof(head), "%c:%s/%s ", kind, o->group, o->event);
	buf_add(&def, head, strlen(head));
	buf_add(&def, target, strlen(target));
	for (; i < nr; i++) {
		has_stack = has_stack || !strcmp(words[i], "stacktrace");
		buf_add_u8(&def, ' ');
		buf_add(&def, words[i], strlen(words[i]));
	}
	if (stack && !has_stack)
		buf_add(&def, " stacktrace", strlen(" stacktrace"));
	buf_add_u8(&def, '\0');
	o->def = (char *)def.data;
	def.data = NULL;
	ret = -1;
out:
	free(words);
	buf_free(&spec);
	buf_free(&def);
	return ret;
}

/*
 * Removes the events of one-command traces that were killed: groups
 * inkprobe_trace_PID whose process is gone.  (Their instances went first:
 * trace_session.c's trace_remove_stale_instances().)  A PID taken by another process
 * since keeps its event.
 */
static void remove_stale_events(void)
{
	char *probes = ctl_read("probes"), *line, *save = NULL, cmd[160];
	int pid, n, err;

	for (line = strtok_r(probes, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = 0;
		if (sscanf(line, "%*[pr]:inkprobe_trace_%d/%n", &pid, &n) != 1 || !n || pid <= 0)
			continue;
		if (!kill(pid, 0) || errno != ESRCH)
			continue;
		line[n + strcspn(line + n, " ")] = '\0';
		snprintf(cmd, sizeof(cmd), "-:%s", line + 2);
		err = ctl_write("probes", O_WRONLY | O_APPEND, cmd, strlen(cmd));
		if (err)
			warnx("trace: cannot remove %s, left by a trace that was killed: %s",
			      line + 2, strerror(err));
	}
	free(probes);
}

int oneshot_define(struct oneshot *o, const char *ko, char **blobs, size_t nr_blobs)
{
	const char *mod = o->target_blob;
	char target[INKPROBE_TARGET_NAME_LEN], *mark = NULL;
	size_t k, len = strlen(o->def);
	bool loaded;
	int err;

	if (insert_module(o, ko))
		return 1;
	remove_stale_events();
	for (k = 0; k < nr_blobs; k++) {
		if (load_blob_file(blobs[k], target, sizeof(target), &loaded))
			return 1;
		if (loaded)
			note_loaded(o, target);
	}
	mark = ctl_errlog_newest();
	err = ctl_write("probes", O_WRONLY | O_APPEND, o->def, len);
	/* no instance, perhaps for want of the target's blob: fetch it, try again */
	if (err && !nr_blobs && !blob_loaded(mod) && getenv("DEBUGINFOD_URLS")) {
		if (load_running_blob(strcmp(mod, "vmlinux") ? mod : NULL, target,
				      sizeof(target), &loaded)) {
			free(mark);
			return 1;
		}
		if (loaded)
			note_loaded(o, target);
		free(mark);
		mark = ctl_errlog_newest();
		err = ctl_write("probes", O_WRONLY | O_APPEND, o->def, len);
	}
	if (err) {
		ctl_fail(mark, err, o->def, define_hints);
		if (!blob_loaded(mod))
			warnx("trace: no blob of %s is loaded: give its file (--blob FILE), or "
			      "set DEBUGINFOD_URLS to fetch it by build ID", mod);
		free(mark);
		return 1;
	}
	free(mark);
	o->defined = true;
	return -1;
}

int oneshot_undo(struct oneshot *o)
{
	char cmd[INKPROBE_TARGET_NAME_LEN + 160], what[sizeof(cmd) + 16];
	int ret = 0;

	if (o->defined) {
		snprintf(cmd, sizeof(cmd), "-:%s/%s", o->group, o->event);
		snprintf(what, sizeof(what), "trace: del %s/%s", o->group, o->event);
		ret |= ctl_command("probes", O_WRONLY | O_APPEND, cmd, strlen(cmd), what, NULL);
		o->defined = false;
	}
	while (o->nr_loaded) {
		const char *t = o->loaded[--o->nr_loaded];

		snprintf(cmd, sizeof(cmd), "-%s", t);
		snprintf(what, sizeof(what), "trace: unload %s", t);
		ret |= ctl_command("blobs", O_WRONLY, cmd, strlen(cmd), what, NULL);
	}
	if (o->inserted) {
		if (syscall(SYS_delete_module, "inkprobe", O_NONBLOCK)) {
			warnx("trace: rmmod inkprobe: %s", strerror(errno));
			ret = 1;
		}
		o->inserted = false;
	}
	free(o->def);
	o->def = NULL;
	return ret;
}
