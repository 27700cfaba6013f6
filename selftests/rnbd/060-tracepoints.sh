#!/usr/bin/env bash
# Tracepoints (Documentation/tracing.md). The rtrs_clt, rtrs_srv and
# rnbd_srv events are Linux's ABI: their format files (fields, types,
# offsets, print format) must be byte for byte those of Linux's own modules
# on this kernel (loaded from UPSTREAM_KO_DIR first, their formats kept,
# unloaded), and their field names those of Linux's headers (checked even
# without Linux's modules). Then, with every event of rtrs_clt, rtrs_srv,
# rnbd_srv and rnbd_clt enabled: map /dev/ram0 through our client from our
# server, write and read, fail the path's QPs (fault_qp_error) so it
# reconnects, unmap; each expected event must be in the trace in its
# documented format. TAP; root, in the VM.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
for f in rtrs/rtrs-server.ko rnbd/rnbd-server.ko rtrs/rtrs-client.ko rnbd/rnbd-client.ko; do
    [ -f "$f" ] || tap_skip_all "$f not built (make)"
done
faults=/sys/kernel/debug/rtrs_client
tmp=$(mktemp -d /tmp/rnbd-trace.XXXXXX)
systems="rtrs_clt rtrs_srv rnbd_srv rnbd_clt"

events_enable() { # 0|1
    local s
    for s in $systems; do [ -e $tracing/events/$s/enable ] && echo "$1" > $tracing/events/$s/enable; done
    return 0
}
cleanup() {
    events_enable 0
    echo > $tracing/trace 2>/dev/null
    tracing_end
    rnbd_stack_teardown
    for m in rtrs_client rtrs_core; do mod_loaded $m && rmmod $m; done
    rm -rf "$tmp"
}
trap cleanup EXIT

tracefs() {
    tracing_begin || return 1
    [ -e $tracing/trace ]
}
check "tracefs at $tracing" tracefs || tap_skip_all "no tracefs"

# Linux's events: system/event, and their fields as Linux's headers declare
# them ("type name" as the format file prints them, common_* left out).
upstream_events="rtrs_clt/rtrs_clt_reconnect_work rtrs_clt/rtrs_clt_close_conns rtrs_clt/rtrs_rdma_error_recovery
rtrs_srv/send_io_resp_imm rnbd_srv/create_sess rnbd_srv/destroy_sess rnbd_srv/process_rdma
rnbd_srv/process_msg_sess_info rnbd_srv/process_msg_open rnbd_srv/process_msg_close"
clt_fields="int state;int reconnect_attempts;int max_reconnect_attempts;int fail_cnt;int success_cnt;char sessname[255];"
link_fields="int qdepth;__data_loc char[] sessname;"
expected_fields() { # system/event
    case $1 in
        rtrs_clt/*) echo "$clt_fields" ;;
        rtrs_srv/send_io_resp_imm)
            echo "u8 dir;bool need_inval;bool always_invalidate;u32 msg_id;int wr_cnt;u32 signal_interval;int state;int errno;char sessname[255];" ;;
        rnbd_srv/create_sess | rnbd_srv/destroy_sess) echo "$link_fields" ;;
        rnbd_srv/process_rdma)
            echo "__data_loc char[] sessname;u8 dir;u8 ver;u32 device_id;u64 sector;u32 flags;u32 bi_size;u16 ioprio;u32 datalen;size_t usrlen;" ;;
        rnbd_srv/process_msg_sess_info) echo "u8 proto_ver;u8 clt_ver;u8 srv_ver;__data_loc char[] sessname;" ;;
        rnbd_srv/process_msg_open) echo "u8 access_mode;__data_loc char[] sessname;__data_loc char[] dev_name;" ;;
        rnbd_srv/process_msg_close) echo "u32 device_id;__data_loc char[] sessname;" ;;
    esac
}
fields_of() { # system/event: its format file's own fields, "type name;" each
    awk -F'\t' '/^\tfield:/ { sub(/^field:/, "", $2); if ($2 !~ / common_/) printf "%s", $2 }' \
        $tracing/events/$1/format
}
format_of() { grep -v '^ID:' $tracing/events/$1/format; }

# 1. Linux's modules, when built: keep their format files.
have_upstream=0
snapshot_upstream() {
    local e
    modprobe rdma_cm || return 1
    insmod "$kodir/rtrs-core.ko" && insmod "$kodir/rtrs-server.ko" && insmod "$kodir/rnbd-server.ko" &&
        insmod "$kodir/rtrs-client.ko" || return 1
    for e in $upstream_events; do
        mkdir -p "$tmp/upstream/${e%/*}" && format_of "$e" > "$tmp/upstream/$e" || return 1
    done
    rmmod rtrs_client && rmmod rnbd_server && rmmod rtrs_server && rmmod rtrs_core
}
if [ -f "$kodir/rtrs-core.ko" ] && [ -f "$kodir/rnbd-server.ko" ]; then
    check "Linux's rtrs-server, rnbd-server and rtrs-client loaded, their event formats kept, unloaded" \
        snapshot_upstream && have_upstream=1
else
    skip "Linux's modules: formats to compare with" "no $kodir/rtrs-core.ko (tools/upstream/build.sh)"
fi

# 2. Ours.
load_ours() {
    rxe_setup 1 >/dev/null || return 1
    if mod_loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=16384 && rnbd_server_load ours && rnbd_client_load
}
check "setup: rxe, brd, our four modules" load_ours || tap_skip_all "setup failed"

for e in $upstream_events; do
    want=$(expected_fields "$e") got=$(fields_of "$e" 2>/dev/null)
    if [ "$got" = "$want" ]; then ok "$e: Linux's fields ($want)"
    else not_ok "$e: fields '$got', Linux's are '$want'"; fi
    if [ $have_upstream = 1 ]; then
        if format_of "$e" | cmp -s - "$tmp/upstream/$e"; then ok "$e: format file identical to Linux's"
        else
            not_ok "$e: format file differs from Linux's"
            format_of "$e" | diff "$tmp/upstream/$e" - | sed 's/^/#   /' | head -20
        fi
    fi
done
for e in map_device unmap_device dev_state_change; do
    check "rnbd_clt/$e exists" test -e $tracing/events/rnbd_clt/$e/format
done

# 3. The events of a map, IO, a path failure and an unmap.
events_enable 1
echo > $tracing/trace
addr=${RXE_ADDR[0]}
dev=
mapped() { dev=$(rnbd_map "sessname=tracing path=ip:$addr device_path=/dev/ram0") && [ -n "$dev" ]; }
check "map /dev/ram0 with every event enabled" mapped || tap_skip_all "map failed"
io() {
    dd if=/dev/urandom of="$tmp/data" bs=4k count=16 status=none &&
        dd if="$tmp/data" of="/dev/$dev" bs=4k count=16 oflag=direct status=none &&
        dd if="/dev/$dev" of="$tmp/back" bs=4k count=16 iflag=direct status=none && cmp "$tmp/data" "$tmp/back"
}
check "write and read back 64 KiB" io
in_trace() { grep -qE -- "$1" $tracing/trace; }
# (the events fire in kworkers and softirq: give them a moment)
reopened() { in_trace "dev_state_change: sess='tracing' path='/dev/ram0' dev='$dev' old=closed new=open"; }
path_failed() {
    echo 1 > $faults/fault_qp_error && wait_for 300 reopened
}
check "fault_qp_error: the path fails, reconnects, the device is re-opened" path_failed
check "IO after the reconnect" io
unmapped() { echo normal > "/sys/block/$dev/rnbd_client/unmap_device" && wait_for 100 in_trace ' destroy_sess: '; }
check "unmap (the session closes on both sides)" unmapped
events_enable 0
cp $tracing/trace "$tmp/trace"

# What each event printed, as Linux's TP_printk (or ours, rnbd_clt) formats it.
n='[0-9]+' num="'-?[0-9]+'"
expect() { # description event-regex
    if grep -qE -- "$2" "$tmp/trace"; then ok "trace: $1"
    else not_ok "trace: $1 (no line matches: $2)"; fi
}
expect "rnbd_clt:map_device" \
    "map_device: sess='tracing' path='/dev/ram0' dev='$dev' access_mode=rw nsectors=32768 err=0\$"
expect "rnbd_clt:dev_state_change init -> open" "dev_state_change: sess='tracing' path='/dev/ram0' dev='$dev' old=init new=open\$"
expect "rnbd_clt:dev_state_change open -> closed (path failed)" "dev_state_change: .* dev='$dev' old=open new=closed\$"
expect "rnbd_clt:dev_state_change closed -> open (re-opened)" "dev_state_change: .* dev='$dev' old=closed new=open\$"
expect "rnbd_clt:unmap_device" "unmap_device: sess='tracing' path='/dev/ram0' dev='$dev' force=0\$"
expect "rnbd_clt:dev_state_change -> unmapped" "dev_state_change: .* dev='$dev' old=open new=unmapped\$"
expect "rnbd_srv:create_sess" "create_sess: sessname: tracing qdepth: 128\$"
expect "rnbd_srv:process_msg_sess_info" "process_msg_sess_info: Session tracing using proto-ver 2 \\(clt-ver: 2, srv-ver: 2\\)\$"
expect "rnbd_srv:process_msg_open" \
    "process_msg_open: Open message received: session='tracing' path='/dev/ram0' access_mode=RW\$"
expect "rnbd_srv:process_rdma (a 4 KiB WRITE)" \
    "process_rdma: I/O req: sess: tracing, type: WRITE, ver: 2, devid: $n, sector: $n, bsize: 4096, flags: [A-Z|]*WRITE[A-Z|]*, ioprio: $n, datalen: 4096, usrlen: 32\$"
expect "rnbd_srv:process_rdma (a 4 KiB READ)" \
    "process_rdma: I/O req: sess: tracing, type: READ, ver: 2, devid: $n, sector: $n, bsize: 4096, flags: [A-Z|]*, ioprio: $n, datalen: 4096, usrlen: 32\$"
expect "rnbd_srv:process_msg_close" "process_msg_close: Close message received: session='tracing' device id='$n'\$"
expect "rnbd_srv:destroy_sess" "destroy_sess: sessname: tracing qdepth: 128\$"
path_name="ip:$addr@ip:$addr"
# sig-interval: an IO connection signals one answer in its queue depth (128
# here), at most one in 32 (rtrs/core/rtrs-signal.hpp).
expect "rtrs_srv:send_io_resp_imm (a WRITE's answer)" \
    "send_io_resp_imm: sess='$path_name' state='CONNECTED' dir=WRITE err='0' inval='0' glob-inval='[01]' msgid='$n' wrcnt='0' sig-interval='32'\$"
expect "rtrs_clt:rtrs_rdma_error_recovery" \
    "rtrs_rdma_error_recovery: RTRS-CLT: sess='$path_name' state=CONNECTED attempts=$num max-attempts=$num fail=$num success=$num\$"
recoveries=$(grep -c 'rtrs_rdma_error_recovery: ' "$tmp/trace")
check "rtrs_clt:rtrs_rdma_error_recovery once per failure (give or take a racing CPU): $recoveries" \
    test "$recoveries" -ge 1 -a "$recoveries" -le $(($(nproc) + 1))
expect "rtrs_clt:rtrs_clt_reconnect_work" \
    "rtrs_clt_reconnect_work: RTRS-CLT: sess='$path_name' state=RECONNECTING attempts=$num max-attempts=$num fail=$num success=$num\$"
expect "rtrs_clt:rtrs_clt_close_conns" \
    "rtrs_clt_close_conns: RTRS-CLT: sess='$path_name' state=CONNECTED attempts='0' max-attempts=$num fail=$num success=$num\$"
diag "events traced: $(sed -nE 's/^.*[0-9]+\.[0-9]+: ([a-z_]+):.*$/\1/p' "$tmp/trace" | sort | uniq -c | tr -s ' \n' ' ')"
tap_done; exit $?
