#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# record -a: every task on every CPU, alone for a while or while a command runs. The
# figures of a workload foliostat did not start are checked against its geometry.
. "$(dirname "$0")/lib.sh"
need_root

cd "$T"
# A name of its own: --comm must find this test's workload, not another fw on the machine
# (a soak's, another test's).
wname=fw$$
fw=$(workload_bin "$wname")

# A workload started before the recording: populate, wait (twice the recorder's start-up
# here, and 2 s), fork, write every page again: 32M / 4K = 8192 reuse faults, on folios
# allocated before the recording. The
# recording starts once the region is populated (its RSS says so) and is stopped (SIGINT)
# once the workload is gone, whatever the machine's speed (an emulated guest is 80 times
# slower).
boot=$(record_startup)
"$fw" workload fork-reuse --size 32M --policy small --delay $((2 * boot + 2)) &
wl=$!
for _ in $(seq 600); do
	[ "$(awk '/^VmRSS/ { print $2 }' /proc/$wl/status 2>/dev/null)" -ge 32768 ] 2>/dev/null && break
	sleep 0.1
done
set -m # a background job of a script ignores SIGINT otherwise
"$FOLIOSTAT" record -q -a --duration 600 -o a.data &
rec=$!
set +m
wait $wl
kill -INT $rec
wait $rec; ok $? "record -a --duration, stopped by SIGINT once the workload ended"
wait $wl
"$FOLIOSTAT" report -i a.data | head -1 | grep -q "every task on every CPU"; ok $? "the header says it was system-wide"
# --duration S counts S seconds of events, from their start to their end: opening them
# and reading every task's name came off the S, and draining their backlog was added
# (6 s gave 9.1 s). Measured while a workload faults beside it (it made 0.97 s of 1 here).
(for _ in $(seq 100); do "$fw" workload populate --size 64M --policy small >/dev/null 2>&1 || break; done) &
busy=$!
"$FOLIOSTAT" record -q -a --duration 1 -o d.data 2>/dev/null
kill $busy 2>/dev/null
wait $busy 2>/dev/null
d=$(jr d.data .recording.duration_ns)
# An emulated guest's poll returns late (its drain is some 80 times slower): 1 s at least.
upto=1500000000
[ -z "${FOLIOSTAT_GUEST:-}" ] || upto=30000000000
[ "${d:-0}" -ge 1000000000 ] && [ "${d:-0}" -lt "$upto" ]
ok $? "record -a --duration 1 on a busy machine: 1 s of events, and its duration says so ($d ns)"
is "$(jr a.data '.recording.command | length')" 0 "no command of its own"
n=$(jr a.data '.totals.processes')
[ "$n" -ge 2 ]; ok $? "more than one process recorded ($n)"
# Its name came from /proc at the start: --comm finds a task that never exec'd meanwhile.
n=$("$FOLIOSTAT" report --json -i a.data --comm "$wname" | jq '[.classes[] | select(.class == "wp_reuse") | .faults][0]')
within "${n:-0}" 8192 8300; ok $? "--comm $wname: its 8192 reuse faults ($n)"
n=$("$FOLIOSTAT" report --json -i a.data --comm "$wname" | jq '.totals.unknown_order.before_recording')
[ "${n:-0}" -ge 8192 ]; ok $? "... on folios it allocated before the recording: order unknown, said so ($n)"

# -a with a command: everything while it runs, the command's status.
"$FOLIOSTAT" record -q -a -o b.data -- "$fw" workload populate --size 16M --policy small; ok $? "record -a -- command"
n=$("$FOLIOSTAT" report --json -i b.data --comm "$wname" | jq '[.orders[] | select(.order == 0) | .faults.anon_alloc][0]')
within "${n:-0}" 4096 4300; ok $? "--comm $wname: 16M of 4K pages, 4096 first touches ($n)"
"$FOLIOSTAT" record -q -a -o c.data -- sh -c 'exit 7'; is $? 7 "the command's exit status"
# System-wide takes the BPF fault path too where its programs load (top and serve run so):
# the same first touches as the samples path.
if "$FOLIOSTAT" check 2>&1 | grep -qE '^  ok +BPF fault path +the programs load'; then
	is "$(jr b.data .recording.fault_path)" bpf "record -a takes the BPF fault path where it loads"
	"$FOLIOSTAT" record -q -a --fault-path samples -o bs.data -- "$fw" workload populate --size 16M --policy small
	n=$("$FOLIOSTAT" report --json -i bs.data --comm "$wname" | jq '[.orders[] | select(.order == 0) | .faults.anon_alloc][0]')
	within "${n:-0}" 4096 4300; ok $? "... and the samples path the same 4096 first touches ($n)"
else
	skip 2 "the BPF fault path does not load here: $("$FOLIOSTAT" check 2>&1 | grep 'BPF fault path' | head -c 150)"
fi

# -G: scoped to a cgroup (v2). The command starts a workload of 64M, then moves itself
# into the cgroup (the child stays outside) and runs one of 16M: only its faults count.
cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
cg=foliostat-test-$$
# Whether a task can move into a new cgroup here (a guest's bare cgroup2 may refuse it):
# a shell that moves itself, then ends.
if [ -n "$cg2" ] && mkdir "$cg2/$cg" 2>/dev/null &&
	! sh -c "echo \$\$ >$cg2/$cg/cgroup.procs" 2>cgerr; then
	rmdir "$cg2/$cg"
	skip 6 "no task can move into a new cgroup here: $(head -c 120 cgerr)"
elif [ -n "$cg2" ] && [ -d "$cg2/$cg" ]; then
	# -G refuses a cgroup whose samples would name another (no perf_event state of its
	# own: cgroup.stat counts them from 6.10), saying what to do; done, it records.
	have=$(awk '$1 == "nr_subsys_perf_event" { print $2 }' "$cg2/$cg/cgroup.stat")
	said=$(perf_cgroups_ready "$cg2" "$cg")
	rc=$?
	[ -z "$said" ] || echo "$said" | sed 's/^/#   /' >&2
	if [ -n "$have" ]; then
		{ [ "$have" -ge 1 ] && [ "$rc" = 0 ] && [ -z "$said" ]; } ||
			{ [ "$have" = 0 ] && grep -q "0 of the 1 cgroups at /$cg have perf_event's state" <<<"$said"; }
		ok $? "-G holds the cgroup's perf_event state to cgroup.stat's (nr_subsys_perf_event $have)"
	else
		skip 1 "cgroup.stat counts no perf_event state before 6.10"
	fi
	"$FOLIOSTAT" record -q -a -G "$cg" -o g.data -- sh -c "$fw workload populate --size 64M --policy small & echo \$\$ >$cg2/$cg/cgroup.procs && $fw workload populate --size 16M --policy small && wait"
	ok $? "record -a -G CGROUP -- command"
	n=$("$FOLIOSTAT" report --json -i g.data | jq '[.orders[] | select(.order == 0) | .faults.anon_alloc][0]')
	within "${n:-0}" 4096 4300 ||
		echo "#   -G: $("$FOLIOSTAT" report --json -i g.data | jq -c '[.recording.cgroup, [.orders[] | {order, faults}]]'); $cg2: $(cat "$cg2/cgroup.controllers" "$cg2/cgroup.subtree_control" 2>&1 | tr '\n' ' ')" >&2
	within "${n:-0}" 4096 4300; ok $? "-G: the 4096 first touches of the command in the cgroup, not the 16384 beside it ($n)"
	n=$("$FOLIOSTAT" report --json -i g.data | jq '.recording.cgroup.samples_outside')
	[ "${n:-0}" -ge 16384 ]; ok $? "... the other tasks' samples left out and counted ($n)"
	is "$("$FOLIOSTAT" report --json -i g.data | jq -r '.recording.cgroup.path')" "/$cg" "... the cgroup named in the report"
	"$FOLIOSTAT" report -i g.data | grep -q "^# cgroup:   /$cg and the cgroups below it"; ok $? "... and in the text header"
	rmdir "$cg2/$cg"
else
	for i in 1 2 3 4 5 6; do ok 0 "# SKIP no cgroup2 mount to make a cgroup in"; done
fi
"$FOLIOSTAT" record -q -G / -o x.data -- true 2>err; rc=$?
is "$rc" 2 "-G without -a: usage error"
"$FOLIOSTAT" record -q -a -G no/such/cgroup -o x.data -- true 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "no such cgroup" err; ok $? "-G of a cgroup that does not exist: exit 1, saying so ($(cat err))"
"$FOLIOSTAT" record -q -a -G cgroup.procs -o x.data -- true 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "no such cgroup" err; ok $? "-G of a cgroup's file, not a cgroup: exit 1 ($(cat err))"
"$FOLIOSTAT" record -q -a -G '' -o x.data -- true 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "empty cgroup path" err; ok $? "-G '': exit 1, not every task ($(cat err))"

"$FOLIOSTAT" record -q -a -p 1 -o x.data 2>/dev/null; is $? 2 "-a with -p: usage error"
"$FOLIOSTAT" record -q -a -r 2 -o x.data -- true 2>/dev/null; is $? 2 "-a with -r: usage error"
done_testing
