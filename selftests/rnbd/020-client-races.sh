#!/usr/bin/env bash
# rnbd-client races found by reading (issue 7), on our whole stack over
# Soft-RoCE loopback:
#   - `rmmod rnbd-client` while an unmap_device write waits for a slow
#     server's answer to CLOSE: the write holds the module, so rmmod is
#     refused (EBUSY, "in use") until the unmap has finished, then succeeds;
#     before, rmmod went on and freed the code the write was running.
#   - the last device of a session unmapped while the transport reports a
#     reconnect: the session's release stops its link-event work before it
#     closes RTRS (the work used the closed session before).
# The slow server is rtrs-client's fault_delay_ms (every answer held back).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
dbg=/sys/kernel/debug/rtrs_client
cleanup() {
    [ -w $dbg/fault_delay_ms ] && echo 0 > $dbg/fault_delay_ms
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    for m in rnbd_client rtrs_client rnbd_server rtrs_server; do grep -q "^$m " /proc/modules && rmmod $m; done
    rxe_teardown >/dev/null 2>&1
}
trap cleanup EXIT

setup() {
    rxe_setup 1 >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=16384 || return 1
    insmod rtrs/rtrs-server.ko sess_queue_depth=64 && insmod rnbd/rnbd-server.ko &&
        insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
check "setup: rxe, brd, our four modules" setup
addr=${RXE_ADDR[0]}
map() { echo "sessname=$1 path=ip:$addr device_path=/dev/ram0" > /sys/kernel/rnbd_client/map_device; }
wait_dev() { for _ in $(seq 50); do [ -b "/dev/$1" ] && return 0; sleep 0.1; done; return 1; }

# --- rmmod while unmap_device waits ----------------------------------------------------
slow_unmap_vs_rmmod() {
    map slow && wait_dev rnbd0 || return 1
    # Long enough that the rmmod below runs while the CLOSE still waits,
    # even on a loaded emulated VM.
    echo 1 > $dbg/fault_delay_paths && echo 8000 > $dbg/fault_delay_ms || return 1
    local start=$SECONDS
    (echo normal > /sys/block/rnbd0/rnbd_client/unmap_device; echo $? > /tmp/rnbd-020-unmap.rc) &
    local writer=$!
    for _ in $(seq 20); do [ -e /sys/block/rnbd0/rnbd_client/unmap_device ] || break; sleep 0.1; done
    sleep 0.5
    kill -0 $writer 2>/dev/null || { diag "the unmap finished before rmmod could run ($((SECONDS - start)) s)"; return 1; }
    if rmmod rnbd_client 2>/tmp/rnbd-020-rmmod.err; then
        diag "rmmod went ahead while the unmap waited"
        wait $writer
        return 1
    fi
    grep -q "in use" /tmp/rnbd-020-rmmod.err || { diag "rmmod: $(cat /tmp/rnbd-020-rmmod.err)"; return 1; }
    wait $writer
    [ "$(cat /tmp/rnbd-020-unmap.rc)" = 0 ] || { diag "unmap failed"; return 1; }
    [ $((SECONDS - start)) -ge 6 ] || { diag "the CLOSE was not slow ($((SECONDS - start)) s)"; return 1; }
    echo 0 > $dbg/fault_delay_ms
    [ ! -e /dev/rnbd0 ] && rmmod rnbd_client && insmod rnbd/rnbd-client.ko
}
check "rmmod rnbd-client while unmap_device waits for a slow server: refused (in use), unmap completes, then rmmod works" \
    slow_unmap_vs_rmmod
echo 0 > $dbg/fault_delay_ms
[ -e /sys/block/rnbd0/rnbd_client/unmap_device ] && echo force > /sys/block/rnbd0/rnbd_client/unmap_device
grep -q "^rnbd_client " /proc/modules || insmod rnbd/rnbd-client.ko

# --- session release vs a reconnect event ------------------------------------------------
release_vs_reconnect() {
    local i path
    for i in 1 2 3 4 5 6; do
        map "race$i" && wait_dev rnbd0 || return 1
        path=$(echo /sys/class/rtrs-client/race$i/paths/*)
        [ -d "$path" ] || { diag "no path directory for race$i"; return 1; }
        echo 1 > "$path/disconnect" || return 1
        # The reconnect reports RECONNECTED to rnbd-client (whose work
        # sends SESS_INFO) while the unmap drops the session's last device.
        (echo 1 > "$path/reconnect" 2>/dev/null) &
        [ $((i % 2)) = 0 ] && sleep 0.$((RANDOM % 3))
        echo normal > /sys/block/rnbd0/rnbd_client/unmap_device || return 1
        wait
        for _ in $(seq 50); do [ -e /sys/class/rtrs-client/race$i ] || break; sleep 0.1; done
        [ ! -e /sys/class/rtrs-client/race$i ] || { diag "session race$i left behind"; return 1; }
    done
}
check "unmap of a session's last device racing a reconnect (6 rounds): sessions gone, nothing left" release_vs_reconnect

after() { map after && wait_dev rnbd0 && dd if=/dev/rnbd0 of=/dev/null bs=1M count=4 iflag=direct status=none &&
    echo normal > /sys/block/rnbd0/rnbd_client/unmap_device; }
check "a new mapping still works afterwards" after
check "unload rnbd-client and rtrs-client" rmmod rnbd_client rtrs_client
tap_done; exit $?
