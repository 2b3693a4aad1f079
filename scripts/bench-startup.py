#!/usr/bin/env python3
"""Start-up benchmark (issue 30, item 3): one GET by `wirelens probe` against one by curl, paired.

  python3 scripts/bench-startup.py [--quick] [--wirelens PATH] [--out DIR] [--pairs 20]

Against a loopback nginx (scripts/nginx-up.sh, GET /small.txt), each pair runs, one after the other:
  curl       curl -s -o /dev/null URL
  wirelens   wirelens probe -s -o /dev/null URL
and, after the pair, `wirelens --version` (start-up without any network work). Three warm-up runs of each
come first and are not counted. Every run goes through the small C launcher of scripts/bench.py: its wall time
(fork to wait4), CPU time and peak RSS are the process's own, not the Python driver's. A run counts only if it
exits 0. The figures: the median of each, and the median over pairs of wirelens's wall time over curl's in the
same pair (drift between pairs cancels). Target: that ratio at most 1.5.

Writes OUT/startup.json and OUT/STARTUP-BENCH.md (default reports/bench, or reports/bench/raw/quick with --quick).
"""

import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (measure, build_launcher, log, paths, fresh_dirs, tool_version, Bench.machine)

TARGET_RATIO = 1.5
LINK_ORDER = os.path.join(bench.ROOT, "scripts", "link-order.txt")
WARM_UP = 3


class StartupBench:
    def __init__(self, args):
        self.quick = args.quick
        self.pairs = args.pairs or (5 if args.quick else 20)
        self.out, self.raw, self.wirelens = bench.paths(args, "startup")
        self.timeout = args.timeout

    def commands(self, url):
        return {"curl": ["curl", "-s", "-o", "/dev/null", url],
                "wirelens": [self.wirelens, "probe", "-s", "-o", "/dev/null", url],
                "version": [self.wirelens, "--version"]}

    def once(self, name, argv, label, launcher):
        so = os.path.join(self.raw, f"{name}-{label}.stdout")
        se = os.path.join(self.raw, f"{name}-{label}.stderr")
        m = bench.measure(argv, so, se, self.timeout, launcher)
        return {"ok": m["exit"] == 0 and not m["timed_out"], "wall_ms": m["wall_s"] * 1000,
                "cpu_ms": m["cpu_s"] * 1000, "peak_rss_mib": m["peak_rss_mib"], "exit": m["exit"]}

    def run(self):
        if not (os.path.isfile(self.wirelens) and os.access(self.wirelens, os.X_OK)):
            raise SystemExit(f"bench-startup: no wirelens binary at {self.wirelens}")
        if not shutil.which("curl"):
            raise SystemExit("bench-startup: curl not found (make deps installs it)")
        tmp = bench.fresh_dirs(self.out, self.raw, "bench-startup")
        started = datetime.datetime.now(datetime.timezone.utc)
        load_before = os.getloadavg()[0]
        nginx_dir = os.path.join(tmp, "nginx")
        runs = {"curl": [], "wirelens": [], "version": []}
        try:
            launcher, ports = bench.launcher_and_nginx(tmp, nginx_dir, "bench-startup")
            url = f"http://127.0.0.1:{ports['HTTP_PORT']}/small.txt"
            commands = self.commands(url)
            for i in range(WARM_UP):
                for name, argv in commands.items():
                    self.once(name, argv, f"warm{i}", launcher)
            for pair in range(self.pairs):
                for name, argv in commands.items():
                    run = self.once(name, argv, str(pair), launcher)
                    run["pair"] = pair
                    run["round"] = pair
                    runs[name].append(run)
                bench.log(f"pair {pair + 1}/{self.pairs}: curl {runs['curl'][-1]['wall_ms']:.1f} ms, wirelens "
                          f"{runs['wirelens'][-1]['wall_ms']:.1f} ms, --version {runs['version'][-1]['wall_ms']:.1f} ms")
            versions = {"wirelens": bench.tool_version([self.wirelens, "--version"]),
                        "curl": bench.tool_version(["curl", "--version"]),
                        "nginx": bench.tool_version(["nginx", "-v"])}
        finally:
            subprocess.run(["bash", bench.NGINX_DOWN, nginx_dir], timeout=60)
            shutil.rmtree(tmp, ignore_errors=True)

        link_order = self.link_order()
        medians = {name: {key: bench.median_of(rs, key) for key in ("wall_ms", "cpu_ms", "peak_rss_mib")}
                   for name, rs in runs.items()}
        ratios = bench.pair_ratios(runs["wirelens"], runs["curl"], "wall_ms")
        ratio = statistics.median(ratios) if ratios else None
        all_ok = all(r["ok"] for rs in runs.values() for r in rs)
        targets = [{"name": f"one GET at most {TARGET_RATIO}x curl's wall time (median over {self.pairs} pairs)",
                    "value": ratio, "met": None if ratio is None or not all_ok else ratio <= TARGET_RATIO}]
        doc = {"date": started.isoformat(timespec="seconds"), "quick": self.quick,
               "machine": bench.Bench.machine(self), "versions": versions, "load_average_1m_at_start": load_before,
               "url": url, "pairs": self.pairs, "commands": commands, "medians": medians,
               "pair_ratios_wall": ratios, "link_order": link_order, "runs": runs, "targets": targets}
        with open(os.path.join(self.out, "startup.json"), "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        self.write_markdown(os.path.join(self.out, "STARTUP-BENCH.md"), doc)
        if not all_ok:
            bench.log("failed runs: " + ", ".join(f"{name} {r['pair']} (exit {r['exit']})"
                                                  for name, rs in runs.items() for r in rs if not r["ok"]))
            return 1
        return 0

    def link_order(self):
        """How much of scripts/link-order.txt the binary holds and how close together: the functions it lists
        that the binary defines, and the span from the first of them to the one 99% of the way (MiB). A span
        near the listed code's size says the order took effect; far more says the release link did not use it
        (reports/bench/STARTUP.md)."""
        with open(LINK_ORDER) as fh:
            listed = fh.read().split()
        where = bench.function_addresses(self.wirelens)
        found = sorted(where[name] for name in listed if name in where)
        span = (found[int(0.99 * (len(found) - 1))] - found[0]) / bench.MIB if found else None
        return {"listed": len(listed), "in_binary": len(found), "span_p99_mib": span}

    def write_markdown(self, path, doc):
        mc = doc["machine"]
        desc = {"curl": "`curl -s -o /dev/null URL`", "wirelens": "`wirelens probe -s -o /dev/null URL`",
                "version": "`wirelens --version`"}

        def fmt(value, spec):
            return "n/a" if value is None else format(value, spec)
        L = ["# Start-up benchmark: one GET" + (" (quick smoke run)" if self.quick else ""), "",
             f"Date: {doc['date']}  ",
             f"Machine: {mc['nproc']} CPUs ({mc['cpu'] or 'unknown CPU'}), Linux {mc['kernel']}; "
             f"1-minute load average at the start {doc['load_average_1m_at_start']:.1f}  ",
             f"Method: {doc['pairs']} pairs, each curl then wirelens then `wirelens --version`, after {WARM_UP} "
             "warm-up runs of each; GET /small.txt of a loopback nginx; wall time from fork to wait4, CPU time "
             "and peak RSS (ru_maxrss) of the process by a small C launcher; the release binary (Swift runtime "
             "linked statically).  ",
             f"Tools: `{doc['versions']['wirelens']}`; `{doc['versions']['curl']}`; `{doc['versions']['nginx']}`",
             "", "| command | median wall | median CPU | median peak RSS | runs ok |", "|---|---:|---:|---:|---:|"]
        for name, rs in doc["runs"].items():
            m = doc["medians"][name]
            L.append(f"| {desc[name]} | {fmt(m['wall_ms'], '.1f')} ms | {fmt(m['cpu_ms'], '.1f')} ms | "
                     f"{fmt(m['peak_rss_mib'], '.1f')} MiB | {sum(r['ok'] for r in rs)}/{len(rs)} |")
        t = doc["targets"][0]
        verdict = "not measured" if t["met"] is None else ("met" if t["met"] else "not met")
        ratios = doc["pair_ratios_wall"]
        spread = f" (pairs {min(ratios):.2f}-{max(ratios):.2f})" if ratios else ""
        lo = doc["link_order"]
        L += ["", f"Target: {t['name']}: {fmt(t['value'], '.2f')}x{spread}, {verdict}.", "",
              f"Link order: {lo['in_binary']} of the {lo['listed']} functions of scripts/link-order.txt are in the "
              f"binary, 99% of them within {fmt(lo['span_p99_mib'], '.1f')} MiB of the first.", "",
              "Raw figures: `startup.json`; per-run output under `reports/bench/raw/startup/` (not committed). "
              "What the start-up is spent on: `STARTUP.md`."]
        bench.write_lines(path, L)


def main():
    return bench.single_run_main(__doc__, "startup.json and STARTUP-BENCH.md", "5 pairs", 30,
                                 lambda p: p.add_argument("--pairs", type=int, help="pairs of runs (default 20)"), StartupBench)


if __name__ == "__main__":
    sys.exit(main())
