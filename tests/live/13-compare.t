#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compare's marks on this machine, which a reviewer pastes into a reply: an A/A test (ten
# pairs of same-setup recordings, 5 runs each, made one after the other) marks at most one
# figure in all, while a real change (the region doubled) is marked; single runs are
# never marked.
. "$(dirname "$0")/lib.sh"
need_root
plan 6

cd "$T"
fw=$(workload_bin fw)
rec() { # FILE SIZE RUNS
	"$FOLIOSTAT" record -q -r "$3" -o "$1" -- "$fw" workload populate --size "$2" --policy small 2>/dev/null
}
marked() { # BASE NEW: the figures marked, as "key:marker" words
	"$FOLIOSTAT" compare --json "$1" "$2" 2>/dev/null |
		jq -r '[.figures[] | select(.values[1] != null and .values[1].marker != null) | "\(.key):\(.values[1].marker)"] | join(" ")'
}
fails=0
all=""
for i in $(seq 10); do
	rec a$i.data 4M 5 && rec b$i.data 4M 5 || fails=$((fails + 1))
	all="$all $(marked a$i.data b$i.data)"
done
is "$fails" 0 "A/A: 20 recordings of 5 runs each"
set -- $all
tested=$("$FOLIOSTAT" compare --json a1.data b1.data | jq .test.tested)
[ "$#" -le 1 ]; ok $? "A/A: 10 pairs of the same setup, $tested figures tested each: at most 1 marked in all ($# marked:$all)"
# Before: 0 to 7 a pair (21 in ten), a test at 5% on each figure alone.
rec big.data 8M 5
m=$(marked a1.data big.data)
case " $m " in *" faults:regression "*) ok 0 "A/B: the region doubled, faults marked a regression";; *) ok 1 "A/B: the region doubled, faults marked a regression ($m)";; esac
case " $m " in *" order.4K.anon_alloc.faults:regression "*) ok 0 "... and the 4K first-touch faults";; *) ok 1 "... and the 4K first-touch faults ($m)";; esac
# One run a side: nothing tested, the header says what it takes.
rec one.data 4M 1 && rec two.data 8M 1
is "$(marked one.data two.data)" "" "one run a side: no marks, though the faults doubled"
"$FOLIOSTAT" compare one.data two.data 2>/dev/null | grep -q "^# test:  none: a side has 1 run; marks need 2 or more a side"
ok $? "... and the header says marks need 2 runs or more a side"
exit $_fail
