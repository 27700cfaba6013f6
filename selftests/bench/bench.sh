#!/usr/bin/env bash
# Guest side of `make bench` (see tools/bench.sh). For each stack: load its
# modules, map a 1 GiB brd RAM disk over rxe loopback, run the fio workloads,
# record fio's JSON, unmap and unload. A stack that cannot map is recorded
# as failed, not skipped silently.
set -uo pipefail
cd "$(dirname "$0")/../.."
. selftests/lib.sh
. selftests/lib-rxe.sh
runtime=${BENCH_RUNTIME:-10}
stacks=${BENCH_STACKS:-upstream ours}
result=${BENCH_OUT:-/results/bench}.json
up=.cache/upstream

workloads=(
  "randread-4k-qd32 --rw=randread --bs=4k --iodepth=32"
  "randwrite-4k-qd32 --rw=randwrite --bs=4k --iodepth=32"
  "randread-4k-qd1 --rw=randread --bs=4k --iodepth=1"
  "randwrite-4k-qd1 --rw=randwrite --bs=4k --iodepth=1"
  "read-128k-qd8 --rw=read --bs=128k --iodepth=8"
  "write-128k-qd8 --rw=write --bs=128k --iodepth=8"
)

rxe_setup 1 || exit 1
modprobe rdma_cm
modprobe brd rd_nr=1 rd_size=$((1024 * 1024)) || exit 1
addr=${RXE_ADDR[0]}

load_stack() {
    case $1 in
    upstream)
        insmod $up/rtrs-core.ko && insmod $up/rtrs-server.ko && insmod $up/rnbd-server.ko &&
            insmod $up/rtrs-client.ko && insmod $up/rnbd-client.ko ;;
    ours)
        insmod rtrs/rtrs-server.ko && insmod rnbd/rnbd-server.ko &&
            insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko ;;
    esac
}
unload_stack() {
    for m in rnbd_client rtrs_client rnbd_server rtrs_server rtrs_core; do
        grep -q "^$m " /proc/modules && rmmod $m
    done
    return 0
}
map_device() {
    local ctl=/sys/class/rnbd-client/ctl/map_device
    echo "sessname=bench-$1 path=ip:$addr device_path=/dev/ram0" > $ctl || return 1
    for _ in $(seq 50); do [ -b /dev/rnbd0 ] && return 0; sleep 0.1; done
    return 1
}
unmap_device() {
    local f
    for f in /sys/block/rnbd0/rnbd/unmap_device /sys/block/rnbd0/rnbd_client/unmap_device; do
        [ -e $f ] && { echo normal > $f; return; }
    done
}

echo "{" > "$result"
first=1
for stack in $stacks; do
    echo "# bench: stack $stack"
    if ! load_stack $stack || ! map_device $stack; then
        echo "# bench: $stack: could not load or map"
        unload_stack
        [ $first = 1 ] || echo "," >> "$result"; first=0
        echo "\"$stack\": null" >> "$result"
        continue
    fi
    [ $first = 1 ] || echo "," >> "$result"; first=0
    echo "\"$stack\": {" >> "$result"
    sep=
    for w in "${workloads[@]}"; do
        name=${w%% *}; args=${w#* }
        echo "# bench: $stack $name"
        json=$(fio --name="$name" --filename=/dev/rnbd0 --ioengine=libaio --direct=1 --numjobs=1 \
            --time_based --ramp_time=2 --runtime="$runtime" --size=1g --output-format=json $args 2>/dev/null)
        [ -n "$json" ] || json=null
        printf '%s"%s": %s\n' "$sep" "$name" "$json" >> "$result"
        sep=,
    done
    echo "}" >> "$result"
    unmap_device
    sleep 1
    unload_stack
done
echo "}" >> "$result"
echo "# bench: results in $result"
