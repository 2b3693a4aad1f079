#!/usr/bin/env python3
"""The verdicts behind a segmented upload's speed-up: 1 segment in flight against N, from two upload reports.

    python3 scripts/seed-verdicts.py TITLE SERIAL.json PARALLEL.json

For each report: the upload's effective rate, the verdicts of its segments (the part transactions), the median
share of the send time the verdict's own stopwatch held (rwnd-limited for server-window, busy within the
congestion window for network, ...), the median per-connection figure behind it (the window cap, window / RTT,
for server-window; the kernel's delivery rate otherwise) and the median RTT; then the Why sentence of a typical
segment (the median body rate) and the speed-up. Used by scripts/demo.sh (reports/demo/seed-verdicts.txt).
"""
import json
import statistics
import sys
from collections import Counter

SHARE_KEY = {
    "server-window": ("receiveWindowLimitedShare", "rwnd-limited"),
    "send-buffer": ("sendBufferLimitedShare", "sndbuf-limited"),
    "network": ("networkShare", "busy in cwnd"),
    "client": ("idleShare", "idle"),
    "server-think": ("waitShare", "waiting"),
}


def rate(bytes_per_second):
    return f"{bytes_per_second / 1000:,.0f} KB/s"


def summarize(path):
    report = json.load(open(path))
    upload = report["upload"]
    parts = [tx for task in report["tasks"] for tx in task["transactions"]
             if "/part/" in tx["url"] and tx.get("diagnosis")]
    if not parts:
        sys.exit(f"seed-verdicts: {path} has no segment with a diagnosis")
    verdicts = Counter(tx["diagnosis"]["verdict"] for tx in parts)
    top, _ = verdicts.most_common(1)[0]
    chosen = [tx["diagnosis"] for tx in parts if tx["diagnosis"]["verdict"] == top]
    evidence = [d["evidence"] for d in chosen]
    key, label = SHARE_KEY.get(top, (None, ""))
    shares = [e[key] for e in evidence if key and e.get(key) is not None]
    figure_key = "windowCap" if top == "server-window" else "deliveryRate"
    figures = [e[figure_key] for e in evidence if e.get(figure_key)]
    rtts = [e["rtt"] for e in evidence if e.get("rtt")]
    return {
        "parallel": upload["parallel"],
        "rate": upload["effectiveBytesPerSecond"],
        "verdicts": ", ".join(f"{v} {n}/{len(parts)}" for v, n in verdicts.most_common()),
        "share": f"{statistics.median(shares) * 100:.0f}% {label}" if shares else "-",
        "figure": (("window cap " if figure_key == "windowCap" else "delivery ") + rate(statistics.median(figures)))
        if figures else "-",
        "rtt": f"{statistics.median(rtts) / 1000:.1f} ms" if rtts else "-",
        # A typical segment: the one with the median body rate among those with the verdict.
        "why": f"{top}: " + sorted(chosen, key=lambda d: d["evidence"].get("bodyRate") or 0)[len(chosen) // 2]["explanation"],
        "connections": len({tx.get("localPort") for tx in parts}),
    }


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: seed-verdicts.py TITLE SERIAL.json PARALLEL.json")
    title, serial, parallel = sys.argv[1], summarize(sys.argv[2]), summarize(sys.argv[3])
    print(title)
    print(f"  {'in flight':>9}  {'conns':>5}  {'upload':>11}  {'segment verdicts':<22}  {'median share':<20}  "
          f"{'per connection':<24}  RTT")
    for row in (serial, parallel):
        print(f"  {row['parallel']:>9}  {row['connections']:>5}  {rate(row['rate']):>11}  {row['verdicts']:<22}  "
              f"{row['share']:<20}  {row['figure']:<24}  {row['rtt']}")
    print(f"  Why, 1 in flight: {serial['why']}")
    print(f"  Why, {parallel['parallel']} in flight: {parallel['why']}")
    print(f"  speed-up with {parallel['parallel']} in flight: {parallel['rate'] / serial['rate']:.2f}x")


if __name__ == "__main__":
    main()
