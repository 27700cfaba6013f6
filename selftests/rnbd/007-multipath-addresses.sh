#!/usr/bin/env bash
# map_device with several paths and every address form, live, our whole
# stack over two Soft-RoCE loopback paths (each rxe device looping back to
# its own IPv4 and IPv6 address):
#   - two ip: IPv4 paths in one map_device line: both connected, fio
#     --verify passes and each path carried writes (round-robin);
#   - two ip: IPv6 paths (2001:db8:<i>::1): the same;
#   - one IPv4 and one IPv6 path in one session: the same.
#   - gid: addresses (AF_IB) with each of rxe0's GIDs: the map fails at once
#     with ENODEV (RDMA-CM resolves the address on the RoCE port, then finds
#     no netdev for the route), names the path in the kernel log and leaves
#     no session; bounded at 30 s, else the writer's stack is shown;
#   - one ip: and one gid: path: the map succeeds on the ip: path, fio
#     verify; the gid: path stays down (Documentation/testing.md);
#   - our client modules unload afterwards (a leak shows as "cxxrt: leak").
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnbd-mp.XXXXXX)
cleanup() {
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
    RXE_IPV6=1 rxe_setup 2 >/dev/null || return 1
    modprobe brd rd_nr=1 rd_size=32768 || return 1
    rnbd_server_load ours && rnbd_client_load
}
check "setup: two rxe paths with IPv4 and IPv6 addresses, brd, our four modules" setup

fio_verify() { # dev name
    fio --name="$2" --filename="/dev/$1" --ioengine=libaio --direct=1 --size=8m --rw=randwrite --bsrange=4k-128k \
        --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$tmp/$2.out" >/dev/null 2>&1 ||
        { tail -5 "$tmp/$2.out"; return 1; }
}
path_writes() { awk '{ print $3 }' "$1/stats/rdma"; }
# The address as sysfs shows it (IPv6 compressed: 2001:db8:0::1 is 2001:db8::1).
shown() { case $1 in *:*) ip -6 route get "$1" 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "to" || $i == "local") { print $(i + 1); exit } }' ;; *) echo "$1" ;; esac; }
# two_paths SESSION ADDR0 ADDR1: map over both, verify, both paths carried IO, unmap
two_paths() {
    local s=$1 dev rc
    dev=$(rnbd_map "sessname=$s path=ip:$2 path=ip:$3 device_path=/dev/ram0") || { diag "map failed"; return 1; }
    two_paths_mapped "$@"; rc=$?
    echo normal > "/sys/block/$dev/rnbd_client/unmap_device" || rc=1
    return $rc
}
two_paths_mapped() {
    local s=$1 a0 a1 p n=0 w
    a0=$(shown "$2") a1=$(shown "$3")
    for p in /sys/class/rtrs-client/$s/paths/*; do
        [ "$(cat "$p/state")" = connected ] || { diag "$p: $(cat "$p/state")"; return 1; }
        n=$((n + 1))
    done
    [ $n = 2 ] || { diag "$n paths"; return 1; }
    grep -qx "ip:$a0" /sys/class/rtrs-client/$s/paths/*/dst_addr && grep -qx "ip:$a1" /sys/class/rtrs-client/$s/paths/*/dst_addr ||
        { diag "dst_addr: $(cat /sys/class/rtrs-client/$s/paths/*/dst_addr), want ip:$a0 and ip:$a1"; return 1; }
    echo rr > /sys/class/rtrs-client/$s/mpath_policy || return 1
    fio_verify "$dev" "$s" || return 1
    for p in /sys/class/rtrs-client/$s/paths/*; do
        w=$(path_writes "$p")
        diag "$(basename "$p"): $w writes"
        [ "$w" -gt 0 ] || return 1
    done
}
check "two IPv4 paths (ip:${RXE_ADDR[0]} ip:${RXE_ADDR[1]}): both connected, fio verify, IO on both" \
    two_paths mp4 "${RXE_ADDR[0]}" "${RXE_ADDR[1]}"
check "two IPv6 paths (ip:${RXE_ADDR6[0]} ip:${RXE_ADDR6[1]}): both connected, fio verify, IO on both" \
    two_paths mp6 "${RXE_ADDR6[0]}" "${RXE_ADDR6[1]}"
check "one IPv4 and one IPv6 path: both connected, fio verify, IO on both" \
    two_paths mpx "${RXE_ADDR[0]}" "${RXE_ADDR6[1]}"

# The writer and its children, for their kernel stacks.
tree() { local c; echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }
# gid_map SESSION GID: map over gid:GID alone in the background; fails if the
# write is still blocked after 30 s (stacks shown), else expects ENODEV, the
# path named in the kernel log and nothing left behind.
gid_map() {
    local s=$1 gid=$2 pid t=0 p got
    ( wr /sys/kernel/rnbd_client/map_device "sessname=$s path=gid:$gid device_path=/dev/ram0" > "$tmp/$s.rc" ) &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if [ $t -ge 300 ]; then
            diag "map_device still blocked after 30 s; stacks:"
            for p in $(tree "$pid"); do diag "pid $p:"; sed 's/^/#   /' "/proc/$p/stack"; done
            echo w > /proc/sysrq-trigger
            return 1
        fi
        sleep 0.1; t=$((t + 1))
    done
    wait "$pid"
    got=$(cat "$tmp/$s.rc")
    diag "gid:$gid: $got after ~$((t / 10)).$((t % 10)) s"
    [ "$got" = ENODEV ] || return 1
    dmesg | grep -qF "session $s: path gid:$gid: connect failed (-19)" || { diag "no log line naming the path"; return 1; }
    [ ! -e "/sys/class/rtrs-client/$s" ] || { diag "session $s left in sysfs"; return 1; }
    for p in /sys/block/rnbd*; do [ ! -e "$p" ] || { diag "a device left: $p"; return 1; }; done
}
gids=/sys/class/infiniband/${RXE_DEV[0]}/ports/1/gids
for i in 0 1 2; do
    gid=$(cat "$gids/$i" 2>/dev/null)
    case $gid in ""|0000:0000:0000:0000:0000:0000:0000:0000) skip "gid: map with rxe0's GID $i" "no GID $i"; continue ;; esac
    check "gid:$gid (rxe0's GID $i, AF_IB on RoCE): ENODEV within 30 s, path logged, no session left" gid_map "gid$i" "$gid"
done

# ip_and_gid SESSION IP GID: the session comes up on the ip: path alone.
ip_and_gid() {
    local s=$1 dev rc=0 n=0 p
    dev=$(rnbd_map "sessname=$s path=ip:$2 path=gid:$3 device_path=/dev/ram0") || { diag "map failed"; return 1; }
    for p in /sys/class/rtrs-client/$s/paths/*; do
        [ "$(cat "$p/state")" = connected ] && [ "$(cat "$p/dst_addr")" = "ip:$2" ] || { diag "$p: $(cat "$p/state") $(cat "$p/dst_addr")"; rc=1; }
        n=$((n + 1))
    done
    [ $n = 1 ] || { diag "$n path directories, want the ip: one"; rc=1; }
    dmesg | grep -qF "session $s: path gid:$3: connect failed (-19)" || { diag "no log line naming the gid: path"; rc=1; }
    [ $rc = 0 ] && { fio_verify "$dev" "$s" || rc=1; }
    echo normal > "/sys/block/$dev/rnbd_client/unmap_device" || rc=1
    wait_for 50 test ! -e "/sys/class/rtrs-client/$s" || { diag "session $s left in sysfs"; rc=1; }
    return $rc
}
gid=$(cat "$gids/0")
check "ip:${RXE_ADDR[0]} and gid:$gid: mapped over the ip: path, fio verify, the gid: path down" \
    ip_and_gid mpg "${RXE_ADDR[0]}" "$gid"
check "our client modules unload" rnbd_client_unload

tap_done; exit $?
