#!/usr/bin/env bash
# Allocation-failure sweep on our whole stack over Soft-RoCE loopback: an
# allocation reached by an operation fails, and the operation must cope.
# Operations: map (connect, session and path setup, INFO, OPEN: one
# map_device write), io (a 16 KiB O_DIRECT write and its read-back) and
# unmap (CLOSE and teardown). Injectors:
#   fail_nth  debugfs <module>/fail_nth of our four modules (cxxrt): the
#             module's Nth allocation from now fails, whichever task or
#             work item makes it (the server's side too);
#   failslab  the kernel's failslab through /proc/thread-self/fail-nth (a
#             kernel with CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS,
#             the debug kernel; a TAP SKIP on Debian's): the Nth slab
#             allocation the operating task makes in the kernel fails
#             (kernfs, the RDMA CM and verbs, the block layer, ours).
# First one map, io and unmap with every counter armed far ahead counts the
# allocations K each (injector, module, operation) reaches. The steps are
# then N = 1+o, 1+o+S, 1+o+2S, ... <= K (o = seed mod S, so other seeds
# cover other allocations): S = SWEEP_STRIDE, or with SWEEP_STEPS=k the
# k allocations spread evenly over the first SWEEP_MAX (default K), or with
# SWEEP_STEPS=all every one of them; FAILSLAB_STRIDE/_STEPS/_MAX the same
# for failslab. Each step fails allocation N during its operation and must:
#   - give the caller a clean errno (the map_device / unmap_device write or
#     the IO fails with an errno, within 60 s), or succeed in full (the
#     device maps and does IO, the IO reads back, the device goes);
#   - leave nothing: after a refused map, and after each unmap, no device,
#     no client session, the server holds no session, path or chunk, our
#     four modules hold exactly the live C++ objects they held before the
#     sweep (debugfs allocations), and the client's and server's sysfs trees
#     are as before (no half-made directory);
#   - not spoil the next attempt: the same operation without a failure then
#     works (map: maps and does IO; io: IO works on the same device; unmap:
#     the device goes).
# A step whose operation no longer reaches N (the counts vary a little
# from run to run) must simply succeed. The steps of the three operations
# run interleaved (a refused map's retry is the next io step's device, an
# unmap step's retry the next map step's clean start). One TAP line per
# (injector, module, operation), with its counts; at the end our modules
# must unload with no cxxrt leak (and run.sh's kmemleak scan on the debug
# kernel).
# Environment: SWEEP_MODULES, SWEEP_PHASES, FAILSLAB_PHASES (subsets; empty
# skips that injector); SWEEP_STRIDE (default 16, as in `make check`;
# `make churn` runs 1), SWEEP_STEPS, SWEEP_MAX; FAILSLAB_STRIDE (default
# 8), FAILSLAB_STEPS, FAILSLAB_MAX; SWEEP_SEED (default random; printed:
# the same seed and counts give the same steps). A step takes 5-11 s under
# TCG on Debian's kernel (our client's map makes about 90 allocations: stride
# 1 takes about 30 minutes) and 20-25 s on the debug kernel, where a map
# makes over 400 slab allocations: the debug lane samples (tools/debug-lane.sh).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
. "$(dirname "$0")/../lib-mem.sh"
require_root
cd "$(dirname "$0")/../.."
modules=(${SWEEP_MODULES-rnbd_client rtrs_client rnbd_server rtrs_server})
phases=(${SWEEP_PHASES-map io unmap})
fs_phases=(${FAILSLAB_PHASES-map io unmap})
seed=${SWEEP_SEED:-$((RANDOM * 32768 + RANDOM))}
all=(rnbd_client rtrs_client rnbd_server rtrs_server)
ctl=/sys/kernel/rnbd_client/map_device
srv=/sys/kernel/debug/rtrs_server
fs=/sys/kernel/debug/failslab
big=1000000000
python=/usr/bin/python3; [ -x $python ] || python=python3
tmp=$(mktemp -d /tmp/sweep.XXXXXX)
cleanup() {
    local m
    for m in "${all[@]}"; do [ -w "/sys/kernel/debug/$m/fail_nth" ] && echo 0 > "/sys/kernel/debug/$m/fail_nth"; done
    [ -w $fs/ignore-gfp-wait ] && echo Y > $fs/ignore-gfp-wait
    expect_alloc_failures off
    rnbd_stack_teardown
    mod_loaded brd && rmmod brd
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT
have_failslab=0
[ ${#fs_phases[@]} -gt 0 ] && [ -d $fs ] && [ -e /proc/thread-self/fail-nth ] && have_failslab=1
# One TAP line per (module, operation) and per failslab operation; one more
# per map phase (its counter counted) and one for the whole sweep.
map_checks=1
for p in "${phases[@]}"; do [ "$p" = map ] && map_checks=$((map_checks + ${#modules[@]})); done
if [ $have_failslab = 1 ]; then for p in "${fs_phases[@]}"; do [ "$p" = map ] && map_checks=$((map_checks + 1)); done; fi
tap_plan $((3 + ${#modules[@]} * ${#phases[@]} + ${#fs_phases[@]} + map_checks))
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
if ! rnbd_stack_setup 1 16384 sess_queue_depth=8 max_chunk_size=16384; then not_ok "setup"; tap_skip_all "setup failed"; fi
ok "setup: rxe, brd, our four modules (sess_queue_depth=8)"
addr=${RXE_ADDR[0]}
dd if=/dev/urandom of="$tmp/rand" bs=4k count=4 status=none
sum=$(cksum < "$tmp/rand")
log_mark "start of $0"

sysfs_tree() {
    find /sys/kernel/rnbd_client /sys/class/rnbd-client /sys/class/rtrs-client \
         /sys/kernel/rnbd_server /sys/class/rnbd-server /sys/class/rtrs-server 2>/dev/null | sort
}
wait_dev() { local i; for ((i = 0; i < 100; i++)); do [ -b /dev/rnbd0 ] && return 0; sleep 0.05; done; return 1; }
map() { timeout 60 bash -c "echo 'sessname=sweep path=ip:$addr device_path=/dev/ram0' > $ctl" 2>&1; }
# 16 KiB written with O_DIRECT and read back; prints dd's complaint on failure.
io() {
    dd if="$tmp/rand" of=/dev/rnbd0 bs=16k count=1 oflag=direct status=none 2>&1 || return 1
    [ "$(dd if=/dev/rnbd0 bs=16k count=1 iflag=direct status=none 2>&1 | cksum)" = "$sum" ] || { echo "read back differs"; return 1; }
}
io_retry() { # IO works again (a path a failure closed may take a reconnect)
    local i
    for ((i = 0; i < 20; i++)); do io >/dev/null && return 0; sleep 0.5; done
    io
}
unmap() { echo normal > /sys/block/rnbd0/rnbd_client/unmap_device 2>&1; }
# Nothing left of a mapping, everything as before the sweep; waits up to
# 20 s for the server's teardown, prints what is left (empty: clean).
clean_state() {
    local i
    for ((i = 0; i < 200; i++)); do
        if [ ! -e /sys/block/rnbd0 ] && [ ! -e /sys/class/rtrs-client/sweep ] && [ "$(cat $srv/sessions)" = 0 ] &&
           [ "$(cat $srv/paths)" = 0 ] && [ "$(cat $srv/chunk_bytes)" = 0 ] &&
           [ "$(live_allocs "${all[@]}")" = "$live_base" ] && [ "$(sysfs_tree)" = "$tree_base" ]; then
            return 0
        fi
        sleep 0.1
    done
    [ -e /sys/block/rnbd0 ] && echo "device rnbd0 left"
    [ -e /sys/class/rtrs-client/sweep ] && echo "client session left"
    [ "$(cat $srv/sessions)$(cat $srv/paths)$(cat $srv/chunk_bytes)" = 000 ] ||
        echo "server: sessions $(cat $srv/sessions) paths $(cat $srv/paths) chunk_bytes $(cat $srv/chunk_bytes)"
    [ "$(live_allocs "${all[@]}")" = "$live_base" ] || {
        echo "$(live_allocs "${all[@]}") live C++ objects, $live_base before:"
        grep -hvE '^type| 0 +[0-9]+ +[0-9]+$' /sys/kernel/debug/{rnbd,rtrs}_{client,server}/allocations
    }
    [ "$(sysfs_tree)" = "$tree_base" ] || { echo "sysfs differs:"; diff <(echo "$tree_base") <(sysfs_tree) | head -10; }
    return 1
}
# errno text out of a shell, dd or python complaint ("...: Cannot allocate memory").
reason() { local r=${1##*: }; r=${r%%$'\n'*}; echo "${r:-?}"; }
clean_reason() { case $1 in "" | Success | "Unknown error"* | "?" | *"differs"* | short*) return 1 ;; esac; return 0; }

# --- the operations under injection ------------------------------------------------
# run_op INJECTOR N PHASE: runs the operation with allocation N failing
# (INJECTOR failslab: the operating task's; fail_nth:MODULE: the module's;
# none). Prints its complaint, then a last line "rc=<status> left=<countdown>"
# (left 0: the failure was reached; x: unknown).
failslab_op() { # n phase; in a subshell: fail-nth is the task's own
    (
        exec 2>&1
        echo "$1" > /proc/thread-self/fail-nth || { echo "rc=99 left=x"; exit; }
        case $2 in
            map) echo "sessname=sweep path=ip:$addr device_path=/dev/ram0" > "$ctl"; rc=$? ;;
            unmap) echo normal > /sys/block/rnbd0/rnbd_client/unmap_device; rc=$? ;;
        esac
        # Opening fail-nth allocates too: a read that fails met the failure
        # there, after the operation.
        read -r left < /proc/thread-self/fail-nth || left=x
        echo 0 > /proc/thread-self/fail-nth 2>/dev/null || echo 0 > /proc/thread-self/fail-nth 2>/dev/null
        echo "rc=$rc left=$left"
    )
}
# The IO under failslab: dd would start with fail-nth 0 (fork clears it),
# so python sets the countdown right before the write and the read-back.
failslab_io() { # n
    "$python" - "$1" "$tmp/rand" 2>&1 <<'PY'
import mmap, os, sys
size = 16384
data = open(sys.argv[2], "rb").read(size)
out, back = mmap.mmap(-1, size), mmap.mmap(-1, size)
out.write(data)
dev = os.open("/dev/rnbd0", os.O_RDWR | os.O_DIRECT)
knob = os.open("/proc/thread-self/fail-nth", os.O_RDWR)
err, rc = "", 0
os.write(knob, sys.argv[1].encode())
try:
    if os.pwritev(dev, [out], 0) != size:
        err, rc = "short write", 1
    elif os.preadv(dev, [back], 0) != size:
        err, rc = "short read", 1
except OSError as e:
    err, rc = "io: " + e.strerror, e.errno
left = os.pread(knob, 32, 0).decode().strip()
os.write(knob, b"0")
if rc == 0 and back[:] != out[:]:
    err, rc = "read back differs", 1
if err:
    print(err)
print("rc=%d left=%s" % (rc, left))
PY
}
run_op() {
    local inj=$1 n=$2 p=$3 m knob rc out left
    case $inj in
        failslab)
            case $p in io) failslab_io "$n" ;; *) failslab_op "$n" "$p" ;; esac
            return ;;
        fail_nth:*) m=${inj#fail_nth:}; knob=/sys/kernel/debug/$m/fail_nth; echo "$n" > "$knob" ;;
    esac
    case $p in
        map) out=$(map); rc=$? ;;
        io) out=$(io); rc=$? ;;
        unmap) out=$(unmap); rc=$? ;;
    esac
    left=x
    [ -n "${knob:-}" ] && { left=$(cat "$knob"); echo 0 > "$knob"; }
    [ -n "$out" ] && echo "$out"
    echo "rc=$rc left=$left"
}

# --- counting: one map, io and unmap with every counter armed far ahead -----------
tree_base=$(sysfs_tree)
live_base=$(live_allocs "${all[@]}")
diag "before the sweep: $live_base live C++ objects in our four modules"
if [ $have_failslab = 1 ]; then
    # Sleeping (GFP_KERNEL) allocations may fail too; no stack dump per failure.
    echo N > $fs/ignore-gfp-wait && echo 0 > $fs/verbose || not_ok "failslab set up"
fi
# A kernel allocation failed on purpose may still report itself (warn_alloc:
# a vmalloc whose own slab allocation failslab failed; a kobject -ENOMEM).
expect_alloc_failures on
declare -A count # "INJECTOR PHASE" -> allocations the operation reached
count_op() { # phase
    local p=$1 m out last
    for m in "${all[@]}"; do echo $big > "/sys/kernel/debug/$m/fail_nth"; done
    if [ $have_failslab = 1 ]; then
        out=$(run_op failslab $big "$p")
    else
        out=$(run_op none 0 "$p")
    fi
    last=${out##*$'\n'}
    for m in "${all[@]}"; do
        count["fail_nth:$m $p"]=$((big - $(cat "/sys/kernel/debug/$m/fail_nth")))
        echo 0 > "/sys/kernel/debug/$m/fail_nth"
    done
    [ $have_failslab = 1 ] && { local left=${last##*left=}; [ "$left" = x ] && left=$big; count["failslab $p"]=$((big - left)); }
    [ "${last%% *}" = rc=0 ] || { echo "$out"; return 1; }
    case $p in map) wait_dev && io >/dev/null ;; esac
}
counted=1
for p in map io unmap; do
    count_op $p || { counted=0; diag "counting: $p failed"; break; }
done
[ $counted = 1 ] && { out=$(clean_state) || { counted=0; diag "counting: after the unmap: $out"; }; }
check "one map, IO and unmap with no failure, counting the allocations they reach" [ $counted = 1 ]
[ $counted = 1 ] || tap_skip_all "the operations fail without injected failures"
line="allocations reached:"
for k in "${!count[@]}"; do line+=" [$k] ${count[$k]}"; done
diag "$line"

# --- the steps -----------------------------------------------------------------------
# points K STRIDE STEPS MAX: the N to fail, one a line.
points() {
    local k=$1 stride=$2 steps=$3 max=$4 w s o j n
    w=$k; [ -n "$max" ] && [ "$max" -lt "$w" ] && w=$max
    [ "$w" -gt 0 ] || return 0
    case $steps in
        all) s=1 steps=$w ;;
        "") s=$stride steps=$w ;;
        *) [ "$steps" -gt 0 ] || return 0
           s=$((w / steps)); [ $s -ge 1 ] || { s=1; steps=$w; } ;;
    esac
    # An operation with fewer allocations than the stride still gets one.
    o=$((seed % (s < w ? s : w)))
    for ((j = 0; j < steps; j++)); do
        n=$((1 + o + j * s))
        [ $n -le "$w" ] || break
        echo $n
    done
}
declare -A tally reasons_of ns_of
queue_map=() queue_io=() queue_unmap=()
keys=()
add_steps() { # injector phase stride steps max
    local key="$1 $2" n
    keys+=("$key")
    tally[$key]="0 0 0 0 0"   # steps refused absorbed unreached bad
    ns_of[$key]=""
    for n in $(points "${count[$key]}" "$3" "$4" "$5"); do
        ns_of[$key]+="${ns_of[$key]:+,}$n"
        eval "queue_$2+=(\"\$1 \$n\")"
    done
}
for m in "${modules[@]}"; do
    for p in "${phases[@]}"; do add_steps "fail_nth:$m" "$p" "${SWEEP_STRIDE:-16}" "${SWEEP_STEPS:-}" "${SWEEP_MAX:-}"; done
done
if [ $have_failslab = 1 ]; then
    for p in "${fs_phases[@]}"; do add_steps failslab "$p" "${FAILSLAB_STRIDE:-8}" "${FAILSLAB_STEPS:-}" "${FAILSLAB_MAX:-}"; done
fi
diag "seed $seed (SWEEP_SEED=$seed repeats these steps): ${#queue_map[@]} map, ${#queue_io[@]} io, ${#queue_unmap[@]} unmap steps"
for k in "${keys[@]}"; do diag "  $k: N = ${ns_of[$k]:-none} of ${count[$k]}"; done

mapped=0 current=""
bad() { # message; counts against the current step
    local t
    read -ra t <<<"${tally[$current]}"
    tally[$current]="${t[0]} ${t[1]} ${t[2]} ${t[3]} $((t[4] + 1))"
    diag "$current $step_n: $*"
}
bump() { # field index
    local t
    read -ra t <<<"${tally[$current]}"
    t[$1]=$((t[$1] + 1))
    tally[$current]="${t[*]}"
}
ensure_mapped() {
    [ $mapped = 1 ] && [ -b /dev/rnbd0 ] && return 0
    local out
    out=$(map) && wait_dev && mapped=1 && return 0
    bad "the map before the step failed: $out"
    return 1
}
ensure_unmapped() {
    local out
    if [ $mapped = 1 ] || [ -e /sys/block/rnbd0 ]; then
        out=$(unmap) || bad "the unmap before the step failed: $out"
        mapped=0
    fi
    out=$(clean_state) || { bad "after unmapping: $out"; rnbd_unmap_all; }
}
step() { # injector n phase
    local inj=$1 n=$2 p=$3 out last rc left r s0
    current="$inj $p" step_n=$n
    case $p in map) ensure_unmapped ;; *) ensure_mapped || return ;; esac
    bump 0
    s0=$SECONDS
    out=$(run_op "$inj" "$n" "$p")
    [ $((SECONDS - s0)) -ge 60 ] && bad "took $((SECONDS - s0)) s"
    last=${out##*$'\n'}
    out=${out%"$last"}; out=${out%$'\n'}
    rc=${last#rc=}; rc=${rc%% *}; left=${last##*left=}
    diag "step $current N=$n: rc $rc, countdown left $left, $((SECONDS - s0)) s"
    if [ "$rc" != 0 ] && [ "$left" != 0 ] && [ "$left" != x ]; then
        bad "failed without reaching the injected failure: $out"
    elif [ "$rc" = 0 ]; then
        if [ "$left" = 0 ]; then bump 2; else bump 3; fi
        case $p in
            map) mapped=1; wait_dev && io >/dev/null || bad "map said yes, the device does no IO" ;;
            unmap) mapped=0
                out=$(clean_state) || { bad "unmap said yes: $out"; rnbd_unmap_all; } ;;
        esac
        return
    else
        bump 1
        r=$(reason "$out")
        reasons_of[$current]+="$r"$'\n'
        clean_reason "$r" || bad "no clean errno: rc $rc: $out"
        # Nothing half-made, and the next attempt, without a failure, works.
        case $p in
            map) out=$(clean_state) || { bad "the refused map left: $out"; rnbd_unmap_all; }
                out=$(map) && wait_dev && io >/dev/null || bad "the next map failed: $out"
                mapped=1 ;;
            io) io_retry >/dev/null || bad "IO does not work again" ;;
            unmap) [ -e /sys/block/rnbd0 ] || bad "unmap refused, the device went anyway"
                out=$(unmap) || bad "the next unmap failed: $out"
                mapped=0
                out=$(clean_state) || { bad "after the next unmap: $out"; rnbd_unmap_all; } ;;
        esac
    fi
}
start=$SECONDS
i=0
while [ $i -lt ${#queue_map[@]} ] || [ $i -lt ${#queue_io[@]} ] || [ $i -lt ${#queue_unmap[@]} ]; do
    [ $i -lt ${#queue_map[@]} ] && step ${queue_map[$i]} map
    [ $i -lt ${#queue_io[@]} ] && step ${queue_io[$i]} io
    [ $i -lt ${#queue_unmap[@]} ] && step ${queue_unmap[$i]} unmap
    i=$((i + 1))
done
current="end" step_n=""
tally[end]="0 0 0 0 0"
ensure_unmapped
read -ra t <<<"${tally[end]}"
[ "${t[4]}" = 0 ] || { current=${keys[${#keys[@]}-1]}; bump 4; }
total=0 refused=0
for k in "${keys[@]}"; do
    read -ra t <<<"${tally[$k]}"
    summary=$(printf '%s' "${reasons_of[$k]:-}" | sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s%s %d", sep, substr($0, 2), c; sep = ", " }')
    diag "$k: ${t[0]} of ${count[$k]} allocations failed in turn (N = ${ns_of[$k]:-none}): ${t[1]} refused (${summary:-none}), ${t[2]} succeeded anyway, ${t[3]} not reached, ${t[4]} bad"
    check "$k: ${t[0]} allocations failed in turn: clean errno or success, nothing left, next attempt works" [ "${t[4]}" = 0 ]
    # Every module allocates when a device is mapped: a map phase that
    # counted none means the counter (fail_nth, failslab) counted nothing,
    # and the sweep above tested nothing. (IO and unmap may allocate none.)
    [[ $k == *" map" ]] && check "$k: the counter saw the map's allocations (${count[$k]:-0})" [ "${count[$k]:-0}" -gt 0 ]
    total=$((total + t[0])) refused=$((refused + t[1]))
done
check "the sweep failed allocations ($total) and some were refused with an errno ($refused)" \
    test "$total" -gt 0 -a "$refused" -gt 0
if [ $have_failslab = 0 ]; then
    for p in "${fs_phases[@]}"; do
        skip "failslab $p" "kernel without CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS (Debian's): runs on the debug kernel"
    done
fi
diag "sweep: $total injected failures, $refused operations refused, $((SECONDS - start)) s (seed $seed)"
expect_alloc_failures off
unload() { rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server; }
if unload && ! log_since "start of $0" | grep -q "cxxrt: leak"; then
    ok "the modules unload with no cxxrt leak"
else
    not_ok "the modules unload with no cxxrt leak"
fi
tap_done; exit $?
