#!/usr/bin/env bash
# Our RTRS client against an RTRS server in the same VM, over two Soft-RoCE
# loopback paths. rtrs-clt-selftest.ko opens a session through rtrs-client's
# C API and, at load, checks data read back against data written for every
# IO size up to the session's max, a full queue of IO in flight, an error
# answered by the server and permit exhaustion. It keeps the session open
# (keep_open=1), and this script then checks the sysfs tree
# (/sys/class/rtrs-client/<session>/...), an administrative disconnect and
# reconnect, fail-over of running IO when a path's RDMA device disappears,
# the reconnect when it comes back, and the DISCONNECTED / RECONNECTED link
# events when every path is lost and one returns. TAP output; root, in the VM.
#
# The server (RTRS_SERVER):
#   ours      (default) our rtrs-server.ko + rtrs-srv-selftest.ko, the test
#             store of rtrs/tests/kmod/rtrs-test-proto.hpp (proto=store);
#   upstream  Linux 6.1's rtrs-core/rtrs-server/rnbd-server built by
#             tools/upstream/build.sh, with brd's /dev/ram0 (proto=rnbd:
#             SESS_INFO, OPEN, IO, CLOSE of RNBD 2.0). See 003-*.sh.
# Environment: RTRS_KO_DIR (where rtrs/*.ko and rtrs/tests/kmod/*.ko are;
# default the repo top), UPSTREAM_KO_DIR (default .cache/upstream),
# RTRS_PATHS (1 or 2, default 2; fail-over needs 2), RTRS_ALWAYS_INVALIDATE
# (the server's always_invalidate, Y or N, default Y: Y makes the server
# re-register each chunk and send RKEY_RSP with every response).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
top=$(cd "$(dirname "$0")/../.." && pwd)
kodir=${RTRS_KO_DIR:-$top}
updir=${UPSTREAM_KO_DIR:-$top/.cache/upstream}
server=${RTRS_SERVER:-ours}
case $server in
    ours) session=clt-selftest proto=store server_modules="rtrs_srv_selftest rtrs_server" ;;
    upstream) session=clt-interop proto=rnbd server_modules="rnbd_server rtrs_server rtrs_core" ;;
    *) echo "RTRS_SERVER=$server: expected ours or upstream" >&2; exit 1 ;;
esac
npaths=${RTRS_PATHS:-2}
client=$kodir/rtrs/rtrs-client.ko
tester=$kodir/rtrs/tests/kmod/rtrs-clt-selftest.ko
for f in "$client" "$tester"; do [ -f "$f" ] || tap_skip_all "$f not built (make selftest-modules)"; done
if [ "$server" = upstream ]; then
    for m in rtrs-core rtrs-server rnbd-server; do
        [ -f "$updir/$m.ko" ] || tap_skip_all "$updir/$m.ko missing (tools/upstream/build.sh)"
    done
else
    for f in "$kodir/rtrs/rtrs-server.ko" "$kodir/rtrs/tests/kmod/rtrs-srv-selftest.ko"; do
        [ -f "$f" ] || tap_skip_all "$f not built (make selftest-modules)"
    done
fi

loaded() { grep -q "^$1 " /proc/modules; }
cleanup() {
    local m
    for m in rtrs_clt_selftest rtrs_client $server_modules; do
        loaded $m && rmmod $m 2>/dev/null
    done
    rxe_teardown >/dev/null 2>&1
    loaded brd && rmmod brd 2>/dev/null
    return 0
}
trap cleanup EXIT

modprobe ib_core && modprobe rdma_cm || tap_skip_all "rdma_cm not available"
if [ "$server" = upstream ]; then
    if loaded brd; then rmmod brd; fi
    check "brd provides a 64 MiB /dev/ram0" modprobe brd rd_nr=1 rd_size=65536
fi
check "rxe: $npaths Soft-RoCE loopback path(s)" rxe_setup "$npaths"
paths=
for ((i = 0; i < RXE_COUNT; i++)); do paths=${paths:+$paths,}ip:${RXE_ADDR[i]}; done
invalidate=${RTRS_ALWAYS_INVALIDATE:-Y}
if [ "$server" = upstream ]; then
    check "insmod upstream rtrs-core rtrs-server (sess_queue_depth=128 always_invalidate=$invalidate) rnbd-server" \
        bash -c "insmod $updir/rtrs-core.ko && insmod $updir/rtrs-server.ko sess_queue_depth=128 \
            max_chunk_size=131072 always_invalidate=$invalidate && insmod $updir/rnbd-server.ko"
else
    check "insmod our rtrs-server (sess_queue_depth=128 always_invalidate=$invalidate)" \
        insmod "$kodir/rtrs/rtrs-server.ko" sess_queue_depth=128 max_chunk_size=131072 always_invalidate=$invalidate
    check "insmod rtrs-srv-selftest (the store)" insmod "$kodir/rtrs/tests/kmod/rtrs-srv-selftest.ko"
fi
check "insmod our rtrs-client" insmod "$client"

mark="rtrs-clt-selftest-start-$$"
echo "$mark" > /dev/kmsg
if insmod "$tester" paths="$paths" proto=$proto device=/dev/ram0 session=$session keep_open=1; then loaded_ok=1; else loaded_ok=0; fi
results=$(dmesg | sed -n "/$mark/,\$p" | sed -n 's/.*rtrs_clt_selftest: \(\(not \)\{0,1\}ok [0-9]* .*\)/\1/p')
[ -n "$results" ] || results="not ok 1 no results from rtrs-clt-selftest"
while read -r line; do
    case "$line" in
        "ok "*) ok "kernel: ${line#ok [0-9]* }" ;;
        *) not_ok "kernel: ${line#not ok [0-9]* }" ;;
    esac
done <<<"$results"
[ $loaded_ok = 1 ] && ok "rtrs-clt-selftest loads (all in-kernel tests passed)" || not_ok "insmod rtrs-clt-selftest"
dmesg | sed -n "/$mark/,\$p" | grep -E "rtrs_client|rtrs_server|rnbd_server|rtrs_srv_selftest" | tail -20 | sed 's/^/# /'

# --- Fail-over, reconnect and link events on the kept session -------------
checkfile=/sys/kernel/debug/rtrs_clt_selftest/check
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
# field NAME FILE: the value after NAME in a check result line
field() { sed -n "s/.* $1 \([-0-9]*\).*/\1/p; s/^$1 \([-0-9]*\).*/\1/p" "$2" | head -1; }
io_clean() { # FILE: IO ran, no error, no mismatch, nothing lost
    cat "$1"
    [ "$(field ios "$1")" -gt 0 ] && [ "$(field errors "$1")" = 0 ] && [ "$(field mismatches "$1")" = 0 ] &&
        [ "$(field lost "$1")" = 0 ]
}
# wait_connected ADDR N SECONDS: the client logged N connects of path ADDR@ADDR
wait_connected() {
    local t=$(($3 * 10))
    while [ "$t" -gt 0 ]; do
        [ "$(dmesg | sed -n "/$mark/,\$p" | grep -c "path ip:$1@ip:$1 connected")" -ge "$2" ] && return 0
        sleep 0.1; t=$((t - 1))
    done
    echo "path $1 not connected $2 times"; return 1
}
readd() { # DEV...: re-create the rxe devices and wait until they are active
    local d
    for d in "$@"; do rdma link add "$d" type rxe netdev "${RXE_NETDEV[${d#rxe}]}" || return 1; done
    for d in "$@"; do rxe_wait_active "$d" 10 || return 1; done
}
no_link_event() { [ "$(field disconnected "$1")" = 0 ] && [ "$(field reconnected "$1")" = 0 ]; }
all_paths_down() { [ "$(field errors "$1")" -gt 0 ] && [ "$(field disconnected "$1")" = 1 ]; }
reconnected_once() { io_clean "$1" && [ "$(field reconnected "$1")" = 1 ]; }
# --- sysfs: /sys/class/rtrs-client/<session>/ -----------------------------------
sess_dir=/sys/class/rtrs-client/$session
expect() { # FILE TEXT: the file reads exactly TEXT
    local got; got=$(cat "$1") || return 1
    [ "$got" = "$2" ] || { echo "$1: '$got', expected '$2'"; return 1; }
}
rejected() { # FILE VALUE: writing VALUE fails and changes nothing
    local before; before=$(cat "$1")
    if echo "$2" > "$1" 2>/dev/null; then echo "$1 accepted '$2'"; return 1; fi
    expect "$1" "$before"
}
set_and_read() { echo "$2" > "$1" && expect "$1" "$3"; }
stats_numbers() { grep -Eq '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' "$1" && [ "$(cut -d' ' -f1 "$1")" -gt 0 ] && cat "$1"; }
wait_state() { # DIR STATE SECONDS
    local t=$(($3 * 10))
    while [ "$t" -gt 0 ]; do [ "$(cat "$1/state")" = "$2" ] && return 0; sleep 0.1; t=$((t - 1)); done
    echo "$1/state is $(cat "$1/state"), expected $2"; return 1
}
if [ $loaded_ok = 1 ] && [ -d $sess_dir ]; then
    p0=$sess_dir/paths/ip:${RXE_ADDR[0]}@ip:${RXE_ADDR[0]}
    check "session directory has max_reconnect_attempts -1" expect $sess_dir/max_reconnect_attempts -1
    check "max_reconnect_attempts takes 5" set_and_read $sess_dir/max_reconnect_attempts 5 5
    check "max_reconnect_attempts refuses 10000" rejected $sess_dir/max_reconnect_attempts 10000
    check "max_reconnect_attempts back to -1" set_and_read $sess_dir/max_reconnect_attempts -1 -1
    check "mpath_policy defaults to min-inflight" expect $sess_dir/mpath_policy "min-inflight (MI: 1)"
    check "mpath_policy takes rr" set_and_read $sess_dir/mpath_policy rr "round-robin (RR: 0)"
    check "mp_policy is the same setting (seed name)" expect $sess_dir/mp_policy "round-robin (RR: 0)"
    check "mpath_policy refuses bogus" rejected $sess_dir/mpath_policy bogus
    check "mpath_policy takes min-latency" set_and_read $sess_dir/mpath_policy 2 "min-latency (ML: 2)"
    check "mpath_policy back to min-inflight" set_and_read $sess_dir/mpath_policy min-inflight "min-inflight (MI: 1)"
    # The seed's name and numbers (seed 000: mp_policy, 0 round-robin, 1 min-inflight).
    check "mp_policy takes 0: round-robin" set_and_read $sess_dir/mp_policy 0 "round-robin (RR: 0)"
    check "mp_policy takes 1: min-inflight" set_and_read $sess_dir/mp_policy 1 "min-inflight (MI: 1)"
    check "path directory $p0 is connected" expect "$p0/state" connected
    check "hca_name rxe0, hca_port 1" bash -c "[ \"\$(cat '$p0/hca_name')\" = rxe0 ] && [ \"\$(cat '$p0/hca_port')\" = 1 ]"
    check "src_addr and dst_addr" bash -c "[ \"\$(cat '$p0/src_addr')\" = ip:${RXE_ADDR[0]} ] && [ \"\$(cat '$p0/dst_addr')\" = ip:${RXE_ADDR[0]} ]"
    check "cur_latency reads '<n> ns'" grep -Eq '^[0-9]+ ns$' "$p0/cur_latency"
    if [ "$server" = ours ]; then
        # Our server's view of the same path (/sys/class/rtrs-server, seeds/002).
        sp=$(ls -d /sys/class/rtrs-server/*/paths/* 2>/dev/null | head -1)
        check "server: /sys/class/rtrs-server/<session>/paths/<client>@<server> exists" test -n "$sp"
        check "server: hca_name rxe0, hca_port 1, src_addr/dst_addr ip:..." bash -c \
            "[ \"\$(cat '$sp/hca_name')\" = rxe0 ] && [ \"\$(cat '$sp/hca_port')\" = 1 ] && grep -q '^ip:' '$sp/src_addr' && grep -q '^ip:' '$sp/dst_addr'"
        check "server: disconnect prints its usage" expect "$sp/disconnect" "Usage: echo 1 > disconnect"
        check "server: stats/rdma holds five numbers" grep -Eq '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' "$sp/stats/rdma"
        check "server: stats/wc_completion holds three numbers" grep -Eq '^[0-9]+ [0-9]+ [0-9]+$' "$sp/stats/wc_completion"
        check "server: stats/rdma refuses 2" rejected "$sp/stats/rdma" 2
    fi
    heartbeat_answered() { # a heartbeat round trip measured within two intervals
        local t=120
        while [ $t -gt 0 ]; do
            [ "$(cut -d' ' -f1 "$p0/cur_latency")" -gt 0 ] && { cat "$p0/cur_latency"; return 0; }
            sleep 0.1; t=$((t - 1))
        done
        return 1
    }
    check "the server answers our heartbeats (cur_latency > 0)" heartbeat_answered
    check "stats/rdma: six numbers, reads counted" stats_numbers "$p0/stats/rdma"
    check "stats/reconnects: 0 0" expect "$p0/stats/reconnects" "0 0"
    check "stats/reset_all prints its usage" expect "$p0/stats/reset_all" "echo 1 to reset all statistics"
    check "stats/reset_all refuses 2" rejected "$p0/stats/reset_all" 2
    # The seeds reset with 0 ("write 0 will clear all the statistics"),
    # upstream's usage says 1: both are taken (1: rtrs/004, rtrs/010).
    check "echo 0 > stats/reset_all clears stats/rdma" set_and_read "$p0/stats/reset_all" 0 "echo 1 to reset all statistics"
    check "stats/rdma is zero after the reset" expect "$p0/stats/rdma" "0 0 0 0 0 0"
    # Seed 000: 0 written to one stats file resets that file.
    if [ -r $checkfile ]; then
        cat $checkfile > /tmp/clt-check-stats
        check "stats/rdma counts the IO after the reset" stats_numbers "$p0/stats/rdma"
        check "echo 0 > stats/rdma clears it" set_and_read "$p0/stats/rdma" 0 "0 0 0 0 0 0"
    fi
    check "disconnect prints its usage" expect "$p0/disconnect" "Usage: echo 1 > disconnect"
    check "echo 1 > disconnect" bash -c "echo 1 > '$p0/disconnect'"
    check "the path is disconnected" expect "$p0/state" disconnected
    if [ "$RXE_COUNT" = 2 ]; then
        cat $checkfile > /tmp/clt-check-disc
        check "IO goes over the other path meanwhile" io_clean /tmp/clt-check-disc
    fi
    check "echo 1 > reconnect" bash -c "echo 1 > '$p0/reconnect'"
    check "the path is connected again" wait_state "$p0" connected 30
    check "stats/reconnects counts it" expect "$p0/stats/reconnects" "1 0"
    check "echo 0 > stats/reconnects clears it" set_and_read "$p0/stats/reconnects" 0 "0 0"
elif [ $loaded_ok = 1 ]; then
    not_ok "sysfs tests: no session directory $sess_dir although rtrs-clt-selftest loaded"
else
    skip "sysfs tests" "rtrs-clt-selftest did not load (failed above)"
fi

if [ $loaded_ok = 1 ] && [ -r $checkfile ] && [ "$RXE_COUNT" = 2 ]; then
    a0=${RXE_ADDR[0]} a1=${RXE_ADDR[1]}
    cat $checkfile > /tmp/clt-check0
    check "IO on both paths: verified, no errors" io_clean /tmp/clt-check0
    cat $checkfile > /tmp/clt-check1 &
    reader=$!
    sleep 1
    check "rdma link delete rxe1 while IO runs (path 2 torn down)" rdma link delete rxe1
    wait $reader
    check "IO failed over to path 1: no IO lost, failed or corrupted" io_clean /tmp/clt-check1
    diag "path 2 stats/rdma (the last field counts IO it handed to path 1): $(cat "$sess_dir/paths/ip:$a1@ip:$a1/stats/rdma" 2>&1)"
    check "rxe1 back" readd rxe1
    check "path 2 reconnects after the reconnect delay" wait_connected "$a1" 2 30
    cat $checkfile > /tmp/clt-check2
    check "IO after the reconnect: verified, no errors" io_clean /tmp/clt-check2
    check "no link event while one path stayed up" no_link_event /tmp/clt-check2
    check "rdma link delete rxe0 and rxe1: no path left" rdma link delete rxe0
    rdma link delete rxe1
    cat $checkfile > /tmp/clt-check3; cat /tmp/clt-check3
    check "without paths IO fails, and DISCONNECTED was reported once" all_paths_down /tmp/clt-check3
    # Linux's rtrs-server can trip over a session of the same name whose
    # teardown is still running when two paths race to re-create it (a
    # duplicate sysfs name, then a refcount underflow in its close work):
    # let the old session go first, and bring the paths back one by one.
    server_session_gone() {
        local t=100
        while [ -e /sys/class/rtrs-server/$session ] && [ $t -gt 0 ]; do sleep 0.1; t=$((t - 1)); done
        [ ! -e /sys/class/rtrs-server/$session ]
    }
    check "the server dropped the session" server_session_gone
    check "rxe0 back" readd rxe0
    check "path 1 reconnects" wait_connected "$a0" 2 30
    check "rxe1 back" readd rxe1
    check "path 2 reconnects" wait_connected "$a1" 3 30
    cat $checkfile > /tmp/clt-check4
    check "IO after reconnect works, RECONNECTED was reported once" reconnected_once /tmp/clt-check4
elif [ $loaded_ok = 0 ]; then
    skip "fail-over and reconnect tests" "rtrs-clt-selftest did not load (failed above)"
elif [ ! -r $checkfile ]; then
    not_ok "fail-over and reconnect tests: no $checkfile although rtrs-clt-selftest loaded"
elif [ "$npaths" != 2 ]; then
    skip "fail-over and reconnect tests" "RTRS_PATHS=$npaths: fail-over needs 2 paths"
else
    not_ok "fail-over and reconnect tests: $RXE_COUNT rxe path(s) up, 2 asked"
fi
refused() { if "$@" 2>/dev/null; then echo "$* succeeded"; return 1; fi; }
loaded rtrs_clt_selftest && check "rmmod rtrs-client is refused while a session is open" refused rmmod rtrs_client
loaded rtrs_clt_selftest && check "rmmod rtrs-clt-selftest (closes the kept session)" rmmod rtrs_clt_selftest
check "rmmod our rtrs-client" rmmod rtrs_client
# Server side: the user of the transport first, then the transport.
for m in $server_modules; do check "rmmod $m" rmmod $m; done
if dmesg | sed -n "/$mark/,\$p" | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
trap - EXIT
cleanup
tap_done; exit $?
