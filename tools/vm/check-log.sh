#!/usr/bin/env bash
# Scans a VM console log for kernel trouble and failed TAP tests; prints the
# offending lines (with line numbers) and exits 1 if there is any, 0 if clean,
# 2 on usage errors.
#
# Usage: tools/vm/check-log.sh [--no-tap] LOGFILE
# Kernel patterns: Oops, BUG:, WARNING:, cut here, KASAN, UBSAN, lockdep
#   splats (possible circular/recursive locking, inconsistent lock state,
#   suspicious RCU usage, "lockdep is turned off"), hung tasks, Kernel panic,
#   general protection fault, kmemleak reports (suspected leaks, unreferenced
#   objects), refcount_t:, "cxxrt: leak", RCU stalls, soft/hard lockups.
#   A debug kernel's normal boot lines ("RCU lockdep checking is enabled",
#   "kmemleak: Kernel memory leak detector initialized") are not trouble.
# TAP: a "not ok" line (also indented or after a printk timestamp) fails unless
#   it carries a "# SKIP" or "# TODO" directive.
# Lines matching a regex in tools/vm/check-log.allow (one ERE per line, # comments)
# are ignored: keep it empty unless a benign message is understood.
# Environment: AWK (default awk). The verdict is the same with mawk, gawk
#   and busybox awk (tools/tests/check-log-awk.sh): the regexes reach awk
#   through ENVIRON, never `awk -v`, whose escape processing differs (gawk
#   and busybox turn "\[" into "[").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tap=1
[ "${1:-}" = --no-tap ] && { tap=0; shift; }
[ $# -eq 1 ] || { echo "usage: check-log.sh [--no-tap] LOGFILE" >&2; exit 2; }
[ -r "$1" ] || { echo "check-log.sh: cannot read $1" >&2; exit 2; }
read -r -a awk <<< "${AWK:-awk}"  # "busybox awk" is two words

kernel_re='Oops|BUG:|ODEBUG:|WARNING:|-+\[ cut here \]|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|lockdep is turned off|INFO: task .* blocked for more than|hung_task|Kernel panic|general protection fault|kmemleak: [0-9]+ new suspected|unreferenced object 0x|refcount_t:|cxxrt: leak|rcu: INFO: .*stall|detected stall|hard LOCKUP|soft lockup'
tap_re='^(\[[ 0-9.]+\] *)?[[:space:]]*not ok([[:space:]]|$)'
directive_re='#[[:space:]]*(SKIP|TODO)'
allow=$here/check-log.allow

hits=$(tr -d '\r' < "$1" | CHECK_LOG_KERNEL_RE=$kernel_re CHECK_LOG_TAP_RE=$tap_re CHECK_LOG_DIRECTIVE_RE=$directive_re \
    CHECK_LOG_TAP=$tap "${awk[@]}" '
    BEGIN { kre = ENVIRON["CHECK_LOG_KERNEL_RE"]; tre = ENVIRON["CHECK_LOG_TAP_RE"]
            dre = ENVIRON["CHECK_LOG_DIRECTIVE_RE"]; tap = ENVIRON["CHECK_LOG_TAP"] + 0 }
    $0 ~ kre { print NR ": " $0; next }
    tap && $0 ~ tre && toupper($0) !~ dre { print NR ": " $0 }')
if [ -n "$hits" ] && [ -f "$allow" ]; then
    pats=$(grep -vE '^[[:space:]]*(#|$)' "$allow" || true)
    [ -n "$pats" ] && hits=$(printf '%s\n' "$hits" | grep -vE -f <(printf '%s\n' "$pats") || true)
fi
if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    exit 1
fi
exit 0
