#!/usr/bin/env bash
# The size of a mapped device follows the server's device: our whole stack
# over one Soft-RoCE loopback path, the server exporting an image file that
# the test grows with truncate.
#   - resize: growing past the size of the map works once the server's file
#     grew (the client learns the new size), beyond it is EINVAL;
#   - remap_device on a device open on the server: EALREADY (as upstream),
#     nothing changes even though the server's file grew;
#   - the path down and the file gone meanwhile: the reconnect's re-open
#     fails, the device stays closed; the file back (grown), remap_device
#     re-opens it and the disk takes the server's new size, data intact;
#   - a reconnect's own re-open takes the server's new size too;
#   - remap_device gives the disk the queue limits the server's device has
#     now: a loop device whose logical block size went from 512 to 4096
#     bytes while the client was away (one atomic update on 6.12,
#     queue_limits_commit_update; the setters on 6.1), data intact.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnbd-remap.XXXXXX)
cleanup() {
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    for m in rnbd_client rtrs_client rnbd_server rtrs_server; do grep -q "^$m " /proc/modules && rmmod $m; done
    rxe_teardown >/dev/null 2>&1
    [ -n "$loop" ] && losetup -d "$loop"
    rm -rf "$tmp"
}
loop=
trap cleanup EXIT

img=$tmp/disk.img
setup() {
    rxe_setup 1 >/dev/null || return 1
    modprobe rdma_cm || return 1
    truncate -s 8M "$img" || return 1
    insmod rtrs/rtrs-server.ko sess_queue_depth=64 && insmod rnbd/rnbd-server.ko "file_export_dir=$tmp" &&
        insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
check "setup: rxe, an 8 MiB image file, our four modules" setup
addr=${RXE_ADDR[0]}
# path= in the seed's <srcaddr,dstaddr> form (seed 001).
expect_errno "map the image file (path=ip:src,ip:dst)" OK /sys/kernel/rnbd_client/map_device \
    "sessname=remap path=ip:$addr,ip:$addr device_path=$img"
dev=$(basename "$(readlink -f "/sys/kernel/rnbd_client/devices/$(echo "$img" | tr / !)")")
sysd=/sys/block/$dev/rnbd_client
size() { cat "/sys/block/$dev/size"; }
state() { cat "$sysd/state"; }
check "mapped as $dev with the file's size (16384 sectors)" test "$(size)" = 16384
check "its path is ip:$addr@ip:$addr" test -d "/sys/class/rtrs-client/remap/paths/ip:$addr@ip:$addr"
# Every writable file prints its usage on read (seed 001).
reads() { [ "$(cat "$1")" = "$2" ] || { diag "$1 reads '$(cat "$1")'"; return 1; }; }
check "unmap_device prints its usage" reads "$sysd/unmap_device" "Usage: echo <normal|force> > unmap_device"
check "remap_device prints its usage" reads "$sysd/remap_device" "Usage: echo <1> > remap_device"
check "resize prints its usage" reads "$sysd/resize" "Usage: echo <new size in sectors> > resize"
data() { dd if="/dev/$dev" bs=1M count=1 iflag=direct status=none | md5sum; }
check "1 MiB of random data written" dd if=/dev/urandom of="/dev/$dev" bs=1M count=1 oflag=direct status=none
sum=$(data)

# --- resize after the server's file grew -------------------------------------------------
truncate -s 12M "$img"
expect_errno "resize to 24576 sectors after the server's file grew to 12 MiB" OK "$sysd/resize" 24576
check "size is 24576" test "$(size)" = 24576
expect_errno "resize beyond the server's file (24577)" EINVAL "$sysd/resize" 24577
check "the refused resize changed nothing" test "$(size)" = 24576
check "the grown part is usable: 1 MiB written and read at its end" \
    dd if=/dev/urandom of="/dev/$dev" bs=1M count=1 seek=11 oflag=direct status=none

# --- remap on a device open on the server --------------------------------------------------
truncate -s 16M "$img"
expect_errno "remap_device 1 while the device is open on the server" EALREADY "$sysd/remap_device" 1
check "the refused remap changed nothing: size 24576, state open" test "$(size) $(state)" = "24576 open"
expect_errno "remap_device with a bad value" EINVAL "$sysd/remap_device" 2

# --- remap of a closed device ----------------------------------------------------------------
path=$(echo /sys/class/rtrs-client/remap/paths/*)
path_connected() { [ "$(cat "$path/state")" = connected ]; }
is_state() { [ "$(state)" = "$1" ]; }
closed_by_failed_reopen() {
    echo 0 > /sys/class/rtrs-client/remap/io_hold_timeout_ms || return 1
    echo 1 > "$path/disconnect" || return 1
    wait_for 100 is_state closed || { diag "state $(state) after disconnect"; return 1; }
    mv "$img" "$img.away" || return 1
    echo 1 > "$path/reconnect" || return 1
    wait_for 200 path_connected || { diag "path $(cat "$path/state")"; return 1; }
    # The re-open runs after the reconnect, from the session's work item.
    wait_for 100 bash -c "dmesg | grep -q 're-open of $dev failed'" || { diag "no failed re-open logged"; return 1; }
    is_state closed
}
check "path down, the file moved away, path back: the re-open fails, the device stays closed" closed_by_failed_reopen
check "the server's file back, grown to 20 MiB" bash -c "truncate -s 20M '$img.away' && mv '$img.away' '$img'"
check "size unchanged (24576) before the remap" test "$(size)" = 24576
expect_errno "remap_device 1 on the closed device" OK "$sysd/remap_device" 1
check "after remap: state open, size is the server's 40960" test "$(state) $(size)" = "open 40960"
check "the data written before is intact" test "$(data)" = "$sum"
check "IO at the new end works" dd if=/dev/urandom of="/dev/$dev" bs=1M count=1 seek=19 oflag=direct status=none

# --- a reconnect takes the server's size -----------------------------------------------------
reconnect_grows() {
    echo 1 > "$path/disconnect" || return 1
    wait_for 100 is_state closed || return 1
    truncate -s 24M "$img" || return 1
    echo 1 > "$path/reconnect" || return 1
    wait_for 200 is_state open || { diag "state $(state)"; return 1; }
    [ "$(size)" = 49152 ] || { diag "size $(size) after the reconnect, not 49152"; return 1; }
}
check "path down, the file grown to 24 MiB, path back: the re-open gives 49152 sectors" reconnect_grows
check "the data written before is intact" test "$(data)" = "$sum"
expect_errno "unmap" OK "$sysd/unmap_device" normal

# --- remap takes the server's queue limits ------------------------------------------------
# A node of the loop device in the export dir, so that moving it away makes
# the reconnect's re-open fail while the loop device changes its sectors.
node=$tmp/blk
limits_setup() {
    modprobe loop && truncate -s 16M "$tmp/loop.img" && loop=$(losetup -f --show "$tmp/loop.img") || return 1
    mknod "$node" b $((0x$(stat -c %t "$loop"))) $((0x$(stat -c %T "$loop"))) || return 1
    echo "sessname=limits path=ip:$addr device_path=$node" > /sys/kernel/rnbd_client/map_device
}
check "a loop device with 512-byte sectors, mapped through a node in the export dir" limits_setup
ldev=$(basename "$(readlink -f "/sys/kernel/rnbd_client/devices/$(echo "$node" | tr / !)")")
lsys=/sys/block/$ldev
lblock() { cat "$lsys/queue/logical_block_size"; }
check "$ldev: logical block size 512" test "$(lblock)" = 512
check "$ldev: 1 MiB of random data written" dd if=/dev/urandom of="/dev/$ldev" bs=1M count=1 oflag=direct status=none
lsum=$(dd if="/dev/$ldev" bs=1M count=1 iflag=direct status=none | md5sum)
lpath=$(echo /sys/class/rtrs-client/limits/paths/*)
lstate() { cat "$lsys/rnbd_client/state"; }
is_lstate() { [ "$(lstate)" = "$1" ]; }
lpath_connected() { [ "$(cat "$lpath/state")" = connected ]; }
away_and_resectored() {
    echo 0 > /sys/class/rtrs-client/limits/io_hold_timeout_ms || return 1
    echo 1 > "$lpath/disconnect" || return 1
    wait_for 100 is_lstate closed || { diag "state $(lstate) after disconnect"; return 1; }
    mv "$node" "$node.away" || return 1
    # (the index may be the first device's: count its earlier messages)
    local before; before=$(dmesg | grep -c "re-open of $ldev failed")
    echo 1 > "$lpath/reconnect" || return 1
    wait_for 200 lpath_connected || return 1
    wait_for 100 bash -c "[ \$(dmesg | grep -c 're-open of $ldev failed') -gt $before ]" ||
        { diag "no failed re-open logged"; return 1; }
    is_lstate closed || return 1
    losetup --sector-size 4096 "$loop" || return 1
    [ "$(cat "/sys/block/${loop#/dev/}/queue/logical_block_size")" = 4096 ] || return 1
    mv "$node.away" "$node"
}
check "path down, the node away (re-open fails), the loop device now with 4096-byte sectors, the node back" \
    away_and_resectored
check "before the remap: logical block size still 512" test "$(lblock)" = 512
expect_errno "remap_device 1" OK "$lsys/rnbd_client/remap_device" 1
check "after remap: state open, logical block size 4096 as the server's device" test "$(lstate) $(lblock)" = "open 4096"
check "the data written before is intact" \
    test "$(dd if="/dev/$ldev" bs=1M count=1 iflag=direct status=none | md5sum)" = "$lsum"
check "4 KiB IO works" dd if=/dev/urandom of="/dev/$ldev" bs=4k count=16 seek=100 oflag=direct status=none
check "512-byte direct IO is refused now (block layer: not a multiple of 4096)" \
    bash -c "! dd if=/dev/zero of=/dev/$ldev bs=512 count=1 seek=1 oflag=direct status=none 2>/dev/null"
expect_errno "unmap $ldev" OK "$lsys/rnbd_client/unmap_device" normal
tap_done; exit $?
