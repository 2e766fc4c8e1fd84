// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe_site_attach(): a kprobe program at every instance of a
 * definition, each with its spec (inkprobe_attach.h).  The specs come from
 * inkprobe.ko's sites file, where the module writes what it compiled for
 * each instance (module/fetch.c, ink_fetch_spec()): nothing is decoded
 * twice, and what the module cannot put in a spec reads as "?" here and
 * -INKPROBE_EOPNOTSUPP in the program, never as a wrong value.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "inkprobe_attach.h"

struct inkprobe_site_link {
	int map_fd;
	int n;
	int skipped;
	struct {
		struct bpf_link *link;
		__u32 slot;
	} site[];
};

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* SPEC of NAME=SPEC: "-", "?" or TYPE:[mSIZE@](rREG+-VAL|cVAL)[:+-OFF]... */
static int parse_spec(const char *p, struct inkprobe_arg_spec *a)
{
	unsigned long bits, n;
	char *end;

	memset(a, 0, sizeof(*a));
	a->reg = INKPROBE_NO_REG;
	if (!strcmp(p, "-")) {
		a->kind = INKPROBE_ARG_NONE;
		return 0;
	}
	if (!strcmp(p, "?")) {
		a->kind = INKPROBE_ARG_UNSUPPORTED;
		return 0;
	}
	if (*p != 'u' && *p != 's')
		return -EINVAL;
	a->is_signed = *p == 's';
	bits = strtoul(p + 1, &end, 10);
	if ((bits != 8 && bits != 16 && bits != 32 && bits != 64) || *end != ':')
		return -EINVAL;
	a->size = bits / 8;
	p = end + 1;
	if (*p == 'm') {
		n = strtoul(p + 1, &end, 10);
		if ((n != 1 && n != 2 && n != 4 && n != 8) || *end != '@')
			return -EINVAL;
		a->loc_size = n;
		p = end + 1;
	}
	if (*p == 'r') {
		n = strtoul(p + 1, &end, 10);
		if (n > 15 || (*end != '+' && *end != '-'))
			return -EINVAL;
		a->reg = n;
		p = end;
	} else if (*p != 'c') {
		return -EINVAL;
	} else {
		p++;
	}
	errno = 0;
	a->val = strtoll(p, &end, 10);
	if (end == p || errno)
		return -EINVAL;
	for (p = end; *p == ':'; p = end) {
		if (a->nr_reads == INKPROBE_SITE_MAX_READS || (p[1] != '+' && p[1] != '-'))
			return -EINVAL;
		a->field_off[a->nr_reads++] = strtol(p + 1, &end, 10);
		if (end == p + 1)
			return -EINVAL;
	}
	a->kind = INKPROBE_ARG_VALUE;
	return *p ? -EINVAL : 0;
}

int inkprobe_site_parse(const char *line, char *event, size_t eventlen, int *live,
			struct inkprobe_site_spec *spec)
{
	char *copy = strdup(line), *save = NULL, *w[5], *tok, *eq, *end;
	int i, ret = -EINVAL;

	memset(spec, 0, sizeof(*spec));
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < 5; i++) {
		w[i] = strtok_r(i ? NULL : copy, " \n", &save);
		if (!w[i])
			goto out;
	}
	/* w: GROUP/EVENT INDEX ADDRESS CALLER+0xOFF inlined|out-of-line, then live|off */
	tok = strtok_r(NULL, " \n", &save);
	if (!tok || (strcmp(tok, "live") && strcmp(tok, "off")) || strlen(w[0]) >= eventlen)
		goto out;
	strcpy(event, w[0]);
	*live = !strcmp(tok, "live");
	errno = 0;
	spec->ip = strtoull(w[2], &end, 16);
	if (errno || *end)
		goto out;
	while ((tok = strtok_r(NULL, " \n", &save))) {
		eq = strchr(tok, '=');
		if (!eq || spec->nr_args == INKPROBE_SITE_MAX_ARGS ||
		    parse_spec(eq + 1, &spec->args[spec->nr_args]))
			goto out;
		spec->nr_args++;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* The live instances of @event in the sites file, into *@out; how many, or -errno. */
static int read_sites(const char *event, struct inkprobe_site_spec **out, int *off,
		      char *err, size_t errlen)
{
	struct inkprobe_site_spec spec, *all = NULL, *grown;
	char *line = NULL, name[256];
	size_t cap = 0;
	int n = 0, live, ret;
	FILE *f = fopen(INKPROBE_SITES_FILE, "r");

	*off = 0;
	if (!f) {
		ret = -errno;
		say(err, errlen, "%s: %s (inkprobe.ko not loaded, or debugfs not mounted?)",
		    INKPROBE_SITES_FILE, strerror(errno));
		return ret;
	}
	while (getline(&line, &cap, f) > 0) {
		if (inkprobe_site_parse(line, name, sizeof(name), &live, &spec)) {
			say(err, errlen, "%s: a line not understood: %s", INKPROBE_SITES_FILE, line);
			n = -EINVAL;
			break;
		}
		if (strcmp(name, event))
			continue;
		if (!live) {
			(*off)++;
			continue;
		}
		grown = realloc(all, (n + 1) * sizeof(*all));
		if (!grown) {
			n = -ENOMEM;
			break;
		}
		all = grown;
		all[n++] = spec;
	}
	free(line);
	fclose(f);
	if (n < 0) {
		free(all);
		return n;
	}
	*out = all;
	return n;
}

struct inkprobe_site_link *inkprobe_site_attach(const struct bpf_program *prog,
						const struct bpf_map *specs, const char *event,
						char *err, size_t errlen)
{
	struct inkprobe_site_spec *all = NULL, cur, none;
	struct inkprobe_site_link *l;
	__u32 slot = 0, max;
	int n, off, i, ret;

	if (!prog || !specs || !event) {
		say(err, errlen, "no program, map or event");
		errno = EINVAL;
		return NULL;
	}
	if (bpf_map__value_size(specs) != sizeof(cur) || bpf_map__fd(specs) < 0) {
		say(err, errlen, "map %s is not a loaded inkprobe_specs map", bpf_map__name(specs));
		errno = EINVAL;
		return NULL;
	}
	n = read_sites(event, &all, &off, err, errlen);
	if (n <= 0) {
		if (!n)
			say(err, errlen, off ? "%s: none of its %d instances is live" :
				"%s: no such inkprobe definition", event, off);
		free(all);
		errno = n ? -n : ENOENT;
		return NULL;
	}
	l = calloc(1, sizeof(*l) + n * sizeof(l->site[0]));
	if (!l) {
		free(all);
		errno = ENOMEM;
		return NULL;
	}
	memset(&none, 0, sizeof(none));
	l->map_fd = bpf_map__fd(specs);
	max = bpf_map__max_entries(specs);
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, opts);

		/* a free slot: one no other attachment uses */
		for (; slot < max; slot++)
			if (!bpf_map_lookup_elem(l->map_fd, &slot, &cur) && !cur.in_use)
				break;
		if (slot == max) {
			say(err, errlen, "%s: map %s is full (%u sites): define INKPROBE_MAX_SITES",
			    event, bpf_map__name(specs), max);
			ret = ENOSPC;
			goto fail;
		}
		all[i].in_use = 1;
		if (bpf_map_update_elem(l->map_fd, &slot, &all[i], BPF_ANY)) {
			ret = errno;
			say(err, errlen, "%s: writing its spec: %s", event, strerror(ret));
			goto fail;
		}
		l->site[l->n].slot = slot;
		/* no function name: the offset is the instance's address */
		opts.offset = all[i].ip;
		opts.bpf_cookie = slot;
		l->site[l->n].link = bpf_program__attach_kprobe_opts(prog, NULL, &opts);
		l->n++;
		if (!l->site[l->n - 1].link && errno == EINVAL) {
			/* kprobe_events' rule: no kprobe in a notrace function */
			l->n--;
			bpf_map_update_elem(l->map_fd, &slot, &none, BPF_ANY);
			l->skipped++;
			continue;
		}
		if (!l->site[l->n - 1].link) {
			ret = errno;
			say(err, errlen, "%s: attaching %s at 0x%llx: %s", event,
			    bpf_program__name(prog), (unsigned long long)all[i].ip, strerror(ret));
			goto fail;
		}
	}
	free(all);
	if (!l->n) {
		say(err, errlen, "%s: the kernel refuses a kprobe at each of its %d live instances (notrace functions?)",
		    event, l->skipped);
		ret = EINVAL;
		goto fail_freed;
	}
	return l;
fail:
	free(all);
fail_freed:
	inkprobe_site_detach(l);
	errno = ret;
	return NULL;
}

int inkprobe_site_skipped(const struct inkprobe_site_link *l)
{
	return l ? l->skipped : 0;
}

int inkprobe_site_count(const struct inkprobe_site_link *l)
{
	return l ? l->n : 0;
}

void inkprobe_site_detach(struct inkprobe_site_link *l)
{
	struct inkprobe_site_spec none;
	int i;

	if (!l)
		return;
	memset(&none, 0, sizeof(none));
	for (i = 0; i < l->n; i++) {
		bpf_link__destroy(l->site[i].link);
		bpf_map_update_elem(l->map_fd, &l->site[i].slot, &none, BPF_ANY);
	}
	free(l);
}
