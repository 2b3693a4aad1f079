#!/usr/bin/env python3
"""Upload benchmark (issue 3): segmented parallel upload vs one streamed PUT vs curl -T, against
Wirelens' own target server, and the target server's throughput next to nginx's.

  python3 scripts/bench-uploads.py [--quick] [--wirelens PATH] [--rounds N] [--out DIR]

(c) a 1 GiB file (--quick: 64 MiB) to an unshaped `wirelens target` on loopback:
      wirelens upload FILE URL --parallel 4 --segment-size 8MiB   (segments, then complete + SHA-256 check)
      wirelens probe URL -X PUT --upload FILE                     (one streamed PUT)
      curl -sS -T FILE URL -o /dev/null                           (one streamed PUT, libcurl's CLI)
    MB/s (10^6 bytes/s) from each process's wall time, and peak RSS (target: segmented < 64 MiB).
(d) the target server itself next to nginx (1 worker), both driven by curl:
      GET of 256 MiB (/bytes/N on the target, a static file on nginx)
      PUT of 256 MiB (/upload/ID on the target, WebDAV on nginx)
    MB/s each, and target/nginx as a ratio (context, no target).

Tools are interleaved within each round (A B C A B C ...), medians over --rounds (default 5).
Writes OUT/uploads.json and OUT/UPLOADS.md (default reports/bench, or reports/bench/raw/quick
with --quick). Per-run output goes to reports/bench/raw/ (gitignored).
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (measure, median_of, ratio, build_launcher, log, tool_version, fresh_dirs)

ROOT = bench.ROOT
MIB = bench.MIB
TARGET_SEGMENTED_RSS_MIB = 64.0


class TargetServer:
    """`wirelens target` on a free loopback port; stopped with SIGTERM."""

    def __init__(self, wirelens, data_dir, log_path):
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen([wirelens, "target", "--listen", "127.0.0.1:0", "--data-dir", data_dir],
                                     stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL)
        line = b""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith(b"listening on "):
                break
            if not line and self.proc.poll() is not None:
                break
        if not line.startswith(b"listening on "):
            self.stop()
            raise SystemExit(f"bench-uploads: wirelens target did not start (see {log_path})")
        self.base = line.decode().split("listening on ", 1)[1].strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class UploadBench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.rounds = args.rounds
        self.timeout = args.timeout
        self.file_bytes = (64 if args.quick else 1024) * MIB
        self.side_bytes = (32 if args.quick else 256) * MIB
        self.out, self.raw, self.wirelens = bench.paths(args, "uploads")
        self.notes = []

    def file(self, name, size):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            left = size
            while left > 0:
                k = min(4 * MIB, left)
                f.write(os.urandom(k))
                left -= k
        return path

    def run_set(self, label, cmds, size, check=None):
        """Interleaved rounds of the commands; MB/s and peak RSS per run."""
        runs = {tool: [] for tool in cmds}
        for rnd in range(1, self.rounds + 1):
            for tool, make in cmds.items():
                argv = make(rnd)
                so = os.path.join(self.raw, f"{label}-{tool}-r{rnd}.out")
                se = os.path.join(self.raw, f"{label}-{tool}-r{rnd}.err")
                r = bench.measure(argv, so, se, self.timeout, self.launcher)
                r.update({"round": rnd, "argv": argv, "bytes": size})
                r["mb_per_s"] = size / r["wall_s"] / 1e6 if r["wall_s"] > 0 else None
                r["ok"] = r["exit"] == 0 and not r["timed_out"] and (check is None or check(tool, rnd, so))
                runs[tool].append(r)
                state = "ok" if r["ok"] else ("TIMEOUT" if r["timed_out"] else f"FAILED exit {r['exit']}")
                bench.log(f"{label} {tool:10s} round {rnd}: {r['mb_per_s'] or 0:.0f} MB/s, {r['wall_s']:.2f} s, "
                          f"peak RSS {r['peak_rss_mib']:.1f} MiB, {state}")
        return runs

    def medians(self, runs):
        return {tool: {"mb_per_s": bench.median_of(rs, "mb_per_s"),
                       "peak_rss_mib": bench.median_of(rs, "peak_rss_mib"),
                       "max_peak_rss_mib": max((r["peak_rss_mib"] for r in rs if r["ok"]), default=None),
                       "ok_runs": sum(1 for r in rs if r["ok"]), "runs": len(rs)}
                for tool, rs in runs.items()}

    def run(self):
        if not (os.path.isfile(self.wirelens) and os.access(self.wirelens, os.X_OK)):
            raise SystemExit(f"bench-uploads: no wirelens binary at {self.wirelens}")
        self.tmp = bench.fresh_dirs(self.out, self.raw, "bench-uploads")
        started = datetime.datetime.now(datetime.timezone.utc)
        load_before = os.getloadavg()[0]
        target = None
        nginx_dir = os.path.join(self.tmp, "nginx")
        try:
            self.launcher = bench.build_launcher(self.tmp)
            target = TargetServer(self.wirelens, os.path.join(self.tmp, "target-data"),
                                  os.path.join(self.raw, "target.log"))
            r = subprocess.run(["bash", bench.NGINX_UP, nginx_dir], capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                raise SystemExit(f"bench-uploads: nginx-up failed:\n{r.stderr}")
            ports = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
            nginx = f"http://127.0.0.1:{ports['HTTP_PORT']}"
            big = self.file("upload.bin", self.file_bytes)
            side = self.file("side.bin", self.side_bytes)
            shutil.copy(side, os.path.join(nginx_dir, "www", "bytes", "side.bin"))
            bench.log(f"target on {target.base}, nginx on {nginx}; {self.file_bytes // MIB} MiB x {self.rounds} rounds")

            report = lambda name, rnd: os.path.join(self.raw, f"{name}-r{rnd}.json")  # noqa: E731
            segmented = {
                "wirelens-segmented": lambda rnd: [
                    self.wirelens, "upload", big, f"{target.base}/upload/seg-{rnd}", "--parallel", "4",
                    "--segment-size", "8MiB", "--format", "json", "--report", report("segmented", rnd), "--quiet"],
                "wirelens-put": lambda rnd: [
                    self.wirelens, "probe", f"{target.base}/upload/put-{rnd}", "-X", "PUT", "--upload", big,
                    "--format", "json", "--report", report("put", rnd), "--quiet"],
                "curl-put": lambda rnd: [
                    "curl", "-sS", "--fail", "-T", big, f"{target.base}/upload/curl-{rnd}", "-o", "/dev/null"],
            }
            upload_runs = self.run_set("upload", segmented, self.file_bytes)
            side_cmds = {
                "target-get": lambda rnd: ["curl", "-sS", "--fail", "-o", "/dev/null",
                                           f"{target.base}/bytes/{self.side_bytes}"],
                "nginx-get": lambda rnd: ["curl", "-sS", "--fail", "-o", "/dev/null", f"{nginx}/bytes/side.bin"],
                "target-put": lambda rnd: ["curl", "-sS", "--fail", "-T", side, f"{target.base}/upload/side-{rnd}",
                                           "-o", "/dev/null"],
                "nginx-put": lambda rnd: ["curl", "-sS", "--fail", "-T", side, f"{nginx}/upload/side-{rnd}.bin",
                                          "-o", "/dev/null"],
            }
            side_runs = self.run_set("server", side_cmds, self.side_bytes)
            versions = {"wirelens": bench.tool_version([self.wirelens, "--version"]),
                        "curl": bench.tool_version(["curl", "--version"]),
                        "nginx": bench.tool_version(["nginx", "-v"])}
        finally:
            if target:
                target.stop()
            subprocess.run(["bash", bench.NGINX_DOWN, nginx_dir], timeout=60)
            shutil.rmtree(self.tmp, ignore_errors=True)

        up = self.medians(upload_runs)
        side = self.medians(side_runs)
        m = lambda d, t: d.get(t, {}).get("mb_per_s")  # noqa: E731
        ratios = {
            "segmented_vs_curl_put": bench.ratio(m(up, "wirelens-segmented"), m(up, "curl-put")),
            "put_vs_curl_put": bench.ratio(m(up, "wirelens-put"), m(up, "curl-put")),
            "target_get_vs_nginx": bench.ratio(m(side, "target-get"), m(side, "nginx-get")),
            "target_put_vs_nginx": bench.ratio(m(side, "target-put"), m(side, "nginx-put")),
        }
        rss = up.get("wirelens-segmented", {}).get("max_peak_rss_mib")
        targets = [{"name": "segmented upload peak RSS < 64 MiB (worst run)", "value": rss,
                    "met": None if rss is None else rss < TARGET_SEGMENTED_RSS_MIB}]
        doc = {"date": started.isoformat(timespec="seconds"), "quick": self.quick, "machine": bench.Bench.machine(self),
               "versions": versions, "load_average_1m_at_start": load_before, "rounds": self.rounds, "file_bytes": self.file_bytes,
               "side_bytes": self.side_bytes, "upload_runs": upload_runs, "server_runs": side_runs,
               "medians": {"upload": up, "server": side}, "ratios": ratios, "targets": targets, "notes": self.notes}
        with open(os.path.join(self.out, "uploads.json"), "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        self.write_markdown(os.path.join(self.out, "UPLOADS.md"), doc)
        failed = [f"{tool} round {r['round']}" for group in (upload_runs, side_runs)
                  for tool, rs in group.items() for r in rs if not r["ok"]]
        if failed:
            bench.log("failed runs: " + ", ".join(failed))
            return 1
        return 0

    def write_markdown(self, path, doc):
        def f(v, fmt="{:.0f}"):
            return "n/a" if v is None else fmt.format(v)
        size = f"{self.file_bytes // (1024 * MIB)} GiB" if self.file_bytes >= 1024 * MIB else f"{self.file_bytes // MIB} MiB"
        mc = doc["machine"]
        L = ["# Upload benchmark" + (" (quick smoke run)" if self.quick else ""), "",
             f"Date: {doc['date']}  ",
             f"Machine: {mc['nproc']} CPUs ({mc['cpu'] or 'unknown CPU'}), Linux {mc['kernel']}; "
             f"1-minute load average at the start {doc['load_average_1m_at_start']:.1f}  ",
             f"Method: {self.rounds} rounds, tools interleaved within each round, medians; MB/s = 10^6 bytes/s from "
             "each process's wall time; peak RSS is ru_maxrss of the process.", "",
             f"Tools: `{doc['versions']['wirelens']}`; `{doc['versions']['curl']}`; `{doc['versions']['nginx']}`", "",
             f"## (c) {size} upload to an unshaped `wirelens target` on loopback", "",
             "| tool | command | MB/s (median) | peak RSS MiB (median / worst) | ok runs |", "|---|---|---:|---:|---:|"]
        desc = {"wirelens-segmented": "`wirelens upload FILE URL --parallel 4 --segment-size 8MiB` (SHA-256 checked)",
                "wirelens-put": "`wirelens probe URL -X PUT --upload FILE`",
                "curl-put": "`curl -T FILE URL`"}
        for tool, d in doc["medians"]["upload"].items():
            L.append(f"| {tool} | {desc[tool]} | {f(d['mb_per_s'])} | {f(d['peak_rss_mib'], '{:.1f}')} / "
                     f"{f(d['max_peak_rss_mib'], '{:.1f}')} | {d['ok_runs']}/{d['runs']} |")
        L += ["", f"## (d) the target server next to nginx, {self.side_bytes // MIB} MiB with curl", "",
              "| run | MB/s (median) | ok runs |", "|---|---:|---:|"]
        for tool, d in doc["medians"]["server"].items():
            L.append(f"| {tool} | {f(d['mb_per_s'])} | {d['ok_runs']}/{d['runs']} |")
        r = doc["ratios"]
        L += ["", "## Ratios and targets", "",
              f"- segmented upload vs curl -T: {f(r['segmented_vs_curl_put'], '{:.2f}')}x; "
              f"one wirelens PUT vs curl -T: {f(r['put_vs_curl_put'], '{:.2f}')}x",
              f"- target vs nginx: GET {f(r['target_get_vs_nginx'], '{:.2f}')}x, "
              f"PUT {f(r['target_put_vs_nginx'], '{:.2f}')}x (context: the target is a test peer, "
              "it hashes every body with SHA-256 and keeps segments on disk)", ""]
        for t in doc["targets"]:
            verdict = "not measured" if t["met"] is None else ("met" if t["met"] else "not met")
            L.append(f"- target: {t['name']}: {f(t['value'], '{:.1f}')} MiB, {verdict}")
        L += ["", "Raw figures: `uploads.json`; per-run output under `reports/bench/raw/uploads/` (not committed)."]
        with open(path, "w") as fh:
            fh.write("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description="Segmented upload vs PUT vs curl -T on Wirelens' target; target vs nginx.")
    ap.add_argument("--quick", action="store_true", help="64 MiB and 32 MiB files (smoke test)")
    ap.add_argument("--wirelens", help="wirelens binary (default .build/release/wirelens)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--timeout", type=float, default=300.0, help="per-command timeout in seconds (default 300)")
    ap.add_argument("--out", help="where uploads.json and UPLOADS.md go")
    args = ap.parse_args()
    if args.rounds < 1 or args.rounds > 20:
        ap.error("--rounds must be 1..20")

    return bench.run_cleanly(lambda: UploadBench(args).run())


if __name__ == "__main__":
    sys.exit(main())
