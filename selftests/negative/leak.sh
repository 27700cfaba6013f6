#!/usr/bin/env bash
# Negative test, run by `make check` in its own VM with --expect-fail: the
# self-test module is loaded with leak_on_exit=1, so its exit must report
# "cxxrt: leak" with a WARN, and the VM runner must judge the run failed.
set -u
cd "$(dirname "$0")/../.."
insmod cxxrt/tests/kmod/cxxrt-selftest.ko leak_on_exit=1 || exit 0
rmmod cxxrt_selftest
dmesg | grep "cxxrt: leak" || echo "leak check did not fire"
exit 0
