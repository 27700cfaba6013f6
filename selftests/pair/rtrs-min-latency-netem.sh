#!/usr/bin/env bash
# min-latency against a latency that differs for a real reason. Two VMs on
# one virtual wire (tools/vm/run-pair.sh): VM a runs our rtrs-server with
# the test store (rtrs-srv-selftest), VM b our rtrs-client with
# rtrs-clt-selftest keeping a session open over two paths between two
# address pairs on the one NIC (192.0.2.2 -> 192.0.2.1 and 198.51.100.2 ->
# 198.51.100.1). On b, `tc netem` delays by NETEM_MS (default 100) every
# packet to one server address, i.e. one path's RDMA traffic (rxe sends
# through the NIC's qdisc; in one VM rxe loops back past every qdisc, so
# this needs two). Asserted on b: the delayed path's heartbeat round trip
# (cur_latency) exceeds the other's by most of the delay, and with
# min-latency the other path carries at least 90% of the verified IO; then
# the delay moves to the other path and the IO follows it.
# Usage (host): selftests/pair/rtrs-min-latency-netem.sh [run-pair.sh options]
# Not run by selftests/run.sh (it needs two VMs); `make check` runs it in
# the VM pair stage. Runtime ~3 min.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ "${1:-}" != guest ]; then
    token=$(date +%s)-$$
    exec "$top/tools/vm/run-pair.sh" --timeout 480 "$@" \
        --cmd-a "selftests/pair/rtrs-min-latency-netem.sh guest a $token ${NETEM_MS:-100}" \
        --cmd-b "selftests/pair/rtrs-min-latency-netem.sh guest b $token ${NETEM_MS:-100}"
fi
role=$2 token=$3 delay_ms=$4
cd "$top" || exit 1
. selftests/lib.sh
require_root
R=${VM_RESULTS:-/results}
ready=$R/rtrs-netem-$token.server-ready done_flag=$R/rtrs-netem-$token.client-done
srv=(192.0.2.1 198.51.100.1) clt=(192.0.2.2 198.51.100.2)
mac_a=52:54:00:00:00:0a mac_b=52:54:00:00:00:0b
mark="rtrs-netem-$token"
echo "$mark" > /dev/kmsg
klog() { dmesg | sed -n "/$mark/,\$p"; }
wait_file() { local i; for ((i = 0; i < $2 * 2; i++)); do [ -e "$1" ] && return 0; sleep 0.5; done; return 1; }

nic=$(for n in /sys/class/net/*; do [ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = virtio_net ] && basename "$n"; done | head -1)
[ -n "$nic" ] || tap_skip_all "no virtio-net NIC (not started by run-pair.sh?)"
net_up() { # both address pairs on the one NIC, static neighbours (no ARP in the measurement)
    local i mine peer peer_mac
    for i in 0 1; do
        if [ "$role" = a ]; then mine=${srv[i]} peer=${clt[i]} peer_mac=$mac_b
        else mine=${clt[i]} peer=${srv[i]} peer_mac=$mac_a; fi
        ip addr add "$mine/24" dev "$nic" || return 1
        ip link set "$nic" up || return 1
        ip neigh replace "$peer" lladdr $peer_mac dev "$nic" nud permanent || return 1
    done
    modprobe rdma_rxe && modprobe rdma_cm && rdma link add rxe0 type rxe netdev "$nic" || return 1
    . selftests/lib-rxe.sh
    rxe_wait_active rxe0 10
}
check "$role: $nic up with two addresses, rxe0 on it ACTIVE" net_up

if [ "$role" = a ]; then
    serve() {
        insmod rtrs/rtrs-server.ko sess_queue_depth=64 always_invalidate=N &&
            insmod rtrs/tests/kmod/rtrs-srv-selftest.ko
    }
    check "a: rtrs-server and the test store loaded" serve
    touch "$ready"
    check "a: the client finished (within 400 s)" wait_file "$done_flag" 400
    check "a: rmmod rtrs-srv-selftest rtrs-server" rmmod rtrs_srv_selftest rtrs_server
    if klog | grep -q "cxxrt: leak"; then not_ok "a: no leak at module exit"; else ok "a: no leak at module exit"; fi
    rdma link delete rxe0
    rm -f "$ready" "$done_flag"
    tap_done; exit $?
fi

# --- b: the client ----------------------------------------------------------------------
session=netem
sess=/sys/class/rtrs-client/$session
checkfile=/sys/kernel/debug/rtrs_clt_selftest/check
finish() {
    tc qdisc del dev "$nic" root 2>/dev/null
    for m in rtrs_clt_selftest rtrs_client; do grep -q "^$m " /proc/modules && rmmod $m; done
    rdma link delete rxe0 2>/dev/null
    touch "$done_flag"
}
trap finish EXIT
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
check "b: the server is ready (within 120 s)" wait_file "$ready" 120
open_session() {
    insmod rtrs/rtrs-client.ko &&
        insmod rtrs/tests/kmod/rtrs-clt-selftest.ko session=$session keep_open=1 \
            paths="ip:${clt[0]}@ip:${srv[0]},ip:${clt[1]}@ip:${srv[1]}"
}
check "b: rtrs-clt-selftest opens a session over both address pairs" open_session
pdir() { echo "$sess/paths/ip:${clt[$1]}@ip:${srv[$1]}"; }
p0=$(pdir 0) p1=$(pdir 1)
check "b: both paths connected" bash -c "[ \"\$(cat '$p0/state')\" = connected ] && [ \"\$(cat '$p1/state')\" = connected ]"
check "b: no injected delay (the client's fault_delay_ms is 0)" test "$(cat /sys/kernel/debug/rtrs_client/fault_delay_ms)" = 0

# delay_to ADDR: netem delays every packet b sends to ADDR (the other
# server address goes undelayed), then waits for two heartbeat round trips
# (every 5 s) so cur_latency shows it
delay_to() {
    tc qdisc del dev "$nic" root 2>/dev/null
    tc qdisc add dev "$nic" root handle 1: prio bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
        tc qdisc add dev "$nic" parent 1:3 handle 30: netem delay "${delay_ms}ms" &&
        tc filter add dev "$nic" parent 1: protocol ip prio 1 u32 match ip dst "$1/32" flowid 1:3 || return 1
    sleep 12
}
lat_ms() { echo $(($(cut -d' ' -f1 "$1/cur_latency") / 1000000)); }
# slower SLOW FAST: SLOW's heartbeat round trip exceeds FAST's by at least
# 3/4 of the delay
slower() {
    echo "cur_latency: slow path $(lat_ms "$1") ms, fast path $(lat_ms "$2") ms (delay ${delay_ms} ms)"
    [ $(($(lat_ms "$1") - $(lat_ms "$2"))) -ge $((delay_ms * 3 / 4)) ]
}
ios() { local r; read -ra r < "$1/stats/rdma"; echo $((r[0] + r[2])); }
# carries FAST SLOW: verified IO with min-latency; FAST carried >= 90%
carries() {
    echo 1 > "$1/stats/reset_all" && echo 1 > "$2/stats/reset_all" || return 1
    cat $checkfile > /tmp/netem-check || return 1
    cat /tmp/netem-check
    grep -q ' errors 0 .* mismatches 0 .* lost 0 ' /tmp/netem-check || return 1
    local fast slow; fast=$(ios "$1") slow=$(ios "$2")
    echo "fast path $fast IOs, slow path $slow IOs"
    [ $((fast + slow)) -gt 0 ] && [ $((100 * fast / (fast + slow))) -ge 90 ]
}
check "b: tc netem: ${delay_ms} ms on every packet to ${srv[1]} (path 1)" delay_to "${srv[1]}"
check "b: path 1's heartbeat round trip is the longer by most of the delay" slower "$p1" "$p0"
check "b: mpath_policy min-latency" bash -c "echo min-latency > $sess/mpath_policy"
check "b: min-latency: path 0 (undelayed) carries >= 90% of the verified IO" carries "$p0" "$p1"
check "b: tc netem: the delay moves to ${srv[0]} (path 0)" delay_to "${srv[0]}"
check "b: now path 0's round trip is the longer" slower "$p0" "$p1"
check "b: min-latency: path 1 now carries >= 90% of the verified IO" carries "$p1" "$p0"
# round_robin P0 P1: with round-robin, statistics reset after the switch
# (the min-latency rounds left IO on both), each path carries 40-60% of the
# verified IO.
round_robin() {
    echo rr > "$sess/mpath_policy" || return 1
    echo 1 > "$1/stats/reset_all" && echo 1 > "$2/stats/reset_all" || return 1
    cat $checkfile > /tmp/netem-rr || return 1
    cat /tmp/netem-rr
    grep -q ' errors 0 ' /tmp/netem-rr || return 1
    local a b; a=$(ios "$1") b=$(ios "$2")
    echo "path 0 $a IOs, path 1 $b IOs"
    [ $((a + b)) -gt 0 ] && [ $((100 * a / (a + b))) -ge 40 ] && [ $((100 * a / (a + b))) -le 60 ]
}
check "b: round-robin uses both paths (the delayed one is up): each carries 40-60% of the verified IO" round_robin "$p0" "$p1"
tc qdisc del dev "$nic" root
check "b: rmmod rtrs-clt-selftest rtrs-client" rmmod rtrs_clt_selftest rtrs_client
if klog | grep -q "cxxrt: leak"; then not_ok "b: no leak at module exit"; else ok "b: no leak at module exit"; fi
tap_done; exit $?
