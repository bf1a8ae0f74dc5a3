#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# compare --html as a browser shows it: headless Chromium loads the page (a file, no
# network), its DOM is read back against compare --json (every figure, each side's mean,
# its label; the latency distributions of every side), and its screenshot must show each
# side's colour drawn (html_check.py).
set -u
export LC_ALL=C.UTF-8
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
d=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$d/../lib.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || skip_all "no chromium (make deps installs Debian's)"
"$FOLIOSTAT" compare --html "$d/small.data" "$d/sweep.data" >"$T/page.html" 2>/dev/null; ok $? "compare --html: exit 0"
grep -Eq 'https?:|<script|src=' "$T/page.html"; [ $? -ne 0 ]; ok $? "... a page that fetches nothing and runs no script"
"$FOLIOSTAT" compare --json "$d/small.data" "$d/sweep.data" >"$T/cmp.json" 2>/dev/null
# Chromium wants a HOME it can write, and no sandbox as root.
run() { HOME=$T timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run "$@" 2>>"$T/chromium.log"; }
run --dump-dom "file://$T/page.html" >"$T/dom.html"
grep -q '<tr id="f-faults" data-key="faults"' "$T/dom.html"; ok $? "Chromium loads it ($(wc -c <"$T/dom.html") bytes of DOM)"
(cd "$T" && run --screenshot="$T/shot.png" --window-size=1000,900 "file://$T/page.html" >/dev/null)
[ -s "$T/shot.png" ]; ok $? "... and takes its screenshot"
"$d/html_check.py" "$T/dom.html" "$T/cmp.json" "$T/shot.png" >"$T/bad" 2>&1
[ ! -s "$T/bad" ]; r=$?
ok $r "the page's figures read back equal compare --json's, each side's colour drawn"
[ $r -eq 0 ] || sed 's/^/#   /' "$T/bad" | head -20
# The tested rows on the page with the JSON's p and q; the untested folded away.
python3 - "$T/dom.html" "$T/cmp.json" >"$T/bad" 2>&1 <<'PY'
import json, re, sys
dom, cmp = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
untested = dom[dom.index('<details id="untested"'):]
for f in cmp["figures"]:
    cells = f["values"][1:]
    tested = any(v and (v.get("tested") or v.get("marker")) for v in cells)
    if ('data-key="%s"' % f["key"] in untested) == tested:
        print("%s: tested %s, folded %s" % (f["key"], tested, not tested))
PY
[ ! -s "$T/bad" ]; ok $? "rows never tested are folded away under <details>, the others are not"
[ $? -eq 0 ] || sed 's/^/#   /' "$T/bad" | head
grep -q '<table id="summary">' "$T/page.html"; ok $? "the marks' summary is at the top"
# The marked figures as an image: two rows of a 4.8% and a 2382% change drawn on one axis.
"$FOLIOSTAT" compare --format svg --figures faults,order.4K.anon_alloc.faults "$d/small.data" "$d/sweep.data" \
	>"$T/strips.svg" 2>/dev/null
grep -o '<g class="row"' "$T/strips.svg" | wc -l | grep -qx 2; ok $? "compare --format svg --figures: an image of those two rows"
(cd "$T" && run --screenshot="$T/strips.png" --window-size=840,200 "file://$T/strips.svg" >/dev/null)
"$d/html_check.py" --strips "$T/strips.svg" "$T/strips.png" >"$T/bad" 2>&1
[ ! -s "$T/bad" ]; r=$?
ok $r "... its screenshot: +4.8% drawn by the axis's 0, +2382% at its edge"
[ $r -eq 0 ] || sed 's/^/#   /' "$T/bad" | head
done_testing
