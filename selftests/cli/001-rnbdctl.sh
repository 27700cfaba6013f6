#!/usr/bin/env bash
# rnbdctl (tools/rnbdctl, `make rnbdctl`) against the real modules: our
# whole stack over two Soft-RoCE loopback paths, a 64 MiB RAM disk.
#   - a bad option is refused with the module's message before any write
#     (the kernel logs nothing); map -o json parsed with jq and checked
#     against sysfs and the block device; EEXIST and ENOENT named;
#   - list/show (table and JSON), resize with units (beyond the server's
#     size: EINVAL), remap of an open device (EALREADY);
#   - path add/disconnect/reconnect/remove and session set, checked in sysfs;
#   - ext4 on the device: unmap while mounted is EBUSY (exit 1, message);
#     save -> umount -> unmap --all -> restore brings the mapping back with
#     the filesystem intact; restore again changes nothing;
#   - server list (exports, sessions), server close, and
#     stats -o prometheus whose every line has the text format's syntax.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
require_rnbdctl
tmp=$(mktemp -d /tmp/rnbdctl.XXXXXX)
cleanup() {
    umount "$tmp/mnt" 2>/dev/null
    rnbd_stack_teardown
    mod_loaded brd && rmmod brd
    rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
    rxe_setup 2 >/dev/null || return 1
    if mod_loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=65536 || return 1
    rnbd_server_load ours && rnbd_client_load
}
check "setup: two rxe paths, a 64 MiB brd, our four modules" setup
a0=${RXE_ADDR[0]} a1=${RXE_ADDR[1]}
mkdir -p "$tmp/mnt"

# run NAME CMD...: CMD's stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, exit code in $rc
run() { local name=$1; shift; "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"; rc=$?; }
err_is() { # NAME CODE TEXT: exit code CODE and TEXT in stderr
    [ "$rc" = "$2" ] && grep -qF -- "$3" "$tmp/$1.err" && return 0
    diag "exit $rc, stderr: $(cat "$tmp/$1.err")"; return 1
}
jq_ok() { jq -e "$2" "$tmp/$1.out" >/dev/null || { diag "jq '$2' failed on: $(cat "$tmp/$1.out")"; return 1; }; }

# --- map ---------------------------------------------------------------------------------
logged_before=$(dmesg | grep -c 'map_device: invalid input')
run bad "$ctl" map --session cli --path "ip:$a0" --device-path /dev/ram0 --access-mode rx
check "map --access-mode rx: exit 2 with the module's message" \
    err_is bad 2 "rnbdctl: map: invalid input: access_mode must be ro, rw or migration (at 'rx')"
check "... and nothing reached the kernel (no log line, no device)" \
    test "$(dmesg | grep -c 'map_device: invalid input')/$(ls /sys/block | grep -c '^rnbd')" = "$logged_before/0"

run map "$ctl" -o json map --session cli --path "ip:$a0" --device-path /dev/ram0
check "map -o json: exit 0" test "$rc" = 0
check "map JSON: version 1, the device open, its session and path" \
    jq_ok map '.version == 1 and .device.session == "cli" and .device.device_path == "/dev/ram0"
               and .device.state == "open" and .device.access_mode == "rw" and (.device.name | test("^rnbd[0-9]+$"))'
dev=$(jq -r .device.dev "$tmp/map.out")
name=$(basename "$dev")
check "map JSON: $dev is a block device of the RAM disk's size" \
    test -b "$dev" -a "$(jq -r .device.size_bytes "$tmp/map.out")" = "$(blockdev --getsize64 "$dev")" \
    -a "$(blockdev --getsize64 "$dev")" = 67108864
check "the sysfs link names the same device" \
    test "$(basename "$(readlink "/sys/class/rnbd-client/ctl/devices/!dev!ram0@cli")")" = "$name"
run again "$ctl" map --session cli --path "ip:$a0" --device-path /dev/ram0
check "map the same again: exit 1, EEXIST named with the existing device" \
    err_is again 1 "File exists (EEXIST): the device is already mapped in that session as $dev"
run missing "$ctl" map --session cli --device-path /dev/no-such-disk
check "map a device the server does not have: exit 1, ENOENT" \
    err_is missing 1 "No such file or directory (ENOENT): no such device on the server"

# --- list / show ----------------------------------------------------------------------------
run list "$ctl" list
check "list: a table row for $dev (size in binary units)" grep -qE "^$dev +cli +/dev/ram0 +rw +blockio +open +64\.0 MiB$" "$tmp/list.out"
run listj "$ctl" list -o json
check "list -o json: one device, $name" jq_ok listj ".devices | length == 1 and .[0].name == \"$name\""
run sess "$ctl" -o json list sessions
policy=$(cut -d' ' -f1 /sys/class/rtrs-client/cli/mpath_policy)
check "list sessions: cli, its policy ($policy), one connected path to $a0, device $name" \
    jq_ok sess ".sessions[0].name == \"cli\" and .sessions[0].mpath_policy == \"$policy\"
                and .sessions[0].connected_paths == 1 and .sessions[0].paths[0].dst_addr == \"ip:$a0\"
                and .sessions[0].paths[0].state == \"connected\" and .sessions[0].devices == [\"$name\"]"
run show "$ctl" -o json show "$dev"
check "show $dev: device and session, path stats with a latency histogram of 18 buckets" \
    jq_ok show ".device.name == \"$name\" and .session.name == \"cli\"
                and (.session.paths[0].stats.latency.buckets | length) == 18"
run nodev "$ctl" show rnbd99
check "show rnbd99: exit 3, no such device" err_is nodev 3 "rnbdctl: show rnbd99: no such rnbd device"

# --- resize / remap ---------------------------------------------------------------------------
run resize "$ctl" resize "$dev" 32M
check "resize 32M: the disk is 32 MiB" test "$rc/$(blockdev --getsize64 "$dev")" = "0/33554432"
run big "$ctl" resize "$dev" 1G
check "resize 1G (beyond the server's 64 MiB): exit 1, EINVAL" err_is big 1 "Invalid argument (EINVAL)"
run back "$ctl" resize "$dev" 131072s
check "resize 131072s: back to 64 MiB" test "$rc/$(blockdev --getsize64 "$dev")" = "0/67108864"
run remap "$ctl" remap "$dev"
check "remap an open device: exit 1, EALREADY" err_is remap 1 "(EALREADY): the device is open already"

# --- paths and session settings --------------------------------------------------------------
run badpath "$ctl" path add cli ip:300.1.1.1
check "path add ip:300.1.1.1: exit 2 with add_path's message" err_is badpath 2 "add_path: expected"
run add "$ctl" path add cli "ip:$a1"
check "path add ip:$a1: prints the new path" test "$rc/$(cat "$tmp/add.out")" = "0/ip:$a1@ip:$a1"
p1=/sys/class/rtrs-client/cli/paths/ip:$a1@ip:$a1
check "... which is connected in sysfs" test "$(cat "$p1/state")" = connected
run disc "$ctl" path disconnect cli "ip:$a1"
check "path disconnect: the path is disconnected" test "$rc/$(cat "$p1/state")" = 0/disconnected
run reco "$ctl" path reconnect cli "ip:$a1@ip:$a1"
check "path reconnect: connected again" test "$rc/$(cat "$p1/state")" = 0/connected
run plist "$ctl" -o json path list cli
check "path list: two paths, both connected" jq_ok plist '[.paths[].path.state] == ["connected", "connected"]'
run rm "$ctl" path remove cli "ip:$a1"
check "path remove: the directory is gone" test "$rc" = 0 -a ! -e "$p1"
run nopath "$ctl" path remove cli "ip:$a1"
check "path remove of a removed path: exit 3" err_is nopath 3 "no such path in session cli"
run set "$ctl" session set cli --mpath-policy round-robin --max-reconnect-attempts 50
check "session set: policy and attempts in sysfs" \
    test "$rc/$(cut -d' ' -f1 /sys/class/rtrs-client/cli/mpath_policy)/$(cat /sys/class/rtrs-client/cli/max_reconnect_attempts)" = \
    "0/round-robin/50"
run badset "$ctl" session set cli --mpath-policy fastest
check "session set --mpath-policy fastest: exit 2, unchanged" \
    err_is badset 2 "mpath_policy: expected 0, 1, 2 or a policy name"

# --- a filesystem: EBUSY, save, unmap --all, restore ----------------------------------------
fs() {
    mkfs.ext4 -q -F "$dev" && mount "$dev" "$tmp/mnt" && dd if=/dev/urandom of="$tmp/mnt/data" bs=1M count=8 status=none &&
        sync && md5sum < "$tmp/mnt/data" > "$tmp/sum"
}
check "ext4 on $dev, 8 MiB of random data written" fs
run busy "$ctl" unmap "$dev"
check "unmap while mounted: exit 1, 'rnbdctl: unmap $name: Device or resource busy (EBUSY): device is open ...'" \
    err_is busy 1 "rnbdctl: unmap $name: Device or resource busy (EBUSY): device is open (use --force"
check "... and the device is still there" test -b "$dev"
run save "$ctl" save --file "$tmp/rnbdtab"
check "save: one mapping written" test "$rc/$(cat "$tmp/save.out")" = "0/1 mapping saved to $tmp/rnbdtab"
check "the rnbdtab line has the session, path, device, policy and attempts" \
    grep -qx "sessname=cli path=ip:$a0 device_path=/dev/ram0 access_mode=rw io_hold_timeout_ms=60000 mpath_policy=round-robin max_reconnect_attempts=50" \
    "$tmp/rnbdtab"
check "umount" umount "$tmp/mnt"
run all "$ctl" unmap --all
check "unmap --all: no rnbd device left" test "$rc/$(ls /sys/block | grep -c '^rnbd')" = 0/0
# The session goes with its last device; restore must bring both back.
wait_for 50 test ! -e /sys/class/rtrs-client/cli
run restore "$ctl" -o json restore --file "$tmp/rnbdtab"
check "restore: exit 0, the mapping 'mapped'" jq_ok restore '.mappings | length == 1 and .[0].result == "mapped"'
dev=/dev/$(jq -r '.mappings[0].device' "$tmp/restore.out")
name=$(basename "$dev")
check "restore: $dev is /dev/ram0 of session cli again" \
    test "$(cat "/sys/block/$name/rnbd_client/session") $(cat "/sys/block/$name/rnbd_client/mapping_path")" = "cli /dev/ram0"
check "restore: the session settings are back" \
    test "$(cut -d' ' -f1 /sys/class/rtrs-client/cli/mpath_policy)/$(cat /sys/class/rtrs-client/cli/max_reconnect_attempts)" = \
    "round-robin/50"
intact() { wait_for 50 test -b "$dev" && mount "$dev" "$tmp/mnt" && md5sum < "$tmp/mnt/data" | cmp -s - "$tmp/sum"; }
check "the filesystem is intact: mounted, the file's checksum matches" intact
run again "$ctl" -o json restore --file "$tmp/rnbdtab"
check "restore again: 'present', no new device" \
    jq_ok again ".mappings[0].result == \"present\" and .mappings[0].device == \"$name\""
check "... still one rnbd device" test "$(ls /sys/block | grep -c '^rnbd')" = 1

# --- IO statistics, server side, metrics ---------------------------------------------------
dd if="$dev" of=/dev/null bs=1M count=4 iflag=direct status=none
run srv "$ctl" -o json server list
check "server list: ram0 exported to session cli, rw" \
    jq_ok srv '.devices[] | select(.name == "ram0") | .block_dev == "ram0" and .sessions[0].session == "cli"
              and .sessions[0].access_mode == "rw" and .sessions[0].read_only == false'
run srvs "$ctl" -o json server list sessions
check "server list sessions: cli with one path and ram0 open, reads counted" \
    jq_ok srvs '.sessions[] | select(.name == "cli") | (.paths | length) == 1 and .devices == ["ram0"]
               and .paths[0].stats.read_requests > 0'
run prom "$ctl" stats -o prometheus
check "stats -o prometheus: exit 0" test "$rc" = 0
prom_syntax() { # every line a HELP/TYPE comment or name{labels} value
    awk '
        /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* / { next }
        /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? ([-+]?[0-9.eE+-]+|\+Inf|-Inf|NaN)$/ { n++; next }
        { print "bad line " NR ": " $0; bad = 1 }
        END { if (n == 0) { print "no samples"; bad = 1 }; exit bad }' "$tmp/prom.out"
}
check "stats -o prometheus: every line has the text format's syntax" prom_syntax
has() { grep -qE "$1" "$tmp/prom.out" || { diag "no line matching $1"; return 1; }; }
check "metrics: the device's info and open state" \
    bash -c "grep -q '^rnbd_client_device_info{device=\"$name\",session=\"cli\",device_path=\"/dev/ram0\",access_mode=\"rw\",io_mode=\"blockio\"} 1$' '$tmp/prom.out' &&
             grep -q '^rnbd_client_device_open{device=\"$name\"} 1$' '$tmp/prom.out'"
check "metrics: the path up, bytes read, a heartbeat RTT" \
    bash -c "grep -q '^rnbd_client_path_up{session=\"cli\",path=\"ip:$a0@ip:$a0\".*} 1$' '$tmp/prom.out' &&
             grep -qE '^rnbd_client_path_read_bytes_total\{session=\"cli\",path=\"ip:$a0@ip:$a0\"\} [1-9][0-9]*$' '$tmp/prom.out' &&
             grep -qE '^rnbd_client_path_heartbeat_rtt_seconds\{session=\"cli\",' '$tmp/prom.out'"
check "metrics: the latency histogram's +Inf bucket equals its count, reads counted" \
    bash -c "inf=\$(grep 'request_latency_seconds_bucket{session=\"cli\",.*op=\"read\",le=\"+Inf\"}' '$tmp/prom.out' | awk '{print \$2}');
             cnt=\$(grep 'request_latency_seconds_count{session=\"cli\",.*op=\"read\"}' '$tmp/prom.out' | awk '{print \$2}');
             [ -n \"\$inf\" ] && [ \"\$inf\" = \"\$cnt\" ] && [ \"\$inf\" -gt 0 ]"
check "metrics: the server's export mapping and path counters" \
    bash -c "grep -q '^rnbd_server_export_mapping_info{export=\"ram0\",session=\"cli\",access_mode=\"rw\",read_only=\"0\"} 1$' '$tmp/prom.out' &&
             grep -qE '^rnbd_server_path_read_requests_total\{session=\"cli\",.*\} [1-9]' '$tmp/prom.out'"

check "umount" umount "$tmp/mnt"
run noexp "$ctl" server close ram7 cli
check "server close of an unknown export: exit 3" err_is noexp 3 "no such export"
run close "$ctl" server close ram0 cli
check "server close ram0 cli: exit 0" test "$rc" = 0
gone() { "$ctl" -o json server list | jq -e '[.devices[] | select(.name == "ram0")] | length == 0' >/dev/null; }
check "... the server no longer has ram0 open for cli" wait_for 50 gone
run fin "$ctl" unmap --force --all
check "unmap --force --all: exit 0, nothing left" test "$rc/$(ls /sys/block | grep -c '^rnbd')" = 0/0
run none "$ctl" unmap rnbd0
check "unmap rnbd0 when none is mapped: exit 3" err_is none 3 "no such rnbd device"
tap_done; exit $?
