#!/usr/bin/env python3
"""Probe memory benchmark (issue 13, item 11): peak RSS of `wirelens probe --repeat N` as N grows.

  python3 scripts/bench-memory.py [--quick] [--wirelens PATH] [--out DIR] [--sizes 1000,100000,1000000]

For each N in 1 000, 100 000 and 1 000 000 (--quick: 1000, 20 000, 100 000), small GETs of /small.txt to
a loopback nginx, 16 at a time (--concurrency 16 --max-host-connections 16), reported three ways:
  text       --format text --report FILE          (the summary)
  json-file  --format json --report FILE          (every task, written as the run goes)
  json-pipe  --format json | wc -c                (the same document through a pipe)
Each run's peak RSS is the process's ru_maxrss (wait4), taken by the small C launcher of scripts/bench.py so
that the Python driver's memory is not counted; for the pipe, the launcher runs `sh -c 'wirelens … | wc -c'`
and the peak is the largest of the processes it waited for (wirelens: sh and wc are a few hundred KiB).
Target: every run at most 32 MiB (issue 30, item 4). The runs are checked: exit 0, the summary's task count, and for JSON the
document's size (the 1M-task file, about 1.6 GB, is deleted once measured).

Writes OUT/memory.json and OUT/MEMORY.md (default reports/bench, or reports/bench/raw/quick with --quick).
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (measure, build_launcher, log, paths, tool_version, Bench.machine, run_cleanly)

ROOT = bench.ROOT
TARGET_RSS_MIB = 32.0
MODES = ("text", "json-file", "json-pipe")


class MemoryBench:
    def __init__(self, args):
        self.quick = args.quick
        self.sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else \
            ([1000, 20000, 100000] if args.quick else [1000, 100000, 1000000])
        self.out, self.raw, self.wirelens = bench.paths(args, "memory")
        self.timeout = args.timeout

    def argv(self, mode, n, url, report):
        probe = [self.wirelens, "probe", url, "--repeat", str(n), "--concurrency", "16",
                 "--max-host-connections", "16", "--quiet"]
        if mode == "text":
            return probe + ["--format", "text", "--report", report]
        if mode == "json-file":
            return probe + ["--format", "json", "--report", report]
        quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in probe + ["--format", "json"])
        return ["sh", "-c", f"{quoted} | wc -c > '{report}'"]

    def check(self, mode, n, report, stdout_path):
        """The run did what it was asked: every task in the summary, a document of plausible size."""
        try:
            if mode == "text":
                with open(report) as f:
                    text = f.read()
                return re.search(rf"\b{n} ok, 0 failed of {n}\b", text) is not None
            if mode == "json-file":
                size = os.path.getsize(report)
                return size > 1000 * n and self.summary_counts(report, size, n)
            with open(report) as f:
                return int(f.read().strip()) > 1000 * n
        except (OSError, ValueError):
            return False

    @staticmethod
    def summary_counts(report, size, n):
        """The JSON document's summary counts N tasks, all succeeded. Indented (up to 1000 tasks) the summary
        comes before the tasks; compact, after them and before the connections, whose lists of transactions
        grow with the run: the file is read in pieces from both ends until the summary is found."""
        pattern = re.compile(rb'"summary":\s*\{\s*"tasks":\s*(\d+),\s*"succeeded":\s*(\d+)\b')
        piece, overlap = 8 << 20, 4096
        with open(report, "rb") as f:
            starts = sorted({0, *range(max(0, size - piece), -1, -piece)}, key=lambda at: (at != 0, -at))
            for at in starts:
                f.seek(at)
                found = pattern.search(f.read(piece + overlap))
                if found:
                    return int(found.group(1)) == n and int(found.group(2)) == n
        return False

    def run(self):
        if not (os.path.isfile(self.wirelens) and os.access(self.wirelens, os.X_OK)):
            raise SystemExit(f"bench-memory: no wirelens binary at {self.wirelens}")
        os.makedirs(self.out, exist_ok=True)
        shutil.rmtree(self.raw, ignore_errors=True)
        os.makedirs(self.raw, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix="wirelens-bench-memory.")
        started = datetime.datetime.now(datetime.timezone.utc)
        load_before = os.getloadavg()[0]
        nginx_dir = os.path.join(tmp, "nginx")
        runs = []
        try:
            launcher, ports = bench.launcher_and_nginx(tmp, nginx_dir, "bench-memory")
            url = f"http://127.0.0.1:{ports['HTTP_PORT']}/small.txt"
            for n in self.sizes:
                for mode in MODES:
                    report = os.path.join(tmp, f"{mode}-{n}.out")
                    so = os.path.join(self.raw, f"{mode}-{n}.stdout")
                    se = os.path.join(self.raw, f"{mode}-{n}.stderr")
                    argv = self.argv(mode, n, url, report)
                    m = bench.measure(argv, so, se, self.timeout, launcher)
                    ok = m["exit"] == 0 and not m["timed_out"] and self.check(mode, n, report, so)
                    size = os.path.getsize(report) if mode == "json-file" and os.path.exists(report) else None
                    if mode == "text" and os.path.exists(report):
                        shutil.copy(report, os.path.join(self.raw, f"text-{n}.txt"))
                    if os.path.exists(report):
                        os.remove(report)   # the 1M-task document is ~1.6 GB
                    run = {"tasks": n, "mode": mode, "argv": argv, "ok": ok, "wall_s": m["wall_s"],
                           "tasks_per_s": n / m["wall_s"] if m["wall_s"] > 0 else None,
                           "peak_rss_mib": m["peak_rss_mib"], "exit": m["exit"], "timed_out": m["timed_out"],
                           "json_bytes": size}
                    runs.append(run)
                    bench.log(f"{mode:9s} {n:>8d} tasks: peak RSS {m['peak_rss_mib']:.1f} MiB, "
                              f"{m['wall_s']:.1f} s, {'ok' if ok else 'FAILED'}")
            versions = {"wirelens": bench.tool_version([self.wirelens, "--version"]),
                        "nginx": bench.tool_version(["nginx", "-v"])}
        finally:
            subprocess.run(["bash", bench.NGINX_DOWN, nginx_dir], timeout=60)
            shutil.rmtree(tmp, ignore_errors=True)

        worst = max((r["peak_rss_mib"] for r in runs if r["ok"]), default=None)
        all_ok = all(r["ok"] for r in runs)
        targets = [{"name": f"probe peak RSS at most {TARGET_RSS_MIB:.0f} MiB at every length (text and JSON)",
                    "value": worst, "met": None if worst is None or not all_ok else worst <= TARGET_RSS_MIB}]
        doc = {"date": started.isoformat(timespec="seconds"), "quick": self.quick,
               "machine": bench.Bench.machine(self), "versions": versions,
               "load_average_1m_at_start": load_before, "sizes": self.sizes, "runs": runs, "targets": targets}
        with open(os.path.join(self.out, "memory.json"), "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        self.write_markdown(os.path.join(self.out, "MEMORY.md"), doc)
        if not all_ok:
            bench.log("failed runs: " + ", ".join(f"{r['mode']} {r['tasks']}" for r in runs if not r["ok"]))
            return 1
        return 0

    def write_markdown(self, path, doc):
        mc = doc["machine"]
        desc = {"text": "`--format text --report F` (summary)",
                "json-file": "`--format json --report F` (every task)",
                "json-pipe": "`--format json \\| wc -c` (every task, through a pipe)"}
        L = ["# Probe memory benchmark" + (" (quick smoke run)" if self.quick else ""), "",
             f"Date: {doc['date']}  ",
             f"Machine: {mc['nproc']} CPUs ({mc['cpu'] or 'unknown CPU'}), Linux {mc['kernel']}; "
             f"1-minute load average at the start {doc['load_average_1m_at_start']:.1f}  ",
             "Method: `wirelens probe URL --repeat N --concurrency 16 --max-host-connections 16` against a "
             "loopback nginx (GET /small.txt), one run per row; peak RSS is the process's ru_maxrss (wait4) taken "
             "by a small C launcher; the release binary (Swift runtime linked statically).  ",
             f"Tools: `{doc['versions']['wirelens']}`; `{doc['versions']['nginx']}`", "",
             "| tasks | report | peak RSS MiB | wall time | tasks/s | JSON size | ok |",
             "|---:|---|---:|---:|---:|---:|---|"]
        for r in doc["runs"]:
            size = f"{r['json_bytes'] / 1e6:.0f} MB" if r.get("json_bytes") else ""
            L.append(f"| {r['tasks']:,} | {desc[r['mode']]} | {r['peak_rss_mib']:.1f} | {r['wall_s']:.1f} s | "
                     f"{r['tasks_per_s'] or 0:,.0f} | {size} | {'yes' if r['ok'] else 'NO'} |")
        t = doc["targets"][0]
        verdict = "not measured" if t["met"] is None else ("met" if t["met"] else "not met")
        value = "n/a" if t["value"] is None else f"{t['value']:.1f} MiB"
        L += ["", f"Target: {t['name']}: worst run {value}, {verdict}.", "",
              "Raw figures: `memory.json`; per-run output under `reports/bench/raw/memory/` (not committed)."]
        bench.write_lines(path, L)


def main():
    return bench.single_run_main(__doc__, "memory.json and MEMORY.md", "1000, 20 000 and 100 000 tasks", 1800,
                                 lambda p: p.add_argument("--sizes", help="comma-separated task counts instead of the defaults"), MemoryBench)


if __name__ == "__main__":
    sys.exit(main())
