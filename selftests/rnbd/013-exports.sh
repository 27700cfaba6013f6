#!/usr/bin/env bash
# rnbd-server's exports (Documentation/sysfs.md, "Exports") with our client:
# a bad definition is refused with its errno and changes nothing; a defined
# export maps from an admitted address and passes fio --verify; a client
# outside the allow-list, a name that is not an export and a device path
# that used to work all get the same ENOENT; a second path from an address
# the export does not admit is refused; access=ro and io_modes are enforced;
# removing an export closes its mapping (the client's IO fails, one log
# line); the canonical definition adds back as it is; with no export left,
# dev_search_path opens devices again. Runs inside the test VM:
#
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh rnbd/013
cd "$(dirname "$0")/../.." || exit 1
set -uo pipefail
. selftests/lib.sh
. selftests/lib-rxe.sh

require_root
require_built rtrs/rtrs-server.ko rnbd/rnbd-server.ko rtrs/rtrs-client.ko rnbd/rnbd-client.ko
require_tools fio blockdev cmp dd

exports=/sys/class/rnbd-server/ctl/exports
srv=/sys/kernel/rnbd_server/devices
base=/tmp/rnbd-exports
teardown() {
    blockdev --setrw /dev/ram1 2>/dev/null
    rnbd_stack_teardown
    rmmod brd 2>/dev/null
    rm -rf "$base"
    return 0
}
trap teardown EXIT

tap_plan 44

setup() {
    mkdir -p "$base" || return 1
    rnbd_stack_setup 2 16384 || return 1
    # A second RAM disk for the read-only export.
    rmmod brd && modprobe brd rd_nr=2 rd_size=16384 || return 1
    wait_for 50 test -b /dev/ram1 && blockdev --setro /dev/ram1 && echo "stack up: ${RXE_ADDR[*]}"
}
must "Soft-RoCE with two paths, brd with two disks (ram1 read-only), our server and client" setup
a0=${RXE_ADDR[0]} a1=${RXE_ADDR[1]}

# A map over one path from SRC (each Soft-RoCE path loops back to its own
# address, so the server sees the client at the path's address).
map_from() { rnbd_map "sessname=$1 path=ip:$2 device_path=$3 ${4:-}"; }
# map_errno SESSION ADDRESS DEVICE_PATH [OPTIONS]: the errno name a refused map gets.
map_errno() {
    local msg before
    before=$(ls /sys/block | grep -c '^rnbd')
    if msg=$( { printf '%s' "sessname=$1 path=ip:$2 device_path=$3 ${4:-}" > /sys/kernel/rnbd_client/map_device; } 2>&1 ); then
        echo "mapped"
        return 0
    fi
    [ "$(ls /sys/block | grep -c '^rnbd')" = "$before" ] || { echo "a device appeared"; return 0; }
    errno_name "$msg"
}
exports_now() { ls "$exports" | sort | tr '\n' ' '; }

check "exports/add and exports/remove exist and print their usage" bash -c "
    grep -q '^Usage: echo \"name=<name> path=' $exports/add && grep -q '^Usage: echo <name> > remove' $exports/remove"
check "with no export defined, dev_search_path still opens /dev/ram0 (Linux's behaviour)" bash -c "
    $(declare -f map_from rnbd_map wait_for); d=\$(map_from legacy $a0 /dev/ram0) &&
    echo normal > /sys/block/\$d/rnbd_client/unmap_device"
wait_for 50 test ! -e /sys/class/rtrs-client/legacy
check "exports_only=Y with no export defined: /dev/ram0 is refused (ENOENT)" bash -c "
    $(declare -f map_errno errno_name); echo Y > /sys/module/rnbd_server/parameters/exports_only &&
    [ \"\$(map_errno legacy2 $a0 /dev/ram0)\" = ENOENT ] && echo N > /sys/module/rnbd_server/parameters/exports_only"

before=$(exports_now)
expect_errno "add: a line without allow= is refused" EINVAL "$exports/add" "name=v path=/dev/ram0"
expect_errno "add: an unknown key is refused" EINVAL "$exports/add" "name=v path=/dev/ram0 allow=any colour=red"
expect_errno "add: an address with bits beyond its prefix is refused" EINVAL "$exports/add" \
    "name=v path=/dev/ram0 allow=ip:192.0.2.1/24"
expect_errno "add: a malformed address is refused" EINVAL "$exports/add" "name=v path=/dev/ram0 allow=ip:192.0.2"
expect_errno "add: the name 'add' (a file of exports/) is refused" EINVAL "$exports/add" "name=add path=/dev/ram0 allow=any"
expect_errno "add: a relative backing path is refused" EINVAL "$exports/add" "name=v path=dev/ram0 allow=any"
expect_errno "add: a backing path through '..' is refused" EINVAL "$exports/add" "name=v path=/dev/../dev/ram0 allow=any"
expect_errno "add: a missing backing object is refused" ENOENT "$exports/add" "name=v path=/dev/nothing allow=any"
expect_errno "add: a character device is refused" ENOTBLK "$exports/add" "name=v path=/dev/zero allow=any"
expect_errno "add: a regular file with file export off is refused" ENOTBLK "$exports/add" "name=v path=/etc/passwd allow=any"
expect_errno "add: a read-write export of a read-only device is refused" EROFS "$exports/add" \
    "name=v path=/dev/ram1 allow=any"
check "the refused definitions left nothing behind ($before)" test "$(exports_now)" = "$before"

expect_errno "add vol0: /dev/ram0 read-write for ${a0%.*}.0/28 only" OK "$exports/add" \
    "name=vol0 path=/dev/ram0 allow=ip:${a0%.*}.0/28 io_modes=blockio"
expect_errno "add db/ro: /dev/ram1 read-only for $a1 only" OK "$exports/add" \
    "name=db/ro path=/dev/ram1 allow=ip:$a1 access=ro session=reader"
expect_errno "add vol0 a second time is refused" EEXIST "$exports/add" "name=vol0 path=/dev/ram0 allow=any"
check "exports/vol0/ reads back the canonical definition and each key" bash -c "
    [ \"\$(cat $exports/vol0/definition)\" = 'name=vol0 path=/dev/ram0 allow=ip:${a0%.*}.0/28 access=rw io_modes=blockio' ] &&
    [ \"\$(cat $exports/vol0/path)\" = /dev/ram0 ] && [ \"\$(cat $exports/vol0/access_mode)\" = rw ] &&
    [ \"\$(cat $exports/vol0/io_modes)\" = blockio ] && [ \"\$(cat $exports/vol0/allow)\" = 'ip:${a0%.*}.0/28' ] &&
    [ -z \"\$(cat $exports/vol0/session)\" ]"
check "a '/' in a name is a '!' in the directory name (exports/db!ro/)" bash -c "
    [ \"\$(cat '$exports/db!ro/session')\" = reader ] && [ \"\$(cat '$exports/db!ro/access_mode')\" = ro ]"

dev=$(map_from s1 "$a0" vol0)
check "a client at $a0 (admitted) maps vol0 ($dev)" test -n "$dev"
fio_verify() {
    fio --name=verify --filename="$1" --rw=randwrite --bsrange=4k-128k --direct=1 --ioengine=libaio \
        --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --size=100% --output="$base/fio.out" >/dev/null
}
check "fio randwrite 4k-128k + crc32c verify over /dev/$dev" fio_verify "/dev/$dev"
check "what /dev/$dev reads is what the server's /dev/ram0 holds" cmp "/dev/$dev" /dev/ram0

check "a name that is not an export is refused (ENOENT)" test "$(map_errno s1 "$a0" vol9)" = ENOENT
check "a device path that dev_search_path would open is refused now (ENOENT)" \
    test "$(map_errno s1 "$a0" /dev/ram1 access_mode=ro)" = ENOENT
check "an export that does not admit $a0 is refused with the same errno (ENOENT)" \
    test "$(map_errno s2 "$a0" db/ro access_mode=ro)" = ENOENT
check "the session rule: db/ro from $a1 under another session name is refused (ENOENT)" \
    test "$(map_errno s3 "$a1" db/ro access_mode=ro)" = ENOENT
check "access=ro: a read-write map of db/ro is refused (EACCES)" \
    test "$(map_errno reader "$a1" db/ro)" = EACCES
check "io_modes=blockio: io_mode=fileio of vol0 is refused (EINVAL)" \
    test "$(map_errno s4 "$a0" vol0 io_mode=fileio)" = EINVAL
rdev=$(map_from reader "$a1" db/ro access_mode=ro)
check "db/ro maps read-only from $a1 in session 'reader' ($rdev) and reads what /dev/ram1 holds" \
    bash -c "[ -n '$rdev' ] && cmp /dev/$rdev /dev/ram1"

check "a second path of s1 from $a1 (not admitted by vol0) is refused, the session keeps one path" bash -c "
    ! printf '%s' 'ip:$a1' > /sys/class/rtrs-client/s1/add_path 2>/dev/null &&
    [ \$(ls /sys/class/rtrs-client/s1/paths | wc -l) = 1 ]"
check "the server logged why (new path not admitted by export 'vol0')" \
    bash -c "dmesg | grep -q \"session s1: a new path's address is not admitted by export 'vol0'\""

log_mark exports-remove
expect_errno "remove vol0" OK "$exports/remove" vol0
check "vol0's directory is gone, and so is the server's mapping of /dev/ram0" \
    wait_for 50 test ! -e "$exports/vol0" -a ! -e "$srv/ram0/sessions/s1"
check "one log line says the export's removal closed s1's mapping" \
    test "$(log_since exports-remove | grep -c "session s1: export 'vol0' removed: closing device id")" = 1
check "IO of the closed mapping fails" bash -c "! dd if=/dev/$dev of=/dev/null bs=4k count=1 iflag=direct status=none"
expect_errno "remove vol0 again" ENOENT "$exports/remove" vol0
check "unmap the client's device of the removed export" bash -c "$(declare -f wait_for)
    echo force > /sys/block/$dev/rnbd_client/unmap_device && wait_for 50 test ! -e /sys/block/$dev"

check "the canonical definition adds back as it is (remove db/ro, add its definition)" bash -c "$(declare -f wait_for)
    echo normal > /sys/block/$rdev/rnbd_client/unmap_device && wait_for 50 test ! -e /sys/block/$rdev &&
    line=\$(cat '$exports/db!ro/definition') && echo 'db/ro' > $exports/remove &&
    printf '%s\n' \"\$line\" > $exports/add && [ \"\$(cat '$exports/db!ro/definition')\" = \"\$line\" ]"
expect_errno "remove db/ro" OK "$exports/remove" db/ro
check "with no export left, dev_search_path opens /dev/ram0 again" bash -c "
    $(declare -f map_from rnbd_map wait_for); d=\$(map_from s5 $a0 /dev/ram0) &&
    echo normal > /sys/block/\$d/rnbd_client/unmap_device && wait_for 50 test ! -e /sys/block/\$d"

teardown_checks() {
    rnbd_unmap_all
    rnbd_client_unload && rnbd_server_unload
}
check "client and server unload with exports defined (the table goes with the module)" bash -c "
    echo 'name=left path=/dev/ram0 allow=any' > $exports/add && $(declare -f teardown_checks rnbd_unmap_all rnbd_client_unload rnbd_server_unload mod_loaded); teardown_checks"
expect_no_leak "no leak reported" "$(dmesg)"

tap_done; exit $?
