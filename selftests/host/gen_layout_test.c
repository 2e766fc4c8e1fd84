// SPDX-License-Identifier: GPL-2.0
/*
 * gen on the debug layouts distributions use (issue 13: 3), on the first
 * test kernel's Debian files: its -dbg ext4.ko and nf_conntrack.ko (full,
 * with DWARF; scripts/setup --dbg), the stripped copies linux-image ships,
 * the -dbg vmlinux and the vmlinux extracted from vmlinuz (no symbols, no
 * DWARF).  Whatever the layout, the blob must be byte for byte the one gen
 * writes from the full file:
 *
 *   - an only-keep-debug file and a stripped binary (objcopy, strip), found
 *     by .gnu_debuglink (next to it, in .debug/, under /usr/lib/debug/DIR),
 *     by build ID (/usr/lib/debug/.build-id/xx/yyyy.debug, under --sysroot),
 *     or given with --debug-file;
 *   - Debian's own layout: the stripped module of linux-image and the -dbg
 *     module at /usr/lib/debug/lib/modules/K/..., the base BTF found by
 *     release (/usr/lib/debug/boot/vmlinux-K); the same for vmlinux;
 *   - a debug file of another build is refused, whichever way it is found,
 *     and so is a base BTF of another release;
 *   - compressed modules (.ko.xz, .ko.zst, .ko.gz), alone and in Debian's
 *     layout, give the same blob; cut and corrupt streams are refused;
 *   - malformed files (truncated, only-keep-debug alone, no symbol table,
 *     not ELF) get an error, never a crash: the tool runs with ASan and
 *     UBSan.
 */
#include <elf.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "host_test.h"

#define PATH	1024

static char work[512];		/* build/check/layout */

static const char *top(void)
{
	return host_env("INKPROBE_TOP", ".");
}

static const char *kdir(void)
{
	static char d[512];

	snprintf(d, sizeof(d), "%s/kernels/%s",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), host_kernel());
	return d;
}

static const char *release(void)
{
	static char rel[128];
	char path[PATH];
	FILE *f;

	snprintf(path, sizeof(path), "%s/release", kdir());
	f = fopen(path, "r");
	if (!f || !fgets(rel, sizeof(rel), f))
		snprintf(rel, sizeof(rel), "(unknown release)");
	if (f)
		fclose(f);
	rel[strcspn(rel, "\n")] = '\0';
	return rel;
}

/* A path under the cache's kernel directory, or the work directory. */
static const char *in_kdir(const char *rest)
{
	static char p[4][PATH];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], PATH, "%s/%s", kdir(), rest);
	return p[i];
}

static const char *in_work(const char *rest)
{
	static char p[8][PATH];
	static int i;

	i = (i + 1) % 8;
	snprintf(p[i], PATH, "%s/%s", work, rest);
	return p[i];
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	struct host_run r;
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (host_run(&r, "%s", cmd))
		fprintf(stderr, "# %s: %s%s\n", cmd, r.out, r.err);
	return r.status;
}

/* inkprobe-san gen ARGS (a format); its status, output in @r. */
static int gen(struct host_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int gen(struct host_run *r, const char *fmt, ...)
{
	char args[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return host_run(r, "%s/build/inkprobe-san gen %s", top(), args);
}

static bool same_file(const char *a, const char *b)
{
	return !sh("cmp '%s' '%s'", a, b);
}

/* The GNU build ID of @path as readelf prints it (not gen's reader). */
static const char *readelf_build_id(const char *path)
{
	static char id[2][128];
	static int i;
	struct host_run r;
	const char *p;

	i = !i;
	id[i][0] = '\0';
	if (strlen(path) > 3 && !strcmp(path + strlen(path) - 3, ".xz"))
		host_run(&r, "xz -dc '%s' >'%s' && readelf -n '%s'", path, in_work("unxz.ko"),
			 in_work("unxz.ko"));
	else
		host_run(&r, "readelf -n '%s'", path);
	p = strstr(r.out, "Build ID: ");
	if (p)
		snprintf(id[i], sizeof(id[i]), "%.*s", (int)strcspn(p + 10, " \n"), p + 10);
	return id[i];
}

/* Debian's stripped @mod.ko of linux-image, as it ships it (.ko, or .ko.xz since 6.12). */
static const char *debian_module(const char *dir, const char *mod)
{
	static char path[2][PATH];
	static int i;
	struct stat st;

	i = !i;
	snprintf(path[i], PATH, "%s/root/lib/modules/%s/kernel/%s/%s.ko", kdir(), release(), dir,
		 mod);
	if (stat(path[i], &st))
		strcat(path[i], ".xz");
	return path[i];
}

static const char *vmlinux(void)
{
	return in_kdir("build/vmlinux");
}

/* gen's blob of the full file @full (on the extracted vmlinux's BTF), made once. */
static const char *reference(const char *name, const char *full)
{
	static char path[2][PATH];
	static int i;
	struct host_run r;
	struct stat st;

	i = !i;
	snprintf(path[i], PATH, "%s/ref-%s.inkb", work, name);
	if (stat(path[i], &st) && gen(&r, "--base-btf %s -o %s %s", vmlinux(), path[i], full))
		fprintf(stderr, "# reference for %s: %s\n", full, r.err);
	return path[i];
}

/* An only-keep-debug file and a stripped binary of @full, with a debuglink if @link. */
static int split(const char *full, const char *debug, const char *stripped, bool link)
{
	if (sh("objcopy --only-keep-debug '%s' '%s' && strip --strip-debug -o '%s' '%s'",
	       full, debug, stripped, full))
		return -1;
	return link ? sh("objcopy --add-gnu-debuglink='%s' '%s'", debug, stripped) : 0;
}

FIXTURE(layout) {
	char ext4[PATH], nf[PATH], target[PATH];
	char ext4_ref[PATH], nf_ref[PATH], target_ref[PATH];
};

FIXTURE_SETUP(layout)
{
	struct stat st;

	snprintf(self->ext4, PATH, "%s", in_kdir("dbg-modules/ext4.ko"));
	snprintf(self->nf, PATH, "%s", in_kdir("dbg-modules/nf_conntrack.ko"));
	snprintf(self->target, PATH, "%s/build/%s/kmod/inkprobe_target.ko", top(), host_kernel());
	ASSERT_EQ(0, stat(self->ext4, &st)) TH_LOG("%s: run scripts/setup --dbg", self->ext4);
	ASSERT_EQ(0, stat(self->nf, &st));
	ASSERT_EQ(0, stat(self->target, &st));
	snprintf(self->ext4_ref, PATH, "%s", reference("ext4", self->ext4));
	snprintf(self->nf_ref, PATH, "%s", reference("nf_conntrack", self->nf));
	snprintf(self->target_ref, PATH, "%s", reference("target", self->target));
	ASSERT_EQ(0, stat(self->ext4_ref, &st));
	ASSERT_EQ(0, stat(self->nf_ref, &st));
	ASSERT_EQ(0, stat(self->target_ref, &st));
}

FIXTURE_TEARDOWN(layout)
{
}

TEST_F_TIMEOUT(layout, debuglink_next_to_it_in_dot_debug_and_under_usr_lib_debug, 300)
{
	const char *dir = in_work("link"), *ko = in_work("link/ext4.ko");
	struct host_run r;

	ASSERT_EQ(0, sh("rm -rf '%s' && mkdir -p '%s/.debug'", dir, dir));
	/* the debuglink holds the file name only */
	ASSERT_EQ(0, sh("cd '%s' && objcopy --only-keep-debug '%s' ext4.debug && strip "
			"--strip-debug -o ext4.ko '%s' && objcopy --add-gnu-debuglink=ext4.debug "
			"ext4.ko", dir, self->ext4, self->ext4));
	ASSERT_EQ(0, gen(&r, "--base-btf %s -o %s/a.inkb %s", vmlinux(), dir, ko)) TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->ext4_ref, in_work("link/a.inkb")));
	EXPECT_NE(NULL, strstr(r.err, "DWARF from ")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "link/ext4.debug"));
	/* in .debug/ */
	ASSERT_EQ(0, sh("mv '%s/ext4.debug' '%s/.debug/'", dir, dir));
	ASSERT_EQ(0, gen(&r, "--base-btf %s -o %s/b.inkb %s", vmlinux(), dir, ko)) TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->ext4_ref, in_work("link/b.inkb")));
	EXPECT_NE(NULL, strstr(r.err, "link/.debug/ext4.debug"));
	/* under SYSROOT/usr/lib/debug/DIR, DIR the binary's in the sysroot */
	ASSERT_EQ(0, sh("mkdir -p '%s/root/opt/m' '%s/root/usr/lib/debug/opt/m' && "
			"mv '%s/.debug/ext4.debug' '%s/root/usr/lib/debug/opt/m/' && "
			"mv '%s' '%s/root/opt/m/'", dir, dir, dir, dir, ko, dir));
	ASSERT_EQ(0, gen(&r, "--sysroot %s/root --base-btf %s -o %s/c.inkb %s/root/opt/m/ext4.ko",
			 dir, vmlinux(), dir, dir)) TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->ext4_ref, in_work("link/c.inkb")));
	EXPECT_NE(NULL, strstr(r.err, "root/usr/lib/debug/opt/m/ext4.debug"));
	/* without the sysroot it is not found, and gen says where it looked */
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s/d.inkb %s/root/opt/m/ext4.ko", vmlinux(), dir,
			 dir));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "no debug file with its build ID")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, readelf_build_id(self->ext4)));
	EXPECT_NE(NULL, strstr(r.err, "/root/opt/m/.debug/ext4.debug"));
}

TEST_F_TIMEOUT(layout, debug_file_option, 300)
{
	struct host_run r;

	ASSERT_EQ(0, split(self->nf, in_work("opt-nf.debug"), in_work("opt-nf.ko"), false));
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("opt-nf.inkb"),
			 in_work("opt-nf.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "give it with --debug-file")) TH_LOG("%s", r.err);
	ASSERT_EQ(0, gen(&r, "--debug-file %s --base-btf %s -o %s %s", in_work("opt-nf.debug"),
			 vmlinux(), in_work("opt-nf.inkb"), in_work("opt-nf.ko"))) TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->nf_ref, in_work("opt-nf.inkb")));
	/* the full file works as the debug file too */
	ASSERT_EQ(0, gen(&r, "--debug-file %s --base-btf %s -o %s %s", self->nf, vmlinux(),
			 in_work("opt-nf2.inkb"), in_work("opt-nf.ko"))) TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->nf_ref, in_work("opt-nf2.inkb")));
}

TEST_F_TIMEOUT(layout, build_id_tree_under_sysroot, 300)
{
	const char *id = readelf_build_id(self->ext4);
	char dir[PATH];
	struct host_run r;

	ASSERT_EQ(40, strlen(id)) TH_LOG("readelf: '%s'", id);
	snprintf(dir, sizeof(dir), "%s/usr/lib/debug/.build-id/%.2s", in_work("bid"), id);
	ASSERT_EQ(0, sh("rm -rf '%s' && mkdir -p '%s'", in_work("bid"), dir));
	ASSERT_EQ(0, split(self->ext4, in_work("bid/x.debug"), in_work("bid/ext4.ko"), false));
	ASSERT_EQ(0, sh("mv '%s' '%s/%s.debug'", in_work("bid/x.debug"), dir, id + 2));
	ASSERT_EQ(0, gen(&r, "--sysroot %s --base-btf %s -o %s %s", in_work("bid"), vmlinux(),
			 in_work("bid/a.inkb"), in_work("bid/ext4.ko"))) TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->ext4_ref, in_work("bid/a.inkb")));
	EXPECT_NE(NULL, strstr(r.err, ".build-id/")) TH_LOG("%s", r.err);
	/* the same path holding another build's file: refused */
	ASSERT_EQ(0, split(self->nf, in_work("bid/nf.debug"), in_work("bid/nf.ko"), false));
	ASSERT_EQ(0, sh("mv '%s' '%s/%s.debug'", in_work("bid/nf.debug"), dir, id + 2));
	EXPECT_EQ(1, gen(&r, "--sysroot %s --base-btf %s -o %s %s", in_work("bid"), vmlinux(),
			 in_work("bid/b.inkb"), in_work("bid/ext4.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "another build")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, readelf_build_id(self->nf)));
}

/*
 * SYSROOT laid out as Debian installs linux-image-K and linux-image-K-dbg,
 * the module uncompressed (6.12 and sid ship .ko.xz: compressed_modules_*).
 */
static int debian_root(const char *root, const char *dir, const char *mod, const char *dbg,
		       const char *other_vmlinux)
{
	return sh("rm -rf '%s' && mkdir -p '%s/lib/modules/%s/kernel/%s' "
		  "'%s/usr/lib/debug/lib/modules/%s/kernel/%s' '%s/usr/lib/debug/boot' && "
		  "xz -dcf '%s' >'%s/lib/modules/%s/kernel/%s/%s.ko' && "
		  "ln -s '%s' '%s/usr/lib/debug/lib/modules/%s/kernel/%s/' && "
		  "ln -s '%s' '%s/usr/lib/debug/boot/vmlinux-%s'",
		  root, root, release(), dir, root, release(), dir, root,
		  debian_module(dir, mod), root, release(), dir, mod,
		  dbg, root, release(), dir,
		  other_vmlinux ? other_vmlinux : in_kdir("vmlinux-dbg"), root, release());
}

TEST_F_TIMEOUT(layout, debian_dbg_layout_modules, 300)
{
	static const struct { const char *dir, *mod; } mods[] = {
		{ "fs/ext4", "ext4" }, { "net/netfilter", "nf_conntrack" },
	};
	const char *root = in_work("debian");
	char ko[PATH];
	struct host_run r;
	int i;

	for (i = 0; i < 2; i++) {
		const char *dbg = i ? self->nf : self->ext4, *ref = i ? self->nf_ref : self->ext4_ref;

		/* Debian's stripped module and its -dbg module: the same build */
		EXPECT_STREQ(readelf_build_id(dbg),
			     readelf_build_id(debian_module(mods[i].dir, mods[i].mod)));
		ASSERT_EQ(0, debian_root(root, mods[i].dir, mods[i].mod, dbg, NULL));
		snprintf(ko, sizeof(ko), "%s/lib/modules/%s/kernel/%s/%s.ko", root, release(),
			 mods[i].dir, mods[i].mod);
		/* no --debug-file, no --base-btf: both found by release */
		ASSERT_EQ(0, gen(&r, "--sysroot %s -o %s %s", root, in_work("deb.inkb"), ko))
			TH_LOG("%s", r.err);
		EXPECT_TRUE(same_file(ref, in_work("deb.inkb"))) TH_LOG("%s", mods[i].mod);
		EXPECT_NE(NULL, strstr(r.err, "/usr/lib/debug/lib/modules/")) TH_LOG("%s", r.err);
		EXPECT_NE(NULL, strstr(r.err, "base BTF ")) TH_LOG("%s", r.err);
		EXPECT_NE(NULL, strstr(r.err, "/usr/lib/debug/boot/vmlinux-"));
		/* the same module outside the sysroot: found by its name */
		ASSERT_EQ(0, gen(&r, "--sysroot %s -o %s %s", root, in_work("deb2.inkb"),
				 debian_module(mods[i].dir, mods[i].mod))) TH_LOG("%s", r.err);
		EXPECT_TRUE(same_file(ref, in_work("deb2.inkb"))) TH_LOG("%s", mods[i].mod);
	}
}

TEST_F_TIMEOUT(layout, base_btf_of_another_release_refused, 300)
{
	const char *k = host_kernel(), *o = strcmp(k, "6.1") ? "6.1" : "6.12";
	const char *root = in_work("other");
	char other[PATH], ko[PATH];
	struct host_run r;

	snprintf(other, sizeof(other), "%s/kernels/%s/build/vmlinux",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), o);
	ASSERT_EQ(0, debian_root(root, "fs/ext4", "ext4", self->ext4, other));
	snprintf(ko, sizeof(ko), "%s/lib/modules/%s/kernel/fs/ext4/ext4.ko", root, release());
	EXPECT_EQ(1, gen(&r, "--sysroot %s -o %s %s", root, in_work("other.inkb"), ko));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "no vmlinux BTF of that release found")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "/usr/lib/debug/boot/vmlinux-")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, ": release ")) TH_LOG("%s", r.err);
	/* and given, the module's release and the vmlinux's differ */
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", other, in_work("other.inkb"), self->ext4));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "was built for")) TH_LOG("%s", r.err);
}

TEST_F_TIMEOUT(layout, debian_dbg_layout_vmlinux, 300)
{
	const char *root = in_work("debian-vmlinux");
	char blob[PATH];
	struct host_run r;
	struct stat st;

	/* the extracted vmlinux: the same build, no symbols, no DWARF */
	EXPECT_STREQ(readelf_build_id(in_kdir("vmlinux-dbg")), readelf_build_id(vmlinux()));
	ASSERT_EQ(0, debian_root(root, "fs/ext4", "ext4", self->ext4, NULL));
	/* what scripts/check generated from vmlinux-dbg */
	snprintf(blob, sizeof(blob), "%s/build/%s/blobs/vmlinux.inkb", top(), host_kernel());
	ASSERT_EQ(0, stat(blob, &st)) TH_LOG("%s: run by scripts/check", blob);
	ASSERT_EQ(0, gen(&r, "--sysroot %s -o %s %s", root, in_work("vmlinux.inkb"), vmlinux()))
		TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(blob, in_work("vmlinux.inkb")));
	EXPECT_NE(NULL, strstr(r.err, "/usr/lib/debug/boot/vmlinux-")) TH_LOG("%s", r.err);
}

TEST_F_TIMEOUT(layout, target_module_pair, 300)
{
	struct host_run r;

	ASSERT_EQ(0, split(self->target, in_work("tgt.debug"), in_work("tgt.ko"), true));
	ASSERT_EQ(0, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("tgt.inkb"),
			 in_work("tgt.ko"))) TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->target_ref, in_work("tgt.inkb")));
	/* and the one scripts/check generated */
	EXPECT_EQ(0, sh("cmp '%s' '%s/build/%s/blobs/inkprobe_target.inkb'", in_work("tgt.inkb"),
			top(), host_kernel()));
}

TEST_F_TIMEOUT(layout, debug_file_of_another_build_refused, 300)
{
	char bin_id[128], other_id[128];
	struct host_run r;

	ASSERT_EQ(0, split(self->ext4, in_work("mis-ext4.debug"), in_work("mis-ext4.ko"), false));
	ASSERT_EQ(0, split(self->target, in_work("mis-tgt.debug"), in_work("mis-tgt.ko"), false));
	snprintf(bin_id, sizeof(bin_id), "%s", readelf_build_id(in_work("mis-ext4.ko")));
	snprintf(other_id, sizeof(other_id), "%s", readelf_build_id(in_work("mis-tgt.debug")));
	ASSERT_STRNE(bin_id, other_id);
	EXPECT_EQ(1, gen(&r, "--debug-file %s --base-btf %s -o %s %s", in_work("mis-tgt.debug"),
			 vmlinux(), in_work("mis.inkb"), in_work("mis-ext4.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "it is the debug file of another build")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, bin_id));
	EXPECT_NE(NULL, strstr(r.err, other_id));
	/* a debuglink to a file of that name from another build */
	ASSERT_EQ(0, sh("cd '%s' && cp mis-tgt.debug ext4-l.debug && cp mis-ext4.ko ext4-l.ko && "
			"objcopy --add-gnu-debuglink=ext4-l.debug ext4-l.ko", work));
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("mis.inkb"),
			 in_work("ext4-l.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "ext4-l.debug: build ID ")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "another build"));
	/* a debug file without DWARF: the stripped binary itself */
	EXPECT_EQ(1, gen(&r, "--debug-file %s --base-btf %s -o %s %s", in_work("mis-ext4.ko"),
			 vmlinux(), in_work("mis.inkb"), in_work("ext4-l.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "has no DWARF")) TH_LOG("%s", r.err);
}

enum patch { PAST_END, NO_SYMTAB, NO_CODE };

/*
 * A copy of @from whose first code section starts at the end of the file
 * (PAST_END), whose SHT_SYMTAB is turned into SHT_PROGBITS (NO_SYMTAB), or
 * whose code sections are no longer executable (NO_CODE).
 */
static int patched(const char *from, const char *to, enum patch how)
{
	struct stat st;

	Elf64_Ehdr eh;
	Elf64_Shdr shdr;
	FILE *f;
	int i, n = 0;

	if (sh("cp '%s' '%s'", from, to) || stat(to, &st))
		return -1;
	f = fopen(to, "r+b");
	if (!f || fread(&eh, sizeof(eh), 1, f) != 1)
		return -1;
	for (i = 0; i < eh.e_shnum && (how == NO_CODE || !n); i++) {
		long at = (long)(eh.e_shoff + (uint64_t)i * eh.e_shentsize);

		if (fseek(f, at, SEEK_SET) || fread(&shdr, sizeof(shdr), 1, f) != 1)
			return -1;
		if (how == PAST_END && shdr.sh_type == SHT_PROGBITS &&
		    (shdr.sh_flags & SHF_EXECINSTR))
			shdr.sh_offset = (uint64_t)st.st_size;
		else if (how == NO_SYMTAB && shdr.sh_type == SHT_SYMTAB)
			shdr.sh_type = SHT_PROGBITS;
		else if (how == NO_CODE && (shdr.sh_flags & SHF_EXECINSTR))
			shdr.sh_flags &= ~(uint64_t)SHF_EXECINSTR;
		else
			continue;
		if (fseek(f, at, SEEK_SET) || fwrite(&shdr, sizeof(shdr), 1, f) != 1)
			return -1;
		n++;
	}
	return fclose(f) || !n || (how != NO_CODE && n != 1) ? -1 : 0;
}

TEST_F_TIMEOUT(layout, malformed_files_refused_not_crashed, 300)
{
	static const char *const truncated = "truncated: ";
	struct host_run r;
	struct stat st;
	long sizes[5];
	int i;

	ASSERT_EQ(0, stat(self->target, &st));
	sizes[0] = 10;
	sizes[1] = 64;
	sizes[2] = 1000;
	sizes[3] = st.st_size / 2;
	sizes[4] = st.st_size - 1;
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, sh("head -c %ld '%s' > '%s'", sizes[i], self->target, in_work("tr.ko")));
		EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("x.inkb"),
				 in_work("tr.ko")));
		EXPECT_TRUE(host_clean_refusal(&r)) TH_LOG("%ld bytes: %s", sizes[i], r.err);
		EXPECT_NE(NULL, strstr(r.err, truncated)) TH_LOG("%ld bytes: %s", sizes[i], r.err);
		/* as a debug file, and as a base BTF */
		EXPECT_EQ(1, gen(&r, "--debug-file %s --base-btf %s -o %s %s", in_work("tr.ko"),
				 vmlinux(), in_work("x.inkb"), self->target));
		EXPECT_TRUE(host_clean_refusal(&r)) TH_LOG("%s", r.err);
		EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", in_work("tr.ko"), in_work("x.inkb"),
				 self->target));
		EXPECT_TRUE(host_clean_refusal(&r)) TH_LOG("%s", r.err);
	}
	/* a section's bytes past the end of the file, the headers intact */
	ASSERT_EQ(0, patched(self->target, in_work("past.ko"), PAST_END));
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("x.inkb"),
			 in_work("past.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "truncated: section ")) TH_LOG("%s", r.err);
	ASSERT_EQ(0, split(self->target, in_work("okd.debug"), in_work("okd.ko"), false));
	/* an only-keep-debug file alone: a module's, and a vmlinux's */
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("x.inkb"),
			 in_work("okd.debug")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "is an only-keep-debug file")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "pass the stripped binary, and this file with --debug-file"));
	ASSERT_EQ(0, sh("objcopy --only-keep-debug '%s' '%s'", vmlinux(), in_work("vmlinux.okd")));
	EXPECT_EQ(1, gen(&r, "-o %s %s", in_work("x.inkb"), in_work("vmlinux.okd")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "is an only-keep-debug file")) TH_LOG("%s", r.err);
	/* its .BTF has no bytes: as a base BTF, for gen and dump */
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", in_work("vmlinux.okd"), in_work("x.inkb"),
			 self->target));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "whose .BTF is empty")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, host_run(&r, "%s/build/inkprobe-san dump --base-btf %s %s", top(),
			      in_work("vmlinux.okd"), self->target_ref));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "whose .BTF is empty")) TH_LOG("%s", r.err);
	/* no symbol table */
	ASSERT_EQ(0, patched(self->target, in_work("nosym.ko"), NO_SYMTAB));
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("x.inkb"),
			 in_work("nosym.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "no symbol table")) TH_LOG("%s", r.err);
	/* not ELF, empty */
	ASSERT_EQ(0, sh("echo hello > '%s' && : > '%s'", in_work("text.ko"), in_work("empty.ko")));
	EXPECT_EQ(1, gen(&r, "--base-btf %s %s", vmlinux(), in_work("text.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "not an ELF file")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, gen(&r, "--base-btf %s %s", vmlinux(), in_work("empty.ko")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "an empty file")) TH_LOG("%s", r.err);
}

/*
 * Compressed modules, as distributions ship them: Debian's stripped ext4
 * (and the target) compressed with xz, zstd and gzip give the blob of the
 * full file; a cut stream, a corrupt one and one that holds no ELF file
 * are refused, naming the file.
 */
TEST_F_TIMEOUT(layout, compressed_modules_xz_zstd_gzip, 300)
{
	static const char *const how[] = { "xz", "zst", "gz" };
	static const char *const tool[] = { "xz -c", "zstd -q -c", "gzip -c" };
	const char *stripped = debian_module("fs/ext4", "ext4");
	struct host_run r;
	char ko[PATH];
	int i;

	ASSERT_EQ(0, sh("%s '%s' > '%s'", strstr(stripped, ".xz") ? "xz -dc" : "cat", stripped,
			in_work("ext4-plain.ko")));
	for (i = 0; i < 3; i++) {
		snprintf(ko, sizeof(ko), "%s/ext4.ko.%s", work, how[i]);
		ASSERT_EQ(0, sh("%s '%s' > '%s'", tool[i], in_work("ext4-plain.ko"), ko));
		ASSERT_EQ(0, gen(&r, "--base-btf %s --debug-file %s -o %s %s", vmlinux(), self->ext4,
				 in_work("z.inkb"), ko)) TH_LOG("%s: %s", how[i], r.err);
		EXPECT_TRUE(same_file(self->ext4_ref, in_work("z.inkb"))) TH_LOG("%s", how[i]);
		/* messages name the file given */
		EXPECT_NE(NULL, strstr(r.err, ko)) TH_LOG("%s", r.err);
		/* the target, whose DWARF is its own */
		snprintf(ko, sizeof(ko), "%s/target.ko.%s", work, how[i]);
		ASSERT_EQ(0, sh("%s '%s' > '%s'", tool[i], self->target, ko));
		ASSERT_EQ(0, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("z.inkb"), ko))
			TH_LOG("%s: %s", how[i], r.err);
		EXPECT_TRUE(same_file(self->target_ref, in_work("z.inkb"))) TH_LOG("%s", how[i]);
		/* cut in the middle */
		ASSERT_EQ(0, sh("head -c 20000 '%s' > '%s.cut'", ko, ko));
		EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s.cut", vmlinux(), in_work("x.inkb"), ko));
		EXPECT_TRUE(host_clean_refusal(&r)) TH_LOG("%s", r.err);
		EXPECT_NE(NULL, strstr(r.err, "not a valid ")) TH_LOG("%s: %s", how[i], r.err);
		EXPECT_NE(NULL, strstr(r.err, ".cut: ")) TH_LOG("%s", r.err);
		/* compressed text: decompressed fine, and no ELF file */
		snprintf(ko, sizeof(ko), "%s/text.ko.%s", work, how[i]);
		ASSERT_EQ(0, sh("echo hello | %s > '%s'", tool[i], ko));
		EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("x.inkb"), ko));
		EXPECT_TRUE(host_clean_refusal(&r)) TH_LOG("%s", r.err);
		EXPECT_NE(NULL, strstr(r.err, "not an ELF file")) TH_LOG("%s: %s", how[i], r.err);
	}
	/* Debian's layout with the module as 6.12 ships it: found by release */
	ASSERT_EQ(0, debian_root(in_work("debian-xz"), "fs/ext4", "ext4", self->ext4, NULL));
	snprintf(ko, sizeof(ko), "%s/lib/modules/%s/kernel/fs/ext4/ext4.ko", in_work("debian-xz"),
		 release());
	ASSERT_EQ(0, sh("[ -f '%s.xz' ] || xz -f '%s'", ko, ko));
	strcat(ko, ".xz");
	ASSERT_EQ(0, gen(&r, "--sysroot %s -o %s %s", in_work("debian-xz"), in_work("z.inkb"), ko))
		TH_LOG("%s", r.err);
	EXPECT_TRUE(same_file(self->ext4_ref, in_work("z.inkb")));
	EXPECT_NE(NULL, strstr(r.err, "/usr/lib/debug/lib/modules/")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "(found by release)")) TH_LOG("%s", r.err);
	/* bytes flipped inside the xz stream: its check (CRC64) fails */
	ASSERT_EQ(0, sh("cp '%s/target.ko.xz' '%s' && printf 'XXXXXXXX' | dd of='%s' bs=1 seek=30000 "
			"conv=notrunc status=none", work, in_work("flip.ko.xz"), in_work("flip.ko.xz")));
	EXPECT_EQ(1, gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("x.inkb"),
			 in_work("flip.ko.xz")));
	EXPECT_TRUE(host_clean_refusal(&r)) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "not a valid xz stream")) TH_LOG("%s", r.err);
}

/*
 * A copy of the target whose first FUNC in .BTF names a string past the
 * end: the 12 bytes of its btf_type, found in the file, get another name_off.
 */
static int bad_func_name(const char *from, const char *to, const char *vmlinux_path)
{
	struct btf *base = btf__parse(vmlinux_path, NULL), *mod;
	uint32_t id, n, len = 0;
	char *data = NULL, *at;
	int ret = -1;
	FILE *f;

	mod = base ? btf__parse_elf_split(from, base) : NULL;
	f = fopen(from, "rb");
	if (!mod || !f)
		goto out;
	data = malloc(64 << 20);
	len = (uint32_t)fread(data, 1, 64 << 20, f);
	fclose(f);
	n = btf__type_cnt(mod);
	for (id = btf__type_cnt(base); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(mod, id);

		if (btf_kind(t) != BTF_KIND_FUNC)
			continue;
		at = memmem(data, len, t, sizeof(*t));
		if (!at)
			break;
		memcpy(at, &(uint32_t){ 0x7fffff00 }, 4);	/* name_off */
		f = fopen(to, "wb");
		ret = f && fwrite(data, 1, len, f) == len && !fclose(f) ? 0 : -1;
		break;
	}
out:
	free(data);
	btf__free(mod);
	btf__free(base);
	return ret;
}

/* Found by mutating the target's bytes: valid ELF, odd contents. */
TEST_F_TIMEOUT(layout, damaged_module_no_crash, 300)
{
	struct host_run r;

	/* no executable section: no instance, an empty blob */
	ASSERT_EQ(0, patched(self->target, in_work("nocode.ko"), NO_CODE));
	EXPECT_EQ(0, gen(&r, "--stats --base-btf %s -o %s %s", vmlinux(), in_work("nocode.inkb"),
			 in_work("nocode.ko"))) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "inkprobe_target: 0 records")) TH_LOG("%s", r.out);
	EXPECT_EQ(1, host_run(&r, "%s/build/inkprobe-san funcs --base-btf %s --module-btf %s %s",
			      top(), vmlinux(), in_work("nocode.ko"), in_work("nocode.inkb")));
	EXPECT_TRUE(host_clean_refusal(&r));
	EXPECT_NE(NULL, strstr(r.err, "no function has instances in ")) TH_LOG("%s", r.err);
	/* a FUNC whose name is past the end of the strings */
	ASSERT_EQ(0, bad_func_name(self->target, in_work("badname.ko"), vmlinux()));
	gen(&r, "--base-btf %s -o %s %s", vmlinux(), in_work("badname.inkb"), in_work("badname.ko"));
	EXPECT_TRUE(r.status == 0 || host_clean_refusal(&r)) TH_LOG("%d: %s", r.status, r.err);
	EXPECT_EQ(NULL, strstr(r.err, "runtime error")) TH_LOG("%s", r.err);
}

/* Once, before the tests (each runs in a child): a fresh work directory. */
static void __attribute__((constructor)) fresh_work(void)
{
	snprintf(work, sizeof(work), "%s/build/check/layout", host_env("INKPROBE_TOP", "."));
	if (sh("rm -rf '%s' && mkdir -p '%s'", work, work))
		fprintf(stderr, "# cannot make %s\n", work);
}

TEST_HARNESS_MAIN
