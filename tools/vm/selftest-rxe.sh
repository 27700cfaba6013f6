#!/usr/bin/env bash
# Guest-side proof of selftests/lib-rxe.sh: two Soft-RoCE paths in one VM, each
# an rxe device looping back to its own address; rping and ib_write_bw over each.
# Run: tools/vm/run.sh -- tools/vm/selftest-rxe.sh      (emits TAP)
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$top/selftests/lib.sh"
. "$top/selftests/lib-rxe.sh"
require_root
require_module rdma_rxe
command -v rping >/dev/null || tap_skip_all "rping missing (rdmacm-utils)"
K=2
tap_plan $((4 + 3 * K))

trap 'rxe_teardown >/dev/null 2>&1' EXIT
RXE_IPV6=1
check "rxe_setup $K paths" rxe_setup $K
rdma link show
ip -br addr show

for ((i = 0; i < K; i++)); do
    dev=${RXE_DEV[i]:-rxe$i} a=${RXE_ADDR[i]:-none}
    check "$dev: port ACTIVE on ${RXE_NETDEV[i]:-?}" rxe_wait_active "$dev" 5
    # rping: server and client on the device's own address (rxe loopback).
    timeout 60 rping -s -a "$a" -C 20 -S 4096 >/tmp/rping-s$i.log 2>&1 &
    spid=$!
    sleep 0.5
    if timeout 60 rping -c -a "$a" -C 20 -S 4096 -v >/tmp/rping-c$i.log 2>&1 && wait $spid \
        && [ "$(grep -c 'ping data' /tmp/rping-c$i.log)" -ge 20 ]; then
        ok "$dev: rping x20 to own address $a"
    else
        wait $spid; not_ok "$dev: rping to $a"; sed 's/^/#   /' /tmp/rping-[sc]$i.log | tail -20
    fi
    # ib_write_bw through the RDMA CM (-R), 64 KiB writes, over the same loopback.
    timeout 90 ib_write_bw -R -d "$dev" -s 65536 -n 500 -F >/tmp/bw-s$i.log 2>&1 &
    spid=$!
    sleep 1
    if timeout 90 ib_write_bw -R -d "$dev" -s 65536 -n 500 -F "$a" >/tmp/bw-c$i.log 2>&1 && wait $spid; then
        bw=$(awk '$1 == 65536 { print $4 " MB/s" }' /tmp/bw-c$i.log)
        ok "$dev: ib_write_bw 64KiB x500 to $a: ${bw:-?}"
    else
        wait $spid; not_ok "$dev: ib_write_bw to $a"; sed 's/^/#   /' /tmp/bw-[sc]$i.log | tail -30
    fi
done
if timeout 60 rping -s -a "${RXE_ADDR6[0]:-::1}" -C 5 >/tmp/rping6-s.log 2>&1 & sleep 0.5; timeout 60 rping -c -a "${RXE_ADDR6[0]:-::1}" -C 5 >/tmp/rping6-c.log 2>&1 && wait $!; then
    ok "rxe0: rping x5 over IPv6 ${RXE_ADDR6[0]:-}"
else
    not_ok "rxe0: rping over IPv6"; sed 's/^/#   /' /tmp/rping6-[sc].log | tail -20
fi
check "rxe_teardown" rxe_teardown
if [ -z "$(rdma link show 2>/dev/null | grep rxe)" ]; then ok "no rxe devices left"; else not_ok "rxe devices left: $(rdma link show)"; fi
tap_done
