#!/usr/bin/env bash
# Error recovery of our RTRS client over two paths to our server:
# 1. fault_qp_error moves path 0's QPs to the error state while verified IO
#    runs: the path fails, its IO fails over to path 1 (none lost or failed),
#    and it reconnects.
# 2. max_reconnect_attempts is honoured: with 2, deleting path 1's rxe
#    device makes exactly 2 reconnect attempts fail (stats/reconnects "0 2"),
#    then the path stays down; IO keeps running on path 0; with the device
#    back, "reconnect" brings it up again.
# TAP output; root, in the VM.
# shellcheck source=selftests/rtrs/004-multipath-policies.sh
RTRS_CLT_LIB_ONLY=1 . "$(dirname "$0")/004-multipath-policies.sh"
clt_setup 2 2 Y
p0=$(clt_pdir 0) p1=$(clt_pdir 1)
check "both paths connected" bash -c "[ \"\$(cat '$p0/state')\" = connected ] && [ \"\$(cat '$p1/state')\" = connected ]"
echo rr > $clt_sess_dir/mpath_policy

cat $clt_checkfile > /tmp/rc-check1 &
reader=$!
sleep 1
check "echo 1 > fault_qp_error (path 0) while IO runs" bash -c "echo 1 > $clt_faults/fault_qp_error"
wait $reader
check "IO failed over: nothing lost, failed or corrupted" clt_io_clean /tmp/rc-check1
check "the QPs went to the error state and the path failed" bash -c \
    "dmesg | sed -n '/$clt_mark/,\$p' | grep -m1 'fault injection: QPs' && dmesg | sed -n '/$clt_mark/,\$p' | grep -m1 'failed (.*flushed'"
check "the knob is one-shot (reads 0 again)" clt_expect $clt_faults/fault_qp_error 0
check "path 0 reconnects" clt_wait_state "$p0" connected 30
check "path 0 stats/reconnects: 1 0" clt_expect "$p0/stats/reconnects" "1 0"
diag "path 0 stats/rdma (last field: IO failed over): $(cat "$p0/stats/rdma")"

check "max_reconnect_attempts takes 2" bash -c "echo 2 > $clt_sess_dir/max_reconnect_attempts"
check "rdma link delete rxe1" rdma link delete rxe1
exhausted() {
    local t=300
    while [ $t -gt 0 ]; do
        clt_log | grep -q "reconnect attempts exhausted" && return 0
        sleep 0.1; t=$((t - 1))
    done
    return 1
}
check "the client gives up after its attempts" exhausted
check "path 1 stats/reconnects: 0 2 (two failed attempts)" clt_expect "$p1/stats/reconnects" "0 2"
sleep 7
check "7 s later: still 0 2, no more attempts" clt_expect "$p1/stats/reconnects" "0 2"
check "path 1 stays disconnected" clt_expect "$p1/state" disconnected
cat $clt_checkfile > /tmp/rc-check2
check "verified IO on path 0 meanwhile" clt_io_clean /tmp/rc-check2
check "rxe1 back" clt_readd rxe1
check "echo 1 > reconnect brings path 1 up" bash -c "echo 1 > '$p1/reconnect'"
check "path 1 connected" clt_wait_state "$p1" connected 30
check "path 1 stats/reconnects: 1 2" clt_expect "$p1/stats/reconnects" "1 2"
cat $clt_checkfile > /tmp/rc-check3
check "verified IO on both paths" clt_io_clean /tmp/rc-check3

clt_finish; exit $?
