# SPDX-License-Identifier: GPL-2.0-only
# scripts/guest.sh's checks, on consoles written here: what a guest said between its @@
# markers passes or fails as it should, without a guest (make check-kernels boots them).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../../scripts/guest.sh"
need_commands jq
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
guest_name=test

console() { # KPROBE-LEFT-INT KH-SLEEP KH-ALLOC: a guest's console that passed, but for those
	cat <<LOG
[    1.0] booting
@@KERNEL 6.12.118+deb12-cloud-amd64
@@RECORD-RC 0
@@JSON-BEGIN
{"schema": 1}
@@JSON-END
@@KPROBE-RC 0
@@KPROBE-ENTRIES 2141
@@KPROBE-RETURNS 2141
@@KPROBE-SAMPLE fw 172/172 [000] 25.39: foliostat:wp_ret_171: ret=0
@@KPROBE-LEFT 0
@@KPROBE-DURING 2
@@KPROBE-INT-RC 0
@@KPROBE-LEFT-INT $1
@@KH-RC 0
@@KH-ALLOC $3
@@KH-SLEEP $2
@@KH-BEGIN
{"collapse": {"khugepaged": {"collapses": {"succeeded": 2}}}}
@@KH-END
@@DONE
LOG
}
console 0 10000 2 >"$T/good"
is "$(guest_mark "$T/good" KERNEL)" 6.12.118+deb12-cloud-amd64 "a marker's value"
is "$(guest_block "$T/good" JSON)" '{"schema": 1}' "a block's lines, without its markers"
is "$(guest_mark "$T/good" NONE)" "" "a marker the guest did not print: nothing"
guest_done "$T/good" >/dev/null
ok $? "the completion marker: done"
grep -v '^@@DONE' "$T/good" >"$T/hung"
out=$(guest_done "$T/hung")
ok $((!$?)) "no completion marker: a failure"
like "$out" "FAIL: no completion marker.*" "  and it says so"
{ cat "$T/good"; echo "[    9.0] Kernel panic - not syncing: Fatal exception"; } >"$T/panic"
guest_done "$T/panic" >/dev/null
ok $((!$?)) "a panic after the marker: a failure"
like "$(guest_panicked "$T/panic")" "panicked" "  and guest_panicked says so"
guest_panicked "$T/good" >/dev/null
ok $((!$?)) "no panic: guest_panicked says nothing"

guest_kprobes "$T/good" >/dev/null
ok $? "kprobes recorded and removed: ok"
console 1 10000 2 >"$T/left"
out=$(guest_kprobes "$T/left")
ok $((!$?)) "a kprobe left after SIGINT: a failure"
like "$out" "left after SIGINT 1" "  and it says what was left"
sed 's/^@@KPROBE-ENTRIES .*/@@KPROBE-ENTRIES 2047/' "$T/good" >"$T/few"
guest_kprobes "$T/few" >/dev/null
ok $((!$?)) "fewer entries than the 2048 writes: a failure"
grep -v '^@@KPROBE' "$T/good" >"$T/nokp"
guest_kprobes "$T/nokp" >/dev/null
ok $((!$?)) "no kprobe events in Debian's kernel: a failure"

guest_khugepaged "$T/good" >/dev/null
ok $? "khugepaged's 2 collapses = the kernel's +2: ok"
console 0 10000 3 >"$T/khmore"
guest_khugepaged "$T/khmore" >/dev/null
ok $((!$?)) "2 attributed against +3 counted: a failure"
console 0 20 2 >"$T/khsleep"
guest_khugepaged "$T/khsleep" >/dev/null
ok $((!$?)) "the scan sleep not put back: a failure"
grep -v '^@@KH' "$T/good" >"$T/nokh"
guest_khugepaged "$T/nokh" >/dev/null
ok $? "no khugepaged: nothing to check"

report() { # 64K-FOLIOS 4K-COPIES 64K-REUSE-FAULTS WARNING: a report's orders
	jq -n --argjson a "$1" --argjson c "$2" --argjson r "$3" --arg w "$4" '{
		recording: {warnings: (if $w == "" then [] else [$w] end)},
		orders: [{order: 0, faults: {wp_copy: $c}},
		         {order: 4, faults: {anon_alloc: $a}, reuse: {folios: 0, faults: $r}},
		         {order: 9, faults: {anon_alloc: 16}, reuse: {folios: 0, faults: 0}}]}'
}
report 512 8192 0 "" >"$T/r.json"
guest_geometry "$T/r.json" 6.12.1 8192 >/dev/null
ok $? "6.12: 512 folios of 64K, 8192 copies, no reuse: ok"
report 512 8191 0 "" >"$T/r.json"
guest_geometry "$T/r.json" 6.12.1 8192 >/dev/null
ok $((!$?)) "6.12: a copy short: a failure"
guest_geometry "$T/r.json" 6.12.1 8110 >/dev/null
ok $? "6.12: a copy short, where the sampled method allows 8110: ok"
report 512 8192 16 "" >"$T/r.json"
guest_geometry "$T/r.json" 6.12.1 8192 >/dev/null
ok $((!$?)) "6.12: a 64K folio reused after fork: a failure"
report 256 8192 0 "" >"$T/r.json"
guest_geometry "$T/r.json" 6.12.1 8192 >/dev/null
ok $((!$?)) "6.12: half the 64K folios: a failure"
report 0 8192 0 "this kernel has no multi-size THP (...)" >"$T/r.json"
guest_geometry "$T/r.json" 6.1.0-57 8192 >/dev/null
ok $? "6.1: no mTHP said, 16 folios of 2M, 8192 copies: ok"
report 0 8192 0 "" >"$T/r.json"
guest_geometry "$T/r.json" 6.1.0-57 8192 >/dev/null
ok $((!$?)) "6.1: the missing mTHP sizes not said: a failure"
guest_geometry "$T/r.json" 6.6.1 8192 >/dev/null
ok $((!$?)) "a kernel neither 6.1 nor 6.12: a failure"
done_testing
