// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, in the guest: runs one of bench/bpfbench.bpf.c's programs
 * until SIGTERM or SIGINT.
 *
 *   bpfbench OBJ decoded
 *	the tracepoint program on inkprobe's event b/mix
 *   bpfbench OBJ by_hand FUNC OFFSET
 *	the kprobe program at FUNC+OFFSET (the perf kprobe PMU)
 *   bpfbench OBJ per_site GROUP/EVENT [cookie]
 *	the kprobe program at every instance of inkprobe's GROUP/EVENT,
 *	a copy of it for each distinct spec (inkprobe_site_attach_obj()),
 *	or with "cookie" the program itself reading each instance's spec
 *	from its map (inkprobe_site_attach())
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

/*
 * "insns=N jited=B" of the program the hits run: @prog, or with @copy the
 * newest program of its name (the copy inkprobe_site_attach_obj() made):
 * its instructions after the verifier and its machine code's bytes.
 */
static void print_size(const struct bpf_program *prog, int copy)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), id = 0, want;
	int fd;

	memset(&info, 0, len);
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return;
	want = info.id;
	while (copy && !bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    !strcmp(info.name, bpf_program__name(prog)) && id > want)
			want = id;
		if (fd >= 0)
			close(fd);
	}
	fd = bpf_prog_get_fd_by_id(want);
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
		printf(" insns=%u jited=%u", info.xlated_prog_len / 8, info.jited_prog_len);
	if (fd >= 0)
		close(fd);
}

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
	int zero = 0, per_site = argc > 2 && !strcmp(argv[2], "per_site");

	if (argc < 3 || (strcmp(argv[2], "decoded") && (strcmp(argv[2], "by_hand") || argc != 5) &&
			 (!per_site || argc < 4 || argc > 5 ||
			  (argc == 5 && strcmp(argv[4], "cookie"))))) {
		fprintf(stderr, "usage: bpfbench OBJ decoded | bpfbench OBJ by_hand FUNC OFFSET | bpfbench OBJ per_site GROUP/EVENT [cookie]\n");
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
	if (per_site) {
		struct inkprobe_site_opts so = { .sz = sizeof(so), .obj_path = argv[1] };

		if (argc == 5)
			sites = inkprobe_site_attach(prog,
						     bpf_object__find_map_by_name(obj, "inkprobe_specs"),
						     argv[3], err, sizeof(err));
		else
			sites = inkprobe_site_attach_obj(obj, argv[2], argv[3], &so, err, sizeof(err));
		if (!sites) {
			fprintf(stderr, "bpfbench: %s\n", err);
			return 1;
		}
		/* for the log: which path the hits take */
		fprintf(stderr, "bpfbench: %s: %d instances, %d through %d copies\n", argv[3],
			inkprobe_site_count(sites), inkprobe_site_specialised(sites),
			inkprobe_site_programs(sites));
	} else if (argc == 5) {
		LIBBPF_OPTS(bpf_kprobe_opts, opts, .offset = strtoul(argv[4], NULL, 0));

		link = bpf_program__attach_kprobe_opts(prog, argv[3], &opts);
	} else {
		link = bpf_program__attach(prog);
	}
	if (!link && !sites) {
		fprintf(stderr, "bpfbench: attaching %s failed: %s\n", argv[2], strerror(errno));
		return 1;
	}
	printf("ready");
	print_size(prog, sites && inkprobe_site_specialised(sites));
	printf("\n");
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
