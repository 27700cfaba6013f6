#!/usr/bin/env bash
# The cxxrt runtime's own tests, run inside this kernel by cxxrt-selftest.ko
# (allocation failure paths, lock guards, lists, refcount release, parsing).
# The module prints KTAP lines to the kernel log; they are re-emitted here.
. "$(dirname "$0")/../lib.sh"
require_root
cd "$(dirname "$0")/../.."
ko=cxxrt/tests/kmod/cxxrt-selftest.ko
[ -f "$ko" ] || tap_skip_all "$ko not built (make selftest-modules)"
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
mark="cxxrt-selftest-start-$$"
echo "$mark" > /dev/kmsg
if insmod "$ko"; then loaded=1; else loaded=0; fi
# The module's own results, from the kernel log after our mark.
results=$(dmesg | sed -n "/$mark/,\$p" | sed -n 's/.*cxxrt_selftest: \(\(not \)\{0,1\}ok [0-9]* .*\)/\1/p')
[ -n "$results" ] || results="not ok 1 no results from the module"
while read -r line; do
    case "$line" in
        "ok "*) ok "kernel: ${line#ok [0-9]* }" ;;
        *) not_ok "kernel: ${line#not ok [0-9]* }" ;;
    esac
done <<<"$results"
[ $loaded = 1 ] && ok "insmod succeeds when every in-kernel test passes" || not_ok "insmod cxxrt-selftest.ko"
if [ $loaded = 1 ]; then
    check "allocations are listed by type in debugfs" \
        grep -q "Element" /sys/kernel/debug/cxxrt_selftest/allocations
    check "fail_nth knob is exposed in debugfs" test -w /sys/kernel/debug/cxxrt_selftest/fail_nth
    check "rmmod" rmmod cxxrt_selftest
    if dmesg | sed -n "/$mark/,\$p" | grep -q "cxxrt: leak"; then
        not_ok "no leak reported at module exit"
    else
        ok "no leak reported at module exit"
    fi
fi
tap_done; exit $?
