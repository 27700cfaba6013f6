#!/usr/bin/env bash
# rnbdctl's error paths against the real modules, for every command and
# subcommand (the table is tools/rnbdctl/tests/COVERAGE.md; 001 has the
# main successes). Our stack over one Soft-RoCE loopback path, the server
# exporting a 16 MiB image file.
#   - before any module is loaded: each command that needs one exits 4
#     naming it, the list commands included (stats reports 0 for each);
#   - a bad option or argument: exit 2, the message and the hint, nothing
#     on stdout, nothing changed in the kernel (devices, session settings,
#     paths, size, state, server mappings, kernel log);
#   - an unknown device, session, path, export or file: exit 3;
#   - the kernel's errnos through rnbdctl: path add of an existing path
#     (EEXIST); unmap of a device a process holds open (EBUSY, also in JSON
#     and with --all); resize of a closed device (ENODEV); remap refused by
#     the server (the file gone), then remap re-opening it;
#   - the successes 001 leaves out: --version, --help, session list/show,
#     list sessions, show and server list as tables, path list of all
#     sessions, stats as a table and JSON, server path disconnect (the
#     client sees the path go down; path reconnect brings it back).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
require_rnbdctl
tmp=$(mktemp -d /tmp/rnbdctl-errors.XXXXXX)
cleanup() {
    exec 3<&- 2>/dev/null
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT

# run CMD...: rnbdctl's stdout in $tmp/out, stderr in $tmp/err, exit code in $rc
run() { "$ctl" "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; }
shown() { diag "exit $rc, stderr: $(cat "$tmp/err"), stdout: $(head -c 400 "$tmp/out")"; return 1; }
# fails CODE TEXT ARGS...: exit CODE, TEXT the first line of stderr, stdout empty
fails() {
    local code=$1 text=$2; shift 2
    run "$@"
    [ "$rc" = "$code" ] && [ "$(head -n 1 "$tmp/err")" = "$text" ] && [ ! -s "$tmp/out" ] || shown
}
# usage TEXT ARGS...: exit 2 with "rnbdctl: TEXT" and the hint to --help
usage() {
    local text=$1; shift
    fails 2 "rnbdctl: $text" "$@" && [ "$(sed -n 2p "$tmp/err")" = "Try 'rnbdctl --help'." ] || shown
}
# prints ARGS...: exit 0, nothing on stderr
prints() { run "$@"; [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] || shown; }
jq_ok() { jq -e "$1" "$tmp/out" >/dev/null || { diag "jq '$1' failed on: $(head -c 600 "$tmp/out")"; return 1; }; }

# --- nothing loaded: exit 4 -------------------------------------------------------------------
# A module left loaded (an earlier script's teardown failed) fails here, by name.
left=
for m in rnbd_client rnbd_server rtrs_client rtrs_server; do mod_loaded $m && left="$left $m"; done
if [ -n "$left" ]; then not_ok "no rnbd/rtrs module loaded at the start: still loaded:$left"; tap_skip_all "modules loaded"; fi
no_dev="no such rnbd device (rnbd-client is not loaded)"
no_sess="no such session (rtrs-client is not loaded)"
echo "sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0" > "$tmp/one.rnbdtab"
check "not loaded: map: exit 4" fails 4 "rnbdctl: map: rnbd-client is not loaded (no /sys/kernel/rnbd_client/map_device)" \
    map --session s1 --path ip:192.0.2.1 --device-path /dev/ram0
for cmd in "unmap rnbd0" "resize rnbd0 1M" "remap rnbd0" "show rnbd0"; do
    # shellcheck disable=SC2086
    check "not loaded: $cmd: exit 4" fails 4 "rnbdctl: ${cmd% 1M}: $no_dev" $cmd
done
for cmd in "session show s1" "path list s1" "path add s1 ip:192.0.2.7" "path remove s1 ip:192.0.2.1" \
    "path reconnect s1 ip:192.0.2.1" "path disconnect s1 ip:192.0.2.1"; do
    # shellcheck disable=SC2086
    check "not loaded: $cmd: exit 4" fails 4 "rnbdctl: $cmd: $no_sess" $cmd
done
check "not loaded: session set: exit 4" fails 4 "rnbdctl: session set s1: $no_sess" session set s1 --mpath-policy rr
check "not loaded: server close: exit 4" \
    fails 4 "rnbdctl: server close ram0 s1: rnbd-server is not loaded (no /sys/class/rnbd-server/ctl/devices)" \
    server close ram0 s1
check "not loaded: server path disconnect: exit 4" \
    fails 4 "rnbdctl: server path disconnect s1 ip:192.0.2.1: rtrs-server is not loaded" \
    server path disconnect s1 ip:192.0.2.1
check "not loaded: save: exit 4, no file written" bash -c "
    '$ctl' save --file '$tmp/none.rnbdtab' 2>&1 | grep -qF 'rnbd-client is not loaded; nothing to save'
    [ \${PIPESTATUS[0]} = 4 ] && [ ! -e '$tmp/none.rnbdtab' ]"
check "not loaded: restore: exit 4" fails 4 "rnbdctl: restore: rnbd-client is not loaded (no /sys/kernel/rnbd_client/map_device)" \
    restore --file "$tmp/one.rnbdtab"
# The lists too (issue 27): exit 4 and one line, with -o json no document.
no_client_module="rnbd-client is not loaded (no /sys/kernel/rnbd_client/map_device)"
no_rtrs_module="rtrs-client is not loaded (no /sys/class/rtrs-client)"
for args in "list:list:$no_client_module" "list sessions:list sessions:$no_rtrs_module" \
    "session list:session list:$no_rtrs_module" "path list:path list:$no_rtrs_module" \
    "server list:server list:rnbd-server is not loaded (no /sys/class/rnbd-server/ctl/devices)" \
    "server list sessions:server list sessions:rtrs-server is not loaded (no /sys/class/rtrs-server)"; do
    cmd=${args%%:*}; rest=${args#*:}; what=${rest%%:*}; text=${rest#*:}
    # shellcheck disable=SC2086
    check "not loaded: -o json $cmd: exit 4, no document" fails 4 "rnbdctl: $what: $text" -o json $cmd
done
check "not loaded: stats -o prometheus: exit 0, rnbd_client_module_loaded 0" \
    bash -c "'$ctl' stats -o prometheus | grep -qx 'rnbd_client_module_loaded 0'"

# --- setup ------------------------------------------------------------------------------------
img=$tmp/export/disk.img
setup() {
    rxe_setup 1 >/dev/null || return 1
    mkdir -p "$tmp/export" && truncate -s 16M "$img" || return 1
    rnbd_server_load ours "file_export_dir=$tmp/export" && rnbd_client_load
}
check "setup: one rxe path, a 16 MiB image file, our four modules" setup
a0=${RXE_ADDR[0]}
run -o json map --session err --path "ip:$a0" --device-path "$img"
check "map the image file: exit 0" test "$rc" = 0
name=$(jq -r .device.name "$tmp/out")
dev=/dev/$name
sdir=/sys/class/rtrs-client/err
pdir=$sdir/paths/ip:$a0@ip:$a0
check "$dev is a block device of 16 MiB" wait_for 50 test -b "$dev" -a "$(cat "/sys/block/$name/size")" = 32768
export_name=$("$ctl" -o json server list | jq -r '.devices[0].name')
check "server list names the export ($export_name)" test -n "$export_name" -a "$export_name" != null

# --- usage errors: exit 2, nothing changed ---------------------------------------------------
snapshot() {
    ls /sys/block | grep '^rnbd'
    cat "$sdir/mpath_policy" "$sdir/max_reconnect_attempts" "$sdir/io_hold_timeout_ms"
    ls "$sdir/paths" /sys/class/rnbd-server/ctl/devices/*/sessions
    cat "/sys/block/$name/size" "/sys/block/$name/rnbd_client/state"
    dmesg | grep -c 'invalid input'
}
before=$(snapshot)
u() { local text=$1; shift; check "rnbdctl $*: exit 2, '$text'" usage "$text" "$@"; }
u "frob: unknown command" frob
u "-o: must be table, json or prometheus, not 'xml'" -o xml list
u "--output: must be table, json or prometheus, not 'yaml'" --output=yaml list
u "-o: needs a value" list -o
u "--sysfs-root: needs a value" list --sysfs-root
u "list: -o prometheus is for the stats command only" -o prometheus list
u "map: unknown option --frob" map --frob
u "map: --session given twice" map --session err --session other
u "map: invalid input: access_mode must be ro, rw or migration (at 'rx')" \
    map --session err --path "ip:$a0" --device-path "$img" --access-mode rx
u "map: invalid input: empty input (at '')" map
u "unmap: unknown option --frob" unmap --frob "$name"
u "unmap: give one device, or --all" unmap
u "unmap: give one device, or --all" unmap --all "$name"
u "unmap: --force takes no value" unmap --force=yes "$name"
u "resize: unknown option --frob" resize --frob "$name" 1M
u "resize: give a device and a size" resize "$name"
u "resize: size must not be 0: '0'" resize "$name" 0
u "resize: size must be <number>[s|K|M|G|T] (sectors of 512 bytes, or bytes in powers of 1024): '1X'" \
    resize "$name" 1X
u "remap: unknown option --frob" remap --frob "$name"
u "remap: give one device" remap
u "list: unknown option --frob" list --frob
u "list: list [devices|sessions]" list things
u "show: unknown option --frob" show --frob "$name"
u "show: give one device" show
u "session: session list|show|set" session
u "session: unknown command 'frob'; session list|show|set" session frob
u "session list: unknown option --frob" session list --frob
u "session list: takes no argument" session list err
u "session show: unknown option --frob" session show --frob err
u "session show: give one session" session show
u "session set: unknown option --frob" session set err --frob 1
u "session set: give one session" session set --mpath-policy rr
u "session set: give --mpath-policy, --max-reconnect-attempts or --io-hold-timeout-ms" session set err
u "session set: mpath_policy: expected 0, 1, 2 or a policy name (at 'fastest')" \
    session set err --max-reconnect-attempts 7 --mpath-policy fastest
u "session set: io_hold_timeout_ms: expected 0 .. 3600000 (milliseconds) (at '3600001')" \
    session set err --io-hold-timeout-ms 3600001
u "path: path list|add|remove|reconnect|disconnect" path
u "path: unknown command 'frob'; path list|add|remove|reconnect|disconnect" path frob
u "path list: unknown option --frob" path list --frob
u "path list: path list [SESSION]" path list err other
u "path add: unknown option --frob" path add --frob err "ip:$a0"
u "path add: give a session and [<src>@]<dst>" path add err
u "path add err ip:300.1.1.1: add_path: expected [<src>@]<dst> or [<src>,]<dst> with ip:<ipv4|ipv6> or gid:<gid> addresses" \
    path add err ip:300.1.1.1
for action in remove reconnect disconnect; do
    u "path $action: unknown option --frob" path $action --frob err "ip:$a0"
    u "path $action: give a session and a path" path $action err
done
u "server: server list|close|path|export|session|save|restore" server
u "server: unknown command 'frob'; server list|close|path|export|session|save|restore" server frob
u "server list: unknown option --frob" server list --frob
u "server list: server list [devices|sessions]" server list things
u "server close: unknown option --frob" server close --frob "$export_name" err
u "server close: give an export and a session" server close "$export_name"
u "server path: server path disconnect SESSION PATH" server path
u "server path: server path disconnect SESSION PATH" server path frob err "ip:$a0"
u "server path disconnect: unknown option --frob" server path disconnect --frob err "ip:$a0"
u "server path disconnect: give a session and a path" server path disconnect err
u "save: unknown option --frob" save --frob
u "save: save [--file FILE] [--force]" save "$tmp/rnbdtab"
u "restore: unknown option --frob" restore --frob
u "restore: restore [--file FILE] [--check | --dry-run] [--timeout SECONDS]" restore "$tmp/rnbdtab"
u "stats: unknown option --frob" stats --frob
printf '%s\n' "# a bad line: nothing is mapped" "sessname=err device_path=$img" \
    "sessname=err device_path=$tmp/export/other.img access_mode=wr" > "$tmp/bad.rnbdtab"
u "restore: $tmp/bad.rnbdtab:3: invalid input: access_mode must be ro, rw or migration (at 'wr')" \
    restore --file "$tmp/bad.rnbdtab"
u "stats: stats [-o table|json|prometheus] [--file FILE]" stats paths
unchanged() {
    local after; after=$(snapshot)
    [ "$after" = "$before" ] || { diag "before: $before"; diag "after: $after"; return 1; }
}
check "after the usage errors: devices, session settings, paths, size, state, server mappings and the kernel log unchanged" \
    unchanged
check "... and no file written" test ! -e "$tmp/rnbdtab"

# --- unknown device, session, path, export or file: exit 3 -----------------------------------
n() { local text=$1; shift; check "rnbdctl $*: exit 3, '$text'" fails 3 "rnbdctl: $text" "$@"; }
n "unmap rnbd99: no such rnbd device" unmap rnbd99
n "unmap /dev/null: no such rnbd device" unmap --force /dev/null
n "resize rnbd99: no such rnbd device" resize rnbd99 1M
n "remap rnbd99: no such rnbd device" remap rnbd99
n "show /dev/rnbd99: no such rnbd device" show /dev/rnbd99
n "session show nosuch: no such session" session show nosuch
n "session set nosuch: no such session" session set nosuch --mpath-policy rr
n "path list nosuch: no such session" path list nosuch
n "path add nosuch ip:$a0: no such session" path add nosuch "ip:$a0"
for action in remove reconnect disconnect; do
    n "path $action nosuch ip:$a0: no such session" path $action nosuch "ip:$a0"
    n "path $action err ip:203.0.113.1: no such path in session err" path $action err ip:203.0.113.1
done
n "server close ram77 err: no such export" server close ram77 err
n "server close $export_name nosuch: the session has no mapping of this export" server close "$export_name" nosuch
n "server path disconnect nosuch ip:$a0: no such session or path" server path disconnect nosuch "ip:$a0"
n "server path disconnect err ip:203.0.113.1: no such session or path" server path disconnect err ip:203.0.113.1
n "restore $tmp/missing: No such file or directory (ENOENT)" restore --file "$tmp/missing"
check "after the unknown objects: nothing changed" unchanged

# --- successes 001 leaves out ------------------------------------------------------------------
check "--version" bash -c "[ \"\$('$ctl' --version)\" = 'rnbdctl 0.1 (RNBD/RTRS in C++), JSON version 1' ]"
check "map --device-path help: a value, not --help (the kernel refuses the map, exit 1)" \
    bash -c "'$ctl' map --session err --path ip:$a0 --device-path help >/dev/null 2>&1; [ \$? = 1 ]"
check "--help: the usage on stdout, exit 0" bash -c "'$ctl' list --help | grep -q '^Usage: rnbdctl'"
check "session list: a row for err" prints session list
check "... whose first column is err" grep -q '^err ' "$tmp/out"
check "session list -o json: err" bash -c "'$ctl' -o json session list | jq -e '.sessions[0].name == \"err\"' >/dev/null"
check "session show err: its policy" prints session show err
check "... in the text" grep -q '^mpath_policy: ' "$tmp/out"
check "session show -o json: err with its path" prints -o json session show err
check "... connected" jq_ok ".session.name == \"err\" and .session.paths[0].name == \"ip:$a0@ip:$a0\"
                           and .session.paths[0].state == \"connected\""
check "list sessions (table): err with $name" prints list sessions
check "... on err's row" grep -qE "^err .* $name " "$tmp/out"
check "show $dev (table)" prints show "$dev"
check "... names the image file" grep -qE "^device_path: +$img$" "$tmp/out"
check "path list of all sessions -o json: err's path" prints -o json path list
check "... connected" jq_ok ".paths | length == 1 and .[0].session == \"err\" and .[0].path.state == \"connected\""
check "server list (table): the export and err" prints server list
check "... on one row" awk -v e="$export_name" '$1 == e && $3 == "err" { found = 1 } END { exit !found }' "$tmp/out"
check "stats (table): client and server paths" prints stats
check "... both parts" bash -c "grep -q '^client paths:' '$tmp/out' && grep -q '^server paths:' '$tmp/out'"
check "stats -o json" prints -o json stats
check "... client device, session and server export" \
    jq_ok ".client.devices[0].name == \"$name\" and .client.sessions[0].name == \"err\"
           and .server.devices[0].name == \"$export_name\" and .server.sessions[0].name == \"err\""

# --- the kernel's errnos --------------------------------------------------------------------
printf '%s\n' "sessname=err device_path=$tmp/export/nothing.img" "sessname=err device_path=$img" > "$tmp/partial.rnbdtab"
partial_restore() {
    run -o json restore --file "$tmp/partial.rnbdtab"
    [ "$rc" = 1 ] || shown || return 1
    jq_ok ".mappings[0].result == \"failed\" and (.mappings[0].errno | test(\"^E[A-Z]+$\"))
           and .mappings[0].device == null and .mappings[1].result == \"present\" and .mappings[1].device == \"$name\""
}
check "restore of a file the server lacks beside a present mapping: exit 1, the one failed, the other present" \
    partial_restore
check "... its error on stderr" grep -qE "^rnbdctl: restore err $tmp/export/nothing.img: .* \(E[A-Z]+\)" "$tmp/err"
check "... still one rnbd device" test "$(ls /sys/block | grep -c '^rnbd')" = 1
check "path add of the existing path: exit 1, EEXIST" \
    fails 1 "rnbdctl: path add err ip:$a0: File exists (EEXIST): a path with these addresses exists" path add err "ip:$a0"

# A process holds the device open.
exec 3< "$dev"
check "unmap while a process holds $dev open: exit 1, EBUSY" \
    fails 1 "rnbdctl: unmap $name: Device or resource busy (EBUSY): device is open (use --force to fail its IO and unmap anyway)" \
    unmap "$name"
run -o json unmap --all
check "unmap --all -o json: exit 1, $name failed with EBUSY" \
    bash -c "[ $rc = 1 ] && jq -e '.unmapped == [] and .failed[0].device == \"$name\" and .failed[0].errno == \"EBUSY\"' '$tmp/out' >/dev/null"
check "... and the device is still there, open" test -b "$dev" -a "$(cat "/sys/block/$name/rnbd_client/state")" = open
exec 3<&-

# A closed device: its only path down, and then the server without the file.
state() { cat "/sys/block/$name/rnbd_client/state"; }
is_state() { [ "$(state)" = "$1" ]; }
check "session set --io-hold-timeout-ms 0" prints session set err --io-hold-timeout-ms 0
check "path disconnect: exit 0" prints path disconnect err "ip:$a0"
check "... the device is closed" wait_for 100 is_state closed
check "resize of the closed device: exit 1, ENODEV" \
    fails 1 "rnbdctl: resize $name: No such device (ENODEV): the device is not open" resize "$name" 8M
check "the image file moved away" mv "$img" "$img.away"
failed_reopens() { dmesg | grep -c "re-open of $name failed"; }
reopens=$(failed_reopens)
check "path reconnect: exit 0, the path connected" \
    bash -c "'$ctl' path reconnect err 'ip:$a0' && [ \"\$(cat '$pdir/state')\" = connected ]"
refused_reopen() { [ "$(failed_reopens)" -gt "$reopens" ] && is_state closed; }
check "... the server refuses the re-open: the device stays closed" wait_for 100 refused_reopen
remap_refused() {
    run remap "$name"
    [ "$rc" = 1 ] && grep -qE "^rnbdctl: remap $name: .* \(E[A-Z]+\)" "$tmp/err" && [ ! -s "$tmp/out" ] || shown
}
check "remap while the server lacks the file: exit 1, the server's errno named" remap_refused
check "... still closed" is_state closed
check "the image file back" mv "$img.away" "$img"
check "remap -o json: exit 0, the device open again" prints -o json remap "$name"
check "... in JSON and in sysfs" bash -c "jq -e '.device.state == \"open\"' '$tmp/out' >/dev/null && [ \"\$(cat /sys/block/$name/rnbd_client/state)\" = open ]"

# The server closes the path.
reconnects() { cut -d' ' -f1 "$pdir/stats/reconnects"; }
before_reconnects=$(reconnects)
check "server path disconnect err ip:$a0: exit 0" prints server path disconnect err "ip:$a0"
path_down_or_back() { [ "$(cat "$pdir/state")" != connected ] || [ "$(reconnects)" != "$before_reconnects" ]; }
check "... the client sees the path go down" wait_for 100 path_down_or_back
path_up() { [ "$(cat "$pdir/state")" = connected ]; }
back() { path_up || "$ctl" path reconnect err "ip:$a0"; }
check "path reconnect: connected again" back
check "... the device open again" wait_for 100 is_state open
check "IO works" dd if="$dev" of=/dev/null bs=1M count=1 iflag=direct status=none

check "unmap $dev: exit 0" prints unmap "$dev"
check "unmap $dev again: exit 3" fails 3 "rnbdctl: unmap $dev: no such rnbd device" unmap "$dev"
tap_done; exit $?
