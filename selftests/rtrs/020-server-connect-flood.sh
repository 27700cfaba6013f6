#!/usr/bin/env bash
# Connect flood against our rtrs-server: Linux 6.1's rnbd-client (built by
# tools/upstream/build.sh into .cache/upstream) maps /dev/ram0 read-only
# from our rnbd-server under FLOOD_SESSIONS distinct session names (one
# session with one path each), then tries paths that upstream's rules
# refuse. The server runs with max_sessions=$max_sessions and small chunks
# (sess_queue_depth=32, max_chunk_size=16384: 512 KiB of chunks a session).
# Asserted: exactly max_sessions maps succeed and the rest fail (refused
# connects counted); the server's chunk memory and registrations stay at
# max_sessions sessions' worth (debugfs rtrs_server/ counters); MemFree and
# Slab (/proc/meminfo) before, at the peak and after are printed as TAP
# diag lines and stay bounded; a second path between the same two
# addresses is refused; after unmapping everything the counters are back
# to 0, a well-behaved client still maps and reads, and the modules unload
# with no leak. TAP output; root, in the VM.
set -uo pipefail
cd "$(dirname "$0")/../.."
. selftests/lib.sh
. selftests/lib-rxe.sh

flood=${FLOOD_SESSIONS:-200}
max_sessions=8
ctl=/sys/class/rnbd-client/ctl
counters=/sys/kernel/debug/rtrs_server
require_upstream_client

cleanup() {
    unmap_client_links "$ctl"
    unload_loaded rnbd-client rtrs-client rtrs-core rnbd_server
    loaded rtrs_server && rmmod rtrs_server
    rxe_teardown >/dev/null 2>&1
    loaded brd && rmmod brd
    return 0
}
trap cleanup EXIT

counter() { cat "$counters/$1"; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
report() { # label
    diag "$1: MemFree $(meminfo MemFree) kB, Slab $(meminfo Slab) kB, sessions $(counter sessions)," \
        "paths $(counter paths), chunk_bytes $(counter chunk_bytes)," \
        "registered_chunk_bytes $(counter registered_chunk_bytes), refused_connects $(counter refused_connects)"
}
mapped_count() { ls "$ctl/devices" 2>/dev/null | wc -l; }
wait_counter() { # name value
    local i
    for ((i = 0; i < 200; i++)); do [ "$(counter "$1")" = "$2" ] && return 0; sleep 0.1; done
    echo "$1 is $(counter "$1"), expected $2"; return 1
}

tap_plan 15

setup() {
    loaded brd && rmmod brd
    modprobe brd rd_nr=1 rd_size=16384 && modprobe ib_core && modprobe rdma_cm || return 1
    rxe_setup 1 || return 1
    insmod rtrs/rtrs-server.ko max_sessions=$max_sessions sess_queue_depth=32 max_chunk_size=16384 || return 1
    insmod rnbd/rnbd-server.ko || return 1
    for m in "${upstream[@]}"; do insmod "$kodir/$m.ko" || return 1; done
}
if ! setup; then not_ok "setup"; tap_skip_all "setup failed"; fi
ok "brd, Soft-RoCE, our rtrs-server (max_sessions=$max_sessions) + rnbd-server, Linux's rnbd-client"
addr=${RXE_ADDR[0]}
check "modinfo describes max_sessions and info_timeout_ms" \
    bash -c "modinfo rtrs/rtrs-server.ko | grep -q '^parm:.*max_sessions:' && modinfo rtrs/rtrs-server.ko | grep -q '^parm:.*info_timeout_ms:'"

free_before=$(meminfo MemFree) slab_before=$(meminfo Slab)
report before
succeeded=0 failed=0
start=$SECONDS
for ((i = 0; i < flood; i++)); do
    if echo "sessname=flood$i path=ip:$addr device_path=/dev/ram0 access_mode=ro" > "$ctl/map_device" 2>/dev/null; then
        succeeded=$((succeeded + 1))
    else
        failed=$((failed + 1))
    fi
    [ $i = $((max_sessions + 2)) ] && report "during (after $((i + 1)) attempts)"
done
diag "$flood map attempts in $((SECONDS - start)) s: $succeeded mapped, $failed refused"
report peak
free_peak=$(meminfo MemFree) slab_peak=$(meminfo Slab)
check "exactly max_sessions=$max_sessions sessions mapped" [ "$succeeded" = $max_sessions ]
check "$((flood - max_sessions)) further sessions refused" [ "$failed" = $((flood - max_sessions)) ]
check "the server keeps $max_sessions sessions and paths" \
    bash -c "[ $(counter sessions) = $max_sessions ] && [ $(counter paths) = $max_sessions ]"
check "chunk memory: $max_sessions x 32 x 16 KiB" [ "$(counter chunk_bytes)" = $((max_sessions * 32 * 16384)) ]
check "registrations: one per chunk per path" [ "$(counter registered_chunk_bytes)" = $((max_sessions * 32 * 16384)) ]
check "refused connects counted" [ "$(counter refused_connects)" -ge $((flood - max_sessions)) ]
# Slab may grow by the per-session and per-path objects of max_sessions
# sessions, not with the number of attempts: 64 MiB is far above that and
# far below what $flood sessions at the module defaults (64 MiB each) take.
check "memory bounded (MemFree -$(((free_before - free_peak) / 1024)) MiB, Slab +$(((slab_peak - slab_before) / 1024)) MiB)" \
    [ $((free_before - free_peak)) -lt $((64 * 1024)) ]

check "unmap every device" bash -c "$(declare -f unmap_client_links); unmap_client_links $ctl; for i in \$(seq 100); do [ \$(ls $ctl/devices | wc -l) = 0 ] && exit 0; sleep 0.1; done; exit 1"
check "the server drops every session, chunk and registration" \
    bash -c "$(declare -f wait_counter counter); counters=$counters; wait_counter sessions 0 && wait_counter chunk_bytes 0 && wait_counter registered_chunk_bytes 0 && wait_counter paths 0"
report after

# dev_of SESSION: /dev/rnbdN of the mapping of /dev/ram0 in SESSION.
dev_of() {
    local link="$ctl/devices/!dev!ram0@$1" i
    for ((i = 0; i < 100; i++)); do
        [ -L "$link" ] && [ -b "/dev/$(basename "$(readlink -f "$link")")" ] &&
            { echo "/dev/$(basename "$(readlink -f "$link")")"; return 0; }
        sleep 0.1
    done
    echo "no mapping $link" >&2; return 1
}
# A session whose two paths are the same address pair: the server takes
# the first and refuses the second (EEXIST), as upstream does; Linux's
# client then fails the whole map with that errno.
dup_refused() {
    local before; before=$(counter refused_connects)
    if echo "sessname=dup path=ip:$addr path=ip:$addr device_path=/dev/ram0 access_mode=ro" \
        > "$ctl/map_device" 2>/tmp/flood-dup-err; then
        echo "map with two equal paths succeeded"; return 1
    fi
    diag "map: $(cat /tmp/flood-dup-err); refused_connects $before -> $(counter refused_connects)"
    grep -q "File exists" /tmp/flood-dup-err && [ "$(counter refused_connects)" -gt "$before" ] &&
        wait_counter paths 0
}
check "a second path between the same addresses is refused (EEXIST), nothing stays" dup_refused
unmap_client_links "$ctl"
readable() {
    echo "sessname=after path=ip:$addr device_path=/dev/ram0 access_mode=ro" > "$ctl/map_device" || return 1
    local dev; dev=$(dev_of after) || return 1
    dd if="$dev" of=/dev/null bs=1M count=16 iflag=direct status=none
}
check "a well-behaved client maps and reads after the flood" readable
unmap_client_links "$ctl"
unload_loaded rnbd-client rtrs-client rtrs-core
check "rmmod rnbd-server rtrs-server" bash -c "rmmod rnbd_server && rmmod rtrs_server"
expect_no_leak "no leak reported at module exit" "$(dmesg)"
trap - EXIT
cleanup
tap_done; exit $?
