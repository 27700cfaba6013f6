#!/usr/bin/env bash
# DKMS in the VM: `make dkms` places the source tree under
# /usr/src/rnbd-cxx-<version>/, dkms takes it, `dkms install` puts the four
# modules under /lib/modules/<kver>/updates/dkms/ and runs depmod, `modinfo
# -n` points there, `modprobe rnbd_client`/`rnbd_server` load them with
# rtrs, and `dkms remove` takes everything away again (modules, depmod's
# entries, dkms's tree).
#
# The build: with DKMS_BUILD=1, `dkms install` builds in the VM as it would
# on a machine (the tree's own `make modules`, with its gates; about half an
# hour under TCG). By default the modules the tree built for this kernel
# (`make`) are handed to dkms as a prebuilt tarball in mktarball's layout
# (`dkms ldtarball`, how prebuilt DKMS modules are shipped), so that the
# install, modprobe and remove paths are tested in minutes; the DKMS build
# itself is then tested on the host (packaging/test-dkms-build.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-dkms-modules.sh"
require_root
cd "$(dirname "$0")/../.."
command -v dkms >/dev/null || tap_skip_all "no dkms (make setup installs it)"
kver=$(uname -r)
arch=$(uname -m)
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' dkms.conf)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
headers=/usr/src/linux-headers-$kver
[ -f "$headers/Makefile" ] || tap_skip_all "no $headers"
if [ "${DKMS_BUILD:-0}" != 1 ]; then
    [ "$(modinfo -F vermagic rnbd/rnbd-client.ko 2>/dev/null | cut -d' ' -f1)" = "$kver" ] ||
        tap_skip_all "rnbd/rnbd-client.ko is not built for $kver (make), and DKMS_BUILD is not 1"
fi
dkms status "$name" 2>/dev/null | grep -q . && tap_skip_all "$name is already known to dkms on this root"
tmp=$(mktemp -d /tmp/rnbd-dkms.XXXXXX)
cleanup() {
    for m in rnbd_client rtrs_client rnbd_server rtrs_server; do mod_loaded $m && rmmod $m; done
    dkms status "$name" 2>/dev/null | grep -q . && dkms remove "$name/$version" --all >/dev/null 2>&1
    rm -rf "$tmp" "/usr/src/$name-$version"
}
trap cleanup EXIT
tap_plan 10

# dkms uses <(...), which needs /dev/fd (the test VM's devtmpfs has none).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# dkms builds against /lib/modules/<kver>/build, which Debian's headers
# package provides; the VM's module tree is the unpacked image's (no link).
[ -e "/lib/modules/$kver/build" ] || ln -s "$headers" "/lib/modules/$kver/build"
check "make dkms: /usr/src/$name-$version/dkms.conf" sh -c "make -s dkms >/dev/null && test -f /usr/src/$name-$version/dkms.conf"
if [ "${DKMS_BUILD:-0}" = 1 ]; then
    built() {
        dkms add "$name/$version" > "$tmp/add.out" 2>&1 || { sed 's/^/#   /' "$tmp/add.out"; return 1; }
        dkms build "$name/$version" > "$tmp/build.out" 2>&1; local rc=$?
        [ $rc = 0 ] || sed 's/^/#   /' "$tmp/build.out"
        [ $rc = 0 ] || cat "/var/lib/dkms/$name/$version/build/make.log" 2>/dev/null | tail -30 | sed 's/^/#   /'
        return $rc
    }
    check "dkms add + dkms build for $kver (in the VM)" built
else
    loaded_tarball() {
        local t=$tmp/tarball
        mkdir -p "$t/dkms_main_tree/$kver/$arch/module" "$t/dkms_main_tree/$kver/$arch/log"
        cp -a "/usr/src/$name-$version" "$t/dkms_source_tree"
        cp rtrs/rtrs-client.ko rtrs/rtrs-server.ko rnbd/rnbd-client.ko rnbd/rnbd-server.ko "$t/dkms_main_tree/$kver/$arch/module/"
        echo "prebuilt by 'make' in $(pwd)" > "$t/dkms_main_tree/$kver/$arch/log/make.log"
        tar -C "$t" -czf "$tmp/$name-$version-prebuilt.dkms.tar.gz" . &&
            dkms ldtarball "$tmp/$name-$version-prebuilt.dkms.tar.gz" > "$tmp/ld.out" 2>&1 ||
            { sed 's/^/#   /' "$tmp/ld.out"; return 1; }
    }
    check "dkms ldtarball: the source tree and this tree's modules for $kver (DKMS_BUILD=1 builds instead)" loaded_tarball
fi
check "dkms status: built for $kver" sh -c "dkms status '$name/$version' -k '$kver' | grep -q ': built'"
installed() {
    dkms install "$name/$version" -k "$kver" > "$tmp/install.out" 2>&1 || { sed 's/^/#   /' "$tmp/install.out"; return 1; }
    dkms status "$name/$version" -k "$kver" | grep -q ': installed'
}
check "dkms install: installed for $kver" installed
check_dkms_modules "$kver"
removed() {
    dkms remove "$name/$version" --all > "$tmp/remove.out" 2>&1 || { sed 's/^/#   /' "$tmp/remove.out"; return 1; }
    [ -z "$(dkms status "$name" 2>/dev/null)" ] && [ ! -e "/var/lib/dkms/$name" ] && return 0
    sed 's/^/#   /' "$tmp/remove.out"; diag "dkms status: $(dkms status "$name" 2>&1)"
    return 1
}
check "dkms remove --all: dkms no longer knows $name" removed
check "the modules are gone: no updates/dkms/*.ko of ours, modinfo finds none, modules.dep names none" sh -c "
    ! ls /lib/modules/$kver/updates/dkms/rnbd-client.ko* /lib/modules/$kver/updates/dkms/rtrs-server.ko* 2>/dev/null &&
    ! modinfo -n rnbd_client >/dev/null 2>&1 && ! grep -qE '(rnbd|rtrs)-(client|server)' /lib/modules/$kver/modules.dep"
tap_done
