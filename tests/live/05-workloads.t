#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every built-in workload under record shows what its geometry implies; stat; --mthp is
# put back on every exit path.
. "$(dirname "$0")/lib.sh"
need_root
[ -e "$THP/hugepages-64kB/enabled" ] || skip_all "no mTHP on this kernel"

cd "$T"
fw=$(workload_bin fw)
set_policy "$THP/enabled" madvise
pol() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/hugepages-64kB/enabled"; }
set_policy "$THP/hugepages-64kB/enabled" never

"$FOLIOSTAT" record -q -o p.data -- "$fw" workload populate --size 16M --policy small
n=$(jr p.data '.orders[] | select(.order == 0) | .faults.anon_alloc')
[ "$n" -ge 4096 ] && [ "$n" -le 4196 ]; ok $? "populate 16M small: 4096 anon_alloc faults on 4K ($n)"
is "$(jr p.data '[.orders[] | select(.order > 0) | .folios_allocated] | add // 0')" 0 "populate small: no large folios"
is "$(jr p.data '[.phases[].phase] | join(",")')" populate "populate: its phase is reported"

# --populate-read: a load from each page, read faults (make bench's anon_zero class). A
# kernel that maps the zero page there counts them anon_zero; one that allocates, anon_alloc.
"$FOLIOSTAT" record -q -o pr.data -- "$fw" workload populate --size 16M --policy small --populate-read
zero=$(jr pr.data '[.orders[] | .faults.anon_zero // 0] | add')
alloc=$(jr pr.data '[.orders[] | .faults.anon_alloc // 0] | add')
if [ "$zero" -lt 4096 ] && [ "$alloc" -ge 4096 ]; then
	skip 1 "kernel $(uname -r) allocates on anonymous read faults ($alloc anon_alloc, $zero anon_zero): no zero page to see"
else
	within "$zero" 4096 4196 && [ "$alloc" -lt 100 ]
	ok $? "populate 16M --populate-read: 4096 zero-page read faults ($zero anon_zero, $alloc anon_alloc)"
fi
# --populate-file: the region is a cached file mapped private, loaded page by page: file
# faults on the file's mapping (fault-around maps up to 16 pages a fault, a large folio of
# the page cache whole), none that allocates there.
head -c 16M /dev/urandom >map.bin
cat map.bin >/dev/null
"$FOLIOSTAT" record -q -o pf.data -- "$fw" workload populate --size 16M --populate-file "$T/map.bin"
file=$(jr pf.data '[.mappings[] | select((.map | endswith("/map.bin")) and .class == "file") | .faults] | add // 0')
other=$(jr pf.data '[.mappings[] | select((.map | endswith("/map.bin")) and .class != "file") | .faults] | add // 0')
[ "$file" -ge 16 ] && [ "$file" -le 4096 ] && [ "$other" -eq 0 ]
ok $? "populate 16M --populate-file: file faults on the file's mapping ($file), no other class there ($other)"
"$fw" workload populate --size 32M --populate-file "$T/map.bin" 2>pf.err
rc=$?
[ "$rc" -ne 0 ] && grep -q "shorter than the region" pf.err
ok $? "--populate-file of a file shorter than --size fails saying so (exit $rc: $(cat pf.err))"

# Folios the kernel allocates inside madvise(MADV_POPULATE_WRITE), mmap(MAP_POPULATE) or
# mlock come without a fault: counted under the call and in each order's folios allocated,
# so that the workload's 64K folios equal the kernel's own count of them (anon_fault_alloc
# counts GUP's allocations too), and its 256 by the geometry (16M of 64K folios).
for how in madvise:madvise_populate mmap:mmap_populate mlock:mlock; do
	key=${how#*:} how=${how%%:*}
	"$FOLIOSTAT" record -q -o pm.data --mthp 64K=always -- "$fw" workload populate --size 16M --policy mthp \
		--populate-$how 2>pm.err
	rc=$?
	if [ "$how" = madvise ] && [ "$rc" != 0 ] && grep -q "Invalid argument" pm.err; then
		skip 2 "MADV_POPULATE_WRITE is not in this kernel ($(uname -r)): $(head -c 200 pm.err)"
		continue
	fi
	got=$(jr pm.data '[.orders[] | select(.order == 4) | .folios_allocated][0] // 0')
	call=$(jr pm.data "[.calls[] | select(.call == \"$key\") | .populated[] | select(.order == 4) | .folios][0] // 0")
	kern=$(jr pm.data '.kernel_counters.mthp["64kB"].stats.anon_fault_alloc // 0')
	faults=$(jr pm.data '[.orders[] | select(.order == 4) | .faults.anon_alloc // 0][0] // 0')
	[ "$rc" -eq 0 ] && [ "$call" -eq 256 ] && [ "$got" -ge 256 ] && [ "$got" -le "$kern" ]
	ok $? "populate 16M by $key: $call 64K folios populated without a fault, $got allocated in all, kernel's anon_fault_alloc +$kern, $faults by faults (exit $rc)"
	is "$(jr pm.data "[.calls[] | select(.call == \"$key\") | .calls][0] // 0")" 1 "... one $key call"
done

# get_user_pages() for a call foliostat does not record (writes through /proc/self/mem,
# reads with O_DIRECT; io_uring's buffers alike): the folios it faults in take no
# exception. Counted by the thread's own anonymous RSS growing by an allocated folio's
# size outside its faults: none on the region's 64K folios, 256 populated. Kernels that
# batch a task's RSS changes (6.1's SPLIT_RSS_COUNTING: rss_stat only when the batch is
# flushed) tell no one folio's change: the recording's own rss_stat events say which.
head -c 4M /dev/urandom >dio.bin
for how in procmem dio; do
	arg=--populate-$how
	[ "$how" = dio ] && arg="--populate-dio dio.bin"
	# shellcheck disable=SC2086
	"$FOLIOSTAT" record -q -o pg.data --mthp 64K=always -- "$fw" workload populate --size 16M --policy mthp \
		$arg 2>pg.err
	rc=$?
	rss=$("$FOLIOSTAT" script -i pg.data 2>/dev/null | grep -c 'kmem:rss_stat: .* member=1 ')
	other=$(jr pg.data '[.populated_in_other_calls[] | select(.order == 4) | .folios][0] // 0')
	got=$(jr pg.data '[.orders[] | select(.order == 4) | .folios_allocated][0] // 0')
	kern=$(jr pg.data '.kernel_counters.mthp["64kB"].stats.anon_fault_alloc // 0')
	faults=$(jr pg.data '[.orders[] | select(.order == 4) | .faults.anon_alloc // 0][0] // 0')
	if [ "$rc" -ne 0 ]; then
		skip 2 "$how: the kernel refused (on $(findmnt -no FSTYPE -T .)): $(head -c 200 pg.err)"
	elif [ "$faults" -ge 256 ]; then
		# tmpfs takes O_DIRECT (6.6 and later) but reads through its page cache: a copy
		# to user memory, faulting (make check-kernels' guests: an overlay of tmpfs).
		skip 2 "$how: the region took $faults 64K faults: $(findmnt -no FSTYPE -T .) copied the reads, no pages pinned"
	elif [ "$rss" -lt 256 ]; then
		skip 2 "$how: $rss anonymous rss_stat events for 256 folios: this kernel batches a task's RSS changes"
	else
		[ "$other" -eq 256 ] && [ "$got" -ge 256 ] && [ "$got" -le "$kern" ]
		ok $? "populate 16M by $how: $other 64K folios populated by get_user_pages, $got allocated in all, kernel's anon_fault_alloc +$kern"
		# The program's own stack and heap may take a 64K folio or three by faults.
		[ "$faults" -le 3 ] && [ $((got - other)) -le 3 ]
		ok $? "... and no fault on them ($faults 64K faults, the program's own)"
	fi
done

# Processes: a parent that forks five children, each of which execs; an exec gave a
# process a new address space, and each was counted again (a build's 410 as 819).
cat >forks.c <<'EOF'
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 5; i++)
		if (fork() == 0) {
			execl("/bin/true", "true", (char *)0);
			_exit(1);
		}
	while (wait(0) > 0)
		;
	return 0;
}
EOF
cc -O1 -o forks forks.c
"$FOLIOSTAT" record -q -o forks.data -- ./forks
is "$(jr forks.data '.totals.processes')" 6 "a parent and five children that exec: 6 processes"

"$FOLIOSTAT" record -q -o c.data -- "$fw" workload collapse --size 16M
n=$(jr c.data '.kernel_counters.vmstat.thp_collapse_alloc')
[ "$n" -ge 8 ]; ok $? "collapse 16M: the kernel collapsed 8 THPs or more ($n, system-wide)"
jr c.data '.recording.warnings[]' | grep -q "collapsed"; ok $? "collapse: the report warns the folio map may be stale"
"$FOLIOSTAT" record -q -o cr.data -- "$fw" workload collapse --size 16M --readonly 2>/dev/null
n=$(jr cr.data '.kernel_counters.vmstat.thp_collapse_alloc')
# Older kernels (6.12 among them) collapse no range without a writable page: their scans
# say no_writable_page (SCAN_PAGE_RO), and MADV_COLLAPSE fails with EINVAL.
ro=$(jr cr.data '.collapse.scans.no_writable_page // 0')
if [ "$ro" -gt 0 ]; then
	skip 1 "this kernel collapses no read-only range (MADV_COLLAPSE's scans: $ro no_writable_page)"
else
	[ "$n" -ge 8 ]; ok $? "collapse of a read-only VMA: 8 THPs or more ($n)"
fi
is "$(jr cr.data '.phases[-1].phase')" collapse-readonly "collapse --readonly: phase"
# MADV_COLLAPSE scans each PMD of the region and collapses it: 16M is 8 of them, each
# result named as the kernel's format names it. khugepaged, woken by MADV_HUGEPAGE, may
# collapse one first: MADV_COLLAPSE then finds it page_pmd_mapped.
# khugepaged (recorded beside the workload) may scan some too, after the collapse: its
# share is apart (seen: 4 more, page_pmd_mapped). A PMD whose pages were busy (the results
# MADV_COLLAPSE says EAGAIN for) is asked again by the workload: a scan more, apart too.
busy='["not_suitable_page_count","page_locked","page_not_in_lru","could_not_delete_page_from_lru","page_filled"]'
is "$(jr c.data "def n(s): [s // {} | to_entries[] | select(.key as \$k | $busy | index(\$k) | not) | .value] | add // 0; n(.collapse.scans) - n(.collapse.khugepaged.scans)")" 8 \
	"collapse 16M: 8 PMDs scanned by MADV_COLLAPSE ($(jr c.data '.collapse.scans | tojson'), khugepaged's $(jr c.data '.collapse.khugepaged.scans | tojson'))"
is "$(jr c.data '.collapse.collapses.succeeded // 0')" "$(jr c.data '.collapse.scans.succeeded // 0')" \
	"... a successful collapse for each PMD scanned as collapsible ($(jr c.data '.collapse.collapses | tojson'))"
# A collapse that fails after isolating its pages is timed too (seen once under the
# sanitizers' load: 8 timed, 7 succeeded).
is "$(jr c.data '.collapse.time_ns.count as $n | $n >= (.collapse.collapses.succeeded // 0) and $n <= ([.collapse.collapses[]] | add)')" true \
	"... each successful one timed from its isolation ($(jr c.data '.collapse.time_ns.count') timed, $(jr c.data '.collapse.collapses | tojson'))"

# The region's munmap, timed, frees its 64K folios whole: 16M is 256 of them.
"$FOLIOSTAT" record -q -o pm.data --mthp 64K=always -- "$fw" workload populate --size 16M --policy mthp
is "$(jr pm.data '[.calls[] | select(.call == "munmap") | .freed[] | select(.order == 4) | .pages] | add')" 256 \
	"munmap of 16M of 64K folios frees 256 folios of order 4"
"$FOLIOSTAT" report -i pm.data | grep -Eq '^  munmap +[0-9]+ .* 64K 256'; ok $? "... and the text report's call table says so"

# pageout: a swap file made and removed by the workload.
noswap=$(swapfile_unusable)
if [ -n "$noswap" ]; then
	skip 10 "$noswap"
else
	swp=/var/tmp/foliostat-test.$$.swap
	"$FOLIOSTAT" record -q -o o.data --mthp 64K=always -- "$fw" workload pageout --size 16M --policy mthp --swapfile "$swp" --swapin
	ok $? "pageout with --swapfile exits 0"
	n=$(jr o.data '.kernel_counters.vmstat.pswpout')
	[ "$n" -ge 4096 ]; ok $? "pageout 16M: 4096 pages or more swapped out ($n)"
	n=$(jr o.data '[.classes[] | select(.class == "swap_in") | .faults][0]')
	[ "$n" -ge 4096 ]; ok $? "pageout --swapin: 4096 swap_in faults or more ($n)"
	[ ! -e "$swp" ] && ! grep -q "$swp" /proc/swaps; ok $? "the swap file is gone"
	# Whole or split, against the kernel's per-size counters of the same run: a swap file
	# on a disk may make the kernel split (swpout_fallback) where zram would not.
	k=$(jr o.data '.kernel_counters.mthp["64kB"].stats | "\(.swpout) \(.swpout_fallback)"')
	is "$(jr o.data '.swapout | "\([.whole[] | select(.order == 4) | .folios] | add // 0) \([.split[] | select(.order == 4) | .folios] | add // 0)"')" \
		"$k" "64K folios written whole and split first = the kernel's swpout and swpout_fallback ($k)"
	# The bulk calls, timed: the one MADV_PAGEOUT of the region, and the final munmap.
	c() { jr o.data ".calls[] | select(.call == \"$1\") | $2"; }
	is "$(c madvise_pageout .calls)" 1 "pageout: one madvise(PAGEOUT) call, timed"
	is "$(c madvise_pageout .bytes)" 16777216 "... over the 16M region"
	n=$(c madvise_pageout .time_ns)
	[ "${n:-0}" -gt 0 ]; ok $? "... that took time ($n ns)"
	# After the swap-in the region is 16M again, in whatever folios swap-in made: the munmap
	# frees at least its 4096 pages' worth.
	n=$(c munmap '[.freed[] | (.pages * pow(2; .order))] | add // 0')
	[ "$n" -ge 4096 ]; ok $? "munmap of the region frees 16M or more, counted in 4K pages by order ($n)"
	# A forked child reads it back: its counters were set at the fork, in the parent's
	# context; taken for the parent's, they left its first swap-in order unknown.
	"$FOLIOSTAT" record -q -o oc.data -- "$fw" workload pageout --size 16M --policy small --swapfile "$swp" --swapin-child
	is "$(jr oc.data '"\(.totals.unknown_order.swap_cache) \([.orders[] | select(.order == 0) | .faults.swap_in][0] >= 4096)"')" "0 true" \
		"a child's swap-ins: every one 4K, none of order unknown ($(jr oc.data '[.orders[] | select(.order == 0) | .faults.swap_in][0]'))"
fi
if ! grep -q '^/' /proc/swaps; then
	"$FOLIOSTAT" record -q -o n.data -- "$fw" workload pageout --size 4M 2>err; rc=$?
	is "$rc" 1 "pageout without swap: exit 1"
	grep -q "needs swap" err; ok $? "... saying it needs swap"
else
	ok 0 "# SKIP swap is on"
	ok 0 "# SKIP swap is on"
fi

# stat: no file, the workload's exit status, JSON on stdout.
"$FOLIOSTAT" stat --json -- sh -c 'exit 5' >s.json 2>/dev/null; rc=$?
is "$rc" 5 "stat: exit status is the workload's"
is "$(jq -r .schema s.json)" foliostat/report/v1 "stat --json: a report on stdout"
mkdir empty
(cd empty && "$FOLIOSTAT" stat -- "$fw" workload populate --size 4M --policy small 2>../s.txt >/dev/null)
grep -q "^Faults by folio order and class" s.txt; ok $? "stat: the text report on stderr"
n=$(awk '$1 == "4K" && $2 == "anon_alloc" {print $3}' s.txt)
[ "${n:-0}" -ge 1024 ]; ok $? "stat: populate 4M of 4K pages shows 1024+ anon_alloc faults ($n)"
is "$(ls -A empty)" "" "stat leaves no file behind"

# --mthp: set during the run, put back after, whatever ends it.
"$FOLIOSTAT" record -q -o m.data --mthp 64K=always -- sh -c "cat $THP/hugepages-64kB/enabled" >during 2>/dev/null
grep -q '\[always\]' during; ok $? "--mthp 64K=always is in force during the run"
is "$(pol)" never "... and put back after a normal end"
"$FOLIOSTAT" record -q -o m.data --mthp 64K=always -- sh -c 'kill -SEGV $$' 2>/dev/null
is "$(pol)" never "... after the workload crashed"
# The signal once the run is on (its file committed, the policy applied), however slowly
# the recorder starts (seconds under software emulation).
for sig in INT TERM; do
	set -m
	"$FOLIOSTAT" record -q -o "sig$sig.data" --mthp 64K=always -- sleep 30 2>/dev/null &
	rec=$!
	set +m
	for _ in $(seq 600); do [ -e "sig$sig.data" ] && [ "$(pol)" = always ] && break; sleep 0.05; done
	kill -"$sig" "$rec"
	wait "$rec"
	is "$(pol)" never "... after SIG$sig"
done
"$FOLIOSTAT" record -q -o m.data --mthp 64K=always -- /no/such/command 2>/dev/null
is "$(pol)" never "... after the command could not be executed"
done_testing
