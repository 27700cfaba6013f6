#!/usr/bin/env bash
# One client at its limits does not lock another out (security review 2,
# N2 and N3). The hostile peer (rtrs/tests/kmod/rtrs-hostile.ko) floods our
# server from the first Soft-RoCE address, RXE_ADDR[0]: first sessions, up
# to the server's max_sessions_per_client, then connections, up to
# max_connections_per_client, and holds what it got (its hold_ms). While it
# holds, our rnbd-client maps /dev/ram0 from the second address,
# RXE_ADDR[1], and runs fio with crc32c verify: that must work (before the
# per-client limits, max_sessions was one global count, and the client got
# a refusal once the flood had filled it). The refusals must carry the
# documented errnos (EBUSY for a client at its own limit, EINVAL for a path
# announcing more than max_connections_per_path connections) and the debugfs
# counters must show what the flood holds and go back to 0 after it.
# MemAvailable before, during and after each flood is printed (TAP diag).
# TAP output; root, in the VM.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init fair

# max_sessions has room for the flood and one more client; the flood asks
# more than its client's share. FAIR_SHARE_SCALE=small (the debug lane: a
# KASAN kernel under TCG sets up a session in seconds) keeps the shape with
# a share of 2 sessions and 6 connections (paths of 3: a good client with
# two vCPUs opens 3); HOSTILE_CONNECT_MS gives the
# flood's connects and answers longer than the module's default 10 s.
if [ "${FAIR_SHARE_SCALE:-}" = small ]; then
    sessions_per_client=2 max_sessions=3 flood=4
    per_path=3 conn_budget=6
else
    sessions_per_client=8 max_sessions=10 flood=12
    per_path=8 conn_budget=20
fi
srv_args="sess_queue_depth=64 max_sessions=$max_sessions max_sessions_per_client=$sessions_per_client"
srv_args="$srv_args max_connections_per_path=$per_path max_connections_per_client=$conn_budget max_connections=64"
counters=/sys/kernel/debug/rtrs_server

cleanup() {
    [ -n "${flood_pid:-}" ] && { echo 0 > /sys/module/rtrs_hostile/parameters/hold_ms; wait "$flood_pid"; } 2>/dev/null
    hostile_cleanup rtrs_hostile rnbd_client rtrs_client rnbd_server rtrs_server
}
trap cleanup EXIT

setup() {
    rxe_setup 2 >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=65536 || return 1
    insmod rtrs/rtrs-server.ko $srv_args && insmod rnbd/rnbd-server.ko &&
        insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
must "setup: two Soft-RoCE addresses, brd, rtrs-server ($srv_args) + rnbd-server, our client" setup
hostile_addr=${RXE_ADDR[0]} good_addr=${RXE_ADDR[1]}
check "modinfo describes the per-client limits" bash -c "for p in max_sessions_per_client max_connections_per_path \
    max_connections_per_client max_connections; do modinfo rtrs/rtrs-server.ko | grep -q \"^parm: *\$p:\" || exit 1; done"

counter() { cat "$counters/$1"; }
free_kib() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
counters_line() {
    echo "sessions $(counter sessions), paths $(counter paths), connections $(counter connections)," \
        "clients $(counter clients), chunk_bytes $(counter chunk_bytes), refused_connects $(counter refused_connects)"
}

# start_flood NAME ARGS...: loads the hostile module in the background with
# ARGS; returns once it holds what it flooded (its "# flood: holding" line).
start_flood() {
    local name=$1 i; shift
    mark "$name"
    insmod $ko addr="$hostile_addr" hold_ms=600000 ${HOSTILE_CONNECT_MS:+connect_ms=$HOSTILE_CONNECT_MS} "$@" &
    flood_pid=$!
    for ((i = 0; i < 300; i++)); do
        since_mark "$name" | grep -q 'rtrs_hostile: # flood: holding' && return 0
        kill -0 "$flood_pid" 2>/dev/null || { wait "$flood_pid"; flood_pid=; return 1; }
        sleep 0.5
    done
    return 1
}
# end_flood NAME CASE: ends the hold, waits for the module, prints its
# "# flood" lines and turns its case line into a TAP line.
end_flood() {
    local name=$1 case=$2 line
    echo 0 > /sys/module/rtrs_hostile/parameters/hold_ms
    wait "$flood_pid"; flood_pid=
    since_mark "$name" | grep -E 'rtrs_hostile: (# flood|case )' | sed 's/^\[[^]]*\] //' > "$tmp/log"
    grep 'rtrs_hostile: # flood' "$tmp/log" | sed 's/^rtrs_hostile: # /# /'
    line=$(grep "rtrs_hostile: case $case: " "$tmp/log")
    case $line in
        *": pass "*) ok "$case: ${line#*: pass }" ;;
        "") not_ok "$case: the hostile module reported the case" ;;
        *) not_ok "$case: ${line#*rtrs_hostile: case }" ;;
    esac
    check "$name: the hostile module unloads" rmmod rtrs_hostile
}
# The server has let go of everything the flood held (paths close
# asynchronously).
holds_nothing() { [ "$(counter sessions)" = 0 ] && [ "$(counter connections)" = 0 ] && [ "$(counter clients)" = 0 ]; }
flood_gone() { wait_for 200 holds_nothing || { counters_line; return 1; }; }

# good_client LABEL: our rnbd-client maps /dev/ram0 from the second
# address, fio verifies, unmap.
good_client() {
    local label=$1 t0 dev
    t0=$(date +%s%N)
    if dev=$(rnbd_map "sessname=good-$RANDOM path=ip:$good_addr device_path=/dev/ram0"); then
        ok "$label: a client from $good_addr maps /dev/ram0 ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
    else
        not_ok "$label: a client from $good_addr maps /dev/ram0: $(dmesg | grep -E 'rnbd_client|rtrs_client' | tail -2 | tr '\n' ' ')"
        return 1
    fi
    check "$label: fio randwrite 4k-128k QD16 with crc32c verify on /dev/$dev" fio_verify "$dev"
    check "$label: unmap" bash -c "echo normal > /sys/block/$dev/rnbd_client/unmap_device"
}
fio_verify() { hostile_fio_verify "/dev/$1" "${HOSTILE_FIO_SIZE:-16M}" 128k 16; }

mark start-003
mem_before=$(free_kib)
diag "before the floods: MemAvailable $mem_before KiB; $(counters_line)"

# 1. Sessions: the flood gets its share, the rest is refused with EBUSY.
if start_flood sessions only=flood_sessions flood=$flood; then
    ok "flood of $flood sessions from $hostile_addr holds what it got"
    diag "flood of sessions holding: MemAvailable $(free_kib) KiB; $(counters_line)"
    check "the flood holds max_sessions_per_client=$sessions_per_client sessions from one client" \
        test "$(counter sessions)" = "$sessions_per_client" -a "$(counter clients)" = 1
    good_client "while $hostile_addr holds $sessions_per_client sessions"
    diag "flood of sessions, after the good client: MemAvailable $(free_kib) KiB; $(counters_line)"
else
    not_ok "flood of $flood sessions from $hostile_addr holds what it got"
fi
end_flood sessions flood_sessions
check "the flood's sessions were refused with EBUSY beyond its share" \
    grep -q "flood: $flood sessions asked, $sessions_per_client accepted, $((flood - sessions_per_client)) refused (first refusal errno -16)" "$tmp/log"
check "refusals name the client and the limit in the log" \
    bash -c "dmesg | grep -qE 'connect from ip:[:a-f]*$hostile_addr refused: max_sessions_per_client=$sessions_per_client reached \(-16\)'"
check "after the flood of sessions the server holds nothing" flood_gone
diag "after the flood of sessions: MemAvailable $(free_kib) KiB; $(counters_line)"

# 2. Connections: a path asking more than max_connections_per_path is
# refused (EINVAL); paths of that size get max_connections_per_client
# connections in all, the next is refused (EBUSY).
if start_flood connections only=flood_connections flood_connections=$per_path flood_connections_budget=$conn_budget; then
    ok "flood of connections from $hostile_addr holds what it got"
    diag "flood of connections holding: MemAvailable $(free_kib) KiB; $(counters_line)"
    good_client "while $hostile_addr holds its connection budget"
    diag "flood of connections, after the good client: MemAvailable $(free_kib) KiB; $(counters_line)"
else
    not_ok "flood of connections from $hostile_addr holds what it got"
fi
end_flood connections flood_connections
check "after the flood of connections the server holds nothing" flood_gone
diag "after both floods: MemAvailable $(free_kib) KiB (before: $mem_before KiB); $(counters_line)"

check "all modules unload" bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"
if since_mark start-003 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
