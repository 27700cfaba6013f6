#!/usr/bin/env bash
# A session that maps nothing is closed by the server (security review,
# issue 24: "a session that maps nothing within a bounded time is
# evicted"): rnbd-server's idle_session_timeout_ms, here 3000.
#   - the hostile peer (rtrs-hostile.ko, case session_maps_nothing) opens
#     three sessions with INFO and SESS_INFO done: one never opens a device,
#     one opens and closes one, one keeps one open; the first two are closed
#     within 30 s, the third still serves a READ;
#   - our client's mapping stays up across several timeouts with no IO
#     (idle is "maps nothing", not "does no IO");
#   - the parameter refuses values outside 1000..86400000 with EINVAL and
#     keeps its value; everything unloads, no leak.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init idle
param=/sys/module/rnbd_server/parameters/idle_session_timeout_ms

cleanup() { hostile_cleanup rtrs_hostile rnbd_client rtrs_client rnbd_server rtrs_server; }
trap cleanup EXIT

setup() {
    rxe_setup 1 >/dev/null && modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=16384 || return 1
    insmod rtrs/rtrs-server.ko && insmod rnbd/rnbd-server.ko idle_session_timeout_ms=3000
}
check "setup: rxe, brd, our server (idle_session_timeout_ms=3000)" setup || tap_skip_all "setup failed"
addr=${RXE_ADDR[0]}
mark start-012
check "idle_session_timeout_ms reads back 3000" grep -qx 3000 $param
expect_errno "idle_session_timeout_ms=999 (below 1000) is refused" EINVAL $param 999
expect_errno "idle_session_timeout_ms=86400001 (above 86400000) is refused" EINVAL $param 86400001
expect_errno "idle_session_timeout_ms=abc is refused" EINVAL $param abc
check "idle_session_timeout_ms keeps its value after the refused writes" grep -qx 3000 $param

t0=$SECONDS
insmod $ko addr="$addr" only=session_maps_nothing blockdev=/dev/ram0 || not_ok "the hostile module runs its case"
since_mark start-012 > "$tmp/log"
grep -E 'rtrs_hostile: # idle' "$tmp/log" | sed 's/^\[[^]]*\] rtrs_hostile: /# /'
if grep -q 'rtrs_hostile: case session_maps_nothing: pass' "$tmp/log"; then
    ok "sessions that map nothing are closed within 30 s, a mapping one stays ($((SECONDS - t0)) s)"
else
    not_ok "session_maps_nothing: $(grep -m1 'case session_maps_nothing:' "$tmp/log" | sed 's/^.*: //')"
fi
count=$(grep -c 'idle_session_timeout_ms): closing it' "$tmp/log" || true)
if [ "$count" -ge 2 ]; then ok "the server logged each close ($count lines)"
else not_ok "the server logged each close (saw $count lines, expected 2)"; fi
check "the hostile module unloads" rmmod rtrs_hostile

check "our client maps /dev/ram0" bash -c "insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko &&
    echo 'sessname=idle-good path=ip:$addr device_path=/dev/ram0' > /sys/kernel/rnbd_client/map_device"
disk=
for d in /sys/block/rnbd*; do [ "$(cat "$d/rnbd_client/session" 2>/dev/null)" = idle-good ] && disk=${d##*/}; done
mark idle-good
sleep 8
check "after 8 s with no IO (over two timeouts) the mapping (${disk:-none}) still reads" \
    dd if="/dev/${disk:-none}" of=/dev/null bs=4k count=16 iflag=direct status=none
if since_mark idle-good | grep -q 'session idle-good: no device mapped'; then
    not_ok "the server left the mapped session alone"
else
    ok "the server left the mapped session alone"
fi
check "unmap" bash -c "echo normal > /sys/block/${disk:-none}/rnbd_client/unmap_device"
check "all modules unload" bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"
if since_mark start-012 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
