/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for inkprobe's in-guest tests.  The guest runner exports
 *   INKPROBE_KMOD_DIR   the kernel's built modules (inkprobe.ko, inkprobe_target.ko)
 *   INKPROBE_BLOB_DIR   blobs generated on the host for this kernel
 */
#ifndef _INKPROBE_GUEST_UTIL_H
#define _INKPROBE_GUEST_UTIL_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define INK_DIR		"/sys/kernel/debug/inkprobe"
/*
 * The one path of events: a tracefs instance of the tests' own, where
 * they enable the trace events of the definitions whose hits they read
 * (events_enable()); it does not overwrite, so a hit it cannot take is
 * counted lost (stats: ftrace_lost), and it prints no irq-info column.
 */
#define EVENTS_INST	"/sys/kernel/tracing/instances/inkprobe_events"
#define TGT_DIR		"/sys/kernel/debug/inkprobe_target"
#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"

/* $name, or @def when unset. */
const char *env_or(const char *name, const char *def);
/* INKPROBE_TIMEOUT_SCALE (scripts/vm-run): how much slower this kernel is */
int timeout_scale(void);
/* Path of a file in $INKPROBE_KMOD_DIR / $INKPROBE_BLOB_DIR (static buffer). */
const char *kmod_path(const char *file);
const char *blob_path(const char *file);

/* Writes @s with one write(); 0 or -errno.  @append: O_APPEND, else O_TRUNC. */
int write_file(const char *path, const char *s, bool append);
/* Writes @len bytes of @buf with one write(); 0 or -errno (open or write). */
int write_bytes(const char *path, const void *buf, size_t len);
/* The whole file, NUL-terminated (malloc'd); NULL on error. */
char *read_file(const char *path, size_t *len);

int load_module(const char *ko);		/* 0 or -errno; loaded already: 0 */
int load_module_params(const char *ko, const char *params);
int unload_module(const char *name);		/* 0 or -errno */
bool module_loaded(const char *name);
/* inkprobe.ko, inkprobe_target.ko and the target's blob; 0 or -errno. */
int setup_target(void);
/* The target's line in "blobs" (static buffer), "" if none. */
const char *target_blob_line(void);
/* inkprobe.ko loaded again with module parameters @params, then setup_target(). */
int reload_inkprobe(const char *params);
/* Copies a file into INK_DIR/blob in one write; 0 or -errno. */
int load_blob(const char *path);

struct ink_btf;
struct model_base;
/* The running kernel's BTF, indexed by the shared reader; NULL on failure. */
const struct ink_btf *vmlinux_btf(void);
/*
 * What the kernel's validator says about a raw blob: "" when its structure
 * and BTF are valid, else the error_log message (static buffer).
 */
const char *blob_verdict(const void *data, unsigned int len);
/* The running kernel's vmlinux BTF, read for blob_model.h's model; NULL on error. */
const struct model_base *model_running_kernel(void);

/*
 * Probe definitions: ">" when !append, ">>" otherwise.  A truncation
 * first disables every event in EVENTS_INST, a removal ("-:[GRP/]EVENT")
 * that event there: the tests' reader does not hold what they remove.
 */
int probes_cmd(const char *cmd, bool append);
/* probes_cmd(@cmd, append); on failure, says why on stderr (error_log's line) */
int define_probe(const char *cmd);
int clear_probes(void);
/*
 * EVENTS_INST, made if missing (setup_target() makes it): not
 * overwriting, no irq-info; its buffer of @kb KB per CPU if not 0.
 */
int events_instance(unsigned int kb);
/* EVENTS_INST's KB per CPU buffer (its size when expanded); 0 on error. */
unsigned int events_buffer_kb(void);
/* Enables "GRP" (each event it has now) or "GRP/EVENT" in EVENTS_INST; 0 or -errno. */
int events_enable(const char *what);
/* The newest error_log entry's message ("" if none), static buffer. */
const char *last_error(void);
int clear_errors(void);
/* The newest error_log entry's caret: its column in the command, or -1. */
int last_error_caret(void);

/* The sum of "KEY=N" over every line of @stats (the stats file). */
unsigned long long stat_sum(const char *stats, const char *key);

/*
 * The kernel log from now on: kmsg_open() positions a reader at its end,
 * kmsg_new() returns how many records were logged since (each printed to
 * stderr) and closes it.  A record about the emulator's pace (a timer
 * interrupt that ran long) is printed and not counted.
 */
int kmsg_open(void);
int kmsg_new(int fd);
/* kmsg_new(), counting only the records without @allowed (all: NULL) */
int kmsg_new_except(int fd, const char *allowed);

/* Lines of KPROBES_LIST containing @needle. */
int count_kprobes(const char *needle);

/*
 * A loop device on a new sparse file @image of @mb MiB: its path in @dev
 * (@n bytes); 0 or -1.  loop_detach() detaches it and removes @image.
 */
int loop_attach(const char *image, unsigned int mb, char *dev, size_t n);
void loop_detach(const char *image, const char *dev);

/*
 * TCP over the loopback (brought up): @rounds connections to 127.0.0.1,
 * each sending @writes times @len bytes (at most 65536), read whole on the
 * other side; 0 or -1.
 */
int tcp_loopback(int rounds, int writes, size_t len);
/* Direct I/O on a loop device (block requests); 0 or -1. */
int workload_block_io(void);
/* Anonymous memory, then a file's page cache in /tmp; 0 or -1. */
int workload_memory(void);
/*
 * What kprobe_events' kprobes missed, summed over kprobe_profile (EVENT
 * HITS MISSED): a hit nested in another kprobe's handler (an interrupt
 * during an optimized probe's) reaches neither side of an aggregated
 * kprobe, and kprobes counts it in every kprobe there, inkprobe's too.
 */
unsigned long long kprobe_events_missed(void);

/*
 * Reads up to @max lines from EVENTS_INST's trace_pipe, waiting at most
 * @timeout_ms for each; returns how many.  Lines are malloc'd, without the newline.  The
 * wait for the first line is scaled with the kernel (timeout_scale()); once
 * one came, the wait for more is @timeout_ms as given: the events of one
 * trigger are all in the buffer before the trigger's write returns, and
 * the wait after them only catches extra lines, which a slower kernel does
 * not make later.
 */
int read_events(char **lines, int max, int timeout_ms);
/* The same from another trace_pipe (tracefs: the top level's or an instance's). */
int read_events_from(const char *path, char **lines, int max, int timeout_ms);
void free_lines(char **lines, int n);
/* Discards every event not read yet from EVENTS_INST. */
void drain_events(void);
void drain_events_from(const char *path);

/* An event line's "(CALLER+0xOFF)" and what follows it; false if malformed. */
bool parse_event(const char *line, char *caller, size_t caller_len,
		 unsigned int *off, const char **args);
/* An event line's "GROUP:EVENT" (without the colon after it). */
bool event_name(const char *line, char *name, size_t len);

/*
 * Runs a target scenario and matches its expected lines ("callee caller
 * args", caller may be a glob) one to one with events named <group>:<callee>:
 * every expected line needs exactly one event with that caller and the same
 * argument text, and no event may be left over.  Returns the number of
 * problems, each described on stderr.
 */
int check_scenario(const char *scenario, const char *group, int timeout_ms);
/* The same with the events of another trace_pipe (check_scenario(): EVENTS_INST's). */
int check_scenario_from(const char *pipe, const char *scenario, const char *group,
			int timeout_ms);
/* The same for the scenario run last, without running it again. */
int check_expected_from(const char *pipe, const char *group, int timeout_ms);

/*
 * Runs @cmd with /bin/sh, stdout and stderr in *@out (malloc'd); its exit
 * status, or -1.  Killed, with what it started, after 5 minutes (then -1).
 */
int run_shell(const char *cmd, char **out);

/*
 * For a sample in a module, perf (record and script) looks for the
 * module's file by walking /lib/modules/$(uname -r): Debian's 4,000
 * modules over 9p, about a minute per command under TCG.  This gives the
 * calling test process (one test case: the harness forks each) and what
 * it starts a mount namespace of its own, where that directory holds only
 * inkprobe's two modules, in extra/ as a user installs a module: perf
 * finds and names their frames and walks nothing else.  0 or -errno.
 */
int perf_sees_only_our_modules(void);
/* The caller's mounts in a namespace of its own, none shared back: 0 or -errno. */
int private_mounts(void);

/* The runtime address of @name in inkprobe_target, from /proc/kallsyms; 0 if none. */
unsigned long kallsyms_addr(const char *name);

/* Runs the target's "mix A B W" scenario; 0 or -errno. */
int trigger_target(unsigned long long a, unsigned long long b, unsigned int w);
/*
 * Waits until an "inkprobe trace" has @event (GRP/EVENT) enabled in its
 * tracefs instance (inkprobe-PID-*), the point from which it reads: @pid's
 * instance, or any reader's with @pid 0.  False if @pid ended first or
 * after a minute (scaled with the kernel).
 */
bool trace_reader_ready(pid_t pid, const char *event);
/*
 * A child that calls trigger_target(@a, @b, @w) once a reader of @event is
 * ready (trace_reader_ready(0, ...)); its exit status is 0 when it did.
 */
pid_t trigger_when_traced(const char *event, unsigned long long a, unsigned long long b,
			  unsigned int w);

/*
 * Instances compared with kprobe_events (real_kernel_test, distro_module_test):
 * the lines scripts/real-defs writes, "CLASS FUNC CALLER OFF ARG...", CALLER
 * "MOD:NAME" in a module.  Each ARG is NAME=FETCH:TYPE, perf probe's
 * fetch-arg, or, for an argument of a listed difference, NAME=[ITEM,...]:TYPE,
 * the value the DWARF gives there, computed from kprobe_events fetches
 * (ITEM: FETCH:TYPE, #CONSTANT, &SYMBOL+OFF, or an operator: plus minus mul
 * and or xor shl shr shra neg not, in postfix order), or NAME=[]:TYPE where
 * the DWARF has no location: inkprobe must say (optimized out).
 * args_kp: the kprobe_events fetch-args (an oracle's fetches as NAME__K);
 * args_ink: " NAME:TYPE" for each (inkprobe fetches the parameter).
 * CALLER "NAME#K/N": the K-th of the N functions called NAME, by address
 * (kprobe_events cannot tell them apart by name: it takes the address; one
 * inkprobe event covers them all, the first def of the group, its leader,
 * gets every hit of the group on both sides).
 */
#define CMP_MAX_CPUS	8
#define CMP_MAX_ARGS	8
struct cmp_arg {
	char name[32], type[8], items[200];
	bool oracle;		/* the DWARF's value: items */
};
struct cmp_def {
	char cls[8], func[64], caller[128], args_ink[256], args_kp[512];
	unsigned int off;
	bool placed;
	int nth, of, leader;	/* CALLER#NTH/OF; leader: -1, or its group's first def */
	int nr_args, nr_oracles;
	struct cmp_arg args[CMP_MAX_ARGS];
	/* per CPU: the argument text of every hit, in order (kprobe_events':
	 * what inkprobe must print, the oracles computed) */
	char *ink[CMP_MAX_CPUS], *kp[CMP_MAX_CPUS];
	unsigned long nr_ink, nr_kp;
};

/*
 * The lines of @path into @defs; how many, or -1 (also when there are more
 * than @max, or a line does not parse).  *@no_oracle (if not NULL): the
 * number of "# no-oracle" lines, arguments of listed differences without a
 * run-time oracle (each is printed as a TAP comment).
 */
int read_cmp_defs(const char *path, struct cmp_def *defs, int max, int *no_oracle);
/*
 * The events after a workload: EVENTS_INST's trace lines of events named
 * @ink_event (": GRP:PREFIX", then the def's index) and the top level's
 * trace lines of @kp_event go to the placed defs, CPU by CPU (both
 * buffers are emptied); a kprobe_events line
 * becomes what inkprobe must print: perf's fetch-args as they are, each
 * oracle computed from its fetches and printed as its TYPE.  Returns -1 if
 * the tracefs buffer lost events, else 0.
 */
int collect_cmp_events(struct cmp_def *defs, int nr, const char *ink_event,
		       const char *kp_event);
/* Frees what collect_cmp_events() kept and clears the counts. */
void reset_cmp_events(struct cmp_def *defs, int nr);

/* The address of the @nth (from 1) of the @of text symbols @name of @kallsyms, by address; 0 if
 * it does not have @of of them */
unsigned long long kallsyms_nth(const char *kallsyms, const char *name, int nth, int of);
/* The function of /proc/kallsyms that holds @addr (static buffer), "" if none. */
const char *kallsyms_func(unsigned long long addr);
/*
 * @fn on each function (STT_FUNC) of @elf's symbol table, with its name,
 * until one returns nonzero: that value, or 0.
 */
int elf_each_func(Elf *elf, int (*fn)(void *ctx, const GElf_Sym *s, const char *name),
		  void *ctx);
/* The target's expected lines of its last scenario (strdup'd), in @lines; -1 on error. */
int expected_lines(char **lines, int max);

/* One definition per location class of the target (tgt_loc_*), group "loc". */
#define NR_LOC_CLASS_DEFS	7
extern const char *const loc_class_defs[NR_LOC_CLASS_DEFS];

#endif /* _INKPROBE_GUEST_UTIL_H */
