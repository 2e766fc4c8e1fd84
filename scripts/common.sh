# SPDX-License-Identifier: GPL-2.0
# Shared settings for inkprobe's scripts: where the cache lives and which
# Debian kernels are the test kernels.  Sourced, never executed.

INKPROBE_CACHE=${INKPROBE_CACHE:-$HOME/.cache/inkprobe}
# Test kernels, by short name.  Versions are resolved through Debian's
# metapackages at install time, never pinned here.  A run on fewer kernels
# says so in make check's closing line.
INKPROBE_DEFAULT_KERNELS="6.1 6.12 sid debug"
INKPROBE_KERNELS=${INKPROBE_KERNELS:-$INKPROBE_DEFAULT_KERNELS}

# kernel_meta SHORT KIND -> metapackage name (KIND: image, headers, dbg, source)
kernel_meta() {
	case "$1:$2" in
	6.1:image)	echo linux-image-amd64 ;;
	6.1:headers)	echo linux-headers-amd64 ;;
	6.1:dbg)	echo linux-image-amd64-dbg ;;
	6.1:source)	echo linux-source-6.1 ;;
	6.12:image)	echo linux-image-6.12-amd64 ;;
	6.12:headers)	echo linux-headers-6.12-amd64 ;;
	6.12:dbg)	echo linux-image-6.12-amd64-dbg ;;
	6.12:source)	echo linux-source-6.12 ;;
	# Debian unstable's newest kernel, through the project's own apt
	# configuration (kernel_apt_config); "linux-source" is resolved to
	# linux-source-X.Y at set-up time.
	sid:image)	echo linux-image-amd64 ;;
	sid:headers)	echo linux-headers-amd64 ;;
	sid:dbg)	echo linux-image-amd64-dbg ;;
	sid:source)	echo linux-source ;;
	# The debug kernel is built here from bookworm's 6.12 source
	# (scripts/build-debug-kernel): it has no image, headers or dbg packages.
	debug:source)	echo linux-source-6.12 ;;
	*)		echo "unknown kernel '$1' or kind '$2'" >&2; return 1 ;;
	esac
}

kernel_dir() { echo "$INKPROBE_CACHE/kernels/$1"; }

# kernel_apt_config SHORT -> the APT_CONFIG file through which the kernel's
# packages are found, or nothing for the host's own sources.  sid's is the
# project's, in the cache (scripts/setup writes it): the host's apt sources
# are never changed.
kernel_apt_config() {
	case "$1" in
	sid) echo "$INKPROBE_CACHE/apt-sid/apt.conf" ;;
	esac
}

# kernel_buildroot SHORT -> the build root (a Debian tree made by mmdebstrap)
# in which the kernel's modules are built, or nothing to build on the host.
# sid's headers need sid's compiler and C library (kbuild's own programs).
kernel_buildroot() {
	case "$1" in
	sid) echo "$INKPROBE_CACHE/buildroot-sid" ;;
	esac
}

# The release string (uname -r) of a prepared test kernel.
kernel_release() { cat "$(kernel_dir "$1")/release"; }

# The prepared build tree (headers + vmlinux) for out-of-tree modules.
kernel_build_dir() { echo "$(kernel_dir "$1")/build"; }

# btf_size ELF -> the size in bytes of its .BTF section (0 if none)
btf_size() {
	local hex
	hex=$(readelf -SW "$1" |
		sed -n 's/.* \.BTF  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	echo $((16#${hex:-0}))
}

# kernel_cmdline SHORT -> what scripts/vm-run appends to the guest kernel's
# command line (Documentation/testing.rst, "The debug kernel").  Debian's
# kernels: SLUB's sanity checks, red zones and poisoning (slub_debug=FZP;
# not U, the stack traces at every allocation and free), and KFENCE where it
# is built in but off (6.12, sid: CONFIG_KFENCE_SAMPLE_INTERVAL=0).  The
# debug kernel: every KASAN report, not only the first; a log buffer the
# suite's reports fit in; KFENCE's interval said again; kmemleak's suspects
# in the kernel log, not only in its debugfs file; no5lvl: on a busy host
# it hung at boot after KASAN "wild-memory-access" reports on the direct map
# (0xff11..., QEMU's -cpu max has 5-level paging) from an interrupt inside
# identify_cpu() -- as read from the report, LA57 looks cleared to KASAN's
# address check while the boot CPU's features are read again (inferred).
kernel_cmdline() {
	# tsc=reliable: TCG's TSC follows the host's clock; without it a busy
	# host makes the kernel find the TSC unsynchronized (6.1, at boot) or
	# unstable (the clocksource watchdog) and read the HPET instead, a
	# trap into QEMU per read
	case "$1" in
	6.1)	echo "tsc=reliable slub_debug=FZP" ;;
	6.12|sid) echo "tsc=reliable slub_debug=FZP kfence.sample_interval=100" ;;
	debug)	echo "tsc=reliable no5lvl kasan_multi_shot log_buf_len=16M kfence.sample_interval=100 kmemleak.verbose=1" ;;
	esac
}

# kernel_timeout_scale SHORT -> how much longer work takes on the kernel: the
# debug kernel is up to ten times slower under TCG (Documentation/testing.rst).
# scripts/vm-run exports it to the guest as INKPROBE_TIMEOUT_SCALE; a caller
# of vm-run whose whole guest does work scales its limit by it.
kernel_timeout_scale() {
	case "$1" in
	debug)	echo 10 ;;
	*)	echo 1 ;;
	esac
}

die() { echo "inkprobe: $*" >&2; exit 1; }
log() { echo "inkprobe: $*" >&2; }
