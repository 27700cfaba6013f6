#!/usr/bin/env bash
# Hostile input to our rnbd-client's sysfs files: every malformed map_device
# line is refused with its documented errno, one log line says why, and
# nothing is left behind (no disk, no link, no RTRS session on either side).
# The server side is Linux 6.1's rnbd-server + rtrs-server + rtrs-core
# (tools/upstream/build.sh), so lines that parse but name something wrong
# reach a real server. Runs inside the test VM as root:
#
#   tools/vm/run.sh --timeout 900 -- selftests/run.sh 003-client
set -uo pipefail
cd "$(dirname "$0")/../.."
. selftests/lib.sh
. selftests/lib-rxe.sh

tmpdir=/tmp/rnbd-clt-hostile
kctl=/sys/kernel/rnbd_client
cctl=/sys/class/rnbd-client/ctl
upstream=(rtrs-core rtrs-server rnbd-server)

require_root
require_built rtrs/rtrs-client.ko rnbd/rnbd-client.ko
require_upstream "$kodir" "${upstream[@]}"
require_tools rdma

cleanup() {
    local d
    for d in /sys/block/rnbd*; do
        [ -e "$d/rnbd/unmap_device" ] && echo force > "$d/rnbd/unmap_device" 2>/dev/null
    done
    unload_loaded rnbd_client rtrs_client rnbd_server rtrs_server rtrs_core brd
    rxe_teardown >/dev/null 2>&1
    rm -rf "$tmpdir"
    return 0
}
trap cleanup EXIT

# wrfile FILE SRC: the bytes of SRC in one write(2) (dd, so NULs survive).
wrfile() {
    local msg
    if msg=$(dd if="$2" of="$1" bs=65536 count=1 status=none 2>&1); then echo OK; else errno_name "$msg"; fi
}
wr() { printf '%s' "$2" > "$tmpdir/in"; wrfile "$1" "$tmpdir/in"; }

snapshot() {
    {
        ls /sys/block | grep rnbd
        ls -A $kctl/devices $cctl/devices
        ls /sys/class/rtrs-client 2>/dev/null
        ls /sys/class/rnbd-server/ctl/devices 2>/dev/null
    } 2>&1
}
# Sessions the servers tear down asynchronously: wait for them to go.
settled() {
    local start=$SECONDS
    while :; do
        [ "$(snapshot)" = "$base" ] && [ -z "$(ls /sys/class/rtrs-server 2>/dev/null)" ] && return 0
        [ $((SECONDS - start)) -lt 15 ] || return 1
        sleep 0.2
    done
}
# refuse DESC WANT FILE [TEXT | -f SRC]
refuse() {
    local desc=$1 want=$2 file=$3 got
    if [ "$4" = -f ]; then got=$(wrfile "$file" "$5"); else got=$(wr "$file" "$4"); fi
    if [ "$got" = "$want" ] && settled; then
        ok "$desc -> $want, nothing changed"
    elif [ "$got" != "$want" ]; then
        not_ok "$desc: got $got, want $want"
    else
        not_ok "$desc -> $want, but the state changed: $(snapshot | tr '\n' ' ')"
    fi
}

mkdir -p "$tmpdir"
setup() {
    modprobe ib_core && modprobe rdma_cm || return 1
    if loaded brd; then rmmod brd || return 1; fi
    modprobe brd rd_nr=1 rd_size=16384 || return 1
    rxe_setup 1 || return 1
    local m
    for m in "${upstream[@]}"; do insmod "$kodir/$m.ko" || return 1; done
    insmod rtrs/rtrs-client.ko && insmod rnbd/rnbd-client.ko
}
check "setup: brd, rxe, upstream server modules, our client modules" setup
a=${RXE_ADDR[0]:-192.0.2.1}
ok_line="sessname=h1 path=ip:$a device_path=/dev/ram0"
base=$(snapshot)
m=$kctl/map_device
long=$(printf 'a%.0s' $(seq 1 300))
longpath=/$(printf 'd%.0s' $(seq 1 300))

# A marker line, not a line count: once the kernel's ring buffer is full
# (a whole selftests/run.sh logs a lot) its line count stops growing.
dmesg_mark="rnbd-003-mark-$$-$RANDOM"
echo "$dmesg_mark" > /dev/kmsg
since_mark() { dmesg | sed -n "/$dmesg_mark/,\$p"; }
refuse "only blanks" EINVAL $m "   "
refuse "only a newline" EINVAL $m $'\n'
refuse "a word without =" EINVAL $m "garbage"
refuse "unknown key" EINVAL $m "$ok_line foo=bar"
refuse "no device_path" EINVAL $m "sessname=h1 path=ip:$a"
refuse "no sessname" EINVAL $m "path=ip:$a device_path=/dev/ram0"
refuse "empty sessname" EINVAL $m "sessname= path=ip:$a device_path=/dev/ram0"
refuse "sessname twice" EINVAL $m "$ok_line sessname=h2"
refuse "device_path twice" EINVAL $m "$ok_line device_path=/dev/ram1"
refuse "sessname with /" EINVAL $m "sessname=a/b path=ip:$a device_path=/dev/ram0"
refuse "sessname .." EINVAL $m "sessname=.. path=ip:$a device_path=/dev/ram0"
refuse "sessname of 300 bytes" EINVAL $m "sessname=$long path=ip:$a device_path=/dev/ram0"
refuse "device_path of 301 bytes" EINVAL $m "sessname=h1 path=ip:$a device_path=$longpath"
refuse "control character in device_path" EINVAL $m $'sessname=h1 path=ip:'"$a"$' device_path=/dev/ram0\x01'
printf 'sessname=h1\0x path=ip:%s device_path=/dev/ram0' "$a" > "$tmpdir/nul"
refuse "NUL inside the line" EINVAL $m -f "$tmpdir/nul"
refuse "IPv4 octet 999" EINVAL $m "sessname=h1 path=ip:999.1.1.1 device_path=/dev/ram0"
refuse "IPv4 with a leading zero" EINVAL $m "sessname=h1 path=ip:010.0.0.1 device_path=/dev/ram0"
refuse "unknown address type" EINVAL $m "sessname=h1 path=tcp:$a device_path=/dev/ram0"
refuse "two separators in a path" EINVAL $m "sessname=h1 path=ip:$a@ip:$a@ip:$a device_path=/dev/ram0"
refuse "bad IPv6" EINVAL $m "sessname=h1 path=ip:2001:db8:::1 device_path=/dev/ram0"
refuse "bad gid" EINVAL $m "sessname=h1 path=gid:xyz device_path=/dev/ram0"
refuse "7 paths" EINVAL $m "sessname=h1 $(for i in 1 2 3 4 5 6 7; do printf 'path=ip:192.0.2.%d ' $i; done)device_path=/dev/ram0"
refuse "the same path twice" EINVAL $m "sessname=h1 path=ip:$a path=ip:$a device_path=/dev/ram0"
refuse "access_mode=rx" EINVAL $m "$ok_line access_mode=rx"
refuse "io_mode=mmap" EINVAL $m "$ok_line io_mode=mmap"
# The reason is logged rate-limited (10 lines per 5 s, the kernel's default);
# let the burst of refusals above drain first so this line is printed.
sleep 6
refuse "input_mode=rq" EINVAL $m "$ok_line input_mode=rq"
refuse "input_mode=xx" EINVAL $m "$ok_line input_mode=xx"
refuse "dest_port=0" EINVAL $m "dest_port=0 $ok_line"
refuse "dest_port=70000" EINVAL $m "dest_port=70000 $ok_line"
refuse "dest_port=-1" EINVAL $m "dest_port=-1 $ok_line"
refuse "nr_poll_queues=100000" EINVAL $m "$ok_line nr_poll_queues=100000"
refuse "nr_poll_queues=-2" EINVAL $m "$ok_line nr_poll_queues=-2"
head -c 4096 /dev/urandom > "$tmpdir/junk"
refuse "4 KiB of random bytes" EINVAL $m -f "$tmpdir/junk"
{ printf '%s' "$ok_line"; head -c 5000 /dev/zero | tr '\0' ' '; printf 'x=y'; } > "$tmpdir/big"
refuse "a line longer than a page" EINVAL $m -f "$tmpdir/big"
rq_logged() { since_mark | grep -q 'input_mode=rq is not supported'; }
check "the kernel log says why input_mode=rq was refused" rq_logged
lines=$(since_mark | grep -c 'rnbd_client: map_device: invalid input')
diag "$lines 'invalid input' log lines for the writes above (rate-limited)"
check "rejections are logged" test "$lines" -ge 5

# Lines that parse but name something that does not exist.
refuse "no path= and no such session" ENXIO $m "sessname=nosuch device_path=/dev/ram0"
refuse "device the server does not have" ENOENT $m "sessname=h1 path=ip:$a device_path=/dev/ram9"
refuse "device_path escaping with .." EINVAL $m "sessname=h1 path=ip:$a device_path=../../dev/ram0"
other_refused() { # DESC TEXT: any error, nothing changed
    local got; got=$(wr $m "$2")
    if [ "$got" != OK ] && settled; then ok "$1 -> refused ($got), nothing changed"; else not_ok "$1: got $got, state: $(snapshot | tr '\n' ' ')"; fi
}
other_refused "a directory as device" "sessname=h1 path=ip:$a device_path=/dev"
other_refused "a regular file as device" "sessname=h1 path=ip:$a device_path=/etc/hostname"
other_refused "a port nobody listens on" "dest_port=4321 sessname=h1 path=ip:$a device_path=/dev/ram0"

# The per-device files of a real mapping.
check "a valid map still works after all that" test "$(wr $m "$ok_line")" = OK
d=/sys/block/rnbd0/rnbd
for ((i = 0; i < 50; i++)); do [ -e $d/state ] && break; sleep 0.1; done
size0=$(cat /sys/block/rnbd0/size 2>/dev/null)
dev_refuse() { # DESC WANT FILE TEXT
    local got; got=$(wr "$3" "$4")
    if [ "$got" = "$2" ] && [ "$(cat /sys/block/rnbd0/size)" = "$size0" ] && [ "$(cat $d/state)" = open ]; then
        ok "$1 -> $2"
    else
        not_ok "$1: got $got, size $(cat /sys/block/rnbd0/size) state $(cat $d/state)"
    fi
}
dev_refuse "unmap_device blank" EINVAL $d/unmap_device " "
dev_refuse "unmap_device 'normalx'" EINVAL $d/unmap_device "normalx"
dev_refuse "unmap_device 'normal force'" EINVAL $d/unmap_device "normal force"
dev_refuse "remap_device 2" EINVAL $d/remap_device 2
dev_refuse "remap_device abc" EINVAL $d/remap_device abc
dev_refuse "resize abc" EINVAL $d/resize abc
dev_refuse "resize -1" EINVAL $d/resize -1
dev_refuse "resize 0" EINVAL $d/resize 0
dev_refuse "resize 2^64" EINVAL $d/resize 18446744073709551616
dev_refuse "resize beyond the device" EINVAL $d/resize $((size0 + 1))
expect_errno "the read-only file state refuses writes" EACCES $d/state x
expect_errno "the read-only file session refuses writes" EACCES $d/session x
check "unmap" test "$(wr $d/unmap_device normal)" = OK
base_ok() { settled; }
check "back to the initial state" base_ok
rmmod_ok() {
    rmmod rnbd_client && rmmod rtrs_client || return 1
    local x; for x in rnbd_server rtrs_server rtrs_core; do rmmod $x || return 1; done
}
check "rmmod" rmmod_ok
expect_no_leak "no leak reports from our modules" "$(dmesg)" 'cxxrt: leak|still alive at unload'
tap_done; exit $?
