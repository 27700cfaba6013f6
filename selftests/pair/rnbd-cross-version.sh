#!/usr/bin/env bash
# Across kernel versions over the virtual wire (tools/vm/run-pair.sh): VM a
# boots Debian's 6.1 and exports a RAM disk, VM b boots Debian 12's 6.12 and
# maps it with our rnbd-client built for 6.12 (the tree tools/kernel-lane.sh
# leaves in build/kernel-6.12/tree). Rounds, each with fio crc32c verify
# over the whole device and ext4 across a remount:
#   1. our 6.1 server, our 6.12 client;
#   2. Linux 6.1's server (.cache/upstream), our 6.12 client;
#   3. our 6.1 server, Linux 6.12's client (.cache/upstream-6.12).
# No WRITE_ZEROES in any round: Linux's 6.1 server never offers it, ours
# offers what the device zeroes itself, and 6.1's brd zeroes nothing.
# Usage (host): selftests/pair/rnbd-cross-version.sh [--tree-b DIR] [run-pair.sh options]
# Not run by selftests/run.sh (two VMs).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ "${1:-}" != guest ]; then
    tree_b=$top/build/kernel-6.12/tree
    if [ "${1:-}" = --tree-b ]; then tree_b=$(cd "${2:?}" && pwd); shift 2; fi
    [ -f "$tree_b/rnbd/rnbd-client.ko" ] || { echo "no 6.12 build in $tree_b (run tools/kernel-lane.sh)" >&2; exit 2; }
    abi_b=$(cat "$top/.cache/kernel-6.12.abi")
    token=$(date +%s)-$$
    exec "$top/tools/vm/run-pair.sh" --timeout 600 --kdir-b "$top/.cache/kernel-6.12" --abi-b "$abi_b" "$@" \
        --cmd-a "$top/selftests/pair/rnbd-cross-version.sh guest a $token" \
        --cmd-b "$tree_b/selftests/pair/rnbd-cross-version.sh guest b $token"
fi
role=$2 token=$3
cd "$top" || exit 1
. selftests/lib.sh
require_root
R=${VM_RESULTS:-/results}
srv=192.0.2.1 clt=192.0.2.2
me=$srv; [ "$role" = b ] && me=$clt
flag() { echo "$R/rnbd-xv-$token.$1"; }
wait_file() { local i; for ((i = 0; i < $2 * 2; i++)); do [ -e "$1" ] && return 0; sleep 0.5; done; return 1; }
nic=$(for n in /sys/class/net/*; do [ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = virtio_net ] && basename "$n"; done | head -1)
[ -n "$nic" ] || tap_skip_all "no virtio-net NIC (not started by run-pair.sh?)"
net_up() {
    ip addr add "$me/24" dev "$nic" && ip link set "$nic" up || return 1
    modprobe rdma_rxe && modprobe rdma_cm && rdma link add rxe0 type rxe netdev "$nic" || return 1
    . selftests/lib-rxe.sh
    rxe_wait_active rxe0 10
}
check "$role: kernel $(uname -r), $nic up with $me, rxe0 on it ACTIVE" net_up
servers=(ours upstream ours) clients=(ours ours upstream)

if [ "$role" = a ]; then
    check "a: brd" modprobe brd rd_nr=1 rd_size=32768
    for i in 0 1 2; do
        check "a: round $((i + 1)): ${servers[$i]} 6.1 server loaded" rnbd_server_load "${servers[$i]}"
        touch "$(flag ready-$i)"
        check "a: round $((i + 1)): the client finished (within 400 s)" wait_file "$(flag done-$i)" 400
        check "a: round $((i + 1)): server unloaded" rnbd_server_unload
    done
    rdma link delete rxe0
    tap_done; exit $?
fi

tmp=$(mktemp -d /tmp/rnbd-xv.XXXXXX)
finish() {
    umount "$tmp/mnt" 2>/dev/null
    rnbd_unmap_all; rnbd_client_unload
    for d in /sys/block/rnbd*/rnbd/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    for m in rnbd_client rtrs_client rtrs_core; do mod_loaded $m && rmmod $m; done
    local i; for i in 0 1 2; do touch "$(flag done-$i)"; done
    rdma link delete rxe0 2>/dev/null
    rm -rf "$tmp"
}
trap finish EXIT
upkodir=$top/.cache/upstream-6.12
upstream_map() { # like rnbd_map, through Linux's control file
    local before after d
    before=$(ls /sys/block | grep '^rnbd' | sort)
    echo "$1" > /sys/class/rnbd-client/ctl/map_device || return 1
    after=$(ls /sys/block | grep '^rnbd' | sort)
    d=$(echo "$after" | grep -vxF -e "${before:-none}" | head -1)
    [ -n "$d" ] && wait_for 50 test -b "/dev/$d" && echo "$d"
}
for i in 0 1 2; do
    name="round $((i + 1)) (${servers[$i]} 6.1 server, ${clients[$i]} 6.12 client)"
    if [ "${clients[$i]}" = ours ]; then
        mod_loaded rnbd_client || check "b: our 6.12 rtrs-client, rnbd-client loaded" rnbd_client_load
    else
        check "b: Linux 6.12's rtrs-core, rtrs-client, rnbd-client loaded instead of ours" \
            eval 'rnbd_client_unload && insmod $upkodir/rtrs-core.ko && insmod $upkodir/rtrs-client.ko && insmod $upkodir/rnbd-client.ko'
    fi
    check "b: $name: the server is ready" wait_file "$(flag ready-$i)" 200
    line="sessname=xv$i path=ip:$clt@ip:$srv device_path=/dev/ram0"
    if [ "${clients[$i]}" = ours ]; then dev=$(rnbd_map "$line"); else dev=$(upstream_map "$line"); fi
    [ -n "$dev" ] || { not_ok "b: $name: map"; touch "$(flag done-$i)"; continue; }
    ok "b: $name: mapped as $dev"
    check "b: $name: no WRITE_ZEROES offered (none on 6.1's brd)" test "$(cat /sys/block/$dev/queue/write_zeroes_max_bytes)" = 0
    check "b: $name: fio randwrite 4k-128k QD16, crc32c verify over the whole device" \
        fio --name=v --filename=/dev/$dev --ioengine=libaio --direct=1 --size=100% --rw=randwrite \
        --bsrange=4k-128k --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$tmp/fio-$i.out"
    fs() {
        mkdir -p "$tmp/mnt" && mkfs.ext4 -q -F /dev/$dev && mount /dev/$dev "$tmp/mnt" || return 1
        dd if=/dev/urandom of="$tmp/mnt/f" bs=1M count=4 status=none && local sum && sum=$(md5sum < "$tmp/mnt/f") &&
            umount "$tmp/mnt" && mount /dev/$dev "$tmp/mnt" && [ "$(md5sum < "$tmp/mnt/f")" = "$sum" ] && umount "$tmp/mnt"
    }
    check "b: $name: mkfs.ext4, a file across a remount" fs
    ctl=rnbd_client; [ "${clients[$i]}" = ours ] || ctl=rnbd
    expect_errno "b: $name: unmap" OK "/sys/block/$dev/$ctl/unmap_device" normal
    touch "$(flag done-$i)"
done
tap_done; exit $?
