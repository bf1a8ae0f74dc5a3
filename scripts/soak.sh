#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# serve left running (issue 28 point 4, issue 48 point 4): SOAK_MINUTES (30; 120 and more
# for the weeks-long claim) of a looping fork/exit workload under `foliostat serve -a
# --by-cgroup`, each ten rounds (3 s at least) in a cgroup of their own made and removed
# (containers that come and go), scraped every 10 s as Prometheus would. Each 10 s: serve's
# resident memory (/proc), its malloc heap in use and free (its own /metrics), and the
# kernel's memory of the BPF maps it holds (the memlock of each map in /proc/PID/fdinfo, as
# bpftool map show says it). Memory must stay flat after the warm-up (the first sixth, 10
# minutes at most): no trend above 1% an hour in the resident memory nor in the maps (the
# least-squares slope, as a share of the mean; a fall is no leak); the heap's trends are
# shown beside them. The label sets must follow the cgroups
# there: no fault counted under "other" for want of a label set (--max-cgroups 64, a
# cgroup's series lingering 30 s: some 12 held at once). Results appended to $1, the
# samples beside it (-soak-rss.txt); exit 1 when either fails.
# Usage: FOLIOSTAT=./foliostat scripts/soak.sh OUT
set -euo pipefail
out=${1:-bench-results.txt}
F=$(cd "$(dirname "${FOLIOSTAT:-./foliostat}")" && pwd)/$(basename "${FOLIOSTAT:-./foliostat}")
MIN=${SOAK_MINUTES:-30}
[ "$(id -u)" -eq 0 ] || { echo "soak: run as root"; exit 1; }
T=$(mktemp -d /tmp/foliostat-soak.XXXXXX)
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cp "$F" "$T/fw"
"$F" serve --listen "127.0.0.1:$port" --by-cgroup --cgroup-linger 30 2>"$T/serve.err" &
serve=$!
CG=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
[ -n "$CG" ] || { echo "soak: no cgroup2 mount"; exit 1; }
# The churn: processes that fork children which exit (fork-loop), and processes of four
# threads (fork-reuse -t 4), each a new exec and a new pid, for the whole soak; each ten
# rounds in a new cgroup, removed after them (their count in $T/cgroups).
(
	i=0
	while :; do
		cg=$CG/foliostat-soak-$$-$i
		mkdir "$cg" && echo $((i + 1)) >"$T/cgroups"
		t0=$(date +%s%N)
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			sh -c "echo \$\$ >$cg/cgroup.procs; exec $T/fw workload fork-loop --loops 4 --size 16M"
			sh -c "echo \$\$ >$cg/cgroup.procs; exec $T/fw workload fork-reuse --size 16M --threads 4"
		done
		# 3 s a cgroup at least: with 30 s of lingering, some 12 label sets held (a fast
		# machine's ten rounds took 0.6 s: 64 held, and faults counted as "other").
		left=$((3000000000 - ($(date +%s%N) - t0)))
		[ "$left" -le 0 ] || sleep "$(awk -v n="$left" 'BEGIN { printf "%.3f", n / 1e9 }')"
		rmdir "$cg"
		i=$((i + 1))
	done
) >/dev/null 2>&1 &
churn=$!
# The samples outlive a soak that ends early: beside $1, whatever ends it.
trap 'kill $churn $serve 2>/dev/null; wait $serve 2>/dev/null; rmdir "$CG"/foliostat-soak-$$-* 2>/dev/null; cp "$T/rss" "${out%.txt}-soak-rss.txt" 2>/dev/null; rm -rf "$T"' EXIT
start=$(date +%s)
end=$((start + MIN * 60))
: >"$T/rss"
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 10
	kill -0 "$serve" 2>/dev/null || { echo "soak: serve died: $(tail -n 3 "$T/serve.err")"; exit 1; }
	curl -sf "http://127.0.0.1:$port/metrics" >"$T/scrape" || true
	# Each figure read so that a miss is a 0, never the end of the soak (set -e and
	# pipefail: a descriptor closed between the glob and cat, a grep that finds nothing).
	t=$(($(date +%s) - start))
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$serve/status" || true)
	faults=$(awk '/^foliostat_faults_total/ {n += $2} END {printf "%d", n}' "$T/scrape" || true)
	sets=$({ grep -o '^foliostat_faults_total{cgroup="[^"]*"' "$T/scrape" || true; } | sort -u | wc -l)
	over=$(awk '$1 == "foliostat_cgroup_overflow_faults_total" { print $2 }' "$T/scrape" || true)
	keys=$(awk '$1 == "foliostat_kernel_count_keys" { print $2 }' "$T/scrape" || true)
	heap=$(awk '$1 == "foliostat_heap_bytes{state=\"in_use\"}" { print int($2 / 1024) }' "$T/scrape" || true)
	free=$(awk '$1 == "foliostat_heap_bytes{state=\"free\"}" { print int($2 / 1024) }' "$T/scrape" || true)
	maps=$({ cat "/proc/$serve/fdinfo/"* 2>/dev/null || true; } | awk '/^map_type:/ { m = 1 } /^memlock:/ && m { n += $2; m = 0 } END { printf "%d", n / 1024 }')
	echo "$t ${rss:-0} ${faults:-0} $sets ${over:-0} ${keys:-0} ${heap:-0} ${free:-0} ${maps:-0}" >>"$T/rss"
done
cp "$T/rss" "${out%.txt}-soak-rss.txt"
rc=0
/usr/bin/python3 - "$T/rss" "$MIN" "$(cat "$T/cgroups" 2>/dev/null || echo 0)" >"$T/verdict" <<'PY' || rc=$?
import sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
minutes = float(sys.argv[2])
warm = min(600, minutes * 60 / 6)
tail = [r for r in rows if r[0] >= warm]
# kB at a time: the median of the samples of the two minutes around it (the heap is
# trimmed once a minute: one sample may fall either side of a trim).
def around(col, t):
    near = sorted(r[col] for r in rows if abs(r[0] - t) <= 60) or [rows[-1][col]]
    return near[len(near) // 2]
# The least-squares slope after the warm-up, as a share of the mean an hour.
def trend(col):
    n = len(tail)
    mx = sum(r[0] for r in tail) / n
    my = sum(r[col] for r in tail) / n
    sxx = sum((r[0] - mx) ** 2 for r in tail) or 1
    slope = sum((r[0] - mx) * (r[col] - my) for r in tail) / sxx
    return slope * 3600 / my if my else 0.0
end = rows[-1][0]
print(f"soak.minutes {minutes:g} (warm-up {warm / 60:.0f} min)")
print(f"soak.faults_last_scrape {rows[-1][2]:.0f} (the cgroups there then: a removed one's series go)")
flat = True
# Judged: what the machine pays, the resident memory and the BPF maps. The heap's two
# say why when it grows (a leak grows what is in use, fragmentation what is free); what
# is in use swings with what is in flight (2 MB either way here), too much for its trend
# to be judged at 1%/h in two hours.
for col, what in ((1, "rss"), (6, "heap_in_use"), (7, "heap_free"), (8, "bpf_maps")):
    t = trend(col)
    judged = what in ("rss", "bpf_maps")
    if judged and t > 0.01:
        flat = False
    print(f"soak.{what}_kb at {warm / 60:.0f} min {around(col, warm):.0f}, at end "
          f"{around(col, end - 60):.0f}, max {max(r[col] for r in rows):.0f}, "
          f"trend {100 * t:+.2f}%/h{'' if judged else ' (not judged)'}")
print(f"soak.flat {'yes' if flat else 'NO'} (rss and BPF maps each at most +1%/h)")
bounded = rows[-1][4] == 0
print(f"soak.cgroups_made {sys.argv[3]}")
print(f"soak.label_sets max {max(r[3] for r in rows):.0f}, at end {rows[-1][3]:.0f} (of 64)")
print(f"soak.kernel_count_keys max {max(r[5] for r in rows):.0f}, at end {rows[-1][5]:.0f} (of 2048)")
print(f"soak.overflow_faults {rows[-1][4]:.0f}")
print(f"soak.label_sets_bounded {'yes' if bounded else 'NO'}")
sys.exit(0 if flat and bounded else 1)
PY
{
	echo "# serve soak: $MIN min of fork-loop and fork-reuse -t 4 in a loop under serve -a --by-cgroup, scraped every 10 s ($(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null): SOAK_MINUTES=$MIN scripts/soak.sh)"
	cat "$T/verdict"
} | tee -a "$out"
exit $rc
