#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every long option in a command's getopt table is in its --help (and so in the bash
# completion, which reads --help); and the completion offers commands, options and
# workloads from the binary.
set -u
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
FOLIOSTAT=$(cd "$(dirname "$FOLIOSTAT")" && pwd)/$(basename "$FOLIOSTAT")
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib.sh"
# Each command's options, from its own table (--list-options): every one is in the
# command's man page (or the page it defers to: stat's record options, tui's report
# filters), and --help names it. The completion reads the same list.
man_has() { # PAGE... OPTION: the option in one of the pages, as roff writes it
	local o=${@: -1} p
	for p in "${@:1:$#-1}"; do
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$top/man/foliostat-$p.1" && return 0
	done
	return 1
}
check() { # COMMAND MAN-PAGE...
	local cmd=$1 o list help missing= undocumented=
	shift
	list=$("$FOLIOSTAT" "$cmd" --list-options) && [ -n "$list" ] || { ok 1 "$cmd --list-options"; return; }
	help=$("$FOLIOSTAT" "$cmd" --help 2>&1)
	for o in $list; do
		grep -qE -- "(^|[ ,])$o([ ,[]|$)" <<<"$help" || missing="$missing $o"
		man_has "$@" "$o" || undocumented="$undocumented $o"
	done
	[ -z "$missing$undocumented" ]
	ok $? "$cmd: every option in --help and the man page${missing:+ (not in --help:$missing)}${undocumented:+ (not in man foliostat-$1:$undocumented)}"
}
check record record
check stat stat record
check top top
check serve serve
check report report
check tui tui report
check compare compare
check script script
check maps maps
check workload workloads
check archive archive
"$FOLIOSTAT" stat --output x.data -- true >/dev/null 2>&1; [ $? -eq 2 ]; ok $? "stat refuses --output (it writes no file)"

if [ -r /usr/share/bash-completion/bash_completion ]; then
	comp() {
		(. /usr/share/bash-completion/bash_completion; . "$top/scripts/foliostat-completion.bash"
		 PATH=$(dirname "$FOLIOSTAT"):$PATH
		 COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"
		 COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _foliostat; echo "${COMPREPLY[*]}")
	}
	[ "$(comp "$(basename "$FOLIOSTAT")" comp)" = compare ]; ok $? "completion: commands"
	[ "$(comp "$(basename "$FOLIOSTAT")" record --swe)" = --sweep ]; ok $? "completion: a command's options"
	[ "$(comp "$(basename "$FOLIOSTAT")" stat -w fork-)" = "fork-reuse fork-loop" ]; ok $? "completion: workloads after -w"
else
	skip 3 "bash-completion not installed"
fi

# --version: the version of debian/changelog's first entry (the package's: one place),
# and the commit built from.
want=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
commit=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
"$FOLIOSTAT" --version | grep -q "^foliostat $want (commit $commit"
ok $? "--version: $("$FOLIOSTAT" --version) (debian/changelog $want, HEAD $commit)"

# make install / uninstall into a staging directory.
D=$(mktemp -d)
make -s -C "$top" install DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
[ -x "$D/usr/bin/foliostat" ] && [ -e "$D/usr/share/man/man1/foliostat-compare.1" ] &&
	[ -e "$D/usr/share/bash-completion/completions/foliostat" ]; ok $? "make install: binary, man pages, completion"
"$D/usr/bin/foliostat" --version | grep -q "^foliostat [0-9]"; ok $? "the installed binary runs"
make -s -C "$top" uninstall DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
[ -z "$(find "$D" -type f)" ]; ok $? "make uninstall removes every file it installed"
rm -rf "$D"
done_testing
