#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A recording cut short stays readable: foliostat killed with SIGKILL mid-run, and Ctrl-C
# (SIGINT) passed to the workload with the file finished properly.
. "$(dirname "$0")/lib.sh"
need_root

cd "$T"
fw=$(workload_bin fw)
# SIGKILL of foliostat while the workload runs.
"$FOLIOSTAT" record -q -o k.data -- "$fw" workload fork-reuse --size 1G --policy small 2>/dev/null &
rec=$!
# Once the workload runs (its exec comes after the recording's header is on disk) and
# the file has grown by a megabyte of its records (tens of thousands of faults): not
# after a fixed time, which a slow machine (an emulated guest: 80 times slower) spends
# starting, nor so late that the run is over.
# The recorder's own child: another fw on the machine (a soak's) is none of this test's.
for _ in $(seq 600); do wl=$(pgrep -x fw -P "$rec") && break; sleep 0.1; done
for _ in $(seq 1200); do [ "$(stat -c %s k.data 2>/dev/null || echo 0)" -gt 1048576 ] && break; sleep 0.05; done
kill -KILL "$rec"
wait "$rec" 2>/dev/null
[ -z "${wl:-}" ] || kill -KILL "$wl" 2>/dev/null
"$FOLIOSTAT" script -i k.data >k.txt 2>k.err; rc=$?
is "$rc" 0 "a recording whose writer was SIGKILLed is readable (exit 0)"
grep -q "ends early" k.err; ok $? "... with a warning that it ends early"
n=$(grep -c "page_fault_user" k.txt)
[ "$n" -gt 1000 ]; ok $? "... holding the events written before the kill ($n faults)"

# SIGINT to foliostat reaches the workload; the file is complete. Job control keeps
# bash from starting the background job with SIGINT ignored.
set -m
"$FOLIOSTAT" record -q -o i.data -- sleep 30 2>i.err &
rec=$!
set +m
for _ in $(seq 600); do pgrep -x sleep -P "$rec" >/dev/null && break; sleep 0.1; done
kill -INT "$rec"
wait_for "$rec" 300; rc=$?
is "$rc" 130 "SIGINT: the workload died of it, exit 128+2"
"$FOLIOSTAT" script -i i.data >/dev/null 2>i2.err; rc=$?
is "$rc" 0 "the interrupted recording reads back"
grep -q "ends early" i2.err; ok $((!$?)) "... and is complete"
"$FOLIOSTAT" record -q -o t.data -- sleep 30 2>/dev/null &
rec=$!
sleep 0.5
kill -TERM "$rec"
wait_for "$rec" 300; rc=$?
is "$rc" 143 "SIGTERM is passed on too: exit 128+15"

# Attach mode with --duration.
sleep 30 &
victim=$!
"$FOLIOSTAT" record -q -p "$victim" --duration 0.5 -o p.data 2>/dev/null; rc=$?
is "$rc" 0 "record -p PID --duration 0.5 exits 0"
kill "$victim"
"$FOLIOSTAT" script -S -i p.data >p.txt 2>p.err; rc=$?
is "$rc" 0 "the attached recording reads back"
grep -q "PERF_RECORD_MMAP2 .*: $(command -v sleep)" p.txt; ok $? "... with the process's mappings as they were at attach (from /proc)"
grep -q "ends early" p.err; ok $((!$?)) "... and is complete"
# --duration counts its seconds from the events' start (live 09 checks it where the
# start-up is long): 0.5 s or a poll more.
d=$("$FOLIOSTAT" report --json -i p.data 2>/dev/null | jq .recording.duration_ns)
upto=1500000000
[ -z "${FOLIOSTAT_GUEST:-}" ] || upto=30000000000
[ "${d:-0}" -ge 500000000 ] && [ "${d:-0}" -lt "$upto" ]
ok $? "... 0.5 s of events recorded, its duration 0.5 s or a poll more ($d ns)"

# The end of a --duration window with a fault in flight: a thread blocked in a fault on a
# userfaultfd range nobody serves. Its exit never comes; it was "no exit sample (failed
# with SIGSEGV, or events lost)" and counted in the tables, as if it had failed.
write_ticker
cat >stuck.c <<'EOF'
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include "ticker.h"
int main(void)
{
	long uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	struct uffdio_api api = { .api = UFFD_API };
	char *p = mmap(0, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register reg = { .range = { (unsigned long)p, 1 << 16 },
				       .mode = UFFDIO_REGISTER_MODE_MISSING };

	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg))
		return 1;
	tick_until_usr1();
	p[0] = 1; /* blocks until the fault is served: never */
	return 0;
}
EOF
cc -O1 -o stuck stuck.c
./stuck &
victim=$!
sleep 0.2
if ! kill -0 "$victim" 2>/dev/null; then
	skip 3 "userfaultfd is not available here (the blocked fault needs one)"
else
	"$FOLIOSTAT" record -q -p "$victim" --fault-path samples -o stuck.data 2>stuck.err &
	rec=$!
	# Once the recording has the victim's faults (not after a guessed time: an emulated guest
	# takes seconds to attach), the blocking one; then SIGINT ends the recording.
	wait_recorded stuck.data 2
	kill -USR1 "$victim"
	sleep 1
	kill -INT "$rec"
	wait_for "$rec" 300; rc=$?
	kill -KILL "$victim"; wait "$victim" 2>/dev/null
	is "$rc" 0 "record -p of a thread blocked in a fault exits 0"
	is "$(jr stuck.data '"\(.totals.in_flight_faults) \(.totals.unclosed_faults)"')" "1 0" \
		"the fault in flight at the end is counted apart, not as one without an exit"
	"$FOLIOSTAT" report -i stuck.data | grep -q "1 faults were in flight when the recording ended"
	ok $? "... and the report says so"
fi

# record -p of a 64 TB reservation: a kernel without PAGEMAP_SCAN (before 6.7) has the
# seeding read it page by page (minutes), and SIGINT was ignored until it was done; one
# that came before the walk began, it never saw. A hang guard, not a timing budget: the
# walk looks at the signal every window of pages.
start_reservation reserve 46
w=$reservation
"$FOLIOSTAT" record -q -p "$w" -o reserve.data >/dev/null 2>reserve.err &
r=$!
sleep 1
t0=$(date +%s%N)
kill -INT "$r"
for _ in $(seq 300); do kill -0 "$r" 2>/dev/null || break; sleep 0.1; done
took=$((($(date +%s%N) - t0) / 1000000))
kill -0 "$r" 2>/dev/null && { kill -KILL "$r"; took=never; }
wait "$r" 2>/dev/null
kill $w; wait $w 2>/dev/null
echo "# record -p of a 64 TB reservation ended $took ms after SIGINT: $(head -c 300 reserve.err | tr "\n" " ")"
[ "$took" != never ]; ok $? "record -p of a 64 TB reservation ends within 30 s of SIGINT"
done_testing
