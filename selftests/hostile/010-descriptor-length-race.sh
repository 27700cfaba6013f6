#!/usr/bin/env bash
# The one-fetch rule under attack (Documentation/security.md): the hostile
# peer (rtrs/tests/kmod/rtrs-hostile.ko) sends READs whose descriptor says
# 4 KiB and whose RNBD header asks for 1 MiB, while the descriptor's length
# in the chunk keeps being RDMA-written with 4 KiB and 1 MiB. A server that
# reads the length twice (checks 4 KiB, uses 1 MiB) reads 1 MiB of the
# device into a 64 KiB chunk. Two rounds, each against a fresh rtrs-server
# with 64 KiB chunks (a wrongly accepted READ's answer reaches the module,
# which counts it):
#   io_read_desc_len_race: always_invalidate=0, the writes come from a
#     second connection of the requesting path (its own key stays valid);
#   io_read_desc_len_race_second_path: always_invalidate=1 (the default),
#     the writes come from a second path of the same session, from the
#     server's second address (the requesting path's key is invalidated,
#     the second path's key for the chunk is not).
# Pass: no raced READ answered with success, then the server serves a good
# client (fio verify), everything unloads, no leak. Also in the debug lane
# (KASAN) and on 6.12.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init race

cleanup() { hostile_cleanup rtrs_hostile rnbd_client rtrs_client rnbd_server rtrs_server; }
trap cleanup EXIT

# Every rebuilt path of the race is a new session from the same address:
# the per-client session limit is raised so that closing ones never refuse it.
common_args="max_chunk_size=65536 sess_queue_depth=16 max_sessions_per_client=64"
setup() {
    rxe_setup 2 >/dev/null && modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=65536
}
check "setup: two rxe paths, brd" setup || tap_skip_all "setup failed"
addr=${RXE_ADDR[0]} addr2=${RXE_ADDR[1]}
mark race-010

fio_verify() { hostile_fio_verify /dev/rnbd0 "${HOSTILE_FIO_SIZE:-8M}" 64k 8; }

race() { # case server-args
    local name=$1 args="$2 $common_args" verdict t0
    check "$name: rtrs-server ($args) + rnbd-server load" \
        bash -c "insmod rtrs/rtrs-server.ko $args && insmod rnbd/rnbd-server.ko"
    mark "$name"
    t0=$SECONDS
    check "$name: the hostile module loads and runs the case" \
        insmod $ko addr="$addr" addr2="$addr2" only="$name" blockdev=/dev/ram0
    since_mark "$name" > "$tmp/log"
    grep -E "rtrs_hostile: # $name:" "$tmp/log" | sed 's/^.*rtrs_hostile: # /# /'
    diag "$name took $((SECONDS - t0)) s"
    verdict=$(sed -nE "s/^.*rtrs_hostile: case $name: (.*)\$/\1/p" "$tmp/log")
    case $verdict in
        "pass ("*) ok "$name: ${verdict#pass }" ;;
        "") not_ok "$name: the module reported no verdict" ;;
        *) not_ok "$name: $verdict" ;;
    esac
    check "$name: the hostile module unloads" rmmod rtrs_hostile
    check "$name: a good client maps /dev/ram0 after the race" bash -c \
        "insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko &&
         echo 'sessname=good-race path=ip:$addr device_path=/dev/ram0' > /sys/kernel/rnbd_client/map_device"
    check "$name: fio randwrite 4k-64k QD8 with crc32c verify on it" fio_verify
    check "$name: unmap" bash -c "echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
    check "$name: all modules unload" \
        bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"
}
race io_read_desc_len_race "always_invalidate=0"
race io_read_desc_len_race_second_path "always_invalidate=1"

if since_mark race-010 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
