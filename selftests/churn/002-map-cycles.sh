#!/usr/bin/env bash
# Map/unmap churn on our whole stack over Soft-RoCE loopback: CHURN_CYCLES
# (default 25, as in `make check`; `make churn` runs 1000) cycles of mapping /dev/ram0 in a new
# session (connect, INFO, OPEN), writing 8 KiB of random data at a moving
# offset (O_DIRECT), reading it back and comparing checksums, and unmapping
# (the session closes with its last device). Memory figures (MemAvailable,
# MemFree, Slab, SUnreclaim, active slab objects, our modules' live C++
# objects) are printed at the start, every quarter and at the end.
# Asserted: every cycle maps, reads back what it wrote and unmaps; at every
# quarter mark our four modules hold exactly the live C++ objects they held
# before the first map, the server holds no session, path or chunk, and the
# sysfs trees of both sides are what they were; unreclaimable slab grows by
# at most CHURN_SLAB_TOL_KB (default 1024), VmallocUsed by at most
# CHURN_VMALLOC_TOL_KB (default 1024) and MemAvailable falls by at most
# CHURN_MEM_TOL_KB (default 65536, see churn/001) from the first quarter
# mark to the end.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
. "$(dirname "$0")/../lib-mem.sh"
require_root
cd "$(dirname "$0")/../.."
churn_settings
names=(rtrs_client rtrs_server rnbd_client rnbd_server)
srv=/sys/kernel/debug/rtrs_server
tmp=$(mktemp -d /tmp/churn-map.XXXXXX)
cleanup() {
    rnbd_stack_teardown
    mod_loaded brd && rmmod brd
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT
tap_plan 10
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
if ! rnbd_stack_setup 1 16384 sess_queue_depth=32 max_chunk_size=65536; then not_ok "setup"; tap_skip_all "setup failed"; fi
ok "setup: rxe, brd, our four modules"
addr=${RXE_ADDR[0]}
dd if=/dev/urandom of="$tmp/rand" bs=4k count=64 status=none
sums=()
for ((k = 0; k < 64; k += 2)); do sums[k]=$(dd if="$tmp/rand" bs=4k count=2 skip=$k status=none | cksum); done
log_mark "start of $0"

sysfs_tree() {
    find /sys/kernel/rnbd_client /sys/class/rnbd-client /sys/class/rtrs-client \
         /sys/kernel/rnbd_server /sys/class/rnbd-server /sys/class/rtrs-server 2>/dev/null | sort
}
server_idle() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$(cat $srv/sessions)" = 0 ] && [ "$(cat $srv/paths)" = 0 ] && [ "$(cat $srv/chunk_bytes)" = 0 ] && return 0
        sleep 0.1
    done
    return 1
}
# Our four modules back at their live-object count (frees may trail the unmap a little).
at_baseline() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$(live_allocs "${names[@]}")" = "$live_base" ] && return 0
        sleep 0.1
    done
    return 1
}
one_cycle() { # cycle number
    local c=$1 k=$((($1 % 32) * 2)) i
    echo "sessname=churn path=ip:$addr device_path=/dev/ram0" > /sys/kernel/rnbd_client/map_device || { diag "cycle $c: map failed"; return 1; }
    for ((i = 0; i < 100; i++)); do [ -b /dev/rnbd0 ] && break; sleep 0.05; done
    dd if="$tmp/rand" of=/dev/rnbd0 bs=4k count=2 skip=$k seek=$k oflag=direct status=none || { diag "cycle $c: write failed"; return 2; }
    if [ "$(dd if=/dev/rnbd0 bs=4k count=2 skip=$k iflag=direct status=none | cksum)" != "${sums[k]}" ]; then
        diag "cycle $c: read back differs"; return 2
    fi
    echo normal > /sys/block/rnbd0/rnbd_client/unmap_device || { diag "cycle $c: unmap failed"; return 3; }
    # The session closes with its last device; the next map makes a new one.
    for ((i = 0; i < 100; i++)); do [ -e /sys/class/rtrs-client/churn ] || return 0; sleep 0.05; done
    diag "cycle $c: session still there 5 s after the unmap"; return 3
}

tree_base=$(sysfs_tree)
live_base=$(live_allocs "${names[@]}")
mem_settle; mem_snapshot m0; mem_print "start" m0
diag "$live_base live C++ objects in our four modules before the first map"
failed=0 io_bad=0 live_diff=0 tree_diff=0 srv_busy=0
start=$SECONDS
for ((c = 1; c <= cycles; c++)); do
    one_cycle $c; rc=$?
    [ $rc = 0 ] || { failed=$((failed + 1)); [ $rc = 2 ] && io_bad=$((io_bad + 1)); }
    [ $rc = 0 ] || for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    if [ $((c % quarter)) = 0 ] || [ $c = "$cycles" ]; then
        server_idle || { srv_busy=$((srv_busy + 1)); diag "cycle $c: server holds sessions $(cat $srv/sessions) paths $(cat $srv/paths) chunk_bytes $(cat $srv/chunk_bytes)"; }
        at_baseline || { live_diff=$((live_diff + 1)); diag "cycle $c: $(live_allocs "${names[@]}") live C++ objects, $live_base before"; }
        [ "$(sysfs_tree)" = "$tree_base" ] || { tree_diff=$((tree_diff + 1)); diag "cycle $c: sysfs differs:"; diff <(echo "$tree_base") <(sysfs_tree) | head -10 | sed 's/^/#   /'; }
        mem_settle; mem_snapshot "m$c"; mem_print "cycle $c" "m$c"
        diag "$(printf '%-14s live C++ objects %s' "" "$(live_allocs "${names[@]}")")"
        [ $c = $quarter ] && eval "mq_sunreclaim=\$m${c}_sunreclaim mq_avail=\$m${c}_avail mq_vmalloc=\$m${c}_vmalloc"
    fi
done
elapsed=$((SECONDS - start))
diag "$cycles map/IO/unmap cycles in $elapsed s ($((elapsed * 1000 / (cycles > 0 ? cycles : 1))) ms each)"
check "every cycle mapped, read back what it wrote, and unmapped ($cycles cycles, $failed failed)" [ $failed = 0 ]
check "no IO error or checksum mismatch ($io_bad)" [ $io_bad = 0 ]
check "the server holds no session, path or chunk at every quarter mark" [ $srv_busy = 0 ]
check "our modules hold their pre-map live C++ objects at every quarter mark" [ $live_diff = 0 ]
check "the client and server sysfs trees are as before the first map at every quarter mark" [ $tree_diff = 0 ]
eval "end_u=\$m${cycles}_sunreclaim end_a=\$m${cycles}_avail end_v=\$m${cycles}_vmalloc"
diag "from cycle $quarter to $cycles: SUnreclaim $((end_u - mq_sunreclaim)) kB (tolerance $slab_tol), VmallocUsed $((end_v - mq_vmalloc)) kB (tolerance $vm_tol), MemAvailable $((end_a - mq_avail)) kB (tolerance -$mem_tol)"
check "unreclaimable slab flat within $slab_tol kB from cycle $quarter to $cycles" [ $((end_u - mq_sunreclaim)) -le "$slab_tol" ]
check "VmallocUsed flat within $vm_tol kB from cycle $quarter to $cycles" [ $((end_v - mq_vmalloc)) -le "$vm_tol" ]
check "MemAvailable flat within $mem_tol kB from cycle $quarter to $cycles" [ $((mq_avail - end_a)) -le "$mem_tol" ]
unload() { rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server; }
unload_ok=0; unload && unload_ok=1
if [ $unload_ok = 1 ] && ! log_since "start of $0" | grep -q "cxxrt: leak"; then
    ok "the modules unload with no cxxrt leak"
else
    not_ok "the modules unload with no cxxrt leak"
fi
tap_done; exit $?
