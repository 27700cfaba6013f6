#!/usr/bin/env bash
# Runs libFuzzer targets one after another for a bounded time each and
# reports, per target, the total executions and executions per second
# (libFuzzer's -print_final_stats), then a table. Called by `make fuzz`.
#
# Usage: tools/fuzz.sh SECONDS BUILD_DIR SOURCE...
#   SOURCE is a fuzzer's .cpp; its binary is BUILD_DIR/fuzz/<name>, and a
#   <name>.dict beside the source, if present, is passed as -dict.
# The corpus of each target persists in BUILD_DIR/corpus/<name>; crash
# inputs go to BUILD_DIR/fuzz/artifacts/. One line per target:
#   "fuzz: <name> ok: <executions> executions in <s>s, <n> exec/s"
#   "fuzz: <name> FAILED (<log>)"
# Exit status 1 if any target failed (all targets still run).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: tools/fuzz.sh SECONDS BUILD_DIR SOURCE..." >&2; exit 2; }
seconds=$1 build=$2
shift 2
mkdir -p "$build/fuzz/artifacts"
failed=0
table=()
for source in "$@"; do
    name=$(basename "$source" .cpp)
    binary=$build/fuzz/$name
    log=$build/fuzz/$name.log
    corpus=$build/corpus/$name
    mkdir -p "$corpus"
    options=(-max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048
             -artifact_prefix="$build/fuzz/artifacts/$name-")
    dict=${source%.cpp}.dict
    [ -f "$dict" ] && options+=(-dict="$dict")
    start=$(date +%s%N)
    "$binary" "${options[@]}" "$corpus" > "$log" 2>&1; rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    elapsed=$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ $rc != 0 ] || [ -z "$runs" ]; then
        echo "fuzz: $name FAILED (exit $rc, log $log)"
        grep -E 'fuzz oracle violated|ERROR|SUMMARY|artifact|Test unit written' "$log" | head -10 | sed 's/^/  /'
        failed=1
        table+=("$(printf '%-28s %14s %12s %8s' "$name" FAILED - "$elapsed")")
        continue
    fi
    printf 'fuzz: %s ok: %s executions in %ss, %s exec/s\n' "$name" "$runs" "$elapsed" "$rate"
    table+=("$(printf '%-28s %14s %12s %8s' "$name" "$runs" "$rate" "$elapsed")")
done
echo
printf '%-28s %14s %12s %8s\n' target executions exec/s seconds
printf '%s\n' "${table[@]}"
exit $failed
