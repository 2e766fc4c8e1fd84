# SPDX-License-Identifier: GPL-2.0
#
# make bench's report: reads the key=value results of scripts/bench (host)
# and bench/run-guest.sh (guest) and writes the "current figures" part of
# Documentation/benchmarks.rst, reST simple tables that also read well in a
# terminal.  Ratios are inkprobe / peer.
#
#   awk -f bench/report.awk build/bench/results

function has(k) { return (k in v) && v[k] != "" }
function n(k) { return (k in v) ? v[k] + 0 : 0 }
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "n/a" }
function mb(bytes) { return sprintf("%.2f MB", bytes / 1e6) }
function ns(x) { return sprintf("%.1f ns", x) }
function ms(x) { return x >= 1000 ? sprintf("%.2f s", x / 1000) : sprintf("%.0f ms", x) }
function rate(x) { return x >= 1000 ? sprintf("%.1f k/s", x / 1000) : sprintf("%d /s", x) }
function grp(x,    s, neg) {
	s = sprintf("%d", x)
	neg = s ~ /^-/
	if (neg)
		s = substr(s, 2)
	while (s ~ /[0-9][0-9][0-9][0-9]/)
		sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
	return (neg ? "-" : "") s
}
function pct(a, b) { return b > 0 ? sprintf("%.1f %%", 100 * a / b) : "n/a" }
# Hit costs of situation st from statistic stat ("ns": the fastest run, or
# "median"), over the empty kprobe (ink_over, kp_over) and over no probe
# (ink_hit, kp_hit).  With a reader, the baselines are the written runs'.
# The argument cost (written runs): with the four fetch-args - without
# (ink_args, kp_args); the floor: the event without them over no probe.
function hit_figures(st, stat,    base, none, empty) {
	base = st == "reader" ? "written" : st	# path
	none = n("hit." base ".none." stat)
	empty = n("hit." base ".empty." stat)
	ink_over = n("hit." st ".ink." stat) - empty
	kp_over = n("hit." st ".kpev." stat) - empty
	ink_hit = n("hit." st ".ink." stat) - none
	kp_hit = n("hit." st ".kpev." stat) - none
	ink_args = n("hit.written.ink." stat) - n("hit.written.ink0." stat)	# path
	kp_args = n("hit.written.kpev." stat) - n("hit.written.kpev0." stat)
	ink_floor = n("hit.written.ink0." stat) - n("hit.written.none." stat)
	kp_floor = n("hit.written.kpev0." stat) - n("hit.written.none." stat)
}

# Per-hit figures.  Under TCG the runs of one probe fall into a fast group
# and a slow group about twice as slow (kprobe_events 1,650 or 3,100 ns per
# call in one run, the empty kprobe 200 or 450), run by run, whichever probe
# is running; pairing the probes of one round does not remove that.  A
# probe's figure is the median of its fast group: its runs within 1.3 times
# its fastest (fastn[] counts them).  Probes are keys "hit.SITUATION.PROBE"
# with a "runs" list (ns per call, round order).
function rounds(k, a) { return has(k ".runs") ? split(v[k ".runs"], a, " ") : 0 }
function med(a, c,    i, j, t) {
	for (i = 2; i <= c; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return c ? a[int((c + 1) / 2)] : 0
}
function fast(k,    a, c, i, f, nf) {
	if (k == "")
		return 0
	c = rounds(k, a)
	if (!c)
		return n(k ".ns")
	med(a, c)
	nf = 0
	for (i = 1; i <= c; i++)
		if (a[i] <= 1.3 * a[1])
			f[++nf] = a[i]
	fastn[k] = nf "/" c
	return f[int((nf + 1) / 2)]
}
# The q-quantile of probe k's runs (nearest rank: the ceil(q * runs)-th
# fastest; q = 0: the fastest).
function quant(k, q,    a, c, r) {
	c = rounds(k, a)
	if (!c)
		return 0
	med(a, c)
	r = int(q * c)
	if (r < q * c)
		r++
	return a[r < 1 ? 1 : r]
}
# (a - abase) / (b - bbase) at the q-quantile of each probe's runs
function qratio(a, abase, b, bbase, q) {
	return ratio(quant(a, q) - quant(abase, q), quant(b, q) - quant(bbase, q))
}
# a - base, and (a - abase) / (b - bbase) as ratio() prints it; a base of "" is 0
function fdiff(a, base) { return fast(a) - fast(base) }
function fratio(a, abase, b, bbase) { return ratio(fast(a) - fast(abase), fast(b) - fast(bbase)) }
# A summary row: inkprobe's probe a over abase against the peer's b over bbase.
function hitrow(label, a, abase, b, bbase, goal) {
	row(label "\t" ns(fdiff(a, abase)) "\t" ns(fdiff(b, bbase)) "\t" \
	    fratio(a, abase, b, bbase) "\t" goal)
}

# A whole hit of the exits situation's probe P against kprobe_events' p + r.
function exitrow(p, label, goal) {
	if (has("hit.exits." p ".runs"))
		hitrow(label, "hit.exits." p, "hit.exits.none", "hit.exits.kpevr", "hit.exits.none", goal)
}

# Tables: row("a\tb\tc") adds a row, the first row is the header.
function row(s) { rows[nrows++] = s }
function table(    i, j, c, cells, w, line, border) {
	for (i = 0; i < nrows; i++) {
		c = split(rows[i], cells, "\t")
		if (c > ncols)
			ncols = c
		for (j = 1; j <= c; j++)
			if (length(cells[j]) > w[j])
				w[j] = length(cells[j])
	}
	border = ""
	for (j = 1; j <= ncols; j++)
		border = border (j > 1 ? "  " : "") sprintf("%s", dashes(w[j]))
	print border
	for (i = 0; i < nrows; i++) {
		c = split(rows[i], cells, "\t")
		line = ""
		for (j = 1; j <= ncols; j++)
			line = line (j > 1 ? "  " : "") pad(j <= c ? cells[j] : "", w[j])
		sub(/ +$/, "", line)
		print line
		if (i == 0)
			print border
	}
	print border
	print ""
	nrows = 0
	ncols = 0
	delete rows
}
function pad(s, k) { while (length(s) < k) s = s " "; return s }
function dashes(k,    s) { s = ""; while (k-- > 0) s = s "="; return s }
# A paragraph, wrapped at 78 columns.
function para(s,    w, c, i, line) {
	c = split(s, w, " ")
	line = ""
	for (i = 1; i <= c; i++) {
		if (line != "" && length(line) + 1 + length(w[i]) > 78) {
			print line
			line = ""
		}
		line = line (line == "" ? "" : " ") w[i]
	}
	if (line != "")
		print line
	print ""
}
# A list item, wrapped at 78 columns.
function bullet(s,    w, c, i, line) {
	c = split(s, w, " ")
	line = "*"
	for (i = 1; i <= c; i++) {
		if (length(line) + 1 + length(w[i]) > 78) {
			print line
			line = " "
		}
		line = line " " w[i]
	}
	print line
}
function title(s,    u) { u = s; gsub(/./, "-", u); print s; print u; print "" }

{
	i = index($0, "=")
	if (i)
		v[substr($0, 1, i - 1)] = substr($0, i + 1)
}

END {
	# ------------------------------------------------------- machine
	title("Machine and run")
	bullet("Host: " v["machine.cpu"] ", " v["machine.cpus"] " CPUs, " \
	       sprintf("%.0f", n("machine.mem_kb") / 1048576) " GB RAM; " v["machine.os"] \
	       ", kernel " v["machine.kernel"] ".")
	bullet("Guest: Debian " v["guest.release"] " under QEMU " v["machine.qemu"] \
	       " TCG without KVM (" v["machine.tcg"] "-threaded), " v["guest.cpus"] " vCPUs, " \
	       sprintf("%.0f", n("guest.mem_kb") / 1048576) " GB.  Absolute guest times are " \
	       "emulation times, many times a real CPU's, and TCG weighs instructions " \
	       "differently (memory accesses, interrupts and exceptions are dear): only " \
	       "ratios between figures of the same run mean something.")
	bullet("Tools: pahole " v["tool.pahole"] ", perf " v["tool.perf"] ", valgrind " \
	       v["tool.valgrind"] ", gcc " v["tool.gcc"] ".")
	bullet("Run: " v["run.date"] ", commit " v["run.commit"] ", test kernel " v["run.kernel"] \
	       (has("guest.wall_s") ? ", one guest boot for all guest rows: " \
				      v["guest.wall_s"] " s" : "") ".")
	if (has("host.load_start"))
		bullet("Host load: 1-minute load average " v["host.load_start"] " when the guest " \
		       "started, " v["host.load_end"] " when it ended; other QEMU guests running: " \
		       v["host.qemu_start"] " at the start, " v["host.qemu_end"] " at the end.  " \
		       "Other work on the host's CPUs slows the guest unevenly, which adds noise " \
		       "to the ratios too.")
	if (has("guest.skipped"))
		bullet("The guest rows were skipped (``INKPROBE_BENCH_GUEST=0``).")
	if (has("guest.dmesg"))
		bullet("The guest's kernel log has " v["guest.dmesg"] ".")
	if (has("guest.error"))
		bullet("Guest: " v["guest.error"] ".")
	print ""

	# ------------------------------------------------------- summary
	title("Summary")
	row("Benchmark\tinkprobe\tpeer\tratio\tgoal")
	row("gen vs ``pahole -J``: wall time\t" sprintf("%.2f s", n("gen.gen.wall")) "\t" \
	    sprintf("%.2f s", n("gen.pahole.wall")) "\t" ratio(n("gen.gen.wall"), n("gen.pahole.wall")) \
	    "\t<= 0.25")
	row("gen vs ``pahole -J``: peak RSS\t" sprintf("%.0f MB", n("gen.gen.rss_kb") / 1024) "\t" \
	    sprintf("%.0f MB", n("gen.pahole.rss_kb") / 1024) "\t" \
	    ratio(n("gen.gen.rss_kb"), n("gen.pahole.rss_kb")) "\t< 400 MB")
	row("blob (zstd) vs vmlinux ``.BTF`` size\t" mb(n("gen.blob")) "\t" mb(n("gen.btf")) "\t" \
	    ratio(n("gen.blob"), n("gen.btf")) "\t<= 1.5")
	row("blob ``--no-ranges`` vs ``.BTF``\t" mb(n("gen.noranges")) "\t" mb(n("gen.btf")) "\t" \
	    ratio(n("gen.noranges"), n("gen.btf")) "\t")
	if (has("gen.raw")) {
		row("raw blob (``--raw``) vs ``.BTF``\t" mb(n("gen.raw")) "\t" mb(n("gen.btf")) "\t" \
		    ratio(n("gen.raw"), n("gen.btf")) "\t")
		row("raw blob ``--no-ranges`` vs ``.BTF``\t" mb(n("gen.raw_noranges")) "\t" \
		    mb(n("gen.btf")) "\t" ratio(n("gen.raw_noranges"), n("gen.btf")) "\t")
	}
	if (has("gen.section")) {
		row("``.BTF.inline`` section alone vs ``.BTF``\t" mb(n("gen.section")) "\t" \
		    mb(n("gen.btf")) "\t" ratio(n("gen.section"), n("gen.btf")) "\t")
		row("``.BTF.inline`` ``--no-ranges`` vs ``.BTF``\t" mb(n("gen.section_noranges")) \
		    "\t" mb(n("gen.btf")) "\t" ratio(n("gen.section_noranges"), n("gen.btf")) "\t")
	}
	if (has("place.ink.ms")) {
		ink = n("place.ink.ms")
		perf = n("place.perf.ms") + n("place.perf_enable.ms")
		row("placing every ``" v["place.func"] "`` (" n("place.ink.live") " / " \
		    n("place.perf.kprobes") " kprobes)\t" ms(ink) "\t" ms(perf) "\t" ratio(ink, perf) "\t")
	}
	# --- path (issue 22): both into ftrace's ring
	nsits = split("written reader", sits, " ")
	label["written"] = "every hit written"
	label["reader"] = "reader on trace_pipe"
	W = "hit.written."
	if (has(W "ink.runs")) {
		hitrow("argument cost (4 fetch-args: with - without)", W "ink", W "ink0", W "kpev", W "kpev0", "<= 0.5")
		hitrow("floor: empty kprobe + event without args", W "ink0", W "none", W "kpev0", W "none", "")
		for (s = 1; s <= nsits; s++) {
			st = sits[s]
			S = "hit." st "."
			hitrow("hit, " label[st] ": handler overhead", S "ink", W "empty", S "kpev", W "empty", "")
			hitrow("hit, " label[st] ": whole hit", S "ink", W "none", S "kpev", W "none", "<= 0.8")
		}
	}
	# --- end path
	C = "hit.tev."
	if (has(C "tev.runs")) {
		hitrow("ftrace consumer vs kprobe_events: handler overhead", C "tev", C "empty", C "kpev", C "empty", "<= 0.5")
		hitrow("ftrace consumer vs kprobe_events: whole hit", C "tev", C "none", C "kpev", C "none", "<= 0.8")
		hitrow("filtered out, vs kprobe_events: handler overhead", C "tevf", C "empty", C "kpevf", C "empty", "")
		hitrow("filtered out, vs kprobe_events: whole hit", C "tevf", C "none", C "kpevf", C "none", "")
		hitrow("BPF on the event vs kprobe BPF by hand: overhead", C "bpft", C "empty", C "bpfk", C "empty", "")
		hitrow("BPF on the event vs kprobe BPF by hand: whole hit", C "bpft", C "none", C "bpfk", C "none", "<= 1.1")
		if (has(C "bpfs.runs")) {
			hitrow("BPF per site vs kprobe BPF by hand: overhead", C "bpfs", C "empty", C "bpfk", C "empty", "")
			hitrow("BPF per site vs kprobe BPF by hand: whole hit", C "bpfs", C "none", C "bpfk", C "none", "<= 1.1")
		}
	}
	if (has("tp.ink.lossless"))
		row("lossless events into trace_pipe\t" rate(n("tp.ink.lossless")) "\t" \
		    rate(n("tp.kpev.lossless")) "\t" ratio(n("tp.ink.lossless"), n("tp.kpev.lossless")) \
		    "\thigher is better")
	# >>> reader
	if (has("rd.inktrace.lossless"))
		row("lossless events read: inkprobe trace vs trace-cmd record (kprobe_events event)\t" \
		    rate(n("rd.inktrace.lossless")) "\t" rate(n("rd.tcrecord.lossless")) "\t" \
		    ratio(n("rd.inktrace.lossless"), n("rd.tcrecord.lossless")) "\t")
	if (has("rd.inkrecord.lossless"))
		row("lossless events recorded: inkprobe trace -o vs trace-cmd record\t" \
		    rate(n("rd.inkrecord.lossless")) "\t" rate(n("rd.tcrecord.lossless")) "\t" \
		    ratio(n("rd.inkrecord.lossless"), n("rd.tcrecord.lossless")) "\t>= 1.0")
	# <<< reader
	if (has("val.vmlinux.instances"))
		row("validation per instance, vmlinux blob\t" \
		    sprintf("%.0f Ir", (n("val.vmlinux.parse") + n("val.vmlinux.btf") + \
					n("val.vmlinux.check")) / n("val.vmlinux.instances")) "\t\t\t")
	if (has("blobload.vmlinux.ms"))
		row("loading the vmlinux blob (guest)\t" ms(n("blobload.vmlinux.ms")) "\t\t\t")
	exitrow("inkr", "entry + exit per call: inlined copy (p + r) vs kprobe_events p + r out of line, whole hit",
		"<= 0.8")
	exitrow("inkd", "call duration: inlined copy (r $duration, one record) vs kprobe_events p + r, whole hit",
		"<= 0.8")
	exitrow("kpev2", "floor, two records: kprobe_events p at the copy's entry and exit pcs vs p + r, whole hit",
		"")
	exitrow("kpevx", "floor, one record: empty kprobe at the entry + kprobe_events p at the exit vs p + r",
		"")
	# profile: each command's median run (warm caches; bench/run-guest.sh's
	# profile_rounds); rates in samples/s
	if (has("profile.ink.ms") && has("profile.a2l.ms") && n("profile.samples") > 0)
		row("profile symbolization, " grp(n("profile.samples")) " samples: inkprobe profile -i " \
		    "(inkprobe.ko's blobs) vs perf script + addr2line -i (DWARF vmlinux)\t" \
		    rate(n("profile.samples") * 1000 / n("profile.ink.ms")) "\t" \
		    rate(n("profile.samples") * 1000 / n("profile.a2l.ms")) "\t" \
		    ratio(n("profile.a2l.ms"), n("profile.ink.ms")) "\t>= 50")
	if (has("profile.inktool.ms") && has("profile.a2l.ms") && n("profile.samples") > 0)
		row("profile symbolization: inkprobe profile -i --blob (the tool's own look-up) vs " \
		    "perf script + addr2line -i\t" \
		    rate(n("profile.samples") * 1000 / n("profile.inktool.ms")) "\t" \
		    rate(n("profile.samples") * 1000 / n("profile.a2l.ms")) "\t" \
		    ratio(n("profile.a2l.ms"), n("profile.inktool.ms")) "\t")
	if (has("profile.start.ms") && has("profile.a2l.ms"))
		row("profile symbolization, ceiling: the tool's start and exit alone (``inkprobe help``; " \
		    "``/bin/true``: " ms(n("profile.true.ms")) ") vs perf script + addr2line -i\t" \
		    ms(n("profile.start.ms")) "\t" ms(n("profile.a2l.ms")) "\t" \
		    ratio(n("profile.a2l.ms"), n("profile.start.ms")) "\t")
	if (has("profile.ra128.ink.ms") && n("profile.samples") > 0)
		row("profile symbolization, the guest's root with a disk's read-ahead (128 KB): " \
		    "inkprobe profile -i vs perf script + addr2line -i (start alone: " \
		    ms(n("profile.ra128.start.ms")) ")\t" \
		    rate(n("profile.samples") * 1000 / n("profile.ra128.ink.ms")) "\t" \
		    rate(n("profile.samples") * 1000 / n("profile.ra128.a2l.ms")) "\t" \
		    ratio(n("profile.ra128.a2l.ms"), n("profile.ra128.ink.ms")) "\t")
	if (has("profile.ink.ms") && has("profile.perf.ms") && n("profile.samples") > 0)
		row("profile: inkprobe profile -i vs perf report --inline (" \
		    grp(n("profile.perf.inlined")) " inline frames printed)\t" \
		    rate(n("profile.samples") * 1000 / n("profile.ink.ms")) "\t" \
		    rate(n("profile.samples") * 1000 / n("profile.perf.ms")) "\t" \
		    ratio(n("profile.perf.ms"), n("profile.ink.ms")) "\t")
	K = "hit.stack."
	if (has(K "inks.runs")) {
		hitrow("stack per hit: capture alone", K "inks", K "ink", K "kpevs", K "kpev", "")
		hitrow("stack per hit: whole hit with stack", K "inks", K "none", K "kpevs", K "none", "<= 1.1")
	}
	table()
	para("Ratios are inkprobe / peer: below 1 inkprobe is faster or smaller, except for throughput.")
	if (length(fastn)) {
		m = "Per-hit figures: each probe's runs (one per round, " n("hit.repeat") " rounds, " \
		    "the probes of a situation in turn) fall into a fast and a slow group, the slow " \
		    "about twice the fast, run by run; a probe's figure is the median of its fast " \
		    "group (its runs within 1.3 times its fastest), differences and ratios are " \
		    "taken between those.  Runs in the fast group, per probe:"
		nk = 0
		for (k in fastn)
			keys[++nk] = k
		for (i = 2; i <= nk; i++)
			for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) {
				t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t
			}
		for (i = 1; i <= nk; i++) {
			k = keys[i]
			sub(/^hit\./, "", k)
			m = m " " k " " fastn[keys[i]] (i < nk ? "," : ".")
		}
		para(m)
	}
	# The exits rows from low quantiles: under TCG the fast group spreads over
	# its whole 30 % band, and its median moves with how many slower runs it
	# takes in (Documentation/exit-probes.rst, "The cost of a hit").
	if (has("hit.exits.inkd.runs")) {
		m = "The exits rows from each probe's fastest run, 10th and 25th percentile of its " \
		    "runs instead (nearest rank; each over no probe's same quantile, against " \
		    "kprobe_events p + r's):"
		split("inkr inkd kpev2 kpevx", eps, " ")
		split("entry + exit;call duration;floor, two records;floor, one record", elab, ";")
		sep = ""
		for (i = 1; i <= 4; i++) {
			k = "hit.exits." eps[i]
			if (!has(k ".runs"))
				continue
			m = m sep " " elab[i] " " \
			    qratio(k, "hit.exits.none", "hit.exits.kpevr", "hit.exits.none", 0) " / " \
			    qratio(k, "hit.exits.none", "hit.exits.kpevr", "hit.exits.none", 0.1) " / " \
			    qratio(k, "hit.exits.none", "hit.exits.kpevr", "hit.exits.none", 0.25)
			sep = ";"
		}
		para(m ".")
	}

	# ------------------------------------------------------- gen
	title("gen and pahole")
	para("Both read the same DWARF vmlinux (Debian " v["run.kernel"] \
	     " ``-dbg``, page cache warm) on the host; wall time and peak RSS from ``/usr/bin/time``.")
	row("Run\twall\tpeak RSS\toutput")
	row("``pahole -J --btf_encode_detached``\t" sprintf("%.2f s", n("gen.pahole.wall")) "\t" \
	    sprintf("%.0f MB", n("gen.pahole.rss_kb") / 1024) "\t.BTF in the vmlinux: " mb(n("gen.btf")))
	row("``inkprobe gen``\t" sprintf("%.2f s", n("gen.gen.wall")) "\t" \
	    sprintf("%.0f MB", n("gen.gen.rss_kb") / 1024) "\tblob " mb(n("gen.blob")) \
	    (has("gen.raw") ? " (raw " mb(n("gen.raw")) ")" : ""))
	row("``inkprobe gen -j 1``\t" sprintf("%.2f s", n("gen.gen1.wall")) "\t\t")
	row("``inkprobe gen --no-ranges``\t\t\tblob " mb(n("gen.noranges")) \
	    (has("gen.raw_noranges") ? " (raw " mb(n("gen.raw_noranges")) ")" : ""))
	table()
	para("Two runs and ``-j 1`` give the same bytes: " v["gen.same"] ".")

	# ------------------------------------------------------- placement
	if (has("place.ink.ms")) {
		title("Placing probes on every instance")
		para("``" v["place.func"] "`` has " n("place.ink.probes") \
		     " instances in the blob.  inkprobe: the blob is loaded, one write to ``probes`` " \
		     "finds the instances and registers one enabled kprobe each.  perf: " \
		     "``perf probe -k vmlinux-dbg --max-probes 4096 -a FUNC`` in the same guest " \
		     "reads the DWARF and writes disabled kprobe_events; enabling them arms the kprobes.")
		row("Step\ttime\tkprobes")
		row("inkprobe: ``echo 'p:bench/place FUNC' >> probes``\t" ms(n("place.ink.ms")) "\t" \
		    n("place.ink.live") " live")
		row("inkprobe: finding instances only, one scan (diagnostic)\t" \
		    ms(n("place.ink_lookup.ms")) "\t")
		row("inkprobe: the same with kprobe optimization off (diagnostic)\t" \
		    ms(n("place.ink_noopt.ms")) "\t" n("place.ink_noopt.kprobes"))
		row("inkprobe: removal\t" ms(n("place.ink.remove.ms")) "\t")
		row("``perf probe -a FUNC`` (DWARF, disabled events)\t" ms(n("place.perf.ms")) "\t" \
		    n("place.perf.events") " events")
		row("enabling perf's events\t" ms(n("place.perf_enable.ms")) "\t" \
		    n("place.perf.kprobes") " live")
		row("``perf probe -d``\t" ms(n("place.perf.remove.ms")) "\t")
		if (has("place.kpev_write.ms")) {
			row("kprobe_events alone: perf's definitions written back\t" \
			    ms(n("place.kpev_write.ms")) "\t")
			row("kprobe_events alone: enabling them\t" ms(n("place.kpev_enable.ms")) "\t" \
			    n("place.kpev.kprobes") " live")
			row("kprobe_events alone: removal\t" ms(n("place.kpev.remove.ms")) "\t")
		}
		table()
	}

	# ------------------------------------------------------- hit cost (path)
	if (has("hit.written.ink.ns")) {
		title("Cost per hit")
		para("``bench N`` at ``tgt_bench_caller+0x5`` (inkprobe_target): ns per call, " \
		     "the median of the fast group of " n("hit.repeat") " rounds' runs (below); in each round every probe of the " \
		     "situation in turn is placed, its jump awaited, then 1000 warm-up calls " \
		     "and one timed run of N calls (the written / lost counts include the " \
		     "warm-ups).  Both tracers write into ftrace's ring, the top-level buffer, " \
		     "which overwrites: every hit is written.  Every hit written: nobody reads.  " \
		     "Reader: a reader drains trace_pipe, the bench on CPU 0, the reader on " \
		     "CPU 1.  inkprobe: ``" \
		     "p:b/mix tgt_bench_mix reg konst obj weight=obj->weight``, its trace event " \
		     "enabled; kprobe_events: " \
		     "``p:kp/b inkprobe_target:tgt_bench_caller+5 reg=%di:u64 konst=\\9:s32 " \
		     "obj=%si:x64 weight=+8(%si):u32``, enabled.  Without arguments: ``p:b/mix " \
		     "tgt_bench_mix`` and ``p:kp/b inkprobe_target:tgt_bench_caller+5``.  The probes " \
		     "were " placedall() ".")
		row("Situation\tno probe\tempty\tkprobe_events\tinkprobe\tink written / lost\t" \
		    "read ink / kpev\tIWI ink / kpev")
		for (s = 1; s <= nsits; s++) {
			st = sits[s]
			what = st == "written" ? "every hit written, N=" n("hit.written_n") : \
			       "reader, N=" n("hit.n")
			rd = st == "reader" ? grp(n("hit.reader.ink.read")) " / " \
			    grp(n("hit.reader.kpev.read")) " of " grp(n("hit.reader.kpev.hits")) : \
			    "(overwritten)"
			row(what "\t" ns(fast("hit.written.none")) "\t" ns(fast("hit.written.empty")) \
			    "\t" ns(fast("hit." st ".kpev")) "\t" ns(fast("hit." st ".ink")) "\t" \
			    grp(n("hit." st ".ink.written")) " / " grp(n("hit." st ".ink.lost")) "\t" rd \
			    "\t" n("hit." st ".ink.iwi") " / " n("hit." st ".kpev.iwi"))
		}
		row("every hit written, no args\t\t\t" ns(fast("hit.written.kpev0")) "\t" \
		    ns(fast("hit.written.ink0")) "\t" grp(n("hit.written.ink0.written")) " / " \
		    grp(n("hit.written.ink0.lost")) "\t\t")
		table()
		W = "hit.written."
		para("Split of the written hit (fast groups): recording an event " \
		     "without arguments (over the empty kprobe) costs inkprobe " \
		     ns(fdiff(W "ink0", W "empty")) ", kprobe_events " ns(fdiff(W "kpev0", W "empty")) \
		     " (ratio " fratio(W "ink0", W "empty", W "kpev0", W "empty") "); fetching the four " \
		     "arguments into the record (the argument cost) costs inkprobe " \
		     ns(fdiff(W "ink", W "ink0")) ", kprobe_events " ns(fdiff(W "kpev", W "kpev0")) \
		     " (ratio " fratio(W "ink", W "ink0", W "kpev", W "kpev0") ").  The floor, an " \
		     "empty kprobe and an event without arguments, over no probe: inkprobe " \
		     ns(fdiff(W "ink0", W "none")) ", kprobe_events " ns(fdiff(W "kpev0", W "none")) \
		     ".  With a reader, the no-probe and empty-kprobe figures are those of the " \
		     "written runs (nothing is read for them).  IWI: the IRQ work interrupts " \
		     "counted in /proc/interrupts during the runs.")
		hit_figures("written", "ns")
		m = "The same ratios from each probe's fastest run instead: argument cost " \
		    ratio(ink_args, kp_args) ";"
		for (s = 1; s <= nsits; s++) {
			hit_figures(sits[s], "ns")
			m = m " " label[sits[s]] ", handler overhead " ratio(ink_over, kp_over) \
			    ", whole hit " ratio(ink_hit, kp_hit) (s < nsits ? ";" : ".")
		}
		para(m)
	}
	# --- end path

	# ------------------------------------------------------- consumers
	if (has("hit.tev.tev.ns")) {
		title("Consumers of the trace event")
		para("The runs of the cost-per-hit rows (``bench " n("hit.written_n") "`` at " \
		     "``tgt_bench_caller+0x5``, 1000 warm-up calls, the median of the fast group of " n("hit.repeat") \
		     " rounds' runs, every probe once per round): inkprobe's trace event " \
		     "enabled in ftrace (nobody reads; ftrace overwrites) against kprobe_events' " \
		     "event with the same fetch-args; both with the filter ``konst != 9``, which " \
		     "rejects every hit; a BPF tracepoint program on inkprobe's event " \
		     "(``bench/bpfbench.bpf.c``, ``uapi/inkprobe_bpf.h``) against a kprobe BPF " \
		     "program at the same address that reads ``%di``, ``%si`` and ``+8(%si)`` " \
		     "itself; a kprobe BPF program at that address that reads the arguments " \
		     "itself from inkprobe's per-site spec (``uapi/inkprobe_site.bpf.h``, " \
		     "attached by ``inkprobe_site_attach()``, the definition removed once " \
		     "attached); all add the same values to the same counters and return 0.")
		row("Probe\tns per call\tover empty kprobe\tover no probe\tcheck")
		lab["none"] = "no probe"
		lab["empty"] = "empty kprobe"
		lab["kpev"] = "kprobe_events"
		lab["tev"] = "inkprobe, ftrace consumer"
		lab["kpevf"] = "kprobe_events, filtered out"
		lab["tevf"] = "inkprobe, filtered out"
		lab["bpfk"] = "kprobe BPF, registers by hand"
		lab["bpft"] = "BPF on inkprobe's event"
		lab["bpfs"] = "BPF per site (USDT model)"
		split("none empty kpev tev kpevf tevf bpfk bpft bpfs", cs, " ")
		for (c = 1; c <= 9; c++) {
			k = "hit.tev." cs[c]
			if (!has(k ".ns"))
				continue
			chk = ""
			if (has(k ".kept"))
				chk = "kept " n(k ".kept")
			if (has(k ".bpfhits"))
				chk = grp(n(k ".bpfhits")) " hits, sum " \
				      (n(k ".bpfsum") == n(k ".bpfwant") && n(k ".bpfmissing") == 0 ? \
				       "as passed" : "WRONG: " v[k ".bpfsum"] " for " v[k ".bpfwant"])
			row(lab[cs[c]] "\t" ns(fast(k)) "\t" \
			    (c > 2 ? ns(fdiff(k, "hit.tev.empty")) : "") "\t" \
			    (c > 1 ? ns(fdiff(k, "hit.tev.none")) : "") "\t" chk)
		}
		table()
		m = "From each probe's fastest run instead: ftrace consumer, handler overhead " \
		    ratio(n("hit.tev.tev.ns") - n("hit.tev.empty.ns"), \
			  n("hit.tev.kpev.ns") - n("hit.tev.empty.ns")) ", whole hit " \
		    ratio(n("hit.tev.tev.ns") - n("hit.tev.none.ns"), \
			  n("hit.tev.kpev.ns") - n("hit.tev.none.ns")) "; filtered out, whole hit " \
		    ratio(n("hit.tev.tevf.ns") - n("hit.tev.none.ns"), \
			  n("hit.tev.kpevf.ns") - n("hit.tev.none.ns")) "; BPF, whole hit " \
		    ratio(n("hit.tev.bpft.ns") - n("hit.tev.none.ns"), \
			  n("hit.tev.bpfk.ns") - n("hit.tev.none.ns")) \
		    (has("hit.tev.bpfs.ns") ? "; BPF per site, whole hit " \
		     ratio(n("hit.tev.bpfs.ns") - n("hit.tev.none.ns"), \
			   n("hit.tev.bpfk.ns") - n("hit.tev.none.ns")) : "") "."
		para(m)
	}

	# ------------------------------------------------------- throughput
	if (has("tp.ink.lossless")) {
		title("Throughput into trace_pipe")
		para("A writer on CPU 0 makes calls at a fixed rate (bursts of rate/1000 calls, " \
		     "1000 per second) for " n("tp.trial_s") " s while a reader on CPU 1 reads " \
		     "ftrace's trace_pipe, where both events go (top-level buffer); lossless " \
		     "means the reader got as many lines as there were hits (inkprobe's stats, " \
		     "``ftrace_hits``; kprobe_events' kprobe_profile).  The rate doubles from " \
		     rate(n("tp.start_rate")) " until a trial loses, then " n("tp.bisect") \
		     " bisections.  ftrace's buffer as configured by default: " n("tp.ftrace_kb") \
		     " KB per CPU.")
		row("Tracer\tlossless up to\tfirst loss at\tflat out: calls\tflat out: events read")
		row("inkprobe\t" rate(n("tp.ink.lossless")) "\t" tpbad(v["tp.ink.first_loss"]) "\t" \
		    rate(n("tp.ink.flat.rate")) "\t" rate(n("tp.ink.flat.read") / max1(n("tp.ink.flat.secs"))))
		row("kprobe_events\t" rate(n("tp.kpev.lossless")) "\t" tpbad(v["tp.kpev.first_loss"]) "\t" \
		    rate(n("tp.kpev.flat.rate")) "\t" \
		    rate(n("tp.kpev.flat.read") / max1(n("tp.kpev.flat.secs"))))
		table()
	}

	# >>> reader: inkprobe trace against trace-cmd
	if (has("rd.inktrace.lossless")) {
		title("Reading the ring: inkprobe trace and trace-cmd")
		para("The kprobe_events event at ``tgt_bench_caller+0x5`` (four fetch-args), " \
		     "enabled only in each reader's own buffer: ``inkprobe trace -e kp/b`` (its " \
		     "instance, text to a file), ``inkprobe trace -e kp/b -o FILE`` (its instance, " \
		     "pages copied to a file, formatted later by ``inkprobe trace -i``), " \
		     "``trace-cmd record -e kp:b`` (the top level, pages " \
		     "spliced to a file, formatted later by ``trace-cmd report``), trace-cmd " v["rd.trace_cmd"] \
		     ".  The reader on CPU 1, a writer on CPU 0 making calls at a fixed rate for " \
		     n("rd.trial_s") " s; lossless: the reader has one event per call.  The rate " \
		     "doubles until a trial loses, then bisects, as above; buffers as the kernel makes " \
		     "them (" n("rd.ftrace_kb") " KB per CPU).  QEMU TCG, single-threaded: the two " \
		     "vCPUs share one host thread, so a reader's work is taken from the writer's time.  " \
		     "A reader that never lost is limited by the writer, not by itself: then its " \
		     "rate is a lower bound and the ratio against it an upper bound.")
		row("Reader\tlossless up to\tfirst loss at\tflat out: calls\tflat out: events read\t" \
		    "vs trace-cmd record")
		nr = split("inktrace inkrecord tcrecord", rdr, " ")
		lab["inktrace"] = "``inkprobe trace``"
		lab["inkrecord"] = "``inkprobe trace -o``"
		lab["tcrecord"] = "``trace-cmd record``"
		for (r = 1; r <= nr; r++) {
			c = rdr[r]
			if (!has("rd." c ".lossless"))
				continue
			row(lab[c] "\t" rate(n("rd." c ".lossless")) "\t" tpbad(v["rd." c ".first_loss"]) \
			    "\t" rate(n("rd." c ".flat.rate")) "\t" \
			    rate(n("rd." c ".flat.read") / max1(n("rd." c ".flat.secs"))) "\t" \
			    ratio(n("rd." c ".lossless"), n("rd.tcrecord.lossless")))
		}
		table()
	}
	# <<< reader

	# ------------------------------------------------------- validation
	if (has("val.vmlinux.instances")) {
		title("Blob validation and load")
		para("The shared validator (``lib/``) as the module runs it, under callgrind " \
		     "(instructions, repeatable), built with the tool's flags.  The vmlinux BTF " \
		     "index is built once per module load; the other phases run per blob.")
		row("Phase\tvmlinux blob\tper instance\ttarget blob\tper instance")
		split("parse btf check", ph, " ")
		lab["parse"] = "``ink_blob_parse``"
		lab["btf"] = "split BTF open + index"
		lab["check"] = "``ink_blob_check_btf``"
		tv = 0; tt = 0
		for (p = 1; p <= 3; p++) {
			a = n("val.vmlinux." ph[p]); b = n("val.target." ph[p])
			tv += a; tt += b
			row(lab[ph[p]] "\t" grp(a) "\t" sprintf("%.0f", a / max1(n("val.vmlinux.instances"))) \
			    "\t" grp(b) "\t" sprintf("%.0f", b / max1(n("val.target.instances"))))
		}
		row("total per blob\t" grp(tv) "\t" sprintf("%.0f", tv / max1(n("val.vmlinux.instances"))) \
		    "\t" grp(tt) "\t" sprintf("%.0f", tt / max1(n("val.target.instances"))))
		row("vmlinux BTF index (once)\t" grp(n("val.vmlinux.base")) "\t\t\t")
		row("instances\t" grp(n("val.vmlinux.instances")) "\t\t" grp(n("val.target.instances")) "\t")
		if (has("blobload.vmlinux.ms"))
			row("guest: ``cat BLOB > blob`` (wall, TCG)\t" ms(n("blobload.vmlinux.ms")) "\t" \
			    sprintf("%.2f us", 1000 * n("blobload.vmlinux.ms") / max1(n("blobload.vmlinux.instances"))) \
			    "\t" ms(n("blobload.target.ms")) "\t" \
			    sprintf("%.0f us", 1000 * n("blobload.target.ms") / max1(n("blobload.target.instances"))))
		table()
	}

	# ------------------------------------------------------- stack
	if (has("hit.stack.inks.ns")) {
		title("Stack capture")
		para("At ``tgt_bench_caller+0x5``, every hit written into ftrace's ring (" \
		     grp(n("hit.written_n")) " calls per run), the median of the fast group of " n("hit.repeat") \
		     " rounds' runs: each tracer with its four fetch-args, " \
		     "then the same probe with a stack per hit -- inkprobe's ``stacktrace`` option " \
		     "(ORC, with the inline frames of the probed instance), kprobe_events' " \
		     "``stacktrace`` event trigger (ORC from the trigger's own frame, ``__trace_stack``, as a " \
		     "second ring-buffer event).  Frames: lines of one event's stack as each prints it.")
		row("Probe\tns per call\tover no probe\tframes")
		split("none ink inks kpev kpevs", pr, " ")
		lab["none"] = "no probe"
		lab["ink"] = "inkprobe"
		lab["inks"] = "inkprobe, ``stacktrace``"
		lab["kpev"] = "kprobe_events"
		lab["kpevs"] = "kprobe_events, ``stacktrace`` trigger"
		for (p = 1; p <= 5; p++) {
			c = pr[p]
			row(lab[c] "\t" ns(fast("hit.stack." c)) "\t" \
			    (c == "none" ? "" : ns(fdiff("hit.stack." c, "hit.stack.none"))) "\t" \
			    (has("stack." c ".frames") ? v["stack." c ".frames"] : ""))
		}
		table()
		para("Lost: inkprobe " grp(n("hit.stack.inks.lost")) " of " grp(n("hit.stack.inks.hits")) \
		     " hits with stacks; " placedall())
	}
}

# "optimized" when every probe of the hit-cost row was, else the list.
function placedall(    k, all, out) {
	all = 1
	out = ""
	for (k in v)
		if (k ~ /^hit\..*\.placed$/ && v[k] != "none") {
			if (v[k] != "optimized")
				all = 0
			out = out " " k "=" v[k]
		}
	return all ? "all optimized: the measuring started once kprobes had written " \
		"the jump (``inkbench opcode`` reads it through /proc/kcore)" : "placed as:" out
}
function max1(x) { return x > 0 ? x : 1 }
function tpbad(x)
{
	return x == "slow" ? "not reached (writer's limit)" : x == 0 ? "n/a" : rate(x + 0)
}
