#!/usr/bin/env bash
# Minimal reproduction, without any module of ours, of why rnbd/040 cannot
# take an rxe device's netdev administratively down (Documentation/testing.md,
# "rxe limits"). Run in the test VM:
#   tools/vm/run.sh --log build/vm/gsi.log -- tools/vm/repro-rxe-gsi-wedge.sh
# rping (rdma-core) keeps one RDMA-CM connection over an rxe device looping
# back to its own address; the netdev goes down, the client is stopped (its
# CM sends a DREQ while the netdev is down), the netdev comes back up and the
# port is ACTIVE again. Then a fresh rping connect is tried. Control: the
# same without the netdev going down.
# Debian 6.1's rxe: a send with no route (rxe_net.c: rxe_find_route4 fails,
# so rxe_req.c: rxe_requester's finish_packet fails) puts the QP in
# QP_STATE_ERROR, also the GSI QP1. ib_mad's recovery (mad.c: mad_error_handler,
# SQE -> RTS) sets the requester ready again (rxe_qp.c: rxe_qp_from_attr), but
# the receive queue was flushed by rxe_qp_error and ib_mad does not repost
# receives that completed in error (mad.c: ib_mad_recv_done), so QP1 never
# receives a MAD again: no CM exchange completes on that device until it is
# deleted and added again.
# Exit 0 when the behaviour matches that (control connects, the connects after
# the netdev was down do not, one after re-creating the device does), 1
# otherwise; the verdict is printed.
. "$(dirname "$0")/../../selftests/lib.sh"
. "$(dirname "$0")/../../selftests/lib-rxe.sh"
require_root
rxe_setup 1 >/dev/null || { echo "repro: rxe setup failed"; exit 2; }
modprobe rdma_cm
a=${RXE_ADDR[0]} nd=${RXE_NETDEV[0]} dev=${RXE_DEV[0]}
port=7174
rping -s -a "$a" -p "$port" -P >/dev/null 2>&1 & server=$!
sleep 1
connect_once() { timeout 15 rping -c -a "$a" -p "$port" -C 1 -v >/dev/null 2>&1; }
round() { # $1 = down|control
    rping -c -a "$a" -C 1000000 -S 64 >/dev/null 2>&1 & client=$!
    sleep 2
    [ "$1" = down ] && ip link set "$nd" down
    sleep 1
    kill "$client"; wait "$client" 2>/dev/null
    sleep 2
    [ "$1" = down ] && { ip link set "$nd" up; rxe_wait_active "$dev" 10; }
    sleep 2
    connect_once
}
if connect_once; then echo "repro: baseline connect: ok"; else echo "repro: baseline connect failed"; kill "$server"; exit 2; fi
if round control; then control=ok; else control=failed; fi
echo "repro: control (client stopped, netdev stays up), then a new connect: $control"
if round down; then after=ok; else after=failed; fi
echo "repro: client stopped while $nd was down, netdev up and $dev ACTIVE again, then a new connect: $after"
for c in completer_retry_err send_err; do
    echo "repro: $dev hw_counters/$c = $(cat /sys/class/infiniband/"$dev"/ports/1/hw_counters/$c 2>/dev/null)"
done
if connect_once; then later=ok; else later=failed; fi
echo "repro: another connect 15 s later: $later"
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
t0=$SECONDS
rdma link delete "$dev" && rdma link add "$dev" type rxe netdev "$nd" && rxe_wait_active "$dev" 10
echo "repro: rdma link delete/add took $((SECONDS - t0)) s"
port=7175  # a fresh listener on a fresh port
rping -s -a "$a" -p "$port" -P >/dev/null 2>&1 & server=$!
sleep 3
readded=failed
for _ in 1 2 3; do connect_once && { readded=ok; break; }; sleep 2; done
echo "repro: after rdma link delete/add of $dev, a new connect: $readded"
kill "$server" 2>/dev/null
if [ "$control" = ok ] && [ "$after" = failed ] && [ "$later" = failed ] && [ "$readded" = ok ]; then
    echo "repro: REPRODUCED: after one CM send on a down netdev, no RDMA-CM connect passes on $dev until it is re-created"
    exit 0
fi
echo "repro: NOT reproduced"
exit 1
