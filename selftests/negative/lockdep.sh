#!/usr/bin/env bash
# Negative test of the C++ locks' lockdep classes, run in its own VM by
# tools/vm/selftest-lockdep.sh (from `make check`): loads the cxxrt self-test
# module with lock_inversion=1, which takes two C++ mutexes A->B, then B->A
# in one thread. A lockdep kernel must report "possible circular locking
# dependency" naming both classes (cxxrt::selftest::Inversion::a_, ::b_), so
# the VM runner fails the run. "lockdep.sh control" loads it with
# lock_inversion=0: that run must pass. Without lockdep (no /proc/lockdep)
# there is nothing to prove: a SKIP.
#   selftests/negative/lockdep.sh [inversion|control] [KO]
set -u
cd "$(dirname "$0")/../.."
mode=${1:-inversion}
ko=${2:-cxxrt/tests/kmod/cxxrt-selftest.ko}
echo "1..1"
if [ ! -e /proc/lockdep ]; then
    echo "ok 1 - lockdep $mode # SKIP kernel without lockdep (no /proc/lockdep)"
    exit 0
fi
inversion=1
[ "$mode" = control ] && inversion=0
if ! insmod "$ko" lock_inversion=$inversion; then
    echo "not ok 1 - lockdep $mode: insmod $ko failed"
    exit 1
fi
rmmod cxxrt_selftest
# The report (the runner judges the whole log; this only shows it here).
dmesg | grep -A14 'possible circular locking dependency' || true
echo "ok 1 - lockdep $mode: module loaded with lock_inversion=$inversion"
exit 0
