// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe publish: a blob as a file an unmodified debuginfod serves by the
 * target's build ID (Documentation/debuginfod.rst).  The file is a small
 * ELF executable (ET_EXEC, x86-64) with two allocated sections:
 *
 *   .note.gnu.build-id   the target's NT_GNU_BUILD_ID note: the file's build ID
 *   .BTF.inline          the blob, as gen wrote it (compressed or raw)
 *   .shstrtab
 *
 * debuginfod (elfutils 0.188) indexes it as an "executable" of the build ID
 * (ET_EXEC with an allocated PROGBITS section) and not as a "debuginfo" (no
 * .debug_* section, no symbol table), so it never shadows the target's real
 * DWARF in the same index, and answers /buildid/ID/section/.BTF.inline from
 * it: the section query tries every debuginfo of the build ID, then every
 * executable, until one has the section.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/blob_file.h"
#include "../common/build_id.h"
#include "commands.h"
#include "../common/debuginfod.h"
#include "../common/util.h"

static const char publish_usage[] =
	"usage: inkprobe publish [--target ELF] [-o FILE] BLOB\n"
	"\n"
	"Writes BLOB as a file an unmodified debuginfod serves by the target's\n"
	"build ID: an ELF file with the target's build-ID note and the blob as its\n"
	"'" PUBLISH_SECTION "' section.  Put it in a directory 'debuginfod -F' scans;\n"
	"'inkprobe load' fetches it on any machine running that build.\n"
	"\n"
	"  -o, --output FILE   where to write (default: TARGET-BUILDID.inkb.elf)\n"
	"  --target ELF        the vmlinux or module.ko BLOB was generated from:\n"
	"                      refuse BLOB unless their build IDs are the same\n";

/* The build ID of an ELF file, as debuginfod reads it; dies on failure. */
static void elf_build_id(const char *path, struct build_id *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const void *bits;
	ssize_t n;
	Elf *elf;

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		die("%s: not an ELF file", path);
	n = dwelf_elf_gnu_build_id(elf, &bits);
	if (n <= 0)
		die("%s: no GNU build ID", path);
	if (n > INKPROBE_BUILD_ID_MAX)
		die("%s: a build ID of %zd bytes (at most %d supported)", path, n,
		    INKPROBE_BUILD_ID_MAX);
	memcpy(out->id, bits, (size_t)n);
	out->len = (uint32_t)n;
	elf_end(elf);
	close(fd);
}

/* The target of a blob file (compressed or raw); dies on an invalid blob. */
static void blob_target(const char *path, const uint8_t *data, uint32_t len,
			struct blob_target *t)
{
	struct ink_err err = { 0 };
	char why[160];

	switch (blob_peek(data, len, t, why, sizeof(why), &err)) {
	case BLOB_PEEK_BAD_FRAME:
		die("%s: invalid blob: %s", path, why);
	case BLOB_PEEK_BAD_BLOB:
		die("%s: invalid blob: %s (offset %u)", path, err.msg, err.off);
	}
}

static Elf_Scn *add_section(Elf *elf, uint32_t name, uint32_t type, uint64_t flags,
			    uint64_t align, void *buf, size_t size)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		die("libelf: %s", elf_errmsg(-1));
	d->d_buf = buf;
	d->d_size = size;
	d->d_align = align;
	d->d_type = ELF_T_BYTE;
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addralign = align;
	if (!gelf_update_shdr(scn, &sh))
		die("libelf: %s", elf_errmsg(-1));
	return scn;
}

static void write_elf(int fd, const struct build_id *id, uint8_t *blob, uint32_t len)
{
	static char shstrtab[] = "\0.note.gnu.build-id\0" PUBLISH_SECTION "\0.shstrtab";
	const uint32_t n_note = 1, n_blob = n_note + sizeof(".note.gnu.build-id"),
		       n_shstr = n_blob + sizeof(PUBLISH_SECTION);
	uint8_t note[12 + 4 + INKPROBE_BUILD_ID_MAX + 3] = { 0 };
	uint32_t hdr[3] = { 4, id->len, 3 /* NT_GNU_BUILD_ID */ };
	size_t note_len = 12 + 4 + ((id->len + 3) & ~3U);
	Elf_Scn *shstr;
	GElf_Ehdr eh;
	Elf *elf;

	memcpy(note, hdr, sizeof(hdr));
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, id->id, id->len);

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, ELFCLASS64) || !gelf_getehdr(elf, &eh))
		die("libelf: %s", elf_errmsg(-1));
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	add_section(elf, n_note, SHT_NOTE, SHF_ALLOC, 4, note, note_len);
	add_section(elf, n_blob, SHT_PROGBITS, SHF_ALLOC, 8, blob, len);
	shstr = add_section(elf, n_shstr, SHT_STRTAB, 0, 1, shstrtab, sizeof(shstrtab));
	eh.e_shstrndx = (uint16_t)elf_ndxscn(shstr);
	if (!gelf_update_ehdr(elf, &eh) || elf_update(elf, ELF_C_WRITE) < 0)
		die("libelf: %s", elf_errmsg(-1));
	elf_end(elf);
}

int cmd_publish(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "target", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL, *target = NULL, *path;
	char hex[BUILD_ID_HEX_LEN], hex2[BUILD_ID_HEX_LEN];
	char def_out[INKPROBE_TARGET_NAME_LEN + BUILD_ID_HEX_LEN + 16], *tmp, *dir;
	struct blob_target t;
	struct build_id tid;
	uint8_t *data;
	uint32_t len;
	int c, fd;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 't':
			target = optarg;
			break;
		case 'h':
			fputs(publish_usage, stdout);
			return 0;
		default:
			fputs(publish_usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(publish_usage, stderr);
		return 2;
	}
	path = argv[optind];
	data = read_file(path, &len);
	blob_target(path, data, len, &t);
	build_id_hex(&t.id, hex);
	if (target) {
		elf_build_id(target, &tid);
		build_id_hex(&tid, hex2);
		if (!build_id_eq(&t.id, &tid))
			die("%s was generated for build ID %s, %s has build ID %s: "
			    "regenerate it (inkprobe gen -o %s %s)", path, hex, target, hex2,
			    path, target);
	}
	if (!out) {
		snprintf(def_out, sizeof(def_out), "%s-%s.inkb.elf", t.name, hex);
		out = def_out;
	}
	/* written aside, then renamed: a scanning debuginfod never sees half a file */
	tmp = xmalloc(strlen(out) + 16);
	sprintf(tmp, "%s.XXXXXX", out);
	fd = mkstemp(tmp);
	if (fd < 0) {
		dir = xstrdup(out);
		die("%s: %s", dirname(dir), strerror(errno));
	}
	write_elf(fd, &t.id, data, len);
	if (fchmod(fd, 0644) || close(fd) || rename(tmp, out)) {
		int err = errno;

		unlink(tmp);
		die("%s: %s", out, strerror(err));
	}
	printf("%s: %s build-id=%s, %u bytes of blob in %s\n", out, t.name, hex, len,
	       PUBLISH_SECTION);
	free(tmp);
	free(data);
	return 0;
}
