#!/usr/bin/env bash
# The four product modules load and unload cleanly, alone and together, with
# correct modinfo; each brings up its C++ runtime (debugfs allocations file).
. "$(dirname "$0")/../lib.sh"
require_root
cd "$(dirname "$0")/../.."
modules="rtrs/rtrs-client rtrs/rtrs-server rnbd/rnbd-client rnbd/rnbd-server"
tap_plan 22
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
for m in $modules; do
    name=$(basename "$m" | tr - _)
    check "$name: modinfo vermagic matches the running kernel" \
        bash -c "modinfo -F vermagic $m.ko | grep -q \"^$(uname -r) \""
    check "$name: insmod" insmod "$m.ko"
    check "$name: allocation accounting in debugfs" \
        grep -q "^type" "/sys/kernel/debug/$name/allocations"
    check "$name: rmmod" rmmod "$name"
    check "$name: gone after rmmod" test ! -e "/sys/module/$name"
done
all_ok=1
for m in $modules; do insmod "$m.ko" || all_ok=0; done
[ $all_ok = 1 ] && ok "all four load together" || not_ok "all four load together"
all_ok=1
for m in rnbd/rnbd-server rnbd/rnbd-client rtrs/rtrs-server rtrs/rtrs-client; do
    rmmod "$(basename $m | tr - _)" || all_ok=0
done
[ $all_ok = 1 ] && ok "all four unload in reverse order" || not_ok "all four unload in reverse order"
tap_done; exit $?
