#!/usr/bin/env bash
# The session name limit (Documentation/sysfs.md, "Where the seeds and
# upstream 6.1 differ"): 254 bytes, the most the 255-byte INFO_REQ field
# carries to a Linux server intact. The longest name is taken and arrives
# whole on the server, one byte more is refused and leaves nothing behind:
# - through rtrs-client's API (rtrs-clt-selftest session=): 254 bytes open
#   a session whose client and server sysfs directories carry the whole
#   name; 255 bytes fail rtrs_client_open() with ENAMETOOLONG;
# - through rnbd-client's map_device: sessname= of 254 bytes maps (the
#   device's session file and the server's sessions/ directory show the
#   whole name), 255 bytes fail with EINVAL.
# TAP output; root, in the VM.
name254=$(printf 's%.0s' $(seq 254))
name255=${name254}t
# shellcheck source=selftests/rtrs/004-multipath-policies.sh
CLT_SESSION=$name254 RTRS_CLT_LIB_ONLY=1 . "$(dirname "$0")/004-multipath-policies.sh"
for f in "$clt_kodir/rnbd/rnbd-client.ko" "$clt_kodir/rnbd/rnbd-server.ko"; do
    [ -f "$f" ] || tap_skip_all "$f not built (make)"
done
CLT_SESSION=$name254 clt_setup 1 1 N
cleanup() {
    local d
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d"; done 2>/dev/null
    for m in rnbd_client rnbd_server; do clt_loaded $m && rmmod $m; done
    clt_loaded brd && rmmod brd
    clt_cleanup
}
trap cleanup EXIT
a0=${RXE_ADDR[0]}

# --- rtrs-client's API ------------------------------------------------------------------
check "a 254-byte name is ${#name254} bytes" test ${#name254} = 254
check "the 254-byte session's client directory carries the whole name" test -d "$clt_sess_dir"
check "the server's directory carries the whole name (it crossed the wire intact)" \
    test -d "/sys/class/rtrs-server/$name254"
cat $clt_checkfile > /tmp/name-io
check "verified IO on the session" clt_io_clean /tmp/name-io
check "rmmod rtrs-clt-selftest (closes the session)" rmmod rtrs_clt_selftest
mark="name255-$$"
echo "$mark" > /dev/kmsg
check "a 255-byte session name is refused at rtrs_client_open()" bash -c \
    "! insmod $clt_kodir/rtrs/tests/kmod/rtrs-clt-selftest.ko paths=ip:$a0 session=$name255 keep_open=1 2>/dev/null"
check "... with ENAMETOOLONG (-36)" bash -c "dmesg | sed -n '/$mark/,\$p' | grep -m1 'rtrs_client_open: -36'"
no_sessions() { # no session directory on either side (the server's goes once it saw the close)
    local t=100
    while [ -n "$(ls /sys/class/rtrs-server)" ] && [ $t -gt 0 ]; do sleep 0.1; t=$((t - 1)); done
    [ -z "$(ls /sys/class/rtrs-client)" ] && [ -z "$(ls /sys/class/rtrs-server)" ]
}
check "... and leaves no directory on either side" no_sessions

# --- rnbd-client's map_device -------------------------------------------------------------
# rnbd-server on a port of its own: rtrs-srv-selftest keeps 1234.
setup_rnbd() {
    modprobe brd rd_nr=1 rd_size=16384 &&
        insmod "$clt_kodir/rnbd/rnbd-server.ko" port_nr=1235 && insmod "$clt_kodir/rnbd/rnbd-client.ko"
}
check "brd, rnbd-server (port 1235), rnbd-client" setup_rnbd
map() { echo "sessname=$1 path=ip:$a0 device_path=/dev/ram0 dest_port=1235" > /sys/kernel/rnbd_client/map_device; }
check "map_device with a 254-byte sessname maps" map "$name254"
mapped_whole() {
    local s
    s=$(cat /sys/block/rnbd0/rnbd_client/session) || return 1
    echo "session file: ${#s} bytes"
    [ "$s" = "$name254" ] && ls -d /sys/class/rnbd-server/ctl/devices/*/sessions/"$name254"
}
check "the device's session file and the server's sessions/ directory show the whole name" mapped_whole
check "IO on the mapping" dd if=/dev/rnbd0 of=/dev/null bs=64k count=16 iflag=direct status=none
check "unmap" bash -c "echo normal > /sys/block/rnbd0/rnbd_client/unmap_device"
refused255() {
    local err
    if err=$( { map "$name255"; } 2>&1 ); then echo "map_device took a 255-byte sessname"; return 1; fi
    echo "$err"; grep -q "Invalid argument" <<<"$err"
}
check "map_device with a 255-byte sessname fails with EINVAL" refused255
check "... and leaves no device and no session behind" bash -c \
    "! ls /sys/block | grep -q rnbd && [ ! -e /sys/class/rtrs-client/$name255 ]"

check "rmmod rnbd-client, rnbd-server, brd" bash -c "rmmod rnbd_client && rmmod rnbd_server && rmmod brd"
check "rmmod rtrs-client" rmmod rtrs_client
if clt_log | grep -q "cxxrt: leak"; then not_ok "no leak reported at module exit"; else ok "no leak reported at module exit"; fi
trap - EXIT
clt_cleanup
tap_done; exit $?
