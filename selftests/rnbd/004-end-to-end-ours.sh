#!/usr/bin/env bash
# Our whole stack on both ends (rnbd-client + rtrs-client, rnbd-server +
# rtrs-server) over Soft-RoCE loopback: a RAM disk and an image file mapped,
# fio --verify over the whole device with mixed sizes and queue depths, a
# second pass with another pattern so a lost write (an older valid block
# left in place) is caught, the data compared on the server's backing
# device, both devices (one session, one tag set) verified at once,
# /dev/ram0 mapped with io_mode=fileio refused while the server's
# allow_fileio_of_block_devices is off (the default) and, once it is on,
# mapped ro and shown to be read through the VFS (page cache), ext4 across
# a remount, and a clean unmap and unload.
# Environment: E2E_FIO_SIZE (fio --size of every pass, default 100%: the
# whole device; the debug lane uses a few MiB, and the comparisons then
# cover those MiB).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnbd-e2e.XXXXXX)
cleanup() {
    umount "$tmp/mnt" 2>/dev/null
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
    rxe_setup 1 >/dev/null || return 1
    # A brd left loaded by an earlier test keeps its size; the page-cache
    # check below needs ram0 at 64 MiB.
    if mod_loaded brd; then rmmod brd || return 1; fi
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=65536 || return 1
    truncate -s 32M "$tmp/disk.img"
    insmod rtrs/rtrs-server.ko sess_queue_depth=128 && insmod rnbd/rnbd-server.ko "file_export_dir=$tmp" &&
        insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
check "setup: rxe, brd, an image file, our four modules" setup
addr=${RXE_ADDR[0]}
map() { echo "sessname=e2e path=ip:$addr device_path=$1 $2" > /sys/kernel/rnbd_client/map_device; }
check "map /dev/ram0 (io_mode=blockio)" map /dev/ram0 io_mode=blockio
check "map the image file" map "$tmp/disk.img"
check "/dev/rnbd0 has the RAM disk's size" test "$(blockdev --getsize64 /dev/rnbd0)" = "$(blockdev --getsize64 /dev/ram0)"
check "/dev/rnbd1 has the image's size" test "$(blockdev --getsize64 /dev/rnbd1)" = 33554432
# No I/O scheduler by default, even with one CPU (one hardware queue, where
# the kernel would pick mq-deadline); the administrator may still set one.
scheduler_default_and_settable() {
    local f=/sys/block/rnbd0/queue/scheduler
    grep -q '\[none\]' $f || { cat $f; return 1; }
    grep -qw mq-deadline $f || return 0  # not built: nothing else to set
    echo mq-deadline > $f && grep -q '\[mq-deadline\]' $f && echo none > $f && grep -q '\[none\]' $f
}
check "/dev/rnbd0 starts with no I/O scheduler and takes mq-deadline when asked ($(nproc) CPUs)" \
    scheduler_default_and_settable

fio_pass() { # device name extra...
    local dev=$1 name=$2; shift 2
    fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 --size="${E2E_FIO_SIZE:-100%}" "$@" \
        --output="$tmp/$name.out" >/dev/null 2>&1 || { tail -5 "$tmp/$name.out"; return 1; }
}
for dev in /dev/rnbd0 /dev/rnbd1; do
    for qd in 1 16 64; do
        check "$dev: fio randwrite 512B-1MiB QD$qd over the whole device, crc32c verify" \
            fio_pass $dev "crc-$(basename $dev)-$qd" --rw=randwrite --bsrange=512-1m --iodepth=$qd \
            --verify=crc32c --do_verify=1 --verify_fatal=1
    done
    check "$dev: pass 1 writes pattern A everywhere" \
        fio_pass $dev "a-$(basename $dev)" --rw=write --bs=128k --iodepth=8 --verify=pattern \
        --verify_pattern=0x5a5a5a5a --do_verify=1 --verify_fatal=1
    check "$dev: pass 2 rewrites every block with pattern B (random order, 4k-256k, QD32)" \
        fio_pass $dev "b-$(basename $dev)" --rw=randwrite --bsrange=4k-256k --iodepth=32 --verify=pattern \
        --verify_pattern=0xa5c3a5c3 --do_verify=1 --verify_fatal=1
    check "$dev: a read-only pass finds pattern B everywhere (no write lost)" \
        fio_pass $dev "c-$(basename $dev)" --rw=read --bs=1m --iodepth=4 --verify=pattern \
        --verify_pattern=0xa5c3a5c3 --verify_only --verify_fatal=1
done
# Both devices are mapped through one session and share its tags: IO on
# both at once, at a depth that keeps every tag busy, must stay each
# device's own.
both_at_once() {
    fio_pass /dev/rnbd0 both-rnbd0 --rw=randwrite --bsrange=4k-64k --iodepth=64 --verify=crc32c \
        --do_verify=1 --verify_fatal=1 --size="${E2E_FIO_SIZE:-32m}" &
    local first=$!
    fio_pass /dev/rnbd1 both-rnbd1 --rw=randwrite --bsrange=4k-64k --iodepth=64 --verify=crc32c \
        --do_verify=1 --verify_fatal=1 --size="${E2E_FIO_SIZE:-32m}" || { wait $first; return 1; }
    wait $first
}
check "both devices of the session at once (shared tags): fio randwrite QD64 each, crc32c verify" both_at_once
# With E2E_FIO_SIZE in MiB (the debug lane's 4m), the comparisons cover
# what fio wrote: reading the rest (zeros) cost the debug kernel minutes.
cmp_bytes=()
read_mib=64  # the page-cache proof below reads this much of each device
case ${E2E_FIO_SIZE:-} in
    [0-9]*[mM]) cmp_bytes=(-n $((${E2E_FIO_SIZE%[mM]} * 1048576))) read_mib=${E2E_FIO_SIZE%[mM]} ;;
esac
check "the server's /dev/ram0 holds exactly what /dev/rnbd0 reads" cmp "${cmp_bytes[@]}" /dev/ram0 /dev/rnbd0
check "the server's image file holds exactly what /dev/rnbd1 reads" cmp "${cmp_bytes[@]}" "$tmp/disk.img" /dev/rnbd1


fileio_ro() {
    echo "sessname=e2e-ro path=ip:$addr device_path=/dev/ram0 access_mode=ro io_mode=fileio" \
        > /sys/kernel/rnbd_client/map_device || return 1
    for _ in $(seq 50); do [ -b /dev/rnbd2 ] && break; sleep 0.1; done
    [ "$(cat /sys/block/rnbd2/rnbd_client/access_mode)" = ro ] || return 1
    if [ -e /sys/block/rnbd2/rnbd_client/io_mode ]; then
        [ "$(cat /sys/block/rnbd2/rnbd_client/io_mode)" = fileio ] || return 1
    fi
    cmp "${cmp_bytes[@]}" /dev/rnbd0 /dev/rnbd2 || return 1
    ! dd if=/dev/zero of=/dev/rnbd2 bs=4k count=1 oflag=direct status=none 2>/dev/null || return 1
    # The proof that the server read through the VFS: only its reads of the
    # /dev/ram0 node fill ram0's page cache ("Buffers"), blockio reads do not.
    # The client reads with O_DIRECT, so its own disks cache nothing.
    local via_blockio via_fileio
    via_blockio=$(buffers_after_read /dev/rnbd0) via_fileio=$(buffers_after_read /dev/rnbd2)
    diag "Buffers grew by $via_blockio kB reading $read_mib MiB through blockio, $via_fileio kB through fileio"
    [ "$via_blockio" -lt $((read_mib * 256)) ] && [ "$via_fileio" -ge $((read_mib * 768)) ] || return 1
    echo normal > /sys/block/rnbd2/rnbd_client/unmap_device
}
buffers_kb() { awk '$1 == "Buffers:" { print $2 }' /proc/meminfo; }
buffers_after_read() { # device: how much page cache of block devices a direct read of it adds, in kB
    local b0
    sync; echo 3 > /proc/sys/vm/drop_caches; b0=$(buffers_kb)
    dd if="$1" of=/dev/null bs=1M count=$read_mib iflag=direct status=none
    echo $(($(buffers_kb) - b0))
}
fileio_refused() { # the default: fileio of a block device only where the administrator allows it
    local p=/sys/module/rnbd_server/parameters/allow_fileio_of_block_devices got
    [ "$(cat $p)" = N ] || return 1
    echo "rnbd-004 fileio-refused" > /dev/kmsg
    got=$(wr /sys/kernel/rnbd_client/map_device \
        "sessname=e2e-nofileio path=ip:$addr device_path=/dev/ram0 access_mode=ro io_mode=fileio")
    [ "$got" = ENOENT ] || { diag "map with io_mode=fileio: $got, want ENOENT"; return 1; }
    [ ! -e /dev/rnbd2 ] || return 1
    dmesg | sed -n '/rnbd-004 fileio-refused$/,$p' | grep -q "cannot open '/dev/ram0' (ro): io_mode=fileio of a block device, and allow_fileio_of_block_devices is off" ||
        { diag "no server log line naming allow_fileio_of_block_devices"; return 1; }
    echo Y > $p
}
check "allow_fileio_of_block_devices=N (default): a map of /dev/ram0 with io_mode=fileio is refused (ENOENT), the server's log names the parameter; then set to Y" fileio_refused
check "a second session maps /dev/ram0 ro with io_mode=fileio: same data, writes refused, the server's reads filled ram0's page cache (blockio's did not), unmapped" fileio_ro

fs() {
    mkfs.ext4 -q -F /dev/rnbd0 && mkdir -p "$tmp/mnt" && mount /dev/rnbd0 "$tmp/mnt" || return 1
    dd if=/dev/urandom of="$tmp/mnt/a" bs=1M count=6 status=none && cp -r selftests "$tmp/mnt/" || return 1
    local before after
    before=$(cd "$tmp/mnt" && find . -type f -exec md5sum {} + | sort | md5sum)
    umount "$tmp/mnt" && echo 3 > /proc/sys/vm/drop_caches && mount /dev/rnbd0 "$tmp/mnt" || return 1
    after=$(cd "$tmp/mnt" && find . -type f -exec md5sum {} + | sort | md5sum)
    [ "$before" = "$after" ]
}
check "ext4 on /dev/rnbd0: files survive umount, drop_caches, mount" fs
check "unmap normal while mounted -> EBUSY" bash -c "! echo normal > /sys/block/rnbd0/rnbd_client/unmap_device 2>/dev/null"
umount "$tmp/mnt"
check "the filesystem is intact on the server's /dev/ram0" fsck.ext4 -n /dev/ram0
check "unmap both" bash -c "echo normal > /sys/block/rnbd1/rnbd_client/unmap_device && echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
check "all four modules unload once nothing is mapped" \
    bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"
if dmesg | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
