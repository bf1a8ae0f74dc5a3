#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Where the faults come from: the code that took them (libdwfl, by build-id) and the
# mapping they touched, against what the workload is known to do.
. "$(dirname "$0")/lib.sh"
need_root

cd "$T"
fw=$(workload_bin fw)
set_policy "$THP/enabled" madvise
# The write pass's faults after fork: reuses, or copies where the kernel copies a page of
# a large folio (before 6.13).
wp=wp_copy
[ "$(large_folio_reuse)" = yes ] && wp=wp_reuse

# fork-reuse of 32M of PTE-mapped THP: every reuse fault is the write pass's store into
# the anonymous region (write_pass in cmd/workloads/workloads.c, the store inlined into it).
"$FOLIOSTAT" record -q -o f.data -- "$fw" workload fork-reuse --size 32M
ok $? "record fork-reuse 32M"
"$FOLIOSTAT" report --json -i f.data >f.json
all=$(jq --arg c $wp '[.sites[] | select(.class == $c) | .faults] | add // 0' f.json)
mine=$(jq --arg c $wp '[.sites[] | select(.class == $c and .sym == "write_pass" and .map == "[anon]") | .faults] | add // 0' f.json)
[ "$all" -ge 8192 ] && [ $((mine * 100)) -ge $((all * 99)) ]
ok $? "$wp faults: $mine of $all (>= 99%) in write_pass, on [anon]" ||
	jq -r --arg c $wp '"#   \(.sites[] | select(.class == $c or .sym == "write_pass") |
		"\(.faults) order \(.order) \(.class) \(.sym) \(.map)")"' f.json | sort -rn -k2 | head >&2
is "$(jq -r '[.sites[] | select(.sym == "write_pass")][0].dso' f.json)" "$fw" "... write_pass is in the workload's binary"
jq -e '[.sites[] | select(.sym == "write_pass")][0].src | test("^workloads.c:[0-9]+$")' f.json >/dev/null
ok $? "... with its source line ($(jq -r '[.sites[] | select(.sym == "write_pass")][0].src' f.json))"
# ld.so's relocation writes to libc's data at start-up: copies of libc's pages.
n=$(jq '[.mappings[] | select((.map | test("/libc\\.so")) and .class == "wp_copy") | .faults] | add // 0' f.json)
[ "$n" -ge 1 ]; ok $? "a copy-on-write of libc's data names libc's mapping ($n faults)"
n=$(jq '[.sites[] | select(.map == "[anon]") | .faults] | add' f.json)
is "$(jq '[.mappings[] | select(.map == "[anon]") | .faults] | add' f.json)" "$n" "mappings and sites agree on [anon] ($n faults)"
"$FOLIOSTAT" report -i f.data | sed -n '/^Where the faults come from/,/^$/p' >sites.txt
grep -Eq '^ +[0-9.]+% +[0-9]+ .* write_pass \(workloads\.c:[0-9]+\)  \[anon\]$' sites.txt
ok $? "the text report's table names write_pass on [anon]"

# --sort and --top: any keys, in order; the rows add up.
"$FOLIOSTAT" report --json --sort comm,class --top 1 -i f.data >t.json
is "$(jq -c '.sites[0] | keys' t.json)" '["class","comm","faults","max_ns","time_ns"]' "--sort comm,class: those keys"
is "$(jq '.sites | length' t.json)" 1 "--top 1: one row"
"$FOLIOSTAT" report --sort sym,bogus -i f.data >/dev/null 2>err; rc=$?
[ "$rc" = 2 ] && grep -q "unknown sort key 'bogus'" err; ok $? "--sort with an unknown key: usage error, named"

# -g: the user call chain of each fault, folded for flame graphs, callers first: the
# write pass is called by fork_and_write, called by fol_wl_run (the built-in workloads
# keep frame pointers).
"$FOLIOSTAT" record -q -g -o g.data -- "$fw" workload fork-reuse --size 32M
ok $? "record -g"
"$FOLIOSTAT" report --folded=count -i g.data >g.folded
! grep -Ev '^[^ ;]+(;[^ ;]+)+ [0-9]+$' g.folded; ok $? "every line is comm;frame;...;frame COUNT ($(wc -l <g.folded) lines)"
n=$(awk '$1 ~ /;fol_wl_run;fork_and_write;write_pass$/ {s += $2} END {print s + 0}' g.folded)
[ "$n" -ge 8192 ]; ok $? "the reuse faults' stack reads fol_wl_run;fork_and_write;write_pass, callers first ($n faults)"
"$FOLIOSTAT" report --folded -i g.data --class $wp | awk '{s += $2} END {printf "%.0f\n", s}' >t
is "$(cat t)" "$(jq --arg c $wp '[.classes[] | select(.class == $c) | .fault_time_ns][0]' <("$FOLIOSTAT" report --json -i g.data))" \
	"--folded --class $wp: the stacks weigh the class's fault time"
"$FOLIOSTAT" report --folded -i f.data >/dev/null 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "record with -g" err; ok $? "--folded of a recording without -g: exit 1, saying so"

# --call-graph dwarf: the same stacks from the registers and a copy of the user stack,
# unwound by the CFI; where frame pointers exist they agree with -g's.
# 8 KB of stack a sample, 64 MB for the 8192 faults of the write pass: a buffer that
# holds them all, so that none is lost however slowly the reader drains (software
# emulation drains slowly).
"$FOLIOSTAT" record -q --call-graph dwarf -m 32768 -o d.data -- "$fw" workload fork-reuse --size 32M
ok $? "record --call-graph dwarf"
# With its default buffers: a 7-pass fork-loop of 64M (~115,000 faults, ~1 GB of stacks)
# lost 34,617 to 118,040 events a run at 8192 pages a CPU, the writer behind.
if [ -n "${FOLIOSTAT_GUEST:-}" ]; then
	skip 1 "an emulated guest: its writer is some 80 times slower, no default holds that"
else
	"$FOLIOSTAT" record -q --call-graph dwarf -o dl.data -- "$fw" workload fork-loop --loops 7 --size 64M 2>/dev/null
	is "$(jr dl.data '.recording.lost_events')" 0 "record --call-graph dwarf, default buffers: no event lost of a 7-pass fork-loop of 64M"
	rm -f dl.data
fi
"$FOLIOSTAT" report --folded=count -i d.data >d.folded
# libc has no frame pointers: -g stops at __libc_start_call_main, dwarf goes on to _start.
# Two recordings, compared by each one's heaviest write-pass stack: its frames, and all
# 8192 faults on dwarf's; -g's walks libc's frames by whatever rbp holds, so a fault can
# grow a different top (seen once in CI): 99% of them on one stack.
fp=$(grep ';write_pass ' g.folded | sort -t' ' -k2 -n | tail -n 1)
dw=$(grep ';write_pass ' d.folded | sort -t' ' -k2 -n | tail -n 1)
f_frames=${fp% *} d_frames=${dw% *}
[ "${d_frames%;"${f_frames#*;}"}" != "$d_frames" ] && [ "$d_frames" != "$f_frames" ] &&
	[ "${fp##* }" -ge 8110 ] && [ "${dw##* }" -ge 8192 ]
ok $? "... the write pass's stack has -g's frames and more callers: $dw (-g: ${fp##* } faults)"
is "$(jq '.recording.lost_events' <("$FOLIOSTAT" report --json -i d.data))" 0 "... with no sample lost (8 KB of stack each)"
# The probe effect printed is the one of these events: the stack copy is made inside each
# fault (+6 us a fault here), and the calibration left it out (the same ~700 ns as -g's).
n=$(jr d.data '.recording.probe_effect | (.sample_bytes / (.faults * .passes) | floor)')
[ "${n:-0}" -ge 8192 ] 2>/dev/null
ok $? "... calibrated with the user stack a fault takes ($n bytes of samples a traced fault)"
# A program built without frame pointers, two levels deep: -g loses the callers,
# dwarf has them, callers first.
cat >nofp.c <<'EOF'
#include <stddef.h>
#include <sys/mman.h>
__attribute__((noinline)) static void inner_touch(volatile char *p, size_t i) { p[i] = 1; }
__attribute__((noinline)) static void outer_touch(volatile char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		inner_touch(p, i);
	__asm__ volatile("" ::: "memory");
}
int main(void)
{
	size_t n = 8 << 20;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(p, n, MADV_NOHUGEPAGE);
	outer_touch(p, n);
	return 0;
}
EOF
cc -O2 -fomit-frame-pointer -o nofp nofp.c
"$FOLIOSTAT" record -q --call-graph dwarf -o nd.data -- ./nofp
n=$("$FOLIOSTAT" report --folded=count -i nd.data | awk '$1 ~ /;main;outer_touch[^;]*;inner_touch$/ {s += $2} END {print s + 0}')
is "$n" 2048 "without frame pointers, dwarf: main;outer_touch;inner_touch for each of the 2048 pages"
"$FOLIOSTAT" record -q -g -o nf.data -- ./nofp
n=$("$FOLIOSTAT" report --folded=count -i nf.data | awk '$1 ~ /;outer_touch[^;]*;inner_touch$/ {s += $2} END {print s + 0}')
is "$n" 0 "... which frame pointers cannot tell (-g: no outer_touch before inner_touch)"
for bad in dwarf,12 dwarf,0 dwarf,1000000 lbr; do
	"$FOLIOSTAT" record -q --call-graph $bad -o x.data -- true 2>err; rc=$?
	[ "$rc" = 2 ] && [ ! -e x.data ] || { echo "# --call-graph $bad: exit $rc: $(cat err)" >&2; false; }
done
ok $? "--call-graph dwarf,12 / dwarf,0 / dwarf,1000000 / lbr: usage errors, nothing written"

# --csv: each table parses with Python's csv module and says what the JSON says.
"$FOLIOSTAT" report --json -i g.data >g.json
for t in faults reuse calls sites; do "$FOLIOSTAT" report --csv=$t -i g.data >$t.csv; done
python3 - g.json faults.csv reuse.csv calls.csv sites.csv <<'PY' >csv.out
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = lambda f: list(csv.DictReader(open(f, newline="")))
bad = []
orders = {o["order"]: o for o in j["orders"]}
for r in rows(sys.argv[2]):
    o = orders[int(r["order"])]
    lat = o["latency_by_class_ns"][r["class"]]
    if [int(r["faults"]), int(r["fault_time_ns"]), int(r["p99_ns"]), int(r["max_ns"])] != \
       [o["faults"][r["class"]], o["fault_time_ns"][r["class"]], lat["p99"], lat["max"]]:
        bad.append("faults " + str(r))
for r in rows(sys.argv[3]):
    ru = orders[int(r["order"])]["reuse"]
    if [int(r["faults"]), int(r["episodes"]), round(float(r["effectiveness"]), 6)] != \
       [ru["faults"], ru["episodes"], ru["effectiveness"]]:
        bad.append("reuse " + str(r))
calls = {c["call"]: c for c in j["calls"]}
for r in rows(sys.argv[4]):
    if [int(r["calls"]), int(r["time_ns"])] != [calls[r["call"]]["calls"], calls[r["call"]]["time_ns"]]:
        bad.append("calls " + str(r))
sites = rows(sys.argv[5])
if [(int(r["order"]), r["class"], r["sym"], r["map"], int(r["faults"])) for r in sites] != \
   [(s["order"], s["class"], s["sym"], s["map"], s["faults"]) for s in j["sites"]]:
    bad.append("sites differ")
print(len(bad), *bad[:3])
PY
is "$(cat csv.out)" 0 "--csv faults, reuse, calls, sites: parsed by Python's csv, equal to the JSON"
is "$(head -1 faults.csv | tr -d '\r')" "order,size_bytes,class,faults,fault_time_ns,mean_ns,p50_ns,p99_ns,max_ns,unclosed" "... faults' header"
n=$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1], newline=""))))' faults.csv)
is "$n" "$(jq '[.orders[].faults | length] | add' g.json)" "... a row per order and class with faults ($n)"
"$FOLIOSTAT" report --csv=bogus -i g.data >/dev/null 2>&1; is $? 2 "--csv of an unknown table: usage error"

# stat -I: a JSON line per interval for live dashboards, then the report on a line.
"$FOLIOSTAT" stat --json -I 50 -- "$fw" workload fork-loop --size 32M --loops 20 >i.jsonl 2>/dev/null
ok $? "stat --json -I 50 of fork-loop"
n=$(jq -s '[.[] | select(.schema == "foliostat/interval/v1")] | length' i.jsonl)
is "$(jq -s -r '.[-1].schema' i.jsonl)" foliostat/report/v1 "... JSON Lines: $n interval lines, then the report"
sum=$(jq -s '[.[] | select(.schema == "foliostat/interval/v1") | .faults] | add // 0' i.jsonl)
total=$(jq -s '.[-1].totals.faults' i.jsonl)
[ "$n" -ge 2 ] && [ "$sum" -le "$total" ] && [ $((sum * 2)) -ge "$total" ]
ok $? "... the intervals' faults ($sum) are most of the run's ($total), never more"
bad=$(jq -s '[.[] | select(.schema == "foliostat/interval/v1") | select(([.cells[].faults] | add // 0) != .faults)] | length' i.jsonl)
is "$bad" 0 "... each line's cells add up to its faults"
"$FOLIOSTAT" stat --json -I 100 -- sleep 1 2>/dev/null | jq -s '[.[] | select(.schema == "foliostat/interval/v1")] | length' >idle
[ "$(cat idle)" -ge 5 ]; ok $? "an idle command still gets its interval lines ($(cat idle) in 1 s at 100 ms)"
"$FOLIOSTAT" stat -I 100 -- true >/dev/null 2>&1; is $? 2 "-I without --json: usage error"

# The binary changes after the recording: the build-id in the recording no longer
# matches, so its addresses are not named; --symfs finds the recorded one elsewhere.
# (HOME is an empty directory here: perf's build-id cache, ~/.debug, may hold the very
# binary from another test's perf record, and would rightly be used.)
mkdir -p "sym$(dirname "$fw")" home
cp "$fw" "sym$fw"
# foliostat archive, while the recorded files are still here: the binary by its build-id.
"$FOLIOSTAT" archive -i f.data -o f.archive >archive.out 2>&1
ok $? "archive: exit 0"
# An archive over its own recording replaced it (kept only as f.data.old): refused.
sum=$(md5sum <f.data)
"$FOLIOSTAT" archive -i f.data -o ./f.data >/dev/null 2>err; rc=$?
[ "$rc" = 2 ] && [ "$(md5sum <f.data)" = "$sum" ] && [ ! -e f.data.old ]
ok $? "archive -i X -o X: exit 2, the recording untouched ($(cat err))"
grep -q "^  packed  *$(readelf -n "$fw" | awk '/Build ID:/ {print $3}')  $fw\$" archive.out
ok $? "... the workload's binary packed by its build-id ($(grep -c packed archive.out) files packed)"
# A recorded path is the recording's: an ESC and a BEL in a binary's name reached the
# terminal raw. archive prints them escaped.
esc=$(printf 'w\033]0;x\007')
cp "$fw" "$T/$esc"
"$FOLIOSTAT" record -q -o e.data -- "$T/$esc" workload populate --size 1M 2>/dev/null
"$FOLIOSTAT" archive -i e.data -o e.archive >earch.out 2>&1
! grep -q "$(printf '[\033\007]')" earch.out && grep -q 'w\\x1b\]0;x\\x07' earch.out
ok $? "archive: a recorded path's ESC and BEL printed escaped ($(grep -c packed earch.out) packed)"
rm -f "$T/$esc" e.data e.archive
cp /bin/true "$fw"
HOME=$T/home "$FOLIOSTAT" report --json -i f.data >g.json
n=$(jq '[.sites[] | select(.sym | test("not the recorded file"))] | length' g.json)
[ "$n" -ge 1 ] && ! jq -e '.sites[] | select(.sym == "write_pass")' g.json >/dev/null
ok $? "the binary replaced: its sites are not named with the new file's symbols ($n marked)"
HOME=$T/home "$FOLIOSTAT" report --json --symfs "$T/sym" -i f.data >h.json
jq -e '.sites[] | select(.sym == "write_pass")' h.json >/dev/null
ok $? "--symfs with the recorded binary: write_pass again"
# The archive in place of the files: the recorded binary from it, in a private directory
# that is gone afterwards.
mkdir tmpd
TMPDIR=$T/tmpd HOME=$T/home "$FOLIOSTAT" report --json --archive f.archive -i f.data >a.json
jq -e '.sites[] | select(.sym == "write_pass")' a.json >/dev/null && [ -z "$(ls -A tmpd)" ]
ok $? "--archive: write_pass again, from the archive, nothing left in TMPDIR ($(ls -A tmpd | tr '\n' ' '))"
# However the report ends (a ^C, a closed terminal, SIGTERM, SIGKILL), at whatever point
# (unpacking, reading), the private directory goes: its janitor removes it when the
# report's end of a pipe closes. A signal 1 s in left 325-817 MB before.
left=""
for sig in INT HUP TERM KILL; do
	for at in 0.02 0.1 0.3; do
		rm -rf tmpk && mkdir tmpk
		TMPDIR=$T/tmpk HOME=$T/home "$FOLIOSTAT" report --archive f.archive -i f.data >/dev/null 2>&1 &
		rp=$!
		sleep "$at"
		kill -"$sig" "$rp" 2>/dev/null
		wait "$rp" 2>/dev/null
		for _ in $(seq 100); do [ -z "$(ls -A tmpk)" ] && break; sleep 0.05; done
		[ -z "$(ls -A tmpk)" ] || left="$left $sig@${at}s:$(du -sh tmpk | cut -f1)"
	done
done
is "$left" "" "--archive killed by SIGINT, SIGHUP, SIGTERM or SIGKILL at 0.02, 0.1 or 0.3 s: nothing left in TMPDIR"
"$FOLIOSTAT" report --archive f.data -i f.data >/dev/null 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "not a foliostat archive" err; ok $? "--archive of a recording: exit 1, saying so ($(cat err))"
# Found by its build-id in perf's cache, as perf report would.
bid=$(readelf -n "sym$fw" | awk '/Build ID:/ {print $3}')
mkdir -p "home/.debug/.build-id/${bid:0:2}/${bid:2}"
cp "sym$fw" "home/.debug/.build-id/${bid:0:2}/${bid:2}/elf"
HOME=$T/home "$FOLIOSTAT" report --json -i f.data >k.json
jq -e '.sites[] | select(.sym == "write_pass")' k.json >/dev/null
ok $? "the recorded binary in perf's build-id cache (~/.debug/.build-id/${bid:0:2}/...): write_pass again"

# Attached, the mappings that were there before come from /proc/PID/maps: with their file
# offsets, or a library's code is looked up at the wrong place (redis's _sdsnewlen was
# named redis-check-rdb+0x19815, libc's memcpy xdr_bytes), and anonymous ones as //anon.
cat >libfolt.c <<'EOF'
#include <stdlib.h>
char *folt_touch(unsigned long n)
{
	char *p = malloc(n);

	for (unsigned long i = 0; p && i < n; i += 4096)
		p[i] = 1;
	return p;
}
EOF
write_ticker
cat >attached.c <<'EOF'
#include "ticker.h"
char *folt_touch(unsigned long n);
int main(void)
{
	tick_until_usr1();
	folt_touch(4 << 20);
	pause();
	return 0;
}
EOF
cc -O1 -shared -fPIC -o libfolt.so libfolt.c
cc -O1 -o attached attached.c -L. -lfolt -Wl,-rpath,"$T"
./attached &
victim=$!
"$FOLIOSTAT" record -q -p "$victim" -o att.data 2>att.err &
rec=$!
# Once the recording has the victim's faults (an emulated guest takes seconds to attach).
wait_recorded att.data 2
kill -USR1 "$victim"
wait_recorded att.data 1000
kill -INT "$rec"
wait "$rec"
kill "$victim"; wait "$victim" 2>/dev/null
top=$("$FOLIOSTAT" report --json --sort sym,dso -i att.data | jq -r '.sites | max_by(.faults) | "\(.sym) \(.faults)"')
[ "${top%% *}" = folt_touch ]
ok $? "attached: a library's code named by its symbol, with the file offset from /proc/PID/maps ($top)"
"$FOLIOSTAT" script -S -i att.data >att.txt
! grep -q "PERF_RECORD_MMAP2 .*\]: *$" att.txt && grep -q "PERF_RECORD_MMAP2 .*: //anon$" att.txt
ok $? "... and anonymous mappings there before the attach named //anon, none without a name"
# The library was mapped before the attach: its build-id is recorded all the same, so
# archive packs it and a report of the archive names its code after it is rebuilt
# (before: no build-id, nothing packed, the rebuilt file's offsets only).
"$FOLIOSTAT" archive -i att.data -o att.archive >att.arch 2>&1
cc -O1 -shared -fPIC -Wl,-soname,x -o libfolt.so.new libfolt.c && mv libfolt.so.new libfolt.so
top=$("$FOLIOSTAT" report --json --sort sym,dso --archive att.archive -i att.data | jq -r '.sites | max_by(.faults) | .sym')
grep -q "^  packed  *[0-9a-f]*  $T/libfolt.so\$" att.arch && [ "$top" = folt_touch ]
ok $? "... its build-id recorded at the attach: archived, and named from the archive once rebuilt ($top)"

# File faults on pages already in the page cache: their folio's order from the page cache
# at the end of the recording. The truth from perf: the folios the file was written into
# (filemap:mm_filemap_add_to_page_cache: index, order), and the addresses of the writer's
# faults in the same run (exceptions:page_fault_user), each the order of its folio. Before,
# all of them were order unknown ("file_cached").
cat >"$T/wr.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
/* A load from each page of a file through a shared mapping, then a store into each (a
 * write fault on a present page: dirty tracking); prints where the mapping was. */
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDWR);
	struct stat st;
	char *p, sum = 0;

	if (argc < 2 || fd < 0 || fstat(fd, &st))
		return 1;
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	printf("%lx %lx\n", (unsigned long)p, (unsigned long)st.st_size);
	for (off_t o = 0; o < st.st_size; o += 4096)
		sum += ((volatile char *)p)[o];
	for (off_t o = 0; o < st.st_size; o += 4096)
		((volatile char *)p)[o] = 1;
	return sum;
}
EOF
cc -O1 -o "$T/wr" "$T/wr.c" || { echo "Bail out! cc cannot build a test program"; exit 1; }
pcf=/var/tmp/foliostat-pc.$$
rm -f "$pcf"
perf record -q -e filemap:mm_filemap_add_to_page_cache -o "$T/add.perf" -- \
	dd if=/dev/zero of="$pcf" bs=1M count=8 status=none 2>/dev/null
ino=$(printf %x "$(stat -c %i "$pcf")")
# index (in pages) and order of each folio the file went into
perf script -i "$T/add.perf" 2>/dev/null | awk -v ino="$ino" '
	{ for (i = 1; i < NF; i++) if ($i == "ino" && $(i + 1) == ino) hit = 1 }
	hit { for (i = 1; i <= NF; i++) { if ($i ~ /^ofs=/) o = substr($i, 5) / 4096; if ($i ~ /^order=/) k = substr($i, 7) }
	      print o, k; hit = 0 }' >"$T/folios"
if [ ! -s "$T/folios" ]; then
	skip 4 "perf saw no folio added to the page cache for $pcf ($(findmnt -no FSTYPE -T /var/tmp): its page cache is not filemap's)"
else
	perf record -q -e exceptions:page_fault_user -o "$T/pf.perf" -- \
		"$FOLIOSTAT" record -q -o pc.data -- "$T/wr" "$pcf" >"$T/where" 2>/dev/null
	ok $? "record of stores into a cached file through a shared mapping"
	read -r base size <"$T/where"
	# perf's faults of the writer in the file's mapping, by the order of the folio at
	# their page: "order:faults" lines.
	want=$(perf script -i "$T/pf.perf" -F comm,trace 2>/dev/null | perl -e '
		my ($b, $n, $f) = (hex $ARGV[0], hex $ARGV[1], $ARGV[2]); my (%ord, %c);
		open(my $h, "<", $f) or die;
		while (<$h>) { my ($i, $k) = split; $ord{$i + $_} = $k for 0 .. 2 ** $k - 1 }
		while (<STDIN>) {
			next unless /^\s*wr\s.*address=0x([0-9a-f]+)/;
			my $a = hex $1;
			$c{$ord{int(($a - $b) / 4096)} // "?"}++ if $a >= $b && $a < $b + $n;
		}
		print join(" ", map { "$_:$c{$_}" } sort { $a <=> $b } keys %c), "\n"' "$base" "$size" "$T/folios")
	got=$(jr pc.data "[.sites[] | select(.map == \"$pcf (shared)\")] | group_by(.order) | map(\"\\(.[0].order):\\(map(.faults) | add)\") | join(\" \")")
	is "$got" "$want" "file faults on cached pages: by folio order as perf's faults and folios say ($want)"
	is "$(jr pc.data "[.sites[] | select(.map == \"$pcf (shared)\") | select(.class != \"file\")] | length")" 0 \
		"... every one of class file (a store to a present page of a shared file: not a reuse)"
	n=$(jr pc.data '.totals.file_order_from_page_cache.at_end')
	[ "${n:-0}" -ge 1 ]; ok $? "... their order read from the page cache at the end ($n faults)"
fi
rm -f "$pcf"
done_testing
