// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files checked before libdwfl and libbpf read them (elf_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_file.h"
#include "util.h"

static bool say(char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool say(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return false;
}

/* What the first bytes of a file say it is, when it is no ELF file. */
static const char *not_elf(const uint8_t *m, size_t len)
{
	if (len >= 6 && !memcmp(m, "\xfd" "7zXZ\0", 6))
		return "compressed with xz: decompress it first (xz -dk)";
	if (len >= 4 && !memcmp(m, "\x28\xb5\x2f\xfd", 4))
		return "compressed with zstd: decompress it first (zstd -d)";
	if (len >= 2 && !memcmp(m, "\x1f\x8b", 2))
		return "compressed with gzip: decompress it first (gzip -dk)";
	if (len < 4 || memcmp(m, ELFMAG, SELFMAG))
		return "not an ELF file";
	return NULL;
}

static void read_notes(Elf_Scn *scn, struct elf_file_info *info)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && d->d_buf && off < d->d_size &&
	       (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) ||
		    !nh.n_descsz || nh.n_descsz > ELF_BUILD_ID_MAX)
			continue;
		memcpy(info->build_id, (const uint8_t *)d->d_buf + desc_off, nh.n_descsz);
		info->build_id_len = nh.n_descsz;
	}
}

static void read_debuglink(Elf_Scn *scn, struct elf_file_info *info)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t len;

	if (!d || !d->d_buf)
		return;
	len = strnlen(d->d_buf, d->d_size);
	if (len && len < d->d_size && len < sizeof(info->debuglink))
		memcpy(info->debuglink, d->d_buf, len + 1);
}

static bool inspect(int fd, uint64_t size, struct elf_file_info *info, char *why, size_t n)
{
	size_t shnum, shstrndx, i;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	bool ok = false;
	Elf *elf;

	if (size < sizeof(Elf64_Ehdr))
		return say(why, n, "truncated: %llu bytes, shorter than an ELF header",
			   (unsigned long long)size);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		say(why, n, "not a valid ELF file (%s)", elf_errmsg(-1));
		goto out;
	}
	if (gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		say(why, n, "not an x86-64 ELF file");
		goto out;
	}
	/* libelf reads the count from section 0 when e_shnum is 0 */
	if (eh.e_shoff && (eh.e_shoff > size || (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) >
					       size - eh.e_shoff || (!eh.e_shnum &&
					       size - eh.e_shoff < sizeof(Elf64_Shdr)))) {
		say(why, n, "truncated: its section headers end past the end of the file "
		    "(%llu bytes)", (unsigned long long)size);
		goto out;
	}
	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx) || !shnum) {
		say(why, n, "no section headers (%s)", elf_errmsg(-1));
		goto out;
	}
	if (eh.e_shoff > size || shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr)) {
		say(why, n, "truncated: its section headers end past the end of the file "
		    "(%llu bytes)", (unsigned long long)size);
		goto out;
	}
	/* every section's bytes inside the file, before any name is read */
	for (i = 1; i < shnum; i++) {
		scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &sh)) {
			say(why, n, "section %zu unreadable (%s)", i, elf_errmsg(-1));
			goto out;
		}
		if (sh.sh_type != SHT_NOBITS && sh.sh_size &&
		    (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)) {
			say(why, n, "truncated: section %zu ends at byte %llu, past the end of "
			    "the file (%llu bytes)", i,
			    (unsigned long long)(sh.sh_offset + sh.sh_size),
			    (unsigned long long)size);
			goto out;
		}
	}
	if (shstrndx >= shnum) {
		say(why, n, "no section names");
		goto out;
	}
	info->type = eh.e_type;
	for (i = 1; i < shnum; i++) {
		const char *name;
		bool bytes;

		scn = elf_getscn(elf, i);
		gelf_getshdr(scn, &sh);
		name = elf_strptr(elf, shstrndx, sh.sh_name) ?: "";
		bytes = sh.sh_type != SHT_NOBITS && sh.sh_size;
		if (sh.sh_type == SHT_SYMTAB)
			info->has_symtab = true;
		if (sh.sh_type == SHT_NOTE && bytes)
			read_notes(scn, info);
		if (!strcmp(name, ".gnu_debuglink") && bytes)
			read_debuglink(scn, info);
		if ((!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")) && bytes)
			info->has_dwarf = true;
		if (!strcmp(name, ".BTF") && bytes)
			info->has_btf = true;
		if (!strcmp(name, ".BTF.base") && bytes)
			info->has_btf_base = true;
		/* code is never NOBITS, except in an only-keep-debug file */
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_NOBITS && sh.sh_size)
			info->only_keep_debug = true;
		if ((sh.sh_flags & SHF_EXECINSTR) && bytes)
			info->has_code = true;
	}
	ok = true;
out:
	if (elf)
		elf_end(elf);
	return ok;
}

bool elf_file_inspect(const char *path, struct elf_file_info *info, char *why, size_t n)
{
	uint8_t magic[8];
	struct stat st;
	const char *what;
	ssize_t got;
	bool ok;
	int fd;

	memset(info, 0, sizeof(*info));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return say(why, n, "%s", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return say(why, n, "not a regular file");
	}
	got = pread(fd, magic, sizeof(magic), 0);
	if (got <= 0) {
		close(fd);
		if (!got)
			return say(why, n, "an empty file");
		return say(why, n, "%s", strerror(errno));
	}
	what = not_elf(magic, (size_t)got);
	if (what) {
		close(fd);
		return say(why, n, "%s", what);
	}
	ok = inspect(fd, (uint64_t)st.st_size, info, why, n);
	close(fd);
	return ok;
}

void btf_file_check(const char *path, const char *what)
{
	struct elf_file_info info;
	uint8_t magic[4] = { 0 };
	char why[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		die("%s %s: %s", what, path, strerror(errno));
	got = read(fd, magic, sizeof(magic));
	close(fd);
	if (got >= 2 && magic[0] == 0x9f && magic[1] == 0xeb)
		return;		/* raw BTF: libbpf checks its header against its size */
	if (!elf_file_inspect(path, &info, why, sizeof(why)))
		die("%s %s: %s", what, path, why);
	if (info.has_btf)
		return;
	if (info.only_keep_debug)
		die("%s %s is an only-keep-debug file, whose .BTF is empty: give the stripped "
		    "binary (or /sys/kernel/btf/...)", what, path);
	die("%s %s: no .BTF section (a kernel built without CONFIG_DEBUG_INFO_BTF?)", what,
	    path);
}
