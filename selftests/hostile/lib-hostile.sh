# shellcheck shell=bash
# What the hostile-peer scripts share (sourced from the repo top after
# lib.sh and lib-rxe.sh): the module, a scratch directory, the kernel log
# since a marker, and the teardown.
#
#   hostile_init NAME        skip unless the module is built; $tmp: a new scratch directory
#   mark NAME / since_mark NAME   write a marker to the kernel log / print the log since it
#   hostile_cleanup MODULE...     force-unmap every rnbd device, unload MODULE... (those
#                                 loaded, in that order), Soft-RoCE and brd; remove $tmp;
#                                 a module rmmod leaves loaded is a "not ok" naming it
#   hostile_fio_verify DEVICE SIZE MAXBS QD   the good client's proof: fio randwrite of
#                                 SIZE, 4k..MAXBS at QD, crc32c verify; fio's tail on failure

ko=rtrs/tests/kmod/rtrs-hostile.ko

hostile_init() {
    [ -f $ko ] || tap_skip_all "$ko not built (make selftest-modules)"
    tmp=$(mktemp -d "/tmp/hostile-$1.XXXXXX")
}

# Kernel log since a marker written to /dev/kmsg (line counts do not work
# once the ring buffer is full and drops its oldest lines).
mark() { echo "hostile-mark $1" > /dev/kmsg; }
# If the marker itself was pushed out, what is left is all newer than it.
since_mark() {
    dmesg > "$tmp/dmesg"
    if grep -q "hostile-mark $1\$" "$tmp/dmesg"; then sed -n "/hostile-mark $1\$/,\$p" "$tmp/dmesg"; else cat "$tmp/dmesg"; fi
}

hostile_fio_verify() {
    fio --name=hostile-verify --filename="$1" --ioengine=libaio --direct=1 --size="$2" --rw=randwrite \
        --bsrange="4k-$3" --iodepth="$4" --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --output="$tmp/fio.out" >/dev/null 2>&1 || { sed 's/^/# /' "$tmp/fio.out" | tail -5; return 1; }
}

hostile_cleanup() {
    local d m
    for d in /sys/block/rnbd*/rnbd_client/unmap_device; do [ -e "$d" ] && echo force > "$d" 2>/dev/null; done
    for m in "$@"; do
        grep -q "^$m " /proc/modules || continue
        rmmod "$m" || not_ok "teardown of ${0#*selftests/}: rmmod $m failed"
    done
    rxe_teardown >/dev/null 2>&1
    # Later tests load brd with their own sizes.
    if grep -q "^brd " /proc/modules; then rmmod brd || not_ok "teardown of ${0#*selftests/}: rmmod brd failed"; fi
    rm -rf "$tmp"
}
