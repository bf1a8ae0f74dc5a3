#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build libperf and libapi from Debian's linux-source-6.12 package into deps/libperf.
# Debian ships no libperf package; the kernel's tools/lib/perf is the upstream source.
# Idempotent: a stamp records which source package version was built; a matching stamp
# and present libraries mean there is nothing to do.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# CROSS=arm64: the same libraries for arm64, with the aarch64 cross compiler, into
# deps/libperf-arm64 (scripts/check-kernels-arm64.sh).
cross=${CROSS:-}
dest="$top/deps/libperf${cross:+-$cross}"
series=6.12
pkg="linux-source-$series"
stamp="$dest/.stamp"

die() { echo "build-libperf: $*" >&2; exit 1; }

if [ -f "$stamp" ] && [ -f "$dest/lib/libperf.a" ] && [ -f "$dest/lib/libapi.a" ]; then
	exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: this script needs Debian (or build tools/lib/perf of a $series kernel by hand into $dest)"

work=$(mktemp -d "${TMPDIR:-/tmp}/foliostat-libperf.XXXXXX")
trap 'rm -rf "$work"' EXIT

cd "$work"
# The package's source tarball: installed (a package build has linux-source-6.12 among
# its Build-Depends), or downloaded from Debian's archive.
if [ -f "/usr/src/$pkg.tar.xz" ] && version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null); then
	from="/usr/src/$pkg.tar.xz"
	tarball() { cat "$from"; }
else
	# apt-get download runs as _apt when it can; a private world-writable dir avoids its warning.
	chmod 0777 "$work"
	if ! apt-get download "$pkg" >apt.log 2>&1; then
		if ! { apt-get update -qq >>apt.log 2>&1 && apt-get download "$pkg" >>apt.log 2>&1; }; then
			cat apt.log >&2
			apt-cache show "$pkg" >/dev/null 2>&1 ||
				die "no configured apt source has $pkg: Debian 12 carries it in bookworm-updates and bookworm-security; add to /etc/apt/sources.list:
  deb http://deb.debian.org/debian bookworm-updates main
  deb http://deb.debian.org/debian-security bookworm-security main
then run 'make deps' again"
			die "could not download $pkg from Debian's archive: check network access and apt sources"
		fi
	fi
	from=$(ls "$pkg"_*.deb 2>/dev/null | head -n 1)
	[ -n "$from" ] || die "apt-get download left no $pkg .deb"
	version=$(dpkg-deb -f "$from" Version)
	tarball() { dpkg-deb --fsys-tarfile "$from" | tar -x -O "./usr/src/$pkg.tar.xz"; }
fi
case "$version" in
$series.*) ;;
*) die "$pkg has version $version, expected $series.x" ;;
esac

# Only the parts of the tree libperf's build reads; the whole tree is ~1.5 GB unpacked.
tarball | tar -xJ "$pkg/tools/lib" "$pkg/tools/include" "$pkg/tools/build" "$pkg/tools/scripts" \
	"$pkg/tools/arch" "$pkg/include/uapi" "$pkg/arch/x86/include/uapi" \
	"$pkg/arch/arm64/include/uapi" "$pkg/scripts" \
	"$pkg/Makefile" ||
	die "could not unpack the kernel sources from $from"

src="$work/$pkg/tools/lib"
[ -f "$src/perf/Makefile" ] || die "$from holds no tools/lib/perf"
set --
[ -z "$cross" ] || set -- ARCH="$cross" CROSS_COMPILE=aarch64-linux-gnu-
make -s -C "$src/perf" -j"$(nproc)" prefix="$work/inst" libdir="$work/inst/lib" "$@" \
	install_lib install_headers >build.log 2>&1 || { tail -n 30 build.log >&2; die "libperf build failed (log above)"; }
[ -f "$src/api/libapi.a" ] || die "libapi.a was not built beside libperf"

# Check what we link against: the entry points foliostat uses must be there.
for sym in perf_evlist__open perf_evlist__mmap perf_mmap__read_event perf_evsel__read; do
	nm "$work/inst/lib/libperf.a" 2>/dev/null | grep -q " T $sym\$" || die "libperf.a lacks $sym"
done
nm "$src/api/libapi.a" | grep -q " T fdarray__poll\$" || die "libapi.a lacks fdarray__poll"

rm -rf "$dest"
mkdir -p "$dest/lib" "$dest/include" "$dest/doc"
cp -a "$work/inst/include/." "$dest/include/"
cp "$work/inst/lib/libperf.a" "$src/api/libapi.a" "$dest/lib/"
cp -a "$src/perf/Documentation/." "$dest/doc/"
echo "$pkg $version" >"$stamp"
echo "build-libperf: built libperf from $pkg $version into $dest"
