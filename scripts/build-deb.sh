#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make deb: foliostat_VERSION_ARCH.deb from debian/, built with dpkg-buildpackage in a copy
# of the tree (debian/rules clean would empty this one's build), then checked: lintian
# with no error and no warning, the service unit by systemd-analyze verify. Installs the
# build's tools first (debhelper, lintian, and linux-source-6.12, which libperf is built
# from). The .deb is left here.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
arch=$(dpkg --print-architecture)
. "$top/scripts/apt.sh"
install_missing "make deb" build-essential debhelper dpkg-dev fakeroot lintian linux-source-6.12 systemd

work=$(mktemp -d "${TMPDIR:-/tmp}/foliostat-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/foliostat-$version
mkdir -p "$src"
# The files git keeps or would, as they are in the tree (changes not yet committed too).
git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$src"
(cd "$src" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
	{ tail -n 40 "$work/build.log" >&2; echo "make deb: dpkg-buildpackage failed (above)" >&2; exit 1; }
deb=$work/foliostat_${version}_$arch.deb
[ -f "$deb" ] || { echo "make deb: no $deb was built" >&2; exit 1; }

# lintian: no error, no warning (overrides in debian/ say why where there are any).
if ! lintian --fail-on error,warning --no-tag-display-limit "$deb" "$work"/foliostat_*.changes >"$work/lintian.log" 2>&1; then
	cat "$work/lintian.log" >&2
	echo "make deb: lintian found errors or warnings (above)" >&2
	exit 1
fi
# The unit as installed, its ExecStart pointed at the package's binary unpacked here.
mkdir "$work/x"
dpkg-deb -x "$deb" "$work/x"
unit=$work/foliostat-serve.service
sed "s|/usr/bin/foliostat|$work/x/usr/bin/foliostat|" "$work/x/lib/systemd/system/foliostat-serve.service" >"$unit"
systemd-analyze verify --man=no "$unit"
cp "$deb" "$top/"
echo "make deb: $(basename "$deb") ($(du -k "$deb" | cut -f1) kB), lintian clean, unit verified"
