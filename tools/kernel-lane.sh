#!/usr/bin/env bash
# The second-kernel lane of `make check`: our modules built for, and tested
# on, Debian 12's 6.12 LTS kernel (tools/setup.sh fetched its headers, image
# and linux-source-6.12).
#   1. copy the tree to build/kernel-6.12/tree and build the modules and the
#      test modules there against the 6.12 headers (the stock 6.1 build in
#      the clone stays untouched): warning-free, check-ko clean;
#   2. the build gates (tools/gate-tests) against the 6.12 headers;
#   3. Linux 6.12's own RNBD/RTRS (tools/upstream/build.sh KERNEL=6.12), the
#      interop peer on this kernel;
#   4. boot 6.12 and run the selftests of selftests/kernel-6.12.list (a
#      subset that fits the CI budget: see the list) with that peer;
#   5. across versions on two VMs joined by the virtual wire, one boot of
#      each: the 6.1 VM serves the 6.12 VM, then the 6.12 VM serves the 6.1
#      VM, each direction ours/ours, Linux's server/our client, our
#      server/Linux's client (selftests/pair/rnbd-cross-version.sh, six
#      rounds, about 3 minutes).
# Usage: tools/kernel-lane.sh [selftest pattern...]   (default: the list)
# Environment: KERNEL_LANE_VM_TIMEOUT (default 2400 s: the list takes about 15 minutes beside the main
# VM run, the hostile scripts a third of it); KERNEL_LANE_VM_SMP: the VM's
# vCPUs (default 2; make check gives 1, see tools/check.sh); KERNEL_LANE_PAIR_AFTER: a file
# the pair (step 5) waits for (make check: its 6.1 modules and peer are built).
# Output: TAP in build/check/kernel-6.12{,-gates,-vm}.log and
# build/kernel-6.12/pair/{a,b}.log; exit 0 only if everything passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/check
mkdir -p "$out"
version=6.12
say() { echo "kernel-lane: $*"; }
tap=$out/kernel-$version.log
: > "$tap"
n=0 failed=0
result() { # ok|not-ok description
    n=$((n + 1))
    if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi | tee -a "$tap"
}

[ -f "$top/.cache/kernel-$version.abi" ] || { say "no .cache/kernel-$version.abi: run tools/setup.sh"; exit 1; }
abi=$(cat "$top/.cache/kernel-$version.abi")
kdir=/usr/src/linux-headers-$abi
say "kernel $abi, headers $kdir"

tree=$top/build/kernel-$version/tree
rm -rf "$tree"; mkdir -p "$tree"
(cd "$top" && git ls-files -co --exclude-standard | grep -vE '^(\.cache|build)(/|$)' | cpio -pdm --quiet "$tree")
ln -s "$top/.cache" "$tree/.cache"
build=$out/kernel-$version-build.log
if make -C "$tree" KDIR="$kdir" modules > "$build" 2>&1 && make -C "$tree" KDIR="$kdir" selftest-modules >> "$build" 2>&1; then
    grep -E '^check-ko:' "$build"
    if grep -qi warning "$build"; then
        grep -i warning "$build" | head -10
        result not-ok "build for $abi: warnings (log: $build)"
    else
        result ok "build for $abi: warning-free, check-ko clean"
    fi
else
    grep -E 'error|check-ko' "$build" | head -20
    result not-ok "build for $abi failed (log: $build)"
    exit 1
fi

# The gates whose verdict comes from this kernel's build (objtool, module
# sections); plain-new is modpost's undefined-symbol error, the same on both.
GATE_TESTS_DIR=$top/build/kernel-$version/gate-tests "$top/tools/gate-tests/run.sh" "$kdir" static-ctor eh-frame \
    > "$out/kernel-$version-gates.log" 2>&1
gates=$?
grep -E '^(ok|not ok)' "$out/kernel-$version-gates.log" | sed "s/^/gates on $version: /"

if "$top/tools/upstream/build.sh" KERNEL=$version > "$out/kernel-$version-upstream.log" 2>&1; then
    result ok "Linux $version's RNBD/RTRS built against $abi (interop peer)"
else
    tail -20 "$out/kernel-$version-upstream.log"
    result not-ok "Linux $version's RNBD/RTRS build failed"
fi

if [ $# -gt 0 ]; then patterns=("$@")
else mapfile -t patterns < <(grep -vE '^\s*(#|$)' "$top/selftests/kernel-$version.list")
fi
say "selftests: ${patterns[*]}"
"$top/tools/vm/run.sh" --kdir "$top/.cache/kernel-$version" --abi "$abi" --cwd "$tree" --smp "${KERNEL_LANE_VM_SMP:-2}" \
    --results "$top/build/kernel-$version/results" --timeout "${KERNEL_LANE_VM_TIMEOUT:-2400}" \
    --log "$out/kernel-$version-vm.log" -- \
    env UPSTREAM_KO_DIR="$top/.cache/upstream-$version" E2E_FIO_SIZE=16m selftests/run.sh "${patterns[@]}"
vm=$?

# make check starts this lane before its own 6.1 build and Linux 6.1's peer
# are ready (the pair boots 6.1 with both): it names a file that appears
# once they are.
if [ -n "${KERNEL_LANE_PAIR_AFTER:-}" ] && [ ! -e "$KERNEL_LANE_PAIR_AFTER" ]; then
    say "the cross-version pair waits for $KERNEL_LANE_PAIR_AFTER"
    while [ ! -e "$KERNEL_LANE_PAIR_AFTER" ]; do sleep 5; done
fi
rm -rf "$top/build/kernel-$version/pair"
"$top/selftests/pair/rnbd-cross-version.sh" --tree-b "$tree" --dir "$top/build/kernel-$version/pair" \
    > "$out/kernel-$version-pair.out" 2>&1
pair=$?
grep -E '^\[[ab]\] (ok|not ok)|run-pair.sh:' "$out/kernel-$version-pair.out"
[ $vm = 0 ] && [ $gates = 0 ] && [ $pair = 0 ] && [ $failed = 0 ]
