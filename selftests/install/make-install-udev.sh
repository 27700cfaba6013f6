#!/usr/bin/env bash
# The installed product in the VM, as an administrator meets it:
#   - `make install` (no DESTDIR): the modules land under
#     /lib/modules/<kver>/updates/rnbd-cxx/, depmod knows them, `modinfo -n`
#     points there, `modprobe rnbd_server`/`rnbd_client` pull in
#     rtrs-server/rtrs-client by themselves;
#   - the installed udev rules, run by a systemd-udevd started here (the
#     test VM has none): /dev/rnbd/<session>/<device_path> for the mapped
#     disk, and after sfdisk + mkfs on it /dev/rnbd/<session>/<path>-part1,
#     /dev/disk/by-uuid, by-label, by-partuuid and by-partlabel links; the
#     links go with the unmap and come back, same UUID, when mapped again
#     (the partition's names too, though the partition was announced before
#     the disk's rnbd/ existed); the filesystem is intact;
#   - `make uninstall`: every file of the manifest gone, modprobe no longer
#     finds the modules, depmod's files no longer name them.
# Our modules must be built for the running kernel, and rnbdctl (`make`).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
kver=$(uname -r)
for t in udevadm sfdisk mkfs.ext4 blkid depmod; do command -v $t >/dev/null || tap_skip_all "no $t"; done
udevd=$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)
[ -x "$udevd" ] || tap_skip_all "no systemd-udevd"
[ "$(modinfo -F vermagic rnbd/rnbd-client.ko 2>/dev/null | cut -d' ' -f1)" = "$kver" ] ||
    tap_skip_all "rnbd/rnbd-client.ko is not built for $kver (make)"
[ -x build/rnbdctl/rnbdctl ] || tap_skip_all "build/rnbdctl/rnbdctl is not built (make): make install needs it"
[ -e /usr/local/share/rnbd-cxx/install-manifest ] && tap_skip_all "already installed on this root"
tmp=$(mktemp -d /tmp/rnbd-install.XXXXXX)
manifest=/usr/local/share/rnbd-cxx/install-manifest
session=inst
cleanup() {
    umount "$tmp/mnt" 2>/dev/null
    rnbd_unmap_all
    rm -f /etc/rnbd/rnbdtab
    udevadm control --exit 2>/dev/null
    for m in rnbd_client rtrs_client rnbd_server rtrs_server; do mod_loaded $m && rmmod $m; done
    rxe_teardown >/dev/null 2>&1
    [ -e "$manifest" ] && make -s uninstall >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
tap_plan 19

installed() {
    make install > "$tmp/install.out" 2>&1 || { sed 's/^/#   /' "$tmp/install.out"; return 1; }
    grep -q "depmod $kver" "$tmp/install.out"
}
check "make install (depmod $kver)" installed
where() {
    local m
    for m in rtrs_client rtrs_server rnbd_client rnbd_server; do
        case $(modinfo -n $m 2>/dev/null) in
            /lib/modules/$kver/updates/*) ;;
            *) diag "modinfo -n $m: $(modinfo -n $m 2>&1)"; return 1 ;;
        esac
    done
}
check "modinfo -n: each of the four modules under /lib/modules/$kver/updates/" where
check "modprobe --show-depends rnbd_client names rtrs-client from updates/" \
    sh -c "modprobe --show-depends rnbd_client | grep -q 'updates/rnbd-cxx/rtrs-client.ko'"
loaded() {
    rxe_setup 1 >/dev/null || return 1
    if mod_loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=32768 || return 1
    modprobe rnbd_server && mod_loaded rtrs_server && modprobe rnbd_client && mod_loaded rtrs_client
}
check "modprobe rnbd_server / rnbd_client load rtrs_server / rtrs_client with them" loaded

# udevd with the host's rules and ours; it sees only the events from here on.
udev_up() {
    "$udevd" --daemon --resolve-names=never > "$tmp/udevd.out" 2>&1 || { cat "$tmp/udevd.out"; return 1; }
    wait_for 100 test -S /run/udev/control
}
check "systemd-udevd started" udev_up
settle() { udevadm settle --timeout=60; }
# The installed rnbdctl (make rnbdctl before make install) maps, and its JSON
# answer is parsed and checked; without it, map_device by hand.
rnbdctl=/usr/local/sbin/rnbdctl
mapped() {
    if [ -x $rnbdctl ] && command -v jq > /dev/null; then
        $rnbdctl -o json map --session "$session" --path "ip:${RXE_ADDR[0]}" --device-path /dev/ram0 \
            > "$tmp/map.json" 2>&1 || { sed 's/^/#   /' "$tmp/map.json"; return 1; }
        jq -e --arg s "$session" '.version == 1 and .device.session == $s and .device.device_path == "/dev/ram0"
            and .device.state == "open" and (.device.name | test("^rnbd[0-9]+$"))' "$tmp/map.json" > /dev/null ||
            { diag "map JSON not as expected: $(cat "$tmp/map.json")"; return 1; }
        dev=$(jq -r .device.name "$tmp/map.json")
        wait_for 50 test -b "/dev/$dev" || return 1
    else
        dev=$(rnbd_map "sessname=$session path=ip:${RXE_ADDR[0]} device_path=/dev/ram0") || return 1
    fi
    settle
}
dev=
check "map /dev/ram0 on session $session (rnbdctl -o json map, its JSON checked, when installed)" mapped
link_to() { # link device: the link resolves to the device
    [ "$(readlink -f "$1" 2>/dev/null)" = "$2" ] || { diag "$1 -> $(readlink -f "$1" 2>&1), not $2"; return 1; }
}
check "/dev/rnbd/$session/dev/ram0 -> /dev/$dev" link_to "/dev/rnbd/$session/dev/ram0" "/dev/$dev"

partitioned() {
    echo 'label: gpt
start=2048, size=40960, name=rnbdpart' | sfdisk -q "/dev/$dev" > "$tmp/sfdisk.out" 2>&1 || { cat "$tmp/sfdisk.out"; return 1; }
    settle
    wait_for 50 test -b "/dev/${dev}p1" || return 1
    mkfs.ext4 -q -F -L rnbdlabel "/dev/${dev}p1" || return 1
    settle
    uuid=$(blkid -o value -s UUID "/dev/${dev}p1") && partuuid=$(blkid -o value -s PARTUUID "/dev/${dev}p1")
    [ -n "$uuid" ] && [ -n "$partuuid" ]
}
uuid= partuuid=
check "sfdisk (GPT, one partition) and mkfs.ext4 -L rnbdlabel on /dev/${dev}p1" partitioned
names() {
    link_to "/dev/disk/by-uuid/$uuid" "/dev/${dev}p1" && link_to /dev/disk/by-label/rnbdlabel "/dev/${dev}p1" &&
        link_to "/dev/disk/by-partuuid/$partuuid" "/dev/${dev}p1" && link_to /dev/disk/by-partlabel/rnbdpart "/dev/${dev}p1" &&
        link_to "/dev/rnbd/$session/dev/ram0-part1" "/dev/${dev}p1"
}
check "by-uuid, by-label, by-partuuid, by-partlabel and /dev/rnbd/$session/dev/ram0-part1 -> /dev/${dev}p1" names
filled() {
    mkdir -p "$tmp/mnt" && mount "/dev/disk/by-uuid/$uuid" "$tmp/mnt" || return 1
    dd if=/dev/urandom of="$tmp/mnt/data" bs=64k count=32 status=none && sha256sum < "$tmp/mnt/data" > "$tmp/sum" &&
        umount "$tmp/mnt"
}
check "mount by UUID, write a file, unmount" filled
# With rnbdctl installed (make rnbdctl before make install), the way back is
# rnbd-maps.service's own commands: `rnbdctl save`, its ExecStop (unmap
# --all), its ExecStart (restore). Without it, unmap_device and map_device.
unit=/usr/local/lib/systemd/system/rnbd-maps.service
unit_command() { sed -n "s/^$1=//p" "$unit"; }
[ -x $rnbdctl ] && diag "rnbdctl installed: save, then the unit's ExecStop and ExecStart" ||
    diag "rnbdctl not installed: unmap_device and map_device by hand"
gone() {
    if [ -x $rnbdctl ]; then
        $rnbdctl save > "$tmp/save.out" 2>&1 && [ -s /etc/rnbd/rnbdtab ] || { sed 's/^/#   /' "$tmp/save.out"; return 1; }
        $(unit_command ExecStop) > "$tmp/stop.out" 2>&1 || { sed 's/^/#   /' "$tmp/stop.out"; return 1; }
    else
        echo normal > "/sys/block/$dev/rnbd/unmap_device" || return 1
    fi
    settle
    [ ! -e "/sys/block/$dev" ] && [ ! -e "/dev/disk/by-uuid/$uuid" ] && [ ! -e "/dev/rnbd/$session/dev/ram0" ] &&
        [ ! -e "/dev/rnbd/$session/dev/ram0-part1" ]
}
check "unmap (rnbdctl save + the unit's ExecStop when installed): the links are gone" gone
back() {
    if [ -x $rnbdctl ]; then
        $(unit_command ExecStartPre) && $(unit_command ExecStart) > "$tmp/start.out" 2>&1 ||
            { sed 's/^/#   /' "$tmp/start.out"; return 1; }
        settle
        dev=$(basename "$(readlink -f "/dev/rnbd/$session/dev/ram0")")
        wait_for 50 test -b "/dev/$dev" || return 1
    else
        dev=$(rnbd_map "sessname=$session path=ip:${RXE_ADDR[0]} device_path=/dev/ram0") || return 1
    fi
    settle
    link_to "/dev/rnbd/$session/dev/ram0" "/dev/$dev" && link_to "/dev/disk/by-uuid/$uuid" "/dev/${dev}p1" &&
        link_to "/dev/rnbd/$session/dev/ram0-part1" "/dev/${dev}p1"
}
check "mapped again (the unit's ExecStart when installed): the same UUID's link, the disk's and the partition's names" back
intact() {
    mount "/dev/disk/by-uuid/$uuid" "$tmp/mnt" || return 1
    sha256sum < "$tmp/mnt/data" | cmp -s - "$tmp/sum"; local rc=$?
    umount "$tmp/mnt"; return $rc
}
check "the filesystem is intact (the file's checksum)" intact
udevadm info --query=property "/dev/$dev" | grep -E '^(RNBD_|DEVLINKS)' | sed 's/^/# /'

down() {
    echo normal > "/sys/block/$dev/rnbd/unmap_device" && settle &&
        udevadm control --exit && modprobe -r rnbd_client rnbd_server &&
        ! mod_loaded rtrs_client && ! mod_loaded rtrs_server
}
check "unmap, udevd stopped, modprobe -r rnbd_client rnbd_server unloads rtrs too" down

cp "$manifest" "$tmp/manifest"
uninstalled() {
    make uninstall > "$tmp/uninstall.out" 2>&1 || { sed 's/^/#   /' "$tmp/uninstall.out"; return 1; }
    grep -q "depmod $kver" "$tmp/uninstall.out"
}
check "make uninstall (depmod $kver)" uninstalled
nothing_left() {
    local kind a b rc=0
    while read -r kind a b; do
        case $kind in
            f) [ ! -e "$a" ] || { diag "left: $a"; rc=1; } ;;
            c) [ ! -e "$b" ] || { diag "left: $b"; rc=1; } ;;
            d) [ ! -e "$a" ] || { diag "left: $a/"; rc=1; } ;;
        esac
    done < "$tmp/manifest"
    [ ! -e "$manifest" ] && [ ! -e "/lib/modules/$kver/updates/rnbd-cxx" ] || rc=1
    return $rc
}
check "nothing of the manifest is left" nothing_left
check "modinfo no longer finds rnbd_client or rtrs_server" sh -c '! modinfo -n rnbd_client >/dev/null 2>&1 && ! modinfo -n rtrs_server >/dev/null 2>&1'
check "depmod's modules.dep no longer names them" sh -c "! grep -q 'rnbd-cxx' /lib/modules/$kver/modules.dep"
check "the udev rules and units are gone" sh -c '! ls /usr/local/lib/udev/rules.d/60-rnbd.rules /usr/local/lib/systemd/system/rnbd-maps.service 2>/dev/null'
tap_done
