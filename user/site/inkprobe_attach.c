// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe_site_attach(): a kprobe program at every instance of a
 * definition, each with its spec (inkprobe_attach.h).  The specs come from
 * inkprobe.ko's sites file, where the module writes what it compiled for
 * each instance (module/site_spec.c, ink_fetch_spec()): nothing is decoded
 * twice, and what the module cannot put in a spec reads as "?" here and
 * -INKPROBE_EOPNOTSUPP in the program, never as a wrong value.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "inkprobe_attach.h"

struct inkprobe_site_link {
	int map_fd;
	int n;
	int skipped;
	int specialised;		/* instances attached through a copy */
	int nr_copies;
	struct bpf_object **copies;
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

/*
 * An r event's words after live|off (Documentation/exit-probes.rst):
 * "instance=N", "exit=N" and the exit's kind.  Arguments are NAME=SPEC,
 * whose SPEC is never digits alone.
 */
static bool exit_word(const char *tok)
{
	static const char *const kinds[] = {
		"LAND", "LEAVE", "LEAVE_JCC", "LEAVE_INDIRECT", "RETURN",
	};
	const char *digits = NULL;
	size_t i;

	if (!strncmp(tok, "instance=", 9))
		digits = tok + 9;
	else if (!strncmp(tok, "exit=", 5))
		digits = tok + 5;
	if (digits)
		return *digits && strspn(digits, "0123456789") == strlen(digits);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(tok, kinds[i]))
			return true;
	return false;
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
		if (exit_word(tok))
			continue;
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

/* @v cut to @size bytes and extended as the trace event's field is. */
static __s64 extend(__u64 v, unsigned int size, int is_signed)
{
	unsigned int sh = 64 - 8 * size;

	return is_signed ? (__s64)(v << sh) >> sh : (__s64)((v << sh) >> sh);
}

static int log2_size(unsigned int size)
{
	return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
}

/*
 * How argument @a reads in a copy (enum inkprobe_arg_op), *@off its
 * offset or value: what the spec's steps (uapi/inkprobe_site.h) give, in
 * fewer of them, or INKPROBE_OP_SPEC for the steps themselves.
 */
static int plan_arg(const struct inkprobe_arg_spec *a, __s64 *off)
{
	int has_reg = a->reg != INKPROBE_NO_REG, reads, load;

	*off = 0;
	if (a->kind != INKPROBE_ARG_VALUE || a->nr_reads > INKPROBE_SITE_MAX_READS ||
	    log2_size(a->size) < 0 || (has_reg && a->reg > 15))
		return INKPROBE_OP_SPEC;
	reads = !!a->loc_size + a->nr_reads;
	if (!reads && !has_reg) {
		*off = extend(a->val, a->size, a->is_signed);
		return INKPROBE_OP_CONST;
	}
	if (!reads && a->size == 8) {
		*off = a->val;
		return a->val ? INKPROBE_OP_REG_OFF : INKPROBE_OP_REG;
	}
	if (!reads && a->size == 4 && !a->val)
		return a->is_signed ? INKPROBE_OP_REG_S32 : INKPROBE_OP_REG_U32;
	if (reads != 1)
		return INKPROBE_OP_SPEC;
	/* one read: loc_size bytes at the base, or size bytes at base + field_off[0] */
	load = a->loc_size ? a->loc_size : a->size;
	if (log2_size(load) < 0 || a->size < load ||
	    (a->is_signed && a->size == load && load < 8))
		return INKPROBE_OP_SPEC;	/* the value needs cutting or extending */
	*off = (__s64)((__u64)a->val + (a->loc_size ? 0 : (__u64)(__s64)a->field_off[0]));
	return (has_reg ? INKPROBE_OP_LOAD_REG : INKPROBE_OP_LOAD_ABS) + log2_size(load);
}

void inkprobe_site_plan(const struct inkprobe_site_spec *spec, struct inkprobe_site_const *c)
{
	__u32 i;

	memset(c, 0, sizeof(*c));
	c->spec = *spec;
	c->spec.ip = 0;
	c->spec.in_use = 1;
	for (i = 0; i < spec->nr_args && i < INKPROBE_SITE_MAX_ARGS; i++) {
		const struct inkprobe_arg_spec *a = &spec->args[i];
		int how = plan_arg(a, &c->off[i]);

		c->op[i] = how << 4;
		if (how != INKPROBE_OP_SPEC && how != INKPROBE_OP_CONST && how < INKPROBE_OP_LOAD_ABS)
			c->op[i] |= a->reg;
	}
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n >= e && !strcmp(s + n - e, end);
}

/* Where a copy keeps inkprobe_site_const: its offset in .rodata, or -1. */
static long const_offset(const struct bpf_object *copy)
{
	const struct btf *btf = bpf_object__btf(copy);
	const struct btf_var_secinfo *v;
	const struct btf_type *t;
	int id, i;

	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, id);
	for (i = 0, v = btf_var_secinfos(t); i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);

		if (var && !strcmp(btf__name_by_offset(btf, var->name_off), "inkprobe_site_const"))
			return v->size == sizeof(struct inkprobe_site_const) ? (long)v->offset : -1;
	}
	return -1;
}

/*
 * Map @m of a copy, @orig the loaded object's map of that name: shared,
 * or for read-only data the object's values, with @c at @at in .rodata
 * (*@placed then 1).  0, or -errno with @err.
 */
static int copy_map(struct bpf_map *m, struct bpf_map *orig, const struct inkprobe_site_const *c,
		    long at, int *placed, char *err, size_t errlen)
{
	const char *name = bpf_map__name(m);
	const void *init;
	size_t size;
	char *data;
	int ret;

	if (!orig || bpf_map__type(orig) != bpf_map__type(m)) {
		say(err, errlen, "the object has no map %s: not the copy's ELF?", name);
		return -ENOENT;
	}
	if (!bpf_map__is_internal(m) || !(bpf_map__map_flags(m) & BPF_F_RDONLY_PROG)) {
		ret = bpf_map__reuse_fd(m, bpf_map__fd(orig));
		if (ret)
			say(err, errlen, "sharing map %s with the copy: %s", name, strerror(-ret));
		return ret;
	}
	/* read-only data: the object's (.kconfig is libbpf's to fill) */
	init = bpf_map__initial_value(orig, &size);
	if (!init || ends_with(name, ".kconfig"))
		return 0;
	data = malloc(size);
	if (!data)
		return -ENOMEM;
	memcpy(data, init, size);
	ret = 0;
	if (ends_with(name, ".rodata")) {
		if (at + sizeof(*c) <= size) {
			memcpy(data + at, c, sizeof(*c));
			*placed = 1;
		} else {
			ret = -EINVAL;
		}
	}
	if (!ret)
		ret = bpf_map__set_initial_value(m, data, size);
	free(data);
	if (ret)
		say(err, errlen, "setting %s of the copy: %s", name, strerror(-ret));
	return ret;
}

/*
 * A copy of @obj with only @prog_name, its maps @obj's but the read-only
 * data, and @spec's constants: *@copy, or NULL when the object has no
 * inkprobe_site_const (the cookie path then); 0, or -errno with @err.
 */
static int open_copy(struct bpf_object *obj, const char *prog_name,
		     const struct inkprobe_site_opts *opts, const struct inkprobe_site_spec *spec,
		     struct bpf_object **copy, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = bpf_object__name(obj));
	struct inkprobe_site_const c;
	struct bpf_program *p;
	struct bpf_object *o;
	struct bpf_map *m;
	int ret = 0, found = 0, placed = 0;
	long at;

	*copy = NULL;
	o = opts->obj_path ? bpf_object__open_file(opts->obj_path, &oo) :
		bpf_object__open_mem(opts->obj_buf, opts->obj_buf_sz, &oo);
	if (!o) {
		ret = -errno;
		say(err, errlen, "opening a copy of %s: %s", opts->obj_path ? opts->obj_path :
		    "the object", strerror(-ret));
		return ret;
	}
	bpf_object__for_each_program(p, o) {
		found |= !strcmp(bpf_program__name(p), prog_name);
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), prog_name));
	}
	if (!found) {
		say(err, errlen, "the copy has no program %s: not the object's ELF?", prog_name);
		bpf_object__close(o);
		return -ENOENT;
	}
	at = const_offset(o);
	if (at < 0) {
		bpf_object__close(o);
		return 0;
	}
	inkprobe_site_plan(spec, &c);
	bpf_object__for_each_map(m, o) {
		if (ret)
			break;
		ret = copy_map(m, bpf_object__find_map_by_name(obj, bpf_map__name(m)), &c, at,
			       &placed, err, errlen);
	}
	if (!ret && !placed) {
		say(err, errlen, "the object has no .rodata to hold inkprobe_site_const");
		ret = -ENOENT;
	}
	if (ret) {
		bpf_object__close(o);
		return ret;
	}
	*copy = o;
	return 0;
}

/* Whether two instances read their arguments alike. */
static int same_args(const struct inkprobe_site_spec *a, const struct inkprobe_site_spec *b)
{
	return a->nr_args == b->nr_args &&
	       !memcmp(a->args, b->args, a->nr_args * sizeof(a->args[0]));
}

/*
 * The attachment, by @prog with its spec map @specs, or where @obj is
 * given by a copy for each distinct spec as far as @opts allows.
 */
static struct inkprobe_site_link *attach(struct bpf_object *obj, const struct bpf_program *prog,
					 const struct bpf_map *specs, const char *event,
					 const struct inkprobe_site_opts *opts,
					 char *err, size_t errlen)
{
	struct inkprobe_site_spec *all = NULL, cur, none;
	const struct bpf_program **by = NULL;
	struct inkprobe_site_link *l = NULL;
	int n, off, i, j, ret, max = 0;
	__u32 slot = 0, nslots;

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
	if (obj) {
		max = opts->max_programs ? opts->max_programs : INKPROBE_SITE_MAX_PROGRAMS;
		if (max > 0 && !opts->obj_path && !opts->obj_buf) {
			say(err, errlen, "no ELF to open the copies from (obj_path or obj_buf)");
			errno = EINVAL;
			return NULL;
		}
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
	by = calloc(n, sizeof(*by));
	if (l && max > 0)
		l->copies = calloc(max, sizeof(*l->copies));
	if (!l || !by || (max > 0 && !l->copies)) {
		ret = ENOMEM;
		goto fail;
	}
	l->map_fd = bpf_map__fd(specs);
	/* each instance's program: a copy for each of the first max distinct specs */
	for (i = 0; i < n; i++) {
		struct bpf_object *copy;
		struct bpf_program *p;

		for (j = 0; j < i && !same_args(&all[j], &all[i]); j++)
			;
		by[i] = by[j];
		if (j < i || l->nr_copies >= max)
			continue;
		ret = open_copy(obj, bpf_program__name(prog), opts, &all[i], &copy, err, errlen);
		if (ret) {
			ret = -ret;
			goto fail;
		}
		if (!copy || bpf_object__load(copy)) {
			/*
			 * no inkprobe_site_const in the object, or the kernel
			 * does not take the copy: the cookie path from here on
			 */
			bpf_object__close(copy);
			max = l->nr_copies;
			continue;
		}
		l->copies[l->nr_copies++] = copy;
		p = bpf_object__find_program_by_name(copy, bpf_program__name(prog));
		by[i] = p;
	}
	memset(&none, 0, sizeof(none));
	nslots = bpf_map__max_entries(specs);
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, kopts);
		const struct bpf_program *p = by[i] ? by[i] : prog;

		/* a free slot: one no other attachment uses */
		for (; slot < nslots; slot++)
			if (!bpf_map_lookup_elem(l->map_fd, &slot, &cur) && !cur.in_use)
				break;
		if (slot == nslots) {
			say(err, errlen, "%s: map %s is full (%u sites): define INKPROBE_MAX_SITES",
			    event, bpf_map__name(specs), nslots);
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
		kopts.offset = all[i].ip;
		kopts.bpf_cookie = slot;
		l->site[l->n].link = bpf_program__attach_kprobe_opts(p, NULL, &kopts);
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
			    bpf_program__name(p), (unsigned long long)all[i].ip, strerror(ret));
			goto fail;
		}
		l->specialised += p != prog;
	}
	if (!l->n) {
		say(err, errlen, "%s: the kernel refuses a kprobe at each of its %d live instances (notrace functions?)",
		    event, l->skipped);
		ret = EINVAL;
		goto fail;
	}
	free(by);
	free(all);
	return l;
fail:
	free(by);
	free(all);
	inkprobe_site_detach(l);
	errno = ret;
	return NULL;
}

struct inkprobe_site_link *inkprobe_site_attach(const struct bpf_program *prog,
						const struct bpf_map *specs, const char *event,
						char *err, size_t errlen)
{
	return attach(NULL, prog, specs, event, NULL, err, errlen);
}

struct inkprobe_site_link *inkprobe_site_attach_obj(struct bpf_object *obj,
						    const char *prog_name, const char *event,
						    const struct inkprobe_site_opts *opts,
						    char *err, size_t errlen)
{
	struct inkprobe_site_opts o;
	const struct bpf_program *prog;

	if (!obj || !prog_name || !opts || opts->sz < sizeof(size_t)) {
		say(err, errlen, "no object, program name or options");
		errno = EINVAL;
		return NULL;
	}
	/* options of an older, shorter struct: the rest 0 */
	memset(&o, 0, sizeof(o));
	memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	prog = bpf_object__find_program_by_name(obj, prog_name);
	if (!prog || bpf_program__fd(prog) < 0) {
		say(err, errlen, "%s: no loaded program %s", event ? event : "", prog_name);
		errno = EINVAL;
		return NULL;
	}
	return attach(obj, prog, bpf_object__find_map_by_name(obj, "inkprobe_specs"), event, &o,
		      err, errlen);
}

int inkprobe_site_specialised(const struct inkprobe_site_link *l)
{
	return l ? l->specialised : 0;
}

int inkprobe_site_programs(const struct inkprobe_site_link *l)
{
	return l ? l->nr_copies : 0;
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
	for (i = 0; i < l->nr_copies; i++)
		bpf_object__close(l->copies[i]);
	free(l->copies);
	free(l);
}
