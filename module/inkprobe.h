/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inkprobe.ko internals (Documentation/module-layout.rst: who uses whom).
 * Each file declares what the others use of it in a header of its name
 * (probe_event.h for the four probe_*.c); this one holds the limits they
 * share.
 *
 *   main.c          module init/exit
 *   debugfs_files.c the control directory, ink_mutex, permissions, open helpers
 *   error_log.c     error_log in the kernel's tracing format; a command's log context
 *   kernel_btf.c    the running kernel's BTF, from /sys/kernel/btf/vmlinux
 *   blob_store.c    blobs: validation, build identity, symbol resolution,
 *                   module load/unload; calls its users through ink_target_ops
 *   blob_upload.c   the "blob" file: a blob written in pieces, to blob_store.c
 *   blob_zstd.c     compressed blobs: one zstd frame, decompressed for blob_upload.c
 *   build_id.c      a blob's build ID against the running target's
 *   module_notify.c module load and unload, for the blob store
 *   kallsyms.c      what kallsyms and a module's tables say of kernel code
 *   refusal.c       why kprobes refused an address
 *   probe_event.c   events: the probes and stats files, define and
 *                   remove; probe_parse.c, probe_match.c, probe_attach.c,
 *                   probe_site.c (one kprobe per address, its probes in
 *                   order) and probe_hit.c (a hit) under it (probe.h)
 *   exit_probe.c    an r event's kprobes at the exits of inlined copies
 *   timed_calls.c   $duration and r events' arguments: the entry time and
 *                   record of inlined copies' calls, keyed by frame (ORC
 *                   CFA), instance and task
 *   fetch.c         fetch arguments: the type table, compilation and
 *                   evaluation (handler)
 *   stack.c         ORC stack capture, frames with inline expansion, "stack"
 *   inline_map.c    which inlined functions of a target contain a code address
 *   name_index.c    which instances of a target a name names
 *   trace_event.c   each definition as a trace event in tracefs: fields,
 *                   print fmt, output, adding and removing under event_mutex
 *   consumers.c     that event's consumers (ftrace, perf, BPF): reg() and
 *                   the handler's side, which writes the records
 *   site_spec.c     each instance's arguments as a BPF program reads them
 *                   itself, and the sites file that prints them
 *
 * Locking: ink_mutex serializes every control path (blobs, probes, module
 * notifier, stats); ink_frames_mutex, inside it, what stack frames are
 * rendered from (inline_map.c), so that tracefs output can take it alone.
 * Probe handlers take no lock: they read immutable data of probes that
 * stay on their kprobe's RCU list until ink_site_leave() has waited for a
 * grace period (or unregister_kprobes() has returned), and write only
 * into ftrace's and perf's buffers, and a paired r event's table of calls
 * (timed_calls.c: slots claimed by cmpxchg, freed by their own call).
 */
#ifndef _INKPROBE_H
#define _INKPROBE_H

#define INK_MAX_ARGS		16
#define INK_MAX_FIELDS		8	/* param->a.b->c... */
#define INK_NAME_LEN		64
#define INK_CMD_MAX		1024
#define INK_STR_LEN		64	/* bytes kept of a :string argument */
#define INK_MAX_STR_ARGS	4	/* :string or $comm arguments per event */
#define INK_DEFAULT_GROUP	"inkprobe"
#define INK_MAX_FRAMES		32	/* stack frames kept per event */
#define INK_MAX_INLINE_DEPTH	16	/* inlined functions shown per frame */

#endif /* _INKPROBE_H */
