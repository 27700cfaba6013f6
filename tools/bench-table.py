#!/usr/bin/env python3
"""Turns the JSON of selftests/bench/bench.sh into a Markdown table with
ours/upstream ratios (higher is better for IOPS and bandwidth, lower for
latency)."""
import json
import sys


def metrics(job):
    if not job:
        return None
    j = job["jobs"][0]
    side = j["read"] if j["read"]["io_bytes"] > 0 else j["write"]
    pct = side.get("clat_ns", {}).get("percentile", {})
    return {
        "iops": side["iops"],
        "bw": side["bw_bytes"] / 1e6,
        "p50": pct.get("50.000000", 0) / 1000.0,
        "p99": pct.get("99.000000", 0) / 1000.0,
    }


def main(path):
    with open(path) as f:
        data = json.load(f)
    up = data.get("upstream") or {}
    ours = data.get("ours") or {}
    names = list(up.keys() or ours.keys())
    print("| workload | stack | IOPS | MB/s | p50 us | p99 us | ours/upstream IOPS |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name in names:
        u, o = metrics(up.get(name)), metrics(ours.get(name))
        for stack, m in (("upstream", u), ("ours", o)):
            if m is None:
                print(f"| {name} | {stack} | failed | | | | |")
                continue
            ratio = ""
            if stack == "ours" and u and u["iops"] > 0:
                ratio = f"{m['iops'] / u['iops']:.2f}"
            print(f"| {name} | {stack} | {m['iops']:.0f} | {m['bw']:.1f} | {m['p50']:.0f} | {m['p99']:.0f} | {ratio} |")
    if not ours:
        print("\nours: the stack could not be loaded or could not map the device in this run.")


if __name__ == "__main__":
    main(sys.argv[1])
