#!/usr/bin/env bash
# The client's paths/<p>/reconnect and the server's per-path sysfs files,
# over two paths from our client to our server (always_invalidate=Y), with
# the session's reconnect delay at rnbd-client's 30 s:
# 1. server stats: stats/rdma and stats/wc_completion count the IO, "0"
#    (seed 000) and "1" (upstream) reset each to zero, stats/reset_all
#    resets both; other values are refused and change nothing.
# 2. server disconnect: the client sees the path go down, IO goes on over
#    the other path, and the path comes back by itself after the delay.
# 3. client reconnect: on a connected path and on a path waiting for its
#    delayed reconnect, the write returns once the path is connected again,
#    far sooner than the 30 s delay, uses no reconnect attempt (stats/
#    reconnects counts a success and no failure), and IO running meanwhile
#    fails over without loss; with the server gone the write fails with the
#    connect's errno within the same bound, and works again once it is back.
# TAP output; root, in the VM.
# shellcheck source=selftests/rtrs/004-multipath-policies.sh
RTRS_CLT_LIB_ONLY=1 . "$(dirname "$0")/004-multipath-policies.sh"
delay=30
# A reconnect must beat the delay by far: the connect itself takes well
# under a second here, the teardown of a connected path at most the 5 s
# disconnect wait.
bound=12
CLT_TESTER_ARGS="reconnect_delay=$delay" clt_setup 2 2 Y
p0=$(clt_pdir 0) p1=$(clt_pdir 1)
s0=$(clt_srv_pdir 0) s1=$(clt_srv_pdir 1)
check "both paths connected" bash -c "[ \"\$(cat '$p0/state')\" = connected ] && [ \"\$(cat '$p1/state')\" = connected ]"
check "the server shows both paths" test -d "$s0" -a -d "$s1"
echo rr > $clt_sess_dir/mpath_policy

# --- 1. server stats ---------------------------------------------------------------
# numbers FILE: the file's numbers, one line
numbers() { tr -s ' \n' '  ' < "$1"; }
# counted FILE FIELD...: each named field (1-based) is > 0
counted() {
    local f=$1 n; shift
    echo "$f: $(numbers "$f")"
    for n in "$@"; do [ "$(cut -d' ' -f"$n" "$f")" -gt 0 ] || return 1; done
}
# Heartbeats are work completions too: silenced on both sides (for far less
# than the 5 missed intervals that close a path) so a reset reads zero.
quiet() { echo 18446744073709551615 > $clt_faults/fault_drop_heartbeats &&
    echo 18446744073709551615 > $srv_faults/fault_drop_heartbeats && sleep 1; }
unquiet() { echo 0 > $clt_faults/fault_drop_heartbeats; echo 0 > $srv_faults/fault_drop_heartbeats; }
rejected() { # FILE VALUE: the write fails with EINVAL and the file reads as before
    local before err; before=$(cat "$1")
    if err=$( { echo "$2" > "$1"; } 2>&1 ); then echo "$1 took '$2'"; return 1; fi
    grep -q "Invalid argument" <<<"$err" || { echo "$err"; return 1; }
    clt_expect "$1" "$before"
}
cat $clt_checkfile > /tmp/srv-io1
check "verified IO over both paths" clt_io_clean /tmp/srv-io1
check "server stats/rdma counts reads and writes (read count, bytes, write count, bytes)" counted "$s0/stats/rdma" 1 2 3 4
check "server stats/wc_completion counts completions (max, total, calls)" counted "$s0/stats/wc_completion" 1 2 3
check "server stats/rdma refuses 2" rejected "$s0/stats/rdma" 2
check "server stats/wc_completion refuses 2" rejected "$s0/stats/wc_completion" 2
check "server stats/reset_all prints its usage" clt_expect "$s0/stats/reset_all" "echo 1 to reset all statistics"
check "server stats/reset_all refuses 2" rejected "$s0/stats/reset_all" 2
quiet
check "echo 0 > server stats/rdma (the seed's value) zeroes it" bash -c \
    "echo 0 > '$s0/stats/rdma' && cat '$s0/stats/rdma' && [ \"\$(cat '$s0/stats/rdma')\" = '0 0 0 0 0' ]"
check "echo 0 > server stats/rdma left stats/wc_completion alone" counted "$s0/stats/wc_completion" 1 2 3
check "echo 1 > server stats/wc_completion zeroes it" bash -c \
    "echo 1 > '$s0/stats/wc_completion' && cat '$s0/stats/wc_completion' && [ \"\$(cat '$s0/stats/wc_completion')\" = '0 0 0' ]"
check "path 1's server stats were not touched" counted "$s1/stats/rdma" 1 3
unquiet
cat $clt_checkfile > /tmp/srv-io2
check "verified IO again" clt_io_clean /tmp/srv-io2
counted_again() { counted "$s0/stats/rdma" 1 3 && counted "$s0/stats/wc_completion" 1 2 3; }
check "server stats count again" counted_again
quiet
check "echo 0 > server stats/reset_all zeroes stats/rdma and stats/wc_completion" bash -c \
    "echo 0 > '$s0/stats/reset_all' && cat '$s0/stats/rdma' '$s0/stats/wc_completion' &&
     [ \"\$(cat '$s0/stats/rdma')\" = '0 0 0 0 0' ] && [ \"\$(cat '$s0/stats/wc_completion')\" = '0 0 0' ]"
check "echo 1 > server stats/reset_all (upstream's value) is taken too" bash -c "echo 1 > '$s1/stats/reset_all' &&
     [ \"\$(cat '$s1/stats/rdma')\" = '0 0 0 0 0' ] && [ \"\$(cat '$s1/stats/wc_completion')\" = '0 0 0' ]"
unquiet

# --- 2. server disconnect ------------------------------------------------------------
check "server disconnect prints its usage" clt_expect "$s1/disconnect" "Usage: echo 1 > disconnect"
check "server disconnect refuses 0" rejected "$s1/disconnect" 0
cat $clt_checkfile > /tmp/srv-disc &
reader=$!
sleep 1
# Seed 002: the server's disconnect does not block; it only queues the
# close (EPOCHREALTIME: no fork between the clock reads).
disconnect_returns() {
    local t0=${EPOCHREALTIME/./} ms
    echo 1 > "$s1/disconnect" || return 1
    ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
    echo "the write returned after $ms ms"
    [ "$ms" -lt 2000 ]
}
check "echo 1 > server's disconnect of path 1 while IO runs: returns at once (under 2 s)" disconnect_returns
check "the client sees path 1 go down" clt_wait_state "$p1" disconnected 10
wait $reader
check "IO went on over path 0: nothing lost, failed or corrupted" clt_io_clean /tmp/srv-disc
check "path 1 comes back by itself after the ${delay} s delay" clt_wait_state "$p1" connected $((delay + 20))
check "path 1 stats/reconnects: 1 0" clt_expect "$p1/stats/reconnects" "1 0"
cat $clt_checkfile > /tmp/srv-back
check "verified IO over both paths again" clt_io_clean /tmp/srv-back

# --- 3. client reconnect ---------------------------------------------------------------
check "reconnect prints its usage" clt_expect "$p0/reconnect" "Usage: echo 1 > reconnect"
check "reconnect refuses 0" rejected "$p0/reconnect" 0
# timed_reconnect DIR: writes 1 to DIR/reconnect; prints the errno text and
# the time taken; fails if the write failed, took $bound s or more, or
# returned before the path was connected
timed_reconnect() {
    local start end err rc=0 elapsed_ms state
    start=$(date +%s%N)
    err=$( { echo 1 > "$1/reconnect"; } 2>&1 ) || rc=1
    end=$(date +%s%N)
    state=$(cat "$1/state")
    elapsed_ms=$(((end - start) / 1000000))
    echo "reconnect took $elapsed_ms ms, then the path was $state${err:+: $err}"
    [ $rc = 0 ] && [ $elapsed_ms -lt $((bound * 1000)) ] && [ "$state" = connected ]
}
reconnects_before=$(cut -d' ' -f1 "$p0/stats/reconnects")
check "max_reconnect_attempts takes 1" bash -c "echo 1 > $clt_sess_dir/max_reconnect_attempts"
cat $clt_checkfile > /tmp/srv-recon &
reader=$!
sleep 1
check "echo 1 > reconnect on connected path 0 while IO runs: returns within $bound s (delay ${delay} s)" timed_reconnect "$p0"
check "path 0 is connected when the write returns" clt_expect "$p0/state" connected
wait $reader
check "IO in flight failed over: nothing lost, failed or corrupted" clt_io_clean /tmp/srv-recon
check "stats/reconnects counts one success, no failure" clt_expect "$p0/stats/reconnects" "$((reconnects_before + 1)) 0"
logged() { clt_log | grep -m1 "$1"; }
check "the log names the administrator's reconnect" logged "reconnected by the administrator"

# A path waiting for its delayed reconnect: the write does it now.
check "echo 1 > server's disconnect of path 0" bash -c "echo 1 > '$s0/disconnect'"
check "the client sees path 0 go down" clt_wait_state "$p0" disconnected 10
check "echo 1 > reconnect on the path waiting for its ${delay} s delay: connected within $bound s" timed_reconnect "$p0"
check "path 0 is connected when the write returns" clt_expect "$p0/state" connected
cat $clt_checkfile > /tmp/srv-recon2
check "verified IO over both paths" clt_io_clean /tmp/srv-recon2

# The server gone: the write reports the failure.
check "rmmod rtrs-srv-selftest and rtrs-server (the server is gone)" bash -c "rmmod rtrs_srv_selftest && rmmod rtrs_server"
both_down() { clt_wait_state "$p0" disconnected 10 && clt_wait_state "$p1" disconnected 10; }
check "the client sees both paths go down" both_down
failed_reconnect() {
    local start end err
    start=$(date +%s%N)
    if err=$( { echo 1 > "$p0/reconnect"; } 2>&1 ); then echo "reconnect succeeded without a server"; return 1; fi
    end=$(date +%s%N)
    echo "reconnect failed after $(((end - start) / 1000000)) ms: $err"
    [ $(((end - start) / 1000)) -lt $((bound * 1000000)) ]
}
check "echo 1 > reconnect without a server fails with an errno within $bound s" failed_reconnect
check "path 0 stays disconnected" clt_expect "$p0/state" disconnected
check "stats/reconnects counts the failure" bash -c "cat '$p0/stats/reconnects'; [ \$(cut -d' ' -f2 '$p0/stats/reconnects') -ge 1 ]"
check "the server is back" bash -c "insmod $clt_kodir/rtrs/rtrs-server.ko sess_queue_depth=128 always_invalidate=Y &&
    insmod $clt_kodir/rtrs/tests/kmod/rtrs-srv-selftest.ko"
check "echo 1 > reconnect brings path 0 up within $bound s" timed_reconnect "$p0"
check "echo 1 > reconnect brings path 1 up within $bound s" timed_reconnect "$p1"
cat $clt_checkfile > /tmp/srv-recon3
check "verified IO over both paths" clt_io_clean /tmp/srv-recon3

clt_finish; exit $?
