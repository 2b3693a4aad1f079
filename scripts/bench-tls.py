#!/usr/bin/env python3
"""Decrypting capture-analysis benchmark: `wirelens capture analyze --keylog` on an all-TLS capture against a bare
pcap_loop over the same file, as ratios of paired runs in one run (issue 17: the decrypting path at least 0.25x
the bare read loop).

  scripts/bench-tls.py --wirelens BIN [--size-mb N] [--rounds N] [--quick] [--capture FILE --keylog FILE]

The capture is made here (root: a network namespace of its own whose loopback has an MTU of 1500 and no
segmentation offload, so that the file holds real 1514-byte frames): the test nginx (scripts/nginx-up.sh) inside
it, curl fetching over TLS 1.3 and 1.2 with SSLKEYLOGFILE set: 1 MiB downloads over HTTP/2 (8 per connection, 4 at
once), an HTTP/1.1 keep-alive connection of one download and 300 small GETs, and 20 small GETs on connections of
their own, repeated until the file holds --size-mb MB. Each round runs the bare loop, the decrypting analysis with
JSON and with text output, and the analysis without keys, interleaved; medians are compared.
Writes reports/bench/capture/TLS.md and reports/bench/capture/tls.json.
"""
import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMESPACE = "wl-bench-tls"
TARGET_VS_BARE = 0.25


def bench_capture():
    """scripts/bench-capture.py as a module: its bare pcap_loop program is the one measured against here too, and its
    tcpdump start and stop make the capture."""
    spec = importlib.util.spec_from_file_location("bench_capture", os.path.join(ROOT, "scripts", "bench-capture.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ns(argv):
    return ["ip", "netns", "exec", NAMESPACE] + argv


def make_capture(work, size_mb):
    """An all-TLS capture of at least size_mb MB and the key log curl wrote for it (at most 15 minutes)."""
    subprocess.run(["ip", "netns", "add", NAMESPACE], check=True)
    nginx_dir = os.path.join(work, "nginx")
    capture, keylog = os.path.join(work, "tls.pcap"), os.path.join(work, "keys.log")
    try:
        subprocess.run(ns(["ip", "link", "set", "lo", "mtu", "1500", "gso_max_size", "1500", "gso_max_segs", "1",
                           "up"]), check=True)
        up = subprocess.run(ns(["bash", os.path.join(ROOT, "scripts", "nginx-up.sh"), nginx_dir]), check=True,
                            capture_output=True, text=True).stdout
        port = int(dict(line.split("=", 1) for line in up.split()).get("HTTPS_PORT"))
        base = f"https://localhost:{port}"
        small = os.path.join(work, "small.cfg")
        with open(small, "w") as f:
            for i in range(300):
                f.write(f'url="{base}/small.txt?i={i}"\noutput=/dev/null\n')
        close = os.path.join(work, "close.cfg")
        with open(close, "w") as f:
            for i in range(20):
                f.write(f'url="{base}/small.txt?c={i}"\noutput=/dev/null\n')
        err_path = capture + ".err"
        env = dict(os.environ, SSLKEYLOGFILE=keylog)
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
        dump, err = bench_capture().start_tcpdump(ns, capture, port, err_path)
        try:
            deadline = time.monotonic() + 900
            rounds = 0
            while (not os.path.exists(capture) or os.path.getsize(capture) < size_mb * 1_000_000) \
                    and time.monotonic() < deadline:
                rounds += 1
                tls12 = ["--tls-max", "1.2"] if rounds % 2 == 0 else []
                subprocess.run(ns(["curl", "-sk", "--http2", "--parallel", "--parallel-max", "4"] + tls12
                                  + sum([[f"{base}/bytes/1m.bin", "-o", "/dev/null"] for _ in range(8)], [])), **quiet)
                subprocess.run(ns(["curl", "-sk", "--http1.1"] + tls12
                                  + [f"{base}/bytes/1m.bin", "-o", "/dev/null", "-K", small]), **quiet)
                subprocess.run(ns(["curl", "-sk", "--http1.1", "-H", "Connection: close", "-K", close]), **quiet)
            time.sleep(0.3)
        finally:
            bench_capture().stop_tcpdump(dump, err)
            subprocess.run(ns(["bash", os.path.join(ROOT, "scripts", "nginx-down.sh"), nginx_dir]), capture_output=True)
        stats = open(err_path).read().strip().splitlines()[-3:]
        return capture, keylog, stats
    finally:
        subprocess.run(["ip", "netns", "delete", NAMESPACE], capture_output=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wirelens", required=True)
    parser.add_argument("--size-mb", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="a 100 MB capture, 3 rounds")
    parser.add_argument("--capture", help="use this all-TLS capture instead of making one (with --keylog)")
    parser.add_argument("--keylog")
    args = parser.parse_args()
    if args.quick:
        args.size_mb, args.rounds = 100, 3
    for tool in ["ip", "tcpdump", "curl", "cc"]:
        if not shutil.which(tool):
            sys.exit(f"bench-tls: {tool} not found (make deps)")
    work = tempfile.mkdtemp(prefix="wl-bench-tls-")
    try:
        stats = []
        if args.capture:
            capture, keylog = args.capture, args.keylog
        else:
            capture, keylog, stats = make_capture(work, args.size_mb)
        bare = os.path.join(work, "bare")
        with open(bare + ".c", "w") as f:
            f.write(bench_capture().BARE_C)
        subprocess.run(["cc", "-O2", "-o", bare, bare + ".c", "-lpcap"], check=True)
        packets, size = subprocess.run([bare, capture], check=True, capture_output=True, text=True).stdout.split()
        commands = {
            "bare-pcap_loop": [bare, capture],
            "decrypt-json": [args.wirelens, "capture", "analyze", capture, "--keylog", keylog, "--format", "json"],
            "decrypt-text": [args.wirelens, "capture", "analyze", capture, "--keylog", keylog, "--format", "text"],
            "no-keys-json": [args.wirelens, "capture", "analyze", capture, "--format", "json"],
        }
        times = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                start = time.perf_counter()
                subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                times[name].append(time.perf_counter() - start)
        median = {name: statistics.median(values) for name, values in times.items()}
        doc = json.loads(subprocess.run(commands["decrypt-json"], check=True, capture_output=True).stdout)
        decrypted = sum(1 for c in doc["connections"] if (c.get("tls") or {}).get("decryption") == "decrypted")
        ratios = {name: median["bare-pcap_loop"] / median[name] for name in commands if name != "bare-pcap_loop"}
        result = {
            "capture": {"bytes": int(size), "packets": int(packets), "connections": len(doc["connections"]),
                        "decrypted": decrypted, "exchanges": doc["summary"]["exchanges"], "tcpdump": stats},
            "rounds": args.rounds, "medianSeconds": median, "vsBare": ratios,
            "target": {f"decrypting JSON ≥ {TARGET_VS_BARE}x the bare read loop":
                       ratios["decrypt-json"] >= TARGET_VS_BARE},
        }
        out_dir = os.path.join(ROOT, "reports", "bench", "capture")
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "tls.json"), "w") as f:
            json.dump(result, f, indent=2)
        lines = ["# Decrypting capture analysis (issue 17)", "",
                 f"All-TLS capture: {int(size) / 1e6:.0f} MB, {int(packets)} packets, {len(doc['connections'])} "
                 f"connections ({decrypted} decrypted), {doc['summary']['exchanges']} exchanges; "
                 f"{args.rounds} interleaved rounds, medians.", "",
                 "| run | median s | bare / this |", "|---|---|---|"]
        for name in commands:
            lines.append(f"| {name} | {median[name]:.3f} | {median['bare-pcap_loop'] / median[name]:.2f} |")
        for what, ok in result["target"].items():
            lines += ["", f"Target: {what}: {'met' if ok else 'NOT met'} ({ratios['decrypt-json']:.2f}x)."]
        with open(os.path.join(out_dir, "TLS.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print("\n".join(lines))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
