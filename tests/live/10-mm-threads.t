#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the kernel does to the workload's memory outside its threads, in its report:
# khugepaged's collapses (the kernel's mm threads are recorded beside the workload), and
# MADV_PAGEOUT's swap-out of large folios by order, against the kernel's own counters.
. "$(dirname "$0")/lib.sh"
need_root
[ -e "$THP/hugepages-64kB/enabled" ] || skip_all "no mTHP on this kernel"
[ -e "$THP/khugepaged/scan_sleep_millisecs" ] || skip_all "no khugepaged settings"

cd "$T"
fw=$(workload_bin fw)
set_policy "$THP/enabled" madvise
set_policy "$THP/hugepages-64kB/enabled" never
KH=$THP/khugepaged
sleep0=$(cat "$KH/scan_sleep_millisecs")
alloc0=$(cat "$KH/alloc_sleep_millisecs")

# khugepaged, not MADV_COLLAPSE: 16M of 4K pages left to it, woken every 10 ms for the run.
# Its collapses of the workload's memory are the workload's (the mm it scanned is one the
# workload locked); the kernel's count of collapse allocations is the truth, system-wide.
before=$(awk '$1 == "thp_collapse_alloc" {print $2}' /proc/vmstat)
"$FOLIOSTAT" record -q -o k.data -- "$fw" workload collapse --size 16M --khugepaged
ok $? "collapse --khugepaged exits 0"
after=$(awk '$1 == "thp_collapse_alloc" {print $2}' /proc/vmstat)
n=$(jr k.data '.collapse.collapses.succeeded // 0')
# khugepaged, woken every 10 ms, also collapses other processes' memory meanwhile (a
# QEMU's guest memory beside this test: one seen): the report counts those apart.
o=$(jr k.data '.collapse.other_processes.collapses + .collapse.not_attributable.collapses')
is "$((n + o))" $((after - before)) "khugepaged's collapses in the workload's report ($n) and of others ($o) = thp_collapse_alloc's delta"
[ "$n" -ge 8 ]; ok $? "... 8 or more for the 8 PMDs of 16M ($n)"
is "$(jr k.data '.collapse.khugepaged.collapses.succeeded // 0')" "$n" "... all of them khugepaged's"
is "$(jr k.data '.collapse.time_ns.count')" "$n" "... each timed from its isolation"
n=$(jr k.data '[.collapse.khugepaged.scans[]] | add // 0')
[ "$n" -ge 8 ]; ok $? "khugepaged scanned the 8 PMDs of the workload or more ($n)"
is "$(jr k.data '.phases[-1].phase')" khugepaged "the wait is the workload's khugepaged phase"
[ "$(jr k.data '.recording.mm_threads | length')" -ge 1 ]; ok $? "the recording names the mm threads"
is "$(cat "$KH/scan_sleep_millisecs") $(cat "$KH/alloc_sleep_millisecs")" "$sleep0 $alloc0" \
	"khugepaged's sleeps are put back after the run"
"$FOLIOSTAT" report -i k.data | grep -Eq '^  succeeded +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+'
ok $? "the text report's collapse table has khugepaged's share"
"$FOLIOSTAT" record -q -o kr.data -- "$fw" workload collapse --size 16M --khugepaged --readonly 2>/dev/null
n=$(jr kr.data '.collapse.khugepaged.collapses.succeeded // 0')
ro=$(jr kr.data '.collapse.khugepaged.scans.no_writable_page // 0')
if [ "$n" -lt 8 ] && [ "$ro" -gt 0 ]; then
	skip 1 "this kernel collapses no read-only range (khugepaged's scans: $ro no_writable_page)"
else
	[ "$n" -ge 8 ]; ok $? "a read-only VMA is collapsed by khugepaged too ($n)"
fi

# A workload named khugepaged (the kernel's selftest binary is): its MADV_COLLAPSE is its
# own. Known by name, its mmap_lock and collapses were taken for the kernel thread's, and
# every collapse was "not attributable". The kernel's khugepaged is stopped for the run (THP
# "never": MADV_COLLAPSE ignores the policy): the workload's MADV_HUGEPAGE wakes it, and it
# raced MADV_COLLAPSE to 2 of the 8 PMDs, rightly counted its own (seen in a 6.12 guest).
kh=$(workload_bin khugepaged)
pmd=$THP/hugepages-$(($(cat "$THP/hpage_pmd_size") / 1024))kB/enabled
pmd0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$pmd" 2>/dev/null)
set_policy "$THP/enabled" never
[ -n "$pmd0" ] && set_policy "$pmd" never
before=$(awk '$1 == "thp_collapse_alloc" {print $2}' /proc/vmstat)
"$FOLIOSTAT" record -q -o kw.data -- "$kh" workload collapse --size 16M
after=$(awk '$1 == "thp_collapse_alloc" {print $2}' /proc/vmstat)
n=$(jr kw.data '.collapse.collapses.succeeded // 0')
[ "$n" -ge 8 ] && [ "$n" -le $((after - before)) ]
ok $? "a workload named khugepaged: its MADV_COLLAPSE collapses are its own ($n; the kernel's count $((after - before)))"
kt=$(ps -o pid=,comm= --ppid 2 | awk '$2 == "khugepaged" {print $1}')
if [ -n "$kt" ]; then
	skip 1 "the kernel's khugepaged runs with THP never (pid $kt; shmem_enabled: $(cat "$THP/shmem_enabled" 2>/dev/null)): it may race MADV_COLLAPSE"
else
	is "$(jr kw.data '.collapse.khugepaged.collapses.succeeded // 0')" 0 "... and not the kernel thread's"
fi
set_policy "$THP/enabled" madvise
[ -n "$pmd0" ] && set_policy "$pmd" "$pmd0"

# Without the mm threads: the same run shows none of khugepaged's work.
"$FOLIOSTAT" record -q --no-mm-threads -o kn.data -- "$fw" workload collapse --size 16M --khugepaged
is "$(jr kn.data '[.collapse.khugepaged.collapses[]] | add // 0') $(jr kn.data '.recording.mm_threads | length')" \
	"0 0" "--no-mm-threads: no khugepaged events, no mm threads recorded"
is "$(jr k.data '.totals.threads')" "$(jr kn.data '.totals.threads')" \
	"khugepaged is recorded, and not counted a thread of the workload (as many as without it)"

# A run of collapse --khugepaged of 1G in the background, once khugepaged is tuned.
start_tuned() { # DATA
	set -m
	"$FOLIOSTAT" record -q -o "$1" -- "$fw" workload collapse --size 1G --khugepaged 2>/dev/null &
	rec=$!
	set +m
	for i in $(seq 500); do [ "$(cat "$KH/scan_sleep_millisecs")" = 10 ] && break; sleep 0.02; done
}
# A signal in the middle of the wait: the workload puts khugepaged's settings back first.
start_tuned ks.data
is "$(cat "$KH/scan_sleep_millisecs")" 10 "khugepaged wakes every 10 ms during the run"
kill -TERM "$rec"
wait "$rec"
is "$(cat "$KH/scan_sleep_millisecs") $(cat "$KH/alloc_sleep_millisecs")" "$sleep0 $alloc0" \
	"... and its sleeps are put back after SIGTERM"
# SIGKILL (or an OOM kill) gives the workload no chance: its guardian puts things back.
start_tuned kk.data
pkill -KILL -o -x fw -P "$rec"
wait "$rec"
for i in $(seq 100); do [ "$(cat "$KH/scan_sleep_millisecs")" = "$sleep0" ] && break; sleep 0.02; done
is "$(cat "$KH/scan_sleep_millisecs") $(cat "$KH/alloc_sleep_millisecs")" "$sleep0 $alloc0" \
	"... and after the workload was killed with SIGKILL"

# Reclaim in a memory cgroup over its limit: cat of a 64M file not in the page cache, in
# 16M. Every page the kernel reclaimed in the task (pgsteal_file, system-wide, on an idle
# machine) is in the report's direct reclaim.
memcg=
if [ -d /sys/fs/cgroup/memory ] && mkdir /sys/fs/cgroup/memory/foliostat-test-$$ 2>/dev/null; then
	memcg=/sys/fs/cgroup/memory/foliostat-test-$$
	echo 16M >"$memcg/memory.limit_in_bytes"
elif cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts) && grep -qw memory "$cg2/cgroup.controllers" 2>/dev/null &&
	echo +memory >"$cg2/cgroup.subtree_control" 2>/dev/null && mkdir "$cg2/foliostat-test-$$" 2>/dev/null; then
	memcg=$cg2/foliostat-test-$$
	echo 16M >"$memcg/memory.max"
fi
# A file on a disk: tmpfs pages are never reclaimed as file pages (nor an overlay's with a
# RAM upper layer, as in make check-kernels' guests).
vfs=$(stat -f -c %T /var/tmp)
if [ -n "$memcg" ] && { [ "$vfs" = tmpfs ] || [ "$vfs" = overlayfs ]; }; then
	rmdir "$memcg"
	skip 4 "/var/tmp is $vfs here: no file on a disk to reclaim"
elif [ -n "$memcg" ]; then
	big=/var/tmp/foliostat-test.$$.big
	dd if=/dev/zero of="$big" bs=1M count=64 oflag=direct 2>/dev/null
	"$FOLIOSTAT" record -q -o rc.data -- sh -c "echo \$\$ >$memcg/cgroup.procs && exec cat $big" >/dev/null
	ok $? "cat of 64M in a 16M memory cgroup"
	rm -f "$big"
	rmdir "$memcg"
	n=$(jr rc.data '.reclaim.direct.count')
	[ "${n:-0}" -gt 0 ]; ok $? "... reclaims in the task: $n, timed ($(jr rc.data '.reclaim.direct.time_ns') ns)"
	is "$(jr rc.data '.reclaim.direct.pages_reclaimed')" \
		"$(jr rc.data '.kernel_counters.vmstat.pgsteal_file + .kernel_counters.vmstat.pgsteal_anon')" \
		"... the pages they reclaimed = the kernel's pgsteal counters"
	"$FOLIOSTAT" report -i rc.data | grep -q "^  direct reclaim in the recorded threads: $n times"
	ok $? "... and the text report says so"
else
	for i in 1 2 3 4; do ok 0 "# SKIP no memory cgroup controller"; done
fi

# MADV_PAGEOUT of 64K folios to zram (a solid-state device: large folios are swapped out
# whole). The folios written whole by order against the kernel's per-size swpout counter.
if [ -e /sys/block/zram0 ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
	s64=$THP/hugepages-64kB/stats
	sw0=$(cat "$s64/swpout"); sp0=$(cat "$s64/split")
	"$FOLIOSTAT" record -q -o z.data --mthp 64K=always -- "$fw" workload pageout --size 16M --policy mthp --zram
	ok $? "pageout --zram exits 0"
	sw=$(($(cat "$s64/swpout") - sw0)); sp=$(($(cat "$s64/split") - sp0))
	q='.calls[] | select(.call == "madvise_pageout")'
	n=$(jr z.data "$q | .swapped.whole[] | select(.order == 4) | .folios")
	is "$n" "$sw" "MADV_PAGEOUT: the 64K folios written whole = the 64kB swpout counter's delta"
	is "$n:$(jr z.data "$q | .swapped.split | length"):$sp" "256:0:0" "... 256 of them, none split"
	n=$(jr z.data "$q | .time_ns")
	[ "${n:-0}" -gt 0 ]; ok $? "... in one timed call ($n ns)"
	# Partly mapped (one page of each 64K folio left): the kernel splits them before the
	# write, the unmapped pages freed. One write at a folio's first page, taken for the
	# folio whole, said "64K 256 whole" where the kernel's swpout moved by 0.
	sw0=$(cat "$s64/swpout"); sp0=$(cat "$s64/split")
	"$FOLIOSTAT" record -q -o zp.data --mthp 64K=always -- "$fw" workload pageout --size 16M --policy mthp --zram --keep-one 64K
	sw=$(($(cat "$s64/swpout") - sw0)); sp=$(($(cat "$s64/split") - sp0))
	w=$(jr zp.data "$q | [.swapped.whole[] | select(.order == 4) | .folios] | add // 0")
	is "$w" "$sw" "partly mapped 64K folios: written whole = the swpout counter's delta ($sw)"
	n=$(jr zp.data "$q | [.swapped.split[] | select(.order == 4) | .folios] | add // 0")
	is "$n" "$sp" "... split first = the 64kB split counter's delta ($sp)"
	is "$(cat /sys/block/zram0/disksize)" 0 "zram0 is reset after the run"
	set -m
	"$FOLIOSTAT" record -q -o zk.data -- "$fw" workload pageout --size 2G --policy small --zram 2>/dev/null &
	rec=$!
	set +m
	for i in $(seq 500); do grep -q zram0 /proc/swaps && break; sleep 0.02; done
	pkill -KILL -o -x fw -P "$rec"
	wait "$rec"
	for i in $(seq 100); do [ "$(cat /sys/block/zram0/disksize)" = 0 ] && break; sleep 0.02; done
	! grep -q zram0 /proc/swaps && [ "$(cat /sys/block/zram0/disksize)" = 0 ]
	ok $? "... and after the workload was killed with SIGKILL in the middle"
else
	for i in 1 2 3 4 5 6 7 8; do ok 0 "# SKIP no free zram0"; done
fi
done_testing
