#!/usr/bin/env bash
# Heartbeat loss on an idle path, both directions, with the fault knobs:
# 1. The server goes silent (debugfs rtrs_server/fault_drop_heartbeats and
#    fault_drop_heartbeat_acks): our client hears nothing on its idle path
#    and must close it after more than 5 missed 5 s intervals (~30-35 s),
#    then reconnect once the server talks again.
# 2. Our client goes silent (rtrs_client/fault_drop_heartbeats and
#    fault_drop_heartbeat_acks for path 0): the server closes the path, our
#    client sees the disconnect and reconnects once the knobs are off.
# Verified IO runs after each recovery. TAP output; root, in the VM (~90 s).
# shellcheck source=selftests/rtrs/004-multipath-policies.sh
RTRS_CLT_LIB_ONLY=1 . "$(dirname "$0")/004-multipath-policies.sh"
clt_setup 1 1 Y
p0=$(clt_pdir 0)
check "path connected" clt_expect "$p0/state" connected

# wait_disconnected SECONDS: the path leaves the connected state; prints the
# time taken. The server takes a reconnect at once, so the path may be back
# before a poll sees it gone: a grown reconnect counter counts as well.
wait_disconnected() {
    local start=$SECONDS before state
    before=$(set -- $(cat "$p0/stats/reconnects"); echo "$1")
    while [ $((SECONDS - start)) -le "$1" ]; do
        state=$(cat "$p0/state" 2>/dev/null)
        if [ "$state" != connected ] || [ "$(set -- $(cat "$p0/stats/reconnects"); echo "$1")" != "$before" ]; then
            echo "disconnected after $((SECONDS - start)) s"
            echo $((SECONDS - start)) > /tmp/hb-took
            return 0
        fi
        sleep 0.1
    done
    echo "$p0/state is still $state"; return 1
}
took_between() { local t; t=$(cat /tmp/hb-took); [ "$t" -ge "$1" ] && [ "$t" -le "$2" ]; }

echo 1 > $srv_faults/fault_drop_heartbeats
echo 1 > $srv_faults/fault_drop_heartbeat_acks
check "server silent: the client closes the idle path within 45 s" wait_disconnected 45
check "... not before 5 missed intervals (>= 20 s)" took_between 20 45
check "the client logged the heartbeat loss" bash -c "dmesg | sed -n '/$clt_mark/,\$p' | grep 'rtrs_client' | grep -m1 'heartbeat lost'"
echo 0 > $srv_faults/fault_drop_heartbeats
echo 0 > $srv_faults/fault_drop_heartbeat_acks
check "server talks again: the path reconnects" clt_wait_state "$p0" connected 30
cat $clt_checkfile > /tmp/hb-check1
check "verified IO after the reconnect" clt_io_clean /tmp/hb-check1

echo 1 > $clt_faults/fault_drop_heartbeats
echo 1 > $clt_faults/fault_drop_heartbeat_acks
check "client silent: the server closes the path, the client sees it within 45 s" wait_disconnected 45
check "... not before 5 missed intervals (>= 20 s)" took_between 20 45
clt_log | grep -E "rtrs_server|rtrs_client" | tail -4 | sed 's/^/# /'
echo 0 > $clt_faults/fault_drop_heartbeats
echo 0 > $clt_faults/fault_drop_heartbeat_acks
check "knobs off: the path reconnects" clt_wait_state "$p0" connected 30
cat $clt_checkfile > /tmp/hb-check2
check "verified IO after the reconnect" clt_io_clean /tmp/hb-check2
check "stats/reconnects counts two reconnects" clt_expect "$p0/stats/reconnects" "2 0"

clt_finish; exit $?
