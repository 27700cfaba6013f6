#!/usr/bin/env bash
# Counters of our RTRS client checked against numbers the test knows, over
# two paths to our server (always_invalidate=N):
# 1. stats/cpu_migration: the store answers every IO from CPU 1
#    (rtrs-srv-selftest respond_cpu=1), and over rxe loopback the client's
#    completion runs where the server answers. IO submitted from CPU 0
#    (taskset) migrates: cpu_migration_from counts it on CPU 0 and
#    cpu_migration_to on CPU 1, the same number, nearly every request
#    stats/rdma counted. IO submitted from CPU 1 migrates never (zero).
# 2. failover counters: path 0's answers are ignored (fault_drop_responses),
#    so the requests it carries stay in flight, a number stats/rdma shows
#    and that stays put while the reader waits for them. Disconnecting path
#    0 then fails over exactly that many: debugfs failovers grows by it,
#    failover_errors by 0 (path 1 takes them), path 0's stats/rdma counts
#    them, and the reader sees no error. With path 1 down first, every
#    request in flight on path 0 fails over to no path: failovers and
#    failover_errors both grow by that number, which is the number of the
#    reader's requests that failed after submission.
# TAP output; root, in the VM.
# shellcheck source=selftests/rtrs/004-multipath-policies.sh
RTRS_CLT_LIB_ONLY=1 . "$(dirname "$0")/004-multipath-policies.sh"
[ "$(nproc)" -ge 2 ] || tap_skip_all "needs 2 CPUs (the VM has $(nproc))"
command -v taskset >/dev/null || tap_skip_all "no taskset"
CLT_STORE_ARGS="respond_cpu=1" clt_setup 2 2 N
p0=$(clt_pdir 0) p1=$(clt_pdir 1)
check "both paths connected" bash -c "[ \"\$(cat '$p0/state')\" = connected ] && [ \"\$(cat '$p1/state')\" = connected ]"
check "the store answers from CPU 1" bash -c "dmesg | grep -q 'answering from a CPU of its own'"
echo rr > $clt_sess_dir/mpath_policy

# --- 1. cpu_migration -------------------------------------------------------------------
# cpu_n FILE CPU: the CPU's number in a cpu_migration_from/_to file
cpu_n() { local a; read -ra a < "$1"; echo "${a[$2]:-x}"; }
# migrated_all DIR: the requests of DIR went CPU 0 -> CPU 1: each counted on
# both ends (from CPU 0 = to CPU 1), none the other way, and at least
# half of them (a send completion already being polled on CPU 0 may take
# an answer with it there, which is then no migration: 96 % seen on a quiet
# host, 83 % in a CI run on a loaded one)
migrated_all() {
    local n f0 f1 t0 t1
    n=$(clt_ios "$1")
    f0=$(cpu_n "$1/stats/cpu_migration_from" 0) f1=$(cpu_n "$1/stats/cpu_migration_from" 1)
    t0=$(cpu_n "$1/stats/cpu_migration_to" 0) t1=$(cpu_n "$1/stats/cpu_migration_to" 1)
    echo "$1: $n requests; from: $f0 $f1; to: $t0 $t1"
    cat "$1/stats/cpu_migration"
    [ "$n" -gt 0 ] && [ "$f0" = "$t1" ] && [ "$f1" = 0 ] && [ "$t0" = 0 ] &&
        [ "$f0" -le "$n" ] && [ $((2 * f0)) -ge "$n" ]
}
# migrated_none DIR: requests counted, no migration
migrated_none() {
    local n; n=$(clt_ios "$1")
    echo "$1: $n requests; from: $(cat "$1/stats/cpu_migration_from"); to: $(cat "$1/stats/cpu_migration_to")"
    [ "$n" -gt 0 ] && [ "$(tr -c '0-9' ' ' < "$1/stats/cpu_migration_from" | tr -s ' ' '\n' | grep -c '[1-9]')" = 0 ] &&
        [ "$(tr -c '0-9' ' ' < "$1/stats/cpu_migration_to" | tr -s ' ' '\n' | grep -c '[1-9]')" = 0 ]
}
reset_both() { echo 1 > "$p0/stats/reset_all" && echo 1 > "$p1/stats/reset_all"; }
check "reset_all on both paths" reset_both
taskset -c 0 cat $clt_checkfile > /tmp/mig-0
check "verified IO submitted from CPU 0" clt_io_clean /tmp/mig-0
check "path 0: the requests migrated from CPU 0 to CPU 1" migrated_all "$p0"
check "path 1: the requests migrated from CPU 0 to CPU 1" migrated_all "$p1"
check "reset_all on both paths" reset_both
taskset -c 1 cat $clt_checkfile > /tmp/mig-1
check "verified IO submitted from CPU 1" clt_io_clean /tmp/mig-1
check "path 0: no migration (submitted and completed on CPU 1)" migrated_none "$p0"
check "path 1: no migration" migrated_none "$p1"

# --- 2. failover counters --------------------------------------------------------------
dbg() { cat "$clt_faults/$1"; }
inflight() { cut -d' ' -f5 "$1/stats/rdma"; }
# stuck_on DIR: DIR's in-flight count, once it is non-zero and stays for 1 s
stuck_on() {
    local t=100 a b
    while [ $t -gt 0 ]; do
        a=$(inflight "$1")
        if [ "$a" -gt 0 ]; then
            sleep 1; b=$(inflight "$1")
            [ "$a" = "$b" ] && { echo "$a"; return 0; }
        fi
        sleep 0.1; t=$((t - 1))
    done
    return 1
}
# failover_round N_PATHS_LEFT: drops path 0's answers while the reader runs,
# disconnects path 0 once the requests stand still, and leaves the expected
# number in $expected and the counters' growth in $d_failovers, $d_errors
failover_round() {
    local f0 e0
    f0=$(dbg failovers) e0=$(dbg failover_errors)
    echo 1 > "$p0/stats/reset_all"
    echo 1 > $clt_faults/fault_drop_responses
    cat $clt_checkfile > /tmp/fo-check &
    reader=$!
    expected=$(stuck_on "$p0") || { echo "no request stood still on path 0"; expected=-1; }
    echo 1 > "$p0/disconnect"
    echo 0 > $clt_faults/fault_drop_responses
    wait $reader
    d_failovers=$(($(dbg failovers) - f0)) d_errors=$(($(dbg failover_errors) - e0))
    diag "in flight on path 0 when it went: $expected; failovers +$d_failovers, failover_errors +$d_errors;" \
        "path 0 stats/rdma: $(cat "$p0/stats/rdma"); reader: $(cat /tmp/fo-check)"
}
failover_round
check "requests stood still on path 0 (their answers were dropped)" test "$expected" -gt 0
check "debugfs failovers grew by exactly the requests in flight on path 0" test "$d_failovers" = "$expected"
check "debugfs failover_errors did not grow (path 1 took them)" test "$d_errors" = 0
check "path 0 stats/rdma's last field counts them" test "$(cut -d' ' -f6 "$p0/stats/rdma")" = "$expected"
check "the reader saw no error and lost nothing" clt_io_clean /tmp/fo-check
check "echo 1 > reconnect brings path 0 back" bash -c "echo 1 > '$p0/reconnect'"

check "echo 1 > path 1's disconnect: path 0 is the only one" bash -c "echo 1 > '$p1/disconnect'"
failover_round
check "requests stood still on path 0" test "$expected" -gt 0
check "debugfs failovers grew by exactly that number" test "$d_failovers" = "$expected"
check "debugfs failover_errors grew by exactly that number (no path took them)" test "$d_errors" = "$expected"
# The reader counts a request refused at submission (no path left, its next
# batch) as an error too: the failed-over ones are errors minus refused.
check "the reader's failed requests are exactly those" \
    test $(($(clt_field errors /tmp/fo-check) - $(clt_field refused /tmp/fo-check))) = "$expected"
check "echo 1 > reconnect brings both paths back" bash -c "echo 1 > '$p0/reconnect' && echo 1 > '$p1/reconnect'"
cat $clt_checkfile > /tmp/fo-after
check "verified IO over both paths again" clt_io_clean /tmp/fo-after

clt_finish; exit $?
