# Checks a report against schema foliostat/report/v1 (man foliostat-report): every key
# the schema names, with its type. Prints the violations, one a line; nothing when valid.
def t($p; $want): (getpath($p) | type) as $got
	| if ($want | split("|") | any(.[]; . == $got)) then empty
	else "\($p | map(tostring) | join(".")): \($got), want \($want)" end;
def lat($p): if getpath($p) == null then empty else
	(t($p; "object"), (["count","p50","p90","p99","max","mean"][] as $k | t($p + [$k]; "number"))) end;
def ints($p): getpath($p) | paths(type == "number") as $q
	| if (getpath($q) | . == floor) then empty else "\($p + $q | map(tostring) | join(".")): not an integer" end;
[
	(if .schema == "foliostat/report/v1" then empty else "schema: \(.schema)" end),
	t(["tool","name"]; "string"), t(["tool","version"]; "string"),
	t(["recording","command"]; "array"), t(["recording","pid"]; "number"),
	t(["recording","kernel"]; "string"), t(["recording","started"]; "string"),
	t(["recording","duration_ns"]; "number"), t(["recording","latency_method"]; "string"), t(["recording","latency_probe_corrected"]; "boolean"),
	(if (.recording.probe_effect | type) | IN("object","null") then empty else "probe_effect: \(.recording.probe_effect | type)" end),
	(if (.recording.latency_method | IN("exact","sampled","none")) then empty else "latency_method: \(.recording.latency_method)" end),
	t(["recording","sample_period_ns"]; "number|null"),
	(if (.recording.fault_path | IN("bpf","samples",null)) then empty else "fault_path: \(.recording.fault_path)" end),
	t(["recording","fault_path_why"]; "string|null"),
	t(["recording","kernel_build_id"]; "string|null"),
	t(["recording","kernel_symbols"]; "string"),
	t(["recording","events"]; "array"), t(["recording","lost_events"]; "number"),
	t(["recording","retimed_samples"]; "number"), t(["recording","unknown_records"]; "number"),
	t(["recording","seeded_folios"]; "array"), t(["left_behind"]; "object|null"),
	t(["recording","malformed_records"]; "number"), t(["recording","bad_metadata"]; "number"),
	t(["recording","warnings"]; "array"), t(["recording","notes"]; "array"), t(["calls"]; "array"), t(["collapse","scans"]; "object"), t(["collapse","collapses"]; "object"), t(["collapse","time_ns"]; "object|null"), t(["collapse","khugepaged","scans"]; "object"), t(["collapse","other_processes","collapses"]; "number"), t(["collapse","not_attributable","scans"]; "number"), t(["swapout","whole"]; "array"), t(["swapout","split"]; "array"), t(["swapout","unknown_writes"]; "number"), t(["reclaim","direct","count"]; "number"), t(["reclaim","kswapd","awake_ns"]; "number"), t(["recording","cgroup"]; "object|null"), t(["recording","mm_threads"]; "array"),
	(((.recording.events) | keys[]) as $i | t(["recording","events",$i,"name"]; "string"),
		t(["recording","events",$i,"available"]; "boolean"), t(["recording","events",$i,"count"]; "number")),
	t(["totals","faults"]; "number"), t(["totals","fault_time_ns"]; "number"),
	t(["totals","unclosed_faults"]; "number"), t(["totals","in_flight_faults"]; "number"), t(["totals","exits_without_entry"]; "number"),
	t(["totals","untimed_faults"]; "number"), t(["totals","retimed_exits"]; "number"),
	t(["totals","unknown_order"]; "object"),
	t(["recording","page_cache"]; "object|null"),
	t(["totals","file_order_from_page_cache","added"]; "number"),
	t(["totals","file_order_from_page_cache","at_end"]; "number"),
	lat(["totals","latency_ns"]), lat(["totals","gap_ns"]),
	t(["orders"]; "array"),
	(((.orders) | keys[]) as $i |
		t(["orders",$i,"order"]; "number"), t(["orders",$i,"size_bytes"]; "number|null"),
		t(["orders",$i,"folios_allocated"]; "number"), t(["orders",$i,"faults"]; "object"),
		t(["orders",$i,"fault_time_ns"]; "object"), lat(["orders",$i,"latency_ns"]),
		t(["orders",$i,"reuse","folios"]; "number"), t(["orders",$i,"reuse","faults"]; "number"),
		t(["orders",$i,"reuse","episodes"]; "number"),
		t(["orders",$i,"reuse","faults_per_folio"]; "number"),
		t(["orders",$i,"reuse","pages_per_fault"]; "number"),
		t(["orders",$i,"reuse","effectiveness"]; "number"),
		t(["orders",$i,"reuse","surplus_time_ns"]; "number"),
		t(["orders",$i,"reuse","histogram"]; "array"),
		ints(["orders",$i,"faults"]), ints(["orders",$i,"fault_time_ns"]),
		(.orders[$i].faults | keys[] | select(IN("anon_alloc","anon_zero","wp_reuse","wp_copy","file","swap_in","other","special") | not) | "orders.\($i).faults: unknown class \(.)")),
	t(["classes"]; "array"),
	(((.classes) | keys[]) as $i | t(["classes",$i,"class"]; "string"), t(["classes",$i,"faults"]; "number"),
		t(["classes",$i,"fault_time_ns"]; "number"), lat(["classes",$i,"latency_ns"])),
	t(["pmu"]; "array"),
	(((.pmu) | keys[]) as $i | t(["pmu",$i,"event"]; "string"), t(["pmu",$i,"value"]; "number|null"),
		t(["pmu",$i,"supported"]; "boolean")),
	t(["kernel_counters","scope"]; "string"),
	(if .kernel_counters.scope == "system" then empty else "kernel_counters.scope" end),
	t(["timeline","bin_ns"]; "number"), t(["timeline","faults"]; "object"),
	ints(["timeline"]),
	ints(["totals"]), ints(["recording","duration_ns"])
] | .[]
