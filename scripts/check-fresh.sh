#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make check-fresh: the README's way in, on a machine that has only Debian 12's minimal
# base, git and make. A debootstrap (minbase) chroot from Debian's standard sources
# (bookworm, bookworm-updates, bookworm-security), /proc, /sys, tracefs and /dev mounted:
#   (a) a clone of this repository's HEAD, and the README's `make run` in it;
#   (b) `make deb` there, and the .deb installed in a second copy of the bare chroot with
#       apt-get install ./foliostat_*.deb, then foliostat check, record, report --json.
# Prints what each step downloaded (apt's cache, before and after) and took. Needs root
# and Debian's archive; removes the chroots, however it ends (KEEP=1 keeps them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "check-fresh: run as root (debootstrap, chroot)"; exit 1; }
. "$top/scripts/apt.sh"
install_missing check-fresh debootstrap
MIRROR=${MIRROR:-http://deb.debian.org/debian}
W=$(mktemp -d /var/tmp/foliostat-fresh.XXXXXX)
mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
mnt() { # ROOT: the kernel's file systems and the repository, as a machine has them
	mount -t proc proc "$1/proc" && mounted+=("$1/proc")
	mount -t sysfs sys "$1/sys" && mounted+=("$1/sys")
	mount -t tracefs nodev "$1/sys/kernel/tracing" && mounted+=("$1/sys/kernel/tracing")
	mount --rbind /dev "$1/dev" && mount --make-rslave "$1/dev" && mounted+=("$1/dev")
	mkdir -p "$1/src" && mount --bind -o ro "$top" "$1/src" && mounted+=("$1/src")
	cp /etc/resolv.conf "$1/etc/resolv.conf"
}
downloaded() { # ROOT: kB of .debs in apt's cache
	du -sk "$1/var/cache/apt/archives" 2>/dev/null | cut -f1
}
step() { # NAME ROOT COMMAND: run in the chroot, timed; its output kept, shown on failure
	local name=$1 root=$2 start before rc=0
	shift 2
	before=$(downloaded "$root")
	start=$(date +%s)
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb LANG=C.UTF-8 \
		/bin/bash -c "$*" >"$W/$name.log" 2>&1 || rc=$?
	echo "   $name: exit $rc, $(($(date +%s) - start)) s, $((($(downloaded "$root") - before) / 1024)) MB downloaded"
	if [ "$rc" != 0 ]; then
		tail -n 30 "$W/$name.log" | sed 's/^/   | /'
		return 1
	fi
}

echo "== a Debian 12 minbase chroot, git and make"
start=$(date +%s)
debootstrap --variant=minbase --include=git,make,ca-certificates bookworm "$W/base" "$MIRROR" >"$W/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$W/debootstrap.log"; echo "check-fresh: debootstrap failed"; exit 1; }
cat >"$W/base/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
rm -f "$W/base/var/cache/apt/archives/"*.deb
echo "   debootstrap: $(($(date +%s) - start)) s"
cp -a "$W/base" "$W/pkg"

echo "== (a) the README's make run, from a clone"
mnt "$W/base"
git -C "$top" rev-parse HEAD >/dev/null
step clone "$W/base" "git clone -q /src /root/foliostat"
# What run and test packages together would download: what make run installed before
# the two were apart.
echo "   run and test packages together would download: $(chroot "$W/base" /root/foliostat/scripts/install-deps.sh test-size 2>/dev/null || echo ?)"
step make-run "$W/base" "cd /root/foliostat && make run"
grep -E "^(Faults by folio order|Reuse batching)" "$W/make-run.log" | sed 's/^/   | /'
grep -q "^Reuse batching" "$W/make-run.log" || { echo "   FAIL: make run printed no report"; exit 1; }
# What make check would download besides (apt's own count, nothing installed).
test_more=$(chroot "$W/base" /root/foliostat/scripts/install-deps.sh test-size 2>/dev/null || true)
echo "   the tests' packages would add: ${test_more:-?}"
step make-deb "$W/base" "cd /root/foliostat && make deb"
deb=$(ls "$W/base/root/foliostat/"foliostat_*.deb)
echo "   $(basename "$deb"): $(du -k "$deb" | cut -f1) kB"

echo "== (b) the package, installed on a bare chroot"
mnt "$W/pkg"
cp "$deb" "$W/pkg/root/"
step install "$W/pkg" "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./root/$(basename "$deb") jq"
step check "$W/pkg" "foliostat check"
step record "$W/pkg" "cd /root && foliostat record -w populate -- --size 16M"
step report "$W/pkg" "cd /root && foliostat report --json | jq -e '.orders | length > 0'"
echo "check-fresh: passed in $(($(date +%s) - start)) s"
