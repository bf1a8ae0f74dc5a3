#!/bin/bash
# Golden files: the text and JSON reports of a small committed recording (fork-reuse of
# 2M in 64K mTHP folios on 6.18) must not change unless on purpose. To accept a deliberate
# change: tests/golden/update.sh, and say why in the commit.
set -u
# The golden files hold "µs": the UTF-8 rendering.
export LC_ALL=C.UTF-8
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
d=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 fail=0
check() { # NAME GOT-FILE WANT-FILE
	n=$((n + 1))
	if diff -u "$3" "$2" >"$T/diff"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		sed 's/^/# /' "$T/diff" | head -40
		fail=1
	fi
}
is() {
	n=$((n + 1))
	if [ "$1" = "$2" ]; then echo "ok $n - $3"; else echo "not ok $n - $3 (got '$1', want '$2')"; fail=1; fi
}
echo "1..9"
"$FOLIOSTAT" report -i "$d/small.data" >"$T/txt"
check "text report" "$T/txt" "$d/small.txt"
"$FOLIOSTAT" report --json -i "$d/small.data" >"$T/json"
check "JSON report" "$T/json" "$d/small.json"
"$FOLIOSTAT" report --json -i "$d/small.data" --class wp_reuse --order 64K >"$T/fjson"
check "JSON report, --class wp_reuse --order 64K" "$T/fjson" "$d/small-filtered.json"
jq -r -f "$d/schema.jq" "$T/json" >"$T/violations"
check "JSON report matches schema foliostat/report/v1" "$T/violations" /dev/null
jq -r -f "$d/schema.jq" "$T/fjson" >"$T/violations"
check "filtered JSON report matches the schema" "$T/violations" /dev/null
# The report's figures against the recorded events themselves.
"$FOLIOSTAT" script -i "$d/small.data" >"$T/script"
is "$(jq .totals.faults "$T/json")" "$(grep -cE ' exceptions:page_fault_(user|kernel): ' "$T/script")" "faults = page_fault entries in script"
is "$(jq '.recording.events[] | select(.name == "minor-faults") | .count' "$T/json")" "$(grep -c ' minor-faults: ' "$T/script")" "minor-faults count = script's"
is "$(jq '.orders[] | select(.order == 4) | .reuse.faults' "$T/json")" 512 "2M of 64K folios: 512 reuse faults"
is "$(jq '.orders[] | select(.order == 4) | .reuse.effectiveness' "$T/json")" 0.0625 "effectiveness 1/16"
exit $fail
