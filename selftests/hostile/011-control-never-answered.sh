#!/usr/bin/env bash
# A server that never answers a control message must not hang the client
# (security review N4). The hostile peer as a server (rtrs-hostile.ko
# mode=client, case control_never_answered, port 4321) announces queue
# depth 1, answers SESS_INFO and the first OPEN of a session, and leaves
# every later OPEN unanswered, holding its permit. Our client runs with
# control_timeout_ms=20000 (long enough for a map on the debug kernel to
# finish inside it). Asserted:
#   - a second map on that session fails with ETIMEDOUT in bounded time;
#   - while it waits, a map on a good server (ours, port 1234) and the unmap
#     of a device of the good server finish at once (no client-wide lock is
#     held across the network);
#   - after the timeout the held permit is given back (the path carrying
#     the OPEN is failed and reconnects): IO to the first device finishes;
#   - a map waiting behind the unanswered one is interrupted by a signal;
#   - everything unmaps and unloads, no leak.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init ctl
param=/sys/module/rtrs_hostile/parameters/client_case
map=/sys/kernel/rnbd_client/map_device

cleanup() { hostile_cleanup rnbd_client rtrs_client rtrs_hostile rnbd_server rtrs_server; }
trap cleanup EXIT

setup() {
    rxe_setup 1 >/dev/null && modprobe rdma_cm && modprobe brd rd_nr=2 rd_size=16384 || return 1
    insmod rtrs/rtrs-server.ko && insmod rnbd/rnbd-server.ko || return 1
    insmod $ko mode=client port=4321 && echo control_never_answered > $param || return 1
    insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko control_timeout_ms=20000
}
check "setup: rxe, our server (port 1234), the hostile server (port 4321), our client (control_timeout_ms=20000)" \
    setup || tap_skip_all "setup failed"
addr=${RXE_ADDR[0]}
mark start-011
expect_errno "control_timeout_ms=5 (outside 1000..600000) is refused" EINVAL \
    /sys/module/rnbd_client/parameters/control_timeout_ms 5
check "control_timeout_ms keeps its value after the refused write" \
    grep -qx 20000 /sys/module/rnbd_client/parameters/control_timeout_ms

disk_of() { # session path -> rnbdN
    local d
    for d in /sys/block/rnbd*; do
        [ "$(cat "$d/rnbd_client/session" 2>/dev/null)" = "$1" ] &&
            [ "$(cat "$d/rnbd_client/mapping_path" 2>/dev/null)" = "$2" ] && { basename "$d"; return 0; }
    done
    return 1
}
check "map A on the hostile server (its first OPEN is answered)" \
    bash -c "echo 'sessname=evil path=ip:$addr dest_port=4321 device_path=/dev/a' > $map"
check "map G1 on the good server" bash -c "echo 'sessname=good path=ip:$addr device_path=/dev/ram0' > $map"
evil_a=$(disk_of evil /dev/a) good_1=$(disk_of good /dev/ram0)
diag "A is $evil_a, G1 is $good_1"

# Map B on the hostile session: its OPEN is never answered.
t0=$SECONDS
( wr $map "sessname=evil device_path=/dev/b" > "$tmp/b.err"; echo $? > "$tmp/b.rc" ) &
b_pid=$!
sleep 1
t1=$SECONDS
check "while B's OPEN waits: a map on the good server finishes" \
    timeout 15 bash -c "echo 'sessname=good device_path=/dev/ram1' > $map"
check "while B's OPEN waits: an unmap on the good server finishes" \
    timeout 15 bash -c "echo normal > /sys/block/$good_1/rnbd_client/unmap_device"
good_s=$((SECONDS - t1))
if [ -e /proc/$b_pid ]; then ok "both finished in ${good_s} s while B still waited"
else not_ok "B returned before the good server's map and unmap could be timed"; fi
wait $b_pid
b_rc=$(cat "$tmp/b.rc") b_s=$((SECONDS - t0))
if [ "$b_rc" != 0 ] && grep -qx ETIMEDOUT "$tmp/b.err" && [ "$b_s" -le 60 ]; then
    ok "map B fails with ETIMEDOUT after ${b_s} s"
else
    not_ok "map B fails with ETIMEDOUT in bounded time (rc $b_rc after ${b_s} s: $(cat "$tmp/b.err"))"
fi
# The timed-out OPEN's path was failed; once it reconnects, A's IO needs
# the permit that OPEN held.
check "after the timeout, a READ of A finishes (the permit came back)" \
    timeout 60 dd if=/dev/$evil_a of=/dev/null bs=4k count=1 iflag=direct status=none
since_mark start-011 | grep -qE "no answer from the server in 20000 ms" &&
    ok "the client logged the unanswered control message" ||
    not_ok "the client logged the unanswered control message"

# A map that waits behind another map of its session ends on a signal:
# C's OPEN is left unanswered (and holds the only permit), D waits for C.
( wr $map "sessname=evil device_path=/dev/c" >/dev/null ) &
c_pid=$!
sleep 1
( exec bash -c "echo 'sessname=evil device_path=/dev/d' > $map" ) 2>/dev/null &
d_pid=$!
sleep 1
kill -INT $d_pid 2>/dev/null
for _ in $(seq 30); do [ -e /proc/$d_pid ] || break; sleep 0.1; done
if [ -e /proc/$d_pid ]; then not_ok "a map waiting behind an unanswered map of its session ends on SIGINT"; kill -9 $d_pid
else ok "a map waiting behind an unanswered map of its session ends on SIGINT"; fi
wait $c_pid $d_pid 2>/dev/null

check "unmap A" bash -c "echo force > /sys/block/$evil_a/rnbd_client/unmap_device"
g2=$(disk_of good /dev/ram1)
check "unmap G2" bash -c "echo normal > /sys/block/$g2/rnbd_client/unmap_device"
check "no rnbd device left" bash -c "! ls /sys/block | grep -q '^rnbd'"
check "rnbd-client and rtrs-client unload" bash -c "rmmod rnbd_client && rmmod rtrs_client"
if since_mark start-011 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
