# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Sourced by the scripts that need Debian's packages: install_missing, and kernel_package
# for the check-kernels guests (scripts/guest.sh).

# kernel_package META DIR [ARCH]: downloads the kernel package the metapackage META
# (linux-image-cloud-amd64...) depends on, of ARCH (this machine's by default), unpacks
# it into DIR/PACKAGE and prints PACKAGE (without its :ARCH); status 1, with the reason on
# stderr, when META names none or it cannot be downloaded.
kernel_package() {
	local meta=$1 dir=$2 arch=${3:-} pkg
	pkg=$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
	if [ -z "$pkg" ]; then
		apt-get update -qq
		pkg=$(apt-cache depends "$meta" | awk '/Depends: linux-image-/ {print $2; exit}')
	fi
	[ -n "$pkg" ] || { echo "$meta names no kernel package" >&2; return 1; }
	pkg=${pkg%:*}
	(cd "$dir" && apt-get download "$pkg${arch:+:$arch}" >/dev/null 2>&1) ||
		{ echo "cannot download $pkg${arch:+:$arch}" >&2; return 1; }
	mkdir -p "$dir/$pkg"
	dpkg-deb -x "$(ls "$dir/$pkg"_*.deb | head -n 1)" "$dir/$pkg"
	echo "$pkg"
}

# install_missing NAME PACKAGE...: installs those of Debian's packages that are not
# (PACKAGE:ARCH for another architecture's, added to dpkg's first), saying so as NAME.
install_missing() {
	local name=$1 p need=
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
	done
	[ -n "$need" ] || return 0
	[ "$(id -u)" -eq 0 ] || { echo "$name: missing:$need; run as root or: sudo apt-get install$need" >&2; return 1; }
	echo "$name: installing$need"
	for p in $need; do
		case $p in
		*:*) dpkg --print-foreign-architectures | grep -qx "${p#*:}" || dpkg --add-architecture "${p#*:}" ;;
		esac
	done
	apt-get update -qq || return 1
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
}
