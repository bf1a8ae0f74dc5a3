# Checks foliostat/compare/v3 (man foliostat-compare), and foliostat/runs/v1 (its
# "aggregate" and "compare"), as schema.jq does the report. Prints the violations.
# jq -L tests/golden: the figures' keys are figure-keys.jq's.
include "figure-keys";
def t($p; $want): (getpath($p) | type) as $got
	| if ($want | split("|") | any(.[]; . == $got)) then empty
	else "\($p | map(tostring) | join(".")): \($got), want \($want)" end;
def desc($p): t($p; "object"), (["n","mean","stddev","cv","min","median","max"][] as $k | t($p + [$k]; "number"));
def figure($p): (["key","label","section","unit","better"][] as $k | t($p + [$k]; "string")),
	(getpath($p) | key_check(.section; .key)),
	t($p + ["system_wide"]; "boolean"),
	(if (getpath($p + ["unit"]) | IN("count","ns","ratio","percent")) then empty else "\($p | map(tostring) | join(".")): unit" end),
	(if (getpath($p + ["better"]) | IN("lower","higher","none")) then empty else "\($p | map(tostring) | join(".")): better" end);
def probe($p): t($p; "array"), ((getpath($p) | keys[]) as $i | t($p + [$i, "phase"]; "string"),
	desc($p + [$i, "untraced_ns"]), desc($p + [$i, "recorded_ns"]), t($p + [$i, "added_ns"]; "number"),
	t($p + [$i, "faults"]; "number"), t($p + [$i, "added_ns_per_fault"]; "number|null"));
def compare($c): ($c | if .schema == "foliostat/compare/v3" then empty else "schema: \(.schema)" end),
	(($c.sides | keys[]) as $s | t(["sides", $s, "name"]; "string"), t(["sides", $s, "runs"]; "number"),
		t(["sides", $s, "recordings"]; "number"),
		t(["sides", $s, "kernel"]; "string|null"), t(["sides", $s, "command"]; "array|null"),
		t(["sides", $s, "left_out"]; "array"),
		(($c.sides[$s].left_out | keys[]) as $o | t(["sides", $s, "left_out", $o, "run"]; "number"),
			t(["sides", $s, "left_out", $o, "last"]; "number"), t(["sides", $s, "left_out", $o, "why"]; "string"))),
	(["fdr","min_runs","tested","state","floor"][] as $k | if ($c.test[$k] | type) == "number" then empty else "test.\($k)" end),
	(if $c.test.over | IN("runs","interleaved runs","recordings") then empty else "test.over" end),
	(if ($c.test | has("order")) and ($c.test.order | IN(null,"alternate","one after the other")) then empty else "test.order" end),
	(if ($c.test.p_kept | type) | IN("number","null") then empty else "test.p_kept" end),
	t(["gmean", "figures"]; "number"), t(["gmean", "values"]; "array"),
	(($c.gmean.values | keys[]) as $s | t(["gmean", "values", $s]; "number|null")),
	(if ($c.gmean.values | length) == ($c.sides | length) then empty else "gmean.values" end),
	(if $c.sites then ($c.sites as $st | t(["sites", "keys"]; "array"), t(["sites", "rows_total"]; "number"),
		t(["sites", "test", "tested"]; "number"), t(["sites", "test", "p_kept"]; "number|null"),
		(($st.rows | keys[]) as $r | t(["sites", "rows", $r, "key"]; "object"),
			(["faults", "time_ns"][] as $k | ($st.rows[$r][$k] | keys[]) as $s
				| t(["sites", "rows", $r, $k, $s, "mean"]; "number"))))
	else empty end),
	(($c.figures | keys[]) as $i | ($c.figures[$i]) as $f
		| ($c | figure(["figures", $i])), t(["figures", $i, "restates"]; "string|null"),
		(if ($f.values | length) == ($c.sides | length) then empty else "figures.\($i): values" end),
		(($f.values | keys[]) as $s | $f.values[$s] as $v
			| if $v == null then empty
			elif $s == 0 then ($v | desc([]))
			else ($v | desc([]), t(["change"]; "number|null"), t(["test"]; "string"),
				t(["ci95"]; "array|null"),
				t(["significant"]; "boolean"), t(["marker"]; "string|null"),
				t(["tested"]; "boolean"), t(["untested"]; "string|null"),
				(if $v.tested == ($v.untested == null) then empty else "untested \($v.untested)" end),
				(if ($v.test | IN("welch","welch-log","none")) then empty else "test \($v.test)" end),
				(if $v.test != "none" then (t(["p"]; "number|null"), t(["q"]; "number|null"), t(["t"]; "number|null"),
					t(["mann_whitney_p"]; "number|null"), t(["n_base"]; "number"), t(["n_tested"]; "number"),
					(if $v.over | IN("runs","interleaved runs","recordings") then empty else "over \($v.over)" end))
				else empty end),
				(if ($v.marker | IN(null,"improvement","regression","changed","state")) then empty else "marker \($v.marker)" end))
			end));
[
	if .schema == "foliostat/runs/v1" then
		t(["runs"]; "array"), t(["sweep"]; "string|null"),
		((.runs | keys[]) as $i | t(["runs", $i, "schema"]; "string"), t(["runs", $i, "run"]; "number"),
			t(["runs", $i, "config"]; "string")),
		((.aggregate | keys[]) as $a | t(["aggregate", $a, "config"]; "string"), t(["aggregate", $a, "runs"]; "number"),
			probe(["aggregate", $a, "probe_effect"]),
			((.aggregate[$a].figures | keys[]) as $i | figure(["aggregate", $a, "figures", $i]),
				desc(["aggregate", $a, "figures", $i, "value"]))),
		(if .compare then (.compare as $c | $c | compare($c)) else empty end)
	else (. as $c | compare($c)) end
] | .[]
