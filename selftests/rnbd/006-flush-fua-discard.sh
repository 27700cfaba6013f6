#!/usr/bin/env bash
# Our client's flush, FUA, discard and secure erase reach the server's
# device, against our server and against Linux 6.1's, over one Soft-RoCE
# loopback path. Backings with a volatile write cache and discard:
#   - null_blk, memory backed, with a cache (write back + FUA) and discard;
#   - a loop device over a tmpfs file (write back without FUA: the client
#     turns FUA into write + flush; discard punches holes in the file).
# Asserted on the server's device: /proc/diskstats flush and discard
# counters move, the block trace shows the FUA writes (null_blk), the
# discarded range reads back zeroes and the loop's file loses its blocks.
# Neither backing offers secure erase: the client's disk does not either,
# and `blkdiscard -s` is refused with EOPNOTSUPP with nothing sent.
# Our server only: an image file served through the VFS (fileio), discard
# punches holes in it and a flush reaches it (its data is on the file).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnbd-flush.XXXXXX)
loop=
cleanup() {
    [ -w $tracing/events/block/block_rq_issue/enable ] && echo 0 > $tracing/events/block/block_rq_issue/enable
    tracing_end
    rnbd_stack_teardown
    [ -n "$loop" ] && losetup -d "$loop"
    mod_loaded null_blk && rmmod null_blk
    rm -rf "$tmp"
}
trap cleanup EXIT
for t in blkdiscard losetup fio; do command -v $t >/dev/null || tap_skip_all "missing tool $t"; done

setup() {
    rxe_setup 1 >/dev/null || return 1
    modprobe null_blk nr_devices=1 gb=1 memory_backed=1 discard=1 cache_size=16 || return 1
    modprobe loop && truncate -s 64M "$tmp/loop.img" && loop=$(losetup -f --show "$tmp/loop.img") || return 1
    # block_rq_issue stays enabled from here to the cleanup; tracing_on opens
    # and closes each window (tracing_begin in lib.sh says why).
    tracing_begin && echo 0 > $tracing/tracing_on && echo 1 > $tracing/events/block/block_rq_issue/enable || return 1
    rnbd_client_load
}
check "setup: rxe, null_blk (memory, cache, discard), a loop device over a tmpfs file, our client" setup
addr=${RXE_ADDR[0]}
loopname=${loop#/dev/}
diag "server devices: nullb0 write_cache '$(cat /sys/block/nullb0/queue/write_cache)' fua $(cat /sys/block/nullb0/queue/fua)," \
    "$loopname write_cache '$(cat /sys/block/$loopname/queue/write_cache)' fua $(cat /sys/block/$loopname/queue/fua)"

zeroes() { # dev offset_MiB length_MiB
    dd if="/dev/$1" bs=1M skip="$2" count="$3" iflag=direct status=none | cmp -n $(($3 << 20)) - /dev/zero
}
trace_start() { echo > $tracing/trace; echo 1 > $tracing/tracing_on; }
trace_stop() { echo 0 > $tracing/tracing_on; cat $tracing/trace > "$tmp/trace"; }

# one SERVER BACKING: the whole set against one server device
one() {
    local srv=$1 back=$2 dev
    dev=$(rnbd_map "sessname=fl-$srv-$back path=ip:$addr device_path=/dev/$back") || {
        not_ok "$srv/$back: map"; return; }
    ok "$srv/$back: mapped as $dev (t=${SECONDS}s)"
    local q=/sys/block/$dev/queue fua
    fua=$(cat /sys/block/$back/queue/fua)
    check "$srv/$back: $dev has a write-back cache, fua $fua as the server's device, discard" \
        test "$(cat $q/write_cache) $(cat $q/fua) $(( $(cat $q/discard_max_bytes) > 0 ))" = "write back $fua 1"

    local f0 f1
    f0=$(diskstat $back 19)
    dd if=/dev/urandom of="/dev/$dev" bs=64k count=16 oflag=direct conv=fsync status=none
    f1=$(diskstat $back 19)
    check "$srv/$back: a write + fsync on $dev flushes the server's device (flushes $f0 -> $f1)" test "$f1" -gt "$f0"
    f0=$(diskstat $back 19)
    fio --name=fsync --filename="/dev/$dev" --rw=randwrite --bs=4k --size=1m --io_size=128k --fsync=4 \
        --ioengine=sync --output="$tmp/fio.out" >/dev/null 2>&1
    f1=$(diskstat $back 19)
    # The block layer may merge flushes that meet in flight: ask for half.
    check "$srv/$back: fio --fsync=4 over 32 writes: at least 4 flushes on the server ($f0 -> $f1)" \
        test $((f1 - f0)) -ge 4

    # O_DIRECT|O_DSYNC writes are FUA writes.
    f0=$(diskstat $back 19)
    trace_start
    dd if=/dev/urandom of="/dev/$dev" bs=4k count=8 seek=100 oflag=direct,dsync status=none
    trace_stop
    f1=$(diskstat $back 19)
    local majmin n
    majmin=$(tr : , < /sys/block/$back/dev)
    n=$(grep -cE " $majmin W[A-Z]*F" "$tmp/trace")
    if [ "$fua" = 1 ]; then
        check "$srv/$back: 8 O_DSYNC direct writes reach the server's device as FUA writes ($n seen)" test "$n" -ge 8
    else
        check "$srv/$back: without FUA, 8 O_DSYNC direct writes flush the server's device ($f0 -> $f1)" \
            test $((f1 - f0)) -ge 8
    fi

    local d0 s0 d1 s1 b0 b1
    dd if=/dev/urandom of="/dev/$dev" bs=1M count=2 seek=4 oflag=direct status=none
    b0=$(stat -c %b "$tmp/loop.img")
    d0=$(diskstat $back 15) s0=$(diskstat $back 17)
    check "$srv/$back: blkdiscard 2 MiB at 4 MiB" blkdiscard -o $((4 << 20)) -l $((2 << 20)) "/dev/$dev"
    d1=$(diskstat $back 15) s1=$(diskstat $back 17)
    check "$srv/$back: the server's device counted discards ($d0 -> $d1) of 4096 sectors ($s0 -> $s1)" \
        test "$d1" -gt "$d0" -a $((s1 - s0)) -eq 4096
    check "$srv/$back: the discarded range reads back zeroes" zeroes "$dev" 4 2
    if [ "$back" = "$loopname" ]; then
        b1=$(stat -c %b "$tmp/loop.img")
        check "$srv/$back: the loop's file lost the discarded blocks (512-byte blocks $b0 -> $b1)" \
            test $((b0 - b1)) -ge 4096
    fi
    secure_refused() {
        local got
        got=$(errno_name "$(blkdiscard -s -o $((4 << 20)) -l $((1 << 20)) "/dev/$dev" 2>&1)")
        [ "$got" = EOPNOTSUPP ] || { diag "blkdiscard -s: $got"; return 1; }
        [ "$(diskstat $back 15)" = "$d1" ]
    }
    check "$srv/$back: no secure erase on the server's device: blkdiscard -s refused (EOPNOTSUPP), nothing sent" \
        secure_refused
    diag "t=${SECONDS}s"
    expect_errno "$srv/$back: unmap" OK "/sys/block/$dev/rnbd_client/unmap_device" normal
}

for srv in ours upstream; do
    if [ $srv = upstream ] && [ ! -f "$kodir/rnbd-server.ko" ]; then
        skip "upstream server" "$kodir/rnbd-server.ko missing (tools/upstream/build.sh)"
        continue
    fi
    check "load $srv server" rnbd_server_load $srv "$([ $srv = ours ] && echo file_export_dir=$tmp)"
    one $srv nullb0
    one $srv "$loopname"
    if [ $srv = ours ]; then
        file_ok() {
            local dev b0 b1 sum
            truncate -s 16M "$tmp/disk.img"
            dev=$(rnbd_map "sessname=fl-file path=ip:$addr device_path=$tmp/disk.img") || return 1
            [ "$(cat /sys/block/$dev/queue/write_cache)" = "write back" ] || return 1
            dd if=/dev/urandom of="/dev/$dev" bs=1M count=4 oflag=direct conv=fsync status=none || return 1
            sum=$(dd if="/dev/$dev" bs=1M count=4 iflag=direct status=none | md5sum)
            [ "$(head -c 4M "$tmp/disk.img" | md5sum)" = "$sum" ] || { diag "the file does not hold the data"; return 1; }
            b0=$(stat -c %b "$tmp/disk.img")
            blkdiscard -o $((1 << 20)) -l $((2 << 20)) "/dev/$dev" || return 1
            b1=$(stat -c %b "$tmp/disk.img")
            diag "image file: 512-byte blocks $b0 -> $b1 after a 2 MiB discard"
            [ $((b0 - b1)) -ge 4096 ] && zeroes "$dev" 1 2 && cmp -n $((2 << 20)) -i $((1 << 20)) "$tmp/disk.img" /dev/zero &&
                echo normal > "/sys/block/$dev/rnbd_client/unmap_device"
        }
        check "ours/image file (fileio): data on the file after fsync, discard punches a 2 MiB hole" file_ok
    fi
    check "unload $srv server" rnbd_server_unload
done
tap_done; exit $?
