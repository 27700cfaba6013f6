# shellcheck shell=bash
# How tools/check.sh turns a stage's output and exit status into its counts
# (sourced after tools/check-tap.sh). tools/plant-tests/run.sh applies the
# same functions to runs with a planted fault, so what it proves is what
# `make check` does. Each verdict_* sets v_p v_f v_s (passed, failed,
# skipped) and appends to the caller's failures[] and skips[].
#   failures_of STAGE FILE...           what failed, by name (failing TAP lines,
#                                       gtest and fuzzer failures, runners' verdicts)
#   verdict_host_tests LOG RC           gtest's summary, and its exit status
#                                       (LeakSanitizer reports after PASSED)
#   verdict_tap STAGE RUNNER LOG RC     a TAP-printing step (lint, host script
#                                       tests, gates): its results, its skips
#                                       (skips_of), and an exit status that is
#                                       not 0 with no "not ok" is one failure
#   verdict_vm STAGE LOG OUT RC         a VM run: its TAP and skips, and the
#                                       runner's verdict (crash, WARN, log
#                                       pattern, timeout: RC not 0) is one failure

failures_of() { # stage file...
    local stage=$1 file line; shift
    for file in "$@"; do
        [ -f "$file" ] || continue
        while IFS= read -r line; do failures+=("$stage: $line"); done < <(
            grep -E '^not ok [0-9]+|^# FAILED: |^\[  FAILED  \] [A-Za-z]|^fuzz: [^ ]+ FAILED|^run\.sh: .*: FAIL|^run-pair\.sh: FAIL|^(kernel|debug)-lane: .*(failed|FAIL)([^A-Z_]|$)' "$file" \
                | tap_drop_directives | head -20)
    done
}

verdict_host_tests() { # log rc
    local log=$1 rc=$2 line
    v_p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    v_f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    v_s=0
    if [ -z "$v_p$v_f" ]; then v_f=1; fi  # did not build or crashed
    failures_of "host unit tests" "$log"
    # LeakSanitizer reports after gtest's summary and then exits non-zero: the
    # exit status counts, whatever the summary said.
    if [ "$rc" != 0 ]; then
        while IFS= read -r line; do failures+=("host unit tests: $line"); done < <(
            grep -E '^(==[0-9]+==)?ERROR: [A-Za-z]+Sanitizer|^SUMMARY: [A-Za-z]+Sanitizer|runtime error:' "$log" | head -5)
        if [ "${v_f:-0}" = 0 ]; then
            v_f=1; failures+=("host unit tests: make host-tests exited $rc (see $log)")
        fi
    fi
    v_p=${v_p:-0} v_f=${v_f:-0}
}

verdict_tap() { # stage runner log rc
    local stage=$1 runner=$2 log=$3 rc=$4
    read -r v_p v_f v_s < <(tap_count "$log")
    failures_of "$stage" "$log"
    skips_of "$stage" "$runner" "$log"; v_f=$((v_f + skip_failures))
    if [ "$rc" != 0 ] && [ "$v_f" = 0 ]; then
        v_f=1; failures+=("$stage: $runner exited $rc with no 'not ok' line")
    fi
}

verdict_vm() { # stage log out rc
    local stage=$1 log=$2 vmout=$3 rc=$4
    read -r v_p v_f v_s < <(tap_count "$log")
    [ "$rc" = 0 ] || v_f=$((v_f + 1))  # the run itself failed (crash, WARN, log pattern, timeout, ...)
    failures_of "$stage" "$log" "$vmout"
    skips_of "$stage" selftests/run.sh "$log"; v_f=$((v_f + skip_failures))
}
