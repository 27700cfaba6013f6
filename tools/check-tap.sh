# shellcheck shell=bash
# How tools/check.sh reads TAP logs (sourced; host-tested by
# tools/tests/check-tap.sh). Portable across mawk, gawk and busybox awk.
#
# A result line is "ok N ..." or "not ok N ..." at the start of a line. Its
# directive is what follows the first unescaped '#' (TAP 13), and only when
# that '#' stands between blanks (" # "): "SKIP" or "TODO" (any case) as the
# first word there. "not ok 3 - skip list # of devices" or "not ok 3 - x
# #skipped" carry no directive: they are failures.
#   ok            passed (also "ok ... # TODO": it passed)
#   ok # SKIP     skipped
#   not ok        failed
#   not ok # SKIP / # TODO   skipped (a known failure: counted, listed, not failed)
#   1..0 ...      the whole script skipped (one skipped)
# Scripts: a line "# === NAME" (selftests/run.sh) starts the results of
# script NAME; before any such line results belong to the name given.
#
#   tap_count FILE            "P F S": passed, failed, skipped
#   tap_skips FILE [NAME]     one line per script with skips, tab-separated:
#                             NAME, "all" (the whole script skipped: a 1..0
#                             plan, or every result it printed was a skip) or
#                             the number of skipped results, and the first
#                             skip's reason
#   tap_drop_directives       filter: drop result lines that carry a SKIP or
#                             TODO directive (for the "what failed" list)
#   tap_skip_forbidden SCRIPT exit 0 if a whole-script skip of SCRIPT must fail
#                             the run: selftests/hostile/, selftests/cli/, and
#                             interop scripts (Linux's modules on the other
#                             side: the script, or a selftests file it runs or
#                             sources, names require_upstream, UPSTREAM_KO_DIR,
#                             $kodir, "_load upstream" or RTRS_SERVER=upstream)
#   tap_skip_reason_forbidden REASON
#                             exit 0 if a skip with this reason must fail the
#                             run: Linux's modules missing (the reason names
#                             tools/upstream/build.sh)
#   skips_of STAGE NAME FILE...   (below) what tools/check.sh lists and fails

tap_awk_lib='
function tap_result(s) { return s ~ /^ok [0-9]/ || s ~ /^not ok [0-9]/ }
# The directive of a result line: "SKIP", "TODO" or ""; tap_rest is the
# text after it (the reason).
function tap_directive(s,   i, n, c) {
    tap_rest = ""; n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (c == "\\") { i++; continue }
        if (c == "#") break
    }
    if (i >= n || i == 1) return ""
    if (substr(s, i - 1, 1) !~ /[ \t]/ || substr(s, i + 1, 1) !~ /[ \t]/) return ""
    s = substr(s, i + 1); sub(/^[ \t]+/, "", s)
    c = toupper(substr(s, 1, 4))
    if ((c != "SKIP" && c != "TODO") || substr(s, 5, 1) ~ /[A-Za-z0-9_]/) return ""
    tap_rest = substr(s, 5); sub(/^[ \t:]+/, "", tap_rest)
    return c
}'

tap_count() { # FILE -> "P F S"
    awk "$tap_awk_lib"'
    tap_result($0) {
        d = tap_directive($0)
        if (d == "SKIP" || (d == "TODO" && $1 == "not")) s++
        else if ($1 == "ok") p++
        else f++
        next
    }
    /^1\.\.0([^0-9]|$)/ { s++ }
    END { print p + 0, f + 0, s + 0 }' "$1"
}

tap_skips() { # FILE [NAME]
    TAP_NAME=${2:-} awk "$tap_awk_lib"'
    BEGIN { name = ENVIRON["TAP_NAME"] }
    function seen(n) { if (!(n in results)) { order[++count] = n; results[n] = 0; skips[n] = 0 } }
    /^# === / { name = $3; next }
    tap_result($0) {
        seen(name); results[name]++
        d = tap_directive($0)
        if (d == "SKIP" || (d == "TODO" && $1 == "not")) {
            skips[name]++
            if (!(name in reason)) reason[name] = (d == "TODO" ? "TODO " : "") tap_rest
        }
        next
    }
    /^1\.\.0([^0-9]|$)/ {
        seen(name); whole[name] = 1
        r = $0; sub(/^1\.\.0[ \t]*/, "", r); sub(/^#[ \t]*/, "", r)
        if (toupper(substr(r, 1, 4)) == "SKIP") { r = substr(r, 5); sub(/^[ \t:]+/, "", r) }
        if (!(name in reason) || reason[name] == "") reason[name] = r
    }
    END {
        for (i = 1; i <= count; i++) {
            n = order[i]
            if ((n in whole) || (results[n] > 0 && skips[n] == results[n])) print n "\tall\t" reason[n]
            else if (skips[n] > 0) print n "\t" skips[n] "\t" reason[n]
        }
    }' "$1"
}

tap_drop_directives() {
    awk "$tap_awk_lib"'
    { line = $0; sub(/^[ \t]+/, "", line) }
    tap_result(line) && tap_directive(line) != "" { next }
    { print }'
}

tap_interop_re='require_upstream|UPSTREAM_KO_DIR|\$kodir|\$\{kodir|_load upstream|RTRS_SERVER=upstream'
tap_skip_forbidden() { # SCRIPT (a path relative to the repository top)
    local script=$1 f
    case $script in selftests/hostile/*|selftests/cli/*) return 0 ;; esac
    [ -f "$script" ] || return 1
    grep -qE "$tap_interop_re" "$script" && return 0
    # What it runs or sources from selftests/ (not the shared lib.sh, lib-rxe.sh).
    for f in $(grep -oE '[A-Za-z0-9_./-]*(lib-[a-z-]+|[0-9][0-9][0-9]-[a-z0-9-]+)\.sh' "$script" | sort -u); do
        f=$(dirname "$script")/$(basename "$f")
        [ "$f" != "$script" ] && [ -f "$f" ] && grep -qE "$tap_interop_re" "$f" && return 0
    done
    return 1
}
tap_skip_reason_forbidden() { case $1 in *tools/upstream/build.sh*) return 0 ;; esac; return 1; }

# skips_of STAGE NAME FILE...: add each script with skips to the array
# skips (for the summary); each skip that must fail the run (above) goes to
# the array failures, and skip_failures is how many the call found (the
# caller adds them to its failed). NAME: as tap_skips's.
declare -a skips=()
skip_failures=0
skips_of() { # stage name file...: name for results before any "# === " line
    local stage=$1 name=$2 file script what reason; shift 2
    skip_failures=0
    for file in "$@"; do
        [ -f "$file" ] || continue
        while IFS=$'\t' read -r script what reason; do
            if [ "$what" = all ]; then
                skips+=("$stage: $script: the whole script skipped: $reason")
                if tap_skip_forbidden "$script" || tap_skip_reason_forbidden "$reason"; then
                    skip_failures=$((skip_failures + 1))
                    failures+=("$stage: $script skipped (a hostile, CLI or interop script must run): $reason")
                fi
            else
                skips+=("$stage: $script: $what skipped, first: $reason")
                if tap_skip_reason_forbidden "$reason"; then
                    skip_failures=$((skip_failures + 1))
                    failures+=("$stage: $script: Linux's modules missing, its interop checks skipped: $reason")
                fi
            fi
        done < <(tap_skips "$file" "$name")
    done
}

# tap_expected_skip "STAGE: SCRIPT: ...REASON..." (an entry of skips, as
# skips_of makes them) [LIST]: true when LIST (tools/expected-skips.txt)
# names its stage and script and the start of its reason. A clean run skips
# nothing else, so check.sh fails any other skip: a new one is a lost check
# until someone lists it with the reason it is not one.
tap_expected_skip() {
    local stage script reason why
    while IFS=$'\t' read -r stage script reason why; do
        case $stage in '#'*|'') continue ;; esac
        case $1 in "$stage: $script: "*"$reason"*) return 0 ;; esac
    done < "${2:-tools/expected-skips.txt}"
    return 1
}
