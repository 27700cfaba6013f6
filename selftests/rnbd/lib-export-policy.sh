# shellcheck shell=bash
# The rnbd-server export policy seen from a client, shared by
# 011-export-policy-upstream-client.sh (Linux 6.1's rnbd-client) and
# 012-export-policy-our-client.sh (ours). Source it with EXPORT_CLIENT set
# to "upstream" or "ours", from the repo top; it runs the whole test.
#
# Defaults (dev_search_path=/, file export off): a regular file, etc/shadow,
# /dev/zero, /dev/null, a FIFO, a socket and a directory are each refused
# within a second (measured) with ENOENT, the errno of a missing path (OPEN
# is no oracle of the server's filesystem), one log line each (the detail)
# and nothing left behind; a RAM disk still maps and passes fio --verify. Then
# file_export_dir is set at run time (bad values refused), an image inside
# it maps (fio --verify, same data on the server), and an image outside it,
# one reached through "..", through a symlink leading out, and a FIFO inside
# it are refused. Everything unmaps and the server unloads cleanly.
set -uo pipefail
. selftests/lib.sh
. selftests/lib-rxe.sh

base=/tmp/rnbd-export-$EXPORT_CLIENT
ctl=/sys/class/rnbd-client/ctl
params=/sys/module/rnbd_server/parameters
srv=/sys/kernel/rnbd_server/devices
sess=exp-$EXPORT_CLIENT

require_root
for f in rtrs/rtrs-server.ko rnbd/rnbd-server.ko; do
    [ -f "$f" ] || tap_skip_all "$f not built (make)"
done
if [ "$EXPORT_CLIENT" = upstream ]; then
    client_modules=("$kodir/rtrs-core.ko" "$kodir/rtrs-client.ko" "$kodir/rnbd-client.ko")
    client_unload=(rnbd_client rtrs_client rtrs_core)
    unmap_dir=rnbd
else
    client_modules=(rtrs/rtrs-client.ko rnbd/rnbd-client.ko)
    client_unload=(rnbd_client rtrs_client)
    unmap_dir=rnbd_client
fi
for f in "${client_modules[@]}"; do [ -f "$f" ] || tap_skip_all "$f missing (make; tools/upstream/build.sh)"; done
for t in fio python3 mkfifo modinfo; do command -v $t >/dev/null || tap_skip_all "missing tool $t"; done

loaded() { grep -qE "^${1//-/_} " /proc/modules; }
cleanup() {
    local d
    for d in /sys/block/rnbd*/$unmap_dir/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    for m in "${client_unload[@]}" rnbd_server rtrs_server; do loaded $m && rmmod $m; done
    rxe_teardown >/dev/null 2>&1
    rm -rf "$base"
    return 0
}
trap cleanup EXIT

rnbd_devices() { ls /sys/block | grep '^rnbd' | sort; }
# map DEVICE_PATH [OPTIONS]: maps in session $sess; prints the new /dev/rnbdN.
map() {
    local before after i
    before=$(rnbd_devices)
    echo "sessname=$sess path=ip:$addr device_path=$1 ${2:-}" > "$ctl/map_device" || return 1
    for ((i = 0; i < 100; i++)); do
        after=$(rnbd_devices | grep -vxF "$before" | head -1)
        [ -n "$after" ] && [ -b "/dev/$after" ] && { echo "/dev/$after"; return 0; }
        sleep 0.1
    done
    echo "no new rnbd device" >&2; return 1
}
unmap() {
    local n=${1#/dev/} i
    echo normal > "/sys/block/$n/$unmap_dir/unmap_device" || return 1
    for ((i = 0; i < 100; i++)); do [ -e "/sys/block/$n" ] || return 0; sleep 0.1; done
    echo "$n still present"; return 1
}
fio_verify() {
    fio --name=verify --filename="$1" --rw=randwrite --bsrange=4k-128k --direct=1 --ioengine=libaio \
        --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 --size=100% \
        --output="$base/fio.out" >/dev/null 2>&1
    local rc=$?
    grep -E "err=|WRITE:" "$base/fio.out" | sed 's/^/# /'
    [ $rc = 0 ] || cat "$base/fio.out"
    return $rc
}
# refused ERRNO-TEXT DEVICE_PATH [LOG-LINES]: the map fails with that
# message (both clients pass the server's errno on), the server refuses
# within a second and the map_device write
# fails within a second, with at most one server
# log line (exactly LOG-LINES when given: the log is rate-limited, 10 lines
# per 5 s for the module), and nothing exported or mapped is left behind.
# The time measured is from a marker written to /dev/kmsg just before the
# map_device write to the server's log line, both kernel timestamps: the
# request's way through the client and RTRS and the server's decision; the
# write is timed with bash's clock (no fork: under TCG on a loaded host a
# fork can take longer than the refusal). A time over a limit is measured
# once more and the better time counts; a refusal that hangs, as opening a
# FIFO did, fails both. Measured in the VM: 2-66 ms.
refuse_ms=${EXPORT_REFUSE_MS:-1000}
write_ms=${EXPORT_WRITE_MS:-1000}
refused() {
    local want=$1 path=$2 start ms server_ms best_ms="" best_server="" lines new_log attempt marker
    local before_srv before_clt
    before_srv=$(ls "$srv" | sort) before_clt=$(rnbd_devices)
    for attempt in 1 2; do
        marker="export-policy-test: map $path attempt $attempt"
        # builtins only between the marker, the clock and the write (a fork
        # under load takes longer than the refusal)
        echo "$marker" > /dev/kmsg
        start=${EPOCHREALTIME/./}
        if echo "sessname=$sess path=ip:$addr device_path=$path" > "$ctl/map_device" 2>"$base/err"; then
            echo "map of $path succeeded"; return 1
        fi
        ms=$(( (${EPOCHREALTIME/./} - start) / 1000 ))
        # Everything from the marker on (a line count would not work once the
        # ring buffer is full and drops its oldest lines).
        new_log=$(dmesg | awk -v m="$marker" 'index($0, m) { found = 1 } found')
        server_ms=$(awk -v m="$marker" -v s="session $sess: " -F'[][]' '
            index($0, m) { t = $2 } index($0, "rnbd_server: " s) && t != "" { printf "%d", ($2 - t) * 1000; exit }' \
            <<<"$new_log")
        new_log=$(grep "rnbd_server: session $sess: " <<<"$new_log")
        lines=$(grep -c . <<<"$new_log")
        [ -n "$new_log" ] && echo "# $new_log"
        echo "# $path: refused by the server ${server_ms:-?} ms after the request, write failed after $ms ms: $(sed 's/.*: //' "$base/err")"
        [ -z "$best_ms" ] || [ "$ms" -lt "$best_ms" ] && best_ms=$ms
        [ -n "$server_ms" ] && { [ -z "$best_server" ] || [ "$server_ms" -lt "$best_server" ]; } && best_server=$server_ms
        [ "$ms" -le "$write_ms" ] && [ "${server_ms:-0}" -le "$refuse_ms" ] && break
    done
    grep -q "$want" "$base/err" || { echo "expected '$want'"; return 1; }
    [ -z "$best_server" ] || [ "$best_server" -le "$refuse_ms" ] || { echo "the server took $best_server ms at best"; return 1; }
    [ "$best_ms" -le "$write_ms" ] || { echo "the write took $best_ms ms at best"; return 1; }
    [ "$(ls "$srv" | sort)" = "$before_srv" ] || { echo "server exports changed: $(ls "$srv")"; return 1; }
    [ "$(rnbd_devices)" = "$before_clt" ] || { echo "client devices changed: $(rnbd_devices)"; return 1; }
    [ "$lines" -le 1 ] || { echo "$lines server log lines for $path"; return 1; }
    [ -z "${3:-}" ] || [ "$lines" = "$3" ] || { echo "$lines server log lines for $path, expected $3"; return 1; }
}
# set_param NAME VALUE EXPECTED-ERROR-TEXT|"": a write to the parameter file.
set_param() {
    if echo "$2" > "$params/$1" 2>"$base/err"; then [ -z "$3" ]; return; fi
    echo "# $1=$2: $(sed 's/.*: //' "$base/err")"
    [ -n "$3" ] && grep -q "$3" "$base/err"
}

tap_plan 37

setup_env() {
    local i
    # brd may be loaded by an earlier test with fewer devices
    grep -q "^brd " /proc/modules && { rmmod brd || { echo "rmmod brd failed"; return 1; }; }
    modprobe brd rd_nr=2 rd_size=16384 && modprobe ib_core && modprobe rdma_cm || { echo "modprobe failed"; return 1; }
    for ((i = 0; i < 50; i++)); do [ -b /dev/ram0 ] && [ -b /dev/ram1 ] && break; sleep 0.1; done
    [ -b /dev/ram0 ] && [ -b /dev/ram1 ] || { echo "no /dev/ram0 and /dev/ram1"; ls -l /dev/ram*; return 1; }
    rm -rf "$base" && mkdir -p "$base/images" "$base/dir" || return 1
    dd if=/dev/urandom of="$base/plain.img" bs=1M count=4 status=none &&
        dd if=/dev/urandom of="$base/outside.img" bs=1M count=4 status=none &&
        dd if=/dev/urandom of="$base/images/inside.img" bs=1M count=16 status=none &&
        dd if=/dev/urandom of="$base/images/other.img" bs=1M count=4 status=none || { echo "image files"; return 1; }
    mkfifo "$base/fifo" "$base/images/fifo" || return 1
    python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$base/socket" || return 1
    ln -s ../outside.img "$base/images/link-out" && ln -s /etc/shadow "$base/images/link-shadow" &&
        ln -s other.img "$base/images/link-in" || return 1
    [ -p "$base/fifo" ] && [ -S "$base/socket" ] || { echo "no FIFO or socket"; return 1; }
    rxe_setup 1 || { echo "rxe_setup failed"; return 1; }
}
must "brd, files, a FIFO, a socket, a directory, symlinks and Soft-RoCE are ready" setup_env
addr=${RXE_ADDR[0]}

must "insmod our rtrs-server.ko and rnbd-server.ko with defaults (dev_search_path=/, file export off)" \
    bash -c "insmod rtrs/rtrs-server.ko && insmod rnbd/rnbd-server.ko"
check "modinfo describes file_export_dir and allow_realtime_ioprio; defaults read back (empty, N)" bash -c "
    modinfo -F parm rnbd/rnbd-server.ko | grep -q '^file_export_dir:.*regular files' &&
    modinfo -F parm rnbd/rnbd-server.ko | grep -q '^allow_realtime_ioprio:.*real-time' &&
    [ -z \"\$(cat $params/file_export_dir)\" ] && [ \"\$(cat $params/allow_realtime_ioprio)\" = N ]"
must "insmod the $EXPORT_CLIENT client (${client_modules[*]##*/})" \
    bash -c "for m in ${client_modules[*]}; do insmod \$m || exit 1; done"

ram1_dev=$(map /dev/ram1 access_mode=ro)
must "map /dev/ram1 read-only: the session is up ($ram1_dev)" test -b "$ram1_dev"

# Every refusal of what a path leads to answers what a missing path does.
not_exported="No such file or directory"
check "a missing path is refused (ENOENT) within 1 s" refused "$not_exported" "$base/nothing"
check "a path through a regular file is refused (ENOENT, not ENOTDIR) within 1 s" \
    refused "$not_exported" "$base/plain.img/x"
sleep 5  # the rate limit of the log lines starts again
check "a FIFO is refused (ENOENT) within 1 s, not opened (no hang), one log line" \
    refused "$not_exported" "$base/fifo" 1
check "a regular file ($base/plain.img) is refused (ENOENT) within 1 s" refused "$not_exported" "$base/plain.img"
check "etc/shadow relative to dev_search_path=/ is refused (ENOENT) within 1 s" refused "$not_exported" etc/shadow
check "/dev/zero (character device) is refused (ENOENT) within 1 s" refused "$not_exported" /dev/zero
check "/dev/null (character device) is refused (ENOENT) within 1 s" refused "$not_exported" /dev/null
check "a UNIX socket is refused (ENOENT) within 1 s" refused "$not_exported" "$base/socket"
check "a directory is refused (ENOENT) within 1 s" refused "$not_exported" "$base/dir"
check "/dev itself (a directory) is refused (ENOENT) within 1 s" refused "$not_exported" /dev
check "a regular file inside the later file_export_dir is refused while it is unset" \
    refused "$not_exported" "$base/images/inside.img"

ram0_dev=$(map /dev/ram0)
check "the server still maps /dev/ram0 read-write afterwards ($ram0_dev)" test -b "$ram0_dev"
check "fio randwrite 4k-128k QD16 + crc32c verify over all of $ram0_dev" fio_verify "$ram0_dev"
check "what $ram0_dev reads is what the server's /dev/ram0 holds" cmp "$ram0_dev" /dev/ram0

check "file_export_dir: a relative path is refused (EINVAL)" set_param file_export_dir images "Invalid argument"
check "file_export_dir: a missing directory is refused (ENOENT)" set_param file_export_dir "$base/none" "No such file"
check "file_export_dir: a regular file is refused (ENOTDIR)" set_param file_export_dir "$base/outside.img" "Not a directory"
check "file_export_dir: a path of PATH_MAX bytes is refused (ENAMETOOLONG)" \
    set_param file_export_dir "/$(printf 'a%.0s' $(seq 4095))" "File name too long"
check "file_export_dir is still empty after the refused writes" test -z "$(cat $params/file_export_dir)"
check "file_export_dir=$base/images is accepted at run time and reads back" bash -c "
    echo $base/images > $params/file_export_dir && [ \"\$(cat $params/file_export_dir)\" = $base/images ]"

img_dev=$(map "$base/images/inside.img")
check "an image inside file_export_dir maps ($img_dev, 16 MiB)" \
    test "$(blockdev --getsize64 "$img_dev" 2>/dev/null)" = $((16 << 20))
check "fio randwrite 4k-128k QD16 + crc32c verify over all of $img_dev" fio_verify "$img_dev"
check "what $img_dev reads is what the image file holds" cmp "$img_dev" "$base/images/inside.img"
link_dev=$(map "$base/images/link-in" access_mode=ro)
check "a symlink inside the directory to an image inside it maps ($link_dev = other.img)" \
    cmp "$link_dev" "$base/images/other.img"
sleep 5  # the rate limit of the log lines starts again
check "an image outside file_export_dir is refused (ENOENT), one log line" \
    refused "$not_exported" "$base/outside.img" 1
check "a path through '..' out of the directory is refused (EINVAL)" \
    refused "Invalid argument" "$base/images/../outside.img"
check "a symlink in the directory leading out of it is refused (ENOENT)" \
    refused "$not_exported" "$base/images/link-out"
check "a symlink in the directory to /etc/shadow is refused (ENOENT)" \
    refused "$not_exported" "$base/images/link-shadow"
check "a FIFO inside the directory is still refused (ENOENT)" refused "$not_exported" "$base/images/fifo"
check "file_export_dir emptied at run time: the image is refused again, the open mapping stays" bash -c "
    $(declare -f refused rnbd_devices); base=$base srv=$srv ctl=$ctl sess=$sess addr=$addr EXPORT_CLIENT=$EXPORT_CLIENT
    refuse_ms=$refuse_ms write_ms=$write_ms
    echo > $params/file_export_dir && [ -z \"\$(cat $params/file_export_dir)\" ] &&
    refused '$not_exported' $base/images/other.img && [ -b $img_dev ]"

check "unmap everything" bash -c "$(declare -f unmap); unmap_dir=$unmap_dir
    unmap $link_dev && unmap $img_dev && unmap $ram0_dev && unmap $ram1_dev"
check "the client and the server unload cleanly, no leak reported" bash -c "
    for m in ${client_unload[*]} rnbd_server rtrs_server; do rmmod \$m || exit 1; done
    ! dmesg | grep -q 'cxxrt: leak'"

tap_done; exit $?
