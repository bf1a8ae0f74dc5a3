#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The README's examples, run as written: every "$ " line of its sh blocks, in order, in a
# directory of their own, with foliostat on PATH (the serve example on a free port, and
# stopped at the end). Each must exit 0. The install block's commands are run elsewhere:
# make run, make deb and the package's apt-get install by make check-fresh, make check by
# CI (.ci/run); each must be named there.
. "$(dirname "$0")/lib.sh"
need_root
top=$(cd "$(dirname "$0")/../.." && pwd)
readme=$top/README.md
[ -f "$readme" ] || skip_all "no README.md beside the tests (a guest's copy of tests/)"
[ -z "${FOLIOSTAT_GUEST:-}" ] || skip_all "the README's examples run on the host; the guests run what they show"
awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on && /^\$ / { sub(/^\$ /, ""); print }' "$readme" >"$T/cmds"
n=$(wc -l <"$T/cmds")
mkdir -p "$T/bin" "$T/run"
# foliostat on PATH: the one under test, but its workloads the unsanitized binary, as the
# other live tests run them (ASan's mappings change their geometry, LSan their exit).
cat >"$T/bin/foliostat" <<SHIM
#!/bin/sh
[ "\$1" = workload ] && exec "$(readlink -f "${WORKLOAD_BIN:-$FOLIOSTAT}")" "\$@"
exec "$(readlink -f "$FOLIOSTAT")" "\$@"
SHIM
chmod +x "$T/bin/foliostat"
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bg=()
cleanup() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	_leave # keeps a failed test's files
}
trap cleanup EXIT
cd "$T/run"
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	c=${cmd//9470/$port}
	if [ "${c% &}" != "$c" ]; then
		PATH=$T/bin:$PATH bash -c "${c% &}" >"$T/out.$i" 2>&1 &
		bg+=($!)
		sleep 1
		kill -0 "${bg[-1]}" 2>/dev/null
		ok $? "README: $cmd (running)"
	else
		PATH=$T/bin:$PATH timeout 600 bash -o pipefail -c "$c" >"$T/out.$i" 2>&1
		rc=$?
		ok $rc "README: $cmd (exit $rc$([ $rc = 0 ] || printf ': %s' "$(tail -c 300 "$T/out.$i" | tr '\n' ' ')"))"
	fi
done <"$T/cmds"

# The install block's commands, each run by check-fresh or CI.
missing=
for c in "make run" "make check" "make deb" "apt-get install ./foliostat_"; do
	grep -qF -- "$c" "$readme" || continue
	cat "$top/scripts/check-fresh.sh" "$top/.ci/run" | grep -qF -- "${c#apt-get install ./}" || missing="$missing '$c'"
done
[ -z "$missing" ]
ok $? "the README's install commands are run by check-fresh or CI${missing:+ (not:$missing)}"
# The one that is not: starting a service is not a test's to do (and PID 1 here is
# $(ps -p 1 -o comm=)); make deb checks the unit with systemd-analyze verify.
skip 1 "systemctl enable --now foliostat-serve: not run by a test; make deb verifies the unit"
done_testing
