#!/usr/bin/env python3
"""Write the release link's symbol ordering file: the functions common runs execute, so lld puts them side by side.

  python3 scripts/link-order.py [--wirelens PATH] [--out scripts/link-order.txt]

A single probe maps about 15 MiB of the binary's own pages: what it runs is spread over the 24 MB of `.text`, and
every page fault maps 64 KiB around the page it needs. The release link (RELEASE_FLAGS in the Makefile) compiles
every module with function sections and hands lld this file (`--symbol-ordering-file`), which puts the listed
functions first, in the listed order; what a run needs then lies in a few megabytes. Figures: reports/bench/STARTUP.md.

The list: every function of the binary that callgrind sees executed in the runs below (against a loopback nginx,
scripts/nginx-up.sh), the runs in order of how much their start-up matters (`--version`, one GET, many GETs in
text and JSON, render, capture analyze), each function where it first appears. Names are the symbol table's
(mangled), so the file stays valid while the functions keep their names; functions it names that no longer exist
are skipped by lld (`--no-warn-symbol-ordering`), new ones land in the cold part until the file is made again.
Make it again after large changes to what a probe runs: `make link-order` (needs a release build, valgrind and
nginx; about a minute).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (ROOT, NGINX_UP, NGINX_DOWN, function_addresses)

DEFAULT_OUT = os.path.join(bench.ROOT, "scripts", "link-order.txt")
PCAP = os.path.join(bench.ROOT, "Tests", "Fixtures", "outputs", "probe.pcap")
RUN_TIMEOUT = 600  # seconds; callgrind runs a probe about 50 times slower


def log(msg):
    print(f"link-order: {msg}", file=sys.stderr, flush=True)


def workloads(url, tmp):
    """The runs, in order: (name, arguments after the binary)."""
    report = os.path.join(tmp, "report.json")
    many = ["--repeat", "300", "--concurrency", "16", "--max-host-connections", "16", "--quiet"]
    return [
        ("version", ["--version"]),
        ("one GET, silent", ["probe", "-s", "-o", "/dev/null", url]),
        ("one GET, text", ["probe", url]),
        ("300 GETs, text report", ["probe", url, *many, "--format", "text", "--report", os.path.join(tmp, "r.txt")]),
        ("300 GETs, JSON report", ["probe", url, *many, "--format", "json", "--report", report]),
        ("300 GETs, JSON to stdout", ["probe", url, *many, "--format", "json"]),
        ("render text", ["render", report, "--format", "text"]),
        ("render html", ["render", report, "--format", "html"]),
        ("render har", ["render", report, "--format", "har"]),
        ("capture analyze, text", ["capture", "analyze", PCAP]),
        ("capture analyze, JSON", ["capture", "analyze", PCAP, "--format", "json"]),
    ]


def executed(callgrind_file):
    """The function names a callgrind output file mentions, in the order they first appear."""
    names = []
    pattern = re.compile(r"^c?fn=\(\d+\) (.+)$")
    with open(callgrind_file, errors="replace") as fh:
        for line in fh:
            m = pattern.match(line)
            if m:
                names.append(m.group(1).strip())
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wirelens", default=os.path.join(bench.ROOT, ".build", "release", "wirelens"),
                    help="the release binary (default .build/release/wirelens)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="where the ordering file goes (default scripts/link-order.txt)")
    args = ap.parse_args()
    for tool in ("valgrind", "nm", "strip", "nginx"):
        if not shutil.which(tool):
            raise SystemExit(f"link-order: {tool} not found (make deps installs it)")
    if not os.access(args.wirelens, os.X_OK):
        raise SystemExit(f"link-order: no wirelens binary at {args.wirelens} (make stage builds it)")
    tmp = tempfile.mkdtemp(prefix="wl-link-order-")
    nginx_dir = os.path.join(tmp, "nginx")
    try:
        # valgrind gives up on the release binary's debug info, not on its code: run a copy without it.
        binary = os.path.join(tmp, "wirelens")
        subprocess.run(["strip", "--strip-debug", "-o", binary, args.wirelens], check=True)
        functions = bench.function_addresses(binary)
        r = subprocess.run(["bash", bench.NGINX_UP, nginx_dir], capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise SystemExit(f"link-order: nginx-up failed:\n{r.stderr}")
        port = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)["HTTP_PORT"]
        order, seen = [], set()
        for i, (name, argv) in enumerate(workloads(f"http://127.0.0.1:{port}/small.txt", tmp)):
            out = os.path.join(tmp, f"callgrind.{i}")
            run = subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
                                  binary, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 timeout=RUN_TIMEOUT)
            if not os.path.exists(out):
                raise SystemExit(f"link-order: callgrind wrote nothing for {name} (exit {run.returncode}):\n"
                                 + run.stderr[-2000:])
            new = [f for f in executed(out) if f in functions and f not in seen]
            seen.update(new)
            order.extend(new)
            log(f"{name}: exit {run.returncode}, {len(new)} more functions ({len(order)} in all)")
        with open(args.out, "w") as fh:
            fh.write("\n".join(order) + "\n")
        log(f"wrote {args.out}: {len(order)} functions")
    finally:
        subprocess.run(["bash", bench.NGINX_DOWN, nginx_dir], timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
