# shellcheck shell=bash
# Memory figures for churn and leak tests inside the test VM. Source it
# after lib.sh.
#
#   mem_settle            drop clean caches and let RCU-deferred frees run,
#                         so two snapshots compare what is really held
#   mem_snapshot VAR      VAR_avail VAR_free VAR_slab VAR_sunreclaim VAR_vmalloc
#                         VAR_percpu (kB, from /proc/meminfo) and VAR_objs (active objects over
#                         every cache in /proc/slabinfo) as shell variables
#   mem_print LABEL VAR   one "# LABEL: ..." line of those figures
#   live_allocs MODULE... live C++ objects over all types of these modules
#                         (sum of the "live" column of debugfs <module>/allocations)
#   failed_allocs MODULE  the "failed" column's sum (injected or real failures)
#   churn_settings        cycles (CHURN_CYCLES, default 25) and quarter (a quarter of them,
#                         rounded up); the bounds slab_tol, vm_tol (CHURN_SLAB_TOL_KB,
#                         CHURN_VMALLOC_TOL_KB, default 1024) and mem_tol (CHURN_MEM_TOL_KB,
#                         default 65536), in kB

mem_settle() {
    sync
    echo 3 > /proc/sys/vm/drop_caches
    # kfree_rcu and call_rcu frees: a few grace periods.
    sleep 1
    echo 3 > /proc/sys/vm/drop_caches
}

mem_snapshot() {
    local v=$1 line
    line=$(awk '/^MemAvailable:/ { a = $2 } /^MemFree:/ { f = $2 } /^Slab:/ { s = $2 }
                /^SUnreclaim:/ { u = $2 } /^VmallocUsed:/ { v = $2 } /^Percpu:/ { p = $2 }
                END { print a, f, s, u, v, p }' /proc/meminfo)
    read -r "${v}_avail" "${v}_free" "${v}_slab" "${v}_sunreclaim" "${v}_vmalloc" "${v}_percpu" <<<"$line"
    if [ -r /proc/slabinfo ]; then
        printf -v "${v}_objs" '%s' "$(awk 'NR > 2 { n += $2 } END { print n + 0 }' /proc/slabinfo)"
    else
        printf -v "${v}_objs" '%s' "?"
    fi
}

mem_print() {
    local label=$1 v=$2 a f s u o vm pc
    a=${v}_avail f=${v}_free s=${v}_slab u=${v}_sunreclaim o=${v}_objs vm=${v}_vmalloc pc=${v}_percpu
    diag "$(printf '%-10s MemAvailable %7s kB MemFree %7s kB Slab %6s kB SUnreclaim %6s kB slab objects %6s VmallocUsed %6s kB Percpu %5s kB' \
        "$label:" "${!a}" "${!f}" "${!s}" "${!u}" "${!o}" "${!vm}" "${!pc}")"
}

live_allocs() { # shell builtins only: cheap enough to call at every step of a sweep
    local m sum=0 n f
    for m in "$@"; do
        [ -r "/sys/kernel/debug/$m/allocations" ] || continue
        while read -ra f; do
            n=${#f[@]}
            [ "$n" -ge 4 ] && [ "${f[0]}" != type ] || continue
            # The type name may hold blanks ("unsigned char ["): live is the
            # third field from the end.
            sum=$((sum + f[n - 3]))
        done < "/sys/kernel/debug/$m/allocations"
    done
    echo "$sum"
}

# failed_allocs MODULE: allocations that failed so far (injected or real).
failed_allocs() {
    local sum=0 n f
    [ -r "/sys/kernel/debug/$1/allocations" ] || { echo 0; return; }
    while read -ra f; do
        n=${#f[@]}
        [ "$n" -ge 4 ] && [ "${f[0]}" != type ] || continue
        sum=$((sum + f[n - 1]))
    done < "/sys/kernel/debug/$1/allocations"
    echo "$sum"
}

churn_settings() {
    cycles=${CHURN_CYCLES:-25}
    slab_tol=${CHURN_SLAB_TOL_KB:-1024}
    mem_tol=${CHURN_MEM_TOL_KB:-65536}
    vm_tol=${CHURN_VMALLOC_TOL_KB:-1024}
    quarter=$(( (cycles + 3) / 4 ))
}
