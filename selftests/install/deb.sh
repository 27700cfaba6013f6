#!/usr/bin/env bash
# The Debian packages in the VM, as an administrator meets them (`make deb`
# built them on the host into build/deb/):
#   - `apt-get install ./rnbd-cxx-dkms_<v>_all.deb ./rnbdctl_<v>_amd64.deb`
#     succeeds: dh_dkms's postinst (dkms's common.postinst) adds
#     rnbd-cxx/<v>, installs the four modules for the running kernel under
#     /lib/modules/<kver>/updates/dkms/ (depmod), and for the newest kernel
#     it finds, here a stand-in 6.99.0-1-amd64 with "headers" (an empty
#     build/include: a build attempt would fail at once), says "Skipped."
#     (BUILD_EXCLUSIVE_KERNEL) instead of failing apt;
#   - modinfo -n points there, modprobe rnbd_server / rnbd_client load them
#     with rtrs_server / rtrs_client;
#   - rnbdctl runs, the units, the udev rules + helper (as
#     make-install-udev.sh uses them, with Debian's paths), the man pages
#     and the modprobe.d conffile are in place; no unit is enabled;
#   - the kernel hook of a new kernel's headers (/etc/kernel/
#     header_postinst.d/dkms, i.e. `dkms autoinstall`) exits 0 for 6.99 and
#     builds nothing there, and for the running kernel (its modules
#     uninstalled first) installs them again;
#   - after the administrator's traces (an edited conffile, `rnbdctl save`,
#     `systemctl enable rnbd-maps.service`), `apt-get purge` of both leaves
#     nothing: no file of either package, no /usr/src/rnbd-cxx-*, no
#     /var/lib/dkms/rnbd-cxx, no module under updates/dkms/, modules.dep
#     names none, no unit link or state, no /etc/rnbd; dkms status empty.
#
# The build: as selftests/install/dkms.sh. By default the modules this tree
# built for the running kernel (`make`) are laid where dkms's common.postinst
# looks for a prebuilt DKMS tarball (/usr/share/rnbd-cxx-dkms/
# rnbd-cxx-<v>.dkms.tar.gz: `dkms ldtarball` instead of a build, how
# prebuilt DKMS packages ship), with the package's own source tree, so the
# install, modprobe, hook and purge paths take minutes; with DKMS_BUILD=1
# the postinst builds in the VM (the tree's `make modules` with its gates;
# about half an hour under TCG). The package's DKMS build itself is also
# tested on the host (tools/tests/deb-packages.sh with DKMS_BUILD=1).
# The host's other kernels are hidden from the postinst (a tmpfs on /boot
# holding only the stand-in's config): it would build for the newest one.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-dkms-modules.sh"
require_root
cd "$(dirname "$0")/../.."
for t in dkms apt-get dpkg-deb; do command -v $t >/dev/null || tap_skip_all "no $t"; done
kver=$(uname -r)
arch=$(uname -m)
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' dkms.conf)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
debs=${DEB_DIR:-build/deb}
dkms_deb=$debs/${name}-dkms_${version}_all.deb
ctl_deb=$debs/rnbdctl_${version}_amd64.deb
headers=/usr/src/linux-headers-$kver
newer=6.99.0-1-amd64
[ -f "$dkms_deb" ] && [ -f "$ctl_deb" ] || tap_skip_all "no $dkms_deb or $ctl_deb (make deb)"
[ -f "$headers/Makefile" ] || tap_skip_all "no $headers"
[ "$(dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - "./usr/src/$name-$version/dkms.conf")" = "$(cat dkms.conf)" ] ||
    tap_skip_all "$dkms_deb is not this tree's (its dkms.conf differs): make deb"
dpkg-query -W -f '${Status}' linux-headers-amd64 2>/dev/null | grep -q 'ok installed' ||
    tap_skip_all "linux-headers-amd64 is not installed (the DKMS package's dependency; tools/setup.sh installs it)"
if [ "${DKMS_BUILD:-0}" != 1 ]; then
    [ "$(modinfo -F vermagic rnbd/rnbd-client.ko 2>/dev/null | cut -d' ' -f1)" = "$kver" ] ||
        tap_skip_all "rnbd/rnbd-client.ko is not built for $kver (make), and DKMS_BUILD is not 1"
fi
for p in rnbdctl "$name-dkms"; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && tap_skip_all "$p is already installed on this root"
done
dkms status "$name" 2>/dev/null | grep -q . && tap_skip_all "$name is already known to dkms on this root"
tmp=$(mktemp -d /tmp/rnbd-deb.XXXXXX)
# /etc/rnbd may be an earlier test's (make-install-udev.sh's rnbdctl save).
etc_rnbd_before=; [ -e /etc/rnbd ] && etc_rnbd_before=yes
tarball_root=/usr/share/$name-dkms
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -q --no-install-recommends -o Dpkg::Use-Pty=0)
cleanup() {
    for m in rnbd_client rtrs_client rnbd_server rtrs_server; do mod_loaded $m && rmmod $m; done
    dpkg-query -W -f '${Status}' rnbdctl "$name-dkms" 2>/dev/null | grep -q installed &&
        apt-get purge "${apt_opts[@]}" rnbdctl "$name-dkms" >/dev/null 2>&1
    rm -rf "$tarball_root" "/lib/modules/$newer" "$tmp"
    mountpoint -q /boot && umount /boot
}
trap cleanup EXIT

# dkms uses <(...), which needs /dev/fd (the test VM's devtmpfs has none).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# dkms builds against /lib/modules/<kver>/build, which Debian's headers
# package provides; the VM's module tree is the unpacked image's (no link).
[ -e "/lib/modules/$kver/build" ] || ln -s "$headers" "/lib/modules/$kver/build"
# The stand-in newer kernel, the only one the postinst's /boot shows.
mkdir -p "/lib/modules/$newer/build/include" "$tmp/boot"
cp "/lib/modules/$kver/build/.config" "$tmp/boot/config-$newer" 2>/dev/null || echo "# stand-in" > "$tmp/boot/config-$newer"
mount --bind "$tmp/boot" /boot

if [ "${DKMS_BUILD:-0}" != 1 ]; then
    prebuilt() {
        local t=$tmp/tarball
        mkdir -p "$t/dkms_main_tree/$kver/$arch/module" "$t/dkms_main_tree/$kver/$arch/log" "$tmp/pkg"
        dpkg-deb -x "$dkms_deb" "$tmp/pkg" && cp -a "$tmp/pkg/usr/src/$name-$version" "$t/dkms_source_tree" || return 1
        cp rtrs/rtrs-client.ko rtrs/rtrs-server.ko rnbd/rnbd-client.ko rnbd/rnbd-server.ko "$t/dkms_main_tree/$kver/$arch/module/"
        echo "prebuilt by 'make' in $(pwd)" > "$t/dkms_main_tree/$kver/$arch/log/make.log"
        mkdir -p "$tarball_root" && tar -C "$t" -czf "$tarball_root/$name-$version.dkms.tar.gz" .
    }
    check "a prebuilt DKMS tarball (this tree's modules for $kver, the package's source) where common.postinst loads one" prebuilt
else
    diag "DKMS_BUILD=1: the postinst builds for $kver in the VM"
fi

start=$SECONDS
installed() {
    # (every dependency is installed: apt only copies the two files in)
    apt-get install "${apt_opts[@]}" "./$dkms_deb" "./$ctl_deb" > "$tmp/install.out" 2>&1 ||
        { sed 's/^/#   /' "$tmp/install.out" | tail -40; return 1; }
}
must "apt-get install ./${name}-dkms_${version}_all.deb ./rnbdctl_${version}_amd64.deb" installed
diag "apt-get install took $((SECONDS - start)) s"
grep -E "Building|Skipped|Loading|Done|$newer" "$tmp/install.out" | head -20 | sed 's/^/#   /'
# (dkms status -k KVER also lists the module as "added" where it is not built)
built_for() { dkms status "$name/$version" -k "$1" 2>/dev/null | grep -q "$1"; }
rm -rf "$tarball_root"
check "the postinst installed the modules for $kver (dkms status)" \
    sh -c "dkms status '$name/$version' -k '$kver' | grep -q ': installed'"
skipped() {
    grep -q "Building initial module for $newer" "$tmp/install.out" && grep -qx 'Skipped.' "$tmp/install.out" &&
        ! built_for "$newer"
}
check "... and skipped $newer (BUILD_EXCLUSIVE_KERNEL: 'Skipped.', nothing built)" skipped
check_dkms_modules "$kver"

# rnbdctl's package: what make-install-udev.sh uses, in Debian's places.
check "rnbdctl --version runs (/usr/sbin/rnbdctl)" sh -c "/usr/sbin/rnbdctl --version | grep -q '^rnbdctl $version '"
in_place() {
    local f
    for f in /lib/systemd/system/rnbd-maps.service /lib/systemd/system/rnbd-exports.service \
        /lib/systemd/system/rnbd-metrics.service /lib/systemd/system/rnbd-metrics.timer \
        /lib/udev/rules.d/60-rnbd.rules /etc/modprobe.d/rnbd.conf /usr/share/bash-completion/completions/rnbdctl; do
        [ -f "$f" ] || { diag "missing $f"; return 1; }
    done
    [ -x /lib/udev/rnbd_id ] && [ -x /usr/lib/rnbd-cxx/rnbd-textfile ] || { diag "helpers missing"; return 1; }
    grep -qx 'ExecStart=/usr/sbin/rnbdctl restore' /lib/systemd/system/rnbd-maps.service &&
        grep -qx 'ExecStop=/usr/sbin/rnbdctl unmap --all' /lib/systemd/system/rnbd-maps.service &&
        grep -qx 'ExecStart=/usr/sbin/rnbdctl server restore' /lib/systemd/system/rnbd-exports.service &&
        grep -q 'IMPORT{program}="/lib/udev/rnbd_id %p"' /lib/udev/rules.d/60-rnbd.rules
}
check "units (rnbd-maps, rnbd-exports, rnbd-metrics), udev rules + rnbd_id, rnbd-textfile, modprobe.d template, bash completion in place, naming /usr/sbin/rnbdctl and /lib/udev/rnbd_id" in_place
check "the man pages: man -w rnbdctl and rnbd-client(4)" sh -c "
    man -w rnbdctl | grep -q '/usr/share/man/man8/rnbdctl.8' && man -w 4 rnbd-client | grep -q '/usr/share/man/man4/rnbd-client.4'"
check "/etc/modprobe.d/rnbd.conf is rnbdctl's conffile" sh -c "dpkg-query -W -f '\${Conffiles}' rnbdctl | grep -q '/etc/modprobe.d/rnbd.conf'"
check "no unit enabled by the installation" sh -c "! ls /etc/systemd/system/*.wants/rnbd-* 2>/dev/null | grep -q ."
if command -v systemd-analyze > /dev/null; then
    verified() {
        SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no /lib/systemd/system/rnbd-maps.service \
            /lib/systemd/system/rnbd-exports.service /lib/systemd/system/rnbd-metrics.service /lib/systemd/system/rnbd-metrics.timer > "$tmp/verify" 2>&1 ||
            { sed 's/^/#   /' "$tmp/verify"; return 1; }
        ! grep -v -e 'rdma-hw.target' -e 'rdma-load-modules' "$tmp/verify" | grep -q . || { sed 's/^/#   /' "$tmp/verify"; return 1; }
    }
    check "systemd-analyze verify: the installed units are clean" verified
fi

# The kernel hooks (what a kernel's or its headers' package runs).
hook_newer() {
    /etc/kernel/header_postinst.d/dkms "$newer" > "$tmp/hook.out" 2>&1 || { sed 's/^/#   /' "$tmp/hook.out"; return 1; }
    sed 's/^/#   /' "$tmp/hook.out"
    ! built_for "$newer"
}
check "header_postinst.d/dkms $newer (dkms autoinstall): exit 0, nothing built (AUTOINSTALL off for it)" hook_newer
hook_running() {
    dkms uninstall "$name/$version" -k "$kver" > "$tmp/uninstall.out" 2>&1 || { sed 's/^/#   /' "$tmp/uninstall.out"; return 1; }
    dkms status "$name/$version" -k "$kver" | grep -q ': built' || { diag "$(dkms status "$name")"; return 1; }
    /etc/kernel/header_postinst.d/dkms "$kver" > "$tmp/hook.out" 2>&1 || { sed 's/^/#   /' "$tmp/hook.out"; return 1; }
    dkms status "$name/$version" -k "$kver" | grep -q ': installed' && modinfo -n rnbd_client | grep -q "/updates/dkms/"
}
check "header_postinst.d/dkms $kver after dkms uninstall: installed again (AUTOINSTALL on)" hook_running

# The administrator's traces, then purge.
traces() {
    [ -f /etc/modprobe.d/rnbd.conf ] && echo "options rnbd_client control_timeout_ms=120000" >> /etc/modprobe.d/rnbd.conf &&
        modprobe rnbd_client || return 1
    /usr/sbin/rnbdctl save > "$tmp/save.out" 2>&1; local rc=$?
    modprobe -r rnbd_client || return 1
    [ $rc = 0 ] && [ -f /etc/rnbd/rnbdtab ] || { sed 's/^/#   /' "$tmp/save.out"; return 1; }
    systemctl enable rnbd-maps.service > "$tmp/enable.out" 2>&1 &&
        [ -L /etc/systemd/system/multi-user.target.wants/rnbd-maps.service ] || { sed 's/^/#   /' "$tmp/enable.out"; return 1; }
}
check "an edited /etc/modprobe.d/rnbd.conf, rnbdctl save (/etc/rnbd/rnbdtab, no mapping), systemctl enable rnbd-maps.service" traces
dpkg-query -L rnbdctl "$name-dkms" 2>/dev/null | sort -u > "$tmp/files"
purged() {
    apt-get purge "${apt_opts[@]}" rnbdctl "$name-dkms" > "$tmp/purge.out" 2>&1 ||
        { sed 's/^/#   /' "$tmp/purge.out" | tail -30; return 1; }
    ! dpkg-query -W -f '${db:Status-Status}\n' rnbdctl "$name-dkms" 2>/dev/null | grep -qv '^not-installed$'
}
check "apt-get purge rnbdctl ${name}-dkms" purged
nothing_left() {
    local f rc=0
    while read -r f; do
        [ -n "$f" ] && [ ! -d "$f" ] && [ -e "$f" ] && { diag "left: $f"; rc=1; }
    done < "$tmp/files"
    for f in /usr/src/$name-* /var/lib/dkms/$name /lib/modules/*/updates/dkms/rnbd-* /lib/modules/*/updates/dkms/rtrs-* \
        /etc/modprobe.d/rnbd.conf /etc/rnbd/rnbdtab /etc/rnbd/rnbdtab~ ${etc_rnbd_before:-/etc/rnbd} /etc/systemd/system/*.wants/rnbd-* \
        /var/lib/systemd/deb-systemd-helper-enabled/*rnbd* /var/lib/systemd/deb-systemd-helper-enabled/*/rnbd-* \
        /lib/systemd/system/rnbd-* /lib/udev/rules.d/60-rnbd.rules /lib/udev/rnbd_id /usr/lib/rnbd-cxx \
        /usr/sbin/rnbdctl /usr/share/man/man8/rnbdctl.8.gz /usr/share/man/man4/rnbd-client.4.gz "$tarball_root"; do
        [ -e "$f" ] || [ -L "$f" ] && { diag "left: $f"; rc=1; }
    done
    return $rc
}
check "nothing left: the packages' files, /usr/src/$name-*, dkms's tree, modules, conffile, /etc/rnbd, unit links and state" nothing_left
check "dkms status knows no $name; modinfo finds no rnbd_client; modules.dep names none" sh -c "
    [ -z \"\$(dkms status '$name' 2>/dev/null)\" ] && ! modinfo -n rnbd_client >/dev/null 2>&1 &&
    ! grep -qE '(rnbd|rtrs)-(client|server)' /lib/modules/$kver/modules.dep"
tap_done
