#!/usr/bin/env bash
# Across kernel versions over the virtual wire (tools/vm/run-pair.sh): VM a
# boots Debian's 6.1 with our modules of this tree, VM b boots Debian 12's
# 6.12 with our modules built for 6.12 (the tree tools/kernel-lane.sh leaves
# in build/kernel-6.12/tree). Each VM serves a RAM disk (brd, 16 MiB) in
# some rounds and maps the other's in the rest; Linux's RNBD/RTRS of each
# VM's own kernel (.cache/upstream, .cache/upstream-6.12) stands in for
# ours on one side. Rounds, each with map, fio crc32c verify over the whole
# device, ext4 across a remount, unmap:
#   forward (6.1 serves 6.12):  1. ours/ours  2. Linux 6.1 server/our client
#                               3. our server/Linux 6.12 client
#   reverse (6.12 serves 6.1):  4. ours/ours  5. Linux 6.12 server/our client
#                               6. our server/Linux 6.1 client
# WRITE_ZEROES: the client's disk offers what the server offered, and only a
# 6.12 server (ours or Linux's) with a 6.12-aware client (ours, Linux
# 6.12's) offers the device's own zeroing: brd zeroes nothing on either
# kernel, so every round expects 0 and checks it against the server's
# device (a server VM writes its brd's limit to the shared results dir).
# Usage (host): selftests/pair/rnbd-cross-version.sh [--tree-b DIR]
#                 [--rounds forward|reverse|both] [run-pair.sh options]
# (default both: one boot of each VM for the six rounds).
# Not run by selftests/run.sh (two VMs).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ "${1:-}" != guest ]; then
    tree_b=$top/build/kernel-6.12/tree rounds=both
    while [ $# -gt 0 ]; do
        case "$1" in
            --tree-b) tree_b=$(cd "${2:?}" && pwd); shift 2 ;;
            --rounds) rounds=${2:?}; shift 2 ;;
            *) break ;;
        esac
    done
    case $rounds in forward|reverse|both) ;; *) echo "--rounds: forward, reverse or both, not '$rounds'" >&2; exit 2 ;; esac
    [ -f "$tree_b/rnbd/rnbd-client.ko" ] || { echo "no 6.12 build in $tree_b (run tools/kernel-lane.sh)" >&2; exit 2; }
    abi_b=$(cat "$top/.cache/kernel-6.12.abi")
    token=$(date +%s)-$$
    exec "$top/tools/vm/run-pair.sh" --timeout 900 --kdir-b "$top/.cache/kernel-6.12" --abi-b "$abi_b" "$@" \
        --cmd-a "$top/selftests/pair/rnbd-cross-version.sh guest a $token $rounds" \
        --cmd-b "$tree_b/selftests/pair/rnbd-cross-version.sh guest b $token $rounds"
fi
role=$2 token=$3 which=$4
cd "$top" || exit 1
. selftests/lib.sh
require_root
R=${VM_RESULTS:-/results}
declare -A addr=([a]=192.0.2.1 [b]=192.0.2.2)
me=${addr[$role]}
kernel=$(uname -r | cut -d. -f1,2)
upkodir=$top/.cache/upstream; [ "$kernel" = 6.12 ] && upkodir=$top/.cache/upstream-6.12
export UPSTREAM_KO_DIR=$upkodir
# round: serving VM, server, client (ours|upstream, each of its VM's kernel)
all=("a ours ours" "a upstream ours" "a ours upstream" "b ours ours" "b upstream ours" "b ours upstream")
case $which in forward) first=0 last=2 ;; reverse) first=3 last=5 ;; *) first=0 last=5 ;; esac
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
check "$role: brd (16 MiB, served in this VM's server rounds)" modprobe brd rd_nr=1 rd_size=16384

tmp=$(mktemp -d /tmp/rnbd-xv.XXXXXX)
client_unload_all() { # ours or Linux's
    rnbd_client_unload || return 1
    local m; for m in rnbd_client rtrs_client rtrs_core; do mod_loaded $m && { rmmod $m || return 1; }; done
    return 0
}
finish() {
    umount "$tmp/mnt" 2>/dev/null
    for d in /sys/block/rnbd*/rnbd_client/unmap_device /sys/block/rnbd*/rnbd/unmap_device; do
        [ -e "$d" ] && echo force > "$d" 2>/dev/null
    done
    client_unload_all; rnbd_server_unload
    # let the other VM go on (or end) without waiting out its timeouts
    local i; for ((i = first; i <= last; i++)); do touch "$(flag ready-$i)" "$(flag done-$i)"; done
    rdma link delete rxe0 2>/dev/null
    rm -rf "$tmp"
}
trap finish EXIT
upstream_map() { # like rnbd_map, through Linux's control file
    local before after d
    before=$(ls /sys/block | grep '^rnbd' | sort)
    echo "$1" > /sys/class/rnbd-client/ctl/map_device || return 1
    after=$(ls /sys/block | grep '^rnbd' | sort)
    d=$(echo "$after" | grep -vxF -e "${before:-none}" | head -1)
    [ -n "$d" ] && wait_for 50 test -b "/dev/$d" && echo "$d"
}
fs() {
    mkdir -p "$tmp/mnt" && mkfs.ext4 -q -F /dev/$1 && mount /dev/$1 "$tmp/mnt" || return 1
    dd if=/dev/urandom of="$tmp/mnt/f" bs=1M count=4 status=none && local sum && sum=$(md5sum < "$tmp/mnt/f") &&
        umount "$tmp/mnt" && mount /dev/$1 "$tmp/mnt" && [ "$(md5sum < "$tmp/mnt/f")" = "$sum" ] && umount "$tmp/mnt"
}
kernel_of() { if [ "$1" = a ]; then echo 6.1; else echo 6.12; fi; }

serve() { # round index, server kind
    local i=$1 name=$2
    check "$role: $name: no client modules left" client_unload_all
    check "$role: $name: server loaded" rnbd_server_load "$3"
    cat /sys/block/ram0/queue/write_zeroes_max_bytes > "$(flag wz-$i)"
    touch "$(flag ready-$i)"
    check "$role: $name: the client finished (within 400 s)" wait_file "$(flag done-$i)" 400
    check "$role: $name: server unloaded" rnbd_server_unload
}

use() { # round index, name, server kind, client kind; the server is the other VM
    local i=$1 name=$2 server=$3 client=$4 peer dev wz want ctl
    peer=${addr[a]}; [ "$role" = a ] && peer=${addr[b]}
    check "$role: $name: no server modules left" rnbd_server_unload
    if [ "$client" = ours ]; then
        mod_loaded rtrs_core && client_unload_all
        mod_loaded rnbd_client || check "$role: $name: our rtrs-client, rnbd-client loaded" rnbd_client_load
    else
        mod_loaded rtrs_core || check "$role: $name: Linux $kernel's rtrs-core, rtrs-client, rnbd-client loaded instead of ours" \
            eval 'client_unload_all && insmod $upkodir/rtrs-core.ko && insmod $upkodir/rtrs-client.ko && insmod $upkodir/rnbd-client.ko'
    fi
    check "$role: $name: the server is ready" wait_file "$(flag ready-$i)" 200
    local line="sessname=xv$i path=ip:$me@ip:$peer device_path=/dev/ram0"
    if [ "$client" = ours ]; then dev=$(rnbd_map "$line"); else dev=$(upstream_map "$line"); fi
    [ -n "$dev" ] || { not_ok "$role: $name: map"; touch "$(flag done-$i)"; return; }
    ok "$role: $name: mapped as $dev"
    # WRITE_ZEROES only from a 6.12 server (Linux 6.1's field is write-same,
    # always 0) to a client that reads the field (Linux 6.1's ignores it)
    wz=$(cat /sys/block/$dev/queue/write_zeroes_max_bytes) want=$(cat "$(flag wz-$i)" 2>/dev/null)
    { [ "$server" = upstream ] && [ "$role" = b ]; } && want=0
    { [ "$client" = upstream ] && [ "$kernel" = 6.1 ]; } && want=0
    check "$role: $name: WRITE_ZEROES limit $wz bytes, as offered (the server's brd: $(cat "$(flag wz-$i)"))" test "$wz" = "$want"
    check "$role: $name: fio randwrite 4k-128k QD16, crc32c verify over the whole device" \
        fio --name=v --filename=/dev/$dev --ioengine=libaio --direct=1 --size=100% --rw=randwrite \
        --bsrange=4k-128k --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$tmp/fio-$i.out"
    check "$role: $name: mkfs.ext4, a file across a remount" fs "$dev"
    ctl=rnbd_client; [ "$client" = ours ] || ctl=rnbd
    expect_errno "$role: $name: unmap" OK "/sys/block/$dev/$ctl/unmap_device" normal
    touch "$(flag done-$i)"
}

for ((i = first; i <= last; i++)); do
    read -r at server client <<<"${all[$i]}"
    other=b; [ "$at" = b ] && other=a
    name="round $((i + 1)) ($server $(kernel_of "$at") server, $client $(kernel_of $other) client)"
    if [ "$at" = "$role" ]; then serve $i "$name" "$server"; else use $i "$name" "$server" "$client"; fi
done
tap_done; exit $?
