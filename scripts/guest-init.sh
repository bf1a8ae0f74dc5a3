#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The /init of the check-kernels guests (x86-64 and arm64; @TRIPLET@ is the library
# directory's name): the live checks, their results on the serial console between
# @@ markers that the host scripts read.
export PATH=/bin LD_LIBRARY_PATH=/usr/lib/@TRIPLET@
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
cd /tmp
THP=/sys/kernel/mm/transparent_hugepage
echo "@@KERNEL $(uname -r)"
foliostat check >check.txt 2>&1
echo "@@CHECK-BEGIN"; cat check.txt; echo "@@CHECK-END"
echo madvise >$THP/enabled 2>/dev/null
if [ -e $THP/hugepages-64kB/enabled ]; then
	foliostat record -q -o m.data --mthp 64K=always -- fw workload fork-reuse --size 32M --policy mthp 2>rec.err
else
	foliostat record -q -o m.data -- fw workload fork-reuse --size 32M --policy pte-thp 2>rec.err
fi
echo "@@RECORD-RC $?"
echo "@@RECORD-ERR-BEGIN"; cat rec.err; echo "@@RECORD-ERR-END"
echo "@@JSON-BEGIN"; foliostat report --json -i m.data; echo "@@JSON-END"
# Three runs of a small fork-reuse, brought out (base64 on the console) to be compared on
# the host with the host kernel's: foliostat compare across kernels.
if [ -e $THP/hugepages-64kB/enabled ]; then
	foliostat record -q -r 3 --bare-runs 0 -o r.data --mthp 64K=always -- fw workload fork-reuse --size 4M --policy mthp
	echo "@@RUNS-RC $?"
	echo "@@RUNS-BEGIN"; base64 r.data; echo "@@RUNS-END"
fi
echo "@@TEXT-BEGIN"; foliostat report -i m.data; echo "@@TEXT-END"
if [ -e /sys/kernel/tracing/kprobe_events ]; then
	# foliostat's own kprobes: recorded, then removed, also after SIGINT.
	foliostat record -q --kprobes -o k.data -- fw workload fork-reuse --size 8M --policy pte-thp
	echo "@@KPROBE-RC $?"
	foliostat script -i k.data >k.txt
	echo "@@KPROBE-ENTRIES $(grep -c ' foliostat:wp_[0-9]*:' k.txt)"
	echo "@@KPROBE-RETURNS $(grep -c ' foliostat:wp_ret_[0-9]*:' k.txt)"
	echo "@@KPROBE-SAMPLE $(grep -m1 ' foliostat:wp_ret_' k.txt)"
	echo "@@KPROBE-LEFT $(grep -c foliostat /sys/kernel/tracing/kprobe_events)"
	foliostat record -q --kprobes -o i.data -- sleep 3 &
	rec=$!
	sleep 1
	echo "@@KPROBE-DURING $(grep -c foliostat /sys/kernel/tracing/kprobe_events)"
	kill -INT $rec
	wait $rec
	echo "@@KPROBE-INT-RC $?"
	echo "@@KPROBE-LEFT-INT $(grep -c foliostat /sys/kernel/tracing/kprobe_events)"
fi
if [ -e $THP/khugepaged/scan_sleep_millisecs ]; then
	# khugepaged's collapse of the workload's 4M (two PMDs), in its report: the mm threads
	# recorded beside it, the mm pointer tied to it by the mmap_lock events.
	a0=$(grep '^thp_collapse_alloc ' /proc/vmstat | cut -d' ' -f2)
	foliostat record -q -o kh.data -- fw workload collapse --size 4M --khugepaged
	echo "@@KH-RC $?"
	echo "@@KH-ALLOC $(($(grep '^thp_collapse_alloc ' /proc/vmstat | cut -d' ' -f2) - a0))"
	echo "@@KH-SLEEP $(cat $THP/khugepaged/scan_sleep_millisecs)"
	echo "@@KH-BEGIN"; foliostat report --json -i kh.data; echo "@@KH-END"
fi
echo "@@DONE"
sync
poweroff -f
