#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Experiments: record -r, --sweep, the probe effect, compare with significance, and the
# errors around them. The figures are checked against the workload's geometry and against
# each run's own report.
. "$(dirname "$0")/lib.sh"
need_root
[ -e "$THP/hugepages-64kB/enabled" ] || skip_all "no mTHP on this kernel"

cd "$T"
fw=$(workload_bin fw)
pols() { cat "$THP"/hugepages-*kB/enabled "$THP/enabled" 2>/dev/null | md5sum; }
before=$(pols)
wl=(-- "$fw" workload fork-reuse --size 64M)
reuse=$(large_folio_reuse)
nocopy="this kernel copies each page of a 64K folio written after fork (pagemap: a new PFN), no reuse to count"

# A/A: the same configuration twice, 5 runs each.
"$FOLIOSTAT" record -q -r 5 --sweep mthp=64K -o a1.data "${wl[@]}"; ok $? "record -r 5 --sweep mthp=64K"
"$FOLIOSTAT" record -q -r 5 --sweep mthp=64K -o a2.data "${wl[@]}"
is "$(pols)" "$before" "the THP policies are put back after the sweep"
"$FOLIOSTAT" report --json -i a1.data >a1.json
is "$(jq '.runs | length' a1.json)" 5 "five runs in the recording"
jq -L "$GOLDEN" -r -f "$GOLDEN/compare-schema.jq" a1.json >bad
is "$(cat bad)" "" "its JSON matches foliostat/runs/v1 and the figure key patterns"
is "$(jq '[.runs[].run] | join(",")' a1.json)" '"0,1,2,3,4"' "each run has its index"
# The kernel's symbols are written once, in the first run, and every run's report names
# kernel code by them; the build-id recorded is the running kernel's own note.
bid=$(python3 -c '
import struct, sys
d = open("/sys/kernel/notes", "rb").read(); o = 0
while o + 12 <= len(d):
    n, s, t = struct.unpack_from("<III", d, o); o += 12
    name = d[o:o + n]; o += (n + 3) & ~3; desc = d[o:o + s]; o += (s + 3) & ~3
    if t == 3 and name == b"GNU\0": print(desc.hex()); sys.exit(0)
')
is "$(jq -r '[.runs[].recording | "\(.kernel_symbols) \(.kernel_build_id)"] | unique | join(",")' a1.json)" "recording $bid" \
	"every run's kernel symbols are the recording's, of this kernel's build-id ($bid)"
is "$(perl -0777 -ne '$n++ while /FKS1/g; END { print $n + 0 }' a1.data)" 1 "... written once for the five runs"
# Truth from the kernel: every kernel function a report names is a text symbol in this
# kernel's own kallsyms.
"$FOLIOSTAT" record -q -o dd.data -- dd if=/dev/zero of=/dev/null bs=1M count=4 2>/dev/null
jr dd.data '.sites[] | select(.dso == "[kernel]") | .sym' | sed 's/+0x[0-9a-f]*$//' | sort -u >ksyms.named
awk '$2 == "t" || $2 == "T" { print $3 }' /proc/kallsyms | sort -u >ksyms.here
[ -s ksyms.named ] && [ -z "$(comm -23 ksyms.named ksyms.here)" ]
ok $? "the kernel code named is this kernel's: $(tr '\n' ' ' <ksyms.named)(not in kallsyms: $(comm -23 ksyms.named ksyms.here | tr '\n' ' '))"
# The aggregate against the runs' own reports (computed here, not by foliostat).
want=$(jq '[.runs[].totals.faults] | sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end' a1.json)
is "$(jq '.aggregate[0].figures[] | select(.key == "faults") | .value.median' a1.json)" "$want" "median faults = the median of the runs' own counts"
want=$(jq '[.runs[].totals.faults] | max' a1.json)
is "$(jq '.aggregate[0].figures[] | select(.key == "faults") | .value.max' a1.json)" "$want" "max faults = the largest run's"
# 16 a folio; a stray 64K folio elsewhere (libc) may take one fault of its own.
if [ "$reuse" = yes ]; then
	n=$(jq '.aggregate[0].figures[] | select(.key == "reuse.64K.faults_per_folio") | .value | [.mean, .min] | map(. * 10 | round / 10) | join(" ")' a1.json)
	is "$n" '"16 16"' "64K folios: 16 reuse faults per folio, to 0.1, in every run"
else
	skip 1 "$nocopy"
fi
"$FOLIOSTAT" compare --json a1.data a2.data >aa.json; ok $? "compare A/A"
is "$(jq -r '[.figures[] | select(.values[1].test == "welch")] | length > 10' aa.json)" true "A/A: Welch's t-test on 5 runs a side"
# Times are left out: this VM drifts by 20-30% between batches of runs recorded one after
# the other, a real difference Welch rightly finds (a sweep interleaves its
# configurations for that reason).
marked=$(jq -r '[.figures[] | select(.unit != "ns") | select(.section == "reuse" or .section == "folios" or (.key | test("faults$"))) | select(.values[1].significant) | .key] | join(" ")' aa.json)
is "$marked" "" "A/A: no reuse, fault-count or folio-count figure marked"

# Probe effect: the untraced runs (default: as many as recorded for built-in workloads).
p=$(jq -c '.aggregate[0].probe_effect[] | select(.phase == "reuse")' a1.json)
is "$(jq '.untraced_ns.n' <<<"$p")" 5 "probe effect: 5 untraced runs"
# The overhead against the runs' spread: a machine loaded meanwhile (a guest beside make
# check: untraced above recorded once) can hide it, which is said, not failed.
if [ "$(jq '.recorded_ns.mean > .untraced_ns.mean' <<<"$p")" = true ] ||
	[ "$(jq '.untraced_ns.mean - .recorded_ns.mean > .untraced_ns.stddev + .recorded_ns.stddev' <<<"$p")" = true ]; then
	is "$(jq '.recorded_ns.mean > .untraced_ns.mean' <<<"$p")" true "recording makes the reuse pass slower"
else
	skip 1 "the runs' spread hides the recording's cost here: $(jq -c '[.untraced_ns, .recorded_ns] | map({mean, stddev})' <<<"$p")"
fi
f=$(jq '.faults | round' <<<"$p")
within "$f" 16000 16800; ok $? "faults in the reuse phase from the timeline: 64M / 4K = 16384 ($f)"
"$FOLIOSTAT" report -i a1.data >a1.txt
grep -q "^Probe effect" a1.txt; ok $? "the text report has the probe effect table"
# What recording adds a fault, measured over the phases holding a tenth of the faults or
# more whose difference is past 2 standard errors, recomputed here from the table; the
# calibration is said to be a lower bound (a workload's faults cost 2-4x it to trace).
want=$(jq '.aggregate[0].probe_effect as $p | ([$p[].faults] | add) as $all |
	[$p[] | select(.faults >= $all / 10) |
		((.recorded_ns.stddev * .recorded_ns.stddev / .recorded_ns.n + .untraced_ns.stddev * .untraced_ns.stddev / .untraced_ns.n) | sqrt) as $se |
		select((.added_ns | fabs) > 2 * $se)] | if length == 0 then null else (([.[].added_ns] | add) / ([.[].faults] | add) | round) end' a1.json)
is "$(jq '.aggregate[0].probe_ns_per_fault | if . == null then null else round end' a1.json)" "$want" \
	"the probe effect measured a fault: the resolved phases' added time over their faults ($want ns)"
# The calibration's two medians are 5 passes of 512 faults each: where a fault costs ~8 us
# and the machine is busy (a serve beside make check) the ~0.4 us between them can turn
# over, and the header then says so with both figures rather than print a cost.
"$FOLIOSTAT" report --run 1 -i a1.data | grep -A1 "^# probe:" | tr -s '\n #' ' ' >probe.txt
if grep -q "could not be measured" probe.txt; then
	perl -0777 -e '$_ = <STDIN> // ""; exit !(/traced (\d+) ns, untraced (\d+) ns/ && $1 <= $2)' <probe.txt
	ok $? "... one run's header says the calibration could not measure it, traced no slower: $(cat probe.txt)"
else
	perl -0777 -e '$_ = <STDIN> // ""; exit !(/add at least (\d+) ns .* (\d+) ns untraced, (\d+) ns traced/ && abs($1 - ($3 - $2)) <= 1 && $1 > 0)' <probe.txt
	ok $? "... and one run's header gives the calibration as a lower bound, traced minus untraced: $(cat probe.txt)"
fi
grep -Eq "^  faults +[0-9]" a1.txt; ok $? "the text report has the aggregate table"

# A/B: 4K against 64K folios.
"$FOLIOSTAT" record -q -r 5 --sweep mthp=4K -o b4k.data "${wl[@]}"
"$FOLIOSTAT" compare --json b4k.data a1.data >ab.json 2>/dev/null
m() { jq -r --arg k "$1" '.figures[] | select(.key == $k) | .values[1].marker // "none"' ab.json; }
# One recording a side: a count the same in every run of each side is a difference of
# state (=), one that varies is tested; a time is shown, not tested (it moves with the
# machine between recordings).
case $(m faults) in improvement | state) ok 0 "4K to 64K: fewer faults, an improvement or (=)";;
	*) ok 1 "4K to 64K: fewer faults, an improvement or (=) ($(m faults))";; esac
if [ "$reuse" = yes ]; then
	case $(m reuse.faults_per_folio) in regression | state) ok 0 "4K to 64K: reuse faults per folio (1 to 16), a regression or (=)";;
		*) ok 1 "4K to 64K: reuse faults per folio (1 to 16), a regression or (=) ($(m reuse.faults_per_folio))";; esac
	is "$(jq -r '.figures[] | select(.key == "fault_time_ns") | [.values[1].change < 0, .values[1].untested] | join(" ")' ab.json)" \
		"true a time, one recording a side" "4K to 64K: less fault time, shown and not tested (one recording a side)"
else
	skip 2 "$nocopy"
fi
"$FOLIOSTAT" compare b4k.data a1.data >ab.txt 2>/dev/null
grep -Eq '^  faults .*\((I|=)\)$' ab.txt; ok $? "the text marks the fault count (I) or (=)"
[ "$(grep -v '^#' ab.txt | LC_ALL=C.UTF-8 wc -L)" -le 80 ]; ok $? "two sides: the tables fit 80 columns"

# A sweep in one command: one configuration per size, the geometry's faults per folio.
"$FOLIOSTAT" stat --json --sweep mthp=4K,64K,2M-pte "${wl[@]}" >sw.json 2>/dev/null; ok $? "stat --sweep mthp=4K,64K,2M-pte"
# To 0.1: a stray folio of the size elsewhere in the process may take a fault of its own.
fpf() { jq -r --arg c "$1" --arg k "$2" '.aggregate[] | select(.config == $c) | .figures[] | select(.key == $k) | .value.mean * 10 | round / 10' sw.json; }
is "$(fpf 4K reuse.4K.faults_per_folio)" 1 "4K: 1 reuse fault per folio"
if [ "$reuse" = yes ]; then
	is "$(fpf 64K reuse.64K.faults_per_folio)" 16 "64K: 16 reuse faults per folio"
	is "$(fpf 2M-pte reuse.2M.faults_per_folio)" 512 "2M-pte: 512 reuse faults per folio"
else
	skip 2 "$nocopy"
fi
is "$(pols)" "$before" "the THP policies are put back after stat --sweep"

# The unmap review's benchmark in one command: MADV_PAGEOUT of the region timed, per folio
# size (a swap file made and removed by the workload).
noswap=$(swapfile_unusable)
if [ -n "$noswap" ]; then
	skip 4 "$noswap"
else
	swp=/var/tmp/foliostat-test.$$.swap
	"$FOLIOSTAT" stat --json --sweep mthp=64K,2M -- "$fw" workload pageout --size 16M --swapfile "$swp" >po.json 2>/dev/null
	is "$(jq -r '[.aggregate[] | .figures[] | select(.key == "calls.madvise_pageout.calls") | .value.mean] | join(",")' po.json)" \
		"1,1" "sweep of pageout: one timed MADV_PAGEOUT per folio size"
	n=$(jq '[.aggregate[] | .figures[] | select(.key == "calls.madvise_pageout.time_ns") | .value.mean > 0] | all' po.json)
	is "$n" true "... each with its time"
	[ ! -e "$swp" ]; ok $? "... and the swap file is gone"
	jq -L "$GOLDEN" -r -f "$GOLDEN/compare-schema.jq" po.json >bad
	is "$(cat bad)" "" "... its JSON, calls and swap-out figures too, matches foliostat/runs/v1 and its key patterns"
fi

# Errors, with their exit codes.
"$FOLIOSTAT" compare a1.data a1.data 2>err; is $? 2 "compare a file with itself: exit 2"
"$FOLIOSTAT" record -q -r 0 -o x.data "${wl[@]}" 2>/dev/null; is $? 2 "-r 0: exit 2"
"$FOLIOSTAT" record -q --sweep colour=red,blue -o x.data "${wl[@]}" 2>err; is $? 2 "--sweep of an unknown key: exit 2"
"$FOLIOSTAT" record -q --sweep mode=byte,memset -o x.data -- /bin/true 2>/dev/null; is $? 2 "--sweep mode= of a command that is not a built-in workload: exit 2"
# A run that fails ends the experiment with its status; the runs before it are kept.
"$FOLIOSTAT" record -q -r 3 -o f.data -- /bin/sh -c 'exit 3' 2>err; is $? 3 "-r 3 of a command that exits 3: exit 3"
grep -q "stops after run 1 of 3" err; ok $? "it says the experiment stopped after run 1 of 3"
"$FOLIOSTAT" record -q -r 1 --bare-runs 2 -o x.data "${wl[@]}" 2>/dev/null; is $? 2 "more untraced runs than recorded: exit 2"
# A cut recording: what is readable is compared, and it says so.
head -c $(($(stat -c %s a2.data) * 3 / 5)) a2.data >cut.data
"$FOLIOSTAT" compare a1.data cut.data >/dev/null 2>err; is $? 0 "compare with a cut file: exit 0"
grep -Eq "cut short: comparing its [1-4] whole runs?" err; r=$?
ok $r "and it says how many whole runs it compares"
[ $r -eq 0 ] || sed "s/^/#   /" err >&2
grep -Eq "run [2-5] \(64K\) left out: cut short" err; ok $? "... the run cut in two named and left out"

# Damage: the RUN chunks' offsets (chunk magic "FCHK", type 11) to aim at.
runs=$(LC_ALL=C grep -obUaP 'FCHK\x0b\x00\x00\x00' a2.data | cut -d: -f1)
second=$(echo "$runs" | sed -n 2p) third=$(echo "$runs" | sed -n 3p) fourth=$(echo "$runs" | sed -n 4p)
is "$(echo "$runs" | wc -l)" 5 "a2.data: five RUN chunks found"
# A RUN chunk lost: the run before ends where the next one's metadata starts (it does
# not take the next run's faults), and the next, of a configuration nobody knows now,
# is left out.
cp a2.data lost.data
printf '\377\377\377\377' | dd of=lost.data bs=1 seek="$second" conv=notrunc 2>/dev/null
"$FOLIOSTAT" report --json -i lost.data >lost.json 2>/dev/null
"$FOLIOSTAT" report --json -i a2.data >a2.json
is "$(jq '.runs[0].totals.faults' lost.json)" "$(jq '.runs[0].totals.faults' a2.json)" \
	"RUN chunk of run 2 lost: run 1 keeps its own faults, not merged with run 2's"
is "$(jq '[.runs[].totals.faults] | length' lost.json)" 5 "... five runs still read apart"
is "$(jq '.aggregate[0].runs' lost.json)" 4 "... four summarised: run 2's configuration is unknown"
# 4 KiB of 0xff inside run 3: that run is left out, named, with why.
cp a2.data hit.data
head -c 4096 /dev/zero | tr '\0' '\377' |
	dd of=hit.data bs=1 seek=$(((third + fourth) / 2)) conv=notrunc 2>/dev/null
"$FOLIOSTAT" compare --json a1.data hit.data >hit.json 2>err; is $? 0 "compare with a run damaged inside: exit 0"
is "$(jq -c '[.sides[1].runs, .sides[1].left_out[].run]' hit.json)" "[4,2]" \
	"... the damaged run (number 3) left out, four compared"
grep -q "run 3 (64K) left out: damaged: 1 region" err; ok $? "... and the warning names it and why"
# A recording with no whole run: nothing to compare, and it says so.
head -c 4096 a2.data >tiny.data
"$FOLIOSTAT" compare a1.data tiny.data >/dev/null 2>err; is $? 1 "compare with a file cut to 4 KiB: exit 1"
grep -q "tiny.data has no whole run to compare" err; ok $? "... it has no whole run to compare"
done_testing
