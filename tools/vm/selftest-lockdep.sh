#!/usr/bin/env bash
# Proof that lockdep sees every C++ lock as its own class and that the VM
# runner fails on its reports. Boots a VM (run.sh options pass through, e.g.
# --kernel/--kdir/--abi of a debug kernel) that runs selftests/negative/lockdep.sh:
#   1. inversion: cxxrt-selftest.ko with lock_inversion=1 takes two C++
#      mutexes A->B then B->A; the run must FAIL (exit 3, check-log.sh) on
#      "possible circular locking dependency" naming both classes;
#   2. control (skipped with --no-control): lock_inversion=0; the run must pass.
# On a kernel without lockdep the guest prints a SKIP and the run passes:
# then this is a SKIP too. The modules must be built for that kernel.
# Prints one TAP line per run (run.sh's output goes to LOG.out next to each
# console log in build/vm/); exit 0 when everything held (or SKIP).
#   tools/vm/selftest-lockdep.sh [--no-control] [--ko PATH] [run.sh options]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
control=1 ko=cxxrt/tests/kmod/cxxrt-selftest.ko
while [ $# -gt 0 ]; do
    case "$1" in
        --no-control) control=0; shift ;;
        --ko) ko=${2:?}; shift 2 ;;
        *) break ;;
    esac
done
logdir=$top/build/vm
mkdir -p "$logdir"
a='cxxrt::selftest::Inversion::a_' b='cxxrt::selftest::Inversion::b_'

log=$logdir/lockdep-inversion.log
"$here/run.sh" --timeout "${LOCKDEP_TIMEOUT:-1500}" --log "$log" "$@" -- selftests/negative/lockdep.sh inversion "$ko" \
    > "$log.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -aq 'lockdep inversion # SKIP' "$log"; then
    echo "ok 1 - lockdep inversion # SKIP kernel without lockdep"
    exit 0
fi
failed=0
if [ "$rc" = 3 ] && grep -aq 'possible circular locking dependency' "$log" \
    && grep -aqF "($a)" "$log" && grep -aqF "($b)" "$log"; then
    echo "ok 1 - lockdep reports the AB-BA inversion of two C++ mutexes by name and the run fails"
    grep -aE 'possible circular locking|is trying to acquire|already holding|Inversion::' "$log" | head -8 | sed 's/^/#   /'
else
    echo "not ok 1 - lockdep inversion: run.sh exited $rc (expected 3 with a circular-locking report naming $a and $b; log $log)"
    failed=1
fi
if [ "$control" = 1 ]; then
    log=$logdir/lockdep-control.log
    if "$here/run.sh" --timeout "${LOCKDEP_TIMEOUT:-1500}" --log "$log" "$@" -- \
        selftests/negative/lockdep.sh control "$ko" > "$log.out" 2>&1; then
        echo "ok 2 - lockdep control: the same module without the inversion passes"
    else
        echo "not ok 2 - lockdep control: the run without the inversion failed (log $log)"
        failed=1
    fi
fi
exit $failed
