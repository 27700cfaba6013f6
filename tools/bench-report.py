#!/usr/bin/env python3
"""Report of `make bench` (tools/bench.sh): reads the JSON lines the guest
wrote (selftests/bench/bench.sh: one object per round, stack and workload)
and writes, next to it, a summary JSON, a Markdown table and the data and
script of a PNG chart; prints a plain table to the terminal.

Per stack and workload, over the rounds: median and spread (min-max) of IOPS,
MB/s, p50/p99/p99.9 completion latency and guest CPU time per IO. The ratios
ours/upstream and ours/nvmeof are taken within each round (the two stacks ran
minutes apart in the same VM) and then their median and spread are reported,
so that a slow round moves both sides of its pair. With a baseline (our
modules of an earlier commit), the baseline's own ratios against upstream and
NVMe-oF are reported the same way: the "before" beside ours' "after".

Usage: bench-report.py RESULTS.jsonl OUTPUT_PREFIX
"""
import json
import statistics
import os
import sys

STACKS = ("ours", "baseline", "upstream", "nvmeof", "device")
PEERS = ("upstream", "nvmeof", "baseline")
# The stacks whose ratios are reported, and the peers each is compared with
# ("device": the backing device alone, a ceiling).
COMPARED = {"ours": PEERS + ("device",), "baseline": ("upstream", "nvmeof", "device"),
            "upstream": ("device",), "nvmeof": ("device",)}


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
    summary = {"rounds": len(rounds), "workloads": {}, "errors": [], "no_poll_queues": [], "maps": maps_note(records)}
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
            # Every round's IOPS and CPU per IO, in round order, so that a
            # bimodal stack shows past its median (None: not run).
            entry["stacks"][s]["every_round"] = [
                None if r not in per_round else
                {k: per_round[r][k] for k in ("iops", "cpu_us_per_io")} if per_round[r] else {"failed": True}
                for r in rounds]
        for stack, peers in COMPARED.items():
            ratios = entry["ratios"] if stack == "ours" else entry.setdefault(stack + "_ratios", {})
            for peer in peers:
                ratios[peer] = round_ratios(runs.get((w, stack), {}), runs.get((w, peer), {}), rounds)
        summary["workloads"][w] = entry
    return summary


def maps_note(records):
    """Which map each workload ran on (nr_poll_queues), in one line; empty
    for records from before the bench recorded it."""
    by_queues = {}
    for r in records:
        if "poll_queues" in r and r["workload"] not in by_queues.setdefault(r["poll_queues"], []):
            by_queues[r["poll_queues"]].append(r["workload"])
    if not by_queues:
        return ""
    parts = [f"nr_poll_queues={q} ({'the default map' if q == 0 else 'polled map'}): {', '.join(ws)}"
             for q, ws in sorted(by_queues.items())]
    modes = sorted({r["always_invalidate"] for r in records if "always_invalidate" in r})
    servers = f" RNBD servers: always_invalidate={'/'.join(modes)}." if modes else ""
    return "Maps: " + "; ".join(parts) + "." + servers


def round_ratios(mine, theirs, rounds):
    """Median and spread of the per-round ratios of two stacks' IOPS and
    CPU time per IO."""
    iops, cpu = [], []
    for rnd in rounds:
        a, b = mine.get(rnd), theirs.get(rnd)
        if a and b and b["iops"] > 0:
            iops.append(a["iops"] / b["iops"])
            cpu.append(a["cpu_us_per_io"] / b["cpu_us_per_io"] if b["cpu_us_per_io"] > 0 else None)
    return {"iops": spread(iops), "cpu_per_io": spread(cpu)}


def fmt(s, digits=0):
    if not s:
        return "failed"
    f = "{:.%df}" % digits
    return f"{f.format(s['median'])} ({f.format(s['min'])}-{f.format(s['max'])})"


def table_rows(summary):
    header = ["workload", "stack", "IOPS", "MB/s", "p50 us", "p99 us", "p99.9 us", "CPU us/IO",
              "IOPS vs upstream", "IOPS vs nvmeof", "CPU/IO vs upstream", "CPU/IO vs nvmeof",
              "IOPS vs baseline", "CPU/IO vs baseline", "IOPS vs device"]
    rows = []
    for w, e in summary["workloads"].items():
        for s, f in e["stacks"].items():
            row = [w, s, fmt(f["iops"]), fmt(f["mbps"], 1), fmt(f["p50_us"]), fmt(f["p99_us"]),
                   fmt(f["p999_us"]), fmt(f["cpu_us_per_io"], 1)]
            ratios = e["ratios"] if s == "ours" else e.get(s + "_ratios", {})
            for kind, peer in (("iops", "upstream"), ("iops", "nvmeof"), ("cpu_per_io", "upstream"),
                               ("cpu_per_io", "nvmeof"), ("iops", "baseline"), ("cpu_per_io", "baseline"),
                               ("iops", "device")):
                row.append(fmt(ratios[peer][kind], 2) if peer in ratios else "")
            rows.append(row)
    return header, rows


COUNT_FIELDS = (("post_send", "post send"), ("post_recv", "post recv"), ("completions", "compl."),
                ("cq_events", "CQ events"), ("cq_polls", "CQ polls"), ("cq_arms", "CQ arms"),
                ("context_switches", "ctx sw"), ("softirq_tasklet", "tasklet"),
                ("softirq_irq_poll", "irq_poll"), ("softirq_net_rx", "net_rx"),
                ("rxe_packets_sent", "pkts sent"), ("rxe_packets_received", "pkts rcvd"),
                ("ipi_reschedule", "IPI resched"), ("ipi_function_call", "IPI call"))


def round_rows(summary):
    """One row per workload and stack: IOPS (CPU us per IO) of each round."""
    header = ["workload", "stack"] + [f"round {r + 1}" for r in range(summary["rounds"])]
    rows = []
    for w, e in summary["workloads"].items():
        for s, f in e["stacks"].items():
            rows.append([w, s] + ["not run" if x is None else "failed" if "failed" in x else
                                  f"{x['iops']:.0f} ({x['cpu_us_per_io']:.1f})" for x in f["every_round"]])
    return header, rows


def per_io_counts(records):
    """{workload: {stack: {field: per IO}}} of the counted runs (BENCH_COUNTS):
    the counters span ramp + runtime, fio's IOs the runtime only."""
    counts = {}
    for r in records:
        if "error" in r or not r.get("ios"):
            counts.setdefault(r["workload"], {})[r["stack"]] = None
            continue
        scale = r["runtime_s"] / (r["runtime_s"] + r["ramp_s"]) / r["ios"]
        counts.setdefault(r["workload"], {})[r["stack"]] = {k: r[k] * scale for k, _ in COUNT_FIELDS if k in r}
    return counts


def markdown_table(header, rows):
    """A Markdown table: the first two columns left-aligned, the figures right."""
    return (["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * (len(header) - 2)]
            + ["| " + " | ".join(r) + " |" for r in rows])


def counts_markdown(counts):
    if not counts:
        return ""
    header = ["workload", "stack"] + [title for _, title in COUNT_FIELDS]
    rows = []
    for workload, stacks in counts.items():
        for stack in sorted(stacks, key=lambda s: STACKS.index(s) if s in STACKS else 99):
            per = stacks[stack]
            rows.append([workload, stack] + ["failed" if not per else f"{per[k]:.2f}" if k in per else "-" for k, _ in COUNT_FIELDS])
    lines = ["", "Per IO (a separate run per stack and workload, kprobes on rdma_rxe's verbs, /proc/stat, "
             "/proc/softirqs, rxe0's hw_counters, /proc/interrupts; not part of the figures above):", ""]
    return "\n".join(lines + markdown_table(header, rows)) + "\n"


SCALE_VARIANTS = {"one-session": "one session", "sessions": "a session each"}
# Ratios of the scale figures: each stack against the peers it is compared
# with in the main table, NVMe-oF aside (the scale workload is RNBD's).
SCALE_COMPARED = (("ours", "upstream"), ("ours", "baseline"), ("baseline", "upstream"))
SCALE_FIGURES = (("map_ms_per_device", "map"), ("unmap_ms_per_device", "unmap"),
                 ("mem_available_kib_per_device", "MemAvailable"), ("slab_kib_per_device", "Slab"),
                 ("iops", "IOPS"))


def scale_figures(records):
    """Per-device figures of the scale runs (BENCH_SCALE): times in guest ms,
    memory as the mapped devices' share of MemAvailable's drop and Slab's
    growth (each read after settling: deferred frees done, caches dropped),
    what did not come back after the unmaps, and the IOPS of all devices."""
    rows, errors = [], []
    for r in records:
        if "error" in r:
            errors.append(f"scale {r['stack']} {SCALE_VARIANTS.get(r['variant'], r['variant'])} "
                          f"N={r['devices']}: {r['error']}")
            continue
        n = r["devices"]
        meminfo = r["meminfo_kib"]
        # Freed pages parked on the per-CPU free lists are available but not
        # counted free by /proc/meminfo: tens of MiB moved between readings.
        available = [a + pages * r["page_kib"] for a, pages in zip(meminfo["MemAvailable"], meminfo["pcp_free_pages"])]
        slab = meminfo["Slab"]
        jobs = r["fio"].get("jobs")
        iops = jobs[0]["read"]["iops"] + jobs[0]["write"]["iops"] if jobs else None
        if not jobs and "skipped" not in r["fio"]:
            errors.append(f"scale {r['stack']} {SCALE_VARIANTS.get(r['variant'], r['variant'])} N={n}: "
                          f"{r['fio'].get('error', 'no fio result')}")
        rows.append({
            "stack": r["stack"], "variant": r["variant"], "devices": n, "sessions": r["sessions"],
            "server_queue_depth": r["server_queue_depth"],
            "map_ms_per_device": r["map_us"] / n / 1e3,
            "first_map_ms": r["map_us_each"][0] / 1e3 if r["map_us_each"] else None,
            "unmap_ms_per_device": r["unmap_us"] / n / 1e3,
            "mem_available_kib_per_device": (available[0] - available[1]) / n,
            "slab_kib_per_device": (slab[1] - slab[0]) / n,
            "mem_available_kib_not_back": available[0] - available[2],
            "slab_kib_not_back": slab[2] - slab[0],
            "iops": iops,
            "iops_not_run": "skipped" in r["fio"],
        })
    ratios = []
    for n, variant in sorted({(r["devices"], r["variant"]) for r in rows}, key=lambda k: (k[0], k[1] != "one-session")):
        by_stack = {r["stack"]: r for r in rows if r["devices"] == n and r["variant"] == variant}
        for mine, peer in SCALE_COMPARED:
            if mine in by_stack and peer in by_stack:
                a, b = by_stack[mine], by_stack[peer]
                ratios.append({"devices": n, "variant": variant, "pair": f"{mine}/{peer}",
                               "iops_not_run": a["iops_not_run"] or b["iops_not_run"],
                               **{k: a[k] / b[k] if a[k] is not None and b[k] else None for k, _ in SCALE_FIGURES}})
    return {"runs": rows, "ratios": ratios, "growth": growth(rows), "errors": errors}


GROWTH_FIGURES = (("map_ms_per_device", "map ms"), ("unmap_ms_per_device", "unmap ms"),
                  ("mem_available_kib_per_device", "MemAvailable KiB"), ("slab_kib_per_device", "Slab KiB"))


def growth(rows):
    """With two device counts or more (BENCH_SCALE_DEVICES="64 256"), per
    stack and variant, between the smallest and the largest N: what one more
    device adds, and what stays when that is taken out of the smallest N's
    total (a session's and a stack's own share), so that a per-device figure
    divided over few devices is not read as a device's cost."""
    out = []
    for stack, variant in sorted({(r["stack"], r["variant"]) for r in rows},
                                 key=lambda k: (k[1] != "one-session", STACKS.index(k[0]) if k[0] in STACKS else 99)):
        runs = sorted((r for r in rows if r["stack"] == stack and r["variant"] == variant), key=lambda r: r["devices"])
        if len(runs) < 2 or runs[0]["devices"] == runs[-1]["devices"]:
            continue
        low, high = runs[0], runs[-1]
        entry = {"stack": stack, "variant": variant, "from": low["devices"], "to": high["devices"]}
        for key, _ in GROWTH_FIGURES:
            total_low, total_high = low[key] * low["devices"], high[key] * high["devices"]
            per_device = (total_high - total_low) / (high["devices"] - low["devices"])
            entry[key] = {"per_added_device": per_device, "fixed": total_low - per_device * low["devices"]}
        out.append(entry)
    return out


def scale_tables(scale):
    """The scale figures and their ratios as (header, rows) pairs."""
    def cell(value, digits):
        return "failed" if value is None else f"{value:.{digits}f}"

    def iops_cell(run, digits):  # fio is not run above BENCH_SCALE_IO_DEVICES
        return "not run" if run.get("iops_not_run") else cell(run["iops"], digits)
    header = ["stack", "variant", "N", "server queue depth", "map ms/device", "first map ms",
              "unmap ms/device", "MemAvailable KiB/device", "Slab KiB/device", "IOPS (all devices)",
              "MemAvailable KiB not back", "Slab KiB not back"]
    order = sorted(scale["runs"], key=lambda r: (r["devices"], r["variant"] != "one-session",
                                                 STACKS.index(r["stack"]) if r["stack"] in STACKS else 99))
    rows = [[r["stack"], SCALE_VARIANTS.get(r["variant"], r["variant"]), str(r["devices"]),
             str(r["server_queue_depth"]), cell(r["map_ms_per_device"], 2), cell(r["first_map_ms"], 1),
             cell(r["unmap_ms_per_device"], 2), cell(r["mem_available_kib_per_device"], 0),
             cell(r["slab_kib_per_device"], 0), iops_cell(r, 0), str(r["mem_available_kib_not_back"]),
             str(r["slab_kib_not_back"])] for r in order]
    ratio_header = ["variant", "N", "ratio"] + [title for _, title in SCALE_FIGURES]
    ratio_rows = [[SCALE_VARIANTS.get(r["variant"], r["variant"]), str(r["devices"]), r["pair"]]
                  + [iops_cell(r, 2) if k == "iops" else cell(r[k], 2) for k, _ in SCALE_FIGURES]
                  for r in scale["ratios"]]
    growth_header = ["stack", "variant", "N"] + [f"{title} per added device" for _, title in GROWTH_FIGURES] + \
        [f"{title} fixed" for _, title in GROWTH_FIGURES]
    growth_rows = [[g["stack"], SCALE_VARIANTS.get(g["variant"], g["variant"]), f"{g['from']}-{g['to']}"]
                   + [cell(g[k]["per_added_device"], 2 if "ms" in k else 0) for k, _ in GROWTH_FIGURES]
                   + [cell(g[k]["fixed"], 1 if "ms" in k else 0) for k, _ in GROWTH_FIGURES]
                   for g in scale.get("growth", [])]
    return (header, rows), (ratio_header, ratio_rows), (growth_header, growth_rows)


SCALE_NOTE = ("Scale (BENCH_SCALE): N memory-less null_blk devices mapped through one session, or through "
              "a session each (servers at the server queue depth shown), one stack loaded at a time. "
              "Times are the guest's clock over the map_device and unmap_device writes, divided by N "
              "(the first map includes its session's setup); memory is MemAvailable's drop and Slab's "
              "growth from before the maps to after them (/proc/meminfo after dropping the caches and waiting out "
              "deferred frees; MemAvailable plus the free pages on the per-CPU lists, which it does not count), "
              "divided by N; "
              "IOPS is fio's 4k random reads at QD1 on all N devices at once (one job per device); "
              "\"not back\" is what the unmaps did not return (after minus before, all N devices together). "
              "Ratios are mine/peer: for times and memory below 1 means mine costs less, for IOPS above 1 "
              "means mine is faster. With two device counts, the last table splits each total between "
              "the smallest and the largest N into what one more device adds and a fixed part (the "
              "session's and the stack's own: in a session each, a device and its session grow together).")


def scale_markdown(scale):
    if not scale:
        return ""
    lines = ["", "Scale:", ""]
    for header, rows in scale_tables(scale):
        if rows:
            lines += markdown_table(header, rows) + [""]
    lines.append(SCALE_NOTE)
    lines += [""] + [f"- {e}" for e in scale["errors"]]
    return "\n".join(lines) + "\n"


def scale_terminal(scale):
    if not scale:
        return ""
    out = ["", "Scale (per device; ratios mine/peer):"]
    for header, rows in scale_tables(scale):
        if rows:
            out += [""] + plain_table(header, rows)
    out += scale["errors"]
    return "\n".join(out) + "\n"


def plain_table(header, rows):
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    return ["  ".join(h.ljust(n) for h, n in zip(header, widths))] + \
        ["  ".join(c.ljust(n) for c, n in zip(r, widths)) for r in rows]


def clock_note():
    """What the figures' seconds are (tools/bench.sh exports BENCH_CLOCK)."""
    if os.environ.get("BENCH_CLOCK") == "icount":
        shift = os.environ.get("BENCH_ICOUNT_SHIFT", "?")
        return ("Clock: guest time from executed instructions (cost mode: one vCPU, QEMU "
                f"-icount shift={shift},sleep=off): IOPS and CPU per IO measure the work "
                "each IO costs the guest, whatever the host's load; no cross-CPU effect shows.")
    return "Clock: wall clock (the host's load and the vCPUs' scheduling show in every figure)."


def markdown(summary):
    lines = markdown_table(*drop_empty_columns(*table_rows(summary)))
    lines.append("")
    lines.append(f"Medians of {summary['rounds']} rounds, spread (min-max) in brackets; "
                 "ratios are per-round pairs, then their median (min-max).")
    lines.append(clock_note())
    if summary.get("maps"):
        lines.append(summary["maps"])
    lines += ["", "Every round, IOPS (CPU us per IO); the stacks' order rotates by one each round:", ""]
    lines += markdown_table(*round_rows(summary))
    lines += [""] + [f"- {n}" for n in summary["no_poll_queues"] + summary["errors"]]
    return "\n".join(lines) + "\n"


def terminal(summary):
    out = plain_table(*drop_empty_columns(*table_rows(summary)))
    out += ["", "Every round, IOPS (CPU us per IO):"] + plain_table(*round_rows(summary))
    out += [summary["maps"]] if summary.get("maps") else []
    out += summary["no_poll_queues"] + summary["errors"]
    return "\n".join(out) + "\n"


def drop_empty_columns(header, rows):
    keep = [i for i in range(len(header)) if i < 2 or any(r[i] not in ("", "failed") for r in rows)]
    return [header[i] for i in keep], [[r[i] for i in keep] for r in rows]


def before_upstream(entry):
    return entry.get("baseline_ratios", {}).get("upstream", {}).get("iops")


def chart(summary, prefix):
    """Data and gnuplot script of the ratio chart (bars = median, whiskers =
    min-max); tools/bench.sh renders it when gnuplot is there."""
    with open(prefix + "-chart.dat", "w") as f:
        f.write("# workload ours/upstream min max ours/nvmeof min max ours/baseline min max"
                " baseline/upstream min max\n")
        for w, e in summary["workloads"].items():
            cols = [w]
            for s in [e["ratios"][peer]["iops"] for peer in PEERS] + [before_upstream(e)]:
                cols += [f"{s['median']:.3f}", f"{s['min']:.3f}", f"{s['max']:.3f}"] if s else ["NaN"] * 3
            f.write(" ".join(cols) + "\n")
    with open(prefix + "-chart.gp", "w") as f:
        f.write(f"""set terminal pngcairo size 1200,560 font ",10"
set output "{prefix}.png"
set title "ours / peer, IOPS (median of {summary['rounds']} rounds; whiskers: min-max)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set yrange [0:*<2]  # a whisker of one broken round would flatten the bars
set ylabel "ratio"
set xtics rotate by -30 noenhanced
set key top left
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"
set arrow from graph 0, first 1.2 to graph 1, first 1.2 nohead dt 3 lc rgb "dark-green"
""")
        plots = []
        for column, series, title in ((2, lambda e: e["ratios"]["upstream"]["iops"], "ours / upstream RNBD"),
                                      (5, lambda e: e["ratios"]["nvmeof"]["iops"], "ours / NVMe-oF RDMA"),
                                      (8, lambda e: e["ratios"]["baseline"]["iops"], "ours / ours at the baseline commit"),
                                      (11, before_upstream, "baseline commit / upstream RNBD (before)")):
            if any(series(e) for e in summary["workloads"].values()):
                plots.append(f'"{prefix}-chart.dat" using {column}:{column + 1}:{column + 2}:xtic(1) title "{title}"')
        f.write("plot " + ", \\\n     ".join(plots) + "\n" if plots else "# nothing to plot\n")


# The link's ceiling for a workload: the perftest run that moves each IO's
# data as one RDMA operation (QD1: one at a time, the latency test; deeper:
# the bandwidth test's message rate). Both RNBDs move data with RDMA WRITE
# whichever the direction (a read's data is written by the server), and
# perftest's WRITE tests cannot sleep on events (selftests/bench/bench.sh),
# so the ceiling is SEND/RECV, the same packets on the wire; the RDMA READ
# tests are listed beside it.
CEILING_OF = {
    "randread-4k-qd1": ("send_lat", 4096), "randwrite-4k-qd1": ("send_lat", 4096),
    "randread-4k-qd1-polled": ("send_lat", 4096),
    "randread-4k-qd32": ("send_bw", 4096), "randwrite-4k-qd32": ("send_bw", 4096),
    "randread-4k-qd32-jobs": ("send_bw", 4096), "mixed70-4k-qd16": ("send_bw", 4096),
    "read-128k-qd8": ("send_bw", 131072), "write-128k-qd8": ("send_bw", 131072),
}


def ceiling_iops(run):
    if run is None or "error" in run:
        return None
    if "mpps" in run:
        return float(run["mpps"]) * 1e6
    return 1e6 / float(run["t_avg_us"]) if float(run.get("t_avg_us", 0)) > 0 else None


def ceilings_markdown(records, summary):
    """perftest's runs (BENCH_CEILINGS), then each stack's median IOPS as a
    share of its workload's ceiling."""
    if not records:
        return ""
    runs = {(r["test"], r["bytes"]): r for r in records}
    rows = []
    for r in records:
        if "error" in r:
            rows.append([f"ib_{r['test']}", str(r["bytes"]), "failed: " + r["error"], "", "", "", ""])
        elif "mpps" in r:
            rows.append([f"ib_{r['test']}", str(r["bytes"]), f"{float(r['mb_per_s']):.1f}",
                         f"{float(r['mpps']) * 1e6:.0f}", "", "", ""])
        else:
            rows.append([f"ib_{r['test']}", str(r["bytes"]), "", f"{ceiling_iops(r):.0f}",
                         f"{float(r['t_typical_us']):.2f}", f"{float(r['t_avg_us']):.2f}", f"{float(r['t_p99_us']):.2f}"])
    lines = ["", "Ceilings of the link (perftest over the same rxe, RDMA-CM, one RDMA operation per message, "
             "sleeping on completion events; bandwidth tests with perftest's default messages in flight, "
             "latency tests one at a time):", ""]
    lines += markdown_table(["test", "bytes", "MB/s", "messages/s", "t_typical us", "t_avg us", "t_p99 us"], rows)
    share_rows = []
    stacks = [s for s in STACKS if any(s in e["stacks"] for e in summary.get("workloads", {}).values())]
    for w, e in summary.get("workloads", {}).items():
        key = CEILING_OF.get(w)
        ceiling = ceiling_iops(runs.get(key)) if key else None
        if not ceiling:
            continue
        row = [w, f"ib_{key[0]} {key[1]}", f"{ceiling:.0f}"]
        for s in stacks:
            iops = e["stacks"].get(s, {}).get("iops")
            row.append(f"{iops['median'] / ceiling:.2f}" if iops else "")
        share_rows.append(row)
    if share_rows:
        lines += ["", "Each stack's median IOPS as a share of its workload's link ceiling:", ""]
        lines += markdown_table(["workload", "ceiling", "ceiling IOPS"] + stacks, share_rows)
    return "\n".join(lines) + "\n"


def side_records(results, suffix):
    """The records of a file written beside RESULTS.jsonl (RESULTS.<suffix>),
    or None when there is none."""
    if not results.endswith(".jsonl"):
        return None
    name = results[:-len(".jsonl")] + suffix
    if not os.path.exists(name):
        return None
    with open(name) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(results, prefix):
    with open(results) as f:
        records = [json.loads(line) for line in f if line.strip()]
    scale_records = side_records(results, ".scale.jsonl")
    counted = side_records(results, ".counts.jsonl")
    ceiling_records = side_records(results, ".ceilings.jsonl")
    if not records and not scale_records and not counted:
        sys.exit(f"bench-report: no results in {results}")
    summary = summarize(records)
    if counted is not None:
        summary["per_io_counts"] = per_io_counts(counted)
    if scale_records:
        summary["scale"] = scale_figures(scale_records)
    if ceiling_records:
        summary["ceilings"] = ceiling_records
    with open(prefix + ".json", "w") as f:
        json.dump(summary, f, indent=1)
    counts = counts_markdown(summary.get("per_io_counts", {})) + ceilings_markdown(ceiling_records, summary)
    scale = summary.get("scale")
    # A scale- or counts-only run (BENCH_WORKLOADS=none) has no workload table and no chart.
    with open(prefix + ".md", "w") as f:
        f.write((markdown(summary) if records else clock_note() + "\n") + counts + scale_markdown(scale))
    if records:
        chart(summary, prefix)
    sys.stdout.write((terminal(summary) if records else "") + counts + scale_terminal(scale))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
