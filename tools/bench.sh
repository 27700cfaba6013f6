#!/usr/bin/env bash
# `make bench`: our RNBD/RTRS against Linux's upstream RNBD/RTRS (built from
# Debian's linux-source-6.1) and against NVMe-oF RDMA (Debian's nvmet-rdma and
# nvme-rdma), in one VM run, over the same Soft-RoCE loopback and the same
# backing device, in rounds whose stack order rotates
# (selftests/bench/bench.sh). Prints medians, spreads, CPU time per IO and the
# per-round ratios, and saves under build/bench/:
#   bench-<stamp>.jsonl   every fio run (the guest's raw results)
#   bench-<stamp>.json    the summary          bench-<stamp>.md   the table
#   bench-<stamp>.png     ratios per workload with their spread (gnuplot)
#   bench-<stamp>.profile-<stack>-<workload>.txt   with BENCH_PROFILE=1: the
#                         top symbols of a perf profile (one extra run)
#   bench-<stamp>.graph-<stack>-<workload>.txt     with BENCH_PROFILE_GRAPH=1
#                         as well: its shares per task and call graphs
#   latest.*              copies of the newest run's files
# Not part of `make check`: figures from this noisy, software-only link are
# for comparing stacks in the same run, never a pass/fail threshold.
# Environment (passed to the guest): BENCH_RUNTIME (s per workload, 10),
# BENCH_ROUNDS (3), BENCH_STACKS ("ours upstream nvmeof"), BENCH_BACKING
# (brd|null), BENCH_WORKLOADS (names, default all), BENCH_POLL_QUEUES (0: the default map; the polled workload maps with 1),
# BENCH_RNBD_OPTS; BENCH_ALWAYS_INVALIDATE (Y|N: both RNBD servers' always_invalidate, Y
# their default); BENCH_SMP (vCPUs, 2);
# BENCH_CLOCK=wall (default) or icount: the cost mode. The guest's clock
# advances by the instructions it executes (one vCPU, single-threaded TCG,
# QEMU -icount shift=BENCH_ICOUNT_SHIFT (3: 8 ns each),sleep=off), so IOPS
# and CPU per IO become the work an IO costs, repeatable whatever the
# host's load: the verdict for before/after comparisons of a change. It
# cannot show what two CPUs do (the wall-clock mode does). Defaults there:
# BENCH_RUNTIME 3, BENCH_ROUNDS 2;
# BENCH_COUNTS (1: per-IO counts after the rounds, selftests/bench/bench.sh),
# BENCH_COUNTS_WORKLOADS;
# BENCH_PROFILE=1: after the measured rounds, one more run per stack of each
# workload in BENCH_PROFILE_WORKLOADS (default randread-4k-qd32) under
# `perf record -a -g -e cpu-clock`; its top 30 symbols are saved and the
# top 10 printed (that run is not part of any figure); BENCH_PROFILE_GRAPH=1
# adds the same run's shares per task and its call graphs;
# BENCH_SCALE=1: after everything else, the scale workload: per RNBD stack,
# BENCH_SCALE_DEVICES (64; a list such as "64 256" runs each) memory-less
# null_blk devices mapped through one session, then as many sessions of one
# device each (servers at sess_queue_depth BENCH_SCALE_QUEUE_DEPTH, 16):
# map and unmap time, MemAvailable and Slab per device, 4k QD1 reads on all
# devices at once (only up to BENCH_SCALE_IO_DEVICES, 64); BENCH_WORKLOADS=none skips the measured rounds (and the
# counts, unless BENCH_COUNTS=1);
# BENCH_CEILINGS (1 unless BENCH_WORKLOADS=none): after the rounds, perftest's
# RDMA READ and SEND bandwidth and latency at 4 KiB and 128 KiB over the same
# rxe (the link's ceilings, reported beside the stacks; SEND stands for the
# writes, selftests/bench/bench.sh says why); the stack "device" in
# BENCH_STACKS measures the backing device itself (its ceiling);
# BENCH_BASELINE=<commit>: also measure our modules built from that commit
# (stack "baseline", built once under build/bench/baseline-<sha>/), giving
# before/after ratios of a change from one run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/setup.sh
# The chart needs gnuplot; only the benchmark does, so only it installs it.
command -v gnuplot >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gnuplot-nox >/dev/null ||
    echo "bench: gnuplot-nox could not be installed; no chart" >&2
# The profiles need perf (Debian's linux-perf, for the VM's 6.1 kernel); the
# guest runs the host's through the shared root.
if [ "${BENCH_PROFILE:-0}" = 1 ] && ! command -v perf >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends linux-perf >/dev/null ||
        echo "bench: linux-perf could not be installed; no profiles" >&2
fi
make --no-print-directory modules >/dev/null
tools/upstream/build.sh >/dev/null
out=build/bench
stacks=${BENCH_STACKS:-ours upstream nvmeof}
baseline_dir=
if [ -n "${BENCH_BASELINE:-}" ]; then
    sha=$(git rev-parse --short=12 "$BENCH_BASELINE^{commit}")
    baseline_dir=$out/baseline-$sha
    if [ ! -f "$baseline_dir/rnbd/rnbd-client.ko" ]; then
        echo "bench: building the baseline's modules ($BENCH_BASELINE = $sha) in $baseline_dir"
        rm -rf "$baseline_dir"; mkdir -p "$baseline_dir"
        git archive "$sha" | tar -x -C "$baseline_dir"
        ln -s "$top/.cache" "$baseline_dir/.cache"
        make --no-print-directory -C "$baseline_dir" modules >"$baseline_dir.build.log" 2>&1 ||
            { tail -20 "$baseline_dir.build.log" >&2; exit 1; }
    fi
    [[ " $stacks " == *" baseline "* ]] || stacks+=" baseline"
fi
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
clock=${BENCH_CLOCK:-wall}
vm_clock=()
case $clock in
wall) runtime=${BENCH_RUNTIME:-10} rounds=${BENCH_ROUNDS:-3} smp=${BENCH_SMP:-2} ;;
icount)
    # A two-vCPU guest under -icount did not finish booting in ten minutes.
    export BENCH_ICOUNT_SHIFT=${BENCH_ICOUNT_SHIFT:-3}
    runtime=${BENCH_RUNTIME:-3} rounds=${BENCH_ROUNDS:-2} smp=1
    vm_clock=(--icount "$BENCH_ICOUNT_SHIFT") ;;
*) echo "bench: BENCH_CLOCK is wall or icount, not '$clock'" >&2; exit 2 ;;
esac
export BENCH_CLOCK=$clock
always_invalidate=${BENCH_ALWAYS_INVALIDATE:-Y}
case $always_invalidate in
Y | N) ;;
*) echo "bench: BENCH_ALWAYS_INVALIDATE is Y or N, not '$always_invalidate'" >&2; exit 2 ;;
esac
# workloads (9 unless BENCH_WORKLOADS names fewer) x stacks x (ramp + runtime
# + ~5 s setup) per round, plus fills.
nstacks=$(echo $stacks | wc -w)
nworkloads=$(echo ${BENCH_WORKLOADS:-} | wc -w); [ "$nworkloads" -gt 0 ] || nworkloads=9
timeout=$(( rounds * nstacks * nworkloads * (runtime + 8) + 900 ))
scale=${BENCH_SCALE:-0} scale_devices=${BENCH_SCALE_DEVICES:-64}
if [ "$scale" = 1 ]; then
    # Per stack and device count, two variants: per device a map and an
    # unmap (up to a second each in TCG), fio's ramp and runtime, settling.
    for n in $scale_devices; do timeout=$(( timeout + nstacks * 2 * (n + runtime + 40) )); done
fi
# BENCH_WORKLOADS=none (a scale-only run) counts nothing unless asked to.
counts_default=1
[ "${BENCH_WORKLOADS:-}" = none ] && counts_default=0
profile=${BENCH_PROFILE:-0} profile_workloads=${BENCH_PROFILE_WORKLOADS:-randread-4k-qd32}
if [ "$profile" = 1 ]; then
    # Per profiled run: a stack up and down, fio, and perf's report of the
    # call-graph samples (slow under TCG).
    timeout=$(( timeout + nstacks * ($(wc -w <<< "$profile_workloads") * (runtime + 60) + 30) ))
fi
# The ceilings (perftest): 8 tests of a few seconds each, plus setup.
ceilings=${BENCH_CEILINGS:-$([ "${BENCH_WORKLOADS:-}" = none ] && echo 0 || echo 1)}
[ "$ceilings" = 1 ] && timeout=$(( timeout + 8 * (runtime + 20) ))
# Guest seconds under -icount pass at a rate of their own: room for 3 x.
[ "$clock" = icount ] && timeout=$(( timeout * 3 ))
echo "bench: $clock clock, $rounds rounds of ${runtime} s per workload; at most $(( timeout / 60 )) min"
# A kernel warning in the run does not discard the figures (Linux 6.1's own
# rnbd-client WARNs in bio_put when it completes a polled request from its
# interrupt path), but it is named in the report, never silent.
vm_rc=0
tools/vm/run.sh --timeout "$timeout" --smp "$smp" "${vm_clock[@]}" --mem 3072 --log "$out/console-$stamp.log" --results "$out" \
    -- env BENCH_RUNTIME="$runtime" BENCH_ROUNDS="$rounds" BENCH_STACKS="$stacks" BENCH_BASELINE_DIR="$baseline_dir" \
       BENCH_BACKING="${BENCH_BACKING:-brd}" BENCH_WORKLOADS="${BENCH_WORKLOADS:-}" \
       BENCH_POLL_QUEUES="${BENCH_POLL_QUEUES:-0}" BENCH_RNBD_OPTS="${BENCH_RNBD_OPTS:-}" \
       BENCH_ALWAYS_INVALIDATE="$always_invalidate" \
       BENCH_PROFILE="$profile" BENCH_PROFILE_WORKLOADS="$profile_workloads" BENCH_PROFILE_GRAPH="${BENCH_PROFILE_GRAPH:-0}" \
       BENCH_COUNTS="${BENCH_COUNTS:-$counts_default}" BENCH_COUNTS_WORKLOADS="${BENCH_COUNTS_WORKLOADS:-}" \
       BENCH_CEILINGS="$ceilings" BENCH_SCALE="$scale" BENCH_SCALE_DEVICES="$scale_devices" BENCH_SCALE_QUEUE_DEPTH="${BENCH_SCALE_QUEUE_DEPTH:-16}" \
       BENCH_SCALE_IO_DEVICES="${BENCH_SCALE_IO_DEVICES:-64}" \
       BENCH_OUT="/results/bench-$stamp" selftests/bench/bench.sh || vm_rc=$?
log=$out/console-$stamp.log
case $vm_rc in
0) ;;
3) echo "bench: the kernel log of this run has warnings:" >&2
   grep -n -A1 -E 'WARNING:|BUG:|Oops' "$log" | grep -E 'WARNING|BUG|Oops|RIP' | head -10 >&2 ;;
*) echo "bench: the VM run failed (exit $vm_rc, log $log)" >&2; exit 1 ;;
esac
python3 tools/bench-report.py "$out/bench-$stamp.jsonl" "$out/bench-$stamp"
if [ $vm_rc = 3 ]; then
    { echo; echo "Kernel warnings in this run (console-$stamp.log):"; echo
      grep -E 'WARNING:|BUG:|Oops' "$log" | head -5 | sed 's/^/    /'; } >> "$out/bench-$stamp.md"
fi
# No chart when no workload ran (a scale-only run): the report writes no script.
if command -v gnuplot >/dev/null && [ -f "$out/bench-$stamp-chart.gp" ]; then
    gnuplot "$out/bench-$stamp-chart.gp" && echo "chart: $out/bench-$stamp.png"
fi
# The profiles (BENCH_PROFILE=1): the guest wrote them next to the results.
profiles=()
for f in "$out/bench-$stamp".profile-*.txt; do [ -e "$f" ] && profiles+=("$f"); done
for f in "${profiles[@]}"; do
    echo
    name=${f#"$out/bench-$stamp".profile-}
    echo "profile ${name%.txt}: top 10 (of 30 in $f)"
    awk '/^# (perf.fio exit|Samples|bench:|no samples)/ { sub(/^# /, "  "); print; next }
         $1 ~ /^[0-9.]+%$/ && n < 10 { print; n++ }' "$f"
done
rm -f "$out"/latest.profile-*.txt "$out"/latest.graph-*.txt "$out"/latest.scale.jsonl "$out"/latest.ceilings.jsonl
for f in "$out/bench-$stamp".*; do cp "$f" "$out/latest.${f#"$out/bench-$stamp".}"; done
echo "saved: $out/bench-$stamp.{jsonl,json,md,png}${profiles:+ and ${#profiles[@]} profile(s) bench-$stamp.profile-*.txt}  (and $out/latest.*)"
