#!/usr/bin/env bash
# Two paths on one chunk (security review N6; Documentation/security.md):
# the server's chunks belong to the session and are shared by its paths, so
# a client failing over re-sends a chunk id on another path while the old
# path's backend IO may still use that chunk. The hostile peer
# (rtrs/tests/kmod/rtrs-hostile.ko, case io_same_chunk_two_paths) builds two
# paths of one session, the second from the server's second rxe address,
# over a slow device: dm-delay over brd, reads 1.5 s and writes 3 s (the
# module's kSameChunkReadMs/kSameChunkWriteMs). Path A READs sector X in
# chunk 0; while that READ is in the backend, path B WRITEs sector Y in
# chunk 0. A server that serves B writes to Y what A's READ put in the chunk.
# Pass: B's WRITE answered with ENOMEM (retryable; the chunk untouched,
# counted in debugfs chunk_conflicts), A's READ returns X's data, Y is
# unchanged, B's retry succeeds and Y reads back as B wrote it; then a good
# client maps the device and verifies with fio, and everything unloads
# without a leak.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init chunk

slow=hostile-slow-chunk
cleanup() {
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    grep -q "^rnbd_server " /proc/modules && rmmod rnbd_server  # it may hold the dm device open
    dmsetup remove "$slow" >/dev/null 2>&1
    hostile_cleanup rtrs_hostile rnbd_client rtrs_client rnbd_server rtrs_server
}
trap cleanup EXIT

modprobe dm-delay 2>/dev/null
grep -q "^dm_delay " /proc/modules || tap_skip_all "no dm-delay in this kernel"
setup() {
    rxe_setup 2 >/dev/null && modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=65536 &&
        DM_DISABLE_UDEV=1 dmsetup create "$slow" --noudevsync \
            --table "0 $(blockdev --getsz /dev/ram0) delay /dev/ram0 0 1500 /dev/ram0 0 3000" &&
        [ -b "/dev/mapper/$slow" ]
}
check "setup: two rxe paths, brd behind dm-delay (reads 1.5 s, writes 3 s)" setup || tap_skip_all "setup failed"
addr=${RXE_ADDR[0]} addr2=${RXE_ADDR[1]}
mark chunk-012
counter() { cat /sys/kernel/debug/rtrs_server/"$1" 2>/dev/null || echo "?"; }

name=io_same_chunk_two_paths
check "rtrs-server + rnbd-server load" bash -c "insmod rtrs/rtrs-server.ko && insmod rnbd/rnbd-server.ko"
mark "$name"
t0=$SECONDS
check "$name: the hostile module loads and runs the case" \
    insmod $ko addr="$addr" addr2="$addr2" only="$name" blockdev=/dev/mapper/$slow
since_mark "$name" > "$tmp/log"
grep -E "rtrs_hostile: # $name:" "$tmp/log" | sed 's/^.*rtrs_hostile: # /# /'
grep -E "rtrs_server: .*chunk [0-9]+ refused" "$tmp/log" | head -3 | sed 's/^/# /'
diag "$name took $((SECONDS - t0)) s; rtrs-server chunk_conflicts $(counter chunk_conflicts)"
verdict=$(sed -nE "s/^.*rtrs_hostile: case $name: (.*)\$/\1/p" "$tmp/log")
case $verdict in
    "pass ("*) ok "$name: ${verdict#pass }" ;;
    "") not_ok "$name: the module reported no verdict" ;;
    *) not_ok "$name: $verdict" ;;
esac
check "the refusal is counted (debugfs chunk_conflicts >= 1)" [ "$(counter chunk_conflicts)" -ge 1 ]
check "the hostile module unloads" rmmod rtrs_hostile

fio_verify() { hostile_fio_verify /dev/rnbd0 1M 64k 8; }
check "a good client maps the slow device" bash -c \
    "insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko &&
     echo 'sessname=good-chunk path=ip:$addr path=ip:$addr2 device_path=/dev/mapper/$slow' > /sys/kernel/rnbd_client/map_device"
check "fio randwrite 4k-64k QD8 with crc32c verify on it" fio_verify
check "unmap" bash -c "echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
check "all modules unload" \
    bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"

if since_mark chunk-012 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
