#!/usr/bin/env bash
# WRITE_ZEROES (RNBD op 5 since Linux 6.12) in every pairing one VM can
# hold, over one Soft-RoCE loopback path, served by a loop device over a
# tmpfs file (it zeroes ranges itself, so a server may offer the op):
#   - our client with our server, and with the running kernel's upstream
#     server: on 6.12 the server offers it (the client's disk has a
#     write-zeroes limit and the op reaches the server's device: the loop
#     device turns a WRITE_ZEROES bio into a punched hole, so its tmpfs
#     file loses the zeroed blocks, which plain writes of zeroes keep); a 6.1 server never offers it, so our client never
#     sends it and `blkdiscard -z` goes through the block layer's fallback
#     (plain writes of zeroes);
#   - the running kernel's upstream client with our server: 6.12's uses
#     what our server offers; 6.1's ignores the field.
# Each pairing: random data, then `blkdiscard -z` and `fallocate
# --zero-range` of a range on the client's disk, then the server's device
# is read: the ranges are zeroes, the data around them is intact.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnbd-wz.XXXXXX)
loop=
cleanup() {
    for d in /sys/block/rnbd*/rnbd/unmap_device /sys/block/rnbd*/rnbd_client/unmap_device; do
        [ -e "$d" ] && echo force > "$d" 2>/dev/null
    done
    for m in rnbd_client rtrs_client rnbd_server rtrs_server rtrs_core; do mod_loaded $m && rmmod $m; done
    [ -n "$loop" ] && losetup -d "$loop"
    rxe_teardown >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
for t in blkdiscard fallocate losetup; do command -v $t >/dev/null || tap_skip_all "missing tool $t"; done
[ -f "$kodir/rnbd-server.ko" ] || tap_skip_all "$kodir/rnbd-server.ko missing (tools/upstream/build.sh)"
kernel=$(uname -r | cut -d. -f1,2)
# Which kernels' RNBD speaks WRITE_ZEROES: 6.12 (and ours, on any kernel).
upstream_offers=0
[ "$kernel" = 6.12 ] && upstream_offers=1

setup() {
    rxe_setup 1 >/dev/null || return 1
    modprobe loop && truncate -s 32M "$tmp/loop.img" && loop=$(losetup -f --show "$tmp/loop.img") || return 1
    [ "$(cat /sys/block/${loop#/dev/}/queue/write_zeroes_max_bytes)" -gt 0 ]
}
check "setup: rxe, a loop device over a tmpfs file that zeroes ranges itself (kernel $kernel)" setup
addr=${RXE_ADDR[0]}
back=${loop#/dev/}

map() { # client sessname -> device name
    local before after d
    before=$(ls /sys/block | grep '^rnbd' | sort)
    if [ "$1" = ours ]; then
        echo "sessname=$2 path=ip:$addr device_path=$loop" > /sys/kernel/rnbd_client/map_device || return 1
    else
        echo "sessname=$2 path=ip:$addr device_path=$loop" > /sys/class/rnbd-client/ctl/map_device || return 1
    fi
    after=$(ls /sys/block | grep '^rnbd' | sort)
    d=$(echo "$after" | grep -vxF -e "${before:-none}" | head -1)
    [ -n "$d" ] && wait_for 50 test -b "/dev/$d" && echo "$d"
}
unmap() { # client dev
    if [ "$1" = ours ]; then echo normal > "/sys/block/$2/rnbd_client/unmap_device"
    else echo normal > "/sys/block/$2/rnbd/unmap_device"; fi
}
zeroes_on_server() { # offset_MiB length_MiB
    dd if="$loop" bs=1M skip="$1" count="$2" iflag=direct status=none | cmp -n $(($2 << 20)) - /dev/zero
}
same_on_server() { # offset_MiB length_MiB: as the reference data (no /dev/fd here: compare digests)
    [ "$(dd if="$loop" bs=1M skip="$1" count="$2" iflag=direct status=none | md5sum)" = \
      "$(dd if="$tmp/ref" bs=1M skip="$1" count="$2" status=none | md5sum)" ]
}

# one CLIENT SERVER OFFERS: map, zero two ranges, look at the server's device
one() {
    local clt=$1 srv=$2 offers=$3 name="$1 client, $2 server" dev wz
    dev=$(map "$clt" "wz-$clt-$srv") || { not_ok "$name: map"; return; }
    ok "$name: mapped as $dev"
    wz=$(cat /sys/block/$dev/queue/write_zeroes_max_bytes)
    if [ "$offers" = 1 ]; then
        check "$name: the server offers WRITE_ZEROES (the disk's write_zeroes_max_bytes $wz)" test "$wz" -gt 0
    else
        check "$name: no WRITE_ZEROES offered (a $kernel server): write_zeroes_max_bytes 0" test "$wz" = 0
    fi
    dd if=/dev/urandom of="$tmp/ref" bs=1M count=16 status=none
    dd if="$tmp/ref" of="/dev/$dev" bs=1M count=16 oflag=direct conv=fsync status=none
    check "$name: 16 MiB of random data written" same_on_server 0 16
    local b0 b1
    b0=$(stat -c %b "$tmp/loop.img")
    check "$name: blkdiscard -z 2 MiB at 2 MiB" blkdiscard -z -o $((2 << 20)) -l $((2 << 20)) "/dev/$dev"
    check "$name: fallocate --zero-range 3 MiB at 8 MiB" fallocate -z -o $((8 << 20)) -l $((3 << 20)) "/dev/$dev"
    b1=$(stat -c %b "$tmp/loop.img")
    if [ "$offers" = 1 ]; then
        check "$name: WRITE_ZEROES reached the server's device: its file lost 5 MiB (512-byte blocks $b0 -> $b1)" \
            test $((b0 - b1)) -ge 10240
    else
        check "$name: no WRITE_ZEROES sent: the block layer wrote zeroes, the file kept its blocks ($b0 -> $b1)" \
            test "$b1" -ge "$b0"
    fi
    check "$name: the server's device reads zeroes at 2-4 MiB and 8-11 MiB" \
        eval 'zeroes_on_server 2 2 && zeroes_on_server 8 3'
    check "$name: the data around the ranges is intact on the server's device" \
        eval 'same_on_server 0 2 && same_on_server 4 4 && same_on_server 11 5'
    check "$name: unmap" unmap "$clt" "$dev"
}

check "load our client" rnbd_client_load
check "load our server" rnbd_server_load ours
one ours ours 1
check "unload our server" rnbd_server_unload
check "load the $kernel upstream server" rnbd_server_load upstream
one ours upstream $upstream_offers
check "unload the upstream server, our client" eval 'rnbd_server_unload && rnbd_client_unload'
check "load our server, the $kernel upstream client" \
    eval 'rnbd_server_load ours && insmod "$kodir/rtrs-core.ko" && insmod "$kodir/rtrs-client.ko" && insmod "$kodir/rnbd-client.ko"'
# Our server offers it to every client; a 6.1 client ignores the field.
one upstream ours $upstream_offers
tap_done; exit $?
