#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad input gets a clear message and the documented exit status, never a crash.
. "$(dirname "$0")/lib.sh"
need_root

# The committed recordings, found from this file (foliostat may be a copy elsewhere).
golden=$(cd "$(dirname "$0")/../golden" && pwd)
cd "$T"
"$FOLIOSTAT" script -i missing.data 2>err; rc=$?
is "$rc" 1 "script of a missing file exits 1"
grep -q "does not exist" err; ok $? "... and says the file does not exist"

head -c 4096 /dev/urandom >junk.data
"$FOLIOSTAT" script -i junk.data 2>err; rc=$?
is "$rc" 1 "script of a random file exits 1"
grep -q "not a foliostat recording" err; ok $? "... and says it is not a recording"

"$FOLIOSTAT" record -q -e no_such:event -o x.data -- true 2>err; rc=$?
is "$rc" 1 "unknown tracepoint: exit 1"
grep -q "does not exist on this kernel" err; ok $? "... named in the message"
"$FOLIOSTAT" record -q -e bogus-event -o x.data -- true 2>err; rc=$?
is "$rc" 1 "unknown event name: exit 1"
grep -q "unknown event 'bogus-event'" err; ok $? "... named in the message"

"$FOLIOSTAT" record -q -o x.data -- /no/such/command 2>err; rc=$?
is "$rc" 127 "a command that does not exist: exit 127"
grep -q "cannot execute '/no/such/command'" err; ok $? "... with a message"
[ ! -e x.data ]; ok $? "... and no recording left behind"

"$FOLIOSTAT" record -q -o x.data -- sh -c 'exit 3' 2>/dev/null; rc=$?
is "$rc" 3 "exit status is the workload's"
"$FOLIOSTAT" record -q -o x.data -- sh -c 'kill -SEGV $$' 2>/dev/null; rc=$?
is "$rc" 139 "a workload killed by SIGSEGV: 128+11"
"$FOLIOSTAT" record -q -o x.data -- true 2>/dev/null
[ -e x.data.old ]; ok $? "an existing recording is kept as .old"

"$FOLIOSTAT" record --bogus 2>/dev/null; rc=$?
is "$rc" 2 "unknown option: exit 2"
"$FOLIOSTAT" record -m 3 -- true 2>/dev/null; rc=$?
is "$rc" 2 "-m not a power of two: exit 2"
"$FOLIOSTAT" nonsense 2>/dev/null; rc=$?
is "$rc" 2 "unknown command: exit 2"
sleep 0 & gone=$!; wait $gone
"$FOLIOSTAT" record -q -p "$gone" -o y.data 2>err; rc=$?
is "$rc" 1 "attach to a pid that does not exist: exit 1"

grep -q "no such process" err; ok $? "... saying there is no such process"

# Unprivileged: say what to change.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$FOLIOSTAT" record -q -o /tmp/nobody.$$.data -- true 2>err; rc=$?
	is "$rc" 1 "unprivileged record fails with exit 1"
	grep -Eq "run as root|perf_event_paranoid" err; ok $? "... and says how to fix it: $(head -c 150 err)"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$FOLIOSTAT" record -q --fault-path bpf -o /tmp/nobody.$$.data -- true 2>err
	grep -q "bpf is not for this recording: it needs root" err; ok $? "... --fault-path bpf: it needs root ($(tail -n 1 err | head -c 150))"
	rm -f /tmp/nobody.$$.data
else
	skip 3 "no nobody user"
fi
"$FOLIOSTAT" report -i "$golden/small.data" >/dev/full 2>err; rc=$?
is "$rc" 1 "report to a full disk (/dev/full): exit 1, not 0"
grep -q "cannot write the output: No space left on device" err; ok $? "... saying why"
# -o: an empty name is a usage error; - is standard output, only down a pipe.
"$FOLIOSTAT" record -q -o '' -- true 2>err; rc=$?
[ "$rc" = 2 ] && grep -q "not an empty string" err; ok $? "-o '': usage error, saying so ($(cat err))"
"$FOLIOSTAT" record -q -o - -- true >out.file 2>err; rc=$?
[ "$rc" = 2 ] && [ ! -s out.file ] && [ ! -e ./- ]; ok $? "-o - into a file: usage error, nothing written ($(cat err))"
"$FOLIOSTAT" record -q -o - -- true | cat >piped.data
is "$(jr piped.data '.recording.command[0]')" true "-o - down a pipe: the recording, readable"
# An argument longer than a recording keeps (64 KB) is cut, saying so, not dropped.
"$FOLIOSTAT" record -q -o long.data -- /bin/true "$(head -c 100000 /dev/zero | tr '\0' a)"
is "$(jr long.data '.recording.command[1] | "\(length)\(.[-18:])"')" "65493 [34528 bytes cut]" \
	"a 100 KB argument: recorded cut, and read back"
"$FOLIOSTAT" maps -p 2 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "kernel thread" err; ok $? "maps -p 2 (kthreadd): exit 1, a kernel thread ($(cat err))"
"$FOLIOSTAT" script --help >/dev/null; ok $? "script --help"
"$FOLIOSTAT" record --help | grep -q "usage: foliostat record"; ok $? "record --help"
done_testing
