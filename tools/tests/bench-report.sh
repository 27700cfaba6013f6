#!/usr/bin/env bash
# Host test of tools/bench-report.py on synthetic results: medians and
# min-max spreads per stack, ratios taken within each round (so a slow round
# moves both sides of its pair), CPU time per IO scaled to the measured part,
# the baseline's own ratios (the "before"), failed runs named, and the chart
# script written. TAP output.
. "$(dirname "$0")/lib/tap.sh"
run() { # round stack iops busy_jiffies -> one record, 10 s runtime + 2 s ramp
    local ios=$(( $3 * 10 ))
    printf '{"round": %d, "stack": "%s", "workload": "w", "io_poll": 0, "hz": 100, "cpus": 2, "busy_jiffies": %d, "total_jiffies": 2400, "ramp_s": 2, "runtime_s": 10, "fio": {"jobs": [{"read": {"iops": %d, "bw_bytes": %d, "total_ios": %d, "clat_ns": {"percentile": {"50.000000": 1000, "99.000000": 2000, "99.900000": 3000}}}, "write": {"iops": 0, "bw_bytes": 0, "total_ios": 0}}]}}\n' \
        "$1" "$2" "$4" "$3" $(( $3 * 4096 )) $ios
}
{
    # Round 1 is slow for both stacks: IOPS spread wide, per-round ratios
    # 2.0, 1.33, 2.0 (a ratio of the spreads' ends would say 0.33-12).
    run 0 ours 1000 1200; run 0 upstream 500 1200
    run 1 ours 200 1200;  run 1 upstream 150 1200
    run 2 ours 1200 1200; run 2 upstream 600 1200
    # The baseline runs at half of upstream in every round.
    run 0 baseline 250 1200; run 1 baseline 75 1200; run 2 baseline 300 1200
    printf '{"round": 0, "stack": "nvmeof", "workload": "w", "error": "could not load or map"}\n'
} > "$tmp/r.jsonl"
out=$(python3 "$top/tools/bench-report.py" "$tmp/r.jsonl" "$tmp/rep" 2>&1); rc=$?
[ $rc = 0 ] && say ok "report runs" || { say "not ok" "report failed: $out"; }
field() { python3 -c "import json,sys; d=json.load(open('$tmp/rep.json')); print($1)"; }
[ "$(field 'd["workloads"]["w"]["stacks"]["ours"]["iops"]["median"]')" = 1000 ] &&
    say ok "median IOPS of ours is 1000" || say "not ok" "median IOPS of ours: $(field 'd["workloads"]["w"]["stacks"]["ours"]["iops"]')"
r=$(field '"%.2f %.2f %.2f" % tuple(d["workloads"]["w"]["ratios"]["upstream"]["iops"][k] for k in ("median","min","max"))')
[ "$r" = "2.00 1.33 2.00" ] && say ok "ratios are per-round pairs: 2.00 (1.33-2.00)" || say "not ok" "ratio median/min/max: $r"
r=$(field '"%.2f %.2f %.2f" % tuple(d["workloads"]["w"]["baseline_ratios"]["upstream"]["iops"][k] for k in ("median","min","max"))')
[ "$r" = "0.50 0.50 0.50" ] && say ok "the baseline's ratios against upstream are its own: 0.50 (0.50-0.50)" ||
    say "not ok" "baseline ratio median/min/max: $r"
grep -q '^| w | baseline | 250 (75-300) |.*| 0.50 (0.50-0.50) |' "$tmp/rep.md" &&
    say ok "the baseline's row shows its ratio against upstream" || say "not ok" "baseline row: $(grep baseline "$tmp/rep.md")"
# busy 1200 jiffies over 12 s, 10 s of it measured: 1000 jiffies = 10 s of
# CPU for 10 * 1000 IOs = 1000 us per IO in round 0.
c=$(field '"%.0f" % d["workloads"]["w"]["stacks"]["ours"]["cpu_us_per_io"]["min"]')
[ "$c" = 833 ] && say ok "CPU per IO scaled to the measured part (833 us at 1200 IOPS)" || say "not ok" "CPU per IO min: $c"
grep -q "round 1 nvmeof w: could not load or map" "$tmp/rep.md" && say ok "a failed stack is named in the table's notes" ||
    say "not ok" "failed stack not named: $(cat "$tmp/rep.md")"
# Every round shows, not only the median: a bimodal stack must be visible.
grep -q '^| w | ours | 1000 (1000.0) | 200 (5000.0) | 1200 (833.3) |$' "$tmp/rep.md" &&
    grep -q '^| w | nvmeof | failed | not run | not run |$' "$tmp/rep.md" &&
    say ok "every round's IOPS (CPU per IO) in the report, failed and missing rounds named" ||
    say "not ok" "every-round rows: $(grep '^| w | \(ours\|nvmeof\) |' "$tmp/rep.md")"
grep -q 'using 2:3:4:xtic(1) title "ours / upstream RNBD"' "$tmp/rep-chart.gp" &&
    ! grep -q "NVMe-oF" "$tmp/rep-chart.gp" && say ok "the chart plots the peers that have figures" ||
    say "not ok" "chart script: $(tail -2 "$tmp/rep-chart.gp")"
# The counted runs (BENCH_COUNTS): per IO over the measured part, as the CPU
# time: 6000 posts over 2 s ramp + 10 s for 5000 IOs of the 10 s: 1.00.
{
    printf '{"stack": "ours", "workload": "w", "ios": 5000, "ramp_s": 2, "runtime_s": 10, "post_send": 6000, "completions": 12000}\n'
    printf '{"stack": "upstream", "workload": "w", "error": "fio exit 1"}\n'
} > "$tmp/r.counts.jsonl"
python3 "$top/tools/bench-report.py" "$tmp/r.jsonl" "$tmp/rep" > /dev/null 2>&1
grep -q '^| w | ours | 1.00 | - | 2.00 |' "$tmp/rep.md" && grep -q '^| w | upstream | failed |' "$tmp/rep.md" &&
    grep -q '^Clock: wall clock' "$tmp/rep.md" &&
    say ok "per-IO counts: scaled to the measured part, a failed run named, a field not counted shown as -; the clock stated" ||
    say "not ok" "counts table: $(grep -A6 '^Per IO' "$tmp/rep.md")"
# The map each workload ran on (BENCH_POLL_QUEUES=0: the default map, and a
# polled map for the polled workload) is stated under the table.
{
    run 0 ours 1000 1200 | sed 's/"io_poll": 0/"poll_queues": 0, "io_poll": 0/'
    run 0 ours 900 1200 | sed 's/"workload": "w"/"workload": "w-polled"/; s/"io_poll": 0/"poll_queues": 1, "io_poll": 1/'
} > "$tmp/m.jsonl"
python3 "$top/tools/bench-report.py" "$tmp/m.jsonl" "$tmp/m" > /dev/null 2>&1
grep -qx 'Maps: nr_poll_queues=0 (the default map): w; nr_poll_queues=1 (polled map): w-polled.' "$tmp/m.md" &&
    say ok "the report names each workload's map" || say "not ok" "maps line: $(grep '^Maps' "$tmp/m.md")"
# The servers' always_invalidate (BENCH_ALWAYS_INVALIDATE) follows the maps.
run 0 ours 1000 1200 | sed 's/"io_poll": 0/"poll_queues": 0, "always_invalidate": "N", "io_poll": 0/' > "$tmp/a.jsonl"
python3 "$top/tools/bench-report.py" "$tmp/a.jsonl" "$tmp/a" > /dev/null 2>&1
grep -qx 'Maps: nr_poll_queues=0 (the default map): w. RNBD servers: always_invalidate=N.' "$tmp/a.md" &&
    say ok "the report names the servers' always_invalidate" || say "not ok" "maps line: $(grep '^Maps' "$tmp/a.md")"
# The ceilings: the stack "device" (the backing device alone) gets a column
# of its own, and perftest's runs (BENCH_CEILINGS) a table, with each stack's
# median as a share of its workload's ceiling: QD1 against 10^6 / t_avg of
# ib_send_lat, deeper against ib_send_bw's message rate; a failed test is named.
{
    run 0 ours 1000 1200 | sed 's/"workload": "w"/"workload": "randread-4k-qd1"/'
    run 0 device 4000 1200 | sed 's/"workload": "w"/"workload": "randread-4k-qd1"/'
    run 0 ours 3000 1200 | sed 's/"workload": "w"/"workload": "randwrite-4k-qd32"/'
    run 0 device 6000 1200 | sed 's/"workload": "w"/"workload": "randwrite-4k-qd32"/'
} > "$tmp/c.jsonl"
{
    printf '{"test": "send_lat", "bytes": 4096, "messages": 4000, "t_typical_us": 480.0, "t_avg_us": 500.0, "t_p99_us": 900.0}\n'
    printf '{"test": "send_bw", "bytes": 4096, "messages": 4000, "mb_per_s": 16.38, "mpps": 0.004000}\n'
    printf '{"test": "read_bw", "bytes": 131072, "error": "ib_read_bw exit 1: no connection"}\n'
} > "$tmp/c.ceilings.jsonl"
python3 "$top/tools/bench-report.py" "$tmp/c.jsonl" "$tmp/c" > /dev/null 2>&1
grep -q '^| randread-4k-qd1 | ours | 1000 (1000-1000) |.*| 0.25 (0.25-0.25) |$' "$tmp/c.md" &&
    grep -q '^| ib_send_lat | 4096 |  | 2000 | 480.00 | 500.00 | 900.00 |$' "$tmp/c.md" &&
    grep -q '^| ib_read_bw | 131072 | failed: ib_read_bw exit 1: no connection |' "$tmp/c.md" &&
    grep -q '^| randread-4k-qd1 | ib_send_lat 4096 | 2000 | 0.50 | 2.00 |$' "$tmp/c.md" &&
    grep -q '^| randwrite-4k-qd32 | ib_send_bw 4096 | 4000 | 0.75 | 1.50 |$' "$tmp/c.md" &&
    say ok "ceilings: the device column, perftest's table with a failed test named, each stack's share of its ceiling" ||
    say "not ok" "ceilings: $(cat "$tmp/c.md")"
echo "1..$n"
exit $failed
