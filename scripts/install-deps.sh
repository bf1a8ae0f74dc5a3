#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what foliostat needs on Debian 12: the libraries from Debian, libperf built from
# Debian's kernel source package. Safe to run again: it installs only what is missing.
# libc6-dbg: libc's source lines, in a compressed debug file (test_symtab reads them).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkgs="gcc make pkg-config libtraceevent-dev libtracefs-dev libcjson-dev libncurses-dev
libdeflate-dev libcmocka-dev tmux perl linux-perf xz-utils binutils jq time
clang libclang-rt-14-dev libgsl-dev python3-scipy bash-completion procps strace
libdw-dev libelf-dev python3-prometheus-client libbpf-dev bpftool chromium fonts-liberation
libc6-dbg libmicrohttpd-dev curl"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing Debian packages:$missing; run as root or: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "install-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# promtool, which checks the Prometheus text format in the tests, and the Prometheus server
# that serve's live test scrapes it with: Debian ships both only in the prometheus package,
# whose install would start a server as a system service; the two binaries alone (static Go
# programs) are taken from the package into deps/bin.
if [ ! -x "$top/deps/bin/promtool" ] || [ ! -x "$top/deps/bin/prometheus" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/foliostat-promtool.XXXXXX")
	chmod 0777 "$work" # apt-get download runs as _apt where it can
	(cd "$work" && apt-get download prometheus >apt.log 2>&1 ||
		{ apt-get update -qq && apt-get download prometheus >apt.log 2>&1; }) ||
		{ cat "$work/apt.log" >&2; rm -rf "$work"; echo "install-deps: could not download Debian's prometheus package (for promtool)" >&2; exit 1; }
	mkdir -p "$top/deps/bin"
	for bin in promtool prometheus; do
		dpkg-deb --fsys-tarfile "$work"/prometheus_*.deb | tar -x -O ./usr/bin/$bin >"$work/$bin"
		chmod 0755 "$work/$bin"
		mv "$work/$bin" "$top/deps/bin/$bin"
	done
	rm -rf "$work"
fi
exec "$top/scripts/build-libperf.sh"
