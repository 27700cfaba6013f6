#!/usr/bin/env bash
# Smoke test of the upstream (Linux 6.1 in-tree) RNBD/RTRS modules built by
# tools/upstream/build.sh. Runs INSIDE the test VM, as root:
#
#   tools/vm/run.sh --timeout 600 -- selftests/upstream/smoke.sh
#
# Soft-RoCE (rdma_rxe) on a veth netdev loops back to its own address
# 192.0.2.1; brd provides /dev/ram0, exported by rnbd-server and mapped by
# rnbd-client as /dev/rnbd0. Data written through /dev/rnbd0 is verified with
# fio and compared byte for byte against /dev/ram0. Output is TAP version 13.
#
# Environment:
#   UPSTREAM_KO_DIR   where the .ko files are (default <repo>/.cache/upstream)
#   SMOKE_BENCH_SECS  runtime of the 4k randread QD32 measurement (default 10, 0 skips it)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kodir=${UPSTREAM_KO_DIR:-$top/.cache/upstream}
bench_secs=${SMOKE_BENCH_SECS:-10}

ram_mib=64          # brd size (rd_size is in KiB)
addr=192.0.2.1
netdev=upsmk0       # veth pair upsmk0 <-> upsmk1
rxe=upsmk_rxe0
sess=smoke
modules=(rtrs-core rtrs-server rtrs-client rnbd-server rnbd-client)

plan=12
n=0 passed=0 failed=0
broken=""   # set when a step that later steps depend on has failed
ok()    { n=$((n+1)); passed=$((passed+1)); echo "ok $n - $*"; }
notok() { n=$((n+1)); failed=$((failed+1)); echo "not ok $n - $*"; }
diag()  { sed 's/^/# /'; }
# check DESCRIPTION CMD...: runs CMD (output as TAP diagnostics), ok if it succeeds.
check() {
    local desc=$1; shift
    if [ -n "$broken" ]; then notok "$desc # not run: $broken failed"; return 1; fi
    local out rc
    out=$("$@" 2>&1); rc=$?
    [ -n "$out" ] && printf '%s\n' "$out" | diag
    if [ $rc -eq 0 ]; then ok "$desc"; else notok "$desc (exit $rc)"; fi
    return $rc
}
# need DESCRIPTION CMD...: like check, but later steps are not run on failure.
need() { check "$@" || broken=${broken:-"'$1'"}; }

echo "TAP version 13"
echo "1..$plan"

if [ "$(id -u)" != 0 ]; then
    echo "# must run as root (inside the VM)"; broken="running as root"
fi
for m in "${modules[@]}"; do
    [ -f "$kodir/$m.ko" ] || { echo "# missing $kodir/$m.ko: run tools/upstream/build.sh"; broken="build"; }
done
for t in fio rdma ip cmp dd; do
    command -v $t >/dev/null || { echo "# missing tool: $t"; broken="tool check"; }
done

dmesg_start=$(dmesg | wc -l)

loaded_upstream() { grep -qE "^${1//-/_} " /proc/modules; }
cleanup() {
    [ -e /sys/block/rnbd0/rnbd/unmap_device ] && echo force > /sys/block/rnbd0/rnbd/unmap_device 2>/dev/null
    local i
    for ((i=${#modules[@]}-1; i>=0; i--)); do
        loaded_upstream "${modules[$i]}" && rmmod "${modules[$i]}" 2>/dev/null
    done
    rdma link delete "$rxe" 2>/dev/null
    ip link del "$netdev" 2>/dev/null
    return 0
}
trap cleanup EXIT

step_modprobe() {
    modprobe rdma_rxe && modprobe veth && modprobe ib_core && modprobe rdma_cm || return 1
    if grep -q '^brd ' /proc/modules; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=$((ram_mib * 1024)) || return 1
    [ -b /dev/ram0 ] || { echo "/dev/ram0 missing"; return 1; }
}
need "modprobe rdma_rxe, veth, ib_core, rdma_cm and brd (rd_nr=1 rd_size=${ram_mib}MiB)" step_modprobe

step_net() {
    ip link add "$netdev" type veth peer name "${netdev%0}1" &&
    ip addr add "$addr/24" dev "$netdev" &&
    ip link set "${netdev%0}1" up && ip link set "$netdev" up && ip link set lo up
}
need "veth $netdev up with $addr/24" step_net

step_rxe() {
    rdma link add "$rxe" type rxe netdev "$netdev" || return 1
    local i
    for ((i=0; i<50; i++)); do
        rdma link show "$rxe/1" 2>/dev/null | grep -q 'state ACTIVE' && { rdma link show "$rxe/1"; return 0; }
        sleep 0.2
    done
    rdma link show; echo "port $rxe/1 not ACTIVE after 10 s"; return 1
}
need "rdma link add $rxe type rxe netdev $netdev, port ACTIVE" step_rxe

step_insmod() {
    local m
    for m in "${modules[@]}"; do
        insmod "$kodir/$m.ko" || { echo "insmod $m.ko failed"; return 1; }
    done
    [ -e /sys/class/rnbd-client/ctl/map_device ] || { echo "no /sys/class/rnbd-client/ctl/map_device"; return 1; }
    [ -d /sys/class/rnbd-server ] || { echo "no /sys/class/rnbd-server"; return 1; }
}
need "insmod upstream ${modules[*]}" step_insmod

step_map() {
    echo "sessname=$sess path=ip:$addr device_path=/dev/ram0" > /sys/class/rnbd-client/ctl/map_device
}
need "map_device sessname=$sess path=ip:$addr device_path=/dev/ram0" step_map

step_dev() {
    local i
    for ((i=0; i<50; i++)); do [ -b /dev/rnbd0 ] && break; sleep 0.2; done
    [ -b /dev/rnbd0 ] || { echo "/dev/rnbd0 did not appear"; ls /sys/block; return 1; }
    local want=$((ram_mib * 1024 * 1024)) got
    got=$(( $(cat /sys/block/rnbd0/size) * 512 ))
    echo "size $got bytes, mapping_path $(cat /sys/block/rnbd0/rnbd/mapping_path 2>/dev/null)," \
         "state $(cat /sys/block/rnbd0/rnbd/state 2>/dev/null)"
    [ "$got" = "$want" ] || { echo "size $got != expected $want"; return 1; }
}
need "/dev/rnbd0 exists with size ${ram_mib} MiB" step_dev

step_fio_verify() {
    fio --name=v --filename=/dev/rnbd0 --rw=randwrite --bs=4k --size=16m --direct=1 \
        --ioengine=libaio --iodepth=16 --verify=crc32c --do_verify=1 --randrepeat=0 \
        --output-format=terse --terse-version=3 >/tmp/upstream-smoke-fio.out 2>&1
    local rc=$?
    # terse v3: field 5 is the error code; read IOPS at field 8, write IOPS at field 49
    awk -F';' '{print "fio error="$5", write iops="$49", verify-read iops="$8}' /tmp/upstream-smoke-fio.out
    [ $rc -eq 0 ] || { cat /tmp/upstream-smoke-fio.out; return $rc; }
}
check "fio 4k randwrite QD16 16 MiB with crc32c verify on /dev/rnbd0" step_fio_verify

step_cmp() {
    # Plain files, not <(...): the VM has no udev, so there may be no /dev/fd.
    local mib=16 a=/tmp/upstream-smoke-rnbd0.img b=/tmp/upstream-smoke-ram0.img rc=0
    dd if=/dev/rnbd0 of=$a bs=1M count=$mib iflag=direct status=none &&
        dd if=/dev/ram0 of=$b bs=1M count=$mib iflag=direct status=none || return 1
    cmp $a $b || rc=1
    if [ $rc = 0 ] && cmp -s -n $((mib << 20)) $b /dev/zero; then
        echo "first $mib MiB of /dev/ram0 are all zero: nothing was written"; rc=1
    fi
    [ $rc = 0 ] && echo "first $mib MiB identical on /dev/rnbd0 and /dev/ram0 (and not zero)"
    rm -f $a $b
    return $rc
}
check "data read through /dev/rnbd0 equals /dev/ram0" step_cmp

step_bench() {
    if [ "$bench_secs" = 0 ]; then echo "skipped (SMOKE_BENCH_SECS=0)"; return 0; fi
    fio --name=rr --filename=/dev/rnbd0 --rw=randread --bs=4k --direct=1 --ioengine=libaio \
        --iodepth=32 --numjobs=1 --time_based --runtime="$bench_secs" --size=$((ram_mib))m \
        --output-format=terse --terse-version=3 >/tmp/upstream-smoke-bench.out 2>&1
    local rc=$?
    [ $rc -eq 0 ] || { cat /tmp/upstream-smoke-bench.out; return $rc; }
    awk -F';' '{printf "upstream rnbd 4k randread QD32 %ss: %s IOPS, %s KiB/s\n", '"$bench_secs"', $8, $7}' \
        /tmp/upstream-smoke-bench.out
}
check "fio 4k randread QD32 on /dev/rnbd0 (${bench_secs}s)" step_bench

step_unmap() {
    echo normal > /sys/block/rnbd0/rnbd/unmap_device || return 1
    local i
    for ((i=0; i<50; i++)); do [ -e /sys/block/rnbd0 ] || break; sleep 0.2; done
    [ ! -e /sys/block/rnbd0 ] || { echo "rnbd0 still present after unmap"; return 1; }
}
check "unmap_device normal removes rnbd0" step_unmap

step_rmmod() {
    local i m rc=0
    for ((i=${#modules[@]}-1; i>=0; i--)); do
        m=${modules[$i]}
        loaded_upstream "$m" || continue
        rmmod "$m" || { echo "rmmod $m failed"; rc=1; }
    done
    for m in "${modules[@]}"; do loaded_upstream "$m" && { echo "$m still loaded"; rc=1; }; done
    return $rc
}
broken="" check "rmmod rnbd-client rnbd-server rtrs-client rtrs-server rtrs-core" step_rmmod

step_dmesg() {
    local bad
    bad=$(dmesg | tail -n +"$((dmesg_start + 1))" |
          grep -E 'Oops|BUG:|WARNING:|Call Trace|general protection|KASAN|UBSAN|INFO: task .* blocked|kmemleak|refcount_t:' )
    dmesg | tail -n +"$((dmesg_start + 1))" | grep -iE 'rtrs|rnbd' | tail -20
    [ -z "$bad" ] || { echo "kernel log problems:"; echo "$bad"; return 1; }
}
broken="" check "kernel log has no oops, BUG, WARN or hung task" step_dmesg

trap - EXIT
cleanup
echo "# $passed passed, $failed failed"
[ $failed -eq 0 ] && [ $n -eq $plan ]
