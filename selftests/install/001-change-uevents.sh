#!/usr/bin/env bash
# rnbd-client's "change" uevents, which udev rules need to read a disk's
# rnbd/ attributes (the disk's "add" goes out before rnbd/ exists): one
# change once /sys/block/rnbdN/rnbd/ is there, one on each open -> closed
# (every path down) and closed -> open (re-opened after reconnect), none
# after the remove. Watched on the kernel's uevent socket with
# `udevadm monitor --kernel` (no udevd needed); our four modules over one
# Soft-RoCE loopback path.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-rxe.sh"
require_root
cd "$(dirname "$0")/../.."
command -v udevadm >/dev/null || tap_skip_all "no udevadm"
tmp=$(mktemp -d /tmp/rnbd-uevent.XXXXXX)
monitor=
cleanup() {
    [ -n "$monitor" ] && kill "$monitor" 2>/dev/null
    rnbd_stack_teardown
    rm -rf "$tmp"
}
trap cleanup EXIT
tap_plan 7

setup() {
    rxe_setup 1 >/dev/null || return 1
    if mod_loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=16384 || return 1
    rnbd_server_load ours && rnbd_client_load
}
check "setup: rxe, brd, our four modules" setup

udevadm monitor --kernel --subsystem-match=block > "$tmp/events" 2>&1 &
monitor=$!
wait_for 50 grep -q "monitor will print" "$tmp/events"
# events DEV: the ACTIONs of the uevents of block device DEV seen so far, one per line.
events() { awk -v dev="/$1 " '$1 ~ /^KERNEL\[/ && index($3 " ", dev) { print $2 }' "$tmp/events"; }
count_changes() { events "$1" | grep -c '^change$'; }
wait_changes() { # dev n: wait until DEV has had N change events
    local i
    for i in $(seq 50); do [ "$(count_changes "$1")" -ge "$2" ] && return 0; sleep 0.1; done
    diag "$1: $(count_changes "$1") change events, want $2; events: $(events "$1" | tr '\n' ' ')"
    return 1
}
state_is() { [ "$(cat /sys/block/$1/rnbd/state 2>/dev/null)" = "$2" ]; }

dev=$(rnbd_map "sessname=uev path=ip:${RXE_ADDR[0]} device_path=/dev/ram0")
[ -n "$dev" ] || dev=rnbd0
mapped() {
    wait_changes "$dev" 1 || return 1
    # The change comes after the add, and rnbd/ was already there for it.
    [ "$(events "$dev" | head -2 | tr '\n' ' ')" = "add change " ] || {
        diag "events of $dev: $(events "$dev" | tr '\n' ' ')"; return 1; }
    test -r "/sys/block/$dev/rnbd/session"
}
check "map: 'add', then one 'change' once /sys/block/$dev/rnbd/ exists" mapped
settled=$(count_changes "$dev")
sleep 1
check "no further change while nothing changes ($settled)" test "$(count_changes "$dev")" = "$settled"

path=$(echo /sys/class/rtrs-client/uev/paths/*)
closed() {
    echo 1 > "$path/disconnect" || return 1
    wait_for 100 state_is "$dev" closed || return 1
    wait_changes "$dev" $((settled + 1))
}
check "every path down: rnbd/state 'closed' and a 'change'" closed
reopened() {
    echo 1 > "$path/reconnect" || return 1
    wait_for 150 state_is "$dev" open || return 1
    wait_changes "$dev" $((settled + 2))
}
check "path back: rnbd/state 'open' again and a 'change'" reopened

unmapped() {
    echo normal > "/sys/block/$dev/rnbd/unmap_device" || return 1
    wait_for 50 test ! -e "/sys/block/$dev" || return 1
    wait_for 50 sh -c "grep -q ' remove .*/$dev ' '$tmp/events'"
}
check "unmap: 'remove'" unmapped
check "no change after the remove" test "$(events "$dev" | tail -1)" = remove
diag "events of $dev: $(events "$dev" | tr '\n' ' ')"
tap_done
