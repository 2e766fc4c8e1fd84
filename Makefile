# SPDX-License-Identifier: GPL-2.0
#
#   make           modules for every test kernel, the inkprobe tool, selftests
#   make setup     install what is missing (packages, virtme-ng, test kernels)
#   make check     host unit tests, then every test kernel in a virtme-ng guest
#   make demo      the main job: real inlined kernel functions, traced
#   make bench     benchmarks against kprobe_events, perf probe and pahole
#   make fuzz      fuzz the blob validator (libFuzzer, ASan, UBSan)

INKPROBE_CACHE ?= $(HOME)/.cache/inkprobe
KERNELS ?= 6.1 6.12
export INKPROBE_CACHE
export INKPROBE_KERNELS := $(KERNELS)

B := build
HARNESS_KERNEL := $(firstword $(KERNELS))
HARNESS := $(INKPROBE_CACHE)/kernels/$(HARNESS_KERNEL)/source/tools/testing/selftests

CC := gcc
WARN := -Wall -Wextra -Werror -Wno-unused-parameter
USER_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) $(CFLAGS)
SAN_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer $(CFLAGS)
USER_LIBS := -ldw -lelf -lbpf -lz -lZydis -lpthread

LIB_SRC := lib/blob.c lib/btf_lite.c
TOOL_SRC := $(wildcard user/*.c) $(LIB_SRC)
TOOL_HDR := $(wildcard user/*.h lib/*.h uapi/*.h)

.PHONY: all setup modules tool selftests check demo bench compare fuzz clean

all: modules tool selftests

setup:
	@scripts/setup

modules: setup
	@for k in $(KERNELS); do scripts/build-modules $$k || exit 1; done

tool: $(B)/inkprobe

$(B)/inkprobe: $(TOOL_SRC) $(TOOL_HDR)
	@mkdir -p $(B)
	$(CC) $(USER_CFLAGS) -o $@ $(TOOL_SRC) $(USER_LIBS)

# The same tool with sanitizers, for the host tests.
$(B)/inkprobe-san: $(TOOL_SRC) $(TOOL_HDR)
	@mkdir -p $(B)
	$(CC) $(SAN_CFLAGS) -o $@ $(TOOL_SRC) $(USER_LIBS)

# Host unit tests: shared validator and BTF reader, built with sanitizers.
HOST_TESTS := $(patsubst selftests/host/%.c,$(B)/host/%,$(wildcard selftests/host/*_test.c))
$(B)/host/%: selftests/host/%.c selftests/host/host_test.h $(LIB_SRC) $(TOOL_HDR) | setup
	@mkdir -p $(B)/host
	$(CC) $(SAN_CFLAGS) -isystem $(HARNESS) -o $@ $< $(LIB_SRC) $(USER_LIBS)

# In-guest tests: kselftest harness from the test kernel's linux-source.
GUEST_TESTS := $(patsubst selftests/guest/%.c,$(B)/guest/%,$(wildcard selftests/guest/*_test.c))
GUEST_UTIL := selftests/guest/guest_util.c
$(B)/guest/%: selftests/guest/%.c $(GUEST_UTIL) selftests/guest/guest_util.h | setup
	@mkdir -p $(B)/guest
	$(CC) -std=gnu11 -O2 -g $(WARN) -isystem $(HARNESS) -o $@ $< $(GUEST_UTIL)

selftests: $(HOST_TESTS) $(GUEST_TESTS) $(B)/inkprobe-san

check: all
	@scripts/check

demo: all
	@scripts/demo

# Benchmarks: gen against pahole -J on the first test kernel's DWARF vmlinux.
bench: tool
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
