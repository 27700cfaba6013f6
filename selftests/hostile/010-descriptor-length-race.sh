#!/usr/bin/env bash
# The one-fetch rule under attack (Documentation/security.md): the hostile
# peer (rtrs/tests/kmod/rtrs-hostile.ko, case io_read_desc_len_race) sends
# READs whose descriptor says 4 KiB and whose RNBD header asks for 1 MiB,
# while a second connection of its path keeps RDMA-writing 4 KiB and 1 MiB
# into the descriptor's length in the chunk. A server that reads the length
# twice (checks 4 KiB, uses 1 MiB) reads 1 MiB of the device into a 64 KiB
# chunk. rtrs-server runs with always_invalidate=0 (the path's own key
# reaches the chunk while the server works) and 64 KiB chunks (a wrongly
# accepted READ's answer reaches the module, which counts it). Pass: no
# raced READ answered with success, then the server serves a good client
# (fio verify), everything unloads, no leak. Also in the debug lane (KASAN).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init race

cleanup() { hostile_cleanup rtrs_hostile rnbd_client rtrs_client rnbd_server rtrs_server; }
trap cleanup EXIT

srv_args="always_invalidate=0 max_chunk_size=65536 sess_queue_depth=16"
setup() {
    rxe_setup 1 >/dev/null && modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=65536 || return 1
    insmod rtrs/rtrs-server.ko $srv_args && insmod rnbd/rnbd-server.ko
}
check "setup: rxe, brd, rtrs-server ($srv_args) + rnbd-server" setup || tap_skip_all "setup failed"
addr=${RXE_ADDR[0]}

mark race-010
t0=$SECONDS
check "the hostile module loads and runs io_read_desc_len_race" \
    insmod $ko addr="$addr" only=io_read_desc_len_race blockdev=/dev/ram0
since_mark race-010 > "$tmp/log"
grep -E 'rtrs_hostile: # io_read_desc_len_race' "$tmp/log" | sed 's/^.*rtrs_hostile: # /# /'
diag "the race took $((SECONDS - t0)) s"
verdict=$(sed -nE 's/^.*rtrs_hostile: case io_read_desc_len_race: (.*)$/\1/p' "$tmp/log")
case $verdict in
    "pass ("*) ok "io_read_desc_len_race: ${verdict#pass }" ;;
    "") not_ok "io_read_desc_len_race: the module reported no verdict" ;;
    *) not_ok "io_read_desc_len_race: $verdict" ;;
esac
check "the hostile module unloads" rmmod rtrs_hostile

check "a good client maps /dev/ram0 after the race" bash -c \
    "insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko &&
     echo 'sessname=good-race path=ip:$addr device_path=/dev/ram0' > /sys/kernel/rnbd_client/map_device"
fio_verify() {
    fio --name=after-race --filename=/dev/rnbd0 --ioengine=libaio --direct=1 --size=8M --rw=randwrite \
        --bsrange=4k-64k --iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --output="$tmp/fio.out" >/dev/null 2>&1 || { sed 's/^/# /' "$tmp/fio.out" | tail -5; return 1; }
}
check "fio randwrite 4k-64k QD8 with crc32c verify on it" fio_verify
check "unmap" bash -c "echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
check "all modules unload" bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"
if since_mark race-010 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
