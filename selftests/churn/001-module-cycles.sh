#!/usr/bin/env bash
# Module churn: CHURN_CYCLES (default 25, as in `make check`; `make churn`
# runs 1000) cycles of loading rtrs-client, rtrs-server, rnbd-client, rnbd-server (dependency
# order) and unloading them in reverse. Memory figures (MemAvailable,
# MemFree, Slab, SUnreclaim, active slab objects) are printed at the start,
# every quarter of the run and at the end, after dropping clean caches.
# Asserted: every load and unload works; right after a load the modules
# hold the same number of live C++ objects every time (debugfs allocations);
# no "cxxrt: leak" at exit; unreclaimable slab grows by at most
# CHURN_SLAB_TOL_KB (default 1024), VmallocUsed (module memory) by at most
# CHURN_VMALLOC_TOL_KB (default 1024), and MemAvailable falls by at most
# CHURN_MEM_TOL_KB (default 65536: free pages parked on per-CPU lists move
# it by +-25 MB between quarter marks even after drop_caches) from the first
# quarter mark (caches warmed up) to the end. Our own objects are checked
# exactly (live counts); the slab bound catches kernel objects our calls
# leave behind: one 256-byte object per cycle is 190 kB over 750 cycles of
# `make churn`; the vmalloc bound a module's memory not given back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-mem.sh"
require_root
cd "$(dirname "$0")/../.."
churn_settings
mods=(rtrs/rtrs-client rtrs/rtrs-server rnbd/rnbd-client rnbd/rnbd-server)
names=(rtrs_client rtrs_server rnbd_client rnbd_server)
for m in "${mods[@]}"; do [ -f "$m.ko" ] || tap_skip_all "$m.ko not built (make)"; done
cleanup() {
    local i
    for ((i = 3; i >= 0; i--)); do grep -q "^${names[i]} " /proc/modules && rmmod "${names[i]}"; done
    return 0
}
trap cleanup EXIT
tap_plan 7
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
cleanup
check "rdma_cm loaded" modprobe rdma_cm
log_mark "start of $0"

load_all() { local m; for m in "${mods[@]}"; do insmod "$m.ko" || return 1; done; }
unload_all() { local i; for ((i = 3; i >= 0; i--)); do rmmod "${names[i]}" || return 1; done; }

load_fail=0 unload_fail=0 live_diff=0 live_base=
mem_settle; mem_snapshot m0; mem_print "start" m0
start=$SECONDS
for ((c = 1; c <= cycles; c++)); do
    load_all || { load_fail=$((load_fail + 1)); diag "cycle $c: a load failed"; }
    if [ $c = 1 ] || [ $((c % quarter)) = 0 ] || [ $c = "$cycles" ]; then
        live=$(live_allocs "${names[@]}")
        [ -z "$live_base" ] && live_base=$live
        [ "$live" = "$live_base" ] || { live_diff=$((live_diff + 1)); diag "cycle $c: $live live C++ objects after load, $live_base at the first"; }
    fi
    unload_all || { unload_fail=$((unload_fail + 1)); diag "cycle $c: an unload failed"; cleanup; }
    if [ $((c % quarter)) = 0 ] || [ $c = "$cycles" ]; then
        mem_settle; mem_snapshot "m$c"; mem_print "cycle $c" "m$c"
        [ $c = $quarter ] && eval "mq_sunreclaim=\$m${c}_sunreclaim mq_avail=\$m${c}_avail mq_vmalloc=\$m${c}_vmalloc"
    fi
done
elapsed=$((SECONDS - start))
diag "$cycles load/unload cycles in $elapsed s ($((elapsed * 1000 / (cycles > 0 ? cycles : 1))) ms each); $live_base live C++ objects right after each load"
check "every load and unload of the four modules worked ($cycles cycles)" [ $load_fail = 0 -a $unload_fail = 0 ]
check "the same number of live C++ objects after every load" [ $live_diff = 0 ]
if log_since "start of $0" | grep -q "cxxrt: leak"; then not_ok "no cxxrt leak at module exit"; else ok "no cxxrt leak at module exit"; fi
eval "end_u=\$m${cycles}_sunreclaim end_a=\$m${cycles}_avail end_v=\$m${cycles}_vmalloc"
diag "from cycle $quarter to $cycles: SUnreclaim $((end_u - mq_sunreclaim)) kB (tolerance $slab_tol), VmallocUsed $((end_v - mq_vmalloc)) kB (tolerance $vm_tol), MemAvailable $((end_a - mq_avail)) kB (tolerance -$mem_tol)"
check "unreclaimable slab flat within $slab_tol kB from cycle $quarter to $cycles" [ $((end_u - mq_sunreclaim)) -le "$slab_tol" ]
check "VmallocUsed flat within $vm_tol kB from cycle $quarter to $cycles" [ $((end_v - mq_vmalloc)) -le "$vm_tol" ]
check "MemAvailable flat within $mem_tol kB from cycle $quarter to $cycles" [ $((mq_avail - end_a)) -le "$mem_tol" ]
trap - EXIT
tap_done; exit $?
