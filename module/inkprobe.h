/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inkprobe.ko internals (Documentation/module-layout.rst: who uses whom).
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
 *                   remove; probe_parse.c, probe_match.c and probe_attach.c
 *                   under it (probe.h)
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
 * stay registered until unregister_kprobes() has returned, and write only
 * into ftrace's and perf's buffers.
 */
#ifndef _INKPROBE_H
#define _INKPROBE_H

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../lib/blob.h"
#include "../lib/btf_lite.h"

#define INK_MAX_ARGS		16
#define INK_MAX_FIELDS		8	/* param->a.b->c... */
#define INK_NAME_LEN		64
#define INK_CMD_MAX		1024
#define INK_STR_LEN		64	/* bytes kept of a :string argument */
#define INK_MAX_STR_ARGS	4	/* :string or $comm arguments per event */
#define INK_DEFAULT_GROUP	"inkprobe"
#define INK_MAX_FRAMES		32	/* stack frames kept per event */
#define INK_MAX_INLINE_DEPTH	16	/* inlined functions shown per frame */

/* ---------- debugfs_files.c ---------- */
struct seq_file;

extern struct mutex ink_mutex;
extern struct dentry *ink_debugfs_dir;

int ink_debugfs_init(void);
void ink_debugfs_exit(void);
/* The permission check every open() starts with. */
int ink_open_admin(struct inode *inode, struct file *file);
/* ink_open_admin(), then single_open() with @show, or simple_open(). */
int ink_single_open_admin(struct inode *inode, struct file *file,
			  int (*show)(struct seq_file *m, void *v));
int ink_simple_open_admin(struct inode *inode, struct file *file);
/*
 * Makes room for @need bytes in *@buf (kvmalloc'd, *@cap bytes, the first
 * @have in use): doubling, at least a page, never beyond @limit.
 */
int ink_grow(u8 **buf, size_t *cap, size_t have, size_t need, size_t limit);

/* Opened for writing with O_TRUNC (">"): the file is to be emptied first. */
static inline bool ink_open_truncates(const struct file *file)
{
	return (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);
}

/* A read-only seq_file NAME_fops for NAME_show(), opened by admins only. */
#define INK_DEFINE_SHOW_FOPS(__name)					\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	return ink_single_open_admin(inode, file, __name##_show);	\
}									\
									\
static const struct file_operations __name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = __name##_open,						\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}

/* ---------- error_log.c ---------- */
void ink_error_log(const char *cmd, unsigned int pos, const char *fmt, ...)
	__printf(3, 4);
/*
 * The log context of the command being run (ink_mutex held): @word[i] is
 * where word i starts in @cmd.  ink_log_err() logs with the caret @offset
 * bytes into the word of ink_log_set_index(); INK_LOG_LINE counts from the
 * start of the command, and an index past the last word points after it.
 */
#define INK_LOG_LINE	(-1)
void ink_log_init(const char *cmd, const unsigned int *word, unsigned int nr_words);
void ink_log_clear(void);
void ink_log_set_index(int index);
void ink_log_err(unsigned int offset, const char *fmt, ...) __printf(2, 3);
int ink_error_log_init(struct dentry *dir);
void ink_error_log_exit(void);

/* ---------- kernel_btf.c ---------- */
/* A whole sysfs file in a vmalloc'd buffer; returns its length or -errno. */
ssize_t ink_read_sysfs(const char *path, size_t max, void **buf);
/* The vmlinux BTF, loaded on first use; ERR_PTR(-errno) on failure (error logged). */
const struct ink_btf *ink_vmlinux_btf(u32 *len, u32 *crc);
/* CRC-32 (IEEE, as zlib) and length of /sys/kernel/btf/<name>. */
int ink_sysfs_btf_crc(const char *name, u32 *len, u32 *crc);
void ink_kernel_btf_exit(void);

/* ---------- blob_store.c ---------- */
struct ink_target {
	struct list_head list;
	char name[INKPROBE_TARGET_NAME_LEN];
	void *data;			/* the blob, kvmalloc'd, immutable */
	u32 len;
	struct ink_blob blob;
	struct ink_btf btf;		/* blob BTF on the vmlinux BTF */
	bool is_module;
	bool live;			/* symbols resolved: probes can attach */
	struct module *mod;		/* a module target while live */
	unsigned long *sym_addr;	/* runtime address of each SYMBOLS entry */
	u32 nr_unresolved;		/* symbols that did not match kallsyms */
	unsigned int users;		/* probes placed from this blob */
	struct ink_inline_map *inline_map;	/* built on first use (inline_map.c) */
	struct ink_name_index *name_index;	/* built on first use (name_index.c) */
};

extern struct list_head ink_targets;
int ink_blob_store_init(struct dentry *dir);
void ink_blob_store_exit(void);
/*
 * Validates and installs a complete blob, kvmalloc'd (owned by the store
 * from then on), from the file @what: 0 or -errno, the reason logged.
 */
int ink_blob_load(void *data, u32 len, const char *what);
/* @mod comes (live again, its probes back) or goes (they leave): its target follows. */
void ink_target_module(struct module *mod, bool coming);

/*
 * What the blob store asks of the users of its targets, the probes, which
 * register these (ink_mutex held in each).  blob_store.c does not call
 * into probe_*.c otherwise: the dependency points from probes to blobs.
 */
struct ink_target_ops {
	/* @t's module is going: its probes leave, until back() */
	void (*gone)(struct ink_target *t);
	/* @t's module came (back) and @t is live again */
	void (*back)(struct ink_target *t);
	/* "GRP/EVENT, ... and N more" into @buf: what uses @t; how many */
	unsigned int (*users)(const struct ink_target *t, char *buf, size_t n);
};

/* @ops, or NULL: no user any more. */
void ink_target_ops_register(const struct ink_target_ops *ops);

struct ink_target *ink_target_find(const char *name);

/* ---------- kallsyms.c ---------- */
/*
 * What sprint_symbol() says of @addr: the symbol's name (KSYM_NAME_LEN),
 * @addr's offset in it, its size, and in @mod (MODULE_NAME_LEN, may be
 * NULL) its module, "" for vmlinux; false when no symbol holds @addr.
 */
bool ink_kallsyms_at(unsigned long addr, char *name, unsigned long *off, unsigned long *size,
		     char *mod);
/* A module's memory of one kind, on every supported kernel. */
enum ink_mod_mem { INK_MOD_TEXT, INK_MOD_INIT_TEXT, INK_MOD_RODATA };
void ink_module_mem(const struct module *mod, enum ink_mod_mem which, const u8 **base,
		    size_t *size);
/* The runtime address of the @dup_index-th symbol called @name in @mod, or 0. */
unsigned long ink_module_symbol(struct module *mod, const char *name, u32 dup_index);
/* Has @mod's symbol table a symbol called @name at @addr? */
bool ink_module_symbol_at(struct module *mod, const char *name, unsigned long addr);

/* ---------- refusal.c ---------- */
/*
 * Why register_kprobe() refused @addr with @err, as exactly as the module
 * can tell: @mod's own tables for a module's text, else what the errno and
 * the instruction there say.
 */
void ink_refusal_reason(char *buf, size_t n, struct module *mod, unsigned long addr, int err);

/* ---------- module_notify.c ---------- */
/* The module notifier, for ink_target_module(). */
int ink_module_notify_init(void);
void ink_module_notify_exit(void);

/* ---------- blob_upload.c ---------- */
/* The "blob" file: a blob written in pieces, raw or compressed, to ink_blob_load(). */
void ink_blob_upload_init(struct dentry *dir);

/* ---------- fetch.c ---------- */
/*
 * The types of a FETCHARG: one table (fetch.c), like trace_probe.c's
 * fetch types, that every reader of a type goes through -- the grammar
 * (:TYPE), BTF's defaults, the trace event's fields, print fmt and output
 * (escaped strings), the record fill and the BPF site specs.
 */
struct ink_type {
	const char *name;		/* as :TYPE writes it: "u32", "x64", "string" */
	u8 size;			/* bytes of its field: 4 (__data_loc) for strings */
	bool is_signed;			/* sign-extended when printed */
	bool is_string;			/* characters after the fixed part, NUL-terminated */
	const char *field;		/* the field's type in the format file */
	const char *fmt;		/* its conversion in the print fmt */
	const char *fmt_arg;		/* and its argument there, of the field's name */
	const char *out;		/* " NAME=value" in tracefs' output, of a u64 */
};

/* The entry of :@name, or NULL. */
const struct ink_type *ink_type_by_name(const char *name);
/* The default type of a BTF scalar of @size bytes (1, 2, 4, 8). */
const struct ink_type *ink_type_scalar(unsigned int size, bool is_signed, bool is_hex);

/* One FETCHARG of an event: what is read and how it prints. */
struct ink_fetch {
	char name[INK_NAME_LEN];
	char *text;			/* as written, for listing */
	bool comm;			/* $comm */
	char param[INK_NAME_LEN];	/* parameter name, or "" with $argN */
	int argn;			/* $argN (1-based), 0 when named */
	u8 nr_fields;
	char field[INK_MAX_FIELDS][INK_NAME_LEN];
	bool arrow[INK_MAX_FIELDS];	/* "->" before the field, else "." */
	u8 nr_reads;			/* memory reads: one per "->" */
	bool typed;			/* :TYPE given */
	const struct ink_type *type;	/* NULL until typed or compiled */
	u8 str_slot;			/* strings: which of the event's string slots */
};

enum ink_arg_state { INK_ARG_OK, INK_ARG_FAULT, INK_ARG_UNAVAILABLE };

struct ink_probe;
struct ink_probe_arg;
struct ink_tev;
/*
 * Parse one FETCHARG (syntax only), the command's current word: errors go
 * to its log context (ink_log_err()), the caret in @arg.
 */
int ink_fetch_parse(struct ink_fetch *f, const char *arg);
/*
 * Compile @f for instance @in of target @t: fills @a, and the default type
 * on first use.  Errors as ink_fetch_parse()'s.
 */
int ink_fetch_compile(struct ink_fetch *f, struct ink_probe_arg *a, const struct ink_target *t,
		      const struct ink_instance *in, bool first);
void ink_fetch_free(struct ink_fetch *f);

/*
 * Evaluate argument @i of @p at a hit (handler context) straight into the
 * record: a value into @field (its type's size, no alignment assumed), a
 * string into @str (INK_STR_LEN bytes, NUL-terminated).  On failure
 * nothing is promised about either.
 */
enum ink_arg_state ink_fetch_eval(const struct ink_probe *p, unsigned int i,
				  struct pt_regs *regs, void *field, char *str);

/* ---------- probe_*.c ---------- */
/*
 * Per CPU.  hits: every hit the handler got, as kprobe_profile's nhit.
 * Then per consumer, hits = written + lost (+ filtered for ftrace):
 * ftrace, one hit per trace buffer the event is enabled in (not in soft
 * mode); perf, a perf event or BPF program.
 */
struct ink_event_stats {
	u64 hits;
	u64 ftrace_hits;
	u64 ftrace_written;
	u64 ftrace_filtered;		/* discarded by filter or set_event_pid */
	u64 ftrace_lost;		/* the ring's reservation failed */
	u64 perf_hits;
	u64 perf_written;		/* handed to perf and BPF */
	u64 perf_lost;			/* perf's buffer of this context was busy */
};

/*
 * How a hit takes one argument of one instance, compiled from its
 * location expression and "->" reads when the event is defined.
 */
enum ink_fetch_op {
	INK_OP_NONE,			/* no location: (optimized out) */
	INK_OP_REG,			/* register + val */
	INK_OP_CONST,			/* val */
	INK_OP_REG_MEM,			/* one read of the value at register + val */
	INK_OP_COMM,			/* $comm */
	INK_OP_EVAL,			/* anything else: ink_fetch_eval() */
};

/*
 * One argument as compiled for one instance, and where it goes in the
 * record (the trace event's layout, copied here by ink_tev_alloc()): all
 * a hit reads of it, together.
 */
struct ink_probe_arg {
	u8 op;				/* enum ink_fetch_op */
	u8 reg_off;			/* a register's offset in struct pt_regs */
	u8 size;			/* bytes of the value, its type's */
	u8 pad;				/* bytes of alignment before its field */
	u16 off;			/* its field in the record */
	u16 str_off;			/* strings: its slot in the record; else 0 */
	s64 val;
	const u8 *loc;			/* location expression; NULL: unavailable */
	bool base_reg;			/* the location is register + val ... */
	bool base_const;		/* ... or val, taken without the interpreter */
	bool in_place;			/* :string of a char array: no last read */
	s32 field_off[INK_MAX_FIELDS];	/* per "->": offset of the member read */
};

struct ink_probe {
	struct kprobe kp;
	struct ink_event *ev;
	struct ink_target *target;
	u32 sym;			/* caller: index in the target's SYMBOLS */
	u32 caller_offset;
	/* the probed instance, for its inline frames at the probe site */
	u32 callee_id;
	u32 entry_offset;
	s32 first_range;		/* start of its first code range */
	u32 code_len;			/* total length of its ranges; 0: none */
	bool out_of_line;
	bool registered;
	bool in_notrace;		/* refused: in a function ftrace cannot trace */
	int refused;			/* why kprobes refused it (-errno; -ENOEXEC:
					 * its caller did not resolve), or 0
					 */
	struct ink_probe_arg args[INK_MAX_ARGS];
};

/*
 * The low @size bytes of @v at @field (little-endian), by constant sizes:
 * single moves, whatever the alignment (records are 4-byte aligned).
 */
static __always_inline void ink_store(void *field, u64 v, u8 size)
{
	if (size == 8) {
		memcpy(field, &v, 8);
	} else if (size == 4) {
		u32 v4 = v;

		memcpy(field, &v4, 4);
	} else if (size == 2) {
		u16 v2 = v;

		memcpy(field, &v2, 2);
	} else {
		*(u8 *)field = v;
	}
}

/*
 * ink_fetch_eval(), with the commonest arguments (a register plus an
 * offset, a constant, one read at a register plus an offset) taken
 * inline: a call less per argument and hit.
 */
static __always_inline enum ink_arg_state ink_fetch(const struct ink_probe *p, unsigned int i,
						    struct pt_regs *regs, void *field, char *str)
{
	const struct ink_probe_arg *a = &p->args[i];
	unsigned long reg;

	if (a->op == INK_OP_REG) {
		reg = *(const unsigned long *)((const char *)regs + a->reg_off);
		ink_store(field, reg + a->val, a->size);
		return INK_ARG_OK;
	}
	if (a->op == INK_OP_CONST) {
		ink_store(field, a->val, a->size);
		return INK_ARG_OK;
	}
	if (a->op == INK_OP_REG_MEM) {
		reg = *(const unsigned long *)((const char *)regs + a->reg_off);
		if (copy_from_kernel_nofault(field, (const void *)(reg + a->val + a->field_off[0]),
					     a->size))
			return INK_ARG_FAULT;
		return INK_ARG_OK;
	}
	return ink_fetch_eval(p, i, regs, field, str);
}

struct ink_event {
	struct list_head list;
	char group[INK_NAME_LEN];
	char name[INK_NAME_LEN];
	char *target_text;		/* TARGET as written */
	unsigned int nr_args;
	struct ink_fetch args[INK_MAX_ARGS];
	unsigned int nr_strs;		/* :string and $comm arguments */
	unsigned int nr_probes;
	struct ink_probe *probes;
	struct kprobe **kps;
	bool stacktrace;		/* capture the stack at each hit */
	bool strict;			/* all instances or none */
	struct ink_event_stats __percpu *stats;
	struct ink_tev *tev;		/* its trace event; NULL without tracefs */
};

extern struct list_head ink_events;
/* The probes file and stats; registers the blob store's ink_target_ops. */
int ink_probes_init(struct dentry *dir);
void ink_probes_exit(void);

/* ---------- stack.c ---------- */
struct seq_buf;

#define INK_FRAME_EXACT		(1U << 0)	/* the probe site or an interrupted ip,
						 * not a return address
						 */
#define INK_FRAME_GUESS		(1U << 1)	/* found by a scan after an unwinder
						 * error: "? "
						 */

/* The stack of one hit, captured once for every consumer. */
struct ink_stack {
	unsigned int nr;
	unsigned long frames[INK_MAX_FRAMES];
	u8 flags[INK_MAX_FRAMES];		/* INK_FRAME_* */
};

/*
 * Handler side: the probe site and the ORC frames above @regs, at most
 * INK_MAX_FRAMES; returns how many.
 */
unsigned int ink_stack_capture(unsigned long *frames, u8 *flags, struct pt_regs *regs,
			       unsigned long site);
/*
 * " => ..." lines into @sb, inline frames expanded (@p: the probe whose
 * site is frames[0], or NULL), whole lines only: what does not fit ends
 * in " => ... (N more frames)".  Takes ink_frames_mutex itself; where it
 * cannot sleep, the frames are not expanded.  The one renderer of every
 * stack: the trace event's output, the stack file.
 */
void ink_stack_format(struct seq_buf *sb, const struct ink_probe *p,
		      const unsigned long *frames, const u8 *flags, unsigned int nr);
int ink_stack_init(struct dentry *dir);

/* ---------- inline_map.c ---------- */
/*
 * What the frames of a stack trace are made of: the membership of
 * ink_targets, each target's live, sym_addr and inline map.  Changed with
 * ink_mutex and this held, read with this alone: the trace event's output
 * function cannot take ink_mutex (tracefs calls it with trace_event_sem
 * held, which the control path takes under ink_mutex, adding events).
 * Nothing is called under it that takes another lock of the module or of
 * tracing.
 */
extern struct mutex ink_frames_mutex;
/*
 * The inlined functions of target @t containing code address @addr,
 * innermost first (ink_frames_mutex held); returns how many, 0 when @t is
 * not live.
 */
unsigned int ink_inline_frames(struct ink_target *t, unsigned long addr, const char **names,
			       unsigned int max);
/*
 * The inline frames at probe @p's site: the probed instance itself, then
 * the instances around it (its entry pc may sit before its own code);
 * ink_frames_mutex held.
 */
unsigned int ink_inline_site_frames(const struct ink_probe *p, const char **names,
				    unsigned int max);
/* Forget a target's map: its addresses changed or it goes. */
void ink_inline_map_free(struct ink_target *t);

/* ---------- name_index.c ---------- */
enum ink_name_key {
	INK_NAME_CALLEE,
	INK_NAME_CALLER,
	INK_NAME_KEYS
};

/* Instances of one name, in blob order: read them with ink_name_span_get(). */
struct ink_name_span {
	const struct ink_name_index *index;
	const u32 *order;
	u32 first, count;
};

/*
 * The instances of @t whose callee (or caller) is named @name into @span,
 * none if no instance is (ink_mutex held; the index is built on first use).
 * -ENOMEM (no room for the index) or -EMLINK (the name's text is at two
 * places of the blob's strings): the caller must look at every instance.
 */
int ink_name_index_find(struct ink_target *t, enum ink_name_key which, const char *name,
			struct ink_name_span *span);
/* Instance @i of @span (i < span->count). */
void ink_name_span_get(const struct ink_target *t, const struct ink_name_span *span, u32 i,
		       struct ink_instance *in);
void ink_name_index_free(struct ink_target *t);

/* ---------- trace_event.c ---------- */
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

/* A record of a trace event: these fields, then the arguments' (ink_tev_arg). */
struct ink_tev_entry {
	struct trace_entry ent;
	unsigned long probe_ip;		/* __probe_ip: the kprobe's address */
	u32 optimized_out;		/* __optimized_out: bit i, argument i has no value */
	u32 fault;			/* __fault: bit i, reading argument i faulted */
};

/*
 * After the arguments of a stacktrace event (4-byte aligned), then the
 * fixed part padded to 8 bytes.
 */
struct ink_tev_stack {
	u32 frames;			/* __stack: __data_loc unsigned long[] */
	u32 flags;			/* __stack_flags: __data_loc u8[], INK_FRAME_* */
	u32 probe_idx;			/* __probe_idx: the instance's index in the event */
	u32 nr_frames;			/* __nr_frames: in each of the two */
};

/*
 * After the fixed part (tev->size bytes): a slot of INK_STR_LEN bytes per
 * string argument, in the order of their str_slot (the characters, a NUL,
 * zeros to the end of the slot); then a stacktrace event's frames (8-byte
 * aligned there) and their flags.
 */
struct ink_tev_arg {
	const char *name;		/* the ink_fetch's */
	const struct ink_type *type;	/* the ink_fetch's */
	u16 off;			/* of its field in the record */
	u16 str_off;			/* strings: of its slot in the record */
	u8 pad;				/* bytes of alignment before it, zeroed */
};

struct ink_tev {
	struct trace_event_call call;
	struct trace_event_class class;
	struct tracepoint tp;		/* only its name: TRACE_EVENT_FL_TRACEPOINT */
	struct ink_event *ev;
	bool registered;		/* in tracefs (ink_mutex, or event_mutex) */
	/* consumers.c: changed in reg(), under event_mutex; read by handlers */
	unsigned int flags;
	struct list_head files;		/* the trace buffers it is enabled in, RCU */
	u16 size;			/* a record's fixed part, common fields included */
	u16 str_bytes;			/* the string slots after it */
	u16 stack_off;			/* stacktrace: where struct ink_tev_stack is; else 0 */
	u8 nr_args;
	struct ink_tev_arg args[INK_MAX_ARGS];
};

/* At load: checks that the module can add trace events at all. */
int ink_tev_init(void);
/*
 * Errors go to the log context of the command (ink_log_err()).
 * Argument names that would shadow the fields of every trace event: -EINVAL.
 */
int ink_tev_check_name(const char *name);
/* -EEXIST if tracefs has an event GROUP:NAME. */
int ink_tev_name_free(const char *group, const char *name);
/* Builds ev->tev for a parsed @ev (its args typed), not yet in tracefs. */
int ink_tev_alloc(struct ink_event *ev);
void ink_tev_free(struct ink_event *ev);
/* Adds ev->tev to tracefs (ink_mutex held); errors logged. */
int ink_tev_add(struct ink_event *ev);
/*
 * Removes the trace events of @evs[0..n) from tracefs, all or none:
 * -EBUSY (logged) when one is enabled, open in perf, or referenced.
 */
int ink_tev_remove(struct ink_event **evs, unsigned int n);

/* ---------- consumers.c ---------- */
/* At load (trace_event.c): the kernel's buffer of records for triggers only. */
void ink_tev_set_temp_buffer(struct trace_buffer *b);
int ink_tev_reg(struct trace_event_call *call, enum trace_reg type, void *data);
unsigned int ink_tev_nr_files(const struct ink_tev *tev);
/* Handler side: whether the trace event has a consumer now. */
static inline bool ink_tev_wanted(const struct ink_tev *tev)
{
	return tev && READ_ONCE(tev->flags);
}

/*
 * Handler side: a hit of probe @p, to every consumer of its event's trace
 * event; @st: its stack, captured for a stacktrace event.
 */
void ink_tev_hit(const struct ink_probe *p, struct pt_regs *regs, const struct ink_stack *st);

/* ---------- site_spec.c ---------- */
/* The "sites" file: each instance's argument specs, for BPF programs. */
void ink_site_spec_init(struct dentry *dir);

#endif /* _INKPROBE_H */
