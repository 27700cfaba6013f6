#!/usr/bin/env bash
# cxxrt's sysfs layer seen from userspace: the self-test module keeps a demo
# tree while loaded (cxxrt/tests/kmod/selftest-sysfs.cpp): a class device
# with read-only, read-write and self-removing files, a kobject
# subdirectory, and a symlink under /sys/kernel. Checks what a user would:
# values read back, errnos of bad writes, usage text of write-only files,
# links resolve, and that everything is gone after rmmod.
. "$(dirname "$0")/../lib.sh"
require_root
cd "$(dirname "$0")/../.."
ko=cxxrt/tests/kmod/cxxrt-selftest.ko
[ -f "$ko" ] || tap_skip_all "$ko not built (make selftest-modules)"
lsmod | grep -q '^cxxrt_selftest ' && rmmod cxxrt_selftest
mark="cxxrt-sysfs-start-$$"
echo "$mark" > /dev/kmsg
if ! insmod "$ko"; then not_ok "insmod $ko (the module 001-kmod-selftest.sh loads too)"; tap_skip_all "insmod failed"; fi

dev=/sys/class/cxxrt-selftest/demo
top=/sys/kernel/cxxrt_selftest
# `write FILE TEXT`: prints the shell's error (e.g. "Invalid argument") on failure.
write() { bash -c "echo '$2' > '$1'" 2>&1; }

check "class directory exists" test -d /sys/class/cxxrt-selftest
check "device demo exists" test -d "$dev"
check "counter is read-only (0444)" test "$(stat -Lc %a "$dev/counter")" = 444
check "value is read-write (0644)" test "$(stat -Lc %a "$dev/value")" = 644
check "counter starts at 0" test "$(cat "$dev/counter")" = 0
check "value starts at 0" test "$(cat "$dev/value")" = 0

out=$(write "$dev/value" 42) && ok "write 42 to value" || not_ok "write 42 to value: $out"
check "value reads back 42" test "$(cat "$dev/value")" = 42
check "counter counts the accepted write" test "$(cat "$dev/counter")" = 1
out=$(write "$dev/value" 0x10) && ok "hex write accepted" || not_ok "hex write: $out"
check "value reads back 16" test "$(cat "$dev/value")" = 16

out=$(write "$dev/value" bad)
if [ $? -ne 0 ] && grep -q "Invalid argument" <<<"$out"; then
    ok "bad write fails with EINVAL"
else
    not_ok "bad write fails with EINVAL (got: $out)"
fi
out=$(write "$dev/value" "")
if [ $? -ne 0 ] && grep -q "Invalid argument" <<<"$out"; then ok "empty write fails with EINVAL"; else not_ok "empty write: $out"; fi
out=$(write "$dev/value" 99999999999)
if [ $? -ne 0 ]; then ok "out-of-range write fails ($out)"; else not_ok "out-of-range write accepted"; fi
check "value unchanged after rejected writes" test "$(cat "$dev/value")" = 16
check "counter unchanged after rejected writes" test "$(cat "$dev/counter")" = 2
expect_errno "writing a read-only file fails" EACCES "$dev/counter" 1

check "stats/ is a subdirectory" test -d "$dev/stats"
check "stats/writes matches counter" test "$(cat "$dev/stats/writes")" = 2
check "stats/rejected counts the rejected writes" test "$(cat "$dev/stats/rejected")" = 3
check "write-only stats/reset prints its usage" grep -q "^Usage: echo 1 > reset" "$dev/stats/reset"
out=$(write "$dev/stats/reset" 2)
if [ $? -ne 0 ] && grep -q "Invalid argument" <<<"$out"; then ok "stats/reset rejects 2"; else not_ok "stats/reset 2: $out"; fi
check "stats unchanged after a rejected reset" test "$(cat "$dev/stats/writes")" = 2
out=$(write "$dev/stats/reset" 1) && ok "stats/reset accepts 1" || not_ok "stats/reset 1: $out"
check "stats/writes reset to 0" test "$(cat "$dev/stats/writes")" = 0
check "stats/rejected reset to 0" test "$(cat "$dev/stats/rejected")" = 0

check "/sys/kernel/cxxrt_selftest exists" test -d "$top"
check "devices/demo is a symlink" test -L "$top/devices/demo"
check "the symlink resolves to the device" \
    test "$(readlink -f "$top/devices/demo")" = "$(readlink -f "$dev")"
check "value readable through the symlink" test "$(cat "$top/devices/demo/value")" = 16

check "write-only remove_me prints its usage" grep -q "^Usage: echo 1 > remove_me" "$dev/remove_me"
out=$(write "$dev/remove_me" 1) && ok "write to remove_me succeeds" || not_ok "write remove_me: $out"
check "remove_me is gone" test ! -e "$dev/remove_me"
check "the other files stay" test -e "$dev/value"

check "rmmod" rmmod cxxrt_selftest
check "class gone after rmmod" test ! -e /sys/class/cxxrt-selftest
check "device gone after rmmod" test ! -e /sys/devices/virtual/cxxrt-selftest
check "/sys/kernel/cxxrt_selftest gone after rmmod" test ! -e "$top"
if dmesg | sed -n "/$mark/,\$p" | grep -q "cxxrt: leak\|not released"; then not_ok "no leak or stuck kobject reported"; else ok "no leak or stuck kobject reported"; fi
tap_done; exit $?
