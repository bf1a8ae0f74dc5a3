#!/bin/bash
# The folio map's truth on this kernel: reuse counted per episode (per fork), processes
# counted per --pid.
. "$(dirname "$0")/lib.sh"
need_root
[ -e "$THP/hugepages-64kB/enabled" ] || skip_all "no mTHP on this kernel"
plan 7

cd "$T"
fw=$(workload_bin fw)
set_policy "$THP/enabled" madvise
pmd_kb=$(($(cat "$THP/hpage_pmd_size") / 1024))
for s in "$THP"/hugepages-*kB; do
	[ "$s" = "$THP/hugepages-${pmd_kb}kB" ] && continue
	[ -e "$s/enabled" ] && set_policy "$s/enabled" never
done
set_policy "$THP/hugepages-64kB/enabled" always
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# A fork loop of 50: every fork shares the 64K folios again; after each child's exit the
# parent's 16 writes per folio are a new episode of 16, not 16 x 50.
"$FOLIOSTAT" record -q -o loop.data -- "$fw" __workload fork-loop --size 4M --policy mthp --loops 50
o4() { jr loop.data ".orders[] | select(.order == 4) | $1"; }
# 64 folios of the region, and up to three of the workload's own (stack, ld.so data).
within "$(o4 .reuse.folios)" 64 67; ok $? "fork loop: the region's 64 folios took reuse faults ($(o4 .reuse.folios))"
within "$(o4 .reuse.episodes)" 3200 3210; ok $? "fork loop: 50 episodes each ($(o4 .reuse.episodes) = 64 x 50)"
is "$(o4 .reuse.faults_per_folio | cut -c1-5)" 16 "fork loop: 16 faults per folio and episode, not 16 x 50"
n=$(o4 '.reuse.histogram[] | select(.faults_per_folio == "16-31") | .folios')
within "$n" 3200 3210; ok $? "fork loop: every episode in the 16-31 bucket ($n)"
is "$(o4 '[.reuse.histogram[] | select(.faults_per_folio | test("^(32|64|128|256|512)")) | .folios] | add')" 0 \
	"fork loop: no episode sums over forks"

# --pid narrows the process and thread counts too (51 processes in the recording).
pid=$(jr loop.data .recording.pid)
is "$(jr loop.data .totals.processes)" 51 "the whole recording: the parent and its 50 children"
is "$("$FOLIOSTAT" report --json -i loop.data --pid "$pid" | jq -c '[.totals.processes, .totals.threads]')" "[1,1]" \
	"report --pid: one process, one thread"
exit $_fail
