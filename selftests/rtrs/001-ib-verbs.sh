#!/usr/bin/env bash
# The RDMA layer under RTRS (kernel/ib/kapi-rdma*.c + kernel::ib), run inside this
# kernel by rtrs-ib-selftest.ko over Soft-RoCE loopback: listen, connect with
# 56 bytes of private data each way, a refused connect with reject data,
# 64 KiB RDMA writes with immediate both ways (fast-registered MRs, multi-SGE),
# zero-length writes with immediate (heartbeats), send/recv, send with
# invalidate, re-registration with a new rkey, chained posts (SendChain:
# a write and its immediate in one post, an over-long chain refused),
# disconnect and drain, and no object left behind. The module prints KTAP
# lines; they are re-emitted here.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
ko=rtrs/tests/kmod/rtrs-ib-selftest.ko
[ -f "$ko" ] || tap_skip_all "$ko not built (make selftest-modules)"
modprobe ib_core 2>/dev/null && modprobe rdma_cm 2>/dev/null || tap_skip_all "rdma_cm/ib_core not available"
require_module rdma_rxe
trap rxe_teardown EXIT
if rxe_setup 1; then ok "rxe device ${RXE_DEV[0]} on ${RXE_NETDEV[0]} (${RXE_ADDR[0]}) is ACTIVE"; else
    not_ok "rxe_setup"; tap_done; exit 1
fi
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug

mark="rtrs-ib-selftest-start-$$"
echo "$mark" > /dev/kmsg
if insmod "$ko" addr="${RXE_ADDR[0]}"; then loaded=1; else loaded=0; fi
log=$(dmesg | sed -n "/$mark/,\$p")
# Diagnostics from the module (device attributes, private data sizes).
grep -o 'rtrs_ib_selftest: # .*' <<<"$log" | sed 's/^rtrs_ib_selftest: /    /' || true
results=$(sed -n 's/.*rtrs_ib_selftest: \(\(not \)\{0,1\}ok [0-9]* .*\)/\1/p' <<<"$log")
[ -n "$results" ] || results="not ok 1 no results from the module"
while read -r line; do
    case "$line" in
        "ok "*"# SKIP"*) skip "kernel: ${line#ok [0-9]* }" ;;
        "ok "*) ok "kernel: ${line#ok [0-9]* }" ;;
        *) not_ok "kernel: ${line#not ok [0-9]* }" ;;
    esac
done <<<"$results"
[ $loaded = 1 ] && ok "insmod succeeds when every in-kernel step passes" || not_ok "insmod $ko addr=${RXE_ADDR[0]}"
if [ $loaded = 1 ]; then
    check "module parameter addr is visible" grep -qx "${RXE_ADDR[0]}" /sys/module/rtrs_ib_selftest/parameters/addr
    check "rmmod" rmmod rtrs_ib_selftest
    if dmesg | sed -n "/$mark/,\$p" | grep -q "cxxrt: leak"; then
        not_ok "no leak reported at module exit"
    else
        ok "no leak reported at module exit"
    fi
fi
# The failure paths: clients sent to a port nobody listens on are refused by
# the CM; the load must fail with EINVAL after tearing everything down (no
# leak, no splat; a CM or CQ callback into the unloaded module would oops).
mark2="rtrs-ib-selftest-negative-$$"
echo "$mark2" > /dev/kmsg
if insmod "$ko" addr="${RXE_ADDR[0]}" peer_port=1236 2>/dev/null; then
    not_ok "insmod with clients sent to a closed port must fail"
    rmmod rtrs_ib_selftest
else
    ok "insmod with clients sent to a closed port fails"
fi
log2=$(dmesg | sed -n "/$mark2/,\$p")
check "the failed connect is reported by the module" \
    grep -q 'rtrs_ib_selftest: not ok 2 connect_with_private_data' <<<"$log2"
check "everything is torn down after the failure" \
    grep -qE 'rtrs_ib_selftest: ok [0-9]+ no_objects_left_after_teardown' <<<"$log2"
if grep -q "cxxrt: leak" <<<"$log2"; then not_ok "no leak after the failed load"; else ok "no leak after the failed load"; fi
check "the module is gone after the failed load" test ! -d /sys/module/rtrs_ib_selftest

# The RDMA stack must let go of the device: nothing of ours holds it.
check "rxe device can be deleted after the test" rxe_teardown
trap - EXIT
tap_done; exit $?
