#!/usr/bin/env bash
# Deliberate-failure proof for the VM runner. On the host (no arguments) it
# builds a tiny module (tools/vm/warnmod/, one WARN() at load time) against the
# VM kernel's headers, boots a VM that loads it, and checks that run.sh FAILS
# with exit 3 (check-log.sh) although the guest command itself exits 0.
#   tools/vm/selftest-warn.sh           real WARN from a module
#   tools/vm/selftest-warn.sh --kmsg    fake one: a WARNING: line written to /dev/kmsg
# Exit 0 when run.sh failed as it should, 1 otherwise.
# The guest half is "selftest-warn.sh guest [KO]"; the same proof by hand:
#   tools/vm/run.sh --expect-fail -- tools/vm/selftest-warn.sh guest
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ "${1:-}" = guest ]; then
    echo "1..2"
    echo "ok 1 - a passing line"
    echo "not ok 2 - a skipped one is fine # SKIP demo"
    if [ -n "${2:-}" ]; then
        insmod "$2" && rmmod vm_warn_test
    else
        echo 'WARNING: CPU: 0 PID: 1 at tools/vm/selftest-warn.sh:1 injected_warning+0x0/0x0' > /dev/kmsg
    fi
    sleep 0.2
    exit 0
fi
ko=
if [ "${1:-}" != --kmsg ]; then
    abi=$(cat "$top/.cache/kernel.abi")
    b=$top/build/vm/warnmod
    mkdir -p "$b" && cp "$here/warnmod/vm_warn_test.c" "$here/warnmod/Kbuild" "$b/"
    make -s -C "/usr/src/linux-headers-$abi" M="$b" modules >"$b/build.log" 2>&1 \
        || { cat "$b/build.log"; echo "selftest-warn: cannot build the module" >&2; exit 1; }
    ko=$b/vm_warn_test.ko
fi
"$here/run.sh" --timeout 120 --log "$top/build/vm/selftest-warn.log" -- "$here/selftest-warn.sh" guest $ko
rc=$?
if [ "$rc" = 3 ] && grep -aq 'WARNING:' "$top/build/vm/selftest-warn.log"; then
    echo "selftest-warn: PASS: run.sh failed with exit 3 on the guest kernel WARNING (guest command exited 0)"
    exit 0
fi
echo "selftest-warn: FAIL: run.sh exited $rc, expected 3"
exit 1
