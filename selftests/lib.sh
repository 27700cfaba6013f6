# shellcheck shell=bash
# Tiny TAP helpers for bash test scripts that run inside the test VM.
# Source it:  . "$(dirname "$0")/lib.sh"   (or selftests/lib.sh from the repo top)
#
#   tap_plan N            print the plan "1..N" (optional; tap_done prints it if absent)
#   ok DESC / not_ok DESC one result; the counter is automatic
#   skip DESC [REASON]    "ok N - DESC # SKIP REASON"
#   check DESC CMD...     run CMD; ok if it exits 0, else not_ok (its output stays visible)
#   diag MSG...           "# MSG" comment line
#   tap_done              "# P passed, F failed, S skipped"; returns 1 if any failed or
#                         the plan was not met, else 0. End scripts with: tap_done; exit $?
#   require_root          skip the whole script ("1..0 # SKIP ...", exit 0) unless root
#   require_module NAME   modprobe NAME or skip the whole script (remaining tests if a
#                         plan was already printed)
#   tap_skip_all REASON   skip the whole script the same way
# run.sh fails a VM run on any "not ok" line without "# SKIP"/"# TODO".

TAP_N=0 TAP_PASS=0 TAP_FAIL=0 TAP_SKIP=0 TAP_PLAN=

tap_plan() { TAP_PLAN=$1; echo "1..$1"; }
ok()     { TAP_N=$((TAP_N + 1)); TAP_PASS=$((TAP_PASS + 1)); echo "ok $TAP_N - $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAIL=$((TAP_FAIL + 1)); echo "not ok $TAP_N - $*"; }
skip() {
    TAP_N=$((TAP_N + 1)); TAP_SKIP=$((TAP_SKIP + 1))
    echo "ok $TAP_N - $1 # SKIP${2:+ $2}"
}
diag() { echo "# $*"; }
check() {
    local desc=$1; shift
    if "$@"; then ok "$desc"; else not_ok "$desc (exit $?: $*)"; fi
}
tap_done() {
    [ -n "$TAP_PLAN" ] || echo "1..$TAP_N"
    echo "# $TAP_PASS passed, $TAP_FAIL failed, $TAP_SKIP skipped"
    if [ -n "$TAP_PLAN" ] && [ "$TAP_N" != "$TAP_PLAN" ]; then
        echo "# planned $TAP_PLAN tests but ran $TAP_N"
        return 1
    fi
    [ "$TAP_FAIL" = 0 ]
}
tap_skip_all() {
    if [ -z "$TAP_PLAN" ] && [ "$TAP_N" = 0 ]; then
        echo "1..0 # SKIP $*"
    else
        while [ -n "$TAP_PLAN" ] && [ "$TAP_N" -lt "$TAP_PLAN" ]; do skip "remaining test" "$*"; done
        tap_done
        exit $?
    fi
    exit 0
}
require_root() { [ "$(id -u)" = 0 ] || tap_skip_all "must run as root"; }
require_module() {
    modprobe "$1" 2>/dev/null || tap_skip_all "module $1 not available"
}
