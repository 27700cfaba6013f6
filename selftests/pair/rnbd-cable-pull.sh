#!/usr/bin/env bash
# Two VMs on one virtual wire (tools/vm/run-pair.sh): VM a exports a RAM disk
# with our rnbd-server/rtrs-server over rxe on its NIC, VM b maps it with our
# rnbd-client/rtrs-client, writes and verifies it with fio (crc32c), then
# keeps fio rewriting it (each pass the whole device at random, patterns
# alternating) while it pulls its own cable (QEMU set_link nic0 off/on through tools/vm/vmctl.sh)
# PULLS times (default 4), each for a random 0.3-2 s (seeded; the seed is
# printed, PAIR_SEED=<seed> replays it). Each pull is far shorter than the
# budgets that would fail the path (RC retransmission, 7 retries of ~0.5 s;
# heartbeats 5 x 5 s; neighbours are static, see net_up): the QPs retransmit across the gap, so IO must survive without
# an error, and the path is expected to stay connected (its reconnects are
# printed either way). Afterwards: no IO error, a read pass finds the last
# pass's pattern everywhere (a lost write leaves the other one), the device
# still open, a clean unmap and unload on both sides, no leak.
# Each pass also reads the device back (fio's verify phase), so READs with
# their client-side registration are in flight during pulls, and the server
# runs with its default always_invalidate=Y (a chunk re-registration per
# IO). A retransmission in Debian 6.1's rxe executes again the local
# operations behind the WR it restarts from; every REG_MR of ours is posted
# behind a fencing LOCAL_INV so that none is ever replayed (testing.md,
# "rxe"). Asserted: rxe never reports a failed REG_MR/LOCAL_INV.
# Usage (host): selftests/pair/rnbd-cable-pull.sh [run-pair.sh options]
# Not run by selftests/run.sh (it needs two VMs); `make check` runs it in
# its own stage. Runtime ~2-3 min.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ "${1:-}" != guest ]; then
    token=$(date +%s)-$$
    seed=${PAIR_SEED:-$(( $(date +%s) % 100000 ))}
    exec "$top/tools/vm/run-pair.sh" --timeout 480 "$@" \
        --cmd-a "selftests/pair/rnbd-cable-pull.sh guest a $token $seed ${PULLS:-4}" \
        --cmd-b "selftests/pair/rnbd-cable-pull.sh guest b $token $seed ${PULLS:-4}"
fi
role=$2 token=$3 seed=$4 pulls=$5
cd "$top" || exit 1
. selftests/lib.sh
require_root
R=${VM_RESULTS:-/results}
ready=$R/rnbd-pull-$token.server-ready done_flag=$R/rnbd-pull-$token.client-done
srv=192.0.2.1 clt=192.0.2.2
me=$srv; [ "$role" = b ] && me=$clt
mark="rnbd-cable-pull-$token"
echo "$mark" > /dev/kmsg
klog() { dmesg | sed -n "/$mark/,\$p"; }
# rxe's own words for a REG_MR executed twice or an invalidation of a key the
# MR does not hold (rxe_mr.c): each kills a QP.
no_reg_replay() { ! klog | grep -E 'rxe_reg_fast_mr|rxe_invalidate_mr' | head -5 | grep .; }
wait_file() { local i; for ((i = 0; i < $2 * 2; i++)); do [ -e "$1" ] && return 0; sleep 0.5; done; return 1; }

nic=$(for n in /sys/class/net/*; do [ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = virtio_net ] && basename "$n"; done | head -1)
[ -n "$nic" ] || tap_skip_all "no virtio-net NIC (not started by run-pair.sh?)"
net_up() {
    ip addr add "$me/24" dev "$nic" && ip link set "$nic" up || return 1
    # Static neighbours (run-pair.sh's fixed MACs): a pull must test the
    # transport's retransmission, not ARP. With dynamic ARP, a pull that
    # overlaps a neighbour probe makes the kernel fail the neighbour after
    # ~3 s, rdma_cm then reports UNREACHABLE on every connection to that
    # peer and the path fails (as upstream's RTRS does): with one path the
    # device closes and IO fails, until IO is held across an outage.
    if [ "$role" = a ]; then ip neigh replace "$clt" lladdr 52:54:00:00:00:0b dev "$nic" nud permanent || return 1
    else ip neigh replace "$srv" lladdr 52:54:00:00:00:0a dev "$nic" nud permanent || return 1; fi
    modprobe rdma_rxe && modprobe rdma_cm && rdma link add rxe0 type rxe netdev "$nic" || return 1
    . selftests/lib-rxe.sh
    rxe_wait_active rxe0 10
}
check "$role: $nic up with $me, rxe0 on it ACTIVE" net_up

if [ "$role" = a ]; then
    serve() {
        modprobe brd rd_nr=1 rd_size=16384 &&
            insmod rtrs/rtrs-server.ko sess_queue_depth=64 && insmod rnbd/rnbd-server.ko
    }
    check "a: brd, rtrs-server, rnbd-server loaded" serve
    touch "$ready"
    check "a: the client finished (within 400 s)" wait_file "$done_flag" 400
    check "a: the client's session is gone" bash -c "! ls /sys/class/rnbd-server/ctl/devices/ram0/sessions/ 2>/dev/null | grep -q ."
    check "a: no REG_MR or LOCAL_INV failed in rxe" no_reg_replay
    check "a: rmmod rnbd-server rtrs-server" rmmod rnbd_server rtrs_server
    if klog | grep -q "cxxrt: leak"; then not_ok "a: no leak at module exit"; else ok "a: no leak at module exit"; fi
    rdma link delete rxe0
    rm -f "$ready" "$done_flag"
    tap_done; exit $?
fi

# --- b: the client ----------------------------------------------------------------------
RANDOM=$seed
diag "b: cable-pull seed $seed (replay: PAIR_SEED=$seed), $pulls pulls"
tmp=$(mktemp -d /tmp/rnbd-pull.XXXXXX)
finish() {
    touch "$tmp/stop"
    "$top/tools/vm/vmctl.sh" b set_link nic0 on >/dev/null 2>&1
    [ -n "${fio_pid:-}" ] && { kill "$fio_pid" 2>/dev/null; wait "$fio_pid" 2>/dev/null; }
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    for m in rnbd_client rtrs_client; do grep -q "^$m " /proc/modules && rmmod $m; done
    rdma link delete rxe0 2>/dev/null
    touch "$done_flag"
    rm -rf "$tmp"
}
trap finish EXIT
check "b: rtrs-client, rnbd-client loaded" bash -c "insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko"
check "b: the server is ready (within 120 s)" wait_file "$ready" 120
map() {
    echo "sessname=pull path=ip:$clt@ip:$srv device_path=/dev/ram0" > /sys/kernel/rnbd_client/map_device || return 1
    for _ in $(seq 50); do [ -b /dev/rnbd0 ] && return 0; sleep 0.1; done
    return 1
}
check "b: map a's /dev/ram0 over the wire" map
p=$(echo /sys/class/rtrs-client/pull/paths/*)
check "b: the path is connected" test "$(cat "$p/state" 2>/dev/null)" = connected

fio_job() { # name args...
    local name=$1; shift
    fio --name="$name" --filename=/dev/rnbd0 --ioengine=libaio --direct=1 --size=100% \
        --verify_fatal=1 "$@" --output="$tmp/$name.out" >/dev/null 2>&1 && return 0
    { echo "fio $name failed:"; tail -15 "$tmp/$name.out"; } >> "$tmp/fio-failures"
    return 1
}
pattern_of() { if [ $(($1 % 2)) = 1 ]; then echo 0x5a5a5a5a; else echo 0xa5c3a5c3; fi; }
# While the cable is pulled: each pass rewrites the whole device at random
# with the other pattern, then reads it back and verifies it; afterwards a
# read pass must find the last pass's pattern everywhere (a lost write leaves
# the previous one).
writer() {
    local c=0
    while :; do
        c=$((c + 1))
        fio_job "w-$c" --rw=randwrite --bsrange=4k-64k --iodepth=16 --verify=pattern \
            --verify_pattern="$(pattern_of $c)" --do_verify=1 || return 1
        echo "$c" > "$tmp/passes"
        [ -e "$tmp/stop" ] && return 0
    done
}
check "b: fio crc32c random writes over the whole device, verified (cable in)" \
    fio_job crc --rw=randwrite --bsrange=4k-128k --iodepth=16 --verify=crc32c --do_verify=1
writer & fio_pid=$!

read -r rc_before _ < "$p/stats/reconnects"
pulled=0 pull_errors=0 total_ms=0
for ((n = 1; n <= pulls; n++)); do
    sleep "$(( 1 + RANDOM % 3 )).$(( RANDOM % 10 ))"
    ms=$(( 300 + RANDOM % 1700 ))
    if "$top/tools/vm/vmctl.sh" b set_link nic0 off >/dev/null; then
        carrier=$(cat "/sys/class/net/$nic/carrier" 2>/dev/null)
        sleep "$(( ms / 1000 )).$(printf '%03d' $(( ms % 1000 )))"
        "$top/tools/vm/vmctl.sh" b set_link nic0 on >/dev/null || pull_errors=$((pull_errors + 1))
        pulled=$((pulled + 1)); total_ms=$((total_ms + ms))
        diag "b: pull $n: cable out for $ms ms (carrier while out: $carrier), path $(cat "$p/state" 2>/dev/null) after"
    else
        pull_errors=$((pull_errors + 1))
    fi
done
sleep 2
touch "$tmp/stop"
wait "$fio_pid"; fio_rc=$?
fio_pid=
check "b: $pulled cable pulls done ($total_ms ms out in all)" test "$pulled" = "$pulls" -a "$pull_errors" = 0
last=$(cat "$tmp/passes" 2>/dev/null || echo 0)
check "b: fio write + verify passes across the pulls finished without error: $last passes" test "$fio_rc" = 0 -a "$last" -gt 0
check "b: a read pass finds pass $last's pattern everywhere (no write lost)" \
    fio_job verify --rw=read --bs=128k --iodepth=4 --verify=pattern --verify_pattern="$(pattern_of "$last")" --verify_only
[ -e "$tmp/fio-failures" ] && sed 's/^/#   /' "$tmp/fio-failures" | tail -30
no_io_error() { ! klog | grep -E 'I/O error|IO failed' | head -5 | grep .; }
check "b: no I/O error in the kernel log" no_io_error
check "b: no REG_MR or LOCAL_INV failed in rxe" no_reg_replay
read -r rc_after _ < "$p/stats/reconnects"
read -r -a r < "$p/stats/rdma"
diag "b: path $(cat "$p/state"): reconnects during the pulls $((rc_after - rc_before)), reads ${r[0]}, writes ${r[2]}, failovers ${r[5]}, in flight ${r[4]}"
check "b: the path is connected after the pulls" test "$(cat "$p/state" 2>/dev/null)" = connected
check "b: the device is still open" test "$(cat /sys/block/rnbd0/rnbd_client/state 2>/dev/null)" = open
check "b: unmap" bash -c "echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
check "b: rmmod rnbd-client rtrs-client" rmmod rnbd_client rtrs_client
if klog | grep -q "cxxrt: leak"; then not_ok "b: no leak at module exit"; else ok "b: no leak at module exit"; fi
tap_done; exit $?
