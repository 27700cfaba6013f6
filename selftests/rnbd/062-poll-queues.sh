#!/usr/bin/env bash
# Poll queues (nr_poll_queues= of map_device), functional, not timed. Our
# client over two Soft-RoCE loopback paths, a RAM disk:
#   - a map with nr_poll_queues=2 gets two HCTX_TYPE_POLL hardware queues
#     (queue/io_poll 1, one mq/ directory per CPU plus two), and each path
#     two more RTRS connections whose CQs only the polling caller reaps;
#   - fio --ioengine=io_uring --hipri --verify=crc32c passes, and the
#     paths' stats/poll_completions (completions reaped by polling) grow;
#     the same fio without --hipri (interrupts) leaves them alone;
#   - a map without nr_poll_queues on another session has no poll queue
#     (io_poll 0): hipri IO verifies through interrupts (6.1; 6.12 refuses
#     it with EOPNOTSUPP) and its session's poll_completions stay "0 0"; a map on the polled session with another
#     nr_poll_queues is refused with EINVAL;
#   - fail-over on polled connections: path 0's answers dropped
#     (debugfs fault_drop_responses) while a polled verify runs, so its
#     requests stand in flight on path 0's polled connections; path 0 is
#     disconnected: debugfs failovers grows, failover_errors does not,
#     fio finishes with no error, and path 1's poll_completions grew;
#   - against Linux's rtrs-server/rnbd-server (.cache/upstream), which just
#     sees more connections: a polled map, hipri verify, poll_completions grow.
# nr_poll_queues=-1 (one per CPU) is shown as the CPU count.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnbd-poll.XXXXXX)
dbg=/sys/kernel/debug/rtrs_client
cleanup() {
    [ -e $dbg/fault_drop_responses ] && echo 0 > $dbg/fault_drop_responses
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT
command -v fio >/dev/null || tap_skip_all "missing tool fio"

setup() {
    rxe_setup 2 >/dev/null || return 1
    if mod_loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=2 rd_size=32768 || return 1
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
    rnbd_server_load ours && rnbd_client_load
}
check "setup: two rxe paths, brd, our four modules" setup
a0=${RXE_ADDR[0]} a1=${RXE_ADDR[1]}
cpus=$(nproc)

# fio_io DEV NAME [fio args...]: 4k random writes QD16 with crc32c verify over io_uring
fio_io() {
    local dev=$1 name=$2; shift 2
    fio --name="$name" --filename="/dev/$dev" --ioengine=io_uring --direct=1 --rw=randwrite --bs=4k \
        --iodepth=16 --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 "$@" \
        --output="$tmp/$name.out" >/dev/null 2>&1 || { tail -5 "$tmp/$name.out"; return 1; }
    grep -q "err= 0" "$tmp/$name.out" || { grep err= "$tmp/$name.out"; return 1; }
}
# polled SESSION: completions reaped by polling, summed over its paths
polled() {
    local p n=0
    for p in /sys/class/rtrs-client/$1/paths/*; do n=$((n + $(cut -d' ' -f1 "$p/stats/poll_completions"))); done
    echo $n
}
path_dir() { # SESSION ADDR
    local p
    for p in /sys/class/rtrs-client/$1/paths/*; do [ "$(cat "$p/dst_addr")" = "ip:$2" ] && { echo "$p"; return; }; done
}

# --- a polled map ------------------------------------------------------------------
dev=$(rnbd_map "sessname=pq path=ip:$a0 path=ip:$a1 device_path=/dev/ram0 nr_poll_queues=2") ||
    not_ok "map /dev/ram0 with nr_poll_queues=2"
check "nr_poll_queues shows 2" test "$(cat /sys/block/$dev/rnbd_client/nr_poll_queues)" = 2
check "the queue polls (queue/io_poll 1)" test "$(cat /sys/block/$dev/queue/io_poll)" = 1
check "one hardware queue per CPU plus two polled ones ($cpus CPUs)" \
    test "$(ls -d /sys/block/$dev/mq/* | wc -l)" = $((cpus + 2))
check "poll_completions of a fresh path read 0 0" \
    test "$(cat "$(path_dir pq "$a0")/stats/poll_completions")" = "0 0"
before=$(polled pq)
check "fio io_uring --hipri crc32c verify on the polled map" fio_io "$dev" hipri --hipri
after=$(polled pq)
diag "completions reaped by polling: $before -> $after"
check "poll_completions grew under polled IO" test "$after" -gt "$before"
check "fio io_uring without --hipri (interrupts) verifies too" fio_io "$dev" irq
check "... and poll_completions did not grow" test "$(polled pq)" = "$after"
check "wc_completion counts the polled batches as well" test "$(cut -d' ' -f1 "$(path_dir pq "$a0")/stats/wc_completion")" -gt 0
check "echo 1 > poll_completions resets it" bash -c \
    "echo 1 > '$(path_dir pq "$a0")/stats/poll_completions' && [ \"\$(cat '$(path_dir pq "$a0")/stats/poll_completions')\" = '0 0' ]"

# --- maps without polling, and mismatches ------------------------------------------
expect_errno "a map on session pq with nr_poll_queues=1" EINVAL /sys/kernel/rnbd_client/map_device \
    "sessname=pq device_path=/dev/ram1 nr_poll_queues=1"
expect_errno "a map on session pq without nr_poll_queues" EINVAL /sys/kernel/rnbd_client/map_device \
    "sessname=pq device_path=/dev/ram1"
plain=$(rnbd_map "sessname=np path=ip:$a0 device_path=/dev/ram1") || not_ok "map /dev/ram1 without polling"
check "the plain map does not poll (queue/io_poll 0, nr_poll_queues 0)" \
    test "$(cat /sys/block/$plain/queue/io_poll)" = 0 -a "$(cat /sys/block/$plain/rnbd_client/nr_poll_queues)" = 0
# Linux 6.1 completes polled IO on a queue that cannot poll through
# interrupts; 6.12 refuses it (BLK_STS_NOTSUPP in blk_mq_submit_bio).
plain_hipri() {
    if [ "$(uname -r | cut -d. -f1,2)" = 6.1 ]; then fio_io "$plain" plain-hipri --hipri; return; fi
    ! fio_io "$plain" plain-hipri --hipri >/dev/null && grep -q "Operation not supported" "$tmp/plain-hipri.out"
}
check "hipri fio on the plain map: verified through interrupts (6.1) or refused, EOPNOTSUPP (6.12)" plain_hipri
check "... and its session's poll_completions stay 0 0" test "$(cat /sys/class/rtrs-client/np/paths/*/stats/poll_completions)" = "0 0"
check "unmap the plain map" wr "/sys/block/$plain/rnbd_client/unmap_device" normal

# --- fail-over of polled IO ----------------------------------------------------------
p0=$(path_dir pq "$a0") p1=$(path_dir pq "$a1")
inflight() { cut -d' ' -f5 "$1/stats/rdma"; }
stuck_on() { # DIR: its in-flight count once non-zero and still for 1 s
    local t=150 a b
    while [ $t -gt 0 ]; do
        a=$(inflight "$1")
        if [ "$a" -gt 0 ]; then sleep 1; b=$(inflight "$1"); [ "$a" = "$b" ] && { echo "$a"; return 0; }; fi
        sleep 0.1; t=$((t - 1))
    done
    return 1
}
echo rr > /sys/class/rtrs-client/pq/mpath_policy
f0=$(cat $dbg/failovers) e0=$(cat $dbg/failover_errors) q1=$(cut -d' ' -f1 "$p1/stats/poll_completions")
echo 1 > $dbg/fault_drop_responses
fio_io "$dev" failover --hipri --size=16m > "$tmp/failover.rc" 2>&1 &
fio_pid=$!
stood=$(stuck_on "$p0") || stood=0
diag "polled requests standing on path 0: $stood"
check "polled requests stood in flight on path 0 (answers dropped)" test "$stood" -gt 0
echo 1 > "$p0/disconnect"
echo 0 > $dbg/fault_drop_responses
if wait $fio_pid; then ok "polled verify across the disconnect of path 0: no error"
else not_ok "polled verify across the disconnect of path 0: $(cat "$tmp/failover.rc")"; fi
d_f=$(($(cat $dbg/failovers) - f0)) d_e=$(($(cat $dbg/failover_errors) - e0))
diag "failovers +$d_f, failover_errors +$d_e; path 1 poll_completions $q1 -> $(cut -d' ' -f1 "$p1/stats/poll_completions")"
check "the standing requests failed over (debugfs failovers grew by at least $stood)" test "$d_f" -ge "$stood"
check "none failed (failover_errors did not grow)" test "$d_e" = 0
check "path 1 reaped by polling" test "$(cut -d' ' -f1 "$p1/stats/poll_completions")" -gt "$q1"
check "path 0 comes back (echo 1 > reconnect)" wr "$p0/reconnect" 1
check "polled verify over both paths again" fio_io "$dev" again --hipri
check "unmap the polled map" wr "/sys/block/$dev/rnbd_client/unmap_device" normal

# --- -1: one per CPU -------------------------------------------------------------------
all=$(rnbd_map "sessname=pall path=ip:$a0 device_path=/dev/ram1 nr_poll_queues=-1") || not_ok "map with nr_poll_queues=-1"
check "nr_poll_queues=-1 shows one per CPU ($cpus)" test "$(cat /sys/block/$all/rnbd_client/nr_poll_queues)" = "$cpus"
check "hipri verify with one polled queue per CPU" fio_io "$all" all --hipri
check "unmap it" wr "/sys/block/$all/rnbd_client/unmap_device" normal

# --- against Linux's server -------------------------------------------------------------
if [ -f "$kodir/rnbd-server.ko" ]; then
    # The server lets go of the closed sessions on its own time.
    up() {
        wait_for 100 test ! -e /sys/class/rtrs-client/pq -a ! -e /sys/class/rtrs-client/pall &&
            wait_for 100 rnbd_server_unload && rnbd_server_load upstream
    }
    check "our server out, Linux's rtrs-server and rnbd-server in" up
    udev=$(rnbd_map "sessname=pqu path=ip:$a0 device_path=/dev/ram0 nr_poll_queues=2") ||
        not_ok "polled map against Linux's server"
    check "Linux's server took the extra connections (its path directory)" test -d /sys/class/rtrs-server/pqu
    ub=$(polled pqu)
    check "hipri verify against Linux's server" fio_io "$udev" upstream --hipri
    check "poll_completions grew against Linux's server too" test "$(polled pqu)" -gt "$ub"
    check "unmap it" wr "/sys/block/$udev/rnbd_client/unmap_device" normal
else
    skip "Linux's server" "$kodir/rnbd-server.ko missing (tools/upstream/build.sh)"
fi
tap_done
