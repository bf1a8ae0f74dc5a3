#!/bin/bash
# foliostat script shows exactly as many page_fault_user and mm_page_alloc events for the
# workload as perf, recording the same run at the same time.
. "$(dirname "$0")/lib.sh"
need_root
command -v perf >/dev/null || skip_all "perf not installed"
plan 8

fw=$(workload_bin fw)
count_perf() { # comm
	perf script -i "$T/perf.data" -F comm,event 2>/dev/null |
		awk -v c="$1" '$1 == c { n[$2]++ } END { printf "%d %d\n", n["exceptions:page_fault_user:"], n["kmem:mm_page_alloc:"] }'
}
count_fol() { # comm
	"$FOLIOSTAT" script -i "$T/f.data" |
		awk -v c="$1" '$1 == c { n[$5]++ } END { printf "%d %d\n", n["exceptions:page_fault_user:"], n["kmem:mm_page_alloc:"] }'
}

# Both recorders on one run. About one run in ten, one of ~8300 page_fault_user samples
# is in perf's recording and not in foliostat's, with no lost-event record on either side
# (under investigation, see the issue notes); so a mismatch is retried once, and reported.
compare() { # WORKLOAD...
	perf record -q -e exceptions:page_fault_user -e kmem:mm_page_alloc -o "$T/perf.data" -- \
		"$FOLIOSTAT" record -q -o "$T/f.data" -- "$@" 2>"$T/err"
}
compare "$fw" __workload fork-reuse --size 32M
ok $? "record of fork-reuse 32M under perf record exits 0"
p=$(count_perf fw)
f=$(count_fol fw)
if [ "$f" != "$p" ]; then
	echo "# retry: foliostat '$f', perf '$p'"
	compare "$fw" __workload fork-reuse --size 32M
	p=$(count_perf fw)
	f=$(count_fol fw)
fi
is "$f" "$p" "fork-reuse: page_fault_user and mm_page_alloc counts equal perf's ($p)"
# A PTE-mapped 2M THP region of 32M: at least 8192 reuse faults + 8192 first-touch.
set -- $f
[ "$1" -ge 8192 ]
ok $? "fork-reuse 32M: at least 8192 page_fault_user events ($1)"

compare dd if=/dev/zero of=/dev/null bs=8M count=4
ok $? "record of dd under perf record exits 0"
p=$(count_perf dd)
f=$(count_fol dd)
is "$f" "$p" "dd: counts equal perf's ($p)"

# Every fault that returns raises a minor-faults sample with its address: the two
# streams pair up one to one for a workload that does not fail faults.
"$FOLIOSTAT" record -q -o "$T/g.data" -- "$fw" __workload populate --size 16M --policy small 2>/dev/null
ok $? "record populate 16M small"
n_fault=$("$FOLIOSTAT" script -i "$T/g.data" | awk '$1 == "fw" && $5 ~ /^exceptions:page_fault_(user|kernel):$/' | wc -l)
n_exit=$("$FOLIOSTAT" script -i "$T/g.data" | awk '$1 == "fw" && $5 == "minor-faults:"' | wc -l)
is "$n_exit" "$n_fault" "one minor-faults exit sample per fault entry ($n_fault)"
[ "$n_fault" -ge 4096 ]
ok $? "populate 16M of 4K pages: at least 4096 faults ($n_fault)"
exit $_fail
