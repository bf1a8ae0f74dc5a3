#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Commits as git's own are written: a subject of at most 72 characters in the imperative
# (no full stop), a blank line, a body that says why and what was measured. Checked for
# the commits since the convention was kept (SINCE; older history is what it is), by make
# check: a red check before a push is cheaper than a log nobody can read.
set -u
cd "$(dirname "$0")/.."
SINCE=${SINCE:-823e3e3}
# From here on a subject's prefix is one spelling (lowercase, as git's "builtin/add:";
# README and other names written in capitals stay so) and a subject says one idea (no
# "; " joining two). Older subjects are what they are.
SINCE_PREFIX=${SINCE_PREFIX:-71fd801}
if ! git rev-parse -q --verify "$SINCE^{commit}" >/dev/null 2>&1; then
	echo "ok - commits not checked: $SINCE is not in this clone's history (shallow?)"
	exit 0
fi
# A prefix names where the change is: each of its words a file or folder of the tree
# (its name without the extension: "model", "tui", "check-commits"; a dot folder keeps its
# name, ".ci"), a number ("live 05"),
# or one of the few words for a kind of file ("tests", "docs").
names=$(git ls-files | tr '/' '\n' | sed 's/\(.\)\.[^.]*$/\1/' | sort -u)
known() { # WORD
	case $1 in
	[0-9]*|tests|docs) return 0 ;;
	esac
	printf '%s\n' "$names" | grep -qxF -- "$1"
}
bad=0
for c in $(git rev-list "$SINCE..HEAD"); do
	subject=$(git log -1 --format=%s "$c")
	body=$(git log -1 --format=%b "$c" | grep -v '^[[:space:]]*$' | grep -cv '^[A-Za-z-]*: ')
	short=$(git rev-parse --short "$c")
	if [ "${#subject}" -gt 72 ]; then
		echo "$short: the subject has ${#subject} characters (72 at most): $subject"
		bad=1
	fi
	case $subject in
	*.) echo "$short: the subject ends with a full stop: $subject"; bad=1 ;;
	esac
	if git merge-base --is-ancestor "$SINCE_PREFIX" "$c" 2>/dev/null && [ "$c" != "$(git rev-parse "$SINCE_PREFIX")" ]; then
		case $subject in
		[A-Z][a-z]*:*) echo "$short: a capitalized prefix (lowercase, as the others): $subject"; bad=1 ;;
		*"; "*) echo "$short: two ideas joined with ';' (one commit each): $subject"; bad=1 ;;
		esac
		case $subject in
		*:*)
			for w in ${subject%%:*}; do
				known "$w" && continue
				echo "$short: the prefix's '$w' is no file or folder of the tree: $subject"
				bad=1
			done ;;
		esac
	fi
	if [ "$body" -eq 0 ]; then
		echo "$short: no body: say why, and what was measured ($subject)"
		bad=1
	fi
done
[ "$bad" -eq 0 ] && echo "ok - commits since $SINCE: short subjects, each with a body; since $SINCE_PREFIX lowercase prefixes naming a part of the tree, one idea each"
exit "$bad"
