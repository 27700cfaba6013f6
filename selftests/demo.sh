#!/usr/bin/env bash
# Guest side of `make demo`: loads each module, shows what the kernel says
# about it, runs the cxxrt self-test, unloads everything.
set -euo pipefail
cd "$(dirname "$0")/.."
mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug
say() { printf '\n>>> %s\n' "$*"; }
say "kernel $(uname -r), $(nproc) CPUs"
for m in rtrs/rtrs-client rtrs/rtrs-server rnbd/rnbd-client rnbd/rnbd-server; do
    say "insmod $m.ko"
    insmod "$m.ko"
    modinfo -F description "$m.ko"
done
say "lsmod (our modules)"
lsmod | grep -E '^(rtrs|rnbd)_'
say "allocation accounting of rtrs_client (debugfs)"
cat /sys/kernel/debug/rtrs_client/allocations
say "cxxrt in-kernel self-test"
insmod cxxrt/tests/kmod/cxxrt-selftest.ko
dmesg | grep 'cxxrt_selftest: ' | sed -n '/KTAP/,$p' | sed 's/^\[[^]]*\] //'
rmmod cxxrt_selftest
say "unloading"
for m in rnbd_server rnbd_client rtrs_server rtrs_client; do rmmod "$m"; done
dmesg | grep -E '(rtrs|rnbd)_(client|server): (loaded|unloaded)' | tail -8 | sed 's/^\[[^]]*\] //'
say "all four modules loaded and unloaded; the C++ runtime passed its in-kernel tests"
