// SPDX-License-Identifier: GPL-2.0
/*
 * Build IDs of the running kernel and its modules, from the ELF notes that
 * sysfs shows (build_id.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "util.h"

#define NT_GNU_BUILD_ID_TYPE	3	/* <elf.h>'s NT_GNU_BUILD_ID */
#define NOTES_MAX		(1 << 20)	/* sysfs note files are a few KB */

bool build_id_parse(const char *hex, struct build_id *out)
{
	size_t n = strlen(hex), i;

	if (n < 2 || n % 2 || n / 2 > INKPROBE_BUILD_ID_MAX ||
	    hex[strspn(hex, "0123456789abcdefABCDEF")])
		return false;
	for (i = 0; i < n / 2; i++) {
		unsigned int v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		out->id[i] = (uint8_t)v;
	}
	out->len = (uint32_t)(n / 2);
	return true;
}

void build_id_hex(const struct build_id *b, char out[BUILD_ID_HEX_LEN])
{
	hex_bytes(b->id, b->len < INKPROBE_BUILD_ID_MAX ? b->len : INKPROBE_BUILD_ID_MAX, out);
}

bool build_id_eq(const struct build_id *a, const struct build_id *b)
{
	return a->len == b->len && !memcmp(a->id, b->id, a->len);
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* @v rounded up to a multiple of 4, or SIZE_MAX if that overflows */
static size_t pad4(uint32_t v)
{
	return (size_t)v + 3 < (size_t)v ? SIZE_MAX : ((size_t)v + 3) & ~(size_t)3;
}

int build_id_from_notes(const void *data, size_t len, struct build_id *out, char *why,
			size_t why_len)
{
	const uint8_t *p = data;
	size_t off = 0;

	while (off < len) {
		uint32_t namesz, descsz, type;
		size_t name_room, desc_room;

		if (len - off < 12) {
			snprintf(why, why_len, "a note header cut short at offset %zu", off);
			return -1;
		}
		namesz = get_u32(p + off);
		descsz = get_u32(p + off + 4);
		type = get_u32(p + off + 8);
		off += 12;
		name_room = pad4(namesz);
		desc_room = pad4(descsz);
		if (name_room > len - off || desc_room > len - off - name_room) {
			snprintf(why, why_len, "a note at offset %zu is larger than the notes "
				 "(name %u bytes, descriptor %u bytes)", off - 12, namesz, descsz);
			return -1;
		}
		/* "GNU" and its NUL: the owner of NT_GNU_BUILD_ID */
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(p + off, "GNU", 4)) {
			if (!descsz || descsz > INKPROBE_BUILD_ID_MAX) {
				snprintf(why, why_len, "a build ID of %u bytes (1 to %d supported)",
					 descsz, INKPROBE_BUILD_ID_MAX);
				return -1;
			}
			memcpy(out->id, p + off + name_room, descsz);
			out->len = descsz;
			return 1;
		}
		off += name_room + desc_room;
	}
	return 0;
}

const char *sysfs_root(void)
{
	const char *dir = getenv("INKPROBE_SYSFS_DIR");

	return dir && *dir ? dir : "/sys";
}

/* A sysfs file, whole: 0, or -errno (-EFBIG past NOTES_MAX). */
static int read_notes(const char *path, struct buf *b)
{
	uint8_t chunk[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if (b->len + (size_t)n > NOTES_MAX) {
			err = -EFBIG;
			break;
		}
		buf_add(b, chunk, (size_t)n);
	}
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

/* 1 found, 0 none, -1 unreadable or malformed (@why) */
static int notes_file(const char *path, struct build_id *out, char *why, size_t why_len)
{
	struct buf b = { 0 };
	char sub[200];
	int ret = read_notes(path, &b);

	if (ret) {
		snprintf(why, why_len, "%s: %s", path, strerror(-ret));
		buf_free(&b);
		return -1;
	}
	ret = build_id_from_notes(b.data, b.len, out, sub, sizeof(sub));
	if (ret < 0)
		snprintf(why, why_len, "%s: %s", path, sub);
	buf_free(&b);
	return ret;
}

int build_id_of_kernel(struct build_id *out, char *why, size_t why_len)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/kernel/notes", sysfs_root());
	ret = notes_file(path, out, why, why_len);
	if (!ret)
		snprintf(why, why_len, "%s: no GNU build ID note (a kernel built without "
			 "--build-id)", path);
	return ret == 1 ? 0 : -1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of @dir but . and .., sorted; NULL if it cannot be read. */
static char **list_dir(const char *dir, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t cap = 0;

	*nr = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			*VEC_PUSH(names, *nr, cap) = xstrdup(de->d_name);
	closedir(d);
	if (*nr)
		qsort(names, *nr, sizeof(*names), name_cmp);
	return names ? names : xcalloc(1, sizeof(*names));
}

void free_names(char **names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

int build_id_of_module(const char *name, struct build_id *out, char *why, size_t why_len)
{
	char mod[INKPROBE_TARGET_NAME_LEN], dir[PATH_MAX], path[PATH_MAX + 256];
	char first_err[512] = "";
	char **files;
	size_t nr, i;
	int ret = 0;

	if (!*name || strlen(name) >= sizeof(mod) || strchr(name, '/')) {
		snprintf(why, why_len, "'%s' is not a module name", name);
		return -1;
	}
	for (i = 0; name[i]; i++)
		mod[i] = name[i] == '-' ? '_' : name[i];
	mod[i] = '\0';
	snprintf(dir, sizeof(dir), "%s/module/%s/notes", sysfs_root(), mod);
	files = list_dir(dir, &nr);
	if (!files) {
		int err = errno;

		snprintf(path, sizeof(path), "%s/module/%s", sysfs_root(), mod);
		if (access(path, F_OK))
			snprintf(why, why_len, "module %s is not loaded (no %s)", mod, path);
		else
			snprintf(why, why_len, "module %s has no notes in sysfs (%s: %s): "
				 "built into the kernel?", mod, dir, strerror(err));
		return -1;
	}
	/* the build ID's own section first, then any other note section */
	for (i = 0; i < nr && ret != 1; i++) {
		if (strcmp(files[i], ".note.gnu.build-id"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		ret = notes_file(path, out, first_err, sizeof(first_err));
	}
	for (i = 0; i < nr && ret != 1; i++) {
		char err[512];

		if (!strcmp(files[i], ".note.gnu.build-id"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		ret = notes_file(path, out, err, sizeof(err));
		if (ret < 0 && !*first_err)
			snprintf(first_err, sizeof(first_err), "%s", err);
	}
	free_names(files, nr);
	if (ret == 1)
		return 0;
	if (*first_err)
		snprintf(why, why_len, "%s", first_err);
	else
		snprintf(why, why_len, "module %s: no GNU build ID note in %s", mod, dir);
	return -1;
}

char **loaded_modules(size_t *nr)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	char **names, **out = NULL;
	size_t n, i, cap = 0;

	snprintf(dir, sizeof(dir), "%s/module", sysfs_root());
	names = list_dir(dir, &n);
	*nr = 0;
	if (!names)
		return xcalloc(1, sizeof(*out));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/notes", dir, names[i]);
		if (!access(path, F_OK))
			*VEC_PUSH(out, *nr, cap) = xstrdup(names[i]);
	}
	free_names(names, n);
	return out ? out : xcalloc(1, sizeof(*out));
}
