#!/usr/bin/env bash
# Interop: Linux 6.1's rnbd-client maps our server's exports (013 has the
# rest with our client). An export admitting the client's address maps and
# passes fio --verify; one that does not, and a name that is not an export,
# are refused with the same ENOENT; removing the export closes the mapping
# (the client's IO fails). Runs inside the test VM:
#
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh rnbd/014
cd "$(dirname "$0")/../.." || exit 1
set -uo pipefail
. selftests/lib.sh
. selftests/lib-rxe.sh

require_upstream_client
require_tools fio cmp dd

ctl=/sys/class/rnbd-client/ctl
exports=/sys/class/rnbd-server/ctl/exports
base=/tmp/rnbd-exports-upstream
cleanup() {
    unmap_client_links "$ctl"
    unload_loaded rnbd-client rtrs-client rtrs-core rnbd_server rtrs_server
    rxe_teardown >/dev/null 2>&1
    rm -rf "$base"
    return 0
}
trap cleanup EXIT

tap_plan 10

setup() {
    mkdir -p "$base" || return 1
    if mod_loaded brd; then rmmod brd || return 1; fi
    rxe_setup 1 >/dev/null && modprobe brd rd_nr=1 rd_size=16384 && modprobe rdma_cm || return 1
    insmod rtrs/rtrs-server.ko && insmod rnbd/rnbd-server.ko || return 1
    local m
    for m in "${upstream[@]}"; do insmod "$kodir/$m.ko" || return 1; done
}
must "Soft-RoCE, brd, our server, Linux's client (${upstream[*]})" setup
addr=${RXE_ADDR[0]}

# map_errno SESSION DEVICE_PATH: OK or the errno name of Linux's client's map.
map_errno() { wr "$ctl/map_device" "sessname=$1 path=ip:$addr device_path=$2"; }
dev_of() { # DEVICE_PATH SESSION -> /dev/rnbdN
    local link="$ctl/devices/${1//\//!}@$2"
    wait_for 100 test -L "$link" || return 1
    echo "/dev/$(basename "$(readlink -f "$link")")"
}

expect_errno "add vol0 (/dev/ram0) for $addr/32" OK "$exports/add" "name=vol0 path=/dev/ram0 allow=ip:$addr/32"
expect_errno "add far (/dev/ram0 read-only) for 203.0.113.0/24 only" OK "$exports/add" \
    "name=far path=/dev/ram0 allow=ip:203.0.113.0/24 access=ro"
check "Linux's client maps vol0" test "$(map_errno up vol0)" = OK
dev=$(dev_of vol0 up)
fio_verify() {
    fio --name=verify --filename="$1" --rw=randwrite --bsrange=4k-128k --direct=1 --ioengine=libaio \
        --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --size=100% --output="$base/fio.out" >/dev/null
}
check "fio randwrite 4k-128k + crc32c verify over $dev" fio_verify "$dev"
check "what $dev reads is what the server's /dev/ram0 holds" cmp "$dev" /dev/ram0
check "an export that does not admit $addr is refused with ENOENT" test "$(map_errno up2 far)" = ENOENT
check "a name that is not an export is refused with ENOENT" test "$(map_errno up2 nothing)" = ENOENT
expect_errno "remove vol0" OK "$exports/remove" vol0
check "IO of the closed mapping fails on Linux's client" \
    bash -c "! dd if=$dev of=/dev/null bs=4k count=1 iflag=direct status=none"

tap_done; exit $?
