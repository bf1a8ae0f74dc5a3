#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The TUI driven through tmux: every view opens, its figures equal the JSON report's for
# the same file, resizing does not kill it, q exits 0, and it refuses a non-terminal.
set -u
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
FOLIOSTAT=$(cd "$(dirname "$FOLIOSTAT")" && pwd)/$(basename "$FOLIOSTAT")
D=$(cd "$(dirname "$0")/../golden" && pwd)
DATA=$D/small.data
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d /tmp/foliostat-tui.XXXXXX)
export LC_ALL=C.UTF-8
trap 'end_session; rm -rf "$T"' EXIT
need_commands tmux jq

json() { "$FOLIOSTAT" report --json -i "$DATA" | jq -r "$1"; }

# foliostat tui ARGS in a new tmux window of COLS x LINES, ENV (e.g. NO_COLOR=1) set for
# it; its exit status goes to $T/rc.
tui_in() { # COLS LINES ENV ARGS...
	local x=$1 y=$2 env=$3
	shift 3
	rm -f "$T/rc"
	new_session "$x" "$y" "env $env TERM=screen LC_ALL=C.UTF-8 $FOLIOSTAT tui $*; echo rc=\$? >$T/rc; sleep 30"
}
start() { tui_in 80 24 "$*" -i "$DATA"; } # extra env, e.g. NO_COLOR=1

start
wait_screen "Overview"; ok $? "the overview opens in 80x24"
faults=$(json '.orders[] | select(.order == 4) | .faults.wp_reuse')
screen | grep -Eq "64K wp_reuse +$faults "; ok $? "overview: 64K wp_reuse shows $faults faults, as in JSON"
mean=$(json '.orders[] | select(.order == 4) | .latency_by_class_ns.wp_reuse.mean')
want=$(awk -v m="$mean" 'BEGIN {printf "%.1f µs", m / 1000}')
screen | grep "64K wp_reuse" | grep -qF "$want"; ok $? "overview: its mean is $want, as in JSON ($mean ns)"

fpf=$(json '.orders[] | select(.order == 4) | .reuse.faults_per_folio' | awk '{printf "%.2f", $1}')
screen | grep -q "reuse after fork: 64K $fpf faults/episode, 6.2%"; ok $? "overview headline: 64K $fpf faults per episode, 6.2% effective, as in JSON"
keys Tab Tab
top=$(json '[.orders[] | .order as $o | .fault_time_ns | to_entries[] | {o: $o, c: .key, t: .value}] | max_by(.t) | "\(.o) \(.c)"')
wait_screen "handler latency of 64K wp_reuse"; ok $? "the latency view opens on the row with the most fault time (order, class: $top)"
keys BTab BTab
keys End Enter
wait_screen "handler latency of 64K wp_reuse faults: $faults"; ok $? "End selects the last row, Enter its latency"
keys Escape Home Enter
wait_screen "handler latency of unknown file"; ok $? "Home selects the first row (unknown file)"
keys Escape
keys s s
wait_screen "sort: total"; ok $? "s cycles the sort column"
screen | sed -n '/order class/{n;p;q}' | grep -q "64K wp_reuse"; ok $? "sorted by total time, 64K wp_reuse comes first"

keys Tab
wait_screen "faults/episode"; ok $? "Tab: the reuse batching view"
folios=$(json '.orders[] | select(.order == 4) | .reuse.folios')
screen | grep -Eq "64K +$folios +$faults +16.00 +1.00 .* 6.2%"; ok $? "reuse: $folios folios, $faults faults, 16.00 per folio, 6.2%, as in JSON"
keys Enter
wait_screen "episodes by faults, 64K"; ok $? "Enter: the faults-per-episode histogram"
screen | grep -Eq "16-31 +$folios "; ok $? "histogram: $folios folios in 16-31"
keys Escape Tab
wait_screen "handler latency of"; ok $? "Tab: the latency view"
keys g
wait_screen "gap before"; ok $? "g: the gap between faults"
keys Tab
wait_screen "faults per"; ok $? "Tab: the timeline view"
keys '?'
wait_screen "this help"; ok $? "?: help"
keys x

tmux resize-window -t "$TMUX_SESSION" -x 120 -y 40 2>/dev/null || tmux resize-pane -t "$TMUX_SESSION" -x 120 -y 40
keys BTab
wait_screen "64K wp_reuse faults: $faults"; ok $? "resized to 120x40: still drawing (Shift-Tab back to latency)"
tmux resize-window -t "$TMUX_SESSION" -x 40 -y 8 2>/dev/null || tmux resize-pane -t "$TMUX_SESSION" -x 40 -y 8
wait_screen "too small"; ok $? "resized to 40x8: says the window is too small"
tmux resize-window -t "$TMUX_SESSION" -x 80 -y 24 2>/dev/null || tmux resize-pane -t "$TMUX_SESSION" -x 80 -y 24
keys q
for _ in $(seq 30); do [ -s "$T/rc" ] && break; sleep 0.1; done
grep -q "rc=0" "$T/rc"; ok $? "q quits with status 0"

start NO_COLOR=1
wait_screen "Overview"; ok $? "NO_COLOR: opens"
keys q

# The kernel's work (tests/golden/kernel.data: khugepaged collapsed the workload's PMD).
KDATA=$D/kernel.data
tui_in 80 24 "" -i "$KDATA"
wait_screen "Overview" && keys BTab
wait_screen "THP collapse, by result"; ok $? "Shift-Tab from the overview: the kernel view"
calls=$("$FOLIOSTAT" report --json -i "$KDATA" | jq '.calls[] | select(.call == "munmap") | .calls')
screen | grep -Eq "^ munmap +$calls "; ok $? "kernel view: $calls munmap calls, as in JSON"
screen | grep -Eq "^ succeeded +1 +1 +1 +1$"; ok $? "kernel view: one collapse, khugepaged's"
screen | grep -q "swap-out, by order allocated at: none"; ok $? "kernel view: no swap-out"
keys q

# The Sites view: where the faults come from, as report --sort order,class,sym,map says
# (no symbols: the recorded binary is not on this machine, and the view must not care).
tui_in 100 30 "" --symfs /nonexistent -i "$DATA"
wait_screen "Overview" && keys BTab BTab BTab
wait_screen "order class function mapping"; ok $? "Shift-Tab thrice: the Sites view"
row=$("$FOLIOSTAT" report --json --symfs /nonexistent --sort order,class,sym,map --top 1 -i "$DATA" | jq -r '.sites[0] | "\(.faults) \(.class) \(.sym)"')
set -- $row
screen | grep -A1 "order class function mapping" | tail -1 | grep -Eq " $1 .* $2 ${3//+/\\+}"
ok $? "Sites view: its first row is the report's ($row)"
keys Enter
wait_screen "no call stacks: record with -g"; ok $? "Enter on a site of a recording without -g: says how to have stacks"
keys q

# Enter on a site: its call stacks (tests/golden/stacks.data: record -g of fork-reuse 2M).
SDATA=$D/stacks.data
tui_in 100 40 "" --symfs /nonexistent -i "$SDATA"
# The site with the most faults (the write pass's 512 reuse faults): Down to it, Enter.
sites=$("$FOLIOSTAT" report --json --symfs /nonexistent --sort order,class,sym,map -i "$SDATA")
idx=$(echo "$sites" | jq '[.sites[] | .faults] | index(max)')
top=$(echo "$sites" | jq '[.sites[] | .faults] | max')
wait_screen "Overview" && keys BTab BTab BTab
wait_screen "order class function mapping"
for _ in $(seq "$idx"); do keys Down; done
keys Enter
wait_screen "call stacks of"; ok $? "Enter on a site: its call stacks"
# Its faults were all taken on one path: the stack's count is the site's, and its frames
# are the folded line's read from the innermost (the faulting function) outwards.
line=$("$FOLIOSTAT" report --folded=count --symfs /nonexistent -i "$SDATA" | grep " $top\$")
frames=$(echo "${line% *}" | tr ';' '\n' | tac | head -n -1 | paste -sd' ')
shown=$(screen | sed -n '/^ *[0-9.]*% .* faults /,/^ *$/p' | sed '1d; s/<-//; s/^ *//' | grep -v '^$' | paste -sd' ')
screen | grep -Eq "100\.0% +$top faults"; ok $? "the site's one stack holds its $top faults"
[ -n "$frames" ] && [ "$shown" = "$frames" ]; ok $? "its frames innermost first: '$shown' (folded: '$frames')"
keys Escape
wait_screen "order class function mapping"; ok $? "Esc: back to the sites"
keys Tab
wait_screen "time%   faults      total  mapping ("; ok $? "Tab: the Mappings view"
mrow=$("$FOLIOSTAT" report --json --symfs /nonexistent --sort map --top 1 -i "$SDATA" | jq -r '.sites[0] | "\(.faults) \(.map)"')
set -- $mrow
screen | grep -A1 "total  mapping (" | tail -1 | grep -Eq " $1 .* ${2//[/\\[}\$"
ok $? "Mappings view: its first row is the report's by map ($mrow)"
mrow=$("$FOLIOSTAT" report --json --symfs /nonexistent --sort order,class,map --top 1 -i "$SDATA" | jq -r '.sites[0] | "\(.faults) \(.order) \(.class) \(.map)"')
set -- $mrow
size=$(awk -v o="$2" 'BEGIN { k = 4 * 2 ^ o; print (k >= 1024 ? k / 1024 "M" : k "K") }')
screen | grep -A1 "total  order class mapping (" | tail -1 | grep -Eq " $1 .* $size $3 ${4//[/\\[}\$"
ok $? "... then by order, class and mapping, first the report's ($mrow)"
keys q

# A sweep's configurations side by side (tests/golden/sweep.data: 4K against 64K).
SWEEP=$D/sweep.data
tui_in 100 40 "" -i "$SWEEP"
wait_screen "foliostat compare"; ok $? "tui of a sweep: the compare view opens"
mark=$("$FOLIOSTAT" report --json -i "$SWEEP" | jq -r '.compare.figures[] | select(.key == "faults") | .values[1].marker')
want=$([ "$mark" = improvement ] && echo "(I)" || echo "(R)")
screen | grep -E "^faults " | grep -qF -- "$want"; ok $? "faults: marked $want, as the JSON says ($mark)"
screen | grep -q "^unclosed faults"; ok $? "every figure is listed"
screen | grep -q "^ base  4K: 2 runs, kernel " && screen | grep -q "^ new   64K: 2 runs, kernel "
ok $? "the header names each side, its runs and kernel"
tested=$("$FOLIOSTAT" report --json -i "$SWEEP" | jq .compare.test.tested)
screen | grep -q "^ test  Welch over interleaved runs, $tested tested, FDR 0.05"; ok $? "... and the test: $tested figures tested, at FDR 0.05"
p=$("$FOLIOSTAT" report --json -i "$SWEEP" | jq -r '.compare.figures[] | select(.key == "latency.mean_ns") | .values[1].p * 1000 | round / 1000')
screen | grep -E "^latency mean " | grep -Eq " ${p#0}0*\$| 0?${p}0*\$"; ok $? "a p column: latency mean's is the JSON's ($p)"
last=$("$FOLIOSTAT" report --json -i "$SWEEP" | jq -r '.compare.figures[-1].label')
keys G
wait_screen "$last"; screen | tail -2 | head -1 | grep -q "^$last"; ok $? "G: the last figure on the last line ($last)"
keys g
wait_screen "faults   "; screen | sed -n 7p | grep -q "^faults "; ok $? "g: back to the first"
screen | sed -n 6p | grep -q "^-- faults"; ok $? "... under its section's heading"
screen | grep -q "^-- orders"; ok $? "... and the next section has its heading too"
# A maximum is shown, not tested: no p, n/t.
screen | grep -E "^latency max " | grep -Eq " n/t\$"; ok $? "latency max: n/t in place of a p (not tested)"
keys NPage
# Until the page has moved (drawn after the key, not at once: a loaded machine missed it).
for _ in $(seq 300); do screen | sed -n 7p | grep -q "^faults " || break; sleep 0.1; done
screen | sed -n 7p | grep -q "^faults "; [ $? -ne 0 ]; ok $? "PgDn: a page down"
keys m
wait_screen "marked only]"; screen | grep -q "^unclosed faults"; [ $? -ne 0 ]; ok $? "m: only the marked figures"
keys j j j j j
sleep 0.3; screen | sed -n 7p | grep -q "^faults "; ok $? "... and j does not scroll them off a screen they fit"
# d: the latency distributions, an order and class at a time, as many as have latencies
# (a mean latency figure) on some side.
ncell=$("$FOLIOSTAT" report --json -i "$SWEEP" | jq '[.compare.figures[] | select(.key | test("^order\\.[^.]+\\.[^.]+\\.mean_ns$"))] | length')
keys d
wait_screen "latency distributions"; screen | grep -q "(1 of $ncell; j/k for another)"; ok $? "d: the latency distributions, 1 of $ncell orders and classes"
base=$(screen | sed -n 3p)
echo "$base" | grep -q "4K: [0-9]* faults" && echo "$base" | grep -q "64K: [0-9]* faults"
ok $? "... each side's faults in a column"
sum=$(screen | awk 'NR > 3 && $1 ~ /^[0-9.]+$/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/) { s += $i; break } } END { printf "%.0f", s }')
[ "$sum" -ge 98 ] && [ "$sum" -le 102 ]; ok $? "... the base's column adds up to 100% ($sum)"
keys j
wait_screen "(2 of $ncell;"; ok $? "j: the next order and class"
keys d
wait_screen "d distributions"; ok $? "d again: back to the figures"
keys '?'
wait_screen "foliostat compare: help"; screen | grep -q "(=) the same in every run"; ok $? "?: the help, the marks said"
keys x
wait_screen "d distributions"; ok $? "... any key goes back"
keys q
for _ in $(seq 30); do [ -s "$T/rc" ] && break; sleep 0.1; done
grep -q "rc=0" "$T/rc"; ok $? "q quits the compare view with status 0"

# Three sides in 80 columns: one side after the base fits, the others a key away.
new_session 80 24 "env TERM=screen LC_ALL=C.UTF-8 $FOLIOSTAT compare --tui $D/small.data $SWEEP; echo rc=\$? >$T/rc; sleep 30"
wait_screen "side 1 of the 2 after the base shown"; screen | grep -q "sweep:4K   cv   change"
ok $? "three sides at 80 columns: the second's columns, and a hint that one more is scrolled away"
keys l
wait_screen "side 2 of the 2"; screen | grep -q "sweep:64K   cv   change"; ok $? "l: the third side's columns"
keys q

"$FOLIOSTAT" tui -i "$DATA" </dev/null >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "needs a terminal" "$T/err"; ok $? "not a terminal: exit 1, says to use the text report"
# A terminal that cannot move its cursor: ncurses drew blank lines there (top, for 5 s).
for cmd in "tui -i $DATA" "top -a"; do
	new_session 120 24 "env TERM=dumb $FOLIOSTAT $cmd; echo rc=\$? >$T/rc; sleep 30"
	wait_screen "cannot move its cursor"
	for _ in $(seq 30); do [ -s "$T/rc" ] && break; sleep 0.1; done
	grep -q "rc=1" "$T/rc"; ok $? "TERM=dumb: ${cmd%% *} exits 1 at once, saying the terminal cannot move its cursor"
done
done_testing
