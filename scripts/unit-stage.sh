#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The stages a unit test links (the Makefile asks): the latest stage of lib/ it includes,
# through the tests' own headers too, and every stage before it (lib/README.md's order).
# A stage whose code called a later stage's would then fail to link in its own tests.
# Usage: scripts/unit-stage.sh tests/unit/test_x.c
set -eu
stages="util sys symbols data record model report compare live"
seen=
includes() { # FILE: its quoted includes, and those of the test headers it includes
	case " $seen " in *" $1 "*) return ;; esac
	seen="$seen $1"
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"); do
		if [ -e "$(dirname "$1")/$inc" ]; then
			includes "$(dirname "$1")/$inc"
		else
			echo "${inc%%/*}"
		fi
	done
}
used=$(includes "$1" | sort -u)
last=
for s in $stages; do
	echo "$used" | grep -qx "$s" && last=$s
done
[ -n "$last" ] || { echo "$1 includes no stage of lib/" >&2; exit 1; }
for s in $stages; do
	echo "$s"
	[ "$s" = "$last" ] && break
done
