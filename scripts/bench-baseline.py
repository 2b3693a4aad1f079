#!/usr/bin/env python3
"""Two wirelens binaries side by side in one run: the GET rate, a large upload and a capture analysis.

  python3 scripts/bench-baseline.py --base OLD_BINARY --new NEW_BINARY [--rounds N] [--quick] [--out DIR]
                                    [--capture FILE]

OLD is usually the previous main: `scripts/build-baseline.sh REF` builds a ref's release binary in a worktree
of its own and prints its path. Each workload runs in pairs, the order alternating from round to round
(base new, new base, base new, ...) so that a drift of the machine falls on both sides alike; a pair's ratio
is new over base (rates: above 1 is faster), and the result is the median of the pairs' ratios, with the
medians of each side's figures beside it.

  get      wirelens probe URL --repeat N --concurrency 16 --max-host-connections 16 to a local nginx's
           /small.txt, once with the text summary and once with the JSON report (requests/s; N 20000,
           --quick 2000)
  upload   wirelens probe URL -X PUT --upload FILE to the base binary's `wirelens target` (it hashes the body
           and writes nothing: nginx's WebDAV sink writes the file, and the file system's write-back made
           single runs differ 10-fold) (MB/s; 1 GiB, --quick 128 MiB)
  capture  wirelens capture analyze FILE --format json on a capture made by scripts/bench-capture.py's
           generator (MB/s of capture; 256 MB, --quick 64 MB; needs root for its network namespace), or
           the --capture FILE given

Outputs: OUT/bench.json (every run) and OUT/RESULTS.md (default reports/bench/baseline; --quick:
reports/bench/raw/baseline-quick). Peak RSS of every run is kept too.
"""

import argparse
import datetime
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1024 * 1024
# A redesign may cost at most this much of a workload's rate (issue 14: "within 5% of before or better").
TOLERANCE = 0.95


def log(msg):
    print(f"bench-baseline: {msg}", file=sys.stderr, flush=True)


def load_script(name):
    """Another script of scripts/ as a module (its main() does not run): bench.py's measuring, bench-capture.py's
    capture generator."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_").removesuffix(".py"),
                                                  os.path.join(ROOT, "scripts", name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# bench.py's measure: the tool forked by its C launcher (a child of this interpreter would report the
# interpreter's peak RSS), killed with its process group at the timeout.
BENCH = load_script("bench.py")


class Bench:
    def __init__(self, args):
        self.args = args
        self.binaries = {"base": os.path.abspath(args.base), "new": os.path.abspath(args.new)}
        self.rounds = args.rounds
        self.requests = 2000 if args.quick else 20000
        self.upload_bytes = (128 if args.quick else 1024) * MIB
        self.capture_mb = 64 if args.quick else 256
        self.out = args.out or os.path.join(ROOT, "reports", "bench", "raw/baseline-quick" if args.quick else "baseline")
        self.work = tempfile.mkdtemp(prefix="wl-bench-baseline-")
        self.raw = os.path.join(self.work, "raw")
        os.makedirs(self.raw)
        self.timeout = 900
        self.launcher = BENCH.build_launcher(self.work)

    def paired(self, name, make_argv, figure, before=None):
        """Runs both binaries self.rounds times, alternating which goes first; returns every run."""
        runs = {"base": [], "new": []}
        for rnd in range(self.rounds):
            order = ("base", "new") if rnd % 2 == 0 else ("new", "base")
            for side in order:
                if before:
                    before()
                argv = make_argv(self.binaries[side], f"{name}-{side}-r{rnd}")
                out = os.path.join(self.raw, f"{name}-{side}-r{rnd}")
                r = BENCH.measure(argv, out + ".out", out + ".err", self.timeout, self.launcher)
                r["ok"] = r["exit"] == 0 and not r["timed_out"]
                r["figure"] = figure(r) if r["ok"] else None
                r["round"] = rnd
                runs[side].append(r)
                log(f"{name} {side} round {rnd + 1}: {r['figure'] and round(r['figure'], 1)} "
                    f"({r['wall_s']:.2f} s, peak RSS {r['peak_rss_mib'] or 0:.1f} MiB{'' if r['ok'] else ', FAILED'})")
        return runs

    @staticmethod
    def free_port():
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    @staticmethod
    def summarise(runs):
        ratios = [n["figure"] / b["figure"] for b, n in zip(runs["base"], runs["new"])
                  if b["figure"] and n["figure"]]
        med = lambda side, key: statistics.median([r[key] for r in runs[side] if r["ok"]]) \
            if any(r["ok"] for r in runs[side]) else None  # noqa: E731
        return {"base": med("base", "figure"), "new": med("new", "figure"),
                "base_rss_mib": med("base", "peak_rss_mib"), "new_rss_mib": med("new", "peak_rss_mib"),
                "ratio": statistics.median(ratios) if ratios else None, "pairs": len(ratios),
                "ratios": ratios}

    def run(self):
        nginx_dir = os.path.join(self.work, "nginx")
        up = subprocess.run(["bash", os.path.join(ROOT, "scripts", "nginx-up.sh"), nginx_dir], check=True,
                            capture_output=True, text=True).stdout
        port = dict(line.split("=", 1) for line in up.split())["HTTP_PORT"]
        base = f"http://127.0.0.1:{port}"
        results = {}
        wanted = set(self.args.only.split(",")) if self.args.only else {"get-text", "get-json", "upload", "capture"}
        try:
            n = self.requests
            for fmt in [f for f in ("text", "json") if f"get-{f}" in wanted]:
                results[f"get-{fmt}"] = self.paired(
                    f"get-{fmt}",
                    lambda binary, tag, fmt=fmt: [binary, "probe", f"{base}/small.txt", "--repeat", str(n),
                                                  "--concurrency", "16", "--max-host-connections", "16",
                                                  "--format", fmt, "--report", os.path.join(self.raw, tag), "-q"],
                    lambda r: n / r["wall_s"])
            if "upload" not in wanted:
                return self.run_capture(results, wanted)
            src = os.path.join(self.work, "upload.bin")
            with open(src, "wb") as f:
                for _ in range(self.upload_bytes // (4 * MIB)):
                    f.write(os.urandom(4 * MIB))
            # The sink is the base binary's target server (it hashes a plain PUT and writes nothing): nginx's
            # WebDAV writes the file to disk, and the file system's write-back made single runs differ 10-fold here.
            port = self.free_port()
            target = subprocess.Popen([self.binaries["base"], "target", "--listen", f"127.0.0.1:{port}"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            try:
                if b"listening on" not in target.stdout.readline():
                    raise RuntimeError("the target did not start")
                results["upload"] = self.paired(
                    "upload",
                    lambda binary, tag: [binary, "probe", f"http://127.0.0.1:{port}/upload/bench", "-X", "PUT",
                                         "--upload", src, "--format", "json", "--report", os.path.join(self.raw, tag),
                                         "-q"],
                    lambda r: self.upload_bytes / r["wall_s"] / 1e6)
            finally:
                target.terminate()
                target.wait(timeout=10)
            os.remove(src)
        finally:
            subprocess.run(["bash", os.path.join(ROOT, "scripts", "nginx-down.sh"), nginx_dir], capture_output=True)
        return self.run_capture(results, wanted)

    def run_capture(self, results, wanted):
        if "capture" not in wanted:
            return results
        capture = self.args.capture
        if not capture or not os.path.exists(capture):
            if os.geteuid() != 0:
                log("the capture workload needs root (network namespace) or --capture FILE: skipped")
                capture = None
            else:
                generator = load_script("bench-capture.py")
                capture = capture or os.path.join(self.work, "bench.pcap")
                log(f"capturing at least {self.capture_mb} MB in network namespace {generator.NAMESPACE}")
                generator.make_namespace()
                try:
                    generator.make_capture(capture, self.capture_mb, os.path.join(self.work, "nginx-capture"))
                finally:
                    generator.delete_namespace()
        if capture:
            size = os.path.getsize(capture)
            results["capture"] = self.paired(
                "capture",
                lambda binary, tag: [binary, "capture", "analyze", capture, "--format", "json",
                                     "--report", os.path.join(self.raw, tag + ".json")],
                lambda r: size / r["wall_s"] / 1e6)
        return results

    def write(self, results):
        os.makedirs(self.out, exist_ok=True)
        summary = {name: self.summarise(runs) for name, runs in results.items()}
        document = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    "base": self.binaries["base"], "new": self.binaries["new"], "rounds": self.rounds,
                    "requests": self.requests, "upload_bytes": self.upload_bytes, "summary": summary,
                    "runs": results}
        with open(os.path.join(self.out, "bench.json"), "w") as f:
            json.dump(document, f, indent=1)
        units = {"get-text": "req/s", "get-json": "req/s", "upload": "MB/s", "capture": "MB/s"}
        lines = [
            "# New against base, paired",
            "",
            f"{document['date']}, {self.rounds} rounds, the order alternating per round; a pair's ratio is new over "
            "base (above 1: faster), the ratio column the median of the pairs' ratios.",
            f"base `{self.binaries['base']}`, new `{self.binaries['new']}`.",
            "",
            "| workload | base (median) | new (median) | ratio (median of pairs) | pairs | peak RSS base / new | within 5% |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, s in summary.items():
            fmt = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
            met = "-" if s["ratio"] is None else ("yes" if s["ratio"] >= TOLERANCE else "NO")
            ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f}"
            lines.append(f"| {name} | {fmt(s['base'])} {units[name]} | {fmt(s['new'])} {units[name]} | {ratio} | "
                         f"{s['pairs']} | {fmt(s['base_rss_mib'])} / {fmt(s['new_rss_mib'])} MiB | {met} |")
        lines += ["", "Commands: `python3 scripts/bench-baseline.py --base OLD --new NEW` (see its docstring).", ""]
        with open(os.path.join(self.out, "RESULTS.md"), "w") as f:
            f.write("\n".join(lines))
        print("\n".join(lines))
        return all(s["ratio"] is None or s["ratio"] >= TOLERANCE for s in summary.values())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="the wirelens binary before the change")
    parser.add_argument("--new", required=True, help="the wirelens binary after the change")
    parser.add_argument("--rounds", type=int, default=6, help="pairs per workload (default 6)")
    parser.add_argument("--quick", action="store_true", help="2000 GETs, 128 MiB upload, 64 MB capture")
    parser.add_argument("--capture", help="the capture to analyse: reused when it exists, else made there")
    parser.add_argument("--out", help="where bench.json and RESULTS.md go")
    parser.add_argument("--only", help="comma-separated workloads to run: get-text, get-json, upload, capture")
    args = parser.parse_args()
    for binary in (args.base, args.new):
        if not os.access(binary, os.X_OK):
            log(f"{binary} is not an executable: build it first")
            return 2
    for tool in ("nginx",):
        if shutil.which(tool) is None:
            log(f"{tool} is missing (make deps installs it)")
            return 2
    bench = Bench(args)
    try:
        ok = bench.write(bench.run())
    finally:
        shutil.rmtree(bench.work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
