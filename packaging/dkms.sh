#!/usr/bin/env bash
# make dkms: places this source tree where DKMS looks for it,
# $DESTDIR$DKMS_SRCDIR (default /usr/src/rnbd-cxx-<version>), so that
#   dkms install rnbd-cxx/<version>
# builds the modules for the running kernel (and, through dkms's kernel
# hook, for each kernel installed later). The tree is the git checkout's
# files (tracked, plus untracked ones that are not ignored), or without a
# checkout of its own every file but build products, .git, .cache and
# build/; never debian/ (the packaging: debian/rules runs this into its
# staging there). A tree already there is replaced (dkms keeps its own copy
# of what it built).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' dkms.conf)
[ -n "$version" ] && [ -n "$name" ] || { echo "dkms: no PACKAGE_NAME/PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
dest=${DESTDIR:-}${DKMS_SRCDIR:-/usr/src/$name-$version}

list_files() {
    # (git's list only when this tree is the checkout's top, not a copy
    # inside another checkout, such as make deb's under build/)
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
        git ls-files -z --cached --others --exclude-standard -- . ':(exclude)debian'
    else
        find . \( -name .git -o -name .cache -o -path ./build -o -path ./generated -o -path ./debian \) -prune -o -type f \
            ! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' ! -name '*.cmd' ! -name '*.o.d' \
            ! -name Module.symvers ! -name modules.order -print0 | sed -z 's,^\./,,'
    fi
}

tmp=$dest.rnbd-new
rm -rf "$tmp"
mkdir -p "$tmp"
# (links to the shared cache and the like are not part of the source)
list_files | while IFS= read -r -d '' f; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    mkdir -p "$tmp/$(dirname "$f")"
    cp -p "$f" "$tmp/$f"
done
rm -rf "$dest"
mv "$tmp" "$dest"
echo "dkms: source tree at $dest ($(find "$dest" -type f | wc -l) files)"
echo "dkms: now: dkms install $name/$version   (or: dkms add $name/$version && dkms build ... && dkms install ...)"
