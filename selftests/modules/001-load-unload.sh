#!/usr/bin/env bash
# The four product modules load and unload cleanly, alone (with what they
# need) and together, with correct modinfo; each brings up its C++ runtime
# (debugfs allocations file). rnbd-* need their rtrs-* module.
. "$(dirname "$0")/../lib.sh"
require_root
cd "$(dirname "$0")/../.."
tap_plan 24
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
modprobe rdma_cm || tap_skip_all "rdma_cm not available"
check "params and descriptions in modinfo" \
    bash -c 'modinfo -F parm rtrs/rtrs-server.ko | grep -q always_invalidate && modinfo -F parm rnbd/rnbd-server.ko | grep -q dev_search_path'
for pair in "rtrs/rtrs-client:" "rtrs/rtrs-server:" "rnbd/rnbd-client:rtrs/rtrs-client" "rnbd/rnbd-server:rtrs/rtrs-server"; do
    m=${pair%%:*}; dep=${pair#*:}
    name=$(basename "$m" | tr - _)
    check "$name: modinfo vermagic matches the running kernel" \
        bash -c "modinfo -F vermagic $m.ko | grep -q \"^$(uname -r) \""
    [ -n "$dep" ] && insmod "$dep.ko"
    check "$name: insmod" insmod "$m.ko"
    check "$name: allocation accounting in debugfs" grep -q "^type" "/sys/kernel/debug/$name/allocations"
    check "$name: rmmod" rmmod "$name"
    [ -n "$dep" ] && rmmod "$(basename "$dep" | tr - _)"
    check "$name: gone after rmmod" test ! -e "/sys/module/$name"
done
all_ok=1
for m in rtrs/rtrs-client rtrs/rtrs-server rnbd/rnbd-client rnbd/rnbd-server; do insmod "$m.ko" || all_ok=0; done
[ $all_ok = 1 ] && ok "all four load together" || not_ok "all four load together"
check "rtrs_client is refused while rnbd_client uses it" bash -c '! rmmod rtrs_client 2>/dev/null'
all_ok=1
for m in rnbd_server rnbd_client rtrs_server rtrs_client; do rmmod "$m" || all_ok=0; done
[ $all_ok = 1 ] && ok "all four unload in reverse order" || not_ok "all four unload in reverse order"
tap_done; exit $?
