#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# foliostat against perf on the same workload and events: recording overhead, start-up,
# file size, lost events, report throughput and memory. Results to $1 (and stdout).
# Timing lives here, never in make check. Usage: FOLIOSTAT=./foliostat scripts/bench.sh OUT
# (BENCH_ONLY=writepass: only the write-pass table; BENCH_ONLY=kernel: only its in-kernel
# cost per reuse fault, serve's against bpftrace's; BENCH_ONLY=serve: only serve's CPU per
# reuse and per allocation fault; BENCH_ONLY=classes: only serve's cost per fault class
# against the floor, bpftrace and perf stat (scripts/bench_classes.py); BENCH_ONLY=report:
# only the report's figures, without the recording overheads; RUNS=N runs of each, 5 by
# default)
set -euo pipefail
out=${1:-bench-results.txt}
F=$(cd "$(dirname "${FOLIOSTAT:-./foliostat}")" && pwd)/$(basename "${FOLIOSTAT:-./foliostat}")
RUNS=${RUNS:-5}
SIZE=${SIZE:-256M}
command -v perf >/dev/null || { echo "bench: perf is needed (apt-get install linux-perf)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root"; exit 1; }
T=$(mktemp -d /tmp/foliostat-bench.XXXXXX)
THP=/sys/kernel/mm/transparent_hugepage
old64=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/hugepages-64kB/enabled" 2>/dev/null || true)
oldstats=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
# The 64K policy and the BPF run-time statistics are changed below: put them back here,
# whatever happens.
trap '[ -z "$old64" ] || echo "$old64" >"$THP/hugepages-64kB/enabled"; sysctl -qw kernel.bpf_stats_enabled="$oldstats"; rm -rf "$T"' EXIT
cp "$F" "$T/fw"
EVENTS=(exceptions:page_fault_user exceptions:page_fault_kernel kmem:mm_page_alloc kmem:rss_stat minor-faults major-faults)
FEV=() PEV=()
for e in "${EVENTS[@]}"; do FEV+=(-e "$e"); PEV+=(-e "$e"); done
WL=("$T/fw" workload fork-reuse --size "$SIZE")

now() { date +%s%N; }
# foliostat hands the kernel's tracepoint tear-down to a detached process (see
# lib/record/record.c); let it finish so that it does not slow the next run, of either tool.
settle() { while pgrep -x foliostat-tdown >/dev/null; do sleep 0.05; done; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ms() { awk -v n="$1" 'BEGIN {printf "%.1f", n / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b ? a / b : 0}'; }
have_bpftrace() {
	command -v bpftrace >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bpftrace >/dev/null 2>&1 || return 1
	bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1
}
# serve's cost per fault class, beside the floor (empty programs on its hooks), bpftrace's
# histogram and perf stat (issue 48): its own script, appended to the results.
classes() {
	have_bpftrace || true
	RUNS=$RUNS /usr/bin/python3 "$(dirname "$0")/bench_classes.py" "$F" "$out"
}
if [ "${BENCH_ONLY:-}" = classes ]; then
	classes
	exit 0
fi

{
echo "# foliostat bench, $(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs"
echo "# workloads: fork-reuse of 64K mTHP (128M, 256M, 256M in 4 threads) and of PTE-mapped 2M THP; events: ${EVENTS[*]}"
echo "# runs: $RUNS, alternated; figures are medians"

# The write pass of a 64K-mTHP fork-reuse (issue 16's yardstick): the workload's own
# timing of the pass, bare and under each way of measuring its faults, runs alternated.
# bpftrace keeps only an in-kernel latency histogram (page_fault_user to the minor-faults
# software event, per thread): the cheapest way to have the latency at all.
BPF_PROG='tracepoint:exceptions:page_fault_user /comm == "fw"/ { @s[tid] = nsecs; }
software:minor-faults:1 /comm == "fw" && @s[tid]/ { @lat = hist(nsecs - @s[tid]); delete(@s[tid]); }
END { clear(@s); }'
# serve -a left running around one workload (issue 28, point 5): started before it,
# stopped once its counts settle (every task's faults: the scrapes' own never stop). Its CPU time over the run and the faults it
# counted, to $T/serve.NAME (clock ticks, faults). NAME: bpf (kernel reuse on, the
# default), streamed (bpf, --no-kernel-decisions: every fault to the model), samples.
serve_around() { # NAME WORKLOAD...
	local name=$1 port pid t0 t1 n=0 m=-1000000 i opts=(--fault-path "$1")
	shift
	[ "$name" = streamed ] && opts=(--fault-path bpf --no-kernel-decisions)
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$F" serve "${opts[@]}" --listen "127.0.0.1:$port" 2>"$T/serve.err" &
	pid=$!
	for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
	scrape() { curl -sf "http://127.0.0.1:$port/metrics" | awk '/^foliostat_faults_total/ {n += $2} END {printf "%d", n}'; }
	t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	n0=$(scrape)
	"$@"
	# Settled when a scrape finds fewer than 2000 new faults (curl's own, the machine's).
	for i in $(seq 50); do
		[ $((n - m)) -lt 2000 ] && break
		m=$n
		sleep 0.3
		n=$(scrape)
	done
	t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kill -INT "$pid"
	wait "$pid"
	echo "$((t1 - t0)) $((n - n0))" >>"$T/serve.$name"
}
writepass() {
	local size=256M tools=(bare foliostat_record foliostat_record_samples foliostat_stat perf_record serve_bpf serve_streamed serve_samples) w
	local wl=(/usr/bin/env FOLIOSTAT_PHASES="$T/ph" "$T/fw" workload fork-reuse --size "$size" --policy mthp)
	local note=""

	if have_bpftrace; then
		tools+=(bpftrace)
	else
		note="bpftrace: not run (not installable, or BPF unavailable here)"
	fi
	for w in "${tools[@]}"; do : >"$T/wp.$w"; done
	for i in $(seq "$RUNS"); do
		for w in "${tools[@]}"; do
			rm -f "$T/ph"
			case $w in
			bare) "${wl[@]}" ;;
			foliostat_record) "$F" record -q -o "$T/wp.data" -- "${wl[@]}" ;;
			foliostat_record_samples) "$F" record -q --fault-path samples -o "$T/wps.data" -- "${wl[@]}" ;;
			foliostat_stat) "$F" stat -q -- "${wl[@]}" ;;
			perf_record) perf record -q -c 1 -d "${PEV[@]}" -o "$T/wpp.data" -- "${wl[@]}" ;;
			bpftrace) bpftrace -e "$BPF_PROG" -c "${wl[*]}" ;;
			serve_bpf) serve_around bpf "${wl[@]}" ;;
			serve_streamed) serve_around streamed "${wl[@]}" ;;
			serve_samples) serve_around samples "${wl[@]}" ;;
			esac >/dev/null 2>"$T/wp.err" || { echo "bench: $w failed: $(tail -n 3 "$T/wp.err")" >&2; exit 1; }
			settle
			jq -s '[.[] | select(.phase == "reuse") | .end_ns - .start_ns][0]' "$T/ph" >>"$T/wp.$w"
		done
	done
	faults=$("$F" report --json -i "$T/wp.data" | jq '[.orders[] | .faults.wp_reuse // 0] | add')
	bare=$(median <"$T/wp.bare")
	bpf=$( [ -s "$T/wp.bpftrace" ] && median <"$T/wp.bpftrace" || echo 0)
	echo "# write pass of fork-reuse $size, 64K mTHP: $faults reuse faults; medians of $RUNS alternated runs"
	echo "# foliostat_record: $(jq -r '"fault path " + .recording.fault_path + (if .recording.fault_path_why then " (" + .recording.fault_path_why + ")" else "" end)' <("$F" report --json -i "$T/wp.data"))"
	printf '# %-26s %9s %8s %11s %16s\n' tool "pass ms" "x bare" "x bpftrace" "added/fault us"
	for w in bare bpftrace perf_record foliostat_record_samples foliostat_record foliostat_stat serve_samples serve_streamed serve_bpf; do
		[ -s "$T/wp.$w" ] || continue
		m=$(median <"$T/wp.$w")
		printf '# %-26s %9s %8s %11s %16s\n' "$w" "$(ms "$m")" "$(ratio "$m" "$bare")" \
			"$( [ "$bpf" != 0 ] && ratio "$m" "$bpf" || echo -)" \
			"$(awk -v a="$m" -v b="$bare" -v n="$faults" 'BEGIN {printf "%.2f", n ? (a - b) / n / 1e3 : 0}')"
		echo "writepass.ms.$w $(ms "$m")"
	done
	# Is a difference from bpftrace more than the runs' spread? Mann-Whitney on the runs
	# (scipy, which make deps installs for the statistics tests).
	for w in foliostat_record foliostat_record_samples foliostat_stat serve_samples serve_streamed serve_bpf; do
		[ -s "$T/wp.bpftrace" ] || break
		/usr/bin/python3 - "$T/wp.$w" "$T/wp.bpftrace" "$w" <<'PY'
import statistics, sys
from scipy.stats import mannwhitneyu
a = [float(x) for x in open(sys.argv[1]) if x.strip() != "null"]
b = [float(x) for x in open(sys.argv[2]) if x.strip() != "null"]
p = mannwhitneyu(a, b, alternative="two-sided").pvalue
d = statistics.median(a) / statistics.median(b) - 1
print(f"# {sys.argv[3]} against bpftrace: {100 * d:+.1f}% (Mann-Whitney p = {p:.2f}, "
      f"{len(a)} and {len(b)} runs: {'a difference' if p < 0.05 else 'no difference'} beyond the spread)")
PY
	done
	# serve's own CPU: seconds per million faults it counted (the whole machine's over the
	# run), and what that is of one CPU at 50,000 faults per second.
	hz=$(getconf CLK_TCK)
	for w in serve_samples serve_streamed serve_bpf; do
		[ -s "$T/serve.${w#serve_}" ] || continue
		awk -v hz="$hz" -v w="$w" '{ c = $1 / hz / $2 * 1e6; print c }' "$T/serve.${w#serve_}" | median >"$T/cpm"
		echo "writepass.serve_cpu_s_per_million_faults.${w#serve_} $(cat "$T/cpm")"
		echo "writepass.serve_cpu_share_at_50k_faults_per_s.${w#serve_} $(awk '{printf "%.1f%%", $1 * 0.05 * 100}' "$T/cpm")"
	done
	serve_marginal
	kernel_marginal
	[ -z "$note" ] || echo "# $note"
}

# serve's CPU per fault of a kind, without its fixed costs (its start, the workload's own
# start, its scrapes): the ticks serve takes over a larger run of a workload less those
# over a smaller one, per the faults between; streamed (every fault to the model) and with
# kernel decisions. Runs alternated, medians.
# Usage: marginal WHAT FAULTS "SMALL WORKLOAD ARGS" "LARGE WORKLOAD ARGS"
marginal() {
	local what=$1 n=$2 small=$3 large=$4 name size pid t0 t1 hz port wl
	hz=$(getconf CLK_TCK)
	for name in streamed bpf; do : >"$T/marg.$name.small"; : >"$T/marg.$name.large"; done
	for i in $(seq "$RUNS"); do
		for name in streamed bpf; do
			for size in small large; do
				port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
				if [ "$name" = streamed ]; then
					"$F" serve --no-kernel-decisions --listen "127.0.0.1:$port" 2>/dev/null &
				else
					"$F" serve --listen "127.0.0.1:$port" 2>/dev/null &
				fi
				pid=$!
				sleep 5 # its start: /proc read, the programs loaded
				t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
				if [ "$size" = small ]; then "$T/fw" workload $small >/dev/null; else "$T/fw" workload $large >/dev/null; fi
				sleep 2
				t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
				kill -INT "$pid"
				wait "$pid"
				echo $((t1 - t0)) >>"$T/marg.$name.$size"
			done
		done
	done
	for name in streamed bpf; do
		wl=$(awk -v a="$(median <"$T/marg.$name.large")" -v b="$(median <"$T/marg.$name.small")" -v hz="$hz" -v n="$n" \
			'BEGIN {printf "%.3f", (a - b) / hz / n * 1e6}')
		echo "writepass.serve_marginal_cpu_s_per_million_${what}_faults.$name $wl"
		echo "writepass.serve_marginal_cpu_share_at_50k_${what}_faults_per_s.$name $(awk -v c="$wl" 'BEGIN {printf "%.2f%%", c * 0.05 * 100}')"
	done
}

# Reuse faults: fork-loop of 9 write passes less 1, 8 passes' reuse faults (64K folios,
# 16 reuse faults each). Allocation faults: populate of 1G in 4K pages less 64M.
serve_marginal() {
	local per=$(("$(numfmt --from=iec 256M)" / 65536))

	marginal reuse $((8 * per * 16)) "fork-loop --loops 1 --size 256M --policy mthp" \
		"fork-loop --loops 9 --size 256M --policy mthp"
	marginal alloc $((("$(numfmt --from=iec 1G)" - "$(numfmt --from=iec 64M)") / 4096)) \
		"populate --size 64M --policy small" "populate --size 1G --policy small"
}

# The in-kernel cost of a reuse fault, which the workload's faulting task pays and no
# CPU time of serve shows: serve's BPF programs against bpftrace's histogram's, their run
# time as the kernel measures it (kernel.bpf_stats_enabled: the same two clock reads
# around every program of either, so both figures hold them). Over fork-loop of 9 write
# passes less 1, per 8 passes' reuse faults, as serve_marginal. The tool's programs are
# those loaded since it started; bpftrace's workload waits for $T/go so that the count
# starts after bpftrace has loaded them.
kernel_marginal() {
	local tool loops pid port ids t0 t1 per wl
	per=$(("$(numfmt --from=iec 256M)" / 65536))
	sysctl -qw kernel.bpf_stats_enabled=1
	progs() { bpftool prog show -j | jq -c '[.[].id]'; }
	ran() { bpftool prog show -j | jq --argjson ids "$1" '[.[] | select(.id as $i | $ids | index($i)) | .run_time_ns // 0] | add // 0'; }
	for tool in serve bpftrace; do for loops in 1 9; do : >"$T/km.$tool.$loops"; done; done
	for i in $(seq "$RUNS"); do
		for tool in serve bpftrace; do
			[ "$tool" = serve ] || have_bpftrace || continue
			for loops in 1 9; do
				wl=("$T/fw" workload fork-loop --loops "$loops" --size 256M --policy mthp)
				ids=$(progs)
				rm -f "$T/go" "$T/done"
				if [ "$tool" = serve ]; then
					port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
					"$F" serve --listen "127.0.0.1:$port" 2>/dev/null &
					pid=$!
					for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
				else
					printf '#!/bin/sh\nwhile [ ! -e %s/go ]; do sleep 0.1; done\n%s >/dev/null\ntouch %s/done\nsleep 1\n' \
						"$T" "${wl[*]}" "$T" >"$T/gate.sh"
					bpftrace -e "$BPF_PROG" -c "/bin/sh $T/gate.sh" >/dev/null 2>&1 &
					pid=$!
					for _ in $(seq 300); do [ "$(progs)" != "$ids" ] && break; sleep 0.1; done
					sleep 0.5
				fi
				ids=$(jq -nc --argjson a "$ids" --argjson b "$(progs)" '$b - $a')
				t0=$(ran "$ids")
				if [ "$tool" = serve ]; then
					"${wl[@]}" >/dev/null
				else
					touch "$T/go"
					for _ in $(seq 600); do [ -e "$T/done" ] && break; sleep 0.1; done
				fi
				t1=$(ran "$ids")
				kill -INT "$pid" 2>/dev/null
				wait "$pid" || true
				echo $((t1 - t0)) >>"$T/km.$tool.$loops"
			done
		done
	done
	sysctl -qw kernel.bpf_stats_enabled="$oldstats"
	# Each run's own difference (its 9 passes less its 1), then the medians, and whether
	# serve's and bpftrace's differ beyond the runs' spread.
	for tool in serve bpftrace; do
		[ -s "$T/km.$tool.9" ] || continue
		paste "$T/km.$tool.9" "$T/km.$tool.1" | awk -v n=$((8 * per * 16)) '{print ($1 - $2) / n}' >"$T/km.$tool"
		echo "writepass.kernel_marginal_ns_per_reuse_fault.$tool $(median <"$T/km.$tool" | awk '{printf "%.0f", $1}')"
	done
	[ -s "$T/km.bpftrace" ] || return 0
	/usr/bin/python3 - "$T/km.serve" "$T/km.bpftrace" <<'PY'
import statistics, sys
from scipy.stats import mannwhitneyu
a, b = ([float(x) for x in open(f)] for f in sys.argv[1:3])
p = mannwhitneyu(a, b, alternative="two-sided").pvalue
print(f"# serve's programs against bpftrace's, per reuse fault: {statistics.median(a) - statistics.median(b):+.0f} ns "
      f"(runs {min(a):.0f}-{max(a):.0f} against {min(b):.0f}-{max(b):.0f}; Mann-Whitney p = {p:.2f}: "
      f"{'a difference' if p < 0.05 else 'no difference'} beyond the spread)")
PY
}

# Workload wall time: bare, under foliostat, under perf record -c 1 -d, runs alternated.
overhead() { # NAME WORKLOAD...
	local name=$1 bare fol prf
	shift
	: >"$T/bare"; : >"$T/fol"; : >"$T/perf"; : >"$T/pbare"; : >"$T/pfol"; : >"$T/pperf"
	# The write pass as the workload times it: the cost of tracing each fault, without
	# the tools' start-up and tear-down.
	phase() { jq -s '[.[] | select(.phase == "reuse") | .end_ns - .start_ns][0]' "$T/ph"; }
	for i in $(seq "$RUNS"); do
		t0=$(now); FOLIOSTAT_PHASES=$T/ph "$@"; t1=$(now); echo $((t1 - t0)) >>"$T/bare"; phase >>"$T/pbare"
		t0=$(now); "$F" record -q "${FEV[@]}" -o "$T/f.data" -- env FOLIOSTAT_PHASES="$T/ph" "$@" 2>/dev/null; t1=$(now); echo $((t1 - t0)) >>"$T/fol"; phase >>"$T/pfol"
		settle
		t0=$(now); FOLIOSTAT_PHASES=$T/ph perf record -q -c 1 -d "${PEV[@]}" -o "$T/p.data" -- "$@" 2>/dev/null; t1=$(now); echo $((t1 - t0)) >>"$T/perf"; phase >>"$T/pperf"
	done
	echo "$name.reuse_phase_ms.bare $(ms "$(median <"$T/pbare")")"
	echo "$name.reuse_phase_ms.foliostat $(ms "$(median <"$T/pfol")")"
	echo "$name.reuse_phase_ms.perf $(ms "$(median <"$T/pperf")")"
	echo "$name.reuse_phase.ratio.foliostat_over_perf $(ratio "$(median <"$T/pfol")" "$(median <"$T/pperf")")"
	bare=$(median <"$T/bare") fol=$(median <"$T/fol") prf=$(median <"$T/perf")
	echo "$name.wall_ms.bare $(ms "$bare")"
	echo "$name.wall_ms.foliostat $(ms "$fol")"
	echo "$name.wall_ms.perf $(ms "$prf")"
	echo "$name.overhead_ms.foliostat $(ms $((fol - bare)))"
	echo "$name.overhead_ms.perf $(ms $((prf - bare)))"
	echo "$name.ratio.foliostat_over_perf $(ratio "$fol" "$prf")"
	echo "$name.lost.foliostat $("$F" report --json -i "$T/f.data" | jq '.recording.lost_events')"
}
if [ "${BENCH_ONLY:-}" = report ]; then
	# The report's figures only: one recording of the workload by each tool.
	"$F" record -q "${FEV[@]}" -o "$T/f.data" -- "${WL[@]}" 2>/dev/null
	settle
	perf record -q -c 1 -d "${PEV[@]}" -o "$T/p.data" -- "${WL[@]}" 2>/dev/null
elif [ -n "$old64" ]; then
	echo always >"$THP/hugepages-64kB/enabled"
	if [ "${BENCH_ONLY:-}" = kernel ]; then
		kernel_marginal
		exit 0
	fi
	if [ "${BENCH_ONLY:-}" = serve ]; then
		serve_marginal
		exit 0
	fi
	writepass
	[ "${BENCH_ONLY:-}" != writepass ] || exit 0
	overhead record_64k_128M "$T/fw" workload fork-reuse --size 128M --policy mthp
	overhead record_64k_256M "$T/fw" workload fork-reuse --size 256M --policy mthp
	overhead record_64k_256M_4threads "$T/fw" workload fork-reuse --size 256M --policy mthp --threads 4
	echo "$old64" >"$THP/hugepages-64kB/enabled"
fi
[ "${BENCH_ONLY:-}" = report ] || overhead record_ptethp_256M "${WL[@]}"

# Start-up + tear-down around a command that does nothing.
if [ "${BENCH_ONLY:-}" != report ]; then
: >"$T/sf"; : >"$T/sp"
for i in $(seq $((RUNS * 2))); do
	t0=$(now); "$F" record -q "${FEV[@]}" -o "$T/t.data" -- true 2>/dev/null; t1=$(now); echo $((t1 - t0)) >>"$T/sf"
	settle
	t0=$(now); perf record -q -c 1 -d "${PEV[@]}" -o "$T/tp.data" -- true 2>/dev/null; t1=$(now); echo $((t1 - t0)) >>"$T/sp"
done
sf=$(median <"$T/sf") sp=$(median <"$T/sp")
echo "startup_ms.foliostat $(ms "$sf")"
echo "startup_ms.perf $(ms "$sp")"
echo "startup.ratio.perf_over_foliostat $(ratio "$sp" "$sf")"
fi

# File size and events, from the last recordings of the workload.
fev=$("$F" report --json -i "$T/f.data" | jq '[.recording.events[].count] | add')
flost=$("$F" report --json -i "$T/f.data" | jq '.recording.lost_events')
pev=$(perf script -i "$T/p.data" -F event 2>/dev/null | wc -l)
fsz=$(stat -c %s "$T/f.data") psz=$(stat -c %s "$T/p.data")
echo "file.events.foliostat $fev"
echo "file.events.perf $pev"
echo "file.bytes.foliostat $fsz"
echo "file.bytes.perf $psz"
echo "file.bytes_per_event.foliostat $(ratio "$fsz" "$fev")"
echo "file.bytes_per_event.perf $(ratio "$psz" "$pev")"
echo "lost.foliostat $flost"

# The default recording (all default events) at default buffer sizes: lost events.
"$F" record -q -o "$T/d.data" -- "${WL[@]}" 2>/dev/null
settle
echo "default_events.samples $("$F" report --json -i "$T/d.data" | jq '[.recording.events[].count] | add')"
echo "default_events.lost $("$F" report --json -i "$T/d.data" | jq '.recording.lost_events')"
echo "default_events.file_bytes $(stat -c %s "$T/d.data")"

# Report throughput and peak memory: foliostat report --json vs perf script, same events.
# The report keeps what it works out once (inflated debug files, the kernel's symbols) in
# the user's cache: a run first fills it, the runs timed read it; the same again with
# FOLIOSTAT_NO_CACHE, as a first report after an upgrade or on a new recording pays.
"$F" report --json -i "$T/f.data" >/dev/null
: >"$T/rf"; : >"$T/rp"; : >"$T/rn"
for i in $(seq "$RUNS"); do
	t0=$(now); /usr/bin/time -f "%M" -o "$T/tf" "$F" report --json -i "$T/f.data" >/dev/null; t1=$(now)
	echo "$((t1 - t0)) $(cat "$T/tf")" >>"$T/rf"
	t0=$(now); /usr/bin/time -f "%M" -o "$T/tp" perf script -i "$T/p.data" >/dev/null 2>&1; t1=$(now)
	echo "$((t1 - t0)) $(cat "$T/tp")" >>"$T/rp"
	t0=$(now); FOLIOSTAT_NO_CACHE=1 "$F" report --json -i "$T/f.data" >/dev/null; t1=$(now)
	echo "$((t1 - t0))" >>"$T/rn"
done
echo "# report: '$F report --json -i f.data' against 'perf script -i p.data', fork-reuse $SIZE recorded by each with -e ${EVENTS[*]} (perf: -c 1 -d)"
echo "report.ms.foliostat_no_cache $(ms "$(median <"$T/rn")")"
rf=$(cut -d' ' -f1 <"$T/rf" | median) rp=$(cut -d' ' -f1 <"$T/rp" | median)
mf=$(cut -d' ' -f2 <"$T/rf" | median) mp=$(cut -d' ' -f2 <"$T/rp" | median)
echo "report.ms.foliostat $(ms "$rf")"
echo "report.ms.perf_script $(ms "$rp")"
echo "report.events_per_s.foliostat $(awk -v e="$fev" -v s="$rf" 'BEGIN {printf "%.0f", (s > 0 ? e * 1e9 / s : 0)}')"
echo "report.events_per_s.perf_script $(awk -v e="$pev" -v s="$rp" 'BEGIN {printf "%.0f", (s > 0 ? e * 1e9 / s : 0)}')"
echo "report.speedup.foliostat_over_perf_script $(ratio "$rp" "$rf")"
echo "report.peak_rss_kb.foliostat $mf"
echo "report.peak_rss_kb.perf_script $mp"

# The same at 4x the events (1G), where start-up costs weigh less.
"$F" record -q "${FEV[@]}" -o "$T/fb.data" -- "$T/fw" workload fork-reuse --size 1G 2>/dev/null
settle
perf record -q -c 1 -d "${PEV[@]}" -o "$T/pb.data" -- "$T/fw" workload fork-reuse --size 1G 2>/dev/null
: >"$T/rf"; : >"$T/rp"
for i in $(seq "$RUNS"); do
	t0=$(now); "$F" report --json -i "$T/fb.data" >/dev/null; t1=$(now); echo $((t1 - t0)) >>"$T/rf"
	t0=$(now); perf script -i "$T/pb.data" >/dev/null 2>&1; t1=$(now); echo $((t1 - t0)) >>"$T/rp"
done
rf=$(median <"$T/rf") rp=$(median <"$T/rp")
echo "report_1G.events $("$F" report --json -i "$T/fb.data" | jq '[.recording.events[].count] | add')"
echo "report_1G.ms.foliostat $(ms "$rf")"
echo "report_1G.ms.perf_script $(ms "$rp")"
echo "report_1G.speedup.foliostat_over_perf_script $(ratio "$rp" "$rf")"
} | tee "$out"
case ${BENCH_ONLY:-} in writepass | kernel | serve) exit 0 ;; esac

# A real program: a make -j2 build of this project (hundreds of processes, each with its
# own address space and libraries), recorded by both tools with the same events. The
# report against foliostat's own script of the file and perf report of perf's, and how
# soon the TUI shows its first screen (tmux, polled every 10 ms).
{
git -C "$(dirname "$0")/.." archive --format=tar HEAD | (mkdir -p "$T/src" && tar -x -C "$T/src")
ln -s "$(cd "$(dirname "$0")/.." && pwd)/deps" "$T/src/deps"
"$F" record -q "${FEV[@]}" -o "$T/build.data" -- make -s -C "$T/src" -j2 foliostat >/dev/null 2>&1
settle
make -s -C "$T/src" clean >/dev/null 2>&1
perf record -q -c 1 -d "${PEV[@]}" -o "$T/pbuild.data" -- make -s -C "$T/src" -j2 foliostat >/dev/null 2>&1
timed() { # FILE-PREFIX COMMAND...: median ms and peak RSS of RUNS runs, as "ms kb"
	local p=$1 i t0 t1
	shift
	: >"$T/$p"
	for i in $(seq "$RUNS"); do
		t0=$(now); /usr/bin/time -f "%M" -o "$T/$p.rss" "$@" >/dev/null 2>&1; t1=$(now)
		echo "$((t1 - t0)) $(cat "$T/$p.rss")" >>"$T/$p"
	done
	echo "$(ms "$(cut -d' ' -f1 <"$T/$p" | median)") $(cut -d' ' -f2 <"$T/$p" | median)"
}
"$F" report -i "$T/build.data" >/dev/null # fills the user's cache (see above)
set -- $(timed bt "$F" report -i "$T/build.data"); bt=$1 btm=$2
set -- $(timed bn env FOLIOSTAT_NO_CACHE=1 "$F" report -i "$T/build.data"); bn=$1
set -- $(timed bj "$F" report --json -i "$T/build.data"); bj=$1 bjm=$2
set -- $(timed bs "$F" script -i "$T/build.data"); bs=$1
set -- $(timed bp perf report --stdio --sort dso,sym -i "$T/pbuild.data"); bp=$1 bpm=$2
echo "# build: 'foliostat report -i build.data' (and --json, script) against 'perf report --stdio --sort dso,sym -i pbuild.data'; 'foliostat tui -i build.data' in tmux until its Overview shows"
echo "# a make -j2 build of foliostat: $(stat -c %s "$T/build.data") bytes, $("$F" report --json -i "$T/build.data" | jq '[.recording.events[].count] | add') samples, $("$F" report --json -i "$T/build.data" | jq .totals.processes) processes"
echo "build.report.ms.foliostat $bt"
echo "build.report.ms.foliostat_no_cache $bn"
echo "build.report_json.ms.foliostat $bj"
echo "build.script.ms.foliostat $bs"
echo "build.report.ms.perf_report_dso_sym $bp"
echo "build.report.over_script $(awk -v a="$bt" -v b="$bs" 'BEGIN {printf "%.2f", b ? a / b : 0}')"
echo "build.report_json.over_script $(awk -v a="$bj" -v b="$bs" 'BEGIN {printf "%.2f", b ? a / b : 0}')"
echo "build.speedup.foliostat_over_perf_report $(awk -v a="$bp" -v b="$bt" 'BEGIN {printf "%.2f", b ? a / b : 0}')"
echo "build.report.peak_rss_kb.foliostat $btm"
echo "build.report_json.peak_rss_kb.foliostat $bjm"
echo "build.report.peak_rss_kb.perf_report $bpm"
if command -v tmux >/dev/null; then
	: >"$T/tui"
	for i in $(seq "$RUNS"); do
		tmux kill-session -t fbench 2>/dev/null || true
		t0=$(now)
		tmux new-session -d -s fbench -x 120 -y 40 "$F tui -i $T/build.data"
		until tmux capture-pane -p -t fbench 2>/dev/null | grep -q "Overview"; do sleep 0.01; done
		t1=$(now)
		echo $((t1 - t0)) >>"$T/tui"
		tmux kill-session -t fbench 2>/dev/null || true
	done
	echo "build.tui_first_screen.ms $(ms "$(median <"$T/tui")")"
fi
} | tee -a "$out"

# Memory against recording length: a recording 8x longer must not need 8x the memory.
{
# PTE-mapped 2M THP: 8x the faults of the same kind on 8x the (few) folios.
"$F" record -q -o "$T/s.data" -- "$T/fw" workload fork-reuse --size 128M 2>/dev/null
settle
"$F" record -q -o "$T/l.data" -- "$T/fw" workload fork-reuse --size 1G 2>/dev/null
settle
/usr/bin/time -f "%M" -o "$T/ms" "$F" report --json -i "$T/s.data" >/dev/null
/usr/bin/time -f "%M" -o "$T/ml" "$F" report --json -i "$T/l.data" >/dev/null
echo "# memory: peak RSS (/usr/bin/time -f %M) of 'foliostat report --json' of fork-reuse 128M and 1G"
echo "memory.events.128M $("$F" report --json -i "$T/s.data" | jq '[.recording.events[].count] | add')"
echo "memory.events.1G $("$F" report --json -i "$T/l.data" | jq '[.recording.events[].count] | add')"
echo "memory.peak_rss_kb.128M $(cat "$T/ms")"
echo "memory.peak_rss_kb.1G $(cat "$T/ml")"
} | tee -a "$out"
classes
