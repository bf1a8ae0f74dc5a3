#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The stages of lib/ include only themselves and the stages before them (lib/README.md),
# and no module includes another that includes it back. A stage that reached forward, or
# two modules that need each other, would be one room again. Run by make check.
set -eu
cd "$(dirname "$0")/.."
stages="util sys symbols data record model report compare live"
rank() {
	i=0
	for s in $stages; do
		[ "$s" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}
bad=0
pairs=$(mktemp)
trap 'rm -f "$pairs"' EXIT
for f in lib/*/*.[ch]; do
	stage=${f#lib/}; stage=${stage%%/*}
	me=$(rank "$stage")
	[ "$me" -ge 0 ] || { echo "$f: lib/$stage is not a stage of lib/README.md"; bad=1; continue; }
	# A module is its .c and .h; its _priv.h, shared with the files that carry out its
	# insides (model_kernel.c for model.c), is the module too.
	mod=${f%.[ch]}; mod=${mod#lib/}; mod=${mod%_priv}
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		faults.skel.h) continue ;;	# generated from lib/record/bpf/ by the build
		*/*) ;;
		*) echo "$f: #include \"$inc\": name the stage (\"stage/$inc\")"; bad=1; continue ;;
		esac
		them=$(rank "${inc%%/*}")
		if [ ! -e "lib/$inc" ] || [ "$them" -lt 0 ]; then
			echo "$f: #include \"$inc\": not a header of lib/"
			bad=1
		elif [ "$them" -gt "$me" ]; then
			echo "$f: lib/$stage includes lib/$inc of a later stage (${inc%%/*})"
			bad=1
		fi
		dep=${inc%.h}; dep=${dep%_priv}
		[ "$dep" = "$mod" ] || echo "$mod $dep" >>"$pairs"
	done
done
if ! tsort "$pairs" >/dev/null 2>"$pairs.err"; then
	grep -v 'input contains a loop' "$pairs.err" | sed 's/^tsort: /include circle: /'
	echo "(each circle above: modules that include each other's headers)"
	bad=1
fi
rm -f "$pairs.err"
[ "$bad" -eq 0 ] && echo "ok - lib/ includes go one way: $stages"
exit "$bad"
