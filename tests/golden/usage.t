#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every long option in a command's getopt table is in its --help (and so in the bash
# completion, which reads --help); and the completion offers commands, options and
# workloads from the binary.
set -u
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
FOLIOSTAT=$(cd "$(dirname "$FOLIOSTAT")" && pwd)/$(basename "$FOLIOSTAT")
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi; }
# The long options of a source file's option tables.
opts() { grep -oE '\{ "[a-z-]+", (no|required)_argument' "$top/$1" | cut -d'"' -f2 | sort -u; }
check() { # FILE COMMAND [OPTION-NOT-FOR-IT...]
	local file=$1 cmd=$2 o help missing=
	shift 2
	help=$("$FOLIOSTAT" "$cmd" --help 2>&1)
	for o in $(opts "$file"); do
		case " $* " in *" $o "*) continue ;; esac
		grep -q -- "--$o\b" <<<"$help" || missing="$missing --$o"
	done
	[ -z "$missing" ]; ok $? "$cmd --help names every option of its table${missing:+ (missing:$missing)}"
}
echo "1..14"
check cmd/record.c record json interval
check cmd/record.c stat output
check cmd/report.c report
check cmd/compare.c compare
check cmd/script.c script
check cmd/maps.c maps
check cmd/workload.c workload
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
	for _ in 1 2 3; do n=$((n + 1)); echo "ok $n # SKIP bash-completion not installed"; done
fi

# make install / uninstall into a staging directory.
D=$(mktemp -d)
make -s -C "$top" install DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
[ -x "$D/usr/bin/foliostat" ] && [ -e "$D/usr/share/man/man1/foliostat-compare.1" ] &&
	[ -e "$D/usr/share/bash-completion/completions/foliostat" ]; ok $? "make install: binary, man pages, completion"
"$D/usr/bin/foliostat" --version | grep -q "^foliostat [0-9]"; ok $? "the installed binary runs"
make -s -C "$top" uninstall DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
[ -z "$(find "$D" -type f)" ]; ok $? "make uninstall removes every file it installed"
rm -rf "$D"
exit $fail
