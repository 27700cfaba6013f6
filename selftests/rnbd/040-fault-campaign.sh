#!/usr/bin/env bash
# Fault campaign: our whole stack, one RAM disk mapped over TWO paths (two
# rxe devices, each looping back to its own address), fio verifying without
# pause while at least FAULTS (default 100) path failures are injected in a
# random order with random timing, always on one path while the other is up:
#   sysfs   disconnect, random pause, reconnect
#   link    the path's link down, random pause, up: the veth peer goes down, so
#           the netdev under the rxe device loses carrier and the rxe port goes
#           DOWN (events to every user), then ACTIVE again
#   rdma    `rdma link del` of the path's rxe device, random pause, `rdma link add`;
#           both sides sleep 200 ms right after destroying the path's cm_ids
#           (fault_id_delay_ms), so anything of ours freed after the ids
#           would meet the freed device (rxe_pool_cleanup WARN) every time
#   qp      debugfs fault_qp_error: every QP of the path to the error state
#   remove  remove_path, random pause, add_path
# and short windows of dropped heartbeats (client knobs for that path, the
# server's for all) that must NOT fail a path that carries IO (its traffic
# proves it alive; a silent path's heartbeat loss is rtrs/005's test). A path
# that failed reconnects on its own after rnbd-client's 30 s delay; the test
# shortens that with disconnect + reconnect, as an administrator would.
# The server runs with its default always_invalidate=Y (a LOCAL_INV and a
# REG_MR per IO), and both sides with a one-jiffy ACK timeout
# (fault_ack_timeout=1): rxe retransmits whenever an ACK is late, and a
# retransmission executes again the local operations behind the WR it
# restarts from (rxe_req.c: req_retry, rxe_requester). A REG_MR that meets
# that fails ("rxe_reg_fast_mr: ... not free") and kills its QP: asserted
# never to happen.
# fio cycles while faults run: crc32c random writes with verify, pattern A
# sequential writes with verify, pattern B random rewrites with verify, and a
# read-only pass that must find B everywhere (a lost write leaves A).
# Asserted: fio never sees an IO or verify error, no "I/O error" in the
# kernel log, no REG_MR/LOCAL_INV failure in rxe, no failed-over request
# failed (debugfs failover_errors = 0), and every request accounted for:
# requests posted on paths minus failovers resubmitted = block-layer requests
# + rnbd control messages (debugfs submitted/failovers survive remove_path,
# unlike a path's stats/rdma).
# Excluded (printed as a TODO): `ip link set <netdev> down` under the rxe
# device itself. On Debian's 6.1 kernel any send with no route (the netdev is
# down) puts the sending QP in the error state, the CM's GSI QP too, and that
# one never receives again (tools/vm/repro-rxe-gsi-wedge.sh shows it with
# rping alone): the first CM message (the DREQ of the failed path) leaves the
# device without CM traffic until it is deleted and added again. Carrier loss
# (the "link" faults) and `rdma link del`/`add` cover a port and a device
# going away.
# The RNG seed is printed: FAULT_SEED=<seed> replays the same order/timing.
# Environment: FAULT_SEED, FAULTS (default 100), FAULT_RDMA=0 (no rdma faults),
# FAULT_ONLY=<kind> (only that kind), FAULT_ALWAYS_INVALIDATE=N,
# FAULT_ACK_TIMEOUT=<n> (0: the CM's default). Runtime: 622 s for seed 4
# (100 failures, 11 of them rdma; TCG on a 2-core host at load 10-13 with
# other VMs running); most of it is reconnects.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.." || exit 1
seed=${FAULT_SEED:-$(( $(date +%s) % 1000000 ))}
target=${FAULTS:-100}
RANDOM=$seed
diag "fault campaign seed $seed (replay: FAULT_SEED=$seed), $target path failures"
dbg=/sys/kernel/debug/rtrs_client
sdbg=/sys/kernel/debug/rtrs_server
tmp=$(mktemp -d /tmp/rnbd-faults.XXXXXX)
sess=/sys/class/rtrs-client/faults
cleanup() {
    touch "$tmp/stop"
    [ -n "${fio_pid:-}" ] && { kill "$fio_pid" 2>/dev/null; wait "$fio_pid" 2>/dev/null; }
    for k in fault_drop_heartbeats fault_drop_heartbeat_acks fault_qp_error fault_id_delay_ms fault_ack_timeout; do
        [ -w $dbg/$k ] && echo 0 > $dbg/$k
        [ -w $sdbg/$k ] && echo 0 > $sdbg/$k
    done
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    for m in rnbd_client rtrs_client rnbd_server rtrs_server; do grep -q "^$m " /proc/modules && rmmod $m; done
    rxe_teardown >/dev/null 2>&1
    rmmod brd 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
mark="rnbd-040-$seed-$$"
echo "$mark" > /dev/kmsg
klog() { dmesg | sed -n "/$mark/,\$p"; }

setup() {
    rxe_setup 2 >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=16384 || return 1
    insmod rtrs/rtrs-server.ko sess_queue_depth=64 always_invalidate=${FAULT_ALWAYS_INVALIDATE:-Y} &&
        insmod rnbd/rnbd-server.ko && insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko || return 1
    # A one-jiffy ACK timeout on both sides: rxe retransmits (spuriously)
    # whenever an ACK is late, which under TCG is often. A retransmission
    # replays the local operations behind the WR it restarts from, so every
    # REG_MR must be safe to meet that (see ServerConnection::post_lock()).
    echo "${FAULT_ACK_TIMEOUT:-1}" > $dbg/fault_ack_timeout && echo "${FAULT_ACK_TIMEOUT:-1}" > $sdbg/fault_ack_timeout
}
check "setup: two rxe paths, brd, our four modules" setup
map() {
    echo "sessname=faults path=ip:${RXE_ADDR[0]} path=ip:${RXE_ADDR[1]} device_path=/dev/ram0" \
        > /sys/kernel/rnbd_client/map_device || return 1
    for _ in $(seq 50); do [ -b /dev/rnbd0 ] && return 0; sleep 0.1; done
    return 1
}
check "map /dev/ram0 over two paths" map
pdir() { local d; for d in "$sess"/paths/*@ip:"${RXE_ADDR[$1]}"; do [ -d "$d" ] && echo "$d"; done; }
pstate() { local d; d=$(pdir "$1"); [ -n "$d" ] && cat "$d/state" 2>/dev/null; }
check "both paths connected" bash -c "[ '$(pstate 0)' = connected ] && [ '$(pstate 1)' = connected ]"
echo mi > "$sess/mpath_policy"

# --- workload --------------------------------------------------------------------------
# One cycle = four fio jobs over the whole 16 MiB device; cycles repeat until
# the campaign ends, then the running cycle finishes. Any failure is recorded.
fio_job() { # name args...
    local name=$1; shift
    fio --name="$name" --filename=/dev/rnbd0 --ioengine=libaio --direct=1 --size=100% \
        --verify_fatal=1 "$@" --output="$tmp/$name.out" >/dev/null 2>&1 && return 0
    echo "fio $name failed:" >> "$tmp/fio-failures"
    tail -15 "$tmp/$name.out" >> "$tmp/fio-failures"
    return 1
}
workload() {
    local c=0
    while :; do
        c=$((c + 1))
        fio_job "crc-$c" --rw=randwrite --bsrange=4k-128k --iodepth=16 --verify=crc32c --do_verify=1 &&
        fio_job "a-$c" --rw=write --bs=64k --iodepth=8 --verify=pattern --verify_pattern=0x5a5a5a5a --do_verify=1 &&
        fio_job "b-$c" --rw=randwrite --bsrange=4k-64k --iodepth=16 --verify=pattern \
            --verify_pattern=0xa5c3a5c3 --do_verify=1 &&
        fio_job "c-$c" --rw=read --bs=128k --iodepth=4 --verify=pattern --verify_pattern=0xa5c3a5c3 --verify_only ||
            { echo "$c" > "$tmp/fio-failed-cycle"; return 1; }
        echo "$c" > "$tmp/cycles"
        [ -e "$tmp/stop" ] && return 0
    done
}
workload & fio_pid=$!

# --- faults ----------------------------------------------------------------------------
rnd() { echo $((RANDOM % $1)); }                 # 0 .. N-1
pause() { sleep "$(( $1 / 1000 )).$(printf '%03d' $(( $1 % 1000 )))"; }  # milliseconds
declare -A injected=() spent=()
kinds=(sysfs link rdma qp remove hb)
# Drawn with these weights (heartbeat windows fail nothing, so fewer of them;
# an rdma fault costs seconds: the device comes back, then the path).
weights=(sysfs sysfs link qp qp remove remove sysfs link qp hb)
[ "${FAULT_RDMA:-1}" = 1 ] && weights+=(rdma)
# FAULT_ONLY=kind: draw only that kind (to replay one kind many times).
[ -n "${FAULT_ONLY:-}" ] && weights=("$FAULT_ONLY")
failures=0 removed_reconnects=0 kicks=0 campaign_errors=0
err() { diag "campaign: $*"; campaign_errors=$((campaign_errors + 1)); }

# wait_connected I SECONDS: path I connected; a path waiting for its 30 s
# reconnect delay is kicked (disconnect + reconnect) after a few seconds.
wait_connected() {
    local i=$1 t=$(( $2 * 10 )) n=0 d
    while [ $n -lt $t ]; do
        [ "$(pstate "$i")" = connected ] && return 0
        if [ $((n % 30)) = 29 ]; then
            d=$(pdir "$i")
            [ -n "$d" ] && { echo 1 > "$d/disconnect"; echo 1 > "$d/reconnect"; } 2>/dev/null
            kicks=$((kicks + 1))
        fi
        sleep 0.1; n=$((n + 1))
    done
    err "path $i not connected after $2 s (state '$(pstate "$i")')"
    return 1
}
# kick I: make a failed path reconnect now instead of after the delay
kick() {
    local d; d=$(pdir "$1")
    [ -n "$d" ] || return 0
    [ "$(cat "$d/state" 2>/dev/null)" = connected ] && return 0
    { echo 1 > "$d/disconnect"; echo 1 > "$d/reconnect"; } 2>/dev/null
    kicks=$((kicks + 1))
}
reconnects_of() { local d r; d=$(pdir "$1"); [ -n "$d" ] && read -r r _ < "$d/stats/reconnects" && echo "$r" || echo 0; }

inject() { # kind path
    local kind=$1 i=$2 d nd=${RXE_NETDEV[$2]} dev=${RXE_DEV[$2]} n
    d=$(pdir "$i")
    case $kind in
    sysfs)
        echo 1 > "$d/disconnect" || err "disconnect $i"
        pause $(( 50 + $(rnd 450) ))
        echo 1 > "$d/reconnect" || err "reconnect $i" ;;
    link)
        # Carrier loss: the rxe port goes DOWN; loopback traffic still
        # passes, so the path may stay up (it must not lose IO either way).
        ip link set "vethB_$i" down || err "link down vethB_$i"
        pause $(( 100 + $(rnd 700) ))
        ip link set "vethB_$i" up || err "link up vethB_$i"
        kick "$i" ;;
    rdma)
        # Both sides sleep after destroying a path's cm_ids: the CM lets
        # the removed device go once the last id on it is gone, so anything
        # of ours freed after the ids would meet a freed device (rxe WARNs in
        # rxe_pool_cleanup). Without the sleep that race is lost rarely.
        echo 200 > $dbg/fault_id_delay_ms; echo 200 > $sdbg/fault_id_delay_ms
        rdma link delete "$dev" || err "rdma link delete $dev"
        echo 0 > $dbg/fault_id_delay_ms; echo 0 > $sdbg/fault_id_delay_ms
        pause $(( 50 + $(rnd 450) ))
        rdma link add "$dev" type rxe netdev "$nd" || err "rdma link add $dev"
        rxe_wait_active "$dev" 10 || err "$dev not active"
        kick "$i" ;;
    qp)
        echo $((1 << i)) > $dbg/fault_qp_error
        n=0; while [ "$(pstate "$i")" = connected ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
        [ "$(pstate "$i")" = connected ] && diag "qp: path $i still connected 5 s after fault_qp_error"
        pause "$(rnd 300)"
        kick "$i" ;;
    remove)
        removed_reconnects=$((removed_reconnects + $(reconnects_of "$i")))
        echo 1 > "$d/remove_path" || err "remove_path $i"
        pause $(( 50 + $(rnd 450) ))
        echo "ip:${RXE_ADDR[$i]}" > "$sess/add_path" || err "add_path ip:${RXE_ADDR[$i]}" ;;
    hb)
        echo $((1 << i)) > $dbg/fault_drop_heartbeats
        echo $((1 << i)) > $dbg/fault_drop_heartbeat_acks
        echo 1 > $sdbg/fault_drop_heartbeats; echo 1 > $sdbg/fault_drop_heartbeat_acks
        pause $(( 300 + $(rnd 1000) ))
        echo 0 > $dbg/fault_drop_heartbeats; echo 0 > $dbg/fault_drop_heartbeat_acks
        echo 0 > $sdbg/fault_drop_heartbeats; echo 0 > $sdbg/fault_drop_heartbeat_acks
        [ "$(pstate "$i")" = connected ] || err "path $i carrying IO failed during a heartbeat-drop window" ;;
    esac
}

start=$SECONDS
rc_before=$(( $(reconnects_of 0) + $(reconnects_of 1) ))
while [ $failures -lt "$target" ]; do
    [ -e "$tmp/fio-failed-cycle" ] && { err "fio failed: stopping the campaign"; break; }
    [ $campaign_errors -gt 5 ] && break
    # Both paths up before the next fault: the other one stays up through it.
    wait_connected 0 60 && wait_connected 1 60 || break
    pause "$(rnd 200)"
    kind=${weights[$(rnd ${#weights[@]})]}
    i=$(rnd 2)
    t0=$(date +%s%N)
    inject "$kind" "$i"
    spent[$kind]=$(( ${spent[$kind]:-0} + ($(date +%s%N) - t0) / 1000000 ))
    injected[$kind]=$(( ${injected[$kind]:-0} + 1 ))
    [ "$kind" = hb ] || failures=$((failures + 1))
done
wait_connected 0 60; wait_connected 1 60
took=$((SECONDS - start))
touch "$tmp/stop"
wait "$fio_pid"; fio_rc=$?
fio_pid=

summary=""
for k in "${kinds[@]}"; do summary="$summary $k=${injected[$k]:-0}"; done
for k in "${kinds[@]}"; do diag "  $k: ${injected[$k]:-0} injected, $(( ${spent[$k]:-0} / 1000 )) s spent in them"; done
diag "TODO: fault kind 'netdev admin down under rxe' excluded: Debian 6.1's rxe kills its GSI QP on a send with no route (see the header)"
diag "injected in ${took} s: $failures path failures ($summary ), $kicks kicks"
check "at least $target path failures injected" test "$failures" -ge "$target"
check "the campaign itself met no error (writes accepted, paths came back)" test "$campaign_errors" = 0
check "fio cycles (write + verify, pattern A, pattern B, read-only B) all passed: $(cat "$tmp/cycles" 2>/dev/null) cycles" \
    test "$fio_rc" = 0
[ -e "$tmp/fio-failures" ] && sed 's/^/#   /' "$tmp/fio-failures" | tail -30
no_io_error() { ! klog | grep -E 'I/O error|rnbd_client.*(IO|io).*(fail|error)' | head -5 | grep .; }
check "no I/O error in the kernel log" no_io_error
# rxe's own words when it executes a REG_MR twice (rxe_mr.c: rxe_reg_fast_mr)
# or an invalidation meets a key it does not hold: each kills a QP that no
# fault of ours touched.
no_reg_replay() { ! klog | grep -E 'rxe_reg_fast_mr|rxe_invalidate_mr' | head -5 | grep .; }
check "no REG_MR or LOCAL_INV failed in rxe (replayed by a retransmission)" no_reg_replay
# (rxe's counters restart when a device is deleted and added again.)
retx=$(cat /sys/class/infiniband/rxe[01]/ports/1/hw_counters/completer_retry_err 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
dups=$(cat /sys/class/infiniband/rxe[01]/ports/1/hw_counters/duplicate_request 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
diag "rxe since the devices' last (re)creation: $retx retransmissions started, $dups duplicate requests received"

# --- accounting --------------------------------------------------------------------------
read -r -a st < /sys/block/rnbd0/stat
blk=$(( st[0] + st[4] + ${st[11]:-0} + ${st[15]:-0} ))
sub=$(cat $dbg/submitted) fo=$(cat $dbg/failovers) foe=$(cat $dbg/failover_errors)
path_fo=0 inflight=0 reconnects=$removed_reconnects
for i in 0 1; do
    read -r -a r < "$(pdir "$i")/stats/rdma"
    path_fo=$((path_fo + r[5])); inflight=$((inflight + r[4]))
    reconnects=$((reconnects + $(reconnects_of "$i")))
done
reconnects=$((reconnects - rc_before))
ctrl=$(( sub - (fo - foe) - blk ))
diag "requests: posted on paths $sub, failed over $fo (stats/rdma of the live paths: $path_fo), failover errors $foe,"
diag "          block layer $blk, rnbd control messages $ctrl; path reconnects $reconnects; in flight now $inflight"
check "IOs failed over: $fo (> 0: faults hit IO in flight)" test "$fo" -gt 0
check "no failed-over request failed (failover_errors = 0)" test "$foe" = 0
check "nothing in flight on the live paths after the campaign" test "$inflight" = 0
check "every request accounted for: posted - failed over = block requests + a few control messages (0..8)" \
    test "$ctrl" -ge 0 -a "$ctrl" -le 8
check "path reconnects seen: $reconnects" test "$reconnects" -gt 0

unmap() { echo normal > /sys/block/rnbd0/rnbd_client/unmap_device; }
check "unmap" unmap
check "rmmod our four modules" rmmod rnbd_client rtrs_client rnbd_server rtrs_server
if klog | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
