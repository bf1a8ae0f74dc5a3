#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Swap-ins from the swap cache decided in the kernel (issue 48): serve's BPF programs count
# a fault that allocated nothing, whose anonymous count rose by as many pages as its swap
# entries fell, as a swap-in of that folio's order, and write nothing out. A workload in a
# cgroup of its own pages its region out to a swap file of its own and reads it back
# (MADV_PAGEOUT and swap readahead leave the folios in the swap cache: minor faults), in
# the process and in a forked child, while serve --by-cgroup and stat -a -G (every event
# streamed to the model) watch the cgroup. The truth: stat's faults by order and class,
# perf stat -G's count of the fault entries and of the major faults.
. "$(dirname "$0")/lib.sh"
need_root
need_commands curl perf
why=$(swapfile_unusable)
[ -z "$why" ] || skip_all "$why"
name=foliostat-swap-$$
own_cgroup "$name"
perf_cgroups_ready "$CG" "$name" | sed 's/^/# cgroups: /' >&2
pids=()
swp=/var/tmp/foliostat-test.$$.swap
cleanup() {
	end_pids "${pids[@]}"
	rmdir "$CG/$name" 2>/dev/null
	rm -f "$swp".1 "$swp".2
	_leave
}
trap cleanup EXIT
cd "$T"
fw=$(workload_bin fw)
slow=1
[ -z "${FOLIOSTAT_GUEST:-}" ] || slow=10

watch_cgroup "$name" major-faults
curl -sf "http://127.0.0.1:$sport/metrics" >"$T/before.txt"
sh -c "echo \$\$ >$CG/$name/cgroup.procs &&
	$fw workload pageout --size 16M --policy small --swapfile $swp.1 --swapin &&
	exec $fw workload pageout --size 16M --policy small --swapfile $swp.2 --swapin-child" \
	>"$T/wl.out" 2>&1
ok $? "the workload paged its region out and read it back, in itself and in a child ($(tail -c 200 "$T/wl.out"))"
sleep $slow
curl -sf "http://127.0.0.1:$sport/metrics" >"$T/after.txt"
kill -INT "$perf_pid" "$stat_pid"
wait "$perf_pid" "$stat_pid"

serve_cells "$T/after.txt" "$name" >"$T/serve.cells"
stat_cells "$T/stat.json" >"$T/stat.cells"
sed 's/^/# serve: /' "$T/serve.cells" >&2
sed 's/^/# stat: /' "$T/stat.cells" >&2
swapins() { awk '$2 == "swap_in" && $1 >= 0 { n += $3 } END { print n + 0 }' "$1"; }
lost=$(jq '.recording.lost_events // 0' "$T/stat.json")
if [ "${lost:-0}" != 0 ]; then
	skip 2 "stat -a -G lost $lost events (the machine's other faults filled its ring buffers): the counts cannot be compared"
else
	is "$(awk '$2 == "swap_in"' "$T/serve.cells" | paste -sd' ')" "$(awk '$2 == "swap_in"' "$T/stat.cells" | paste -sd' ')" \
		"serve --by-cgroup: the cgroup's swap-ins by order are stat -a -G's ($(swapins "$T/stat.cells") of known order)"
	off=$(cells_off "$T/stat.cells" "$T/serve.cells" serve | tr '\n' ' ')
	[ -s "$T/stat.cells" ] && [ -z "$off" ]
	ok $? "serve --by-cgroup: every cell of the cgroup is stat -a -G's (live 15's rule)${off:+: $off}"
fi
pf=$(awk -F, '$3 ~ /^exceptions:page_fault_(user|kernel)$/ { n += $1 } END { print n + 0 }' "$T/perf.csv")
major=$(awk -F, '$3 == "major-faults" { n += $1 } END { print n + 0 }' "$T/perf.csv")
vf=$(awk '{ n += $3 } END { print n + 0 }' "$T/serve.cells")
is "$vf" "$pf" "serve --by-cgroup counted every fault of the cgroup, as perf stat -G ($(head -c 200 "$T/perf.err"))"
# The minor swap-ins of known order are swap cache hits, which serve's programs decide:
# the kernel's count over the run (the machine's other swap-ins too) holds them all.
if grep -q 'fault_path="bpf' "$T/after.txt"; then
	k=$(($(awk '/^foliostat_kernel_swap_faults_total/ { print $2 }' "$T/after.txt") -
		$(awk '/^foliostat_kernel_swap_faults_total/ { print $2 }' "$T/before.txt")))
	want=$(($(swapins "$T/stat.cells") - major))
	[ "$want" -ge 4096 ] && [ "$k" -ge "$want" ]
	ok $? "serve decided the swap cache's swap-ins in the kernel: $k over the run (the cgroup's of known order, less its $major major faults: $want)"
else
	skip 1 "serve is not on the BPF fault path here: $(grep '^foliostat_exporter_info' "$T/after.txt")"
fi
done_testing
