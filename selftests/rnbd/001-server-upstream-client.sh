#!/usr/bin/env bash
# Interop: Linux 6.1's rnbd-client (+ rtrs-client, rtrs-core, built by
# tools/upstream/build.sh into .cache/upstream) against our rtrs-server.ko and
# rnbd-server.ko, over Soft-RoCE loopback. Runs inside the test VM as root:
#
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh 001-server
#
# Backing objects: brd (/dev/ram0 read-write, /dev/ram1 read-only tests), an
# image file on tmpfs (fileio), an unbound loop device (size 0).
# Environment: UPSTREAM_KO_DIR (default <repo>/.cache/upstream).
set -uo pipefail
cd "$(dirname "$0")/../.."
. selftests/lib.sh
. selftests/lib-rxe.sh

ram_mib=64
img_mib=32
tmpdir=/tmp/rnbd-srv-test
img=$tmpdir/disk.img
img2=$tmpdir/ext4/disk2.img
loopimg=$tmpdir/loop.img
mnt=$tmpdir/mnt
ctl=/sys/class/rnbd-client/ctl
srv_kernel=/sys/kernel/rnbd_server/devices
srv_class=/sys/class/rnbd-server/ctl/devices
loopdev="" loopdev2=""

require_upstream_client
require_tools fio mkfs.ext4 rdma losetup sha256sum cmp blockdev

cleanup() {
    umount "$mnt" 2>/dev/null
    umount "$tmpdir/ext4" 2>/dev/null
    unmap_client_links "$ctl"
    unload_loaded rnbd-client rtrs-client rtrs-core rnbd_server rtrs_server
    [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
    [ -n "$loopdev2" ] && losetup -d "$loopdev2" 2>/dev/null
    rxe_teardown >/dev/null 2>&1
    umount "$tmpdir" 2>/dev/null
    return 0
}
trap cleanup EXIT

# map OPTIONS...: writes one map_device line; its errno message on failure.
map() { echo "$*" > "$ctl/map_device"; }
# dev_of DEVICE_PATH SESSION: /dev/rnbdN of a mapping, once it exists.
dev_of() {
    local link="$ctl/devices/${1//\//!}@$2" i
    for ((i = 0; i < 100; i++)); do
        if [ -L "$link" ]; then
            local name; name=$(basename "$(readlink -f "$link")")
            [ -b "/dev/$name" ] && { echo "/dev/$name"; return 0; }
        fi
        sleep 0.1
    done
    echo "no mapping $link" >&2; return 1
}
unmap() { # /dev/rnbdN
    local n=${1#/dev/} i
    echo normal > "/sys/block/$n/rnbd/unmap_device" || return 1
    for ((i = 0; i < 100; i++)); do [ -e "/sys/block/$n" ] || return 0; sleep 0.1; done
    echo "$n still present"; return 1
}
wait_gone() { local i; for ((i = 0; i < 100; i++)); do [ -e "$1" ] || return 0; sleep 0.1; done; return 1; }
fio_verify() { # device, extra options
    local dev=$1; shift
    fio --name=verify --filename="$dev" --rw=randwrite --bsrange=4k-128k --direct=1 --ioengine=libaio \
        --verify=crc32c --do_verify=1 --randrepeat=0 --size=24m "$@" --output=/tmp/rnbd-srv-fio.out
    local rc=$?
    grep -E "err=|WRITE:|READ:" /tmp/rnbd-srv-fio.out | sed 's/^/# /'
    [ $rc = 0 ] || cat /tmp/rnbd-srv-fio.out
    return $rc
}
expect_fail() { # DESCRIPTION-less: succeed iff the command fails
    if "$@" 2>/tmp/rnbd-srv-err; then echo "unexpectedly succeeded: $*"; return 1; fi
    sed 's/^/# /' /tmp/rnbd-srv-err; return 0
}

# must DESC CMD...: like check, but the remaining tests are skipped on failure.

tap_plan 37

setup_env() {
    # an earlier test may have left brd loaded with fewer or smaller disks
    grep -q "^brd " /proc/modules && { rmmod brd || return 1; }
    modprobe brd rd_nr=3 rd_size=$((ram_mib * 1024)) || return 1
    local i; for ((i = 0; i < 50; i++)); do [ -b /dev/ram2 ] && break; sleep 0.1; done
    modprobe loop && modprobe ib_core && modprobe rdma_cm || return 1
    mkdir -p "$tmpdir" && mount -t tmpfs -o size=$((img_mib + 24))m tmpfs "$tmpdir" || return 1
    mkdir -p "$mnt"
    dd if=/dev/urandom of="$img" bs=1M count=$img_mib status=none || return 1
    dd if=/dev/urandom of=/dev/ram1 bs=1M count=4 oflag=direct status=none || return 1
    # an image on ext4 (O_DIRECT capable, unlike tmpfs)
    mkfs.ext4 -q -F /dev/ram2 && mkdir -p "$tmpdir/ext4" && mount /dev/ram2 "$tmpdir/ext4" || return 1
    dd if=/dev/zero of="$img2" bs=1M count=16 status=none || return 1
    dd if=/dev/urandom of="$loopimg" bs=1M count=16 status=none || return 1
    loopdev2=$(losetup -f --show "$loopimg") && [ -b "$loopdev2" ] || { echo "losetup $loopimg failed"; return 1; }
    loopdev=$(losetup -f) && [ -b "$loopdev" ] || { echo "no free loop device"; return 1; }
    rxe_setup 1
}
desc="brd, an image file on tmpfs, a free loop device and Soft-RoCE are ready"
if setup_env; then ok "$desc"; else not_ok "$desc"; tap_skip_all "setup failed"; fi
addr=${RXE_ADDR[0]}

must "insmod our rtrs-server.ko (sess_queue_depth=128) and rnbd-server.ko file_export_dir=$tmpdir" \
    bash -c "insmod rtrs/rtrs-server.ko sess_queue_depth=128 && insmod rnbd/rnbd-server.ko file_export_dir=$tmpdir"
must "server sysfs roots exist (class ctl/devices and /sys/kernel/rnbd_server/devices)" \
    test -d "$srv_class" -a -d "$srv_kernel"
must "insmod Linux's rtrs-core, rtrs-client, rnbd-client" \
    bash -c "for m in ${upstream[*]}; do insmod $kodir/\$m.ko || exit 1; done"

must "map /dev/ram0 rw in session s1" map "sessname=s1 path=ip:$addr device_path=/dev/ram0"
ram_dev=$(dev_of /dev/ram0 s1)
check_size() { # dev bytes
    local got=$(( $(cat "/sys/block/${1#/dev/}/size") * 512 ))
    [ "$got" = "$2" ] || { echo "$1: $got bytes, expected $2"; return 1; }
}
check "$ram_dev has the size of /dev/ram0 ($ram_mib MiB)" check_size "$ram_dev" $((ram_mib << 20))

sysfs_rw() {
    local d base
    for base in "$srv_kernel" "$srv_class"; do
        d=$base/ram0
        [ "$(readlink -f "$d/block_dev")" = "$(readlink -f /sys/class/block/ram0)" ] ||
            { echo "$d/block_dev -> $(readlink -f "$d/block_dev")"; return 1; }
        [ "$(cat "$d/sessions/s1/read_only")" = 0 ] || { echo "read_only $(cat "$d/sessions/s1/read_only")"; return 1; }
        [ "$(cat "$d/sessions/s1/access_mode")" = rw ] || { echo "access_mode wrong"; return 1; }
        [ "$(cat "$d/sessions/s1/mapping_path")" = /dev/ram0 ] || { echo "mapping_path wrong"; return 1; }
        [ "$(cat "$d/sessions/s1/force_close")" = "Usage: echo 1 > force_close" ] || { echo "force_close usage wrong"; return 1; }
    done
}
check "server sysfs: devices/ram0/{block_dev, sessions/s1/{read_only=0, access_mode=rw, mapping_path, force_close usage}} in both trees" sysfs_rw
check "rmmod rnbd_server is refused while /dev/ram0 is exported" \
    bash -c 'expect() { ! rmmod rnbd_server 2>/dev/null && grep -q "^rnbd_server " /proc/modules; }; expect'

check "fio randwrite 4k-128k QD1 + crc32c verify on $ram_dev" fio_verify "$ram_dev" --iodepth=1 --size=8m
check "fio randwrite 4k-128k QD32 + crc32c verify on $ram_dev" fio_verify "$ram_dev" --iodepth=32
check "data read through $ram_dev equals /dev/ram0" bash -c "
    dd if=$ram_dev of=/tmp/a.img bs=1M count=24 iflag=direct status=none &&
    dd if=/dev/ram0 of=/tmp/b.img bs=1M count=24 iflag=direct status=none &&
    cmp /tmp/a.img /tmp/b.img && ! cmp -s -n $((24 << 20)) /tmp/b.img /dev/zero; rc=\$?; rm -f /tmp/a.img /tmp/b.img; exit \$rc"

fs_test() {
    mkfs.ext4 -q -F "$ram_dev" || return 1
    mount "$ram_dev" "$mnt" || return 1
    local i
    for i in 1 2 3 4; do dd if=/dev/urandom of="$mnt/f$i" bs=1M count=$((i * 2)) status=none || return 1; done
    (cd "$mnt" && sha256sum f1 f2 f3 f4) > /tmp/rnbd-srv-sums || return 1
    umount "$mnt" || return 1
    mount "$ram_dev" "$mnt" || return 1
    (cd "$mnt" && sha256sum -c --quiet /tmp/rnbd-srv-sums) || return 1
    umount "$mnt"
}
check "mkfs.ext4, files written, umount, remount: checksums match" fs_test
check "the filesystem is on /dev/ram0 too (fsck -n of the backing device)" fsck.ext4 -n -f /dev/ram0

check "map the image file $img (fileio) in session s1" map "sessname=s1 path=ip:$addr device_path=$img"
img_dev=$(dev_of "$img" s1)
check "$img_dev has the image's size ($img_mib MiB)" check_size "$img_dev" $((img_mib << 20))
imgname=${img//\//!}
check "server sysfs: devices/$imgname/sessions/s1/mapping_path = $img (no block_dev link)" bash -c \
    "[ \"\$(cat '$srv_kernel/$imgname/sessions/s1/mapping_path')\" = '$img' ] && [ ! -e '$srv_kernel/$imgname/block_dev' ]"
check "fio randwrite 4k-128k QD16 + crc32c verify on $img_dev (fileio)" fio_verify "$img_dev" --iodepth=16 --size=16m
check "data read through $img_dev equals the image file" bash -c "
    dd if=$img_dev of=/tmp/a.img bs=1M iflag=direct status=none && cmp /tmp/a.img $img; rc=\$?; rm -f /tmp/a.img; exit \$rc"

fs_img() {
    mkfs.ext4 -q -F "$img_dev" || return 1
    mount "$img_dev" "$mnt" || return 1
    dd if=/dev/urandom of="$mnt/f" bs=1M count=4 status=none && sync -f "$mnt/f" || return 1
    (cd "$mnt" && sha256sum f) > /tmp/rnbd-srv-sums && umount "$mnt" || return 1
    fsck.ext4 -n -f "$img" || return 1     # the filesystem is in the image file itself
    mount "$img_dev" "$mnt" && (cd "$mnt" && sha256sum -c --quiet /tmp/rnbd-srv-sums); local rc=$?
    umount "$mnt"; return $rc
}
check "fileio: mkfs.ext4 + files (journal flush/FUA) on $img_dev, the image file fscks clean, checksums survive remount" fs_img
discard_img() {
    local t=/tmp/rnbd-srv-d
    dd if=/dev/urandom of="$img_dev" bs=1M seek=8 count=2 oflag=direct status=none || return 1
    blkdiscard -f -o $((8 << 20)) -l $((1 << 20)) "$img_dev" || return 1
    dd if="$img" of=$t bs=1M skip=8 count=1 status=none && cmp -n $((1 << 20)) $t /dev/zero || return 1
    dd if="$img" of=$t bs=1M skip=9 count=1 status=none || return 1
    if cmp -s -n $((1 << 20)) $t /dev/zero; then echo "the MiB after the discarded one is zero too"; return 1; fi
}
check "fileio: blkdiscard of 1 MiB punches a hole in the image (zeros there, data next to it)" discard_img
check "map an image on ext4 ($img2, O_DIRECT writes) in session s1" map "sessname=s1 path=ip:$addr device_path=$img2"
img2_dev=$(dev_of "$img2" s1)
check "fio randwrite 4k-128k QD8 + crc32c verify on $img2_dev (fileio, direct writes)" fio_verify "$img2_dev" --iodepth=8 --size=8m
check "data read through $img2_dev equals the image file on ext4; unmap" bash -c "
    $(declare -f unmap); dd if=$img2_dev of=/tmp/a.img bs=1M iflag=direct status=none && cmp /tmp/a.img $img2 && unmap $img2_dev; rc=\$?; rm -f /tmp/a.img; exit \$rc"

check "map /dev/ram1 read-only in session s2" map "sessname=s2 path=ip:$addr device_path=/dev/ram1 access_mode=ro"
ro_dev=$(dev_of /dev/ram1 s2)
check "server sysfs: ram1/sessions/s2 read_only=1, access_mode=ro" bash -c \
    "[ \"\$(cat $srv_kernel/ram1/sessions/s2/read_only)\" = 1 ] && [ \"\$(cat $srv_kernel/ram1/sessions/s2/access_mode)\" = ro ]"
ro_write() {
    local before after
    before=$(dd if=/dev/ram1 bs=1M count=4 iflag=direct status=none | sha256sum)
    # Linux's client marks a ro mapping's disk read-only and refuses the
    # write itself; the server's own per-IO check is the second line.
    expect_fail dd if=/dev/zero of="$ro_dev" bs=4k count=4 oflag=direct status=none || return 1
    after=$(dd if=/dev/ram1 bs=1M count=4 iflag=direct status=none | sha256sum)
    [ "$before" = "$after" ] || { echo "/dev/ram1 changed"; return 1; }
    [ "$(dd if="$ro_dev" bs=1M count=4 iflag=direct status=none | sha256sum)" = "$after" ] ||
        { echo "reading $ro_dev does not give /dev/ram1's data"; return 1; }
}
check "writes through the ro mapping fail, /dev/ram1 is unchanged, reads give its data" ro_write

check "a second rw mapping of /dev/ram0 (session s2) fails with EPERM" bash -c \
    "expect_fail() { if \"\$@\" 2>/tmp/e; then return 1; fi; cat /tmp/e; grep -q 'Operation not permitted' /tmp/e; }; expect_fail eval 'echo \"sessname=s2 path=ip:$addr device_path=/dev/ram0\" > $ctl/map_device'"
check "a migration mapping of /dev/ram0 (session s2) is allowed as second writer" \
    map "sessname=s2 path=ip:$addr device_path=/dev/ram0 access_mode=migration"
mig_dev=$(dev_of /dev/ram0 s2)
check "a third writer (session s3, migration) fails with EPERM" bash -c \
    "if echo \"sessname=s3 path=ip:$addr device_path=/dev/ram0 access_mode=migration\" > $ctl/map_device 2>/tmp/e; then exit 1; fi; cat /tmp/e; grep -q 'Operation not permitted' /tmp/e"
check "unmap the migration mapping" unmap "$mig_dev"

force_close() {
    expect_fail bash -c "echo 2 > $srv_kernel/ram1/sessions/s2/force_close" || return 1
    echo 1 > "$srv_kernel/ram1/sessions/s2/force_close" || return 1
    wait_gone "$srv_kernel/ram1" || { echo "ram1 still exported"; return 1; }
    expect_fail dd if="$ro_dev" of=/dev/null bs=4k count=1 iflag=direct status=none || return 1
    unmap "$ro_dev"
}
check "force_close of ram1/s2: directory gone, IO fails, the client can still unmap" force_close

zero_size() {
    local dev
    map "sessname=s1 path=ip:$addr device_path=$loopdev" || return 1
    dev=$(dev_of "$loopdev" s1) || return 1
    check_size "$dev" 0 || return 1
    [ -d "$srv_kernel/${loopdev#/dev/}/sessions/s1" ] || { echo "no server sysfs for $loopdev"; return 1; }
    unmap "$dev"
}
check "an unbound loop device ($loopdev, size 0) maps with size 0 and unmaps" zero_size

loop_blockio() {
    local dev n l t=/tmp/rnbd-srv-d flushes discards
    map "sessname=s1 path=ip:$addr device_path=$loopdev2" || return 1
    dev=$(dev_of "$loopdev2" s1) || return 1
    n=${dev#/dev/} l=${loopdev2#/dev/}
    [ "$(cat /sys/block/$n/queue/write_cache)" = "write back" ] ||
        { echo "$n write_cache: $(cat /sys/block/$n/queue/write_cache)"; return 1; }
    [ "$(cat /sys/block/$n/queue/discard_max_bytes)" -gt 0 ] || { echo "$n has no discard"; return 1; }
    # /proc/diskstats after the name: field 12 discards, field 16 flushes completed
    flushes=$(awk -v d="$l" '$3 == d { print $19 }' /proc/diskstats)
    dd if=/dev/urandom of="$dev" bs=1M seek=4 count=2 oflag=direct conv=fsync status=none || return 1
    [ "$(awk -v d="$l" '$3 == d { print $19 }' /proc/diskstats)" -gt "$flushes" ] ||
        { echo "no flush reached $loopdev2"; return 1; }
    discards=$(awk -v d="$l" '$3 == d { print $15 }' /proc/diskstats)
    blkdiscard -f -o $((4 << 20)) -l $((1 << 20)) "$dev" || return 1
    [ "$(awk -v d="$l" '$3 == d { print $15 }' /proc/diskstats)" -gt "$discards" ] ||
        { echo "no discard reached $loopdev2"; return 1; }
    dd if="$loopimg" of=$t bs=1M skip=4 count=1 status=none && cmp -n $((1 << 20)) $t /dev/zero || return 1
    dd if="$loopimg" of=$t bs=1M skip=5 count=1 status=none || return 1
    if cmp -s -n $((1 << 20)) $t /dev/zero; then echo "the MiB after the discarded one is zero too"; return 1; fi
    unmap "$dev"
}
check "blockio on a loop device: write cache + discard announced; flush and discard reach $loopdev2 (diskstats, hole in its file)" loop_blockio

check "unmap $img_dev and $ram_dev" bash -c "$(declare -f unmap); unmap $img_dev && unmap $ram_dev"
check "server sysfs has no exported device left" bash -c \
    "wait() { for i in \$(seq 100); do [ -z \"\$(ls $srv_class)\" ] && return 0; sleep 0.1; done; ls $srv_class; return 1; }; wait"
check "rmmod of Linux's rnbd-client, rtrs-client, rtrs-core" bash -c 'rmmod rnbd_client && rmmod rtrs_client && rmmod rtrs_core'
check "rmmod rnbd_server and rtrs_server succeed once nothing is exported" bash -c 'rmmod rnbd_server && rmmod rtrs_server'

tap_done; exit $?
