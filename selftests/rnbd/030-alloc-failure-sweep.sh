#!/usr/bin/env bash
# Allocation-failure sweep on our whole stack over Soft-RoCE loopback. For
# each of our modules (rnbd_client, rtrs_client, rnbd_server, rtrs_server)
# and each operation (map: connect, session and path setup, INFO, OPEN; io:
# an 16 KiB O_DIRECT write and its read-back; unmap: CLOSE and teardown),
# for N = 1, 2, ...: debugfs <module>/fail_nth makes the module's Nth
# allocation from now fail, and the operation runs. The sweep of a
# (module, operation) ends at the first N the operation does not reach
# (fail_nth still counting down afterwards) and that run must succeed.
# Every step where the failure was reached must:
#   - give the caller a clean errno (the map_device / unmap_device write or
#     the IO fails with an errno, within 60 s), or succeed in full (the
#     device maps and its data reads back);
#   - leave nothing: after the device is unmapped, the session is gone, the
#     server holds no session, path or chunk, our four modules hold exactly
#     the live C++ objects they held before the sweep (debugfs allocations),
#     and the client's and server's sysfs trees are as before;
#   - not spoil the next attempt: the same operation without a failure then
#     works (map: maps and does IO; io: IO works on the same device; unmap:
#     the device goes).
# Counts per (module, operation) are printed. rtrs/021 sweeps our server
# under Linux's client; this one puts our client in front of it.
# Then, on a kernel with failslab (the debug kernel; skipped on Debian's),
# the same for every slab allocation the writer's task makes in the kernel
# (kernfs, RDMA CM, verbs, our code), through /proc/thread-self/fail-nth,
# for map (followed by a little IO) and unmap.
# Environment: SWEEP_MODULES, SWEEP_PHASES, FAILSLAB_PHASES (subsets; empty
# skips), SWEEP_MAX (default 150) and FAILSLAB_MAX (default 400): bounds, a
# sweep that has not ended by then fails. SWEEP_STRIDE (default 16, as in
# `make check`; `make churn` runs 1): N = 1, 1+S, 1+2S, ... A step takes
# 5-11 s under TCG; our client's map makes about 90 allocations, so stride 1
# takes about 30 minutes, stride 8 about 5, stride 16 about 3. FAILSLAB_STRIDE (default 8):
# the same for the failslab part (the debug kernel is about 40 times slower).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
. "$(dirname "$0")/../lib-mem.sh"
require_root
cd "$(dirname "$0")/../.."
modules=(${SWEEP_MODULES-rnbd_client rtrs_client rnbd_server rtrs_server})
phases=(${SWEEP_PHASES-map io unmap})
max=${SWEEP_MAX:-150}
stride=${SWEEP_STRIDE:-16}
all=(rnbd_client rtrs_client rnbd_server rtrs_server)
ctl=/sys/kernel/rnbd_client/map_device
srv=/sys/kernel/debug/rtrs_server
tmp=$(mktemp -d /tmp/sweep.XXXXXX)
unmap_all() {
    local d
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    return 0
}
cleanup() {
    local m
    for m in "${all[@]}"; do [ -w "/sys/kernel/debug/$m/fail_nth" ] && echo 0 > "/sys/kernel/debug/$m/fail_nth"; done
    unmap_all
    for m in rnbd_client rtrs_client rnbd_server rtrs_server; do grep -q "^$m " /proc/modules && rmmod $m; done
    rxe_teardown >/dev/null 2>&1
    grep -q "^brd " /proc/modules && rmmod brd
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT
fs_phases=(${FAILSLAB_PHASES-map unmap})
fs_max=${FAILSLAB_MAX:-400}
fs_stride=${FAILSLAB_STRIDE:-8}
tap_plan $((2 + ${#modules[@]} * ${#phases[@]} + ${#fs_phases[@]}))
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
setup() {
    grep -q "^brd " /proc/modules && rmmod brd
    rxe_setup 1 >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=16384 || return 1
    insmod rtrs/rtrs-server.ko sess_queue_depth=8 max_chunk_size=16384 && insmod rnbd/rnbd-server.ko &&
        insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
if ! setup; then not_ok "setup"; tap_skip_all "setup failed"; fi
ok "setup: rxe, brd, our four modules (sess_queue_depth=8)"
addr=${RXE_ADDR[0]}
dd if=/dev/urandom of="$tmp/rand" bs=4k count=4 status=none
sum=$(cksum < "$tmp/rand")
dmesg_mark=$(dmesg | wc -l)

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
# Everything back as before the sweep; prints what is not.
settled() {
    local i
    unmap_all
    for ((i = 0; i < 200; i++)); do
        if [ ! -e /sys/class/rtrs-client/sweep ] && [ "$(cat $srv/sessions)" = 0 ] && [ "$(cat $srv/paths)" = 0 ] &&
           [ "$(cat $srv/chunk_bytes)" = 0 ] && [ "$(live_allocs "${all[@]}")" = "$live_base" ]; then
            break
        fi
        sleep 0.1
    done
    [ -e /sys/class/rtrs-client/sweep ] && echo "client session left"
    [ "$(cat $srv/sessions)$(cat $srv/paths)$(cat $srv/chunk_bytes)" = 000 ] ||
        echo "server: sessions $(cat $srv/sessions) paths $(cat $srv/paths) chunk_bytes $(cat $srv/chunk_bytes)"
    [ "$(live_allocs "${all[@]}")" = "$live_base" ] || {
        echo "$(live_allocs "${all[@]}") live C++ objects, $live_base before:"
        grep -hvE '^type| 0 +[0-9]+ +[0-9]+$' /sys/kernel/debug/{rnbd,rtrs}_{client,server}/allocations
    }
    [ "$(sysfs_tree)" = "$tree_base" ] || { echo "sysfs differs:"; diff <(echo "$tree_base") <(sysfs_tree) | head -10; }
}
# errno text out of a shell or dd complaint ("...: Cannot allocate memory").
reason() { local r=${1##*: }; echo "${r:-?}"; }
clean_reason() { case $1 in "" | Success | "Unknown error"* | "?") return 1 ;; esac; return 0; }

tree_base=$(sysfs_tree)
live_base=$(live_allocs "${all[@]}")
diag "before the sweep: $live_base live C++ objects in our four modules"
# The kernel's failslab through the writer's own fail-nth: the Nth slab
# allocation this task makes from now fails, whoever makes it (kernfs, the
# RDMA CM and verbs, our modules). The operation runs in a subshell that
# prints its complaint and then "rc=<status> left=<countdown>"; reading the
# countdown opens a file (more allocations), so a read that fails means
# that open, not the operation, met the failure.
failslab_op() { # n op
    (
        exec 2>&1
        echo "$1" > /proc/thread-self/fail-nth || { echo "rc=99 left=x"; exit; }
        case $2 in
            map) echo "sessname=sweep path=ip:$addr device_path=/dev/ram0" > "$ctl"; rc=$? ;;
            unmap) echo normal > /sys/block/rnbd0/rnbd_client/unmap_device; rc=$? ;;
        esac
        read -r left < /proc/thread-self/fail-nth || left=x
        echo 0 > /proc/thread-self/fail-nth 2>/dev/null || echo 0 > /proc/thread-self/fail-nth 2>/dev/null
        echo "rc=$rc left=$left"
    )
}

declare -A reasons
total_steps=0 total_failed=0
# sweep INJECTOR MODULE PHASE: INJECTOR fail_nth (the module's cxxrt knob) or
# failslab (MODULE unused); one TAP line.
sweep() {
    local inj=$1 m=$2 p=$3 knob=/sys/kernel/debug/$2/fail_nth what
    local n steps=0 failed=0 absorbed=0 bad=0 ended=0 start=$SECONDS s0 out rc left r summary last
    what="$m $p"; [ "$inj" = failslab ] && what="failslab $p"
    reasons=()
    local lim=${4:-$max} by=${5:-$stride}
    for ((n = 1; n <= lim; n += by)); do
        steps=$((steps + 1))
        if [ "$p" != map ]; then
            out=$(map) && wait_dev || { bad=$((bad + 1)); diag "$what $n: the map before the step failed: $out"; break; }
        fi
        s0=$SECONDS
        if [ "$inj" = failslab ]; then
            out=$(failslab_op "$n" "$p")
            last=${out##*$'\n'}
            out=${out%"$last"}; out=${out%$'\n'}
            rc=${last#rc=}; rc=${rc%% *}; left=${last##*left=}
            [ "$left" = x ] && left=1
        else
            echo "$n" > "$knob"
            case $p in
                map) out=$(map); rc=$? ;;
                io) out=$(io); rc=$? ;;
                unmap) out=$(unmap); rc=$? ;;
            esac
            left=$(cat "$knob"); echo 0 > "$knob"
        fi
        [ $((SECONDS - s0)) -ge 60 ] && { bad=$((bad + 1)); diag "$what $n: took $((SECONDS - s0)) s"; }
        if [ "$left" != 0 ]; then
            # The operation made fewer than n allocations: the sweep ends here.
            ended=1
            if [ "$rc" != 0 ]; then bad=$((bad + 1)); diag "$what $n: failed without reaching the injected failure: $out"; fi
            [ "$p" = map ] && [ "$rc" = 0 ] && { wait_dev && io >/dev/null || { bad=$((bad + 1)); diag "$what $n: mapped but no IO"; }; }
            left=$(settled); [ -z "$left" ] || { bad=$((bad + 1)); diag "$what $n: after the last step: $left"; }
            steps=$((steps - 1))
            break
        fi
        if [ "$rc" = 0 ]; then
            absorbed=$((absorbed + 1))
            case $p in
                map) wait_dev && io >/dev/null || { bad=$((bad + 1)); diag "$what $n: map said yes, the device does no IO"; } ;;
                unmap) [ ! -e /sys/block/rnbd0 ] || { sleep 1; [ ! -e /sys/block/rnbd0 ]; } ||
                    { bad=$((bad + 1)); diag "$what $n: unmap said yes, the device is still there"; } ;;
            esac
        else
            failed=$((failed + 1))
            r=$(reason "$out")
            reasons[$r]=$((${reasons[$r]:-0} + 1))
            clean_reason "$r" || { bad=$((bad + 1)); diag "$what $n: no clean errno: rc $rc: $out"; }
            # The next attempt, without a failure, works.
            case $p in
                map) settled >/dev/null; out=$(map) && wait_dev && io >/dev/null ||
                    { bad=$((bad + 1)); diag "$what $n: the next map failed: $out"; } ;;
                io) io_retry >/dev/null || { bad=$((bad + 1)); diag "$what $n: IO does not work again"; } ;;
                unmap) out=$(unmap) || { bad=$((bad + 1)); diag "$what $n: the next unmap failed: $out"; } ;;
            esac
        fi
        left=$(settled); [ -z "$left" ] || { bad=$((bad + 1)); diag "$what $n: $left"; }
    done
    [ $ended = 1 ] || { bad=$((bad + 1)); diag "$what: the sweep did not end within $lim allocations"; }
    summary=""
    for r in "${!reasons[@]}"; do summary+="${summary:+, }$r ${reasons[$r]}"; done
    local range="N = 1 to $((n - by)) step $by"; [ $steps -gt 0 ] || range="none reached"
    diag "$what: $steps allocations failed in turn ($range) in $((SECONDS - start)) s: $failed refused (${summary:-none}), $absorbed succeeded anyway, $bad bad"
    total_steps=$((total_steps + steps)); total_failed=$((total_failed + failed))
    check "$what: each allocation failed in turn ($steps): clean errno or success, nothing left, next attempt works" [ $bad = 0 ]
}
for m in "${modules[@]}"; do
    for p in "${phases[@]}"; do sweep fail_nth "$m" "$p"; done
done

# --- failslab (debug kernel only) ------------------------------------------------------
fs=/sys/kernel/debug/failslab
if [ ! -d $fs ] || [ ! -e /proc/thread-self/fail-nth ]; then
    for p in "${fs_phases[@]}"; do
        skip "failslab $p" "kernel without CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS (Debian's): runs on the debug kernel"
    done
else
    # Sleeping (GFP_KERNEL) allocations may fail too; no stack dump per failure.
    echo N > $fs/ignore-gfp-wait && echo 0 > $fs/verbose || not_ok "failslab set up"
    for p in "${fs_phases[@]}"; do sweep failslab - "$p" "$fs_max" "$fs_stride"; done
    echo Y > $fs/ignore-gfp-wait
fi
diag "sweep: $total_steps injected failures, $total_failed operations refused"
unload() { rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server; }
if unload && ! dmesg | tail -n +"$dmesg_mark" | grep -q "cxxrt: leak"; then
    ok "the modules unload with no cxxrt leak"
else
    not_ok "the modules unload with no cxxrt leak"
fi
tap_done; exit $?
