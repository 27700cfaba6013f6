#!/usr/bin/env bash
# Proof of the two-VM mode. On the host, without arguments, it boots the pair
# with tools/vm/run-pair.sh and runs itself in both guests:
#   eth0 up with 192.0.2.1/24 (a) and 192.0.2.2/24 (b), ping both ways, rxe0 on
#   eth0 on both sides, rping and ib_write_bw (RDMA CM, 64 KiB) b -> a across
#   the wire, then a cable pull of b's NIC through the monitor relay
#   (tools/vm/vmctl.sh): carrier drops, ping fails; link back, ping works.
# Usage: tools/vm/selftest-pair.sh [run-pair.sh options]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ "${1:-}" != guest ]; then
    token=$(date +%s)-$$
    exec "$here/run-pair.sh" --timeout 400 "$@" \
        --cmd-a "tools/vm/selftest-pair.sh guest a $token" \
        --cmd-b "tools/vm/selftest-pair.sh guest b $token"
fi
role=$2 token=$3
. "$top/selftests/lib.sh"
require_root
tap_plan "$([ "$role" = a ] && echo 8 || echo 10)"
R=${VM_RESULTS:-/results}
done_flag=$R/pair-$token.b-done
me=192.0.2.1 peer=192.0.2.2
[ "$role" = b ] && { me=192.0.2.2 peer=192.0.2.1; }
nic=$(for n in /sys/class/net/*; do [ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = virtio_net ] && basename "$n"; done | head -1)
if [ -n "$nic" ]; then ok "$role: virtio-net NIC is $nic"; else not_ok "$role: no virtio-net NIC"; tap_skip_all "no NIC"; fi
ip addr add "$me/24" dev "$nic" && ip link set "$nic" up
ping_ok() { ping -c 1 -W 1 "$peer" >/dev/null 2>&1; }
up=0; for _ in $(seq 60); do ping_ok && { up=1; break; }; sleep 0.5; done
if [ $up = 1 ]; then ok "$role: ping $peer"; ping -c 3 -i 0.2 "$peer" | tail -1; else not_ok "$role: ping $peer"; fi

modprobe rdma_rxe
rdma link add rxe0 type rxe netdev "$nic"
. "$top/selftests/lib-rxe.sh"
check "$role: rxe0 on $nic ACTIVE" rxe_wait_active rxe0 10

retry() { # retry CMD until it succeeds (the server side may not listen yet)
    local i
    for i in $(seq 30); do "$@" && return 0; sleep 1; done
    return 1
}
if [ "$role" = a ]; then
    check "a: rping server, 10 pings from b" timeout 120 rping -s -a "$me" -C 10 -S 4096
    if timeout 180 ib_write_bw -R -d rxe0 -s 65536 -n 300 -F > /tmp/bw.log 2>&1; then
        ok "a: ib_write_bw server: $(awk '$1 == 65536 { print $4 " MB/s" }' /tmp/bw.log)"
    else not_ok "a: ib_write_bw server"; sed 's/^/#   /' /tmp/bw.log | tail -20; fi
    # b pulls its cable now; a just waits for b to finish.
    for _ in $(seq 240); do [ -e "$done_flag" ] && break; sleep 0.5; done
    if [ -e "$done_flag" ]; then ok "a: b finished"; else not_ok "a: b never finished"; fi
    skip "a: cable pull" "done by b"
    skip "a: link back" "done by b"
else
    sleep 1
    check "b: rping client, 10 pings to a" retry timeout 60 rping -c -a "$peer" -C 10 -S 4096
    sleep 1
    if retry timeout 120 ib_write_bw -R -d rxe0 -s 65536 -n 300 -F "$peer" > /tmp/bw.log 2>&1; then
        ok "b: ib_write_bw to a: $(awk '$1 == 65536 { print $4 " MB/s" }' /tmp/bw.log)"
    else not_ok "b: ib_write_bw to a"; sed 's/^/#   /' /tmp/bw.log | tail -20; fi
    check "b: vmctl.sh b set_link nic0 off" "$top/tools/vm/vmctl.sh" b set_link nic0 off
    sleep 1
    carrier=$(cat "/sys/class/net/$nic/carrier" 2>/dev/null)
    if [ "$carrier" = 0 ] && ! ping -c 2 -W 1 "$peer" >/dev/null 2>&1; then
        ok "b: cable pulled (set_link nic0 off): carrier 0, ping fails"
    else not_ok "b: cable pull: carrier=$carrier"; fi
    check "b: vmctl.sh b set_link nic0 on" "$top/tools/vm/vmctl.sh" b set_link nic0 on
    up=0; for _ in $(seq 20); do ping_ok && { up=1; break; }; sleep 0.5; done
    if [ $up = 1 ]; then ok "b: link back (set_link nic0 on), ping works"; else not_ok "b: ping after link back"; fi
    "$top/tools/vm/vmctl.sh" b info network | sed 's/^/# /'
    touch "$done_flag"
    ok "b: done flag written"
fi
rdma link delete rxe0
[ "$role" = a ] && rm -f "$done_flag"
tap_done
