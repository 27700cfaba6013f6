#!/usr/bin/env bash
# Host test of the packaging (packaging/, dkms.conf, `make install`,
# `make uninstall`, `make dkms`) into a DESTDIR, never onto this machine:
#   - install places the four modules under lib/modules/<kver>/updates/,
#     the udev rules and helper, the systemd units (rnbd-maps, rnbd-exports,
#     rnbd-metrics), the metrics writer, the man pages, rnbdctl (stripped;
#     INSTALL_STRIP=0: as built) and its bash completion, the modprobe.d
#     template; no @NAME@ is left unsubstituted; the manifest lists exactly
#     the files placed;
#   - installing again changes nothing; a module built for another kernel
#     is refused and nothing is placed; so is a tree without rnbdctl;
#   - a package's staging (INSTALL_MODULES=0 INSTALL_MANIFEST=0): no
#     module, no manifest, the rest as usual; no manifest without DESTDIR
#     is refused;
#   - an administrator's own modprobe.d file is kept and not recorded; an
#     edited template survives uninstall;
#   - uninstall leaves nothing (no file, no directory install created);
#   - the udev helper's names; the metrics writer's atomic replace;
#   - systemd-analyze verify on the units (when available);
#   - every module parameter is in its man page and in the template;
#     dkms.conf's version is the modules' MODULE_VERSION; `make dkms` places
#     a source tree without build products.
# TAP; exit 1 if any check fails. Needs the modules and rnbdctl built
# (`make`), else SKIP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. selftests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH=$PATH:/usr/sbin:/sbin

modules="rtrs/rtrs-client.ko rtrs/rtrs-server.ko rnbd/rnbd-client.ko rnbd/rnbd-server.ko"
for ko in $modules; do [ -f "$ko" ] || tap_skip_all "$ko not built (make)"; done
[ -x build/rnbdctl/rnbdctl ] || tap_skip_all "build/rnbdctl/rnbdctl not built (make)"
kver=$(modinfo -F vermagic rnbd/rnbd-client.ko | cut -d' ' -f1)
root=$tmp/root
inst() { make -s install DESTDIR="$root" KVER="$kver" "$@" > "$tmp/out" 2>&1; }
uninst() { make -s uninstall DESTDIR="$root" "$@" > "$tmp/out" 2>&1; }
manifest=$root/usr/local/share/rnbd-cxx/install-manifest
# files in the manifest (f and c entries), sorted; files under $root, sorted
manifest_files() { awk '$1 == "f" { print $2 } $1 == "c" { print $3 }' "$manifest" | sort; }
tree_files() { (cd "$root" && find . -type f ! -path ./usr/local/share/rnbd-cxx/install-manifest | sed 's,^\.,,' | sort); }

check "make install DESTDIR=... succeeds" inst
[ -s "$tmp/out" ] && sed 's/^/#   /' "$tmp/out"
placed() {
    local ko f
    for ko in $modules; do cmp -s "$ko" "$root/lib/modules/$kver/updates/rnbd-cxx/$(basename "$ko")" || return 1; done
    for f in usr/local/lib/udev/rules.d/60-rnbd.rules usr/local/lib/systemd/system/rnbd-maps.service \
        usr/local/lib/systemd/system/rnbd-exports.service usr/local/lib/systemd/system/rnbd-metrics.service \
        usr/local/lib/systemd/system/rnbd-metrics.timer etc/modprobe.d/rnbd.conf; do
        [ -f "$root/$f" ] || { diag "missing /$f"; return 1; }
    done
    for f in usr/local/lib/udev/rnbd_id usr/local/lib/rnbd-cxx/rnbd-textfile; do
        [ -x "$root/$f" ] || { diag "missing or not executable /$f"; return 1; }
    done
    for f in Documentation/man/*.4; do
        cmp -s "$f" "$root/usr/local/share/man/man4/$(basename "$f")" || { diag "man page $f"; return 1; }
    done
}
check "modules under /lib/modules/$kver/updates/rnbd-cxx/, udev rules, units, helpers, man pages, modprobe.d template" placed
stripped() {
    strip -o "$tmp/rnbdctl.stripped" build/rnbdctl/rnbdctl || return 1
    local sections; sections=$(readelf -S build/rnbdctl/rnbdctl) || return 1
    grep -q '\.symtab' <<< "$sections" || { diag "the build's rnbdctl has no symbols"; return 1; }
    cmp -s "$tmp/rnbdctl.stripped" "$root/usr/local/sbin/rnbdctl" && [ -x "$root/usr/local/sbin/rnbdctl" ]
}
check "rnbdctl in /usr/local/sbin, stripped (the build's copy keeps its symbols)" stripped
check "rnbdctl.8 in man8" test -f "$root/usr/local/share/man/man8/rnbdctl.8"
check "rnbdctl's bash completion in /usr/share/bash-completion/completions" \
    cmp -s tools/rnbdctl/rnbdctl.bash-completion "$root/usr/share/bash-completion/completions/rnbdctl"
check "no @NAME@ left in the installed text files" sh -c "! grep -rl '@[A-Z]*DIR@' '$root'"
check "the units run /usr/local/sbin/rnbdctl (rnbd-maps, rnbd-exports) and the helpers from /usr/local/lib" sh -c "
    grep -qx 'ExecStart=/usr/local/sbin/rnbdctl restore' '$root/usr/local/lib/systemd/system/rnbd-maps.service' &&
    grep -qx 'ExecStop=/usr/local/sbin/rnbdctl unmap --all' '$root/usr/local/lib/systemd/system/rnbd-maps.service' &&
    grep -qx 'ExecStart=/usr/local/sbin/rnbdctl server restore' '$root/usr/local/lib/systemd/system/rnbd-exports.service' &&
    grep -qx 'ExecReload=/usr/local/sbin/rnbdctl server restore --replace' '$root/usr/local/lib/systemd/system/rnbd-exports.service' &&
    grep -qx 'ExecStop=/usr/local/sbin/rnbdctl server export remove --all' '$root/usr/local/lib/systemd/system/rnbd-exports.service' &&
    grep -qx 'ConditionPathExists=/etc/rnbd/exports' '$root/usr/local/lib/systemd/system/rnbd-exports.service' &&
    grep -qx 'ExecStartPre=/sbin/modprobe rnbd_server exports_only=Y' '$root/usr/local/lib/systemd/system/rnbd-exports.service' &&
    grep -q '^ExecStart=/usr/local/lib/rnbd-cxx/rnbd-textfile ' '$root/usr/local/lib/systemd/system/rnbd-metrics.service' &&
    grep -q 'IMPORT{program}=\"/usr/local/lib/udev/rnbd_id %p\"' '$root/usr/local/lib/udev/rules.d/60-rnbd.rules'"
check "rnbd-maps.service stops after blk-availability.service (LVM/MD on RNBD deactivated before unmap --all)" \
    grep -qE '^Before=.*[[:space:]=]blk-availability\.service([[:space:]]|$)' \
    "$root/usr/local/lib/systemd/system/rnbd-maps.service"
check "rnbd-maps.service starts after rnbd-exports.service (a client and server maps its own exports once restored)" \
    grep -qE '^After=.*[[:space:]=]rnbd-exports\.service([[:space:]]|$)' \
    "$root/usr/local/lib/systemd/system/rnbd-maps.service"
check "every line of the modprobe.d template is a comment" sh -c "! grep -vE '^(#|$)' '$root/etc/modprobe.d/rnbd.conf'"
check "DESTDIR: depmod not run (no modules.dep placed)" test ! -e "$root/lib/modules/$kver/modules.dep"
same_lists() { [ "$(manifest_files)" = "$(tree_files)" ] || { diff <(manifest_files) <(tree_files) | sed 's/^/#   /'; return 1; }; }
check "the manifest lists exactly the files placed" same_lists
check "the manifest names the kernel for depmod (k $kver)" grep -qx "k $kver" "$manifest"
cp "$manifest" "$tmp/manifest.1"
check "installing again succeeds and leaves the manifest as it was" sh -c "
    make -s install DESTDIR='$root' KVER='$kver' >/dev/null 2>&1 && cmp -s '$manifest' '$tmp/manifest.1'"

# A module for another kernel is refused before anything is placed.
other=$tmp/other
check "KVER other than the modules' vermagic: refused, nothing placed" sh -c "
    ! make -s install DESTDIR='$other' KVER=9.9.9-other > '$tmp/out.other' 2>&1 &&
    grep -q 'built for $kver, not 9.9.9-other' '$tmp/out.other' && [ ! -e '$other' ]"

# A tree whose rnbdctl is not built: install fails, says why, places nothing.
bare=$tmp/bare
mkdir -p "$bare/rtrs" "$bare/rnbd" "$bare/Documentation"
cp -a packaging "$bare/" && cp -a Documentation/man "$bare/Documentation/" && cp rtrs/*.ko "$bare/rtrs/" && cp rnbd/*.ko "$bare/rnbd/"
check "rnbdctl not built: install fails, names it and 'make', places nothing" sh -c "
    ! DESTDIR='$tmp/bare-root' KVER='$kver' '$bare/packaging/install.sh' install > '$tmp/out.bare' 2>&1 &&
    grep -q 'build/rnbdctl/rnbdctl is not built: run .make.' '$tmp/out.bare' && [ ! -e '$tmp/bare-root' ]"
check "INSTALL_MANIFEST=0 without DESTDIR: refused before anything else" sh -c "
    ! INSTALL_MANIFEST=0 KVER='$kver' '$bare/packaging/install.sh' install > '$tmp/out.bare' 2>&1 &&
    grep -q 'INSTALL_MANIFEST=0 is for staging into DESTDIR' '$tmp/out.bare'"

# The administrator's edit of the template survives uninstall.
echo "options rnbd_server port_nr=4321" >> "$root/etc/modprobe.d/rnbd.conf"
check "make uninstall succeeds" uninst
check "an edited modprobe.d/rnbd.conf is kept, and uninstall says so" sh -c "
    grep -q 'port_nr=4321' '$root/etc/modprobe.d/rnbd.conf' && grep -q 'kept /etc/modprobe.d/rnbd.conf' '$tmp/out'"
rm -f "$root/etc/modprobe.d/rnbd.conf"; rmdir "$root/etc/modprobe.d" "$root/etc" 2>/dev/null
left() { [ -z "$(cd "$root" 2>/dev/null && find . -mindepth 1 | head -5)" ] || { (cd "$root" && find . -mindepth 1 | head -20 | sed 's/^/#   left: /'); return 1; }; }
check "uninstall left nothing behind (no file, no directory)" left
check "uninstall again: nothing to do, exit 0" sh -c "make -s uninstall DESTDIR='$root' 2>&1 | grep -q 'nothing to uninstall'"

# An administrator's own modprobe.d file is neither replaced nor recorded.
mkdir -p "$root/etc/modprobe.d" && echo "# mine" > "$root/etc/modprobe.d/rnbd.conf"
own() {
    inst || return 1
    grep -qx "# mine" "$root/etc/modprobe.d/rnbd.conf" && ! grep -q "/etc/modprobe.d/rnbd.conf" "$manifest" &&
        uninst && grep -qx "# mine" "$root/etc/modprobe.d/rnbd.conf" &&
        [ "$(cd "$root" && find . -type f)" = ./etc/modprobe.d/rnbd.conf ] && [ ! -e "$root/usr" ] && [ ! -e "$root/lib" ]
}
check "an existing modprobe.d/rnbd.conf is kept and not recorded; uninstall leaves only it" own
rm -rf "$root"

# PREFIX=/usr and other directories.
prefixed() {
    make -s install DESTDIR="$root" KVER="$kver" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system >/dev/null 2>&1 || return 1
    [ -f "$root/usr/lib/udev/rules.d/60-rnbd.rules" ] && [ -f "$root/lib/systemd/system/rnbd-maps.service" ] &&
        grep -q '/usr/lib/udev/rnbd_id' "$root/usr/lib/udev/rules.d/60-rnbd.rules" &&
        [ -f "$root/usr/share/rnbd-cxx/install-manifest" ] &&
        make -s uninstall DESTDIR="$root" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system >/dev/null 2>&1 &&
        [ -z "$(find "$root" -mindepth 1)" ]
}
check "PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system: placed there, uninstalled completely" prefixed

# A package's staging (debian/rules): no modules, no manifest, rnbdctl unstripped.
staged() {
    make -s install DESTDIR="$root" PREFIX=/usr UDEVDIR=/lib/udev SYSTEMDUNITDIR=/lib/systemd/system \
        INSTALL_MODULES=0 INSTALL_MANIFEST=0 INSTALL_STRIP=0 > "$tmp/out" 2>&1 || { sed 's/^/#   /' "$tmp/out"; return 1; }
    [ ! -e "$root/lib/modules" ] && [ ! -e "$root/usr/share/rnbd-cxx" ] || { diag "modules or manifest placed"; return 1; }
    cmp -s build/rnbdctl/rnbdctl "$root/usr/sbin/rnbdctl" || { diag "rnbdctl is not the build's (unstripped) copy"; return 1; }
    [ -f "$root/lib/udev/rules.d/60-rnbd.rules" ] && [ -x "$root/lib/udev/rnbd_id" ] &&
        [ -f "$root/lib/systemd/system/rnbd-maps.service" ] && [ -x "$root/usr/lib/rnbd-cxx/rnbd-textfile" ] &&
        [ -f "$root/etc/modprobe.d/rnbd.conf" ] && [ -f "$root/usr/share/man/man8/rnbdctl.8" ] &&
        grep -qx 'ExecStart=/usr/sbin/rnbdctl restore' "$root/lib/systemd/system/rnbd-maps.service" &&
        grep -q 'IMPORT{program}="/lib/udev/rnbd_id %p"' "$root/lib/udev/rules.d/60-rnbd.rules" &&
        grep -q 'installed (no modules)' "$tmp/out"
}
check "INSTALL_MODULES=0 INSTALL_MANIFEST=0 INSTALL_STRIP=0 (a package): no module, no manifest, rnbdctl as built, the rest in Debian's places" staged
rm -rf "$root"

# The udev helper.
sysfs=$tmp/sys
disk=$sysfs/devices/virtual/block/rnbd3
mkdir -p "$disk/rnbd" "$disk/rnbd3p2"
echo "sess-1" > "$disk/rnbd/session"; echo "/dev/ram0" > "$disk/rnbd/mapping_path"; echo open > "$disk/rnbd/state"
rnbd_id() { RNBD_SYSFS=$sysfs sh packaging/udev/rnbd_id "$@"; }
check "rnbd_id: a disk's session, path (no leading /) and state" \
    test "$(rnbd_id /devices/virtual/block/rnbd3 | tr '\n' ' ')" = "RNBD_SESSION=sess-1 RNBD_DEVICE_PATH=dev/ram0 RNBD_STATE=open "
check "rnbd_id: a partition reads its disk's" \
    test "$(rnbd_id /devices/virtual/block/rnbd3/rnbd3p2 | head -1)" = "RNBD_SESSION=sess-1"
echo "../../etc/x y//./z/" > "$disk/rnbd/mapping_path"
check "rnbd_id: '..' and '.' components, spaces, repeated '/' cannot leave /dev/rnbd/<session>/" \
    test "$(rnbd_id /devices/virtual/block/rnbd3 | sed -n 's/^RNBD_DEVICE_PATH=//p')" = "_/_/etc/x_y/_/z"
rm -rf "$disk/rnbd"
check "rnbd_id: nothing before rnbd/ exists" test -z "$(rnbd_id /devices/virtual/block/rnbd3)"
echo add > "$disk/rnbd3p2/uevent"
check "rnbd_id --trigger-partitions writes 'change' to each partition's uevent" sh -c "
    RNBD_SYSFS='$sysfs' sh packaging/udev/rnbd_id --trigger-partitions /devices/virtual/block/rnbd3 &&
    [ \"\$(cat '$disk/rnbd3p2/uevent')\" = change ]"

# The metrics writer.
prom=$tmp/textfile
mkdir -p "$prom"
printf '#!/bin/sh\necho "rnbd_up 1"\n' > "$tmp/good"; printf '#!/bin/sh\necho partial; exit 3\n' > "$tmp/bad"
chmod +x "$tmp/good" "$tmp/bad"
check "rnbd-textfile writes DIR/rnbd.prom (0644) and nothing else" sh -c "
    RNBDCTL='$tmp/good' sh packaging/rnbd-textfile '$prom' && [ \"\$(cat '$prom/rnbd.prom')\" = 'rnbd_up 1' ] &&
    [ \"\$(ls -A '$prom')\" = rnbd.prom ] && [ \"\$(stat -c %a '$prom/rnbd.prom')\" = 644 ]"
check "rnbd-textfile: a failing rnbdctl exits non-zero, the previous file stays, no temporary left" sh -c "
    ! RNBDCTL='$tmp/bad' sh packaging/rnbd-textfile '$prom' 2>/dev/null &&
    [ \"\$(cat '$prom/rnbd.prom')\" = 'rnbd_up 1' ] && [ \"\$(ls -A '$prom')\" = rnbd.prom ]"
check "rnbd-textfile: a missing directory is an error" sh -c "! RNBDCTL='$tmp/good' sh packaging/rnbd-textfile '$tmp/none' 2>/dev/null"

# systemd-analyze verify, with the CLI path pointing at a stand-in.
if command -v systemd-analyze >/dev/null; then
    units=$tmp/units
    mkdir -p "$units" "$tmp/bin"
    cp "$tmp/good" "$tmp/bin/rnbdctl"; cp packaging/rnbd-textfile "$tmp/bin/rnbd-textfile"
    for u in packaging/systemd/*; do
        sed -e "s|@SBINDIR@|$tmp/bin|g" -e "s|@PKGLIBDIR@|$tmp/bin|g" -e "s|@SYSCONFDIR@|/etc|g" "$u" > "$units/$(basename "$u")"
    done
    verify() { (cd "$units" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no ./*.service ./*.timer) > "$tmp/verify" 2>&1 ||
        { sed 's/^/#   /' "$tmp/verify"; return 1; }
        ! grep -v -e 'rdma-hw.target' -e 'rdma-load-modules' "$tmp/verify" | grep -q . || { sed 's/^/#   /' "$tmp/verify"; return 1; }; }
    check "systemd-analyze verify: the units are clean" verify
else
    skip "systemd-analyze verify" "no systemd-analyze"
fi

# Module parameters documented; versions agree.
params_documented() {
    local src mod page name rc=0
    for src in rtrs/client/rtrs-clt-mod.c rtrs/server/rtrs-srv-mod.c rnbd/client/rnbd-clt-mod.c rnbd/server/rnbd-srv-mod.c; do
        mod=$(basename "$src" -mod.c); mod=${mod/-clt/-client}; mod=${mod/-srv/-server}
        page=Documentation/man/$mod.4
        [ -f "$page" ] || { diag "no man page $page"; rc=1; continue; }
        for name in $(sed -n 's/^module_param\(_cb\)\?(\([a-z_]*\),.*/\2/p' "$src"); do
            grep -q "^\.BI\? \?R\?\? *$name=" "$page" || grep -q "^\.B[IR]* $name=" "$page" ||
                { diag "$page does not describe $name"; rc=1; }
            grep -q "$name=" packaging/modprobe.d/rnbd.conf || { diag "rnbd.conf template lacks $name"; rc=1; }
        done
    done
    return $rc
}
check "every module parameter has its man page entry and a template line" params_documented
versions() {
    local want got f
    want=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
    for f in rtrs/client/rtrs-clt-mod.c rtrs/server/rtrs-srv-mod.c rnbd/client/rnbd-clt-mod.c rnbd/server/rnbd-srv-mod.c; do
        got=$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' "$f")
        [ "$got" = "$want" ] || { diag "$f: MODULE_VERSION $got, dkms.conf $want"; return 1; }
    done
}
check "dkms.conf's PACKAGE_VERSION is every module's MODULE_VERSION" versions
dkms_tree() {
    local v d
    v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
    make -s dkms DESTDIR="$tmp/dkms" >/dev/null || return 1
    d=$tmp/dkms/usr/src/rnbd-cxx-$v
    for f in dkms.conf Makefile Kbuild tools/check-ko.sh tools/kbuild/cxx.mk rnbd/client/rnbd-clt.cpp; do
        [ -f "$d/$f" ] || { diag "$f missing"; return 1; }
    done
    [ -z "$(find "$d" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name .cache -o -name build \) | head -3)" ]
}
check "make dkms places the source tree (dkms.conf, Makefile, gates) without build products" dkms_tree
tap_done
