#!/usr/bin/env bash
# `make bench`: the same fio workloads against our RNBD/RTRS and against
# Linux's upstream RNBD/RTRS (built from Debian's linux-source-6.1), in one
# VM run, over the same Soft-RoCE loopback and the same RAM-disk backing.
# Prints a table (IOPS, bandwidth, p50/p99 latency, ours/upstream ratio) and
# saves it to build/bench/bench-<date>.md. Not part of `make check`.
# Environment: BENCH_RUNTIME (seconds per workload, default 10),
# BENCH_STACKS (default "upstream ours").
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/setup.sh
make --no-print-directory modules >/dev/null
tools/upstream/build.sh >/dev/null
out=build/bench
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
tools/vm/run.sh --timeout 3000 --smp 2 --mem 3072 --log "$out/console-$stamp.log" --results "$out" \
    -- env BENCH_RUNTIME="${BENCH_RUNTIME:-10}" BENCH_STACKS="${BENCH_STACKS:-upstream ours}" \
       BENCH_OUT="/results/bench-$stamp" selftests/bench/bench.sh
python3 tools/bench-table.py "$out/bench-$stamp".json > "$out/bench-$stamp.md"
cat "$out/bench-$stamp.md"
echo "saved: $out/bench-$stamp.md"
