#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Golden files: the text and JSON reports of a small committed recording (fork-reuse of
# 2M in 64K mTHP folios on 6.18) must not change unless on purpose. To accept a deliberate
# change: tests/golden/update.sh, and say why in the commit.
set -u
# The golden files hold "µs": the UTF-8 rendering.
export LC_ALL=C.UTF-8
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
# Symbols come from the files of the machine that reports (they change with every build
# and upgrade): none, so the golden "where the faults come from" tables hold file offsets.
NOSYM=/nonexistent-symfs
d=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$d/../lib.sh"
"$FOLIOSTAT" report --symfs "$NOSYM" -i "$d/small.data" >"$T/txt"
same_file "text report" "$T/txt" "$d/small.txt"
"$FOLIOSTAT" report --json --symfs "$NOSYM" -i "$d/small.data" >"$T/json"
same_file "JSON report" "$T/json" "$d/small.json"
"$FOLIOSTAT" report --json --symfs "$NOSYM" -i "$d/small.data" --class wp_reuse --order 64K >"$T/fjson"
same_file "JSON report, --class wp_reuse --order 64K" "$T/fjson" "$d/small-filtered.json"
jq -r -f "$d/schema.jq" "$T/json" >"$T/violations"
same_file "JSON report matches schema foliostat/report/v1" "$T/violations" /dev/null
jq -r -f "$d/schema.jq" "$T/fjson" >"$T/violations"
same_file "filtered JSON report matches the schema" "$T/violations" /dev/null
# OpenMetrics, read by the Prometheus client library's own parser (strict: families,
# suffixes, units, histogram buckets, "# EOF").
"$FOLIOSTAT" report --format openmetrics -i "$d/small.data" >"$T/om"
/usr/bin/python3 - "$T/om" "$T/json" >"$T/omcheck" 2>&1 <<'PY'
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
fams = {f.name: f for f in parse(open(sys.argv[1]).read())}
j = json.load(open(sys.argv[2]))
bad = []
for o in j["orders"]:
    for cls, n in o["faults"].items():
        got = [s.value for s in fams["foliostat_faults"].samples
               if s.labels == {"order": str(o["order"]), "size": s.labels["size"], "class": cls}]
        if got != [n]:
            bad.append((o["order"], cls, got, n))
h = [s for s in fams["foliostat_fault_latency_seconds"].samples
     if s.name.endswith("_count") and s.labels["order"] == "4" and s.labels["class"] == "wp_reuse"]
lat = [o for o in j["orders"] if o["order"] == 4][0]["latency_by_class_ns"]["wp_reuse"]["count"]
if [s.value for s in h] != [lat]:
    bad.append(("latency count", [s.value for s in h], lat))
print(len(fams), "families", bad)
PY
is "$(cat "$T/omcheck")" "7 families []" "OpenMetrics parses, and its fault counts and histogram counts are the JSON's"
# The Prometheus text format, checked by promtool (Debian's; make deps puts it in deps/bin):
# it parses and lints (counter names, units, HELP). It cannot read OpenMetrics (the info
# family), which shows it is really checking.
PROMTOOL=${PROMTOOL:-$(dirname "$0")/../../deps/bin/promtool}
"$FOLIOSTAT" report --format prometheus --symfs "$NOSYM" -i "$d/small.data" >"$T/prom"
"$PROMTOOL" check metrics <"$T/prom" >"$T/promcheck" 2>&1
is "$?:$(cat "$T/promcheck")" "0:" "promtool check metrics: the Prometheus text format passes, no lint"
same_file "Prometheus text format" "$T/prom" "$d/small.prom"
# The CSV tables (RFC 4180: CRLF, quoted where a field needs it).
"$FOLIOSTAT" report --csv --symfs "$NOSYM" -i "$d/small.data" >"$T/csv"
same_file "CSV faults table" "$T/csv" "$d/small.csv"
"$FOLIOSTAT" report --csv=sites --sort dso,comm --symfs "$NOSYM" -i "$d/small.data" >"$T/csv"
same_file "CSV sites table" "$T/csv" "$d/small-sites.csv"
# Folded stacks of a recording made with -g (fork-reuse of 2M): frames as file offsets.
"$FOLIOSTAT" report --folded=count --symfs "$NOSYM" -i "$d/stacks.data" >"$T/folded"
same_file "folded stacks (record -g)" "$T/folded" "$d/stacks.folded"
"$PROMTOOL" check metrics <"$T/om" >/dev/null 2>&1
is $? 1 "... and promtool refuses OpenMetrics given as that format"
is "$(grep -v '^#' "$T/prom" | md5sum)" "$(grep -v '^#' "$T/om" | md5sum)" "... whose samples are the OpenMetrics samples, line for line"
"$FOLIOSTAT" report --format bogus -i "$d/small.data" >/dev/null 2>&1
is $? 2 "--format of an unknown format: usage error"
# script --json: a JSON object per line, the same records as the text.
"$FOLIOSTAT" script --json -S -i "$d/small.data" >"$T/jl"
is "$(jq -s length "$T/jl")" "$("$FOLIOSTAT" script -S -i "$d/small.data" | wc -l)" "script --json: a valid JSON line per record"
is "$(jq -s '[.[] | select(.event == "exceptions:page_fault_user")] | length' "$T/jl")" \
	"$("$FOLIOSTAT" script -i "$d/small.data" | grep -c 'exceptions:page_fault_user:')" "... the fault entries, with their fields ($(jq -c -s '[.[] | select(.event == "exceptions:page_fault_user")][0].fields | keys' "$T/jl"))"
# A recording with the kernel's work in it (collapse --size 2M --khugepaged, the mm
# threads recorded beside it): calls, khugepaged's collapse of the workload's memory.
"$FOLIOSTAT" report --symfs "$NOSYM" -i "$d/kernel.data" >"$T/ktxt"
same_file "text report with khugepaged's collapse" "$T/ktxt" "$d/kernel.txt"
"$FOLIOSTAT" report --json --symfs "$NOSYM" -i "$d/kernel.data" >"$T/kjson"
jq -r -f "$d/schema.jq" "$T/kjson" >"$T/violations"
same_file "its JSON report matches the schema" "$T/violations" /dev/null
is "$(jq -c '[.collapse.khugepaged.collapses.succeeded, .collapse.scans.succeeded, (.recording.mm_threads | length > 0)]' "$T/kjson")" \
	"[1,1,true]" "khugepaged's one collapse and scan of the workload's PMD, the mm threads named"
# Every khugepaged scan in the events is the workload's (its mm was locked by the workload).
is "$("$FOLIOSTAT" script -i "$d/kernel.data" | grep -c '^ *khugepaged .*mm_khugepaged_scan_pmd')" \
	"$(jq '[.collapse.khugepaged.scans[]] | add' "$T/kjson")" "khugepaged's scans in the report = its scan events"
# The report's figures against the recorded events themselves.
"$FOLIOSTAT" script -i "$d/small.data" >"$T/script"
is "$(jq .totals.faults "$T/json")" "$(grep -cE ' exceptions:page_fault_(user|kernel): ' "$T/script")" "faults = page_fault entries in script"
is "$(jq '.recording.events[] | select(.name == "minor-faults") | .count' "$T/json")" "$(grep -c ' minor-faults: ' "$T/script")" "minor-faults count = script's"
is "$(jq '.orders[] | select(.order == 4) | .reuse.faults' "$T/json")" 512 "2M of 64K folios: 512 reuse faults"
is "$(jq '.orders[] | select(.order == 4) | .reuse.effectiveness' "$T/json")" 0.0625 "effectiveness 1/16"

# A recording of several runs (record -r 2 --sweep mthp=4K,64K of fork-reuse, 1M) and a
# comparison of recordings.
"$FOLIOSTAT" report --symfs "$NOSYM" -i "$d/sweep.data" >"$T/stxt"
same_file "text report of a sweep" "$T/stxt" "$d/sweep.txt"
"$FOLIOSTAT" report --json --symfs "$NOSYM" -i "$d/sweep.data" >"$T/sjson"
same_file "JSON report of a sweep" "$T/sjson" "$d/sweep.json"
jq -L "$d" -r -f "$d/compare-schema.jq" "$T/sjson" >"$T/violations"
same_file "sweep JSON matches schema foliostat/runs/v1" "$T/violations" /dev/null
"$FOLIOSTAT" report --format mmtests -i "$d/sweep.data" >"$T/smm"
same_file "a sweep in mmtests' layout" "$T/smm" "$d/sweep-mmtests.txt"
is "$(awk 'length($0) > 80' "$T/smm" | grep -vc '^Amean *mthp-\|^[A-Za-z]* *mthp-\|^#')" 0 \
	"... in 80 columns (but for the kernel's long mTHP counter names)"
# Its Amean lines and the JSON agree: the change, + better, of the fault time.
g=$(jq -r '.compare.figures[] | select(.key == "fault_time_ns") | .values[1].change * -100 | . * 100 | round / 100' "$T/sjson")
is "$(awk '$1 == "Amean" && $2 == "fault-time" { gsub(/[*()%]/, "", $NF); print $NF + 0 }' "$T/smm")" "$g" \
	"... fault time's change, + better, is the JSON's change turned"
"$FOLIOSTAT" compare "$d/small.data" "$d/sweep.data" >"$T/ctxt" 2>"$T/cerr"
same_file "compare, text" "$T/ctxt" "$d/compare.txt"
grep -q "ran another command" "$T/cerr"; is $? 0 "compare warns that the files ran other commands"
"$FOLIOSTAT" compare --json "$d/small.data" "$d/sweep.data" >"$T/cjson" 2>/dev/null
same_file "compare, JSON" "$T/cjson" "$d/compare.json"
jq -L "$d" -r -f "$d/compare-schema.jq" "$T/cjson" >"$T/violations"
same_file "compare JSON matches schema foliostat/compare/v3" "$T/violations" /dev/null
# The sides' order over recordings, from the fixtures' starts: two copies of one
# recording a side, the sides made a day apart, are said to be one after the other;
# directories that each hold both, alternate.
mkdir "$T/A" "$T/B" "$T/AB" "$T/BA"
for i in 1 2; do
	cp "$d/small.data" "$T/A/$i.data" && cp "$d/bpf.data" "$T/B/$i.data"
done
cp "$d/small.data" "$T/AB/1.data" && cp "$d/bpf.data" "$T/AB/2.data" && cp "$T/AB/"*.data "$T/BA/"
is "$("$FOLIOSTAT" compare "$T/A" "$T/B" 2>/dev/null | sed -n '/^# order:/,/^# marks:/p' | sed "s|$T/||" | head -n 3)" \
	"# order: the sides were recorded one after the other, their runs starting
#        A 2026-11-30 03:56:53 to 03:56:53 UTC
#        B 2026-12-01 01:01:42 to 01:01:42 UTC" "compare of directories recorded one after the other: the header says when each ran"
is "$("$FOLIOSTAT" compare --json "$T/A" "$T/B" 2>/dev/null | jq -r .test.order)" "one after the other" "... as does the JSON"
is "$("$FOLIOSTAT" compare "$T/AB" "$T/BA" 2>/dev/null | grep -c '^# order:')" 0 "directories whose recordings alternate: nothing said"
is "$("$FOLIOSTAT" compare --json "$T/AB" "$T/BA" 2>/dev/null | jq -r .test.order)" alternate "... and the JSON says they alternate"
# man foliostat-compare, the schema and the output agree: the man page lists the figure
# keys figure-keys.jq holds (which the schema checks above test every key against), and
# its JSON SCHEMA names the same sections.
man="$d/../../man/foliostat-compare.1"
sed -n '/^\.SH FIGURE KEYS/,/^\.SH/p' "$man" | awk 'NF == 2 && $1 ~ /^[a-z]+$/ { print $1, $2 }' >"$T/mankeys"
jq -n -L "$d" -r 'include "figure-keys"; key_patterns[] | "\(.[0]) \(.[1])"' >"$T/schemakeys"
same_file "man foliostat-compare lists the figure keys of the schema" "$T/mankeys" "$T/schemakeys"
is "$(sed -n '/"section":/,/"unit":/p' "$man" | sed 's/.*"section"://; /"unit":/d' | grep -o '"[a-z]*"' | tr -d '"' | xargs)" \
	"$(jq -n -L "$d" -r 'include "figure-keys"; reduce key_patterns[][0] as $x ([]; if index([$x]) then . else . + [$x] end) | join(" ")')" \
	"... and the sections its JSON SCHEMA names"
# The marks' rate: --fdr, or --alpha as mmtests users say it; out of range, a usage error.
is "$("$FOLIOSTAT" compare --json --alpha 0.01 "$d/small.data" "$d/sweep.data" 2>/dev/null | jq .test.fdr)" 0.01 \
	"compare --alpha 0.01: the rate the marks hold"
"$FOLIOSTAT" compare --fdr 0.9 "$d/small.data" "$d/sweep.data" >/dev/null 2>&1
is $? 2 "... --fdr 0.9 (above 0.5): exit 2"
# Site by site (perf diff's job): the table, and its JSON against the report's own sites.
"$FOLIOSTAT" compare --sort dso,sym --top 12 --symfs "$NOSYM" "$d/small.data" "$d/sweep.data" >"$T/csites" 2>/dev/null
same_file "compare --sort dso,sym, text" "$T/csites" "$d/compare-sites.txt"
"$FOLIOSTAT" compare --json --sort dso,sym --top 0 --symfs "$NOSYM" "$d/small.data" "$d/sweep.data" >"$T/csj" 2>/dev/null
jq -L "$d" -r -f "$d/compare-schema.jq" "$T/csj" >"$T/violations"
same_file "... its JSON matches the schema" "$T/violations" /dev/null
is "$(jq '[.sites.rows[].faults[0].mean] | add' "$T/csj")" "$(jq .totals.faults "$T/json")" \
	"... the base's sites hold all its faults (the report's total)"
is "$(jq '.sites.rows | length' "$T/csj")" "$(jq .sites.rows_total "$T/csj")" "... --top 0: every site"
fpf() { jq -r --arg c "$1" --arg k "$2" '.aggregate[] | select(.config == $c) | .figures[] | select(.key == $k) | .value.mean' "$T/sjson"; }
is "$(fpf 4K reuse.4K.faults_per_folio)" 1 "sweep 4K: 1 reuse fault per 4K folio"
is "$(fpf 64K reuse.64K.faults_per_folio)" 16 "sweep 64K: 16 reuse faults per 64K folio"
is "$(jq '[.runs[] | .config] | join(",")' "$T/sjson")" '"4K,4K,64K,64K"' "four runs, two per configuration"
# Each run's figures against the same run's own report.
is "$(jq '[.runs[] | .totals.faults] | add / length' "$T/sjson")" \
	"$(jq '[.aggregate[] | .runs as $n | .figures[] | select(.key == "faults") | .value.mean * $n] | add / 4' "$T/sjson")" \
	"the aggregates' mean faults = the runs' own"
"$FOLIOSTAT" report --run 3 --json -i "$d/sweep.data" >"$T/run3"
is "$(jq .totals.faults "$T/run3")" "$(jq '.runs[2].totals.faults' "$T/sjson")" "--run 3 is the third run's report"
"$FOLIOSTAT" report --run 5 -i "$d/sweep.data" >/dev/null 2>&1
is $? 2 "--run 5 of 4 runs: exit 2"
# Run 0's metadata damaged (one byte of its chunk header): the other runs stand, and the
# exit status says the file is not whole.
python3 - "$d/sweep.data" "$T/dmg.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 16
while struct.unpack_from("<I", d, off + 4)[0] != 1:
    off += 24 + struct.unpack_from("<Q", d, off + 8)[0]
d[off + 4] ^= 0xff
open(sys.argv[2], "wb").write(d)
PY
"$FOLIOSTAT" report --json -i "$T/dmg.data" >"$T/dmg.json" 2>"$T/dmg.err"
is "$?:$(jq '.runs | length' "$T/dmg.json")" "1:3" "run 0's metadata damaged: the 3 other runs, exit 1 ($(cat "$T/dmg.err"))"
# One run's tables only: of several runs, --csv, --folded and the metrics say so.
for o in --csv --folded "--format openmetrics"; do
	# shellcheck disable=SC2086
	"$FOLIOSTAT" report $o -i "$d/sweep.data" >"$T/multi" 2>"$T/merr"
	is "$?:$(wc -c <"$T/multi")" "2:0" "$o of 4 runs: exit 2, nothing printed ($(cat "$T/merr"))"
done

# A recording on the BPF path (record of fork-reuse 2M, 64K mTHP): one record per fault,
# decoded into the same fault events as the samples path's.
"$FOLIOSTAT" report --symfs "$NOSYM" -i "$d/bpf.data" >"$T/btxt"
same_file "text report, BPF path" "$T/btxt" "$d/bpf.txt"
"$FOLIOSTAT" report --json --symfs "$NOSYM" -i "$d/bpf.data" >"$T/bjson"
jq -r -f "$d/schema.jq" "$T/bjson" >"$T/violations"
same_file "BPF path JSON matches the schema" "$T/violations" /dev/null
is "$(jq -r .recording.fault_path "$T/bjson")" bpf "the JSON says the BPF path ran"
"$FOLIOSTAT" script -i "$d/bpf.data" >"$T/bscript"
is "$(jq .totals.faults "$T/bjson")" "$(grep -cE ' exceptions:page_fault_(user|kernel): ' "$T/bscript")" "BPF path: faults = page_fault entries in script"
is "$(jq '.recording.events[] | select(.name == "minor-faults") | .count' "$T/bjson")" "$(grep -c ' minor-faults: ' "$T/bscript")" "BPF path: minor-faults count = script's"
# A fault's entry goes out alone only when an event of its thread came inside it.
is "$(jq '(.recording.events[] | select(.name == "foliostat:faults") | .count) as $r | $r >= .totals.faults and $r <= .totals.faults * 2' "$T/bjson")" true "BPF path: one or two records a fault"
is "$(jq '.orders[] | select(.order == 4) | .reuse.faults' "$T/bjson")" 512 "BPF path, 2M of 64K folios: 512 reuse faults"
# Every entry and exit paired: none left unclosed, no exit without its entry.
is "$(jq -c '.totals | [.unclosed_faults, .exits_without_entry, .untimed_faults]' "$T/bjson")" "[0,0,0]" "BPF path: no fault unclosed, no exit alone"

# Kernel symbols travel with the recording (dd of 512K from /dev/zero: its reads fault in
# the kernel's read_zero): named alike on any machine, whatever kernel runs there.
"$FOLIOSTAT" report --symfs "$NOSYM" --sort dso,sym -i "$d/ksyms.data" >"$T/kstxt"
same_file "text report naming kernel code from the recording's own symbols" "$T/kstxt" "$d/ksyms.txt"
"$FOLIOSTAT" report --json --symfs "$NOSYM" -i "$d/ksyms.data" >"$T/ksjson"
is "$(jq -r '.recording | "\(.kernel_symbols) \(.kernel_build_id | length)"' "$T/ksjson")" "recording 40" \
	"the JSON says where kernel names come from, and the recorded kernel's build-id"
is "$(jq '[.sites[] | select(.dso == "[kernel]" and (.sym | startswith("[kernel]")))] | length' "$T/ksjson")" 0 \
	"every kernel site is named"
# --kallsyms FILE instead: its names, wherever the addresses fall.
first=$(jq -r '[.sites[] | select(.dso == "[kernel]")][0].sym' "$T/ksjson")
echo "ffffffff80000000 T fake_text" >"$T/kallsyms"
echo "ffffffff80000000 D fake_data" >>"$T/kallsyms"
"$FOLIOSTAT" report --json --symfs "$NOSYM" --kallsyms "$T/kallsyms" -i "$d/ksyms.data" >"$T/ksjson2"
is "$(jq -r '[.sites[] | select(.dso == "[kernel]") | .sym | sub("\\+0x[0-9a-f]+$"; "")] | unique | join(",")' "$T/ksjson2")" \
	fake_text "--kallsyms FILE: its text symbols name kernel code (was $first)"
is "$(jq -r .recording.kernel_symbols "$T/ksjson2")" "$T/kallsyms" "... and the JSON says so"
: >"$T/empty"
"$FOLIOSTAT" report --json --symfs "$NOSYM" --kallsyms "$T/empty" -i "$d/ksyms.data" >"$T/ksjson3"
is "$(jq -c '[.sites[] | select(.dso == "[kernel]") | .sym | startswith("[kernel]+0xffffffff")] | unique' "$T/ksjson3")" "[true]" \
	"--kallsyms of a file without symbols: kernel addresses stay addresses"
# --kallsyms of a FIFO, a device or a missing file: exit 1 at once, saying so (a FIFO
# blocked the report for good; a missing file was taken silently, its name in the header).
mkfifo "$T/fifo"
timeout 10 "$FOLIOSTAT" report --kallsyms "$T/fifo" -i "$d/ksyms.data" >/dev/null 2>"$T/kserr"; rc=$?
is "$rc $(grep -c 'not a regular file' "$T/kserr")" "1 1" "--kallsyms FIFO: exit 1 at once, not a regular file"
"$FOLIOSTAT" report --kallsyms /dev/null -i "$d/ksyms.data" >/dev/null 2>&1; rc=$?
"$FOLIOSTAT" report --kallsyms "$T/missing" -i "$d/ksyms.data" >/dev/null 2>"$T/kserr"; rc2=$?
is "$rc $rc2 $(grep -c 'No such file' "$T/kserr")" "1 1 1" "--kallsyms /dev/null, or a missing file: exit 1, saying so"
# A recording made before kernel symbols were carried names no kernel build: the kallsyms
# of whatever machine reports is not used (the release string is the same across builds).
is "$(jq -r '.runs[].recording | "\(.kernel_symbols) \(.kernel_build_id)"' "$T/sjson" | sort -u)" "none null" \
	"a recording without kernel symbols or build-id: none taken from this machine"
done_testing
