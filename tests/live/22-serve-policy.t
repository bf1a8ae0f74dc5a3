#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The THP policy changed while serve runs (issue 48: an exporter runs for weeks). Reads of
# a MADV_HUGEPAGE region never written map the huge zero page, one fault a PMD range, where
# PMD THP is allowed there (madvise), and the 4K zero page, one fault a page, where it is
# not (never). serve starts under one policy, the policy changes, and a workload in a
# cgroup of its own reads 32M: serve's zero-page reads of the cgroup by order must be those
# of stat -a -G started after the change (its recording's own policy), and its faults perf
# stat -G's count of the fault entries. Both ways: madvise to never (the programs decide
# the 4K reads), never to madvise (the first read of each PMD range goes to the model).
. "$(dirname "$0")/lib.sh"
need_root
need_commands curl perf
pmd=$(cat "$THP/hpage_pmd_size" 2>/dev/null || echo 0)
[ "$pmd" -gt 0 ] || skip_all "no PMD THP on this kernel ($THP/hpage_pmd_size)"
[ "$(cat "$THP/use_zero_page" 2>/dev/null)" = 1 ] ||
	skip_all "the huge zero page is off here (use_zero_page: $(cat "$THP/use_zero_page" 2>&1))"
# The PMD's order, of the huge zero page's reads.
po=0
for ((n = pmd / $(getconf PAGESIZE); n > 1; n /= 2)); do po=$((po + 1)); done
name=foliostat-policy-$$
own_cgroup "$name-never"
pids=()
cleanup() {
	end_pids "${pids[@]}"
	rmdir "$CG/$name-madvise" "$CG/$name-never" 2>/dev/null
	restore_policies
	_leave
}
trap cleanup EXIT
cd "$T"
fw=$(workload_bin fw)
slow=1
[ -z "${FOLIOSTAT_GUEST:-}" ] || slow=10
# PMD THP by the top-level policy (its own size's file may say otherwise).
[ -e "$THP/hugepages-$((pmd / 1024))kB/enabled" ] && set_policy "$THP/hugepages-$((pmd / 1024))kB/enabled" inherit

serve_from() { # POLICY: serve started under it on $sport
	set_policy "$THP/enabled" "$1"
	sport=$(free_port)
	"$FOLIOSTAT" serve --listen "127.0.0.1:$sport" --by-cgroup 2>"$T/serve.err" &
	serve_pid=$!
	pids+=($serve_pid)
	wait_http "http://127.0.0.1:$sport/healthz" $((30 * slow))
}

# The policy becomes POLICY; two ticks of serve later, stat -a -G and perf stat -G watch
# a new cgroup while the workload reads 32M there. "ORDER CLASS FAULTS" lines of serve and
# stat into $T/POLICY.serve and $T/POLICY.stat, perf's fault entries into $T/POLICY.perf.
read_under() { # POLICY
	local p=$1 cg=$name-$1 perf_pid stat_pid
	set_policy "$THP/enabled" "$p"
	sleep $((2 * slow))
	mkdir -p "$CG/$cg"
	"$FOLIOSTAT" stat --json -a -G "/$cg" >"$T/$p.json" 2>"$T/$p.stat.err" &
	stat_pid=$!
	for _ in $(seq $((100 * slow))); do
		ls -l /proc/$stat_pid/fd 2>/dev/null | grep -q perf_event && break
		sleep 0.1
	done
	perf stat -a -x, -o "$T/$p.csv" -e exceptions:page_fault_user -G "$cg" \
		-e exceptions:page_fault_kernel -G "$cg" 2>"$T/$p.perf.err" &
	perf_pid=$!
	sleep $slow
	sh -c "echo \$\$ >$CG/$cg/cgroup.procs &&
		exec $fw workload populate --size 32M --policy thp --populate-read" >"$T/$p.wl" 2>&1
	ok $? "under $p: the workload read 32M of a MADV_HUGEPAGE region ($(tail -c 100 "$T/$p.wl"))"
	sleep $slow
	curl -sf "http://127.0.0.1:$sport/metrics" >"$T/$p.metrics"
	kill -INT "$perf_pid" "$stat_pid"
	wait "$perf_pid" "$stat_pid"
	serve_cells "$T/$p.metrics" "$cg" >"$T/$p.serve"
	stat_cells "$T/$p.json" >"$T/$p.stat"
	awk -F, '$3 ~ /^exceptions:page_fault_(user|kernel)$/ { n += $1 } END { print n + 0 }' "$T/$p.csv" >"$T/$p.perf"
	sed "s/^/# $p: serve: /" "$T/$p.serve" >&2
	sed "s/^/# $p: stat: /" "$T/$p.stat" >&2
}

# The reads' zero-page cells of serve and stat equal, and every fault counted: the kernel's
# way of the policy shown by stat's cells (where this kernel allocates on a read, or maps
# no huge zero page, there is nothing to tell apart: said, and skipped).
zero() { awk -v o="$2" '$1 == o && $2 == "anon_zero" { n += $3 } END { print n + 0 }' "$1"; }
judge() { # POLICY ORDER-OF-THE-READS MIN-READS
	local p=$1 o=$2 min=$3 lost
	lost=$(jq '.recording.lost_events // 0' "$T/$p.json")
	if [ "${lost:-0}" != 0 ]; then
		skip 3 "under $p: stat -a -G lost $lost events: the counts cannot be compared"
		return
	fi
	if [ "$(zero "$T/$p.stat" "$o")" -lt "$min" ]; then
		skip 3 "under $p: stat counted $(zero "$T/$p.stat" "$o") zero-page reads of order $o (not $min or more): this kernel does otherwise ($(paste -sd' ' "$T/$p.stat"))"
		return
	fi
	is "$(zero "$T/$p.serve" 0) $(zero "$T/$p.serve" "$po")" "$(zero "$T/$p.stat" 0) $(zero "$T/$p.stat" "$po")" \
		"under $p since serve started: its zero-page reads of 4K and of the PMD size are stat's, started after"
	off=$(cells_off "$T/$p.stat" "$T/$p.serve" serve | tr '\n' ' ')
	[ -z "$off" ]
	ok $? "under $p: every cell of the cgroup is stat's (live 15's rule)${off:+: $off}"
	is "$(awk '{ n += $3 } END { print n + 0 }' "$T/$p.serve")" "$(cat "$T/$p.perf")" \
		"under $p: serve counted every fault of the cgroup, as perf stat -G"
}

# madvise, then never: 8,192 reads of the 4K zero page, which the programs now decide.
serve_from madvise
k0=$(curl -sf "http://127.0.0.1:$sport/metrics" | awk '/^foliostat_kernel_zero_faults_total/ { print $2 }')
read_under never
judge never 0 8192
k1=$(awk '/^foliostat_kernel_zero_faults_total/ { print $2 }' "$T/never.metrics")
if grep -q 'fault_path="bpf' "$T/never.metrics"; then
	[ $((k1 - k0)) -ge "$(zero "$T/never.stat" 0)" ]
	ok $? "under never: the programs decided the 4K zero-page reads ($((k1 - k0)) over the run, the cgroup's $(zero "$T/never.stat" 0))"
else
	skip 1 "serve is not on the BPF fault path here: $(grep '^foliostat_exporter_info' "$T/never.metrics")"
fi
end_pids "$serve_pid"

# never, then madvise: the first read of each of 16 PMD ranges maps the huge zero page,
# which the model places by the policy it was given.
serve_from never
read_under madvise
judge madvise "$po" 15
done_testing
