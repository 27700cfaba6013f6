#!/usr/bin/env bash
# Interop: our rnbd-client.ko + rtrs-client.ko against Linux 6.1's
# rnbd-server + rtrs-server + rtrs-core (built by tools/upstream/build.sh into
# .cache/upstream), over Soft-RoCE loopback on 192.0.2.1, serving brd
# /dev/ram0. Runs inside the test VM as root:
#
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh 002-client
#
# Environment: UPSTREAM_KO_DIR (default <repo>/.cache/upstream),
# RNBD_CYCLES (map/unmap cycles of the blktests-style loop, default 100).
set -uo pipefail
cd "$(dirname "$0")/../.."
. selftests/lib.sh
. selftests/lib-rxe.sh

cycles=${RNBD_CYCLES:-100}
ram_mib=64
sess=c1
tmpdir=/tmp/rnbd-clt-test
mnt=$tmpdir/mnt
kctl=/sys/kernel/rnbd_client
cctl=/sys/class/rnbd-client/ctl
vctl=/sys/devices/virtual/rnbd-client/ctl
upstream=(rtrs-core rtrs-server rnbd-server)

require_root
require_built rtrs/rtrs-client.ko rnbd/rnbd-client.ko
require_upstream "$kodir" "${upstream[@]}"
require_tools fio mkfs.ext4 rdma sha256sum cmp blockdev timeout

cleanup() {
    local d
    umount "$mnt" 2>/dev/null
    for d in /sys/block/rnbd*; do
        [ -e "$d/rnbd/unmap_device" ] && echo force > "$d/rnbd/unmap_device" 2>/dev/null
    done
    unload_loaded rnbd_client rtrs_client rnbd_server rtrs_server rtrs_core
    rxe_teardown >/dev/null 2>&1
    umount "$tmpdir" 2>/dev/null
    return 0
}
trap cleanup EXIT

# wr and expect_errno: selftests/lib.sh.
rnbd_disks() { ls -d /sys/block/rnbd* 2>/dev/null | wc -l; }
nothing_mapped() {
    [ "$(rnbd_disks)" = 0 ] && [ -z "$(ls -A $kctl/devices)" ] && [ -z "$(ls -A $cctl/devices)" ]
}
wait_dev() { # NAME
    local i
    for ((i = 0; i < 100; i++)); do [ -b "/dev/$1" ] && return 0; sleep 0.1; done
    [ -e "/dev/$1" ] && echo "# /dev/$1 exists but is not a block device: $(ls -l "/dev/$1")"
    return 1
}
wait_gone() { local i; for ((i = 0; i < 100; i++)); do [ -e "$1" ] || return 0; sleep 0.1; done; return 1; }
fio_verify() { # DEVICE NAME IODEPTH RW [extra]
    local dev=$1 name=$2 qd=$3 rw=$4; shift 4
    timeout 300 fio --name="$name" --filename="$dev" --rw="$rw" --bsrange=512-1m --blockalign=512 \
        --direct=1 --ioengine=libaio --iodepth="$qd" --size=24m --verify=crc32c --do_verify=1 \
        --verify_fatal=1 --randrepeat=0 --output-format=terse --terse-version=3 "$@" \
        >"$tmpdir/fio-$name.out" 2>&1
    local rc=$?
    [ $rc = 0 ] || { sed 's/^/# /' "$tmpdir/fio-$name.out" | tail -20; return $rc; }
    awk -F';' '{print "# fio '"$name"': error="$5" read KiB="$6" write KiB="$47}' "$tmpdir/fio-$name.out"
}

mkdir -p "$tmpdir" && mount -t tmpfs none "$tmpdir" && mkdir -p "$mnt"

# --- setup: upstream server side, our client side ---------------------------------
setup() {
    modprobe ib_core && modprobe rdma_cm || return 1
    if loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=$((ram_mib * 1024)) || return 1
    rxe_setup 1 || return 1
    local m
    for m in "${upstream[@]}"; do insmod "$kodir/$m.ko" || { echo "insmod $m failed"; return 1; }; done
    insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
check "setup: brd, rxe on ${RXE_ADDR[0]:-192.0.2.1}, upstream server modules, our client modules" setup
addr=${RXE_ADDR[0]:-192.0.2.1}
line="sessname=$sess path=ip:$addr device_path=/dev/ram0"

# The whole text rnbd-client prints: every option, the
# seed's "srcaddr,dstaddr" (a comma for '@'), the address forms.
usage_ok() {
    local want got f
    want=$(printf '%s\n' \
        'Usage: echo "sessname=<session name> path=<[srcaddr@]dstaddr> [path=<[srcaddr@]dstaddr>] device_path=<path of the device on the server> [access_mode=<ro|rw|migration>] [io_mode=<blockio|fileio>] [input_mode=<mq>] [dest_port=<server port>] [nr_poll_queues=<-1 for one per CPU, or a count>] [io_hold_timeout_ms=<0..3600000, default 60000>]" > map_device' \
        '' \
        "path= may be given up to 6 times, or left out to map another device over an existing session; a comma may stand for '@'." \
        'addr ::= [ ip:<ipv4> | ip:<ipv6> | gid:<gid> ]')
    for f in $kctl/map_device $cctl/map_device $vctl/map_device; do
        got=$(cat $f) || return 1
        [ "$got" = "$want" ] || { echo "$f reads:"; echo "$got"; echo "expected:"; echo "$want"; return 1; }
    done
}
check "map_device in /sys/kernel/rnbd_client, /sys/class/rnbd-client/ctl, /sys/devices/virtual/rnbd-client/ctl prints usage" usage_ok

# --- map ------------------------------------------------------------------------------
expect_errno "map $line" OK $kctl/map_device "$line"
check "/dev/rnbd0 appears" wait_dev rnbd0
dev=/dev/rnbd0
sysd=/sys/block/rnbd0
attrs_ok() {
    local d want=$((ram_mib * 2048))
    [ "$(cat $sysd/size)" = "$want" ] || { echo "size $(cat $sysd/size) != $want"; return 1; }
    for d in rnbd_client rnbd; do
        [ "$(cat $sysd/$d/state)" = open ] && [ "$(cat $sysd/$d/session)" = $sess ] &&
            [ "$(cat $sysd/$d/mapping_path)" = /dev/ram0 ] && [ "$(cat $sysd/$d/access_mode)" = rw ] ||
            { grep . $sysd/$d/* ; return 1; }
        grep -q '^Usage: echo <normal|force> > unmap_device' $sysd/$d/unmap_device || return 1
        [ -f $sysd/$d/remap_device ] && [ -f $sysd/$d/resize ] || return 1
    done
    [ "$(cat $sysd/ro)" = 0 ] || return 1
    diag "queue: lbs $(cat $sysd/queue/logical_block_size) pbs $(cat $sysd/queue/physical_block_size)" \
        "max_hw_sectors_kb $(cat $sysd/queue/max_hw_sectors_kb) max_segments $(cat $sysd/queue/max_segments)" \
        "discard_max $(cat $sysd/queue/discard_max_bytes) write_cache '$(cat $sysd/queue/write_cache)'" \
        "nr_hw_queues $(ls $sysd/mq | wc -l) nr_requests $(cat $sysd/queue/nr_requests)"
    [ "$(ls $sysd/mq | wc -l)" = "$(nproc)" ]
}
check "size, state, session, mapping_path, access_mode in rnbd_client/ and rnbd/; one hw queue per CPU" attrs_ok
links_ok() {
    [ "$(readlink -f "$kctl/devices/!dev!ram0")" = "$(readlink -f $sysd)" ] &&
        [ "$(readlink -f "$cctl/devices/!dev!ram0@$sess")" = "$(readlink -f $sysd)" ] &&
        [ "$(cat "$kctl/devices/!dev!ram0/dev")" = "$(cat $sysd/dev)" ]
}
check "links /sys/kernel/rnbd_client/devices/!dev!ram0 and /sys/class/rnbd-client/ctl/devices/!dev!ram0@$sess" links_ok
limits_ok() {
    # brd: 512-byte blocks, no discard; our transport: max IO <= the server's 124 KiB
    [ "$(cat $sysd/queue/logical_block_size)" = 512 ] && [ "$(cat $sysd/queue/max_hw_sectors_kb)" -le 124 ] &&
        [ "$(cat $sysd/queue/max_hw_sectors_kb)" -ge 4 ]
}
check "queue limits from OPEN_RSP and the transport" limits_ok

expect_errno "map the same device again" EEXIST $cctl/map_device "$line"
expect_errno "map a device the server does not have" ENOENT $kctl/map_device \
    "sessname=$sess path=ip:$addr device_path=/dev/ram7"
expect_errno "map a path with .. (the server refuses)" EINVAL $kctl/map_device \
    "sessname=$sess path=ip:$addr device_path=/dev/../dev/ram0"
check "failed maps left nothing behind" test "$(rnbd_disks)" = 1

# --- data ------------------------------------------------------------------------------
check "fio randwrite 512B-1MiB QD64 with crc32c verify" fio_verify $dev qd64 64 randwrite
check "fio write 512B-1MiB QD1 with crc32c verify" fio_verify $dev qd1 1 write
check "fio randrw 512B-1MiB QD16 with crc32c verify" fio_verify $dev rw16 16 randrw --verify_backlog=64
cmp_ok() {
    local a=$tmpdir/a.img b=$tmpdir/b.img rc=0
    dd if=$dev of=$a bs=1M count=24 iflag=direct status=none && dd if=/dev/ram0 of=$b bs=1M count=24 status=none || return 1
    cmp $a $b || rc=1
    cmp -s -n $((24 << 20)) $a /dev/zero && { echo "all zero"; rc=1; }
    rm -f $a $b
    return $rc
}
check "data read through /dev/rnbd0 equals /dev/ram0" cmp_ok
pattern_ok() {
    local f=$tmpdir/p.bin
    head -c 1048576 /dev/urandom > $f
    dd if=$f of=/dev/ram0 bs=1M seek=40 oflag=direct status=none conv=fsync || return 1
    blockdev --flushbufs /dev/ram0
    dd if=$dev of=$f.back bs=1M skip=40 count=1 iflag=direct status=none && cmp $f.back $f
}
check "data written on the server's /dev/ram0 reads back through /dev/rnbd0" pattern_ok

# Partitions: an MBR with one Linux partition from sector 2048, 16 MiB.
parts_ok() {
    local mbr=$tmpdir/mbr.bin
    head -c 446 /dev/zero > $mbr
    # status, CHS(3), type 0x83, CHS(3), LBA start 2048, 32768 sectors
    printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x80\x00\x00' >> $mbr
    head -c 48 /dev/zero >> $mbr
    printf '\x55\xaa' >> $mbr
    dd if=$mbr of=$dev bs=512 count=1 oflag=direct status=none conv=fsync || return 1
    blockdev --rereadpt $dev || return 1
    wait_dev rnbd0p1 || { ls /sys/block/rnbd0; return 1; }
    [ "$(cat /sys/block/rnbd0/rnbd0p1/size)" = 32768 ] || return 1
    head -c 65536 /dev/urandom > $tmpdir/part.bin
    dd if=$tmpdir/part.bin of=/dev/rnbd0p1 bs=64k oflag=direct status=none || return 1
    dd if=/dev/ram0 of=$tmpdir/part.back bs=512 skip=2048 count=128 status=none && cmp $tmpdir/part.back $tmpdir/part.bin || return 1
    dd if=/dev/zero of=$dev bs=512 count=1 oflag=direct status=none && blockdev --rereadpt $dev
    wait_gone /dev/rnbd0p1
}
check "partition table: /dev/rnbd0p1 appears, IO lands at its offset on the server" parts_ok

fs_ok() {
    mkfs.ext4 -q -F $dev || return 1
    mount $dev $mnt || return 1
    local i
    for i in 1 2 3 4 5; do head -c $((i * 300000 + 17)) /dev/urandom > $mnt/f$i || return 1; done
    mkdir -p $mnt/dir && cp $mnt/f3 $mnt/dir/copy && sync
    (cd $mnt && sha256sum f* dir/copy) > $tmpdir/sums
    umount $mnt && mount $dev $mnt || return 1
    (cd $mnt && sha256sum -c --quiet $tmpdir/sums)
}
check "mkfs.ext4, mount, files, remount, checksums" fs_ok
expect_errno "unmap_device normal while mounted" EBUSY $sysd/rnbd_client/unmap_device normal
check "still mapped and open after the refused unmap" test "$(cat $sysd/rnbd/state)" = open
remount_ok() { umount $mnt && mount -o ro $dev $mnt && (cd $mnt && sha256sum -c --quiet $tmpdir/sums) && umount $mnt; }
check "umount, read-only mount, checksums again, umount" remount_ok
expect_errno "unmap_device with a bad word" EINVAL $sysd/rnbd/unmap_device maybe
expect_errno "unmap_device normal through the rnbd/ alias" OK $sysd/rnbd/unmap_device normal
gone_ok() { wait_gone $sysd && nothing_mapped && [ ! -e "$kctl/devices/!dev!ram0" ]; }
check "device, links and directories gone" gone_ok
check "the upstream server closed the device" test -z "$(ls /sys/class/rnbd-server/ctl/devices/ 2>/dev/null)"

# --- read-only mapping -----------------------------------------------------------------
expect_errno "map access_mode=ro" OK $kctl/map_device "$line access_mode=ro"
ro_ok() {
    wait_dev rnbd0 || return 1
    [ "$(cat /sys/block/rnbd0/ro)" = 1 ] && [ "$(cat /sys/block/rnbd0/rnbd/access_mode)" = ro ] || return 1
    dd if=$dev of=/dev/null bs=1M count=4 iflag=direct status=none || return 1
    ! dd if=/dev/zero of=$dev bs=4k count=1 oflag=direct status=none 2>/dev/null
}
check "read-only device: ro=1, reads work, writes refused" ro_ok
expect_errno "a second mapping rw of the same device on another session" OK $kctl/map_device \
    "sessname=c2 path=ip:$addr device_path=/dev/ram0"
two_ok() {
    wait_dev rnbd1 && [ -L "$kctl/devices/!dev!ram0@c2" ] && [ -L "$cctl/devices/!dev!ram0@c2" ] &&
        [ "$(cat /sys/block/rnbd1/rnbd/session)" = c2 ]
}
check "second session c2: rnbd1, kernel link !dev!ram0@c2 (the seed name is taken)" two_ok
expect_errno "a third rw mapping without migration is refused by the server" EPERM $kctl/map_device \
    "sessname=c3 path=ip:$addr device_path=/dev/ram0"
expect_errno "unmap rnbd1" OK /sys/block/rnbd1/rnbd_client/unmap_device normal
expect_errno "unmap rnbd0" OK /sys/block/rnbd0/rnbd_client/unmap_device normal
check "nothing mapped" gone_ok

# --- resize and remap -----------------------------------------------------------------
expect_errno "map again" OK $kctl/map_device "$line"
wait_dev rnbd0
expect_errno "resize to 40960 sectors" OK /sys/block/rnbd0/rnbd/resize 40960
check "size is 40960" test "$(cat /sys/block/rnbd0/size)" = 40960
expect_errno "resize beyond the server's device" EINVAL /sys/block/rnbd0/rnbd/resize $((ram_mib * 2048 + 8))
# As upstream: the device is open on the server, there is nothing to re-open.
expect_errno "remap_device 1 on an open device" EALREADY /sys/block/rnbd0/rnbd/remap_device 1
check "remap_device refused: size still 40960, state open" \
    test "$(cat /sys/block/rnbd0/size) $(cat /sys/block/rnbd0/rnbd/state)" = "40960 open"

# --- force unmap with IO in flight -----------------------------------------------------
force_ok() {
    timeout 120 fio --name=bg --filename=$dev --rw=randrw --bs=64k --direct=1 --ioengine=libaio --iodepth=32 \
        --time_based --runtime=60 --size=16m >$tmpdir/fio-bg.out 2>&1 &
    local pid=$! rc i
    # Unmap only once fio has IO in flight (a fixed sleep raced fio's start
    # on a loaded machine).
    for ((i = 0; i < 300; i++)); do
        [ "$(awk '{ print $1 + $2 }' /sys/block/rnbd0/inflight)" -gt 0 ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    kill -0 $pid || { echo "fio ended early"; cat $tmpdir/fio-bg.out; return 1; }
    [ "$(wr /sys/block/rnbd0/rnbd/unmap_device force)" = OK ] || { echo "force refused"; return 1; }
    wait $pid; rc=$?
    echo "# fio exit $rc after force unmap"
    [ $rc != 0 ] && [ $rc != 124 ] || { tail -5 $tmpdir/fio-bg.out; return 1; }
    wait_gone /sys/block/rnbd0 && nothing_mapped
}
check "unmap_device force while fio runs: IO fails, fio ends, device gone" force_ok

# --- session disconnect and reconnect --------------------------------------------------
expect_errno "map for the reconnect test" OK $kctl/map_device "$line"
reconnect_ok() {
    wait_dev rnbd0 || return 1
    local p=(/sys/class/rtrs-server/$sess/paths/*)
    [ -e "${p[0]}/disconnect" ] || { echo "no server path to disconnect"; return 1; }
    # No hold (as Linux's client): IO fails as soon as the path is gone.
    # Holding IO across an outage is selftests/rnbd/021's.
    echo 0 > /sys/class/rtrs-client/$sess/io_hold_timeout_ms || return 1
    echo 1 > "${p[0]}/disconnect" || return 1
    local i
    for ((i = 0; i < 100; i++)); do [ "$(cat /sys/block/rnbd0/rnbd/state)" = closed ] && break; sleep 0.1; done
    [ "$(cat /sys/block/rnbd0/rnbd/state)" = closed ] || { echo "state $(cat /sys/block/rnbd0/rnbd/state)"; return 1; }
    if dd if=$dev of=/dev/null bs=4k count=1 iflag=direct status=none 2>$tmpdir/dd.err; then
        echo "IO succeeded while closed"; return 1
    fi
    grep -q 'Input/output error' $tmpdir/dd.err || { cat $tmpdir/dd.err; return 1; }
    local start=$SECONDS
    while [ $((SECONDS - start)) -lt 120 ]; do [ "$(cat /sys/block/rnbd0/rnbd/state)" = open ] && break; sleep 0.5; done
    echo "# state after $((SECONDS - start)) s: $(cat /sys/block/rnbd0/rnbd/state)"
    [ "$(cat /sys/block/rnbd0/rnbd/state)" = open ] || return 1
    fio_verify $dev after-reconnect 8 randwrite --size=4m
}
check "server disconnects the path (io_hold_timeout_ms 0): state closed, IO fails with EIO; reconnect: open again, IO verified" reconnect_ok
expect_errno "unmap after reconnect" OK /sys/block/rnbd0/rnbd/unmap_device normal
wait_gone /sys/block/rnbd0

# --- blktests-style map/unmap cycle ------------------------------------------------------
cycle_ok() {
    local i d
    for ((i = 1; i <= cycles; i++)); do
        echo "sessname=blktest path=ip:$addr device_path=/dev/ram0" > $vctl/map_device || { echo "map $i failed"; return 1; }
        for d in /sys/block/rnbd*; do
            echo normal > $d/rnbd/unmap_device || { echo "unmap $i failed"; return 1; }
        done
    done
    nothing_mapped
}
check "$cycles x map via /sys/devices/virtual/rnbd-client/ctl/map_device + unmap via /sys/block/rnbd*/rnbd/unmap_device" cycle_ok

rmmod_ok() {
    rmmod rnbd_client && rmmod rtrs_client || return 1
    local m; for m in rnbd_server rtrs_server rtrs_core; do rmmod $m || return 1; done
}
check "rmmod our client modules and the upstream server modules" rmmod_ok
expect_no_leak "no leak reports from our modules" "$(dmesg)" 'cxxrt: leak|still alive at unload'
tap_done; exit $?
