#!/usr/bin/env bash
# rnbdctl's server exports (server export, server session disconnect,
# server save/restore; Documentation/rnbdctl.md, "Exports") against the real
# modules: our stack over one Soft-RoCE loopback path, a 64 MiB RAM disk.
#   - a bad definition is refused with the module's message before any
#     write (the kernel logs nothing); the kernel's ENOENT/ENOTBLK/EEXIST
#     named; export add --dry-run writes nothing; export add, list
#     (MAPPINGS) and show, table and JSON;
#   - a client maps the export and writes data; `server save` writes the
#     canonical definition to /etc/rnbd/exports (the guest's overlay);
#   - the server "reboots": the client unmaps, rnbd_server and rtrs_server
#     are unloaded, then rnbd-exports.service's own commands run as the
#     unit would (its modprobe as insmod of the build tree with the unit's
#     arguments, exports_only=Y written, `rnbdctl server restore`): before
#     the restore the export and a plain device path are both refused
#     (ENOENT), after it the same map works and reads the data back;
#     restore again is 'present', a differently defined export 'refused';
#   - server session disconnect closes the session's path (the client
#     reconnects and its device opens again); server export remove closes
#     the mapping (one log line, the client's IO fails);
#   - restore --check of a bad file: exit 2 naming file:line, nothing
#     changed; restore --replace redefines; the unit's ExecStop removes
#     every export.
# Runs inside the test VM:
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh cli/003
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.." || exit 1
require_rnbdctl
require_built rtrs/rtrs-server.ko rnbd/rnbd-server.ko rtrs/rtrs-client.ko rnbd/rnbd-client.ko
tmp=$(mktemp -d /tmp/rnbdctl-exports.XXXXXX)
unit=packaging/systemd/rnbd-exports.service
file=/etc/rnbd/exports
# The guest's root is the host's under a tmpfs overlay: a file there from
# the host is moved aside in the overlay only, and put back at the end.
[ -e "$file" ] && mv "$file" "$tmp/host-exports" && diag "$file of the host moved aside (in the guest only)"
cleanup() {
    rnbd_stack_teardown
    mod_loaded brd && rmmod brd
    rm -f "$file" "$file~"
    [ -e "$tmp/host-exports" ] && mv "$tmp/host-exports" "$file"
    rm -rf "$tmp"
}
trap cleanup EXIT
tap_plan 50

setup() {
    rxe_setup 1 >/dev/null || return 1
    if mod_loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=65536 || return 1
    rnbd_server_load ours && rnbd_client_load
}
must "setup: one rxe path, a 64 MiB brd, our four modules" setup
a0=${RXE_ADDR[0]}
net=${a0%.*}.0/24
exports=/sys/class/rnbd-server/ctl/exports
vol0="name=vol0 path=/dev/ram0 allow=ip:$net access=rw io_modes=blockio"

# run NAME CMD...: CMD's stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, exit code in $rc
run() { local name=$1; shift; "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"; rc=$?; }
err_is() { # NAME CODE TEXT: exit code CODE and TEXT in stderr
    [ "$rc" = "$2" ] && grep -qF -- "$3" "$tmp/$1.err" && return 0
    diag "exit $rc, stderr: $(cat "$tmp/$1.err")"; return 1
}
out_is() { # NAME CODE TEXT: exit code CODE and stdout exactly TEXT
    [ "$rc" = "$2" ] && [ "$(cat "$tmp/$1.out")" = "$3" ] && return 0
    diag "exit $rc, stdout: $(cat "$tmp/$1.out"), stderr: $(cat "$tmp/$1.err")"; return 1
}
jq_ok() { jq -e "$2" "$tmp/$1.out" >/dev/null || { diag "jq '$2' failed on: $(cat "$tmp/$1.out")"; return 1; }; }
exports_now() { ls "$exports" | sort | tr '\n' ' '; }
devices() { ls /sys/block | grep -c '^rnbd'; }

# --- export add: the module's parser first, then the kernel ---------------------------------
log_mark bad-add
run bad "$ctl" server export add vol0 --path /dev/ram0 --allow "ip:$a0/24"
check "export add with an address beyond its prefix: exit 2, the module's message" \
    err_is bad 2 "rnbdctl: server export add: exports/add: allow: the address has bits set beyond its prefix length: 'ip:$a0/24'"
run blank "$ctl" server export add vol0 --path "/dev/ram0 allow=any" --allow "ip:$a0"
check "export add with a blank in --path: exit 2" err_is blank 2 "--path must not contain blanks or control characters"
check "... nothing reached the kernel (no export, no exports/add log line)" \
    bash -c "[ '$(exports_now)' = 'add remove ' ] && ! { $(declare -f log_since); log_since bad-add | grep -q exports/add; }"
run noent "$ctl" server export add v --path /dev/nothing --allow any
check "export add of a missing path: exit 1, ENOENT named" \
    err_is noent 1 "rnbdctl: server export add v: No such file or directory (ENOENT): the path leads nowhere on the server"
run notblk "$ctl" server export add v --path /dev/zero --allow any
check "export add of a character device: exit 1, ENOTBLK named" \
    err_is notblk 1 "rnbdctl: server export add v: Block device required (ENOTBLK): the server does not export this path"
check "... the refusals left no export behind" test "$(exports_now)" = "add remove "

run dry "$ctl" server export add vol0 --path /dev/ram0 --allow "ip:$net" --io-modes blockio --dry-run
check "export add --dry-run: the write to exports/add printed, nothing defined" \
    bash -c "[ '$rc' = 0 ] && [ \"\$(cat '$tmp/dry.out')\" = 'would write to $exports/add: $vol0' ] &&
             [ '$(exports_now)' = 'add remove ' ]"
run add "$ctl" server export add vol0 --path /dev/ram0 --allow "ip:$net" --io-modes blockio
check "export add vol0 (/dev/ram0, ip:$net, blockio): exit 0, nothing printed" out_is add 0 ""
check "exports/vol0/definition is the canonical line" test "$(cat $exports/vol0/definition)" = "$vol0"
run again "$ctl" server export add vol0 --path /dev/ram0 --allow any
check "export add vol0 again: exit 1, EEXIST named" \
    err_is again 1 "rnbdctl: server export add vol0: File exists (EEXIST): an export of this name exists"
run show "$ctl" -o json server export show vol0
check "export show -o json: every field, no mapping yet" \
    jq_ok show ".version == 1 and .export.name == \"vol0\" and .export.definition == \"$vol0\"
                and .export.path == \"/dev/ram0\" and .export.access_mode == \"rw\" and .export.io_modes == \"blockio\"
                and .export.allow == [\"ip:$net\"] and .export.session == null and .export.mappings == []"

# --- a client maps it and writes data ------------------------------------------------------
head -c 4194304 /dev/urandom > "$tmp/data"
run map "$ctl" -o json map --session cli --path "ip:$a0" --device-path vol0
check "the client maps vol0" jq_ok map '.device.device_path == "vol0" and .device.state == "open"'
dev=$(jq -r .device.dev "$tmp/map.out")
check "4 MiB written to $dev and read back" bash -c "
    dd if='$tmp/data' of='$dev' bs=1M oflag=direct status=none && cmp -n 4194304 '$tmp/data' '$dev'"
run list "$ctl" server export list
check "export list: vol0 with one mapping" \
    grep -qE "^vol0 +/dev/ram0 +rw +blockio +ip:$net +- +1$" "$tmp/list.out"
run listj "$ctl" -o json server export list
check "export list -o json: the mapping is session cli's of ram0" \
    jq_ok listj '.exports[0].mappings == [{"session": "cli", "device": "ram0", "access_mode": "rw"}]'

# --- server save ---------------------------------------------------------------------------
run save "$ctl" server save
check "server save: one export to $file" out_is save 0 "1 export saved to $file"
check "... its last line is the canonical definition, the others comments" \
    bash -c "[ \"\$(tail -n 1 $file)\" = '$vol0' ] && [ \"\$(grep -vc '^#' $file)\" = 1 ]"

# --- the server reboots: rnbd-exports.service's commands ------------------------------------
run unmap "$ctl" unmap --all
check "the client unmaps" test "$rc/$(devices)" = 0/0
wait_for 50 test ! -e /sys/class/rtrs-client/cli
check "rmmod rnbd_server rtrs_server: the exports are gone with the module" \
    bash -c "$(declare -f rnbd_server_unload mod_loaded); rnbd_server_unload && [ ! -e $exports ]"
unit_lines() { sed -n "s/^$1=//p" "$unit"; }
modprobe_line=$(unit_lines ExecStartPre | head -1)
check "the unit loads the server with '/sbin/modprobe rnbd_server exports_only=Y'" \
    test "$modprobe_line" = "/sbin/modprobe rnbd_server exports_only=Y"
# Not installed here: the unit's modprobe is insmod of the build tree, with its arguments.
check "ExecStartPre (as insmod of rtrs-server and rnbd-server ${modprobe_line#*rnbd_server }): exports_only is Y" \
    bash -c "insmod rtrs/rtrs-server.ko sess_queue_depth=128 && insmod rnbd/rnbd-server.ko ${modprobe_line#*rnbd_server } &&
             [ \"\$(cat /sys/module/rnbd_server/parameters/exports_only)\" = Y ]"
second_pre=$(unit_lines ExecStartPre | sed -n 2p)
check "the second ExecStartPre ($second_pre) runs and leaves Y" \
    bash -c "$second_pre && [ \"\$(cat /sys/module/rnbd_server/parameters/exports_only)\" = Y ]"
run early "$ctl" map --session cli --path "ip:$a0" --device-path vol0
check "before the restore: vol0 is refused (exit 1, ENOENT), no device" \
    bash -c "[ '$rc' = 1 ] && grep -qF '(ENOENT)' '$tmp/early.err' && [ \$(ls /sys/block | grep -c '^rnbd') = 0 ]"
run legacy "$ctl" map --session cli --path "ip:$a0" --device-path /dev/ram0
check "... and so is /dev/ram0 (exports_only=Y: no dev_search_path)" err_is legacy 1 "(ENOENT)"
wait_for 50 test ! -e /sys/class/rtrs-client/cli
start=$(unit_lines ExecStart | sed "s|^@SBINDIR@/rnbdctl|$ctl -o json|")
run restore $start
check "ExecStart ($(unit_lines ExecStart)): vol0 added" \
    jq_ok restore ".file == \"$file\" and .exports == [{\"name\": \"vol0\", \"line\": $(grep -n '^name=' $file | cut -d: -f1),
                   \"definition\": \"$vol0\", \"result\": \"added\", \"errno\": null, \"error\": null}]"
check "... defined as saved" test "$(cat $exports/vol0/definition)" = "$vol0"
run present "$ctl" server restore
check "server restore again: vol0 present" out_is present 0 "NAME  RESULT
vol0  present"
run remap "$ctl" -o json map --session cli --path "ip:$a0" --device-path vol0
dev=$(jq -r .device.dev "$tmp/remap.out")
check "the same client map works again ($dev)" test "$rc" = 0 -a -b "$dev"
check "... and reads back the data written before the reboot" cmp -n 4194304 "$tmp/data" "$dev"

# --- a file that defines it differently ---------------------------------------------------
sed 's/access=rw/access=ro/' "$file" > "$tmp/ro"
run refused "$ctl" server restore --file "$tmp/ro"
check "restore of a different definition: exit 1, 'refused', the reason named" \
    bash -c "[ '$rc' = 1 ] && grep -qE '^vol0 +refused$' '$tmp/refused.out' &&
             grep -qF 'rnbdctl: server restore vol0: defined differently ($vol0)' '$tmp/refused.err'"
check "... vol0 unchanged, still mapped by cli" \
    test "$(cat $exports/vol0/definition)" = "$vol0" -a -e /sys/class/rnbd-server/ctl/devices/ram0/sessions/cli

# --- server session disconnect -------------------------------------------------------------
name=$(basename "$dev")
pdir=/sys/class/rtrs-client/cli/paths/ip:$a0@ip:$a0
reconnects() { cut -d' ' -f1 "$pdir/stats/reconnects"; }
before_reconnects=$(reconnects)
run nosess "$ctl" server session disconnect nosuch
check "server session disconnect nosuch: exit 3" err_is nosess 3 "rnbdctl: server session disconnect nosuch: no such session"
run disc "$ctl" server session disconnect cli
check "server session disconnect cli: exit 0" test "$rc" = 0
path_down_or_back() { [ "$(cat "$pdir/state")" != connected ] || [ "$(reconnects)" != "$before_reconnects" ]; }
check "... the client sees its path go down" wait_for 100 path_down_or_back
is_open() { [ "$(cat /sys/block/$name/rnbd_client/state)" = open ] && [ "$(cat "$pdir/state")" = connected ]; }
check "... reconnects, and the export admits it again: $dev open" wait_for 600 is_open
check "... IO works" dd if="$dev" of=/dev/null bs=1M count=1 iflag=direct status=none

# --- server export remove closes the mapping ------------------------------------------------
log_mark export-remove
run rm "$ctl" server export remove vol0
check "server export remove vol0: exit 0" test "$rc" = 0
check "... the export and the server's mapping are gone" \
    wait_for 50 test ! -e "$exports/vol0" -a ! -e /sys/class/rnbd-server/ctl/devices/ram0/sessions/cli
check "... one log line says the removal closed cli's mapping" \
    test "$(log_since export-remove | grep -c "session cli: export 'vol0' removed: closing device id")" = 1
check "... the client's IO fails" bash -c "! dd if='$dev' of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null"
run rm2 "$ctl" server export remove vol0
check "server export remove vol0 again: exit 3" err_is rm2 3 "rnbdctl: server export remove vol0: no such export"
run force "$ctl" unmap --force "$dev"
check "the client unmaps the closed device" test "$rc/$(devices)" = 0/0

# --- restore --check of a bad file changes nothing -----------------------------------------
printf '%s\n' "# a good line, then a bad one: nothing is applied" "$vol0" \
    "name=vol1 path=/dev/ram0 allow=ip:$a0/24" > "$tmp/bad"
log_mark bad-file
run badcheck "$ctl" server restore --check --file "$tmp/bad"
check "restore --check of a bad file: exit 2 naming $tmp/bad:3" \
    err_is badcheck 2 "rnbdctl: server restore: $tmp/bad:3: exports/add: allow: the address has bits set beyond its prefix length"
run badrestore "$ctl" server restore --file "$tmp/bad"
check "restore of it: exit 2 too" test "$rc" = 2
check "... nothing changed: no export, no exports/add log line" \
    bash -c "[ '$(exports_now)' = 'add remove ' ] && ! { $(declare -f log_since); log_since bad-file | grep -q exports/add; }"
run goodcheck "$ctl" server restore --check
check "restore --check of the saved file: exit 0, 'valid', nothing applied" \
    bash -c "[ '$rc' = 0 ] && grep -qE '^vol0 +valid$' '$tmp/goodcheck.out' && [ '$(exports_now)' = 'add remove ' ]"

# --- restore, restore --replace, the unit's ExecReload and ExecStop ---------------------------
run back "$ctl" server restore
check "server restore: vol0 added again" bash -c "[ '$rc' = 0 ] && grep -qE '^vol0 +added$' '$tmp/back.out'"
cp "$tmp/ro" "$file"
reload=$(unit_lines ExecReload | sed "s|^@SBINDIR@/rnbdctl|$ctl|")
run replaced $reload
check "ExecReload ($(unit_lines ExecReload)) of the edited file: vol0 replaced, now read-only" \
    bash -c "[ '$rc' = 0 ] && grep -qE '^vol0 +replaced$' '$tmp/replaced.out' &&
             [ \"\$(cat $exports/vol0/access_mode)\" = ro ]"
stop=$(unit_lines ExecStop | sed "s|^@SBINDIR@/rnbdctl|$ctl|")
run stop $stop
check "ExecStop ($(unit_lines ExecStop)): every export removed" test "$rc/$(exports_now)" = "0/add remove "
tap_done; exit $?
