# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the x86-64 check-kernels scripts: what they install, and the kernel package a
# Debian metapackage (linux-image-cloud-amd64...) depends on, downloaded from Debian's
# archive and unpacked.

# kernel_package META DIR: unpacks it into DIR/PACKAGE and prints PACKAGE; status 1, with
# the reason on stderr, when META names none or it cannot be downloaded.
kernel_package() {
	local meta=$1 dir=$2 pkg
	pkg=$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
	if [ -z "$pkg" ]; then
		apt-get update -qq
		pkg=$(apt-cache depends "$meta" | awk '/Depends: linux-image-/ {print $2; exit}')
	fi
	[ -n "$pkg" ] || { echo "$meta names no kernel package" >&2; return 1; }
	(cd "$dir" && apt-get download "$pkg" >/dev/null 2>&1) || { echo "cannot download $pkg" >&2; return 1; }
	mkdir -p "$dir/$pkg"
	dpkg-deb -x "$dir/$pkg"_*.deb "$dir/$pkg"
	echo "$pkg"
}

# install_missing NAME PACKAGE...: installs those of Debian's packages that are not, saying
# so as NAME.
install_missing() {
	local name=$1 p need=
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
	done
	[ -n "$need" ] || return 0
	[ "$(id -u)" -eq 0 ] || { echo "$name: missing:$need; run as root or: sudo apt-get install$need" >&2; return 1; }
	echo "$name: installing$need"
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
}
