#!/usr/bin/env bash
# Host test of how tools/check.sh counts TAP (tools/check-tap.sh), with every
# awk (the system's, mawk, gawk, busybox awk): a skip is counted as skipped,
# never as passed; a whole-script "1..0 # SKIP" is counted and named; SKIP and
# TODO are directives only right after the first " # "; a hostile, CLI or
# interop script that skips, or a skip because Linux's modules are missing,
# is a failure. An awk that is not installed is a SKIP.
# TAP output; exit 1 if any case fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tools/check-tap.sh

# A made-up VM log: selftests/run.sh's "# === " lines, kernel lines, results.
cat > "$tmp/vm.log" <<'LOG'
TAP version 13
[    1.000000] rdma_rxe: loaded
# === selftests/cxxrt/001-kmod-selftest.sh
ok 1 - load
ok 2 - kernel: rnbd_session_info_and_open # SKIP proto=store
ok 3 - unload # TODO it passed: counts as passed
1..3
# 2 passed, 0 failed, 1 skipped
# === selftests/rnbd/001-server-upstream-client.sh
1..0 # SKIP /x/.cache/upstream/rnbd-client.ko missing (tools/upstream/build.sh)
# === selftests/rnbd/004-end-to-end-ours.sh
1..0 # SKIP missing tool fio
# === selftests/hostile/001-against-server.sh
ok 1 - setup
ok 2 - remaining test # SKIP no hostile module
ok 3 - remaining test # SKIP no hostile module
# === selftests/cli/002-errors.sh
1..157
ok 1 - remaining test # SKIP module rnbd_client still loaded
ok 2 - remaining test # SKIP module rnbd_client still loaded
# === selftests/rnbd/006-flush-fua-discard.sh
ok 1 - ours
ok 2 - upstream server # SKIP /x/rnbd-server.ko missing (tools/upstream/build.sh)
# === selftests/rnbd/030-alloc-failure-sweep.sh
ok 1 - sweep
ok 2 - failslab map # SKIP kernel without CONFIG_FAILSLAB
ok 3 - failslab io # skip kernel without CONFIG_FAILSLAB
not ok 4 - skip list is honoured
not ok 5 - comment #skipped lines
not ok 6 - issue #12 # TODO the first '#' starts the directive
not ok 7 - an escaped \# SKIP is text
not ok 8 - a word that begins with it # SKIPPED
not ok 9 - known issue # TODO fix later
not ok 10 - x # SKIP the directive of a failure is a skip
  not ok 11 - indented: not a result of this log
[    9.000000] not ok 12 - a kernel line: not a result of this log
ok 13 - x # SKIP
LOG
# passed: cxxrt 1, 3; hostile 1; rnbd/006 1; rnbd/030 1 = 5
# failed: rnbd/030 4, 5, 6, 7, 8 = 5
# skipped: cxxrt 2; rnbd/001; rnbd/004; hostile 2, 3; cli 1, 2; rnbd/006 2;
#          rnbd/030 2, 3, 9, 10, 13 = 13
want_count="5 5 13"
want_skips=$(printf '%s\n' \
    'selftests/cxxrt/001-kmod-selftest.sh	1	proto=store' \
    'selftests/rnbd/001-server-upstream-client.sh	all	/x/.cache/upstream/rnbd-client.ko missing (tools/upstream/build.sh)' \
    'selftests/rnbd/004-end-to-end-ours.sh	all	missing tool fio' \
    'selftests/hostile/001-against-server.sh	2	no hostile module' \
    'selftests/cli/002-errors.sh	all	module rnbd_client still loaded' \
    'selftests/rnbd/006-flush-fua-discard.sh	1	/x/rnbd-server.ko missing (tools/upstream/build.sh)' \
    'selftests/rnbd/030-alloc-failure-sweep.sh	5	kernel without CONFIG_FAILSLAB')
# The "what failed" list keeps the failures, drops results with a directive.
want_failures=$(printf '%s\n' \
    'not ok 4 - skip list is honoured' \
    'not ok 5 - comment #skipped lines' \
    "not ok 6 - issue #12 # TODO the first '#' starts the directive" \
    'not ok 7 - an escaped \# SKIP is text' \
    'not ok 8 - a word that begins with it # SKIPPED')

# A host script's log: no "# === " lines, the name is given.
printf '%s\n' 'ok 1 - mawk: clean' 'ok 2 # SKIP busybox awk is not installed' '1..2' > "$tmp/host.log"
printf '%s\n' '1..0 # SKIP run make first' > "$tmp/lint.log"

n=0 failed=0
say() { n=$((n + 1)); echo "$1 $n - $2"; }
same() { # desc got want
    if [ "$2" = "$3" ]; then say ok "$1"
    else say "not ok" "$1"; failed=1; diff <(printf '%s\n' "$3") <(printf '%s\n' "$2") | sed 's/^/#   /'; fi
}
shim=$tmp/bin
mkdir -p "$shim"
for a in awk mawk gawk "busybox awk"; do
    if ! command -v "${a%% *}" > /dev/null || { [ "$a" = "busybox awk" ] && ! busybox awk 'BEGIN{}' 2>/dev/null; }; then
        say ok "# SKIP $a is not installed"; continue
    fi
    if [ "$a" = awk ]; then path=$PATH
    else printf '#!/bin/sh\nexec %s "$@"\n' "$a" > "$shim/awk"; chmod +x "$shim/awk"; path=$shim:$PATH; fi
    same "$a: passed, failed, skipped of a VM log" "$(PATH=$path tap_count "$tmp/vm.log")" "$want_count"
    same "$a: the scripts with skips, whole-script skips as 'all'" "$(PATH=$path tap_skips "$tmp/vm.log")" "$want_skips"
    same "$a: failures keep every 'not ok' without a directive after the first ' # '" \
        "$(grep -E '^not ok [0-9]+' "$tmp/vm.log" | PATH=$path tap_drop_directives)" "$want_failures"
    same "$a: a host script's skip is counted and named" \
        "$(PATH=$path tap_count "$tmp/host.log"; PATH=$path tap_skips "$tmp/host.log" tools/tests/x.sh)" \
        "$(printf '1 0 1\ntools/tests/x.sh\t1\tbusybox awk is not installed')"
    same "$a: a whole-script 1..0 SKIP counts one skipped (not zero of everything)" \
        "$(PATH=$path tap_count "$tmp/lint.log"; PATH=$path tap_skips "$tmp/lint.log" tools/lint.sh)" \
        "$(printf '0 0 1\ntools/lint.sh\tall\trun make first')"
    # What check.sh makes of it: hostile/001 ran a check, so it is not a
    # whole-script skip; cli/002 is (every result a skip); rnbd/001 is
    # interop; rnbd/006 skipped its interop half; rnbd/004 may skip.
    skips=() failures=()
    PATH=$path skips_of "VM selftests" selftests/run.sh "$tmp/vm.log"
    same "$a: skips_of lists every script with a skip" "${#skips[@]}" 7
    same "$a: skips_of fails the interop, CLI and upstream-module skips" "$skip_failures ${#failures[@]}" "3 3"
    same "$a: ... by name" "$(printf '%s\n' "${failures[@]}" | sed -E 's/^VM selftests: ([^ :]+).*/\1/')" \
        "$(printf '%s\n' selftests/rnbd/001-server-upstream-client.sh selftests/cli/002-errors.sh selftests/rnbd/006-flush-fua-discard.sh)"
done
# Which whole-script skips fail the run (the real scripts of the tree).
for s in selftests/hostile/002-against-client.sh selftests/cli/001-rnbdctl.sh selftests/rnbd/001-server-upstream-client.sh \
    selftests/rnbd/002-client-upstream-server.sh selftests/rtrs/003-client-vs-upstream-server.sh \
    selftests/rnbd/011-export-policy-upstream-client.sh selftests/rnbd/050-write-zeroes.sh; do
    if tap_skip_forbidden "$s"; then say ok "a skip of $s fails the run"
    else say "not ok" "a skip of $s would pass"; failed=1; fi
done
for s in selftests/rnbd/004-end-to-end-ours.sh selftests/cxxrt/002-sysfs.sh selftests/churn/001-module-cycles.sh; do
    if tap_skip_forbidden "$s"; then say "not ok" "a skip of $s would fail the run"; failed=1
    else say ok "a skip of $s is listed, not failed"; fi
done
# The skips a clean run may show: tools/expected-skips.txt, and nothing else.
for e in "VM selftests: selftests/rnbd/030-alloc-failure-sweep.sh: 3 skipped, first: kernel without CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS (Debian's): runs on the debug kernel" \
    "debug lane: selftests/hostile/002-against-client.sh: 22 skipped, first: not in HOSTILE_CASES=^(read_inv_post_failed)\$"; do
    if tap_expected_skip "$e"; then say ok "expected: ${e%%, first*}"
    else say "not ok" "expected but refused: ${e%%, first*}"; failed=1; fi
done
for e in "VM selftests: selftests/rnbd/004-end-to-end-ours.sh: 1 skipped, first: missing tool fio" \
    "kernel 6.12 lane: selftests/rnbd/030-alloc-failure-sweep.sh: 3 skipped, first: kernel without CONFIG_FAILSLAB" \
    "VM selftests: selftests/rnbd/030-alloc-failure-sweep.sh: 1 skipped, first: failslab map failed to arm" \
    "VM selftests: selftests/hostile/002-against-client.sh: 22 skipped, first: not in HOSTILE_CASES=x"; do
    if tap_expected_skip "$e"; then say "not ok" "unexpected but accepted: ${e%%, first*}"; failed=1
    else say ok "unexpected, fails the run: ${e%%, first*}"; fi
done
echo "1..$n"
exit $failed
