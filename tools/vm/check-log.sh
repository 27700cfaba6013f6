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
#   objects), refcount_t:, "cxxrt: leak", RCU stalls, soft/hard lockups,
#   sysfs duplicate names ("cannot create duplicate filename",
#   "kobject_add_internal failed"), SLUB reports ("BUG kmalloc-64 (Not
#   tainted): ..."), and any stack dump ("Call Trace:", also one that no
#   WARN or BUG line introduces: dump_stack()).
#   A debug kernel's normal boot lines ("RCU lockdep checking is enabled",
#   "kmemleak: Kernel memory leak detector initialized") are not trouble.
# Allocation failures: warn_alloc's reports ("<task>: page allocation
#   failure: order:N, ...", "<task>: vmalloc error: size ...") and failslab's
#   "FAULT_INJECTION: forcing a failure." are trouble, except between a
#   kernel log line "selftest: allocation failures expected from here" and
#   "selftest: allocation failures no longer expected" (or the next script's
#   "# === " line from selftests/run.sh), which a test that injects them
#   writes to /dev/kmsg (selftests/lib.sh: expect_alloc_failures on|off).
#   Inside such a window the report, the "Call Trace:" of its dump (within
#   12 lines after it) and a kobject_add that failed with -ENOMEM are
#   tolerated; everything else is judged as anywhere.
# TAP: a "not ok" line (also indented or after a printk timestamp) fails unless
#   it carries a SKIP or TODO directive: the first word (any case) after its
#   first unescaped '#', and only when that '#' stands between blanks (" # ",
#   TAP 13; the same rule as tools/check-tap.sh). "not ok 3 - skip list",
#   "not ok 3 - #skipped lines" or "not ok 3 - issue #12 # TODO" fail.
# No allow-list: a file tools/vm/check-log.allow (once a list of EREs to
#   ignore) makes the judge refuse to run (exit 2), so that no local,
#   untracked file can hide a report; a benign message is understood and
#   handled here, in the patterns, reviewed.
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
if [ -e "$here/check-log.allow" ]; then
    # On stdout too: tools/vm/run.sh prints what the judge printed.
    echo "check-log.sh: refusing to judge: $here/check-log.allow exists (a local allow-list would hide kernel reports; remove it)" |
        tee /dev/stderr
    exit 2
fi
read -r -a awk <<< "${AWK:-awk}"  # "busybox awk" is two words

kernel_re='Oops|BUG:|ODEBUG:|WARNING:|-+\[ cut here \]|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|lockdep is turned off|INFO: task .* blocked for more than|hung_task|Kernel panic|general protection fault|kmemleak: [0-9]+ new suspected|unreferenced object 0x|refcount_t:|cxxrt: leak|rcu: INFO: .*stall|detected stall|hard LOCKUP|soft lockup|cannot create duplicate filename|kobject_add_internal failed|BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\)'
alloc_re='page allocation failure|: vmalloc error: size|FAULT_INJECTION: forcing a failure'
trace_re='Call Trace:'
# What an expected allocation failure may leave besides its own dump.
alloc_kobject_re='kobject_add_internal failed for .* \(error: -12 parent: '
alloc_on='selftest: allocation failures expected from here'
alloc_off='selftest: allocation failures no longer expected'
script_re='^# === '
tap_re='^(\[[ 0-9.]+\] *)?[[:space:]]*not ok([[:space:]]|$)'

hits=$(tr -d '\r' < "$1" | CHECK_LOG_KERNEL_RE=$kernel_re CHECK_LOG_TAP_RE=$tap_re \
    CHECK_LOG_ALLOC_RE=$alloc_re CHECK_LOG_TRACE_RE=$trace_re CHECK_LOG_ALLOC_KOBJECT_RE=$alloc_kobject_re \
    CHECK_LOG_ALLOC_ON=$alloc_on CHECK_LOG_ALLOC_OFF=$alloc_off CHECK_LOG_SCRIPT_RE=$script_re \
    CHECK_LOG_TAP=$tap "${awk[@]}" '
    BEGIN { kre = ENVIRON["CHECK_LOG_KERNEL_RE"]; tre = ENVIRON["CHECK_LOG_TAP_RE"]
            tap = ENVIRON["CHECK_LOG_TAP"] + 0
            are = ENVIRON["CHECK_LOG_ALLOC_RE"]; cre = ENVIRON["CHECK_LOG_TRACE_RE"]
            kore = ENVIRON["CHECK_LOG_ALLOC_KOBJECT_RE"]; sre = ENVIRON["CHECK_LOG_SCRIPT_RE"]
            on = ENVIRON["CHECK_LOG_ALLOC_ON"]; off = ENVIRON["CHECK_LOG_ALLOC_OFF"]
            expected = 0; report = -100 }
    # 1 if the result line s carries a SKIP or TODO directive (see above).
    function directive(s,   i, n, c) {
        s = substr(s, index(s, "not ok")); n = length(s)
        for (i = 1; i <= n; i++) {
            c = substr(s, i, 1)
            if (c == "\\") { i++; continue }
            if (c == "#") break
        }
        if (i >= n || i == 1) return 0
        if (substr(s, i - 1, 1) !~ /[ \t]/ || substr(s, i + 1, 1) !~ /[ \t]/) return 0
        s = substr(s, i + 1); sub(/^[ \t]+/, "", s); c = toupper(substr(s, 1, 4))
        return (c == "SKIP" || c == "TODO") && substr(s, 5, 1) !~ /[A-Za-z0-9_]/
    }
    index($0, on) { expected = 1; next }
    index($0, off) || $0 ~ sre { expected = 0 }
    $0 ~ are { if (expected) { report = NR; next } print NR ": " $0; next }
    $0 ~ cre { if (expected && NR - report <= 12) next; print NR ": " $0; next }
    expected && $0 ~ kore { next }
    $0 ~ kre { print NR ": " $0; next }
    tap && $0 ~ tre && !directive($0) { print NR ": " $0 }')
if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    exit 1
fi
exit 0
