#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what foliostat needs on Debian 12: the libraries from Debian, libperf built from
# Debian's kernel source package. Safe to run again: it installs only what is missing.
#   install-deps.sh        what building and running needs (make deps, make run)
#   install-deps.sh test   and what the tests need besides (make check)
#   install-deps.sh test-size   what that would download, nothing installed
# clang compiles the BPF fault path's programs; libmicrohttpd is serve's HTTP server.
# For the tests: cmocka (unit), tmux (TUI), jq, perl, strace, time, linux-perf (the truth
# live tests compare with), clang's fuzzing runtime, scipy (the statistics' reference),
# the Prometheus client and server, Chromium (HTML compare screenshots), libc6-dbg
# (libc's source lines in a compressed debug file: test_symtab reads them), curl, llvm
# (llvm-objdump: the BPF programs' stack along their calls, check-bpf-stack.py).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
run_pkgs="gcc make pkg-config libtraceevent-dev libtracefs-dev libcjson-dev libncurses-dev
libdeflate-dev xz-utils binutils clang libgsl-dev libdw-dev libelf-dev libbpf-dev bpftool
libmicrohttpd-dev procps"
test_pkgs="libcmocka-dev tmux perl linux-perf jq time libclang-rt-14-dev python3-scipy
bash-completion strace python3-prometheus-client chromium fonts-liberation libc6-dbg curl llvm"
case "${1:-run}" in
run) pkgs=$run_pkgs ;;
test | test-size) pkgs="$run_pkgs $test_pkgs" ;;
*) echo "usage: install-deps.sh [run|test|test-size]" >&2; exit 2 ;;
esac

# Where a package is in no configured source: Debian 12's bookworm-updates and
# bookworm-security carry what its first release did not (linux-source-6.12); a minimal
# debootstrap or some cloud images list only bookworm. apt's own "Unable to locate
# package" says nothing of that.
no_source() { # PKG...
	echo "install-deps: no configured apt source has:$*" >&2
	echo "install-deps: Debian 12 needs its updates and security suites too; add to /etc/apt/sources.list:" >&2
	echo "  deb http://deb.debian.org/debian bookworm-updates main" >&2
	echo "  deb http://deb.debian.org/debian-security bookworm-security main" >&2
	echo "install-deps: then run 'make deps' again" >&2
	exit 1
}
# The packages of $* that apt cannot find in its lists (after one update).
unknown() {
	local p out=
	for p in "$@"; do
		apt-cache show "$p" >/dev/null 2>&1 || out="$out $p"
	done
	echo "$out"
}

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# test-size: what installing the missing ones would download (apt's count), nothing installed.
if [ "${1:-run}" = test-size ]; then
	[ "$(id -u)" -ne 0 ] || apt-get update -qq
	# The prometheus package, for its two binaries (below), unless they are here.
	prom=0
	[ -x "$top/deps/bin/promtool" ] || prom=$(apt-cache show prometheus 2>/dev/null | awk '/^Size:/ { print $2; exit }')
	# shellcheck disable=SC2086
	{ [ -z "$missing" ] || apt-get install -y --no-install-recommends --print-uris -qq $missing; } |
		awk -v prom="${prom:-0}" '{ s += $3 } END { printf "%.0f MB in %d packages\n", (s + prom) / 1048576, NR + (prom > 0) }'
	exit 0
fi
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing Debian packages:$missing; run as root or: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "install-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	lost=$(unknown $missing)
	[ -z "$lost" ] || no_source $lost
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ "${1:-run}" = test ] || exec "$top/scripts/build-libperf.sh"
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
