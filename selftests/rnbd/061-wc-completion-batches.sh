#!/usr/bin/env bash
# stats/wc_completion counts real batches: the completions one poll of a
# completion queue reaps (kernel::ib::CompletionQueue reaps 16 at a time, up
# to 256 per softirq run). Our whole stack over one Soft-RoCE loopback
# path, a RAM disk, both sides' wc_completion reset, then 4k random reads
# and writes at QD32 (fio crc32c verify):
#   - client paths/<p>/stats/wc_completion "<max> <average>": max > 1
#     (a count of one completion per call, as before, reads "1 1") and
#     average >= 1;
#   - server paths/<p>/stats/wc_completion "<max> <total> <calls>": total >=
#     the IOs fio completed (each arrives as a receive completion on an IO
#     connection), 1 <= calls <= total, total/calls >= 1 and <= max. The
#     server signals one answer in 32, so its polls mostly reap the one
#     receive that woke them: a batch above 1 is not required there (the
#     client's check shows batches are counted).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnbd-wc.XXXXXX)
cleanup() {
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT

check "setup: one rxe path, brd, our four modules" rnbd_stack_setup 1 32768 sess_queue_depth=128
dev=$(rnbd_map "sessname=wc path=ip:${RXE_ADDR[0]} device_path=/dev/ram0") || not_ok "map /dev/ram0"
cpath=$(echo /sys/class/rtrs-client/wc/paths/*)
spath=$(echo /sys/class/rtrs-server/wc/paths/*)
check "client and server path directories exist" test -d "$cpath" -a -d "$spath"

reset() { echo 1 > "$cpath/stats/wc_completion" && echo 1 > "$spath/stats/wc_completion"; }
check "both wc_completion files reset" reset
ios_before=$(( $(diskstat "$dev" 4) + $(diskstat "$dev" 8) ))
load() {
    fio --name=wc --filename="/dev/$dev" --ioengine=libaio --direct=1 --size=16m --rw=randrw --bs=4k \
        --iodepth=32 --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$tmp/fio.out" >/dev/null 2>&1 ||
        { tail -5 "$tmp/fio.out"; return 1; }
}
check "fio 4k randrw QD32 with crc32c verify" load
ios=$(( $(diskstat "$dev" 4) + $(diskstat "$dev" 8) - ios_before ))
read -r cmax cavg < "$cpath/stats/wc_completion"
read -r smax stotal scalls < "$spath/stats/wc_completion"
diag "$ios IOs; client wc_completion: max $cmax average $cavg; server: max $smax total $stotal calls $scalls"
check "client: the largest batch is above 1 ($cmax)" test "$cmax" -gt 1
check "client: the average batch is at least 1 and at most the largest ($cavg)" test "$cavg" -ge 1 -a "$cavg" -le "$cmax"
check "server: the largest batch is at least 1 ($smax)" test "$smax" -ge 1
check "server: at least one completion per IO ($stotal >= $ios)" test "$stotal" -ge "$ios" -a "$ios" -gt 0
check "server: polls that reaped something ($scalls), at most one per completion" test "$scalls" -ge 1 -a "$scalls" -le "$stotal"
check "server: total / calls within 1 .. max" test $((stotal / scalls)) -ge 1 -a $((stotal / scalls)) -le "$smax"
check "unmap" wr "/sys/block/$dev/rnbd_client/unmap_device" normal
tap_done
