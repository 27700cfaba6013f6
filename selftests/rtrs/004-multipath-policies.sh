#!/usr/bin/env bash
# Multipath policies of our RTRS client over two Soft-RoCE loopback paths to
# our RTRS server (always_invalidate=N here; 002 and 007 run with Y): for
# round-robin, min-inflight and min-latency the share of verified IO each
# path carried (stats/rdma) is what the policy promises. min-latency is
# steered with the client's fault_delay_* knobs (debugfs rtrs_client/),
# which make one path's heartbeat round trip (and IO completions) slower;
# flipping the knob must flip the path. Also the per-path stats files
# (sg_entries, rdma_lat, cpu_migration[_from|_to], wc_completion), their
# resets and reset_all. TAP output; root, in the VM.
#
# The first part of this file is the setup the other client scripts
# (005-011) share: they source it with RTRS_CLT_LIB_ONLY=1.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../lib-rxe.sh"
clt_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
clt_kodir=${RTRS_KO_DIR:-$clt_top}
clt_session=${CLT_SESSION:-clt-selftest}
clt_sess_dir=/sys/class/rtrs-client/$clt_session
clt_checkfile=/sys/kernel/debug/rtrs_clt_selftest/check
clt_faults=/sys/kernel/debug/rtrs_client
srv_faults=/sys/kernel/debug/rtrs_server

clt_loaded() { grep -q "^$1 " /proc/modules; }
clt_cleanup() {
    local m
    [ -d $clt_faults ] && for f in $clt_faults/fault_*; do echo 0 > "$f"; done 2>/dev/null
    [ -d $srv_faults ] && for f in $srv_faults/fault_*; do echo 0 > "$f"; done 2>/dev/null
    for m in rtrs_clt_selftest rtrs_client rtrs_srv_selftest rtrs_server; do
        clt_loaded $m && rmmod $m 2>/dev/null
    done
    rxe_teardown >/dev/null 2>&1
    return 0
}

# clt_setup NRXE NPATHS INVALIDATE [QUEUE_DEPTH]: NRXE rxe loopback devices,
# our server (sess_queue_depth QUEUE_DEPTH, default 128) and client, and
# rtrs-clt-selftest keeping a session open over the first NPATHS.
# CLT_SERVER_ARGS: more rtrs-server module parameters; CLT_STORE_ARGS: more
# rtrs-srv-selftest ones (respond_cpu=N); CLT_TESTER_ARGS: more
# rtrs-clt-selftest ones (e.g. reconnect_delay=30, rnbd-client's delay).
clt_setup() {
    local nrxe=$1 npaths=$2 invalidate=$3 depth=${4:-128} i paths=
    require_root
    for f in "$clt_kodir/rtrs/rtrs-client.ko" "$clt_kodir/rtrs/rtrs-server.ko" \
        "$clt_kodir/rtrs/tests/kmod/rtrs-clt-selftest.ko" "$clt_kodir/rtrs/tests/kmod/rtrs-srv-selftest.ko"; do
        [ -f "$f" ] || tap_skip_all "$f not built (make selftest-modules)"
    done
    trap clt_cleanup EXIT
    modprobe ib_core && modprobe rdma_cm || tap_skip_all "rdma_cm not available"
    mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
    check "rxe: $nrxe Soft-RoCE loopback device(s)" rxe_setup "$nrxe"
    for ((i = 0; i < npaths; i++)); do paths=${paths:+$paths,}ip:${RXE_ADDR[i]}; done
    check "insmod our rtrs-server (always_invalidate=$invalidate, sess_queue_depth=$depth) and the store" bash -c \
        "insmod $clt_kodir/rtrs/rtrs-server.ko sess_queue_depth=$depth always_invalidate=$invalidate ${CLT_SERVER_ARGS:-} &&
         insmod $clt_kodir/rtrs/tests/kmod/rtrs-srv-selftest.ko ${CLT_STORE_ARGS:-}"
    check "insmod our rtrs-client" insmod "$clt_kodir/rtrs/rtrs-client.ko"
    clt_mark="rtrs-clt-$$-$RANDOM"
    echo "$clt_mark" > /dev/kmsg
    check "rtrs-clt-selftest opens session $clt_session over $paths (keep_open=1)" \
        insmod "$clt_kodir/rtrs/tests/kmod/rtrs-clt-selftest.ko" paths="$paths" session=$clt_session keep_open=1 \
        ${CLT_TESTER_ARGS:-}
    # After passing checks, a missing check file is a failure, not a skip.
    if [ ! -r $clt_checkfile ]; then
        not_ok "the kept session's $clt_checkfile is there"
        tap_skip_all "no kept session"
    fi
}
clt_log() { dmesg | sed -n "/$clt_mark/,\$p"; }
clt_pdir() { echo "$clt_sess_dir/paths/ip:${RXE_ADDR[$1]}@ip:${RXE_ADDR[$1]}"; }
# The server's directory of the same path (client and server address are one).
clt_srv_pdir() { echo "/sys/class/rtrs-server/$clt_session/paths/ip:${RXE_ADDR[$1]}@ip:${RXE_ADDR[$1]}"; }
# field NAME FILE: the value after NAME in a check result line
clt_field() { sed -n "s/.* $1 \([-0-9]*\).*/\1/p; s/^$1 \([-0-9]*\).*/\1/p" "$2" | head -1; }
clt_io_clean() { # FILE: IO ran, no error, no mismatch, nothing lost
    cat "$1"
    [ "$(clt_field ios "$1")" -gt 0 ] && [ "$(clt_field errors "$1")" = 0 ] &&
        [ "$(clt_field mismatches "$1")" = 0 ] && [ "$(clt_field lost "$1")" = 0 ]
}
clt_expect() { # FILE TEXT: the file reads exactly TEXT
    local got; got=$(cat "$1") || return 1
    [ "$got" = "$2" ] || { echo "$1: '$got', expected '$2'"; return 1; }
}
clt_wait_state() { # DIR STATE SECONDS
    local t=$(($3 * 10))
    while [ "$t" -gt 0 ]; do [ "$(cat "$1/state" 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; t=$((t - 1)); done
    echo "$1/state is $(cat "$1/state" 2>&1), expected $2"; return 1
}
clt_ios() { # DIR: reads + writes counted in stats/rdma
    local r; r=$(cat "$1/stats/rdma") || return 1
    set -- $r; echo $(($1 + $3))
}
clt_readd() { # DEV...: re-create rxe devices and wait until they are active
    local d
    for d in "$@"; do rdma link add "$d" type rxe netdev "${RXE_NETDEV[${d#rxe}]}" || return 1; done
    for d in "$@"; do rxe_wait_active "$d" 10 || return 1; done
}
# clt_finish: the common end of a client script: close the kept session,
# unload the client, no cxxrt leak at its exit, clean up, the TAP verdict.
clt_finish() {
    check "rmmod rtrs-clt-selftest (closes the session)" rmmod rtrs_clt_selftest
    check "rmmod rtrs-client" rmmod rtrs_client
    if clt_log | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
    trap - EXIT
    clt_cleanup
    tap_done
}
[ -n "${RTRS_CLT_LIB_ONLY:-}" ] && return 0

# --- 004 itself ------------------------------------------------------------------
clt_setup 2 2 N
p0=$(clt_pdir 0) p1=$(clt_pdir 1)
check "both paths connected" bash -c "[ \"\$(cat '$p0/state')\" = connected ] && [ \"\$(cat '$p1/state')\" = connected ]"

# run_policy NAME FILE: resets both paths' stats, runs verified IO, and
# leaves "<ios on path 0> <ios on path 1>" in FILE.shares
run_policy() {
    echo 1 > "$p0/stats/reset_all" && echo 1 > "$p1/stats/reset_all" || return 1
    cat $clt_checkfile > "$2" || return 1
    echo "$(clt_ios "$p0") $(clt_ios "$p1")" > "$2.shares"
    diag "$1: IO per path $(cat "$2.shares")"
    clt_io_clean "$2"
}
share_between() { # FILE LOW HIGH: path 0's share of the IO in percent is in [LOW, HIGH]
    local a b; read -r a b < "$1.shares"
    [ $((a + b)) -gt 0 ] || return 1
    local pct=$((100 * a / (a + b)))
    echo "path 0 carried $pct% of $((a + b)) IOs"
    [ $pct -ge "$2" ] && [ $pct -le "$3" ]
}

echo rr > $clt_sess_dir/mpath_policy
check "round-robin: verified IO, no errors" run_policy round-robin /tmp/pol-rr
check "round-robin: each path carries 40..60% of the IO" share_between /tmp/pol-rr 40 60

echo min-inflight > $clt_sess_dir/mpath_policy
check "min-inflight: verified IO, no errors" run_policy min-inflight /tmp/pol-mi
check "min-inflight: both paths carry IO under load (each >= 10%)" share_between /tmp/pol-mi 10 90

# min-latency compares each path's last heartbeat round trip (plus the
# delay): 200 ms, because a guest starved by a busy host (a kernel build
# beside the VM) measures single round trips of tens of milliseconds.
echo 200 > $clt_faults/fault_delay_ms
echo 2 > $clt_faults/fault_delay_paths   # path 1: +200 ms
echo min-latency > $clt_sess_dir/mpath_policy
check "min-latency with path 1 slowed by 200 ms: verified IO, no errors" run_policy min-latency /tmp/pol-ml1
check "min-latency: path 0 (the faster) carries >= 95%" share_between /tmp/pol-ml1 95 100
echo 1 > $clt_faults/fault_delay_paths   # now path 0 is the slow one
check "min-latency with path 0 slowed instead: verified IO, no errors" run_policy min-latency /tmp/pol-ml0
check "min-latency: path 1 now carries >= 95%" share_between /tmp/pol-ml0 0 5

# Completions held back by the delay knob show in rdma_lat (and cause no errors).
echo 20 > $clt_faults/fault_delay_ms
echo rr > $clt_sess_dir/mpath_policy
check "round-robin with path 0's completions delayed 20 ms: verified IO" run_policy rr-delayed /tmp/pol-rrd
lat_all_at_least() { # DIR MS: every IO of DIR took >= MS (rows "< N ms" with N <= MS are empty)
    cat "$1/stats/rdma_lat"
    awk -v ms="$2" '/^(<|>=)/ { n = $2 + 0; c = $4 + $5; if ($1 == "<" && n <= ms && c > 0) bad = 1; if (c > 0) any = 1 }
        END { exit bad || !any }' "$1/stats/rdma_lat"
}
check "rdma_lat of path 0: every IO took >= 16 ms (held back 20 ms)" lat_all_at_least "$p0" 16
lat_some_below() { # DIR MS: some IO of DIR took < MS
    cat "$1/stats/rdma_lat"
    awk -v ms="$2" '/^</ { n = $2 + 0; if (n <= ms && ($4 + $5) > 0) hit = 1 } END { exit !hit }' "$1/stats/rdma_lat"
}
check "rdma_lat of path 1: IO below 16 ms (not held back)" lat_some_below "$p1" 16
echo 0 > $clt_faults/fault_delay_paths
echo 0 > $clt_faults/fault_delay_ms

# --- the stats files ---------------------------------------------------------------
sum_nums() { tr -c '0-9\n' ' ' | tr ' ' '\n' | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
check "sg_entries: a per-CPU table, every request had one entry" bash -c \
    "cat '$p1/stats/sg_entries'; grep -q '^total:' '$p1/stats/sg_entries' && grep -Eq '^=   1:.*[1-9]' '$p1/stats/sg_entries'"
check "rdma_lat counts the requests" bash -c "[ \$(grep 'ms:' '$p1/stats/rdma_lat' | sed 's/.*ms://' | tr ' ' '\n' | awk '{s+=\$1} END {printf \"%.0f\\n\", s}') -gt 0 ]"
check "wc_completion: '<max> <average>', completions seen" bash -c \
    "cat '$p1/stats/wc_completion'; grep -Eq '^[1-9][0-9]* [1-9][0-9]*$' '$p1/stats/wc_completion'"
ncpu=$(nproc)
check "cpu_migration_from / _to: one number per CPU" bash -c \
    "cat '$p1/stats/cpu_migration_from' '$p1/stats/cpu_migration_to';
     [ \$(wc -w < '$p1/stats/cpu_migration_from') -ge $ncpu ] && [ \$(wc -w < '$p1/stats/cpu_migration_to') -ge $ncpu ]"
check "cpu_migration: from/to table" bash -c "cat '$p1/stats/cpu_migration'; grep -q '^from:' '$p1/stats/cpu_migration' && grep -q '^to  :' '$p1/stats/cpu_migration'"
check "echo 1 > stats/sg_entries clears it" bash -c "echo 1 > '$p1/stats/sg_entries' && ! grep -Eq '^=   1:.*[1-9]' '$p1/stats/sg_entries'"
check "stats/rdma_lat refuses 2" bash -c "! echo 2 > '$p1/stats/rdma_lat' 2>/dev/null"
# wc_completion is left out: heartbeat completions may land between the
# reset and the read on an idle path.
check "echo 1 > stats/reset_all clears rdma_lat, cpu_migration, rdma" bash -c \
    "echo 1 > '$p1/stats/reset_all' && cat '$p1/stats/rdma' '$p1/stats/wc_completion' &&
     [ \"\$(cat '$p1/stats/rdma')\" = '0 0 0 0 0 0' ] &&
     [ \$(grep 'ms:' '$p1/stats/rdma_lat' | sed 's/.*ms://' | tr ' ' '\n' | awk '{s+=\$1} END {printf \"%.0f\\n\", s}') = 0 ] &&
     [ \$(tr ' ' '\n' < '$p1/stats/cpu_migration_to' | awk '{s+=\$1} END {printf \"%.0f\\n\", s}') = 0 ]"

clt_finish; exit $?
