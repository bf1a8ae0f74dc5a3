# SPDX-License-Identifier: GPL-2.0-only
# The live tests' helpers, beside tests/lib.sh's TAP (which this sources): the machine's
# side (root, THP policies, the kernel's behaviour) and a failed test's files kept.
# Source it; FOLIOSTAT names the binary under test.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
FOLIOSTAT=$(cd "$(dirname "$FOLIOSTAT")" && pwd)/$(basename "$FOLIOSTAT")
WORKLOAD_BIN=${WORKLOAD_BIN:-$FOLIOSTAT}
WORKLOAD_BIN=$(cd "$(dirname "$WORKLOAD_BIN")" && pwd)/$(basename "$WORKLOAD_BIN")
# The JSON schemas the golden tests keep (compare-schema.jq, figure-keys.jq): the live
# outputs hold figures the golden recordings lack (calls, swap-out).
GOLDEN=$(cd "$(dirname "$0")/../golden" && pwd)
T=$(mktemp -d /tmp/foliostat-live.XXXXXX)
# A failed test's files (its recordings, reports, logs) outlive it: a rare failure in CI
# (which shows only the end of its output) can then be read afterwards, on the machine it
# ran on. The newest ten are kept.
KEEP_FAILED=${KEEP_FAILED:-/var/tmp/foliostat-failed}
_leave() {
	local d
	if [ "${_fail:-0}" = 1 ] && mkdir -p "$KEEP_FAILED" 2>/dev/null; then
		d=$KEEP_FAILED/$(basename "$0" .t).$(date +%Y%m%d-%H%M%S).$$
		mv "$T" "$d" && echo "# the failed test's files are kept in $d" >&2
		ls -dt "$KEEP_FAILED"/*/ 2>/dev/null | tail -n +11 | xargs -r rm -rf
	fi
	rm -rf "$T"
}
trap _leave EXIT
# The test's processes, however deep: the TERM trap's.
_descendants() {
	ps -e -o pid=,ppid= | awk -v root=$$ '{ up[$1] = $2 }
		END { for (p in up) { q = p; while (q in up && q != root) q = up[q]; if (q == root && p != root) print p } }'
}
# The Makefile's TEST_TIMEOUT ends a hung test with SIGTERM: say where it hung (the last
# test passed, and what each of its processes waits in: on stderr, which prove shows at
# once, where its TAP is held until the file ends), kill them, whatever their process
# group (one still holding the TAP pipe holds up prove and every test after it: a whole
# guest's run was lost so), and leave through the EXIT trap, which puts the THP policies
# back.
_on_term() {
	local p
	p=$(_descendants | paste -sd, -)
	echo "# ended by SIGTERM after test $_n (past TEST_TIMEOUT?); its processes then:" >&2
	[ -z "$p" ] || ps -o pid,ppid,pgid,stat,wchan:28,etime,args -p "$p" 2>&1 | sed 's/^/#   /' >&2
	[ -z "$p" ] || kill -KILL ${p//,/ } 2>/dev/null
	exit 143
}
trap _on_term TERM
need_commands perf jq pkill pgrep perl strace setpriv timeout md5sum
need_root() { [ "$(id -u)" -eq 0 ] || skip_all "needs root for tracepoints"; }
# A copy of foliostat under another name, so that the workload's comm tells its events
# from the recorder's.
workload_bin() {
	cp "$WORKLOAD_BIN" "$T/$1"
	echo "$T/$1"
}

# Set a THP policy for the test and restore the old one on exit.
THP=/sys/kernel/mm/transparent_hugepage
_restore=()
set_policy() { # FILE VALUE
	local old
	old=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$1")
	_restore+=("$old:$1")
	echo "$2" >"$1"
}
# PMD THP only where asked for (madvise), and of the mTHP sizes only 64K, always: the
# geometry the tests count on. Put back on exit.
only_64k_mthp() {
	local s pmd_kb
	set_policy "$THP/enabled" madvise
	pmd_kb=$(($(cat "$THP/hpage_pmd_size") / 1024))
	for s in "$THP"/hugepages-*kB; do
		[ "$s" = "$THP/hugepages-${pmd_kb}kB" ] && continue # PMD THP: "inherit" from $THP/enabled
		[ -e "$s/enabled" ] && set_policy "$s/enabled" never
	done
	set_policy "$THP/hugepages-64kB/enabled" always
}
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; } # within N LOW HIGH
restore_policies() {
	local i
	for ((i = ${#_restore[@]} - 1; i >= 0; i--)); do
		echo "${_restore[$i]%%:*}" >"${_restore[$i]#*:}"
	done
}
trap 'restore_policies; _leave' EXIT
# Whether this kernel allocates a page for an anonymous read fault ("yes") or maps the
# shared zero page ("no"): kernels differ (one build seen mapping no zero page at all:
# 8,245 allocations for 8,192 reads). From perf's count of 4,096 read faults of a 4K
# region; the program's own start-up allocates a few hundred.
read_faults_allocate() {
	local a
	cat >"$T/rf.c" <<'EOF'
#include <sys/mman.h>
int main(void)
{
	volatile char *p = mmap(0, 4096 << 12, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char s = 0;

	madvise((void *)p, 4096 << 12, MADV_NOHUGEPAGE);
	for (long i = 0; i < 4096L << 12; i += 4096)
		s += p[i];
	return s;
}
EOF
	cc -O1 -o "$T/rf" "$T/rf.c" || { echo "Bail out! cc cannot build a test program"; exit 1; }
	a=$(perf stat -x, -e kmem:mm_page_alloc "$T/rf" 2>&1 >/dev/null | awk -F, '/mm_page_alloc/ { print $1 }')
	[ "${a:-0}" -ge 2048 ] && echo yes || echo no
}
# Whether this kernel reuses an exclusive large folio on a write fault after fork ("yes":
# wp_can_reuse_anon_folio() takes large folios from 6.13) or copies the page written into
# a new 4K page ("no"); "none" when this kernel makes no 64K folio. The evidence is
# pagemap: a page of a 64K folio (a compound tail in kpageflags) keeps its PFN across the
# write, or does not; in any of 8 folios, as a reference held a moment elsewhere (by
# khugepaged's scan, say) makes one folio a copy. 64K folios are enabled for the probe.
large_folio_reuse() {
	cat >"$T/lfr.c" <<'EOF'
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t entry(const char *file, uint64_t index)
{
	uint64_t e = 0;
	int fd = open(file, O_RDONLY);

	if (fd < 0 || pread(fd, &e, sizeof(e), index * sizeof(e)) != sizeof(e))
		e = 0;
	close(fd);
	return e;
}

static uint64_t pfn(volatile char *p)
{
	return entry("/proc/self/pagemap", (uintptr_t)p / 4096) & ((1ULL << 55) - 1);
}

int main(void)
{
	/* Too small a mapping for a PMD THP: a 2M folio would be reused whole by its PMD. */
	char *m = mmap(0, (1 << 20) + (1 << 16), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *p = (char *)(((uintptr_t)m + (1 << 16) - 1) & ~(uintptr_t)((1 << 16) - 1));
	uint64_t before[8];
	int kept = 0;

	for (int i = 0; i < 8; i++) {
		p[i << 16] = 1;
		before[i] = pfn(p + (i << 16) + 4096);
		if (!before[i] || !(entry("/proc/kpageflags", before[i]) & (1ULL << 16))) {
			puts("none");
			return 0;
		}
	}
	if (fork() == 0)
		_exit(0);
	wait(NULL);
	for (int i = 0; i < 8; i++) {
		p[(i << 16) + 4096] = 2;
		kept += pfn(p + (i << 16) + 4096) == before[i];
	}
	puts(kept ? "yes" : "no");
	return 0;
}
EOF
	cc -O1 -o "$T/lfr" "$T/lfr.c" || { echo "Bail out! cc cannot build a test program"; exit 1; }
	[ -e "$THP/hugepages-64kB/enabled" ] || { echo none; return; }
	(
		_restore=() # the caller's policies stay as they are
		set_policy "$THP/hugepages-64kB/enabled" always
		"$T/lfr"
		restore_policies
	)
}
# Seconds a whole record of true takes here, rounded up: how long a test that attaches
# gives the recorder before its target moves on (software emulation takes seconds).
record_startup() {
	local t0
	t0=$(date +%s%N)
	"$FOLIOSTAT" record -q -o "$T/startup.data" -- true 2>/dev/null
	echo $((($(date +%s%N) - t0) / 1000000000 + 1))
	rm -f "$T/startup.data"
}
# Why a swap file in /var/tmp cannot be used here ("" when swapon takes one): tmpfs and
# overlays of it do not swap (make check-kernels' guests have no disk: swap to a virtio
# disk hung 6.12 under software emulation).
swapfile_unusable() {
	local f=/var/tmp/foliostat-test.$$.probe err
	if ! dd if=/dev/zero of="$f" bs=1M count=1 2>/dev/null || ! chmod 600 "$f" ||
		! mkswap "$f" >/dev/null 2>&1; then
		rm -f "$f"
		echo "no swap file can be made in /var/tmp"
		return
	fi
	if err=$(swapon "$f" 2>&1); then
		swapoff "$f"
		rm -f "$f"
		return
	fi
	rm -f "$f"
	echo "swapon of a file in /var/tmp ($(stat -f -c %T /var/tmp)) fails: ${err##*: }"
}
# A process with 2^SHIFT bytes reserved and two pages used, at the start and the middle:
# started in the background from NAME.c, its pid in $reservation once both are in.
start_reservation() { # NAME SHIFT
	cat >"$T/$1.c" <<EOF
#include <sys/mman.h>
#include <unistd.h>
int main(void)
{
	char *p = mmap(0, 1ull << $2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	p[0] = 1;
	p[1ull << ($2 - 1)] = 2;
	pause();
	return 0;
}
EOF
	cc -O1 -o "$T/$1" "$T/$1.c"
	"$T/$1" &
	reservation=$!
	for _ in $(seq 100); do
		[ "$(awk '/^RssAnon/ { print $2 }' /proc/$reservation/status 2>/dev/null)" -ge 8 ] 2>/dev/null && break
		sleep 0.05
	done
}
# ticker.h in $T: tick_until_usr1(), for a program that a test attaches to. It faults every
# 20 ms until SIGUSR1, so that the test can see the recording take its faults
# (wait_recorded) before it signals: not after a guessed time, since an emulated guest
# takes seconds to attach.
write_ticker() {
	cat >"$T/ticker.h" <<'EOF'
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
static volatile sig_atomic_t ticker_go;
static void ticker_usr1(int sig) { (void)sig; ticker_go = 1; }
static void tick_until_usr1(void)
{
	signal(SIGUSR1, ticker_usr1);
	while (!ticker_go) {
		char *q = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		q[0] = 1;
		munmap(q, 4096);
		usleep(20000);
	}
}
EOF
}
# wait's status for PID, a child; if it still runs after SECONDS, what it waits in is said
# (on stderr, at once) and it is killed: 124. For a test where a hang is the failure to
# find, so that it is found there, not by TEST_TIMEOUT half an hour later.
wait_for() { # PID SECONDS
	local i
	for ((i = 0; i < $2 * 10; i++)); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$1" 2>/dev/null; then
		echo "# pid $1 still runs after $2 s: $(ps -o stat=,wchan:28=,args= -p "$1"); killed" >&2
		kill -KILL "$1"
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}
# Wait (up to a minute) until the recording DATA, still being written, holds N faults.
wait_recorded() { # DATA N
	for _ in $(seq 300); do
		[ "$("$FOLIOSTAT" script -i "$1" 2>/dev/null | grep -c page_fault_user)" -ge "$2" ] && return
		sleep 0.2
	done
}
# jq on the JSON report of $1 (a recording)
jr() { "$FOLIOSTAT" report --json -i "$1" | jq -r "$2"; }
# The test's background processes: ended (TERM) and reaped.
end_pids() { # PID...
	local p
	for p in "$@"; do kill "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
}
# A TCP port of 127.0.0.1 nobody listens on now.
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Whether URL answers 2xx within SECONDS.
wait_http() { # URL SECONDS
	for _ in $(seq $(($2 * 10))); do curl -sf "$1" >/dev/null && return 0; sleep 0.1; done
	return 1
}
# The cells ("ORDER CLASS FAULTS" lines) of two tools that watched the same faults, where
# they differ: "CELL: stat N, WHO M", one a line; none when equal but for the edge (at most
# 10 faults a cell, and the cells of 1000 or more exactly). Reuse faults of 4K folios and
# of unknown order are one cell: a tool knows a 4K folio's order when it saw the folio
# made, and two tools started at different moments saw different ones made (the shell that
# starts a workload reuses pages its parent wrote before either started). The callers hold
# the unknown apart where they can say how many there should be.
cells_off() { # STAT-CELLS OTHER-CELLS WHO
	local merge='{ k = $1 "/" $2; if ($2 == "wp_reuse" && $1 <= 0) k = "0|-1/wp_reuse"; n[k] += $3 }
		END { for (k in n) print k, n[k] }'
	join -a1 -a2 -e 0 -o 0,1.2,2.2 <(awk "$merge" "$1" | sort) <(awk "$merge" "$2" | sort) |
		awk -v who="$3" '{ d = $2 - $3; if (d < 0) d = -d
			if (d > 10 || (($2 >= 1000 || $3 >= 1000) && d)) print $1 ": stat " $2 ", " who " " $3 }'
}
# The cells ("ORDER CLASS FAULTS" lines, sorted) of serve's foliostat_faults_total for
# cgroup NAME in a scrape, and of stat --json's report.
serve_cells() { # METRICS-FILE NAME
	awk -v cg="cgroup=\"/$2\"" 'index($0, cg) && /^foliostat_faults_total/ {
		match($0, /order="[-0-9]+"/); o = substr($0, RSTART + 7, RLENGTH - 8)
		match($0, /class="[a-z_]+"/); c = substr($0, RSTART + 7, RLENGTH - 8)
		print o, c, $NF }' "$1" | sort
}
stat_cells() { # STAT-JSON
	jq -r '.orders[] | .order as $o | .faults | to_entries[] | "\($o) \(.key) \(.value)"' "$1" | sort
}
# The live views of cgroup NAME, started and ready: serve --by-cgroup on $sport, stat -a
# -G into $T/stat.json ($stat_pid), and perf stat -G's own count of the fault entry
# tracepoints (and of the EVENTs given) into $T/perf.csv ($perf_pid): the truth both are
# held to. All three in pids (the caller's cleanup ends them).
watch_cgroup() { # NAME [EVENT...]
	local name=$1 e ev=()
	shift
	for e in exceptions:page_fault_user exceptions:page_fault_kernel "$@"; do ev+=(-e "$e" -G "$name"); done
	sport=$(free_port)
	"$FOLIOSTAT" serve --listen "127.0.0.1:$sport" --by-cgroup 2>"$T/serve.err" &
	pids+=($!)
	"$FOLIOSTAT" stat --json -a -G "/$name" >"$T/stat.json" 2>"$T/stat.err" &
	stat_pid=$!
	pids+=($stat_pid)
	wait_http "http://127.0.0.1:$sport/healthz" $((30 * slow))
	for _ in $(seq $((100 * slow))); do
		ls -l /proc/$stat_pid/fd 2>/dev/null | grep -q perf_event && break
		sleep 0.1
	done
	perf stat -a -x, -o "$T/perf.csv" "${ev[@]}" 2>"$T/perf.err" &
	perf_pid=$!
	pids+=($perf_pid)
	sleep $slow
}
# A cgroup of the test's own, NAME under the cgroup2 mount (CG is set to it), that a task
# can move into; else the whole test is skipped with why. The caller removes it.
own_cgroup() { # NAME
	CG=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
	[ -n "$CG" ] || skip_all "no cgroup2 mount: $(grep cgroup /proc/mounts | head -2 | tr '\n' ' ')"
	mkdir "$CG/$1" || skip_all "cannot make a cgroup under $CG"
	# A guest's bare cgroup2 may refuse it.
	if ! sh -c "echo \$\$ >$CG/$1/cgroup.procs" 2>"$T/cgerr"; then
		rmdir "$CG/$1"
		skip_all "no task can move into a new cgroup here: $(head -c 120 "$T/cgerr")"
	fi
}
# Samples name the cgroup at CG2/NAME once its perf_event state exists: a bare cgroup2
# (nothing wrote a cgroup.subtree_control since boot, as in make check-kernels' guests)
# gives new cgroups none. From 6.10 record -G says so and what to do: this does what the
# message says, as a user would, and prints the message ("" when there was none). Before
# 6.10 the kernel does not tell: with the root's subtree_control empty, it does the same
# (what systemd does at boot) and prints why.
perf_cgroups_ready() { # CG2 NAME
	local c
	if ! "$FOLIOSTAT" record -q -a -G "$2" -o "$T/pcr.data" -- true 2>"$T/pcr.err"; then
		cat "$T/pcr.err"
		grep -q "have perf_event's state" "$T/pcr.err" || return 1
		eval "$(sed -n 's/.*enable and disable a controller once (\(.*\)), then start again.*/\1/p' "$T/pcr.err")"
	elif ! grep -q '^nr_subsys_perf_event ' "$1/$2/cgroup.stat" 2>/dev/null &&
		[ -z "$(cat "$1/cgroup.subtree_control")" ]; then
		c=$(awk '{print $1}' "$1/cgroup.controllers")
		[ -n "$c" ] || return 0
		echo "no perf_event counts in cgroup.stat before 6.10, and $1/cgroup.subtree_control empty: +$c, -$c there"
		echo "+$c" >"$1/cgroup.subtree_control" && echo "-$c" >"$1/cgroup.subtree_control"
	fi
}
