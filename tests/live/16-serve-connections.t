#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# serve keeps answering its scrapers while another local user attacks its connections
# (issue 45): 10,000 idle connections and 64 slow senders (a byte each half second; 100
# and 16 in the guests), all as user nobody from addresses all over 127.0.0.0/8, each
# reopened when serve closes it (tests/live/http_attack.py). Every scrape made during the
# attack answers 200 within 1 s (10 in the emulated guests), and no slow connection
# outlives serve's 5 s request deadline by more than its tick and a second of slack,
# however often its bytes come.
. "$(dirname "$0")/lib.sh"
need_root
need_commands curl
[ -x /usr/bin/python3 ] || { echo "Bail out! /usr/bin/python3 is missing: 'make deps' installs it"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
pids=()
cleanup() {
	end_pids "${pids[@]}"
	_leave # keeps a failed test's files
}
trap cleanup EXIT
cd "$T"
port=$(free_port)
# make check-kernels-live's guests are emulated, some 80 times slower, and their kernels
# have no inet_diag module loaded: serve finds a local peer's user in /proc/net/tcp there,
# a scan per connection, which a thousand connections at once keep busy for a minute.
# The guests check the same rules against a smaller attack.
slow=1 idle=10000 nslow=64
[ -z "${FOLIOSTAT_GUEST:-}" ] || slow=10 idle=100 nslow=16
"$FOLIOSTAT" serve --listen "127.0.0.1:$port" 2>serve.err &
pids+=($!)
wait_http "http://127.0.0.1:$port/healthz" $((30 * slow))
ok $? "serve counts and answers on 127.0.0.1:$port"

secs=$((14 * slow))
ulimit -n 30000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c "$(cat "$here/http_attack.py")" \
	"$port" "$idle" "$nslow" "$secs" >attack.json 2>attack.err &
apid=$!
pids+=($apid)
sleep $((3 * slow))
for _ in $(seq 20); do
	curl -s -o /dev/null -m $((5 * slow)) -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$port/metrics" >>scrapes
	sleep 0.3
done
wait "$apid"
good=$(awk -v s=$slow '$1 == 200 && $2 < s' scrapes | wc -l)
is "$good" 20 "20 scrapes during the attack: 200 within $slow s ($(awk '{print $1 "/" $2 "s"}' scrapes | tr '\n' ' '))"
opened=$(jq .opened attack.json)
[ "${opened:-0}" -ge $((idle + nslow)) ]
ok $? "the attack ran as nobody: $(cat attack.json 2>/dev/null || head -c 300 attack.err)"
longest=$(jq .slow_longest_s attack.json)
awk -v l="$longest" -v c="$(jq .slow_closed attack.json)" -v s=$slow -v n=$nslow 'BEGIN { exit !(c >= n && l <= 5 + 1.2 * s) }'
ok $? "slow senders ended by the deadline, their bytes did not extend it: $(jq .slow_closed attack.json) closed, the longest lived $longest s (<= 5 s + a tick + 1 s)"
curl -sf "http://127.0.0.1:$port/metrics" >after.prom && kill -0 "${pids[0]}"
ok $? "serve answers after the attack ($(tail -c 200 serve.err | tr '\n' ' '))"
# What serve says it did: most refused as they came (their user had 8 already); the 8
# kept, idle or slow, ended late (once each at least).
refused=$(awk '$1 == "foliostat_http_refused_connections_total" {print $2}' after.prom)
late=$(awk '$1 == "foliostat_http_late_connections_total" {print $2}' after.prom)
[ "${refused:-0}" -ge "$idle" ] && [ "${late:-0}" -ge 8 ]
ok $? "its metrics say so: $refused connections refused, $late ended late"
done_testing
