#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# foliostat top through tmux while a workload runs: the figures on screen move from one
# refresh to the next, Enter zooms into the process (its threads), s and f change the sort
# and freeze, the selection stays on its task when a new sort moves it, and when the workload ends the order x class table equals stat's for the
# same run (the large folios' cells), q exits 0.
. "$(dirname "$0")/lib.sh"
need_root
need_commands tmux

trap 'end_session; restore_policies; _leave' EXIT
cd "$T"
fw=$(workload_bin fw)
# "since start: N faults" of the title line.
since_start() { screen | sed -n 's/.*since start: \([0-9]*\) faults.*/\1/p' | head -1; }
args=(workload fork-loop --loops 12 --size 128M)
# make check-kernels-live's guests are emulated, some 80 times slower: a smaller loop, long
# waits, and intervals of 5 s (an ended task's row stays one interval: stat's must outlive
# the recording's slow end there for its faults to be taken off).
slow=1 delay=0.5
if [ -n "${FOLIOSTAT_GUEST:-}" ]; then
	args=(workload fork-loop --loops 4 --size 16M)
	slow=10 delay=5
fi

"$FOLIOSTAT" top -- true </dev/null >"$T/notty.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "top needs a terminal" "$T/notty.out"
ok $? "without a terminal: refused, with what to use instead (exit $rc: $(head -c 150 "$T/notty.out"))"

# The workload runs under stat, itself under top: top's figures and stat's JSON are of one
# run (a fork loop's reuse faults differ by a few dozen in 400,000 from run to run). stat's
# output comes out of top's standard error when top ends. stat is the workloads' binary
# (unsanitized in make check SANITIZE=...): a recorded command stays traced to its exit,
# and LeakSanitizer cannot work in a traced process (it exits 1).
st=$(workload_bin foliostat-stat)
new_session 132 44 \
	"env TERM=screen LC_ALL=C.UTF-8 $FOLIOSTAT top -d $delay -- $st stat --json -- $fw ${args[*]} 2>$T/out; echo rc=\$? >$T/rc; sleep 60"
wait_screen "since start" $((30 * slow))
a=$(since_start)
wait_screen " fw " $((30 * slow))
ok $? "top shows the workload's process (fw) while it runs"
sleep "$(awk -v d="$delay" 'BEGIN { print 3 * d }')"
b=$(since_start)
echo "# since start: $a, then $b faults"
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ]
ok $? "the figures move while it runs: $a then $b faults since the start"
# Its own cost on the status line, measured over the interval: the BPF programs' time in
# the kernel (run_time_ns, BPF statistics on while top runs) and top's CPU, a fault each;
# or, on the samples path, top's alone and a word that the kernel's is not measured.
cost=$(screen | grep -o '[0-9]* faults/s, .*' | tail -1)
echo "# status line: $cost"
case "$cost" in
*"(BPF not measured)"*) [ "$(echo "$cost" | sed -n 's/.*top \([0-9]*\) ns.*/\1/p')" -gt 0 ] ;;
*) bpf=$(echo "$cost" | sed -n 's/.*BPF \([0-9]*\), top \([0-9]*\)$/\1/p')
	[ -n "$bpf" ] && [ "$bpf" -gt 0 ] && [ "$bpf" -lt 1000000 ] ;;
esac
ok $? "the status line says what top adds a fault, measured ($cost)"
keys Enter
wait_screen "threads of pid" $((10 * slow))
ok $? "Enter zooms into the selected process: its threads"
keys Escape s
wait_screen "sort: faults/i" $((10 * slow))
ok $? "Esc goes back and s moves to the next sort key (faults/i)"
keys f
wait_screen "FROZEN" $((10 * slow))
ok $? "f freezes the screen"
# The selection is a task, not a line (top.c's draw_tasks): a row selected (k to the first,
# then j) stays selected when s sorts the rows anew and it moves. Frozen while the fork
# loop runs (many processes): each sort key's order first (s six times, back to this
# one), and a row whose place another key changes.
rows() { awk '/ PID COMMAND/ { on = 1; next } on && NF == 0 { exit } on { printf "%s ", $1 }'; }
select_pid() { # PID, in the rows as drawn now
	local i=0 p
	for p in $(screen | rows); do keys k; done
	for p in $(screen | rows); do [ "$p" = "$1" ] && break; keys j; i=$((i + 1)); done
	echo "$i"
}
wait_sort() { # NAME: the title says this sort key (at the line's end, or more after it)
	for _ in $(seq $((100 * slow))); do
		screen | grep -qE "sort: $1( |\$)" && return 0
		sleep 0.1
	done
	return 1
}
sorts=(faults/i time faults p99 reuse/folio time/i)
order0=$(screen | rows) moved= presses=
for s in 1 2 3 4 5 6; do
	keys s
	wait_sort "${sorts[s % 6]}" || break
	order=$(screen | rows)
	# A task still running: an ended one's row goes at the next interval, and with it
	# the selection (seen once in four runs beside a soak: "row 5 then ?").
	[ -n "$moved" ] || [ "$s" -eq 6 ] || for p in $order0; do
		[ -d "/proc/$p" ] || continue
		[ "$(echo "$order0" | tr ' ' '\n' | grep -nx "$p")" = "$(echo "$order" | tr ' ' '\n' | grep -nx "$p")" ] ||
			{ moved=$p presses=$s; break; }
	done
done
if [ -n "$moved" ]; then
	from=$(select_pid "$moved")
	for ((i = 0; i < presses; i++)); do keys s; done
	wait_sort "${sorts[presses % 6]}"
	to=$(screen | rows | tr ' ' '\n' | grep -nx "$moved" | cut -d: -f1)
	keys Enter
	wait_screen "threads of pid $moved " $((10 * slow))
	ok $? "s sorts the rows anew, the selection stays on its task (pid $moved, row $((from + 1)) then ${to:-?} by ${sorts[presses % 6]}): Enter zooms into it"
	keys Escape
	wait_screen " PID COMMAND" $((10 * slow))
else
	skip 1 "no sort key moves a row of this run's $(echo "$order0" | wc -w) (pids $order0): nothing to follow"
fi
keys f
wait_screen "exited (status 0)" $((240 * slow))
ok $? "the end of the workload is said, with its exit status"
# Frozen (f), the rows keep their order and the ended ones stay while j picks one (a
# refresh sorted them anew between the capture and j once: Enter zoomed into the fw).
keys f
wait_screen "FROZEN" $((10 * slow))
screen >"$T/all.txt"
# The table of all faults holds stat's own, and those of the two processes its recorder
# forks at the end (record.c's defer_teardown: the one that exits at once and
# foliostat-tdown), all named foliostat... and still listed (they ended last). Each
# selected in the order shown (j), Enter shows its own table; all are taken off the whole.
# The first of them by the sort is not always stat (the guests' p99 put foliostat-tdown,
# a 20 ms fault, above it).
pids=$(awk '/ PID COMMAND/ { on = 1; next } on && NF == 0 { exit }
	on && $2 ~ /^foliostat/ { printf "%s ", $1 }' "$T/all.txt")
echo "# stat's processes in the process table: ${pids:-none}"
[ -n "$pids" ] || echo "#   stat's process is not in top's table: its faults cannot be taken off" >&2
: >"$T/stat-proc.txt"
for pid in $pids; do
	select_pid "$pid" >/dev/null
	keys Enter
	wait_screen "threads of pid $pid " $((10 * slow))
	screen >>"$T/stat-proc.txt"
	keys Escape
	wait_screen " PID COMMAND" $((10 * slow))
done
sed 's/^/# /' "$T/all.txt" "$T/stat-proc.txt" >&2
keys q
for _ in $(seq $((100 * slow))); do [ -s "$T/rc" ] && break; sleep 0.1; done
is "$(cat "$T/rc" 2>/dev/null)" "rc=0" "q exits 0"
# The JSON document alone: stat's warnings (events lost) may follow it.
sed -n '/^{/,/^}/p' "$T/out" >"$T/stat.json"
jq -e .orders "$T/stat.json" >/dev/null
ok $? "stat's JSON of the same run comes out when top ends"
# The cells of 1000 faults or more (the workload's region), against top's: equal, but for
# what top alone sees. stat records its child from its exec, top from its fork: the few
# faults in between (the child's writes after the fork, a dozen or two in the guests' 4K
# cells) are top's only. So top has 0 to 64 more.
bad=0 n=0
while read -r size cls want; do
	n=$((n + 1))
	all=$(awk -v s="$size" -v c="$cls" '$1 == s && $2 == c { print $4 }' "$T/all.txt")
	own=$(awk -v s="$size" -v c="$cls" '$1 == s && $2 == c { n += $4 } END { print n + 0 }' "$T/stat-proc.txt")
	got=$((${all:-0} - ${own:-0}))
	[ "$got" -ge "$want" ] && [ "$got" -le $((want + 64)) ] || { echo "# $size $cls: top '$got', stat $want" >&2; bad=1; }
done < <(jq -r '.orders[] |
	(if .order < 0 then "unknown" elif .size_bytes >= 1048576 then "\(.size_bytes / 1048576)M"
	 else "\(.size_bytes / 1024)K" end) as $s |
	.faults | to_entries[] | select(.value >= 1000) | "\($s) \(.key) \(.value)"' "$T/stat.json")
[ -n "$pids" ] && [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
ok $? "top's order x class table, less stat's own faults, equals stat's of the same run ($n cells of 1000 faults or more; top may have up to 64 more: the child's before its exec)"
done_testing
