#!/usr/bin/env bash
# The hostile peer as a server (rtrs-hostile.ko mode=client) against our
# client (rtrs-client + rnbd-client) over Soft-RoCE loopback: for each case
# the module answers one thing wrongly (CON_RSP, INFO_RSP, RKEY_RSP, stray
# or duplicate answers, a fake invalidation, OPEN_RSP limits, RDMA writes
# through a READ's rkey after its answer, -ENOMEM answers) while map_device
# runs or on one IO after it; the client must fail the map (or close the
# path) in bounded time, never hang or crash, keep no stale MR, give no
# memory back while its key is alive, and fail an IO the server refuses
# forever within the request timeout. One TAP line per case. Then the client still maps from our real server, fio --verify
# passes, everything unloads, and no leak is reported.
#
# Cases the product does not pass yet carry "# TODO <reason>"; cases that
# would hang or crash the VM are not run (SKIP).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
. selftests/hostile/lib-hostile.sh
hostile_init clt
param=/sys/module/rtrs_hostile/parameters/client_case

# Known failures of the product (case -> what it does), reported as TAP
# TODO, and cases not run because they would hang or crash the VM. Both are
# empty: every case passes. Keep them for a case written before its fix.
declare -A TODO=()
declare -A SKIP=()
# What each case expects: map_fails (the map fails in bounded time),
# closes (the map fails or the client closes the path), probe (the map
# works, a READ answered with a fake invalidation leaves no valid rkey),
# spray (the map works; a READ answered without SEND_WITH_INV whose local
# invalidation cannot be posted, fault_inv_post_fail, fails on the HCA,
# fault_inv_bad_key, or is flushed unexecuted, fault_inv_flush, while the
# server writes through its rkey from a sibling connection: the memory
# never changes once the READ is done),
# enomem (the map works; an IO the server answers with -ENOMEM fails with
# EIO within the request timeout).
cases=(
    good:maps
    con_rsp_queue_depth_zero:map_fails
    con_rsp_queue_depth_huge:map_fails
    con_rsp_max_io_size_zero:map_fails
    con_rsp_unknown_flags:map_fails
    con_rsp_bad_magic:map_fails
    reject_internal_errno:map_fails
    info_rsp_sg_cnt_huge:map_fails
    info_rsp_sg_cnt_zero:map_fails
    info_rsp_length_mismatch:map_fails
    info_rsp_never:map_fails
    rkey_rsp_bad_id:map_fails
    answer_never_sent:closes
    answer_twice:closes
    read_fake_invalidation:probe
    open_rsp_logical_block_32k:map_fails
    open_rsp_discard_granularity_zero:map_fails
    open_rsp_physical_below_logical:map_fails
    open_rsp_zero_segments:map_fails
    open_rsp_zero_max_hw_sectors:map_fails
    open_rsp_size_not_representable:map_fails
    read_inv_post_failed:spray
    read_inv_failed:spray
    read_inv_flushed:spray
    answer_enomem:enomem
)
dbg=/sys/kernel/debug/rtrs_client
# read_inv_post_failed, read_inv_failed: what a reader of a READ's buffer sees right after
# the READ completed and 3 s later ("<first> <later>", le32 at offset 0).
read_twice() { # device
    python3 - "/dev/$1" <<'PY'
import mmap, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
os.preadv(fd, [buf], 512 * 4096)
first = struct.unpack_from("<I", buf, 0)[0]
time.sleep(3)
print(first, struct.unpack_from("<I", buf, 0)[0])
PY
}

cleanup() { hostile_cleanup rnbd_client rtrs_client rtrs_hostile rnbd_server rtrs_server; }
trap cleanup EXIT

setup() {
    rxe_setup 1 >/dev/null || return 1
    modprobe rdma_cm && modprobe brd rd_nr=1 rd_size=65536 || return 1
    # read_slots=0: every READ registers the caller's pages, the case the
    # invalidation cases below are about (a slot READ has no key to fake).
    insmod rtrs/rtrs-client.ko read_slots=0 && insmod rnbd/rnbd-client.ko && insmod $ko mode=client port=1234
}
check "setup: rxe, our client, the hostile server on port 1234" setup || tap_skip_all "setup failed"
addr=${RXE_ADDR[0]}
mark start-002

# Without a fork per call (under TCG a fork costs a good part of a second):
# the rnbd devices, space-separated, with a space at both ends.
devices() {
    local d list=" "
    for d in /sys/block/rnbd*; do [ -e "$d" ] && list+="${d##*/} "; done
    echo "$list"
}
# new_devices BEFORE: the rnbd devices that appeared since, one a line.
new_devices() {
    local d
    for d in /sys/block/rnbd*; do
        [ -e "$d" ] && [[ "$1" != *" ${d##*/} "* ]] && echo "${d##*/}"
    done
}
unmap_new() { # devices before
    local d
    for d in $(new_devices "$1"); do
        [ -e /sys/block/$d/rnbd_client/unmap_device ] && echo force > /sys/block/$d/rnbd_client/unmap_device 2>/dev/null
    done
}
# now_ms: the wall clock in ms into $REPLY (bash's EPOCHREALTIME: no fork).
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; REPLY=$((t / 1000)); }
hung=
n=0
for entry in "${cases[@]}"; do
    name=${entry%%:*} expect=${entry#*:}
    n=$((n + 1))
    # HOSTILE_CASES=<regex>: run only the matching cases (the debug lane's
    # key-lifetime cases); each case left out is a counted skip.
    if [ -n "${HOSTILE_CASES:-}" ] && ! [[ $name =~ $HOSTILE_CASES ]]; then
        skip "$name" "not in HOSTILE_CASES=$HOSTILE_CASES"; continue
    fi
    if [ -n "${SKIP[$name]:-}" ]; then skip "$name" "TODO ${SKIP[$name]}"; continue; fi
    if [ -n "$hung" ]; then skip "$name" "an earlier case left map_device hanging"; continue; fi
    echo "$name" > $param
    # The spray targets the last connection: polled ones come last and
    # drain slowly, so a client that completes the READ early is seen.
    # One per CPU (-1): more than the VM has CPUs is EINVAL (make check's
    # lanes run one vCPU).
    extra=
    [ "$expect" = spray ] && extra=" nr_poll_queues=-1"
    before_dev=$(devices)
    mark "case-$n"
    rm -f "$tmp/rc" "$tmp/err"
    now_ms; t0=$REPLY
    ( echo "sessname=hostile-$n path=ip:$addr device_path=/dev/hostile$extra" \
        > /sys/kernel/rnbd_client/map_device 2> "$tmp/err"; echo $? > "$tmp/rc" ) &
    for _ in $(seq 900); do [ -s "$tmp/rc" ] && break; sleep 0.1; done
    if [ ! -s "$tmp/rc" ]; then
        hung=1
        observed="map_device still blocked after 90 s"
        result=fail
    else
        now_ms; ms=$((REPLY - t0))
        read -r rc < "$tmp/rc"
        err= line=
        while IFS= read -r line; do err=${line##*: }; done < "$tmp/err"
        map="map ok in ${ms} ms"
        [ "$rc" = 0 ] || map="map failed in ${ms} ms: $err"
        result=fail
        case $expect in
            maps)
                dev=$(new_devices "$before_dev" | head -1)
                if [ "$rc" = 0 ] && [ -n "$dev" ] && dd if=/dev/$dev of=/dev/null bs=4k count=4 iflag=direct status=none; then
                    result=pass
                fi ;;
            map_fails)
                # A refused map leaves nothing behind: no device, and the
                # session's sysfs directory gone within 5 s.
                left=
                [ -n "$(new_devices "$before_dev")" ] && left=" a device"
                for _ in $(seq 25); do [ -e /sys/class/rtrs-client/hostile-$n ] || break; sleep 0.2; done
                [ -e /sys/class/rtrs-client/hostile-$n ] && left="$left the session hostile-$n"
                [ -n "$left" ] && map="$map; left behind:$left"
                if [ "$rc" != 0 ] && [ "$ms" -lt 60000 ] && ! grep -q "Unknown error" "$tmp/err" && [ -z "$left" ]; then
                    result=pass
                fi ;;
            closes)
                sleep 3
                if [ "$rc" != 0 ] || since_mark "case-$n" | grep -q "client case $name: the client closed the path"; then
                    result=pass
                fi ;;
            probe)
                dev=$(new_devices "$before_dev" | head -1)
                if [ "$rc" = 0 ] && [ -n "$dev" ]; then
                    # The READ of sector 4096 (2 MiB) is answered with the fake
                    # invalidation, the next ones normally; 3 s later the
                    # module probes that READ's rkey. Pass: the probe finds the rkey dead,
                    # and either the client refused the unproven claim (that
                    # READ failed) or it invalidated locally and went on
                    # (later IO works). A client that trusted the claim has
                    # the READ succeed, then fails re-registering the MR.
                    first=ok more=ok
                    dd if=/dev/$dev of=/dev/null bs=4k skip=512 count=1 iflag=direct status=none 2>/dev/null || first="the faked READ failed"
                    dd if=/dev/$dev of=/dev/null bs=4k skip=8 count=8 iflag=direct status=none 2>/dev/null || more="IO after it failed"
                    sleep 4
                    if since_mark "case-$n" | grep -q "client case $name: probe: the old rkey is dead" &&
                        { [ "$first" != ok ] || [ "$more" = ok ]; }; then
                        result=pass
                    fi
                    [ "$first" = ok ] || map="$map; $first"
                    [ "$more" = ok ] || map="$map; $more"
                fi ;;
            spray)
                dev=$(new_devices "$before_dev" | head -1)
                knob=$dbg/fault_inv_post_fail
                [ "$name" = read_inv_failed ] && knob=$dbg/fault_inv_bad_key
                [ "$name" = read_inv_flushed ] && knob=$dbg/fault_inv_flush
                # A spray whose first write already fails (the client closed
                # the path first: on a loaded machine the spray's work item
                # can start late) proves nothing either way: the client
                # reconnects to a fresh hostile session, which sprays the
                # next READ; up to three attempts.
                attempt=0
                while [ "$rc" = 0 ] && [ -n "$dev" ] && [ -w $knob ] && [ $attempt -lt 3 ]; do
                    attempt=$((attempt + 1))
                    log_mark "spray-$n-$attempt"
                    echo 18446744073709551615 > $knob
                    seen=$(read_twice "$dev" 2>"$tmp/py.err")
                    echo 0 > $knob
                    # The spray logs its count when a write fails or, where
                    # the peer's QP is gone and nothing answers, when its
                    # completion wait (10 s) gives up: wait for that line
                    # (up to 45 s by the clock: 20 s of spraying + 10 s).
                    now_ms; t1=$REPLY landed=
                    while :; do
                        landed=$(log_since "spray-$n-$attempt" | sed -n "s/.*client case $name: spray on connection [0-9]*: \([0-9]*\) writes landed.*/\1/p" | tail -1)
                        now_ms
                        [ -n "$landed" ] || [ $((REPLY - t1)) -gt 45000 ] && break
                        sleep 1
                    done
                    [ "${landed:-0}" -gt 0 ] && break
                    [ -n "$landed" ] || break
                    map="$map; attempt $attempt: the spray's first write failed"
                done
                if [ "$rc" = 0 ] && [ -n "$dev" ] && [ -w $knob ]; then
                    [ -n "$landed" ] || map="$map; no spray count logged within 45 s"
                    first= later=
                    read -r first later <<<"$seen"
                    if [ -n "$first" ] && [ "$first" = "$later" ] && [ "${landed:-0}" -gt 0 ]; then
                        result=pass
                    fi
                    # The flushed variant: the knob moved the QP to the error
                    # state, so the path failed on a flushed completion (the
                    # first one logged may be a receive's, the LOCAL_INV's is
                    # flushed with it).
                    if [ "$name" = read_inv_flushed ] && ! since_mark "case-$n" | grep -qE "failed \([a-z ]*flushed\)"; then
                        result=fail map="$map; the client's path did not fail on a flushed completion"
                    fi
                    if [ -n "$seen" ]; then
                        map="$map; the READ's buffer held $first when it completed, $later 3 s later"
                    else
                        map="$map; the READ failed: $(tail -1 "$tmp/py.err")"
                    fi
                fi ;;
            enomem)
                dev=$(new_devices "$before_dev" | head -1)
                if [ "$rc" = 0 ] && [ -n "$dev" ]; then
                    echo 2000 > /sys/block/$dev/queue/io_timeout
                    now_ms; t1=$REPLY
                    rm -f "$tmp/ddrc"
                    # In the background: a client that retries forever keeps dd
                    # in D state, where no signal reaches it (the unmap below
                    # fails the request).
                    ( timeout 120 dd if=/dev/$dev of=/dev/null iflag=direct bs=4k skip=512 count=1 status=none \
                        2> "$tmp/dd.err"; echo $? > "$tmp/ddrc" ) &
                    # 60 s by the clock (a TCG guest's sleep loop runs slow).
                    while now_ms; [ ! -s "$tmp/ddrc" ] && [ $((REPLY - t1)) -lt 60000 ]; do sleep 0.2; done
                    now_ms; ddms=$((REPLY - t1))
                    if [ -s "$tmp/ddrc" ]; then
                        ddrc=$(cat "$tmp/ddrc")
                        # Well within the timeout: 2 s of retries, not 120 s.
                        if [ "$ddrc" != 0 ] && grep -q "Input/output error" "$tmp/dd.err"; then
                            result=pass
                        fi
                        map="$map; dd of the refused sector: rc $ddrc after $ddms ms ($(tail -1 "$tmp/dd.err" | sed 's/^.*: //'))"
                    else
                        map="$map; dd of the refused sector still blocked after $ddms ms"
                    fi
                fi ;;
        esac
        # What the module saw, each event once, in order, ';'-separated.
        events=$(since_mark "case-$n" | awk -v p="client case $name: " '
            index($0, p) { e = substr($0, index($0, p) + length(p))
                if (e != "a client session starts" && !(e in seen)) { seen[e] = 1; out = out (out == "" ? "" : ";") e } }
            END { print out }')
        observed="$map${events:+; server saw: $events}"
        unmap_new "$before_dev"
    fi
    if [ $result = pass ]; then
        if [ -n "${TODO[$name]:-}" ]; then ok "$name: $observed (no longer a TODO: ${TODO[$name]})"; else ok "$name: $observed"; fi
    elif [ -n "${TODO[$name]:-}" ]; then
        TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - $name: $observed # TODO ${TODO[$name]}"
    else
        not_ok "$name: $observed"
    fi
done
[ -n "$hung" ] && tap_skip_all "map_device hangs: the client cannot be unloaded"

check "the hostile server unloads" rmmod rtrs_hostile
check "our server loads" bash -c "insmod rtrs/rtrs-server.ko sess_queue_depth=128 && insmod rnbd/rnbd-server.ko"
check "the client still maps /dev/ram0 from a good server" \
    bash -c "echo 'sessname=good path=ip:$addr device_path=/dev/ram0' > /sys/kernel/rnbd_client/map_device"
dev=$(ls /sys/block | grep '^rnbd' | head -1)
fio_verify() { hostile_fio_verify "/dev/$dev" "${HOSTILE_FIO_SIZE:-16M}" 128k 16; }
check "fio randwrite 4k-128k QD16 with crc32c verify after the hostile cases" fio_verify
check "unmap" bash -c "echo normal > /sys/block/$dev/rnbd_client/unmap_device"
check "all modules unload" bash -c "rmmod rnbd_client && rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server"
if since_mark start-002 | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
tap_done; exit $?
