#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what foliostat needs on Debian 12: the libraries from Debian, libperf built from
# Debian's kernel source package. Safe to run again: it installs only what is missing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkgs="gcc make pkg-config libtraceevent-dev libtracefs-dev libcjson-dev libncurses-dev
libdeflate-dev libcmocka-dev tmux perl linux-perf xz-utils binutils jq time
clang libclang-rt-14-dev libgsl-dev python3-scipy bash-completion procps strace
libdw-dev libelf-dev python3-prometheus-client"

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
exec "$top/scripts/build-libperf.sh"
