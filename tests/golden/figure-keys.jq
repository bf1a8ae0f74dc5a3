# The keys of compare's figures (foliostat/compare/v3, and the "aggregate" of
# foliostat/runs/v1), per section, as man foliostat-compare lists them under FIGURE
# KEYS: tests/golden/report.t checks that the man page lists exactly these, and that
# every key of the golden outputs matches one of its section's. Upper-case words stand
# for a set of values (key_regex; the longer ones are replaced first).
def key_patterns: [
	["faults", "faults"],
	["faults", "fault_time_ns"],
	["faults", "unclosed"],
	["faults", "latency.STAT_ns"],
	["orders", "order.SIZE.CLASS.faults"],
	["orders", "order.SIZE.CLASS.time_ns"],
	["orders", "order.SIZE.CLASS.STAT_ns"],
	["reuse", "reuse.faults_per_folio"],
	["reuse", "reuse.effectiveness"],
	["reuse", "reuse.faults"],
	["reuse", "reuse.folios"],
	["reuse", "reuse.surplus_time_ns"],
	["reuse", "reuse.SIZE.faults_per_folio"],
	["reuse", "reuse.SIZE.effectiveness"],
	["reuse", "reuse.SIZE.faults"],
	["reuse", "reuse.SIZE.folios"],
	["reuse", "reuse.SIZE.surplus_time_ns"],
	["folios", "folios.SIZE.allocated"],
	["calls", "calls.CALL.calls"],
	["calls", "calls.CALL.time_ns"],
	["calls", "calls.CALL.STAT_ns"],
	["mm", "collapse.collapses.RESULT"],
	["mm", "collapse.time.STAT_ns"],
	["mm", "swapout.SIZE.whole"],
	["mm", "swapout.SIZE.split"],
	["mm", "reclaim.direct.count"],
	["mm", "reclaim.direct.time.STAT_ns"],
	["mm", "reclaim.kswapd.awake_ns"],
	["phases", "phase.PHASE_ns"],
	["counters", "vmstat.VMSTAT"],
	["counters", "mthp.MTHPSIZE.MTHPSTAT"],
	["pmu", "pmu.EVENT"]
];
# A pattern as an anchored regular expression.
def key_regex: "^" + (gsub("\\."; "\\.")
	| gsub("MTHPSIZE"; "[0-9]+kB") | gsub("MTHPSTAT"; "[a-z0-9_]+") | gsub("VMSTAT"; "[a-z0-9_]+")
	| gsub("SIZE"; "([0-9]+[KMG]|unknown)")
	| gsub("CLASS"; "(anon_alloc|anon_zero|wp_reuse|wp_copy|file|swap_in|other|special)")
	| gsub("STAT"; "(mean|p50|p90|p99|max)")
	| gsub("CALL"; "(munmap|mremap|mprotect|madvise_(dontneed|free|cold|pageout|collapse|other))")
	| gsub("RESULT"; "[a-z0-9_]+") | gsub("PHASE"; ".+")
	| gsub("EVENT"; "[A-Za-z0-9_:-]+")) + "$";
# The violations of one figure's key: none, or a sentence.
def key_check($section; $key):
	if any(key_patterns[] | select(.[0] == $section); . as $p | $key | test($p[1] | key_regex))
	then empty else "key \($key) matches no pattern of section \($section)" end;
