#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make check-kernels-live: the whole live suite (tests/live/*.t, as make check-live runs
# it here) inside Debian's own 6.1 and 6.12 kernels, x86-64, under QEMU. The guest boots
# from a small initramfs that mounts this machine's root read-only through virtiofs
# (QEMU's virtiofsd) under a RAM overlay, and runs the suite there with this machine's
# programs and libraries: perf, jq, cc, prove, and the foliostat built here. Nothing the
# guest writes reaches this machine. (No disk: swap to a virtio disk hung 6.12 under
# software emulation; the tests that need a swap file or a disk say so and skip.)
# Results: prove's TAP on the serial console between markers; the summary per kernel
# here, and the whole log kept beside it on failure.
# Software emulation (KVM does not run guests on these machines): docs/development.md gives times.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/guest.sh"
F=${FOLIOSTAT:-$top/foliostat}
KERNELS=${KERNELS:-"linux-image-cloud-amd64 linux-image-6.12-cloud-amd64"}
TESTS=${TESTS:-tests/live/*.t}
TIMEOUT=${TIMEOUT:-3600}
MEM=${MEM:-6144}
# A test file's limit: the longest takes about 250 s in a guest (06, 13), the whole suite
# under 30 minutes in 6.12; a hung one is ended in time for the rest to run.
TEST_TIMEOUT=${TEST_TIMEOUT:-900}
# When the guest's watchdog dumps every task's stack, hung task or not: before TIMEOUT ends it.
DUMP_AT=$((TIMEOUT > 600 ? TIMEOUT - 300 : TIMEOUT / 2))
guest_start check-kernels-live
install_missing check-kernels-live qemu-system-x86 busybox-static cpio
VIRTIOFSD=/usr/lib/qemu/virtiofsd
[ -x "$VIRTIOFSD" ] || { echo "check-kernels-live: $VIRTIOFSD missing (Debian's qemu-system-common has it)"; exit 1; }
# The foliostat and the tests under test, copied where the guest sees them (the
# repository's build folder), so that a rebuild or an edit meanwhile changes nothing under
# the guest's feet (a file replaced on this side is a stale handle on the guest's).
mkdir -p "$top/build-guest"
G=$(mktemp "$top/build-guest/foliostat.XXXXXX")
guest_remove+=("$G")
cp "$F" "$G"
chmod 0755 "$G"
F=$G
S=$(mktemp -d "$top/build-guest/tree.XXXXXX")
guest_remove+=("$S")
cp -r "$top/tests" "$S/"
chmod 0755 "$S"
sync

# The modules the guest loads to reach the shared root, in the order they depend; a kernel
# that has one built in ships no module of it (6.12 has all but overlay built in).
MODS="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci fuse virtiofs overlay"

initrd() { # KERNEL-TREE OUT
	local r=$W/root m f
	guest_root "$r" /bin/busybox sh mount mkdir insmod chroot poweroff echo cat sleep ifconfig dmesg grep ls
	mkdir -p "$r"/{lower,rw,new,mods}
	for m in $MODS; do
		f=$(find "$1/lib/modules" -name "$m.ko" -o -name "$m.ko.xz" | head -n 1)
		[ -n "$f" ] || continue
		case "$f" in *.xz) xz -dc "$f" >"$r/mods/$m.ko" ;; *) cp "$f" "$r/mods/$m.ko" ;; esac
	done
	cat >"$r/init" <<EOF
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $MODS; do [ ! -e /mods/\$m.ko ] || insmod /mods/\$m.ko || echo "@@INSMOD-FAILED \$m"; done
ifconfig lo 127.0.0.1 up # serve's test: a Prometheus scrapes it on the loopback
# The watchdog, from RAM (busybox here, not the shared root, which a hang may be in): once
# the kernel reports a hung task, or the suite is near the guest's time limit, the stack of
# every blocked task and of every task (sysrq w, t), and the kernel's whole log at every
# level, to the second serial port. The console keeps loglevel 5: the tests' own output.
(while sleep 20; do
	read -r up _ </proc/uptime
	dmesg | grep -q 'blocked for more than' || [ \${up%.*} -ge $DUMP_AT ] || continue
	echo w >/proc/sysrq-trigger
	echo t >/proc/sysrq-trigger
	sleep 5
	dmesg -r >/dev/ttyS1
	break
done) &
mount -t virtiofs -o ro hostroot /lower || { echo "@@MOUNT-FAILED"; poweroff -f; }
# A request to virtiofsd every 10 s, each from a process of its own: an interrupt lost
# to the missing barriers (see run_kernel) is made good by the next one.
(while sleep 10; do ls -d /lower/. >/dev/null 2>&1 & done) &
mount -t tmpfs -o size=80% rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /new
mount -t proc proc /new/proc
mount -t sysfs sys /new/sys
mount -t devtmpfs dev /new/dev
mount -t tracefs nodev /new/sys/kernel/tracing 2>/dev/null
mount -t debugfs nodev /new/sys/kernel/debug 2>/dev/null
mount -t cgroup2 none /new/sys/fs/cgroup 2>/dev/null
mkdir -p /new/dev/pts /new/dev/shm
mount -t devpts devpts /new/dev/pts
mount -t tmpfs shm /new/dev/shm
# What udev would have made: bash's process substitution opens /dev/fd/N.
ln -sf /proc/self/fd /new/dev/fd
ln -sf /proc/self/fd/0 /new/dev/stdin
ln -sf /proc/self/fd/1 /new/dev/stdout
ln -sf /proc/self/fd/2 /new/dev/stderr
echo "@@KERNEL \$(uname -r)"
echo "@@PROVE-BEGIN"
chroot /new /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \\
	/bin/bash -c 'set -o pipefail; cd "$S" && FOLIOSTAT="$F" WORKLOAD_BIN="$F" FOLIOSTAT_GUEST=qemu-tcg prove -v --timer --exec "timeout -k 10 $TEST_TIMEOUT bash" $TESTS 2>&1 | cat'
echo "@@PROVE-RC \$?"
echo "@@DONE"
poweroff -f
EOF
	chmod +x "$r/init"
	guest_pack "$r" "$2"
}

# prove -v's TAP to a line a test file: passed, skipped, failed, known failures (TAP TODO:
# lib.sh's todo()), or all skipped and why.
SUMMARY='
function pr() {
	if (plan > p + s + x + t)
		all = "ENDED EARLY: " p + s + x + t " of " plan " planned"
	if (!plan && all == "")
		all = "ENDED EARLY: no plan (done_testing never came), " p + s + x + t " run"
	printf "%-32s %3d passed %3d skipped %3d failed %d todo%s\n", f, p, s, x, t,
	       all != "" ? "  (" all ")" : ""
	f = ""
}
/^\[[0-9:]+\] tests\/live\/[^ ]+\.t / {
	if (f != "") pr()
	f = $2; p = s = x = t = plan = 0; all = ""
	if (match($0, /skipped: .*/)) all = "all skipped: " substr($0, RSTART + 9)
	next
}
/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
/^ok [0-9]+ # SKIP/ { s++; next }
/^ok [0-9]+/ { p++; next }
/^not ok [0-9]+.* # TODO / { t++; next }
/^not ok [0-9]+/ { x++; next }
/^Test Summary Report|^Files=|^All tests/ { if (f != "") pr() }
END { if (f != "") pr() }'

# The watchdog's dump (dmesg -r of sysrq w and t) to a line a task: the blocked ones (w),
# then every task of user space (t) not asleep in a wait of its own asking (poll, wait,
# pause, a pipe's read; the watchdog itself): "comm pid state: its frames, innermost first".
STACKS='
/ sysrq: Show Blocked State/ { sec = "blocked" }
/ sysrq: Show State/ { sec = "all" }
/ task:[^ ]+ +state:/ {
	match($0, /task:[^ ]+/); comm = substr($0, RSTART + 5, RLENGTH - 5)
	match($0, /state:[A-Z]/); st = substr($0, RSTART + 6, 1)
	match($0, / pid:[0-9]+/); pid = substr($0, RSTART + 5, RLENGTH - 5)
	fr = ""; n = user = idle = 0; next
}
comm != "" && /<\/TASK>/ {
	if (sec == "blocked" || (user && !idle)) printf "%-7s %s %s %s: %s\n", sec, comm, pid, st, fr
	comm = ""; next
}
comm != "" && match($0, /\] +[a-zA-Z_][a-zA-Z0-9_.]*\+0x/) {
	f = substr($0, RSTART, RLENGTH - 3); sub(/^\] +/, "", f)
	if (f ~ /^entry_SYSCALL|^asm_exc_page_fault/) user = 1
	if (f ~ /^(do_sys_poll|do_select|do_wait|sigsuspend|pipe_read|ep_poll|futex_wait|do_nanosleep|hrtimer_nanosleep|n_tty_read|sys_pause|write_sysrq_trigger)/) idle = 1
	if (f ~ /^(__schedule|schedule|schedule_timeout|schedule_preempt_disabled|io_schedule)$/ || n >= 10) next
	fr = fr (n++ ? " < " : "") f
}'

watchdog_dump() { # PACKAGE
	[ -s "$W/$1.dump" ] || return 0
	echo "   the guest's watchdog dumped its tasks (a hung task, or past $DUMP_AT s): $W/$1.dump"
	tr -d '\r' <"$W/$1.dump" | awk "$STACKS" | head -n 40 | sed 's/^/   | /'
}

# One kernel's guest, with its own virtiofsd and log; its summary on stdout:
# each test file's result, then every skip (with its evidence) and failure (with what it
# saw). 0 when the suite passed.
run_kernel() { # PACKAGE
	local pkg=$1 log rc vpid sock=$W/$1.vfs.sock
	log=$W/$pkg.log
	echo "== $pkg: the live suite ($TESTS)"
	"$VIRTIOFSD" --socket-path="$sock" -o source=/ -o cache=auto -o sandbox=chroot \
		-o no_posix_lock -o no_flock >"$W/$pkg.virtiofsd.log" 2>&1 &
	vpid=$!
	for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
	# Single-threaded TCG: multi-threaded TCG panicked 6.12 while tracepoints were being
	# patched (check-kernels.sh says more). But Debian 12's QEMU (7.2) drops the guest's
	# memory barriers there (fixed in 8.1: "tcg: Do not elide memory barriers for
	# !CF_PARALLEL in system mode"), and virtiofsd runs beside the vCPU: a guest's store of
	# a ring index can pass its load of the device's, and a kick or an interrupt is lost.
	# With event_idx such a loss is for good (the guest hung twice at a test's start, its
	# processes waiting on virtiofs); without, the device is kicked for every request, and
	# a lost interrupt is made good by the next request (the init's ten-second one).
	# Warnings and worse on the console (loglevel 5): a hung task, an RCU stall or a WARN
	# is said beside the test that met it; every level on the second port, when the
	# watchdog dumps.
	guest_boot "$log" "$TIMEOUT" qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu max -smp 2 \
		-m "$MEM" -object memory-backend-memfd,id=mem,size="${MEM}M",share=on -numa node,memdev=mem \
		-chardev socket,id=vfs,path="$sock" -device vhost-user-fs-pci,chardev=vfs,tag=hostroot,event_idx=off \
		-kernel "$(guest_vmlinuz "$pkg")" -initrd "$W/$pkg.initrd.gz" -nographic -no-reboot \
		-serial mon:stdio -serial file:"$W/$pkg.dump" \
		-append "console=ttyS0 panic=-1 tsc=reliable quiet loglevel=5 log_buf_len=8M"
	kill "$vpid" 2>/dev/null || true
	wait "$vpid" 2>/dev/null || true
	rm -f "$sock"
	# (Not at boot, where TCG's CPU draws warnings of no consequence.)
	# (Up to the watchdog's own sysrq output: watchdog_dump says that.)
	sed -n '/^@@PROVE-BEGIN/,/^@@DONE/p' "$log.txt" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' |
		sed '/ sysrq: Show Blocked State/,$d' >"$W/$pkg.kmsg" || true
	if [ -s "$W/$pkg.kmsg" ]; then
		echo "   the kernel said, while the tests ran (its first lines):"
		head -n 20 "$W/$pkg.kmsg" | sed 's/^/   | /'
	fi
	if ! guest_done "$log.txt"; then
		watchdog_dump "$pkg"
		return 1
	fi
	watchdog_dump "$pkg"
	sed -n '/^@@PROVE-BEGIN/,/^@@PROVE-RC/p' "$log.txt" | sed '1d;$d' >"$W/$pkg.tap"
	awk "$SUMMARY" "$W/$pkg.tap" | sed 's/^/   | /'
	grep -E '^Files=|^Result:' "$W/$pkg.tap" | sed 's/^/   | /'
	# (grep finds nothing in a suite that skipped or failed nothing: not an error here.)
	echo "   skipped, with the evidence (how many tests):"
	{ grep -E '^ok [0-9]+ # SKIP' "$W/$pkg.tap" || true; } | sed 's/^ok [0-9]* # SKIP //' | sort | uniq -c | sed 's/^/   | /'
	echo "   known failures (TODO), with their reasons:"
	{ grep -E '^not ok [0-9]+.* # TODO ' "$W/$pkg.tap" || true; } | sed 's/.* # TODO /todo: /' | sort | uniq -c | sed 's/^/   | /'
	echo "   failed (and TODO), with what each saw:"
	{ grep -E '^#   ' "$W/$pkg.tap" || true; } | sed 's/^/   | /' | head -60
	rc=$(guest_mark "$log.txt" PROVE-RC)
	if [ "$rc" = 0 ]; then
		echo "   ok: the live suite passed in $(guest_mark "$log.txt" KERNEL)"
		return 0
	fi
	echo "   FAIL: the live suite failed in $pkg (prove exit $rc); the log: $log.txt"
	return 1
}

# The packages one after the other (apt), then the guests side by side: each is one
# emulated CPU's work (single-threaded TCG), and this machine has two.
fail=0
pkgs=
for meta in $KERNELS; do
	pkg=$(guest_kernel "$meta") || { fail=1; continue; }
	initrd "$W/$pkg" "$W/$pkg.initrd.gz" || { fail=1; continue; }
	pkgs="$pkgs $pkg"
done
pids=
for pkg in $pkgs; do
	run_kernel "$pkg" >"$W/$pkg.summary" 2>&1 &
	pids="$pids $!"
done
for pid in $pids; do
	wait "$pid" || fail=1
done
for pkg in $pkgs; do
	cat "$W/$pkg.summary"
done
[ "$fail" = 0 ] || KEEP=1
guest_verdict "$fail"
