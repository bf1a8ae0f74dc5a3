#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerate the golden outputs from the committed recording (after a deliberate change).
set -e
export LC_ALL=C.UTF-8
d=$(dirname "$0")
f=${FOLIOSTAT:-$d/../../foliostat}
# Symbols come from the files of the machine that reports (they change with every build
# and upgrade): none, so the golden "where the faults come from" tables hold file offsets.
NOSYM=/nonexistent-symfs
"$f" report --symfs "$NOSYM" -i "$d/small.data" >"$d/small.txt"
"$f" report --json --symfs "$NOSYM" -i "$d/small.data" >"$d/small.json"
"$f" report --json --symfs "$NOSYM" -i "$d/small.data" --class wp_reuse --order 64K >"$d/small-filtered.json"
"$f" report --format prometheus --symfs "$NOSYM" -i "$d/small.data" >"$d/small.prom"
"$f" report --csv --symfs "$NOSYM" -i "$d/small.data" >"$d/small.csv"
"$f" report --csv=sites --sort dso,comm --symfs "$NOSYM" -i "$d/small.data" >"$d/small-sites.csv"
"$f" report --folded=count --symfs "$NOSYM" -i "$d/stacks.data" >"$d/stacks.folded"
"$f" report --symfs "$NOSYM" -i "$d/kernel.data" >"$d/kernel.txt"
"$f" report --symfs "$NOSYM" -i "$d/sweep.data" >"$d/sweep.txt"
"$f" report --json --symfs "$NOSYM" -i "$d/sweep.data" >"$d/sweep.json"
"$f" report --format mmtests -i "$d/sweep.data" >"$d/sweep-mmtests.txt"
"$f" report --symfs "$NOSYM" --sort dso,sym -i "$d/ksyms.data" >"$d/ksyms.txt"
"$f" compare "$d/small.data" "$d/sweep.data" >"$d/compare.txt" 2>/dev/null
"$f" compare --json "$d/small.data" "$d/sweep.data" >"$d/compare.json" 2>/dev/null
"$f" compare --sort dso,sym --top 12 --symfs "$NOSYM" "$d/small.data" "$d/sweep.data" >"$d/compare-sites.txt" 2>/dev/null
"$f" report --symfs "$NOSYM" -i "$d/bpf.data" >"$d/bpf.txt"
