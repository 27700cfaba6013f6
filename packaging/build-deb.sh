#!/usr/bin/env bash
# make deb: the Debian packages of debian/ (packaging/README.md, "debian/"),
# built by `dpkg-buildpackage -b -us -uc` in a copy of this tree (the files
# `make dkms` takes, plus debian/), so that neither the tree (whose module
# build and logs dpkg-buildpackage's clean would not touch anyway) nor its
# parent directory (where dpkg-buildpackage writes) changes. Into OUT:
#   rnbd-cxx-dkms_<version>_all.deb      the modules' source, for DKMS
#   rnbdctl_<version>_amd64.deb          the CLI, units, udev, man pages, ...
#   rnbdctl-dbgsym_<version>_amd64.deb   rnbdctl's debug symbols
#   rnbd-cxx_<version>_amd64.{buildinfo,changes}, build.log
# Usage: packaging/build-deb.sh [OUT]       (default build/deb)
# Environment: DEB_BUILD_OPTIONS is passed on (nocheck, noopt, parallel=N);
# KEEP_WORK=1 keeps the copy (OUT/work/).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
die() { echo "deb: error: $*" >&2; exit 1; }
out=$(realpath -m "${1:-build/deb}")
case $out/ in "$top"/debian/*) die "OUT must not be under debian/" ;; esac
for t in dpkg-buildpackage dpkg-parsechangelog dh dh_dkms; do
    command -v $t >/dev/null || die "no $t: apt-get install dpkg-dev debhelper dh-dkms (tools/setup.sh installs them)"
done
name=$(dpkg-parsechangelog -S Source)
version=$(dpkg-parsechangelog -S Version)
dkms_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
# The DKMS tree is /usr/src/rnbd-cxx-<dkms.conf's version>: the package's
# upstream version must be that one.
[ "${version%-*}" = "$dkms_version" ] ||
    die "debian/changelog's version $version is not dkms.conf's PACKAGE_VERSION $dkms_version (add a changelog entry: dch -v $dkms_version)"

# debian/'s own files: git's list in the checkout's top, else every file
# but what a package build leaves there.
debian_files() {
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
        git ls-files -z --cached --others --exclude-standard -- debian
    else
        find debian \( -path debian/tmp -o -path debian/.debhelper -o -path debian/rnbdctl -o -path debian/rnbd-cxx-dkms \
            -o -path 'debian/*-dbgsym' \) -prune -o -type f ! -name files ! -name '*.substvars' ! -name '*.debhelper' \
            ! -name '*.debhelper.log' ! -name debhelper-build-stamp -print0
    fi
}

work=$out/work
src=$work/$name-$version
rm -rf "$work"
mkdir -p "$work"
DESTDIR='' DKMS_SRCDIR=$src packaging/dkms.sh > /dev/null
debian_files | while IFS= read -r -d '' f; do
    mkdir -p "$src/$(dirname "$f")"
    cp -p "$f" "$src/$f"
done
[ -x "$src/debian/rules" ] || die "no debian/rules in the copy"

rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
echo "deb: dpkg-buildpackage -b -us -uc in $src (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/build.log" 2>&1; then
    tail -30 "$out/build.log" >&2
    die "dpkg-buildpackage failed (log: $out/build.log; the copy is kept in $work)"
fi
mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out/"
[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
for deb in "$out"/*.deb; do echo "deb: $deb"; done
