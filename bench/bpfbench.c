// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, in the guest: runs one of bench/bpfbench.bpf.c's programs
 * until SIGTERM or SIGINT.
 *
 *   bpfbench OBJ decoded
 *	the tracepoint program on inkprobe's event b/mix
 *   bpfbench OBJ by_hand FUNC OFFSET
 *	the kprobe program at FUNC+OFFSET (the perf kprobe PMU)
 *   bpfbench OBJ per_site GROUP/EVENT
 *	the kprobe program at every instance of inkprobe's GROUP/EVENT,
 *	with its specs (inkprobe_site_attach())
 *
 * Prints "ready" once attached, then at the end "hits=N sum=S missing=M":
 * the program's counters.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../user/site/inkprobe_attach.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct counters {
	unsigned long long hits, sum, missing;
};

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_object *obj;
	struct bpf_program *prog, *p;
	struct bpf_link *link = NULL;
	struct inkprobe_site_link *sites = NULL;
	char err[256];
	struct bpf_map *bss;
	struct counters c;
	char *value;
	int zero = 0;

	if (argc < 3 || (strcmp(argv[2], "decoded") && (strcmp(argv[2], "by_hand") || argc != 5) &&
			 (strcmp(argv[2], "per_site") || argc != 4))) {
		fprintf(stderr, "usage: bpfbench OBJ decoded | bpfbench OBJ by_hand FUNC OFFSET | bpfbench OBJ per_site GROUP/EVENT\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bpfbench: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, argv[2]);
	if (!prog) {
		fprintf(stderr, "bpfbench: no program %s\n", argv[2]);
		return 1;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, p == prog);
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bpfbench: loading %s failed\n", argv[1]);
		return 1;
	}
	if (argc == 5) {
		LIBBPF_OPTS(bpf_kprobe_opts, opts, .offset = strtoul(argv[4], NULL, 0));

		link = bpf_program__attach_kprobe_opts(prog, argv[3], &opts);
	} else if (argc == 4) {
		sites = inkprobe_site_attach(prog, bpf_object__find_map_by_name(obj, "inkprobe_specs"),
					     argv[3], err, sizeof(err));
		if (!sites) {
			fprintf(stderr, "bpfbench: %s\n", err);
			return 1;
		}
	} else {
		link = bpf_program__attach(prog);
	}
	if (!link && !sites) {
		fprintf(stderr, "bpfbench: attaching %s failed: %s\n", argv[2], strerror(errno));
		return 1;
	}
	printf("ready\n");
	while (!stop)
		pause();
	bpf_link__destroy(link);
	inkprobe_site_detach(sites);
	bss = bpf_object__find_map_by_name(obj, ".bss");
	if (!bss || bpf_map__value_size(bss) < sizeof(c)) {
		fprintf(stderr, "bpfbench: no .bss map\n");
		return 1;
	}
	value = calloc(1, bpf_map__value_size(bss));
	if (!value || bpf_map_lookup_elem(bpf_map__fd(bss), &zero, value)) {
		fprintf(stderr, "bpfbench: reading the counters failed\n");
		return 1;
	}
	memcpy(&c, value, sizeof(c));
	printf("hits=%llu sum=%llu missing=%llu\n", c.hits, c.sum, c.missing);
	free(value);
	bpf_object__close(obj);
	return 0;
}
