# SPDX-License-Identifier: GPL-2.0-only
# foliostat's one TAP harness: every .t sources it (the live tests through
# tests/live/lib.sh, which adds the kernel's side). The plan is counted, not typed: a file
# ends with done_testing, which prints 1..N for the N tests it ran (TAP's plan at the end)
# and exits with whether one failed; a file that dies before has printed no plan, and
# prove fails it. A failure says on stderr what it saw: prove shows stderr without -v.
set -u
_n=0
_fail=0
# A known failure, open on an issue: the next ok/is is a TAP TODO (run, shown, not counted
# as a failure), with the reason. Only where the failure was seen: see its callers.
_todo=
todo() { _todo=$1; }
_result() { # PASSED NAME
	local t=${_todo:+ # TODO $_todo}
	_n=$((_n + 1))
	if [ "$1" = 1 ]; then echo "ok $_n - $2$t"; else echo "not ok $_n - $2$t"; [ -n "$_todo" ] || _fail=1; fi
	_todo=
}
ok() { # ok CONDITION-STATUS NAME: returns the status, for what a failure should show
	[ "$1" -eq 0 ] || echo "#   failed: $2" >&2
	_result $(($1 == 0)) "$2"
	return "$1"
}
is() { # is GOT WANT NAME
	[ "$1" = "$2" ] || echo "#   $3: got '$1', want '$2'" >&2
	_result $([ "$1" = "$2" ] && echo 1 || echo 0) "$3"
}
like() { # like GOT ERE NAME
	local st=0
	grep -Eq -- "$2" <<<"$1" || st=1
	[ $st -eq 0 ] || echo "#   $3: got '$1', want a match of /$2/" >&2
	_result $((st == 0)) "$3"
}
same_file() { # same_file NAME GOT-FILE WANT-FILE: the difference shown when they differ
	local st=0
	diff -u "$3" "$2" >"$2.diff" || st=1
	[ $st -eq 0 ] || sed 's/^/# /' "$2.diff" | head -40 >&2
	rm -f "$2.diff"
	_result $((st == 0)) "$1"
}
skip() { # skip COUNT REASON: COUNT tests this machine cannot run, counted as skipped
	local i
	for ((i = 0; i < $1; i++)); do
		_n=$((_n + 1))
		echo "ok $_n # SKIP $2"
	done
}
skip_all() { echo "1..0 # SKIP $1"; exit 0; } # before any test: the whole file, with why
bail_out() { echo "Bail out! $1"; exit 1; }
# What a test runs besides foliostat: make deps installs all of it, so a missing one is a
# broken machine, not a reason to pass.
need_commands() {
	local c
	for c; do
		command -v "$c" >/dev/null || bail_out "$c is missing: 'make deps' installs it"
	done
}
done_testing() { echo "1..$_n"; exit "$_fail"; }

# The TUI's tests (tests/tui, live 14): one tmux session, $TMUX_SESSION, read and driven.
TMUX_SESSION=foliostat-test-$$
screen() { tmux capture-pane -p -t "$TMUX_SESSION"; }
keys() { tmux send-keys -t "$TMUX_SESSION" "$@"; }
# Until the screen shows TEXT (the TUI draws asynchronously to us), SECONDS at most (30:
# a loaded machine, CI's guests beside it, is slow to draw, not wrong); the screen on
# stderr when it never does.
wait_screen() { # TEXT [SECONDS]
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	screen | sed 's/^/# /' >&2
	return 1
}
# A new session of COLS x LINES running CMD, the old one killed. Killing the last session
# ends the server, and a new session asked of it while it exits fails ("no server
# running"): three tests found empty screens so in a sanitizer run. Asked again until one
# starts.
new_session() { # COLS LINES CMD
	local i
	tmux kill-session -t "$TMUX_SESSION" 2>/dev/null
	for i in 1 2 3 4 5; do
		tmux new-session -d -s "$TMUX_SESSION" -x "$1" -y "$2" "$3" && return 0
		sleep 0.2
	done
	return 1
}
end_session() { tmux kill-session -t "$TMUX_SESSION" 2>/dev/null; }
