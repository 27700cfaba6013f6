#!/usr/bin/env bash
# rnbd-server module parameters, with Linux 6.1's rnbd-client as the peer:
# dev_search_path with %SESSNAME%, '..' refused, missing devices, a search
# path too long refused at load, and port_nr. Runs inside the test VM:
#
#   tools/vm/run.sh --timeout 600 -- selftests/run.sh 002-server
set -uo pipefail
cd "$(dirname "$0")/../.."
. selftests/lib.sh
. selftests/lib-rxe.sh

base=/tmp/rnbd-srv-sp
ctl=/sys/class/rnbd-client/ctl
srv=/sys/kernel/rnbd_server/devices
port=4321

require_root
for f in rtrs/rtrs-server.ko rnbd/rnbd-server.ko "$kodir/rtrs-core.ko" "$kodir/rtrs-client.ko" "$kodir/rnbd-client.ko"; do
    [ -f "$f" ] || tap_skip_all "$f missing (make; tools/upstream/build.sh)"
done

cleanup() {
    unmap_client_links "$ctl"
    unload_loaded rnbd_client rtrs_client rtrs_core rnbd_server rtrs_server
    rxe_teardown >/dev/null 2>&1
    rm -rf "$base"
    return 0
}
trap cleanup EXIT

# map_fails ERRNO-TEXT OPTIONS...: the map_device write fails with that message.
map_fails() {
    local want=$1; shift
    if echo "$*" > "$ctl/map_device" 2>/tmp/rnbd-srv-sp-err; then echo "map succeeded: $*"; return 1; fi
    cat /tmp/rnbd-srv-sp-err
    grep -q "$want" /tmp/rnbd-srv-sp-err
}
dev_of() {
    local link="$ctl/devices/${1//\//!}@$2" i
    for ((i = 0; i < 100; i++)); do
        [ -L "$link" ] && { echo "/dev/$(basename "$(readlink -f "$link")")"; return 0; }
        sleep 0.1
    done
    return 1
}
unmap() {
    local n=${1#/dev/} i
    echo normal > "/sys/block/$n/rnbd/unmap_device" || return 1
    for ((i = 0; i < 100; i++)); do [ -e "/sys/block/$n" ] || return 0; sleep 0.1; done
    return 1
}

tap_plan 12

setup_env() {
    modprobe brd rd_nr=1 rd_size=16384 && modprobe ib_core && modprobe rdma_cm || return 1
    mkdir -p "$base/s9" && ln -sfn /dev/ram0 "$base/s9/disk" || return 1
    dd if=/dev/urandom of="$base/s9/img" bs=1M count=4 status=none || return 1
    rxe_setup 1
}
must "brd, $base/s9/{disk -> /dev/ram0, img} and Soft-RoCE are ready" setup_env
addr=${RXE_ADDR[0]}

check "insmod rnbd-server.ko with a dev_search_path of 4096 bytes is refused" bash -c \
    "insmod rtrs/rtrs-server.ko sess_queue_depth=64 || exit 1; ! insmod rnbd/rnbd-server.ko dev_search_path=/\$(printf 'a%.0s' \$(seq 4095)) 2>/dev/null"
must "insmod rnbd-server.ko port_nr=$port dev_search_path=$base/%SESSNAME%/ignored file_export_dir=$base" \
    insmod rnbd/rnbd-server.ko port_nr=$port "dev_search_path=$base/%SESSNAME%/ignored" "file_export_dir=$base"
check "parameters read back (port_nr, dev_search_path)" bash -c \
    "[ \$(cat /sys/module/rnbd_server/parameters/port_nr) = $port ] && [ \"\$(cat /sys/module/rnbd_server/parameters/dev_search_path)\" = '$base/%SESSNAME%/ignored' ]"
must "insmod Linux's rtrs-core, rtrs-client, rnbd-client" \
    bash -c "for m in rtrs-core rtrs-client rnbd-client; do insmod $kodir/\$m.ko || exit 1; done"

check "map device_path=disk in session s9 (dest_port=$port): $base/s9/disk is opened" \
    bash -c "echo 'sessname=s9 dest_port=$port path=ip:$addr device_path=disk' > $ctl/map_device"
disk_dev=$(dev_of disk s9)
check "server sysfs: devices/ram0/sessions/s9/mapping_path = disk; same data as /dev/ram0" bash -c "
    [ \"\$(cat $srv/ram0/sessions/s9/mapping_path)\" = disk ] &&
    dd if=/dev/urandom of=$disk_dev bs=64k count=16 oflag=direct status=none &&
    dd if=$disk_dev of=/tmp/a bs=1M count=1 iflag=direct status=none &&
    dd if=/dev/ram0 of=/tmp/b bs=1M count=1 iflag=direct status=none && cmp /tmp/a /tmp/b"
check "map device_path=img (a regular file in the session's directory, inside file_export_dir)" bash -c "
    echo 'sessname=s9 dest_port=$port path=ip:$addr device_path=img' > $ctl/map_device"
img_dev=$(dev_of img s9)
check "a device path with '..' is refused (EINVAL)" \
    map_fails "Invalid argument" "sessname=s9 dest_port=$port path=ip:$addr device_path=../s9/img"
check "a device that does not exist is refused (ENOENT)" \
    map_fails "No such file or directory" "sessname=s9 dest_port=$port path=ip:$addr device_path=nothing"
check "another session does not see s9's directory (ENOENT)" \
    map_fails "No such file or directory" "sessname=s8 dest_port=$port path=ip:$addr device_path=disk"
check "unmap both, rmmod everything" bash -c "$(declare -f unmap); unmap $img_dev && unmap $disk_dev &&
    rmmod rnbd_client && rmmod rtrs_client && rmmod rtrs_core && rmmod rnbd_server && rmmod rtrs_server"

tap_done; exit $?
