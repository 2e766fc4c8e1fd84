// SPDX-License-Identifier: GPL-2.0
/*
 * Where gen finds what a stripped binary lacks (Documentation/debug-files.rst):
 *
 *   - its DWARF: --debug-file, else by build ID
 *     (SYSROOT/usr/lib/debug/.build-id/xx/yyyy.debug), by .gnu_debuglink
 *     (the binary's directory, its .debug/, SYSROOT/usr/lib/debug/DIR), and
 *     by kernel release as Debian, Ubuntu and Fedora install them
 *     (SYSROOT/usr/lib/debug/lib/modules/K/..., .../boot/vmlinux-K);
 *     a file is taken only with the binary's build ID and DWARF;
 *   - a module's base BTF: the vmlinux BTF of the release in its vermagic,
 *     /sys/kernel/btf/vmlinux when that kernel runs, else a vmlinux of
 *     that release where distributions and build trees keep one.
 *
 * libdwfl then reads the DWARF from the debug file and everything else from
 * the binary (gen_symbols.c), through debug_file_dwfl_find().
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "debug_file.h"
#include "../common/elf_file.h"
#include "gen.h"

/* The candidates looked at, for the message when none fits. */
struct search {
	const char *binary;
	const char *elf;			/* its bytes (decompressed) */
	char binary_real[PATH_MAX];
	const struct elf_file_info *want;	/* the binary's */
	struct buf tried;
	char *found;
};

static void tried(struct search *s, const char *path, const char *why)
{
	char line[PATH_MAX + 160];
	int n = snprintf(line, sizeof(line), "\n  %s%s%s", path, why ? ": " : "", why ?: "");

	buf_add(&s->tried, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static bool same_id(const struct elf_file_info *a, const struct elf_file_info *b)
{
	return a->build_id_len && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* Takes @path if it is the binary's debug file; notes why not otherwise. */
static bool consider(struct search *s, const char *path)
{
	struct elf_file_info info;
	char why[256], real[PATH_MAX], hex[2 * ELF_BUILD_ID_MAX + 1];

	if (s->found)
		return true;
	if (access(path, F_OK)) {
		tried(s, path, NULL);
		return false;
	}
	if (realpath(path, real) && !strcmp(real, s->binary_real))
		return false;	/* a debuglink naming the binary itself */
	if (!elf_file_inspect(path, &info, why, sizeof(why))) {
		tried(s, path, why);
		return false;
	}
	if (!same_id(&info, s->want)) {
		hex_bytes(info.build_id, info.build_id_len, hex);
		snprintf(why, sizeof(why), "build ID %s: another build", *hex ? hex : "(none)");
		tried(s, path, why);
		return false;
	}
	if (!info.has_dwarf) {
		tried(s, path, "the same build, but no DWARF");
		return false;
	}
	s->found = xstrdup(path);
	return true;
}

static char *join(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *p = xmalloc(n);

	snprintf(p, n, "%s%s%s", a, b, c);
	return p;
}

static void consider3(struct search *s, const char *a, const char *b, const char *c)
{
	char *p = join(a, b, c);

	consider(s, p);
	free(p);
}

/* @path inside @sysroot ("" for /): the rest, starting with '/'; else NULL. */
static const char *in_root(const char *path, const char *sysroot)
{
	size_t n = strlen(sysroot);

	if (strncmp(path, sysroot, n) || path[n] != '/')
		return NULL;
	return path + n;
}

static struct search *nftw_search;
static const char *nftw_name;

static int nftw_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t n = strlen(nftw_name);

	if ((flag != FTW_F && flag != FTW_SL) || strncmp(base, nftw_name, n) ||
	    (base[n] && strcmp(base + n, ".debug")))
		return 0;
	return consider(nftw_search, path) ? 1 : 0;
}

/* @name without a compressed module's ".xz", ".zst" or ".gz" (malloc'd). */
static char *uncompressed_name(const char *name)
{
	static const char *const ext[] = { ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t n = strlen(name), i, k;
	char *p = xstrdup(name);

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		k = strlen(ext[i]);
		if (n > k && !strcmp(name + n - k, ext[i]))
			p[n - k + 3] = '\0';	/* keep ".ko" */
	}
	return p;
}

/*
 * Debian's -dbg, Ubuntu's -dbgsym and Fedora's -debuginfo packages keep a
 * module's DWARF under /usr/lib/debug at the module's own path (Fedora adds
 * ".debug"), and vmlinux as boot/vmlinux-K or lib/modules/K/vmlinux.
 */
static void by_release(struct search *s, const char *sysroot)
{
	const char *rest;
	char *rel, *dir;

	if (s->want->type == ET_REL) {
		char *plain = uncompressed_name(s->binary_real);

		rel = gen_module_release(s->elf);
		if (!rel) {
			free(plain);
			return;
		}
		rest = in_root(plain, sysroot);
		dir = join(sysroot, "/usr/lib/debug/lib/modules/", rel);
		if (rest && (!strncmp(rest, "/usr/lib/modules/", 17) ||
			     !strncmp(rest, "/lib/modules/", 13))) {
			rest = strstr(rest, "/modules/") + 8;
			if (!strncmp(rest + 1, rel, strlen(rel)) && rest[1 + strlen(rel)] == '/') {
				rest += 1 + strlen(rel);
				consider3(s, dir, rest, "");
				consider3(s, dir, rest, ".debug");
			}
		}
		/* elsewhere (a copy of the module): by its file name */
		if (!s->found && !access(dir, F_OK)) {
			char *base = strrchr(plain, '/') + 1;

			nftw_search = s;
			nftw_name = base;
			nftw(dir, nftw_visit, 16, FTW_PHYS);
			if (!s->found)
				tried(s, dir, "no file named like the module with its build ID");
		} else if (!s->found) {
			tried(s, dir, NULL);
		}
		free(dir);
		free(plain);
	} else {
		rel = gen_vmlinux_release(s->elf);
		if (!rel)
			return;
		consider3(s, sysroot, "/usr/lib/debug/boot/vmlinux-", rel);
		dir = join(sysroot, "/usr/lib/debug/lib/modules/", rel);
		consider3(s, dir, "/vmlinux", "");
		free(dir);
		consider3(s, sysroot, "/usr/lib/debug/vmlinux-", rel);
	}
	free(rel);
}

static void by_debuglink(struct search *s, const char *sysroot)
{
	const char *name = s->want->debuglink, *rest;
	char *dir = xstrdup(s->binary_real), *debug_dir;

	*strrchr(dir, '/') = '\0';
	consider3(s, dir, "/", name);
	consider3(s, dir, "/.debug/", name);
	rest = in_root(dir, sysroot);
	debug_dir = join(sysroot, "/usr/lib/debug", rest ? rest : dir);
	consider3(s, debug_dir, "/", name);
	free(debug_dir);
	free(dir);
}

static char *root_of(const char *sysroot)
{
	char real[PATH_MAX];

	if (!sysroot || !*sysroot)
		return xstrdup("");
	if (!realpath(sysroot, real))
		die("--sysroot %s: %s", sysroot, strerror(errno));
	if (!strcmp(real, "/"))
		real[0] = '\0';
	return xstrdup(real);
}

char *debug_file_find(const char *binary, const char *elf, const struct elf_file_info *bin,
		      const char *debug_file, const char *sysroot)
{
	char hex[2 * ELF_BUILD_ID_MAX + 1], other[2 * ELF_BUILD_ID_MAX + 1], why[256];
	struct search s = { .binary = binary, .elf = elf, .want = bin };
	struct elf_file_info info;
	char *root, *p;

	hex_bytes(bin->build_id, bin->build_id_len, hex);
	if (debug_file) {
		if (!elf_file_inspect(debug_file, &info, why, sizeof(why)))
			die("--debug-file %s: %s", debug_file, why);
		if (!same_id(&info, bin)) {
			hex_bytes(info.build_id, info.build_id_len, other);
			die("--debug-file %s has build ID %s, but %s has %s: it is the debug file "
			    "of another build", debug_file, *other ? other : "(none)", binary,
			    *hex ? hex : "(none)");
		}
		if (!info.has_dwarf)
			die("--debug-file %s has no DWARF (no .debug_info)", debug_file);
		if (bin->has_dwarf) {
			warnx("%s has DWARF of its own: --debug-file ignored", binary);
			return NULL;
		}
		return xstrdup(debug_file);
	}
	if (bin->has_dwarf)
		return NULL;
	if (!bin->build_id_len)
		die("%s has no DWARF, and no GNU build ID to find its debug file by", binary);
	if (!realpath(binary, s.binary_real))
		die("%s: %s", binary, strerror(errno));
	root = root_of(sysroot);
	p = xmalloc(strlen(root) + sizeof("/usr/lib/debug/.build-id/xx/.debug") + strlen(hex));
	sprintf(p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	consider(&s, p);
	free(p);
	if (bin->debuglink[0])
		by_debuglink(&s, root);
	by_release(&s, root);
	free(root);
	if (!s.found) {
		buf_add_u8(&s.tried, 0);
		die("%s has no DWARF, and no debug file with its build ID %s was found: give it "
		    "with --debug-file (Documentation/debug-files.rst). Looked at:%s", binary, hex,
		    (const char *)s.tried.data);
	}
	buf_free(&s.tried);
	return s.found;
}

static const char *debuginfo_path;

void debug_file_use(const char *path)
{
	debuginfo_path = path;
}

int debug_file_dwfl_find(Dwfl_Module *mod, void **userdata, const char *modname,
			 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			 GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	int fd;

	if (!debuginfo_path) {
		errno = ENOENT;
		return -1;
	}
	fd = open(debuginfo_path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = xstrdup(debuginfo_path);
	return fd;
}

/* A vmlinux of release @rel with BTF: NULL, or why not. */
static const char *vmlinux_of(const char *path, const char *rel, char *why, size_t n)
{
	struct elf_file_info info;
	char *have;

	if (!elf_file_inspect(path, &info, why, n))
		return why;
	if (!info.has_btf)
		return "no .BTF";
	have = gen_vmlinux_release(path);
	if (!have || strcmp(have, rel)) {
		snprintf(why, n, "release %s", have ? have : "unknown");
		free(have);
		return why;
	}
	free(have);
	return NULL;
}

char *base_btf_find(const char *module, const char *sysroot)
{
	static const char *const places[][2] = {
		{ "/usr/lib/debug/boot/vmlinux-", "" },		/* Debian, Ubuntu */
		{ "/usr/lib/debug/lib/modules/", "/vmlinux" },	/* Fedora */
		{ "/lib/modules/", "/build/vmlinux" },		/* a build tree */
		{ "/usr/lib/modules/", "/build/vmlinux" },	/* Arch's headers */
		{ "/boot/vmlinux-", "" },
	};
	struct buf looked = { 0 };
	char *rel = gen_module_release(module), *root, *found = NULL;
	char why[256], line[PATH_MAX + 300];
	struct utsname u;
	size_t i;

	if (!rel)
		die("%s has no vermagic to find its vmlinux BTF by: give it with --base-btf",
		    module);
	root = root_of(sysroot);
	if (!*root && !uname(&u)) {
		if (!strcmp(u.release, rel) && !access("/sys/kernel/btf/vmlinux", R_OK))
			found = xstrdup("/sys/kernel/btf/vmlinux");
		snprintf(line, sizeof(line), "\n  /sys/kernel/btf/vmlinux: %s runs", u.release);
		buf_add(&looked, line, strlen(line));
	}
	for (i = 0; !found && i < sizeof(places) / sizeof(places[0]); i++) {
		char *dir = join(root, places[i][0], rel), *p = join(dir, places[i][1], "");
		const char *bad = NULL;
		int n;

		if (!access(p, F_OK))
			bad = vmlinux_of(p, rel, why, sizeof(why));
		n = snprintf(line, sizeof(line), "\n  %s%s%s", p, bad ? ": " : "", bad ?: "");
		if (!access(p, F_OK) && !bad)
			found = p;
		else
			free(p);
		buf_add(&looked, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		free(dir);
	}
	if (!found) {
		buf_add_u8(&looked, 0);
		die("%s is a module built for %s: no vmlinux BTF of that release found; give it "
		    "with --base-btf (a vmlinux, or /sys/kernel/btf/vmlinux of that build). "
		    "Looked at:%s", module, rel, (const char *)looked.data);
	}
	buf_free(&looked);
	free(root);
	free(rel);
	return found;
}
