#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's own cow selftest (tools/testing/selftests/mm/cow.c, from the linux-source
# tarball the build takes libperf from), recorded with a swap file: a program nobody here
# wrote, which swaps out every mTHP size whole, PTE-mapped and as a single PTE left of a
# folio. vmscan:mm_vmscan_write_folio names a page frame and no split is traced, so a
# folio split out of sight and written at its first page alone looks written whole: here
# 24 of them (16K 7, 32K 3, 64K 4, 128K 4, 256K 3, 512K 1, 1M 2) where the kernel's swpout
# of every size moved by 0. The kernel's per-size counters are the truth: no size has
# more folios written whole than its swpout moved by, and the folios taken back are said.
. "$(dirname "$0")/lib.sh"
need_root
[ -e "$THP/hugepages-64kB/stats/swpout" ] || skip_all "no per-size swpout counters on this kernel (6.10 and later)"
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)
[ -n "$tarball" ] || skip_all "no /usr/src/linux-source-*.tar.xz (make deps installs it)"
command -v cc >/dev/null || skip_all "no C compiler"
why=$(swapfile_unusable)
[ -z "$why" ] || skip_all "$why"

cd "$T"
top=$(basename "$tarball" .tar.xz)
mm=$top/tools/testing/selftests/mm
tar -xJf "$tarball" "$mm/cow.c" "$mm/vm_util.c" "$mm/vm_util.h" "$mm/thp_settings.c" \
	"$mm/thp_settings.h" "$top/tools/testing/selftests/kselftest.h" "$top/mm/gup_test.h" \
	"$top/include/uapi/linux/fs.h" 2>tar.err
# The system's linux/fs.h may predate PAGEMAP_SCAN (6.7), which vm_util.c uses: its
# definitions from the tarball's, behind the system's own header.
mkdir -p inc/linux && {
	echo '#include_next <linux/fs.h>'
	echo '#ifndef PAGEMAP_SCAN'
	echo '#define PROCFS_IOCTL_MAGIC 0x66'
	awk '/^#define PAGEMAP_SCAN/ { p = 1 } p { print } p && /^struct pm_scan_arg/ { q = 1 }
		q && /^};/ { exit }' "$top/include/uapi/linux/fs.h" | sed 's/__user//'
	echo '#endif'
} >inc/linux/fs.h
: >"$mm/local_config.h"
cc -O2 -Iinc -I"$mm" -I"$mm/.." -o cow "$mm/cow.c" "$mm/vm_util.c" "$mm/thp_settings.c" \
	-lpthread 2>cc.err
[ -x cow ] || skip_all "cow.c did not build: $(cat tar.err cc.err | grep -m 1 error)"

# Its own swap, removed on exit: the selftest skips its swap-out runs without one.
dd if=/dev/zero of=/var/tmp/foliostat-cow.$$ bs=1M count=256 2>/dev/null &&
	chmod 600 /var/tmp/foliostat-cow.$$ && mkswap /var/tmp/foliostat-cow.$$ >/dev/null &&
	swapon /var/tmp/foliostat-cow.$$
trap 'swapoff /var/tmp/foliostat-cow.$$ 2>/dev/null; rm -f /var/tmp/foliostat-cow.$$; restore_policies; _leave' EXIT
# The selftest sets the sizes' policies and puts them back; so do we, should it be killed.
for s in "$THP"/hugepages-*kB/enabled "$THP/enabled"; do
	set_policy "$s" "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$s")"
done

snap() { for s in "$THP"/hugepages-*kB; do echo "${s##*-} $(cat "$s/stats/swpout") $(cat "$s/stats/split")"; done; }
snap >before
"$FOLIOSTAT" record -q -o cow.data -- ./cow >cow.out 2>&1
rc=$?
snap >after
grep -q '^# Totals: pass:[1-9][0-9]* fail:0 ' cow.out
ok $? "the cow selftest passes under record (exit $rc: $(grep '^# Totals' cow.out))"
runs=$(grep -c 'swapped-out' cow.out)
[ "$runs" -gt 0 ]; ok $? "... its swap-out runs ran ($runs)"

# Per size: the kernel's whole swap-outs and splits over the run, against the report's.
ours=$(jr cow.data '[.swapout.whole[]? | "\(.order):\(.folios)"] | join(" ")')
split=$(jr cow.data '[.swapout.split[]? | "\(.order):\(.folios)"] | join(" ")')
pg=$(getconf PAGESIZE)
bad="" said=""
while read -r size sw0 sp0 && read -r _ sw1 sp1 <&3; do
	kb=${size%kB}
	o=0
	while [ $((pg << o)) -lt $((kb * 1024)) ]; do o=$((o + 1)); done
	w=0
	for x in $ours; do [ "${x%%:*}" = "$o" ] && w=${x#*:}; done
	s=0
	for x in $split; do [ "${x%%:*}" = "$o" ] && s=${x#*:}; done
	said="$said ${size}: whole $w/$((sw1 - sw0)) split $s/$((sp1 - sp0))"
	[ "$w" -le $((sw1 - sw0)) ] || bad="$bad $size"
done <before 3<after
# Splits are not held to the kernel's count: it counts every split, and the report those
# of folios written after one (seen: 1M 26 against 24, every other size equal).
echo "# by size, the report's against the kernel's:$said" >&2
is "$bad" "" "no size has more folios written whole than the kernel's swpout moved by"
"$FOLIOSTAT" report -i cow.data | grep '^# note: .* large folios written at their first page alone' >&2
done_testing
