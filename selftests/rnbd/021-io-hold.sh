#!/usr/bin/env bash
# IO across a total outage (every path of the session down), on our whole
# stack over two Soft-RoCE loopback paths:
#   - io_hold_timeout_ms: the map_device option and the session's sysfs
#     file read back; bad values are refused with EINVAL and change nothing;
#   - fio --verify=crc32c writing while both paths are disconnected, back
#     within the hold: fio ends with no error and its verify passes;
#   - paths down longer than a short hold: a held write fails with EIO after
#     the hold (not at once, not later than hold + margin), new IO then
#     fails at once, and IO works again once the paths are back;
#   - a forced unmap while IO is held completes at once, the IO fails;
#   - a request the server never answers (fault_drop_responses) fails with
#     EIO after two block-layer timeouts instead of being reset forever.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
dbg=/sys/kernel/debug/rtrs_client
tmp=$(mktemp -d /tmp/rnbd-hold.XXXXXX)
cleanup() {
    [ -w $dbg/fault_drop_responses ] && echo 0 > $dbg/fault_drop_responses
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
    rxe_setup 2 >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=32768 || return 1
    insmod rtrs/rtrs-server.ko sess_queue_depth=64 && insmod rnbd/rnbd-server.ko &&
        insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
check "setup: two rxe paths, brd, our four modules" setup
a0=${RXE_ADDR[0]} a1=${RXE_ADDR[1]}
map() { echo "sessname=$1 path=ip:$a0 path=ip:$a1 device_path=/dev/ram0 $2" > /sys/kernel/rnbd_client/map_device; }
wait_dev() { for _ in $(seq 50); do [ -b "/dev/$1" ] && return 0; sleep 0.1; done; return 1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
paths() { echo /sys/class/rtrs-client/$1/paths/*; }
all_paths() { # session file
    local p
    for p in $(paths "$1"); do echo 1 > "$p/$2" || return 1; done
}
wait_connected() { # session
    local p
    for _ in $(seq 100); do
        for p in $(paths "$1"); do [ "$(cat "$p/state")" = connected ] || { sleep 0.1; continue 2; }; done
        return 0
    done
    return 1
}
wait_state() { # device state
    for _ in $(seq 100); do [ "$(cat /sys/block/$1/rnbd_client/state)" = "$2" ] && return 0; sleep 0.1; done
    diag "$1 state: $(cat /sys/block/$1/rnbd_client/state), not $2"
    return 1
}

# --- the option and the sysfs file ------------------------------------------------------
knob=/sys/class/rtrs-client/hold/io_hold_timeout_ms
option_and_file() {
    if echo "sessname=bad path=ip:$a0 device_path=/dev/ram0 io_hold_timeout_ms=3600001" \
        > /sys/kernel/rnbd_client/map_device 2>"$tmp/err"; then
        diag "a map with io_hold_timeout_ms=3600001 was accepted"
        return 1
    fi
    grep -q "Invalid argument" "$tmp/err" || { diag "map: $(cat "$tmp/err")"; return 1; }
    [ ! -e /sys/class/rtrs-client/bad ] && [ ! -e /dev/rnbd0 ] || { diag "the refused map left something"; return 1; }
    map hold io_hold_timeout_ms=12345 && wait_dev rnbd0 || return 1
    [ "$(cat $knob)" = 12345 ] || { diag "read back $(cat $knob), not 12345"; return 1; }
    echo 30000 > $knob && [ "$(cat $knob)" = 30000 ] || { diag "write 30000: read back $(cat $knob)"; return 1; }
    local bad
    for bad in 3600001 -1 abc 1.5 "" 99999999999999999999; do
        if echo "$bad" > $knob 2>"$tmp/err"; then
            diag "io_hold_timeout_ms accepted '$bad'"
            return 1
        fi
        grep -q "Invalid argument" "$tmp/err" || { diag "'$bad': $(cat "$tmp/err")"; return 1; }
        [ "$(cat $knob)" = 30000 ] || { diag "'$bad' changed the value to $(cat $knob)"; return 1; }
    done
}
check "io_hold_timeout_ms: map_device option and session sysfs file read back, bad values EINVAL and unchanged" \
    option_and_file

# --- paths back within the hold: fio verify passes ----------------------------------------
outage_within_hold() {
    # About 6 s of writes (rate-limited), then the verify pass.
    timeout 120 fio --name=hold --filename=/dev/rnbd0 --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
        --size=12M --rate=2m --verify=crc32c --verify_fatal=1 --output="$tmp/fio-a.out" >/dev/null 2>&1 &
    local fio=$!
    sleep 2
    all_paths hold disconnect || return 1
    wait_state rnbd0 closed || return 1
    sleep 3
    kill -0 $fio 2>/dev/null || { diag "fio ended during the outage"; tail -5 "$tmp/fio-a.out"; return 1; }
    all_paths hold reconnect && wait_connected hold || { diag "paths did not come back"; return 1; }
    wait $fio || { diag "fio failed"; tail -15 "$tmp/fio-a.out"; return 1; }
    grep -qE "err= *0" "$tmp/fio-a.out" || { tail -15 "$tmp/fio-a.out"; return 1; }
    wait_state rnbd0 open
}
check "fio --verify=crc32c across a 3 s outage of both paths (hold 30 s): no error, verify passes" outage_within_hold

# --- the hold runs out ------------------------------------------------------------------------
outage_longer_than_hold() {
    echo 2000 > $knob || return 1
    all_paths hold disconnect || return 1
    local start end
    start=$(now_ms)
    timeout 60 dd if=/dev/zero of=/dev/rnbd0 bs=4k count=1 oflag=direct status=none 2>"$tmp/dd.err" &&
        { diag "a write succeeded with no path"; return 1; }
    end=$(now_ms)
    diag "held write failed after $((end - start)) ms (io_hold_timeout_ms 2000): $(cat "$tmp/dd.err")"
    grep -q "Input/output error" "$tmp/dd.err" || return 1
    [ $((end - start)) -ge 1500 ] || { diag "failed before the hold ended"; return 1; }
    [ $((end - start)) -le 10000 ] || { diag "failed too late"; return 1; }
    # An ended hold stays ended until a path is back, whatever the value
    # becomes: new IO fails at once, not after another 60 s.
    echo 60000 > $knob || return 1
    start=$(now_ms)
    timeout 60 dd if=/dev/rnbd0 of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &&
        { diag "a read succeeded with no path"; return 1; }
    end=$(now_ms)
    diag "new IO after the hold failed after $((end - start)) ms"
    [ $((end - start)) -lt 20000 ] || return 1
    all_paths hold reconnect && wait_connected hold && wait_state rnbd0 open || return 1
    timeout 60 dd if=/dev/zero of=/dev/rnbd0 bs=4k count=8 oflag=direct status=none
}
check "paths down past a 2 s hold: the held write fails with EIO in 1.5-10 s, new IO without a new hold; IO works when back" \
    outage_longer_than_hold

# --- forced unmap while IO is held --------------------------------------------------------------
unmap_while_held() {
    echo 60000 > $knob || return 1
    all_paths hold disconnect || return 1
    timeout 60 dd if=/dev/zero of=/dev/rnbd0 bs=4k count=1 oflag=direct status=none 2>"$tmp/dd.err" &
    local dd=$! start end
    sleep 1
    kill -0 $dd 2>/dev/null || { diag "the write was not held: $(cat "$tmp/dd.err")"; return 1; }
    start=$(now_ms)
    timeout 60 sh -c 'echo force > /sys/block/rnbd0/rnbd_client/unmap_device' || return 1
    end=$(now_ms)
    diag "forced unmap took $((end - start)) ms"
    wait $dd && { diag "the held write succeeded"; return 1; }
    [ ! -e /dev/rnbd0 ] && [ $((end - start)) -le 10000 ]
}
check "forced unmap while a write is held completes (the write fails)" unmap_while_held

# --- a request the server never answers -----------------------------------------------------------
stuck_request() {
    map stuck io_hold_timeout_ms=60000 && wait_dev rnbd0 || return 1
    echo 2000 > /sys/block/rnbd0/queue/io_timeout || return 1
    echo 18446744073709551615 > $dbg/fault_drop_responses || return 1
    local start end dd
    start=$(now_ms)
    # In the background: a request nobody completes cannot be killed.
    dd if=/dev/zero of=/dev/rnbd0 bs=4k count=1 oflag=direct status=none 2>"$tmp/dd.err" &
    dd=$!
    while kill -0 $dd 2>/dev/null && [ $(($(now_ms) - start)) -lt 40000 ]; do sleep 0.2; done
    end=$(now_ms)
    echo 0 > $dbg/fault_drop_responses
    if kill -0 $dd 2>/dev/null; then
        diag "the unanswered write is still waiting after $((end - start)) ms"
        # Recover: with no path and no hold, the transport gives it back.
        echo 0 > /sys/class/rtrs-client/stuck/io_hold_timeout_ms
        all_paths stuck disconnect
        wait $dd
        return 1
    fi
    wait $dd && { diag "the unanswered write succeeded"; return 1; }
    diag "unanswered write failed after $((end - start)) ms (io_timeout 2000 ms): $(cat "$tmp/dd.err")"
    grep -q "Input/output error" "$tmp/dd.err" || return 1
    [ $((end - start)) -ge 3500 ]
}
check "a write the server never answers fails with EIO after two 2 s block timeouts" stuck_request
echo 0 > $dbg/fault_drop_responses

check "forced unmap and unload" sh -c 'echo force > /sys/block/rnbd0/rnbd_client/unmap_device &&
    rmmod rnbd_client rtrs_client rnbd_server rtrs_server'
tap_done; exit $?
