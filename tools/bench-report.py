#!/usr/bin/env python3
"""Report of `make bench` (tools/bench.sh): reads the JSON lines the guest
wrote (selftests/bench/bench.sh: one object per round, stack and workload)
and writes, next to it, a summary JSON, a Markdown table and the data and
script of a PNG chart; prints a plain table to the terminal.

Per stack and workload, over the rounds: median and spread (min-max) of IOPS,
MB/s, p50/p99/p99.9 completion latency and guest CPU time per IO. The ratios
ours/upstream and ours/nvmeof are taken within each round (the two stacks ran
minutes apart in the same VM) and then their median and spread are reported,
so that a slow round moves both sides of its pair.

Usage: bench-report.py RESULTS.jsonl OUTPUT_PREFIX
"""
import json
import statistics
import sys

STACKS = ("ours", "baseline", "upstream", "nvmeof")
PEERS = ("upstream", "nvmeof", "baseline")


def measure(record):
    """Figures of one fio run, or None when the run failed."""
    if "error" in record:
        return None
    job = record["fio"]["jobs"][0]
    read, write = job["read"], job["write"]
    ios = read["total_ios"] + write["total_ios"]
    if ios == 0:
        return None
    # Latency of the side that did most of the IO (reads in the 70/30 mix).
    side = read if read["total_ios"] >= write["total_ios"] else write
    pct = side.get("clat_ns", {}).get("percentile", {})
    runtime, ramp = record["runtime_s"], record["ramp_s"]
    # The jiffies span ramp + runtime; fio counts the runtime's IOs only.
    busy_us = record["busy_jiffies"] * runtime / (runtime + ramp) * 1e6 / record["hz"]
    return {
        "iops": read["iops"] + write["iops"],
        "mbps": (read["bw_bytes"] + write["bw_bytes"]) / 1e6,
        "p50_us": pct.get("50.000000", 0) / 1e3,
        "p99_us": pct.get("99.000000", 0) / 1e3,
        "p999_us": pct.get("99.900000", 0) / 1e3,
        "cpu_us_per_io": busy_us / ios,
    }


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarize(records):
    runs = {}  # (workload, stack) -> {round: figures}
    workloads = []
    for r in records:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
        runs.setdefault((r["workload"], r["stack"]), {})[r["round"]] = measure(r)
    rounds = sorted({r["round"] for r in records})
    summary = {"rounds": len(rounds), "workloads": {}, "errors": [], "no_poll_queues": []}
    for r in records:
        if "error" in r:
            summary["errors"].append(f"round {r['round'] + 1} {r['stack']} {r['workload']}: {r['error']}")
        elif r["workload"].endswith("-polled") and not r.get("io_poll"):
            note = f"{r['stack']} has no poll queues: its polled run completed by interrupts"
            if note not in summary["no_poll_queues"]:
                summary["no_poll_queues"].append(note)
    for w in workloads:
        entry = {"stacks": {}, "ratios": {}}
        for s in STACKS:
            per_round = runs.get((w, s))
            if per_round is None:
                continue
            figures = [f for f in per_round.values() if f]
            entry["stacks"][s] = {
                k: spread([f[k] for f in figures]) for k in ("iops", "mbps", "p50_us", "p99_us", "p999_us", "cpu_us_per_io")
            }
            entry["stacks"][s]["failed_rounds"] = sum(1 for f in per_round.values() if f is None)
        ours = runs.get((w, "ours"), {})
        for peer in PEERS:
            theirs = runs.get((w, peer), {})
            iops, cpu = [], []
            for rnd in rounds:
                a, b = ours.get(rnd), theirs.get(rnd)
                if a and b and b["iops"] > 0:
                    iops.append(a["iops"] / b["iops"])
                    cpu.append(a["cpu_us_per_io"] / b["cpu_us_per_io"] if b["cpu_us_per_io"] > 0 else None)
            entry["ratios"][peer] = {"iops": spread(iops), "cpu_per_io": spread(cpu)}
        summary["workloads"][w] = entry
    return summary


def fmt(s, digits=0):
    if not s:
        return "failed"
    f = "{:.%df}" % digits
    return f"{f.format(s['median'])} ({f.format(s['min'])}-{f.format(s['max'])})"


def table_rows(summary):
    header = ["workload", "stack", "IOPS", "MB/s", "p50 us", "p99 us", "p99.9 us", "CPU us/IO",
              "IOPS vs upstream", "IOPS vs nvmeof", "CPU/IO vs upstream", "IOPS vs baseline", "CPU/IO vs baseline"]
    rows = []
    for w, e in summary["workloads"].items():
        for s, f in e["stacks"].items():
            row = [w, s, fmt(f["iops"]), fmt(f["mbps"], 1), fmt(f["p50_us"]), fmt(f["p99_us"]),
                   fmt(f["p999_us"]), fmt(f["cpu_us_per_io"], 1), "", "", "", "", ""]
            if s == "ours":
                row[8] = fmt(e["ratios"]["upstream"]["iops"], 2)
                row[9] = fmt(e["ratios"]["nvmeof"]["iops"], 2)
                row[10] = fmt(e["ratios"]["upstream"]["cpu_per_io"], 2)
                row[11] = fmt(e["ratios"]["baseline"]["iops"], 2)
                row[12] = fmt(e["ratios"]["baseline"]["cpu_per_io"], 2)
            rows.append(row)
    return header, rows


def markdown(summary):
    header, rows = drop_empty_columns(*table_rows(summary))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * (len(header) - 2)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines.append("")
    lines.append(f"Medians of {summary['rounds']} rounds, spread (min-max) in brackets; "
                 "ratios are per-round pairs, then their median (min-max).")
    lines += [""] + [f"- {n}" for n in summary["no_poll_queues"] + summary["errors"]]
    return "\n".join(lines) + "\n"


def terminal(summary):
    header, rows = drop_empty_columns(*table_rows(summary))
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    out = ["  ".join(h.ljust(n) for h, n in zip(header, widths))]
    out += ["  ".join(c.ljust(n) for c, n in zip(r, widths)) for r in rows]
    out += summary["no_poll_queues"] + summary["errors"]
    return "\n".join(out) + "\n"


def drop_empty_columns(header, rows):
    keep = [i for i in range(len(header)) if i < 2 or any(r[i] not in ("", "failed") for r in rows)]
    return [header[i] for i in keep], [[r[i] for i in keep] for r in rows]


def chart(summary, prefix):
    """Data and gnuplot script of the ratio chart (bars = median, whiskers =
    min-max); tools/bench.sh renders it when gnuplot is there."""
    with open(prefix + "-chart.dat", "w") as f:
        f.write("# workload ours/upstream min max ours/nvmeof min max ours/baseline min max\n")
        for w, e in summary["workloads"].items():
            cols = [w]
            for peer in PEERS:
                s = e["ratios"][peer]["iops"]
                cols += [f"{s['median']:.3f}", f"{s['min']:.3f}", f"{s['max']:.3f}"] if s else ["NaN"] * 3
            f.write(" ".join(cols) + "\n")
    with open(prefix + "-chart.gp", "w") as f:
        f.write(f"""set terminal pngcairo size 1200,560 font ",10"
set output "{prefix}.png"
set title "ours / peer, IOPS (median of {summary['rounds']} rounds; whiskers: min-max)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set yrange [0:*]
set ylabel "ratio"
set xtics rotate by -30 noenhanced
set key top left
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"
set arrow from graph 0, first 1.2 to graph 1, first 1.2 nohead dt 3 lc rgb "dark-green"
""")
        plots = []
        for column, peer, title in ((2, "upstream", "ours / upstream RNBD"), (5, "nvmeof", "ours / NVMe-oF RDMA"),
                                    (8, "baseline", "ours / ours at the baseline commit")):
            if any(e["ratios"][peer]["iops"] for e in summary["workloads"].values()):
                plots.append(f'"{prefix}-chart.dat" using {column}:{column + 1}:{column + 2}:xtic(1) title "{title}"')
        f.write("plot " + ", \\\n     ".join(plots) + "\n" if plots else "# nothing to plot\n")


def main(results, prefix):
    with open(results) as f:
        records = [json.loads(line) for line in f if line.strip()]
    if not records:
        sys.exit(f"bench-report: no results in {results}")
    summary = summarize(records)
    with open(prefix + ".json", "w") as f:
        json.dump(summary, f, indent=1)
    with open(prefix + ".md", "w") as f:
        f.write(markdown(summary))
    chart(summary, prefix)
    sys.stdout.write(terminal(summary))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
