#!/usr/bin/env bash
# Scans a VM console log for kernel trouble and failed TAP tests; prints the
# offending lines (with line numbers) and exits 1 if there is any, 0 if clean,
# 2 on usage errors.
#
# Usage: tools/vm/check-log.sh [--no-tap] LOGFILE
# Kernel patterns: Oops, BUG:, WARNING:, cut here, KASAN, UBSAN, possible
#   circular locking, lockdep, hung tasks, Kernel panic, general protection
#   fault, kmemleak, refcount_t:, "cxxrt: leak", RCU stalls, soft/hard lockups.
# TAP: a "not ok" line (also indented or after a printk timestamp) fails unless
#   it carries a "# SKIP" or "# TODO" directive.
# Lines matching a regex in tools/vm/check-log.allow (one ERE per line, # comments)
# are ignored: keep it empty unless a benign message is understood.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tap=1
[ "${1:-}" = --no-tap ] && { tap=0; shift; }
[ $# -eq 1 ] || { echo "usage: check-log.sh [--no-tap] LOGFILE" >&2; exit 2; }
[ -r "$1" ] || { echo "check-log.sh: cannot read $1" >&2; exit 2; }

kernel_re='Oops|BUG:|WARNING:|-+\[ cut here \]|KASAN|UBSAN|possible circular locking|lockdep|INFO: task .* blocked for more than|hung_task|Kernel panic|general protection fault|kmemleak|refcount_t:|cxxrt: leak|rcu: INFO: .*stall|detected stall|hard LOCKUP|soft lockup'
tap_re='^(\[[ 0-9.]+\] *)?[[:space:]]*not ok([[:space:]]|$)'
directive_re='#[[:space:]]*(SKIP|TODO)'
allow=$here/check-log.allow

hits=$(tr -d '\r' < "$1" | awk -v kre="$kernel_re" -v tre="$tap_re" -v dre="$directive_re" -v tap="$tap" '
    BEGIN { IGNORECASE = 0 }
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
