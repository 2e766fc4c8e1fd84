# SPDX-License-Identifier: GPL-2.0
#
#   make           modules for every test kernel, the inkprobe tool, selftests
#   make setup     install what is missing (packages, virtme-ng, test kernels)
#   make check     host unit tests, then every test kernel in a virtme-ng guest
#   make demo      the main job: real inlined kernel functions, traced
#   make bench     benchmarks against kprobe_events, perf probe and pahole (~10 min)
#   make fuzz      fuzz the blob validator (libFuzzer, ASan, UBSan)

INKPROBE_CACHE ?= $(HOME)/.cache/inkprobe
# the default test kernels are scripts/common.sh's
KERNELS ?= $(shell . scripts/common.sh && echo $$INKPROBE_DEFAULT_KERNELS)
export INKPROBE_CACHE
export INKPROBE_KERNELS := $(KERNELS)

B := build
# the first Debian kernel's kselftest harness (debug: 6.12's source, as a fallback)
HARNESS_KERNEL := $(firstword $(filter-out debug,$(KERNELS)) $(KERNELS))
HARNESS := $(INKPROBE_CACHE)/kernels/$(HARNESS_KERNEL)/source/tools/testing/selftests

CC := gcc
WARN := -Wall -Wextra -Werror -Wno-unused-parameter
# libdebuginfod (its header at build time) is opened when needed: user/common/debuginfod.c
# libtracefs and libtraceevent: inkprobe trace reads ftrace's ring with them.  Their
# flags are asked for when a recipe runs, not when make reads this file: on a
# fresh machine "setup" installs their -dev packages after that.
TRACE_CFLAGS = $(shell pkg-config --cflags libtracefs libtraceevent)
USER_CFLAGS = -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) $(CFLAGS) $(TRACE_CFLAGS)
SAN_CFLAGS = -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer $(CFLAGS) $(TRACE_CFLAGS)
USER_LIBS := -ldw -lelf -lbpf -lz -lzstd -llzma -lpthread -ldl -ltracefs -ltraceevent
# The tool itself links its libraries statically, all but libc, with packed
# relative relocations: each shared library, and each page the dynamic
# linker relocates, costs every run of a short command a share of its time
# in a TCG guest whose root is 9p (Documentation/benchmarks.rst, profile
# symbolization).  libZydis (Debian ships no libZydis.a) is opened by gen
# alone, when it first decodes (user/gen/x86_decoder.c).  The sanitizer
# build and the host tests stay dynamic.
TOOL_LIBS := -Wl,-z,pack-relative-relocs -Wl,-Bstatic -ldw -lelf -lbpf -ltracefs -ltraceevent -lz -lzstd -llzma -lbz2 \
	-Wl,-Bdynamic -lpthread -ldl

LIB_SRC := lib/blob.c lib/blob_open.c lib/loc_op.c lib/btf_lite.c lib/inline_chain.c
# user/plugin/ is the libtraceevent plugin, a shared object of its own
TOOL_SRC := $(filter-out user/plugin/%,$(wildcard user/*.c user/*/*.c)) $(LIB_SRC)
TOOL_HDR := $(wildcard user/*/*.h lib/*.h uapi/*.h)

.PHONY: all setup modules tool selftests check demo bench compare fuzz clean

all: modules tool selftests

setup:
	@scripts/setup

modules: setup
	@for k in $(KERNELS); do scripts/build-modules $$k || exit 1; done

tool: $(B)/inkprobe $(B)/plugin_inkprobe.so

$(B)/inkprobe: $(TOOL_SRC) $(TOOL_HDR)
	@mkdir -p $(B)
	$(CC) $(USER_CFLAGS) -o $@ $(TOOL_SRC) $(TOOL_LIBS)

# The libtraceevent plugin (trace-cmd report, perf script): no libtraceevent
# linked (the program's own is used: perf has a copy of its own), only its
# entry points visible.
PLUGIN_SRC := user/plugin/plugin_inkprobe.c user/trace/record.c user/trace/inline_frames.c \
	user/common/blob_zstd.c user/common/build_id.c user/common/util.c $(LIB_SRC)
$(B)/plugin_inkprobe.so: $(PLUGIN_SRC) $(TOOL_HDR)
	@mkdir -p $(B)
	$(CC) $(USER_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $(PLUGIN_SRC) -lbpf -lz -lzstd

# The same tool with sanitizers, for the host tests.
$(B)/inkprobe-san: $(TOOL_SRC) $(TOOL_HDR)
	@mkdir -p $(B)
	$(CC) $(SAN_CFLAGS) -o $@ $(TOOL_SRC) $(USER_LIBS)

# Host unit tests: shared validator and BTF reader, the tool's trace-line
# parser, built with sanitizers.
HOST_TESTS := $(patsubst selftests/host/%.c,$(B)/host/%,$(wildcard selftests/host/*_test.c))
HOST_USER_SRC := user/trace/record.c user/trace/inline_frames.c user/trace/ksyms.c \
	user/trace/comms.c user/trace/stream.c user/trace/trace_file.c user/trace/report.c user/trace/perf_sample.c user/trace/perf_data.c \
	user/trace/profile_report.c user/common/util.c user/common/blob_file.c user/common/blob_zstd.c user/common/elf_file.c user/site/inkprobe_attach.c \
	user/tool/btf_c_type.c user/tool/log2_hist.c user/common/build_id.c
$(B)/host/%: selftests/host/%.c $(wildcard selftests/host/*.h) $(wildcard selftests/*.h) $(LIB_SRC) \
		selftests/guest/blob_model.c selftests/guest/blob_model.h \
		$(HOST_USER_SRC) $(TOOL_HDR) | setup
	@mkdir -p $(B)/host
	$(CC) $(SAN_CFLAGS) -isystem $(HARNESS) -o $@ $< $(LIB_SRC) $(HOST_USER_SRC) $(USER_LIBS)

# In-guest tests: kselftest harness from the test kernel's linux-source.
GUEST_TESTS := $(patsubst selftests/guest/%.c,$(B)/guest/%,$(wildcard selftests/guest/*_test.c))
GUEST_UTIL := selftests/guest/guest_util.c selftests/guest/blob_model.c
# They may use the tool's zstd reader and libzstd: the guest sees the host's
# root file system, libraries included.
GUEST_USER_SRC := user/common/blob_zstd.c user/common/util.c user/site/inkprobe_attach.c
$(B)/guest/%: selftests/guest/%.c $(GUEST_UTIL) selftests/guest/guest_util.h selftests/guest/blob_model.h \
		$(wildcard selftests/*.h) $(LIB_SRC) $(GUEST_USER_SRC) $(TOOL_HDR) | setup
	@mkdir -p $(B)/guest
	$(CC) -std=gnu11 -O2 -g $(WARN) -isystem $(HARNESS) -o $@ $< $(GUEST_UTIL) $(LIB_SRC) \
		$(GUEST_USER_SRC) -lzstd -lelf -lbpf -lz -lm

# BPF programs the guest tests load with libbpf, beside them.
GUEST_BPF := $(patsubst selftests/guest/%.bpf.c,$(B)/guest/%.bpf.o,$(wildcard selftests/guest/*.bpf.c))
$(B)/guest/%.bpf.o: selftests/guest/%.bpf.c $(wildcard uapi/inkprobe_*.h) | setup
	@mkdir -p $(B)/guest
	clang -O2 -g -target bpf $(WARN) -I/usr/include/$(shell $(CC) -dumpmachine) -c $< -o $@

selftests: $(HOST_TESTS) $(GUEST_TESTS) $(GUEST_BPF) $(B)/inkprobe-san

check: all
	@scripts/setup --dbg
	@scripts/check

# The main job needs one kernel (KERNEL=, else the first test kernel) and
# the tool: nothing else is fetched or built (scripts/demo builds that
# kernel's modules).
DEMO_KERNEL = $(or $(KERNEL),$(firstword $(KERNELS)))
demo:
	@INKPROBE_KERNELS="$(DEMO_KERNEL)" scripts/setup --dbg
	@$(MAKE) --no-print-directory tool
	@KERNEL="$(DEMO_KERNEL)" scripts/demo

# Benchmarks against pahole -J, perf probe and kprobe_events on the first
# test kernel: scripts/bench on the host, bench/run-guest.sh in one guest.
BENCH_PROGS := $(B)/bench/inkbench $(B)/bench/validate_cost $(B)/bench/bpfbench \
	$(B)/bench/bpfbench.bpf.o
$(B)/bench/inkbench: bench/inkbench.c
	@mkdir -p $(B)/bench
	$(CC) $(USER_CFLAGS) -o $@ $<

$(B)/bench/bpfbench: bench/bpfbench.c user/site/inkprobe_attach.c user/site/inkprobe_attach.h uapi/inkprobe_site.h
	@mkdir -p $(B)/bench
	$(CC) $(USER_CFLAGS) -o $@ $< user/site/inkprobe_attach.c -lbpf

$(B)/bench/bpfbench.bpf.o: bench/bpfbench.bpf.c $(wildcard uapi/inkprobe_*.h) | setup
	@mkdir -p $(B)/bench
	clang -O2 -g -target bpf $(WARN) -I/usr/include/$(shell $(CC) -dumpmachine) -c $< -o $@

VALIDATE_SRC := user/common/blob_file.c user/common/blob_zstd.c user/common/util.c user/common/elf_file.c
$(B)/bench/validate_cost: bench/validate_cost.c $(LIB_SRC) $(VALIDATE_SRC) \
		$(wildcard lib/*.h uapi/*.h user/*/*.h) | setup
	@mkdir -p $(B)/bench
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIB_SRC) $(VALIDATE_SRC) -lbpf -lelf -lz -lzstd

bench: modules tool $(BENCH_PROGS)
	@scripts/bench

# dump against perf probe -D on real kernel functions (slow: perf reads DWARF).
compare: tool
	@scripts/compare-perf

# libFuzzer over the shared validator, seeded with generated blobs.
FUZZ_TIME ?= 60
$(B)/fuzz/blob_fuzz: fuzz/blob_fuzz.c $(LIB_SRC) $(wildcard lib/*.h uapi/*.h)
	@mkdir -p $(B)/fuzz
	clang -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ fuzz/blob_fuzz.c $(LIB_SRC) -lbpf -lelf -lz

fuzz: $(B)/fuzz/blob_fuzz $(B)/inkprobe modules
	@scripts/fuzz $(FUZZ_TIME)

clean:
	rm -rf $(B)

# Installation (Documentation/install.rst); DESTDIR stages it for a package.
#   make install                          the tool, its man page, the BPF headers and
#                                         the attach library (share/inkprobe) under PREFIX,
#                                         the libtraceevent plugin in TEP_PLUGIN_DIR
#   make install-modules [KERNEL_RELEASE=...] [KDIR=...]
#                                         inkprobe.ko for one kernel, then depmod
#   make install-dkms                     the module's sources for DKMS
PREFIX ?= /usr/local
# libtraceevent's own plugin directory, which trace-cmd searches (Debian:
# /usr/lib/x86_64-linux-gnu/traceevent/plugins): not under PREFIX
TEP_PLUGIN_DIR ?= $(shell pkg-config --variable=libdir libtraceevent 2>/dev/null)/traceevent/plugins
KERNEL_RELEASE ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KERNEL_RELEASE)/build
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC := $(DESTDIR)/usr/src/inkprobe-$(DKMS_VERSION)

.PHONY: install install-modules install-dkms

install: $(B)/inkprobe $(B)/plugin_inkprobe.so
	install -D -m 0755 $(B)/inkprobe $(DESTDIR)$(PREFIX)/bin/inkprobe
	install -D -m 0644 $(B)/plugin_inkprobe.so $(DESTDIR)$(TEP_PLUGIN_DIR)/plugin_inkprobe.so
	install -D -m 0644 Documentation/inkprobe.8 $(DESTDIR)$(PREFIX)/share/man/man8/inkprobe.8
	install -D -m 0644 uapi/inkprobe_bpf.h $(DESTDIR)$(PREFIX)/include/inkprobe_bpf.h
	install -D -m 0644 uapi/inkprobe_site.h $(DESTDIR)$(PREFIX)/include/inkprobe_site.h
	install -D -m 0644 uapi/inkprobe_site.bpf.h $(DESTDIR)$(PREFIX)/include/inkprobe_site.bpf.h
	install -D -m 0644 user/site/inkprobe_attach.c $(DESTDIR)$(PREFIX)/share/inkprobe/inkprobe_attach.c
	sed 's|"../../uapi/inkprobe_site.h"|<inkprobe_site.h>|' user/site/inkprobe_attach.h | \
		install -D -m 0644 /dev/stdin $(DESTDIR)$(PREFIX)/share/inkprobe/inkprobe_attach.h

# The top-level Kbuild builds the selftests' target too; only inkprobe.ko is installed.
install-modules:
	scripts/build-modules --kdir $(KDIR) $(B)/modules/$(KERNEL_RELEASE)
	install -D -m 0644 $(B)/modules/$(KERNEL_RELEASE)/inkprobe.ko \
		$(DESTDIR)/lib/modules/$(KERNEL_RELEASE)/extra/inkprobe.ko
	$(if $(DESTDIR),,depmod -a $(KERNEL_RELEASE))

install-dkms:
	@mkdir -p $(DKMS_SRC)
	cp -r --no-preserve=mode Kbuild dkms.conf COPYING LICENSES module lib uapi $(DKMS_SRC)/
	@mkdir -p $(DKMS_SRC)/selftests
	cp -r --no-preserve=mode selftests/target $(DKMS_SRC)/selftests/
	@echo "now: dkms install inkprobe/$(DKMS_VERSION)"
