// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe profile [-F HZ] [-a | -p PID] [--duration S] [--folded | --perf-script]
 *                  [-o FILE] [-i PERF_DATA] [--blob FILE]...
 *
 * A sampling profile of the kernel that names inlined functions
 * (Documentation/profile.rst): kernel callchains sampled by a cpu-clock
 * event (user/trace/perf_sampler.c), or read from a perf.data file
 * (user/trace/perf_data.c), each frame expanded with its inline frames
 * from the blobs at hand and printed (user/trace/profile_report.c).
 *
 * Where the frames come from (Documentation/profile.rst): with inkprobe.ko
 * loaded and no blob named (--blob, $INKPROBE_BLOBS), the module looks every
 * callchain entry up, from the kernel's symbols and the blobs it has loaded
 * (its "frames" file, user/trace/kernel_frames.c).  Otherwise the tool does:
 * /proc/kallsyms, and the blobs inkprobe.ko has loaded, read back through
 * its "loaded_blob" file as funcs and vars read them, the --blob files and
 * $INKPROBE_BLOBS; each must be for the running kernel or a loaded module.
 * Without any blob the profile still works, without inline frames.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "debugfs.h"
#include "../common/util.h"
#include "../trace/comms.h"
#include "../trace/inline_frames.h"
#include "../trace/kernel_frames.h"
#include "../trace/ksyms.h"
#include "../trace/perf_data.h"
#include "../trace/perf_sampler.h"
#include "../trace/profile_report.h"

static const char profile_usage[] =
	"usage: inkprobe profile [-F HZ] [-a | -p PID] [--duration S]\n"
	"                        [--folded | --perf-script] [-o FILE] [-i PERF_DATA]\n"
	"                        [--blob FILE]...\n"
	"\n"
	"Samples kernel stacks with a cpu-clock perf event, then prints each function's\n"
	"share of the samples: self (the sample's innermost frame) and total (anywhere\n"
	"in its stack).  Every frame is expanded with the functions inlined there, from\n"
	"the blobs, marked [inlined].  Needs root, or kernel.perf_event_paranoid <= 1\n"
	"(-p) or <= 0 (-a).\n"
	"\n"
	"  -F, --freq HZ        samples per second and CPU (default 99)\n"
	"  -a, --all-cpus       every task on every online CPU (the default)\n"
	"  -p, --pid PID        only the threads process PID has when it starts\n"
	"  -d, --duration S     stop after S seconds (default 10; Ctrl-C stops earlier)\n"
	"      --folded         folded stacks, for flamegraph.pl (inline frames: _[i])\n"
	"      --perf-script    perf script's text, for flame-graph tools\n"
	"  -o, --output FILE    write there, not to stdout\n"
	"  -i, --input FILE     no sampling: the kernel callchains of a perf.data file\n"
	"                       (perf record -g) made on this boot\n"
	"  -B, --blob FILE      a blob for inline frames (repeatable; also the blobs\n"
	"                       inkprobe.ko has loaded and $INKPROBE_BLOBS)\n";

enum output { REPORT, FOLDED, PERF_SCRIPT };

struct profile_opts {
	unsigned int hz;
	int pid;		/* -1: every CPU */
	double duration;
	enum output output;
	const char *out_path, *input;
	char **blobs;
	size_t nr_blobs;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bad_usage(const char *what)
{
	warnx("profile: %s", what);
	fputs(profile_usage, stderr);
	return 2;
}

/* -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct profile_opts *o)
{
	static const struct option opts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "folded", no_argument, NULL, 'f' },
		{ "perf-script", no_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ "blob", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool all = false, outputs = 0, timed = false, freq = false;
	char *end;
	long v;
	int c;

	*o = (struct profile_opts){ .hz = 99, .pid = -1, .duration = 10 };
	while ((c = getopt_long(argc, argv, "F:ap:d:o:i:B:h", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v <= 0 || v > 1000000)
				return bad_usage("-F wants samples per second");
			o->hz = (unsigned int)v;
			freq = true;
			break;
		case 'a':
			all = true;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v <= 0 || v > 0x7fffffff)
				return bad_usage("--pid wants a process ID");
			o->pid = (int)v;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(o->duration) || o->duration <= 0)
				return bad_usage("--duration wants seconds");
			timed = true;
			break;
		case 'f':
		case 's':
			if (outputs)
				return bad_usage("--folded and --perf-script: one of them");
			outputs = 1;
			o->output = c == 'f' ? FOLDED : PERF_SCRIPT;
			break;
		case 'o':
			o->out_path = optarg;
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'B':
			o->blobs = xrealloc(o->blobs, (o->nr_blobs + 1) * sizeof(*o->blobs));
			o->blobs[o->nr_blobs++] = optarg;
			break;
		case 'h':
			fputs(profile_usage, stdout);
			return 0;
		default:
			fputs(profile_usage, stderr);
			return 2;
		}
	}
	if (optind != argc)
		return bad_usage("no operands");
	if (all && o->pid > 0)
		return bad_usage("-a or -p, not both");
	if (o->input && (all || o->pid > 0 || timed || freq))
		return bad_usage("--input reads a recording: no -F, -a, -p or --duration");
	return -1;
}

/* ---- blobs ---- */

static void blob_warning(const char *path, const char *why)
{
	warnx("profile: %s: not used for inline frames: %s", path, why);
}

/* The blobs inkprobe.ko has loaded, when it is: each through a memfd. */
static void add_loaded(struct ink_frames *f)
{
	char *list, *line, *save = NULL, path[64], why[256];
	unsigned char *data;
	size_t len;

	if (access(ctl_path("blobs"), R_OK))
		return;		/* inkprobe.ko is not loaded (or not root) */
	list = ctl_read("blobs");
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int fd;

		if (strstr(line, " waiting "))
			continue;
		line[strcspn(line, " ")] = '\0';
		data = ctl_read_blob(line, &len);
		if (!data)
			continue;	/* unloaded meanwhile */
		fd = memfd_create("inkprobe-loaded-blob", MFD_CLOEXEC);
		if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
			warnx("profile: the loaded blob of %s: %s", line, strerror(errno));
		} else {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			if (ink_frames_add(f, path, NULL, true, why, sizeof(why)))
				warnx("profile: the loaded blob of %s: not used: %s", line, why);
		}
		if (fd >= 0)
			close(fd);
		free(data);
	}
	free(list);
}

/* How many blobs inkprobe.ko has loaded for a live target. */
static unsigned int count_loaded(void)
{
	char *list = ctl_read("blobs"), *line, *save = NULL;
	unsigned int n = 0;

	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n += !strstr(line, " waiting ");
	free(list);
	return n;
}

/*
 * The module's look-up, when it is to be used and can be: inkprobe.ko
 * loaded, with a frames file, and no blob named.  NULL otherwise.
 */
static struct kernel_frames *module_lookup(const struct profile_opts *o)
{
	const char *env = getenv("INKPROBE_BLOBS");

	if (o->nr_blobs || (env && *env))
		return NULL;
	return kernel_frames_open(ctl_path("frames"));	/* NULL if it cannot be opened */
}

static uint64_t addr_of(void *ctx, const char *module, const char *name, int dup)
{
	return ksyms_addr_of(ctx, module, name, dup);
}

static bool sym_at(void *ctx, uint64_t addr, struct ink_sym *out)
{
	return ksyms_lookup(ctx, addr, out);
}

/* ---- samples ---- */

struct recording {
	struct profile *p;
	struct ink_comms comms;
	uint64_t user_only;	/* samples without a kernel callchain */
};

/*
 * The name of task @tid now (read again for each sample: exec and
 * prctl(PR_SET_NAME) change it), else the last one seen, else NULL.
 */
static const char *comm_of(struct recording *r, uint32_t pid, uint32_t tid)
{
	char path[64], name[INK_COMM_LEN] = "";
	FILE *fp;

	if (!tid)
		return "swapper";
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	fp = fopen(path, "r");
	if (fp) {
		if (!fgets(name, sizeof(name), fp))
			name[0] = '\0';
		fclose(fp);
	}
	name[strcspn(name, "\n")] = '\0';
	if (*name)
		ink_comms_put(&r->comms, (int)tid, name, strlen(name));
	return ink_comms_get(&r->comms, (int)tid);
}

static void on_live_sample(void *ctx, const struct perf_sample *s)
{
	struct recording *r = ctx;
	struct perf_sample copy = *s;

	copy.comm = comm_of(r, s->pid, s->tid);
	if (!profile_add(r->p, &copy))
		r->user_only++;
}

static void on_file_sample(void *ctx, const struct perf_sample *s)
{
	struct recording *r = ctx;

	if (!profile_add(r->p, s))
		r->user_only++;
}

/* Samples for --duration or until a signal; 0 or the exit status. */
static int record(const struct profile_opts *o, struct recording *r, double *seconds)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct perf_sampler *s;
	char why[512];
	double start, end, t;

	s = perf_sampler_open(o->hz, o->pid, why, sizeof(why));
	if (!s) {
		warnx("profile: %s", why);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ink_comms_snapshot(&r->comms);
	start = now();
	end = start + o->duration;
	perf_sampler_enable(s);
	while (!stop && (t = now()) < end) {
		double left = (end - t) * 1000;

		perf_sampler_read(s, left < 100 ? (int)left + 1 : 100, on_live_sample, r);
	}
	perf_sampler_disable(s);
	*seconds = now() - start;
	perf_sampler_read(s, 0, on_live_sample, r);
	if (perf_sampler_lost(s))
		warnx("profile: %llu samples lost (the rings were full)",
		      (unsigned long long)perf_sampler_lost(s));
	perf_sampler_close(s);
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_opts o;
	struct recording r = { 0 };
	struct profile_info info = { .event = "cpu-clock" };
	struct perf_data_info pdi;
	struct ink_frames *frames = NULL;
	struct kernel_frames *kf;
	struct ksyms *k = NULL;
	char why[512], scope[4200];
	unsigned int nr_blobs;
	FILE *out = stdout;
	size_t i;
	int ret = parse(argc, argv, &o);

	if (ret >= 0)
		return ret;
	ret = 1;
	kf = module_lookup(&o);
	if (kf) {
		nr_blobs = count_loaded();
		info.blobs_in_module = true;
		r.p = profile_new_lookup(kernel_frames_lookup, kf);
		if (!r.p)
			die("out of memory");
	} else {
		k = ksyms_load();
		if (!k)
			warnx("profile: /proc/kallsyms has no addresses (not root?): every frame "
			      "is [unknown]");
		frames = ink_frames_new();
		if (k)
			ink_frames_set_symbols(frames, addr_of, sym_at, k);
		add_loaded(frames);
		for (i = 0; i < o.nr_blobs; i++) {
			if (ink_frames_add(frames, o.blobs[i], NULL, true, why, sizeof(why))) {
				warnx("profile: %s", why);
				goto out;
			}
		}
		ink_frames_add_list(frames, getenv("INKPROBE_BLOBS"), blob_warning);
		nr_blobs = ink_frames_count(frames);
		r.p = profile_new(k, frames);
		if (!r.p)
			die("out of memory");
	}
	if (o.input) {
		if (perf_data_read(o.input, on_file_sample, &r, &pdi, why, sizeof(why))) {
			warnx("profile: %s", why);
			goto out;
		}
		info.hz = pdi.hz;
		info.event = pdi.event;
		info.seconds = (double)(pdi.last_time - pdi.first_time) / 1e9;
		snprintf(scope, sizeof(scope), "perf.data %s", o.input);
	} else {
		info.hz = o.hz;
		if (record(&o, &r, &info.seconds))
			goto out;
		if (o.pid > 0)
			snprintf(scope, sizeof(scope), "pid %d", o.pid);
		else
			snprintf(scope, sizeof(scope), "all CPUs");
	}
	info.scope = scope;
	if (r.user_only)
		warnx("profile: %llu samples without a kernel callchain left out",
		      (unsigned long long)r.user_only);
	if (profile_resolve(r.p, why, sizeof(why))) {
		warnx("profile: %s", why);
		goto out;
	}
	if (o.out_path) {
		out = fopen(o.out_path, "w");
		if (!out) {
			warnx("profile: %s: %s", o.out_path, strerror(errno));
			goto out;
		}
	}
	if (o.output == FOLDED)
		profile_print_folded(r.p, out);
	else if (o.output == PERF_SCRIPT)
		profile_print_perf_script(r.p, out);
	else
		profile_print_report(r.p, &info, nr_blobs, out);
	if (o.output != REPORT || o.out_path)
		fprintf(stderr, "inkprobe profile: %llu samples; inline frames from %u blob%s%s\n",
			(unsigned long long)profile_samples(r.p), nr_blobs,
			nr_blobs == 1 ? "" : "s", info.blobs_in_module ? " in inkprobe.ko" : "");
	ret = 0;
	if (out != stdout && fclose(out)) {
		warnx("profile: %s: %s", o.out_path, strerror(errno));
		ret = 1;
	}
out:
	profile_free(r.p);
	ink_comms_free(&r.comms);
	ink_frames_free(frames);
	kernel_frames_free(kf);
	ksyms_free(k);
	free(o.blobs);
	return ret;
}
