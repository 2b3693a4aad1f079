#!/usr/bin/env python3
"""S3 upload benchmark (issue 32): `wirelens upload --preset aws-cli` against `aws s3 cp` of the same file to the same
moto S3 server, across a namespace path with a 40 ms round trip and 50 Mbit/s.

  python3 scripts/bench-s3.py [--quick] [--wirelens PATH] [--pairs N] [--mib N] [--timeout S] [--out DIR]

The path is scripts/netpath.sh's (client, router and server namespaces): `--rate 50mbit --delay 20ms`, a tbf of
50 Mbit/s each way in the router and 20 ms each way on its delay line (this kernel has no netem). moto's server
(scripts/moto-server.py, from the .venv-s3 scripts/deps.sh makes) listens in the server namespace on
198.18.2.1:5000; both clients run in the client namespace with the same dummy key pair in their environment (never
on a command line) and nothing from ~/.aws:

  wirelens upload FILE s3://BUCKET/wirelens-N --endpoint-url URL --preset aws-cli --no-journal -q --format json ...
  aws s3 cp FILE s3://BUCKET/aws-N --endpoint-url URL --only-show-errors          (the venv's aws-cli)

in pairs, A B A B ... (--pairs, default 3; at most 10), each object checked afterwards by head-object (its size, and
its ETag the same for both tools: the same file in the same parts) and deleted. Throughput is the file's bytes over
each process's wall time (what a user waits for, start-up included); the figure judged is the median over pairs of
the pair's wirelens/aws ratio (target: at least 1.0). Beside it, per run: the CPU time of the client (wait4) and of
moto (its /proc stat before and after), the path's tbf drops, and from the wirelens report its own wall time and
effective rate, the verdict of each part (UploadPart) and CompleteMultipartUpload's wait (moto assembling the object).

A 64 MiB file by default (--quick: 16 MiB, written to reports/bench/raw/quick/). Writes OUT/s3.json and OUT/S3.md
(default reports/bench); per-run output under reports/bench/raw/s3/ (gitignored). Needs root (namespaces) and the
venv; the namespaces and moto are removed on every exit.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (measure, build_launcher, paths, log, tool_version, pair_ratios, run_cleanly)

ROOT = bench.ROOT
MIB = bench.MIB
NETPATH = os.path.join(ROOT, "scripts", "netpath.sh")
VENV = os.path.join(ROOT, ".venv-s3")
RATE = "50mbit"
DELAY = "20ms"
SERVER_IP = "198.18.2.1"
PORT = 5000
BUCKET = "wirelens-bench"
TARGET_VS_AWS = 1.0
# Dummy credentials moto accepts (it checks none here); they stay in the environment, out of every file written.
ENVIRONMENT = {"AWS_ACCESS_KEY_ID": "AKIAWIRELENSBENCH", "AWS_SECRET_ACCESS_KEY": "wirelens-bench-secret",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": "/dev/null",
               "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_EC2_METADATA_DISABLED": "true"}


def moto_cpu_seconds(pid):
    """utime + stime of a process from /proc (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def figure(value, fmt="{:.2f}"):
    """A figure for a table: n/a when it was not measured."""
    return "n/a" if value is None else fmt.format(value)


class S3Bench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.pairs = args.pairs
        self.file_bytes = (args.mib or (16 if args.quick else 64)) * MIB
        self.out, self.raw, self.wirelens = bench.paths(args, "s3")
        self.name = f"wls3b{os.getpid() % 100000}"
        self.client = f"{self.name}-c"
        self.endpoint = f"http://{SERVER_IP}:{PORT}"
        self.aws = os.path.join(VENV, "bin", "aws")
        self.moto = None

    def in_client(self, argv):
        return ["ip", "netns", "exec", self.client] + argv

    def run_quiet(self, argv, timeout=60):
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)

    def counters(self):
        r = self.run_quiet(["bash", NETPATH, "counters", self.name])
        return {k: int(v) for k, v in (line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)}

    def path_up(self):
        r = self.run_quiet(["bash", NETPATH, "up", self.name, "--rate", RATE, "--delay", DELAY], timeout=60)
        if r.returncode != 0:
            raise SystemExit(f"bench-s3: netpath up failed: {r.stderr.strip()}")

    def start_moto(self):
        log_path = os.path.join(self.raw, "moto.log")
        self.moto_log = open(log_path, "wb")
        env = dict(os.environ, MOTO_MAX_SECONDS="1800")
        self.moto = subprocess.Popen(["ip", "netns", "exec", f"{self.name}-s", os.path.join(VENV, "bin", "python"),
                                      os.path.join(ROOT, "scripts", "moto-server.py"), SERVER_IP, str(PORT)],
                                     stdin=subprocess.DEVNULL, stdout=self.moto_log, stderr=self.moto_log, env=env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(log_path, "rb") as f:
                if b"Running on" in f.read():
                    return
            if self.moto.poll() is not None:
                break
            time.sleep(0.2)
        raise SystemExit(f"bench-s3: moto did not start within 30 s (see {log_path})")

    def aws_quiet(self, argv, timeout=120):
        return subprocess.run(self.in_client([self.aws] + argv + ["--endpoint-url", self.endpoint]),
                              capture_output=True, text=True, timeout=timeout, env=dict(os.environ, **ENVIRONMENT))

    def head(self, key):
        r = self.aws_quiet(["s3api", "head-object", "--bucket", BUCKET, "--key", key])
        if r.returncode != 0:
            return None
        answer = json.loads(r.stdout)
        return {"etag": answer.get("ETag", "").strip('"'), "bytes": answer.get("ContentLength")}

    @staticmethod
    def wirelens_facts(report_path):
        """From a wirelens JSON report: its wall time and rate, each part's verdict, Complete's wait."""
        try:
            with open(report_path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return {}
        upload = doc.get("upload", {})
        parts, complete_wait = [], None
        for task in doc.get("tasks", []):
            tx = (task.get("transactions") or [{}])[-1]
            verdict = (tx.get("diagnosis") or {}).get("verdict")
            if tx.get("method") == "PUT":
                parts.append({"verdict": verdict, "status": tx.get("statusCode"),
                              "total_ms": (tx.get("phasesMs") or {}).get("total"),
                              "send_ms": (tx.get("phasesMs") or {}).get("send")})
            elif tx.get("method") == "POST" and "uploadId=" in tx.get("url", ""):
                complete_wait = (tx.get("phasesMs") or {}).get("wait")
        verdicts = {}
        for p in parts:
            verdicts[p["verdict"]] = verdicts.get(p["verdict"], 0) + 1
        return {"report_wall_ms": upload.get("wallMs"), "effective_mb_per_s": (upload.get("effectiveBytesPerSecond") or 0) / 1e6,
                "parallel": upload.get("parallel"), "peak_in_flight": upload.get("peakInFlight"),
                "parts": parts, "part_verdicts": verdicts, "upload_verdict": (upload.get("verdict") or {}).get("verdict"),
                "why": upload.get("why"), "failed_attempts": upload.get("failedAttempts"),
                "complete_wait_ms": complete_wait, "etag": (upload.get("s3") or {}).get("objectETag"),
                "etag_matches": (upload.get("s3") or {}).get("etagMatches")}

    def one_run(self, tool, pair, expected):
        key = f"{tool}-{pair}"
        so = os.path.join(self.raw, f"{key}.out")
        se = os.path.join(self.raw, f"{key}.err")
        report = os.path.join(self.raw, f"{key}.json")
        if tool == "wirelens":
            argv = [self.wirelens, "upload", self.file, f"s3://{BUCKET}/{key}", "--endpoint-url", self.endpoint,
                    "--preset", "aws-cli", "--no-journal", "-q", "--format", "json", "--report", report]
        else:
            argv = [self.aws, "s3", "cp", self.file, f"s3://{BUCKET}/{key}", "--endpoint-url", self.endpoint,
                    "--only-show-errors"]
        before_counters, before_cpu = self.counters(), moto_cpu_seconds(self.moto.pid)
        saved = {k: os.environ.get(k) for k in ENVIRONMENT}
        os.environ.update(ENVIRONMENT)
        try:
            r = bench.measure(self.in_client(argv), so, se, self.args.timeout, self.launcher)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        after_counters, after_cpu = self.counters(), moto_cpu_seconds(self.moto.pid)
        served = self.head(key)
        r.update({"tool": tool, "pair": pair, "round": pair, "argv": argv, "bytes": self.file_bytes,
                  "served": served,
                  "moto_cpu_s": None if before_cpu is None or after_cpu is None else after_cpu - before_cpu,
                  "path_drops": after_counters.get("UP_DROPPED", 0) - before_counters.get("UP_DROPPED", 0)
                  + after_counters.get("DOWN_DROPPED", 0) - before_counters.get("DOWN_DROPPED", 0)})
        r["mb_per_s"] = self.file_bytes / r["wall_s"] / 1e6 if r["wall_s"] > 0 else None
        if tool == "wirelens":
            r["wirelens"] = self.wirelens_facts(report)
        r["ok"] = (r["exit"] == 0 and not r["timed_out"] and served is not None
                   and served["bytes"] == self.file_bytes and (expected is None or served["etag"] == expected))
        self.aws_quiet(["s3", "rm", f"s3://{BUCKET}/{key}", "--only-show-errors"])
        state = "ok" if r["ok"] else ("TIMEOUT" if r["timed_out"] else f"FAILED exit {r['exit']}, object {served}")
        facts = r.get("wirelens", {})
        extra = f", parts {facts.get('part_verdicts')}, complete wait {facts.get('complete_wait_ms')} ms" if facts else ""
        bench.log(f"s3 pair {pair} {tool:8s}: {r['mb_per_s'] or 0:.2f} MB/s, {r['wall_s']:.2f} s, client CPU "
                  f"{r['cpu_s']:.2f} s, moto CPU {r['moto_cpu_s'] or 0:.2f} s, drops {r['path_drops']}{extra}, {state}")
        return r

    def run(self):
        if os.geteuid() != 0:
            raise SystemExit("bench-s3: needs root (network namespaces); run it as root")
        if not (os.path.isfile(self.wirelens) and os.access(self.wirelens, os.X_OK)):
            raise SystemExit(f"bench-s3: no wirelens binary at {self.wirelens}")
        if not os.access(self.aws, os.X_OK):
            raise SystemExit(f"bench-s3: {VENV} has no aws-cli: run scripts/deps.sh")
        self.tmp = bench.fresh_dirs(self.out, self.raw, "bench-s3")
        started = datetime.datetime.now(datetime.timezone.utc)
        load_before = os.getloadavg()[0]
        runs = {"wirelens": [], "aws": []}
        try:
            self.launcher = bench.build_launcher(self.tmp)
            self.path_up()
            self.start_moto()
            made = self.aws_quiet(["s3api", "create-bucket", "--bucket", BUCKET])
            if made.returncode != 0:
                raise SystemExit(f"bench-s3: create-bucket failed: {made.stderr.strip()}")
            self.file = os.path.join(self.tmp, "upload.bin")
            with open(self.file, "wb") as f:
                for _ in range(self.file_bytes // MIB):
                    f.write(os.urandom(MIB))
            # The path's round trip: the quickest of five TCP connects to moto (the first also resolves ARP).
            rtt = subprocess.run(self.in_client(["python3", "-c", (
                "import socket,time\nbest=1e9\nfor _ in range(5):\n"
                f" t=time.monotonic();s=socket.create_connection(('{SERVER_IP}',{PORT}),5)\n"
                " best=min(best,(time.monotonic()-t)*1000);s.close()\nprint(best)")]),
                capture_output=True, text=True, timeout=30)
            self.connect_ms = float(rtt.stdout.strip() or "nan")
            bench.log(f"path {RATE}, {DELAY} each way (TCP connect {self.connect_ms:.1f} ms); "
                      f"{self.file_bytes // MIB} MiB x {self.pairs} pairs")
            expected = None
            for pair in range(1, self.pairs + 1):
                for tool in ("wirelens", "aws"):
                    r = self.one_run(tool, pair, expected)
                    if expected is None and r["ok"] and r["served"]:
                        expected = r["served"]["etag"]
                    runs[tool].append(r)
            versions = {"wirelens": bench.tool_version([self.wirelens, "--version"]),
                        "aws": bench.tool_version([self.aws, "--version"]),
                        "moto": bench.tool_version([os.path.join(VENV, "bin", "python"), "-c",
                                                    "import moto; print('moto ' + moto.__version__)"])}
        finally:
            if self.moto and self.moto.poll() is None:
                self.moto.terminate()
                try:
                    self.moto.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.moto.kill()
                    self.moto.wait()
            subprocess.run(["bash", NETPATH, "down", self.name], timeout=60)
            shutil.rmtree(self.tmp, ignore_errors=True)

        ratios = bench.pair_ratios(runs["wirelens"], runs["aws"], "mb_per_s")
        median = statistics.median(ratios) if ratios else None
        med = {tool: {k: bench.median_of(rs, k) for k in ("mb_per_s", "wall_s", "cpu_s", "moto_cpu_s", "peak_rss_mib")}
               | {"ok_runs": sum(1 for r in rs if r["ok"]), "runs": len(rs)} for tool, rs in runs.items()}
        doc = {"date": started.isoformat(timespec="seconds"), "quick": self.quick,
               "wirelens_binary": os.path.relpath(self.wirelens, ROOT),
               "machine": bench.Bench.machine(self), "versions": versions, "load_average_1m_at_start": load_before,
               "path": {"rate": RATE, "delay_each_way": DELAY, "tcp_connect_ms": self.connect_ms},
               "pairs": self.pairs, "file_bytes": self.file_bytes, "runs": runs, "medians": med,
               "pair_ratios": ratios, "ratio": median,
               "target": {"name": f"wirelens --preset aws-cli throughput >= {TARGET_VS_AWS}x aws s3 cp (median of pairs)",
                          "value": median, "met": None if median is None else median >= TARGET_VS_AWS}}
        with open(os.path.join(self.out, "s3.json"), "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        self.write_markdown(os.path.join(self.out, "S3.md"), doc)
        failed = [f"{tool} pair {r['pair']}" for tool, rs in runs.items() for r in rs if not r["ok"]]
        if failed:
            bench.log("failed runs: " + ", ".join(failed))
        return 1 if failed else 0

    def write_markdown(self, path, doc):
        f = figure
        mc, med = doc["machine"], doc["medians"]
        L = ["# S3 upload benchmark" + (" (quick smoke run)" if self.quick else ""), "",
             f"Date: {doc['date']}  ",
             f"Machine: {mc['nproc']} CPUs ({mc['cpu'] or 'unknown CPU'}), Linux {mc['kernel']}; "
             f"1-minute load average at the start {doc['load_average_1m_at_start']:.1f}  ",
             f"Path: scripts/netpath.sh `--rate {RATE} --delay {DELAY}` (TCP connect {doc['path']['tcp_connect_ms']:.1f} ms); "
             f"moto in the server namespace, both clients in the client namespace  ",
             f"Method: {self.pairs} pairs, wirelens then aws-cli in each, a {self.file_bytes // MIB} MiB random file; "
             "MB/s = 10^6 bytes/s over each process's wall time; the ratio is the median of the pairs' ratios", "",
             f"Tools: `{doc['versions']['wirelens']}` (`{doc['wirelens_binary']}`); `{doc['versions']['aws']}`; "
             f"`{doc['versions']['moto']}`", "",
             "| tool | command | MB/s (median) | wall s | client CPU s | moto CPU s | ok runs |",
             "|---|---|---:|---:|---:|---:|---:|"]
        desc = {"wirelens": "`wirelens upload FILE s3://B/K --endpoint-url URL --preset aws-cli`",
                "aws": "`aws s3 cp FILE s3://B/K --endpoint-url URL`"}
        for tool, d in med.items():
            L.append(f"| {tool} | {desc[tool]} | {f(d['mb_per_s'])} | {f(d['wall_s'])} | {f(d['cpu_s'])} | "
                     f"{f(d['moto_cpu_s'])} | {d['ok_runs']}/{d['runs']} |")
        L += ["", "| pair | wirelens MB/s | aws MB/s | ratio | wirelens parts' verdicts | wirelens' own wall ms "
              "| Complete's wait ms | tbf drops (wirelens / aws) |", "|---:|---:|---:|---:|---|---:|---:|---:|"]
        ratios = iter(doc["pair_ratios"])
        for a, b in zip(doc["runs"]["wirelens"], doc["runs"]["aws"]):
            w = a.get("wirelens", {})
            ratio = next(ratios) if a["ok"] and b["ok"] else None
            verdicts = ", ".join(f"{k} {v}" for k, v in sorted((w.get("part_verdicts") or {}).items(), key=str))
            L.append(f"| {a['pair']} | {f(a['mb_per_s'])} | {f(b['mb_per_s'])} | {f(ratio)} | {verdicts or 'n/a'} | "
                     f"{f(w.get('report_wall_ms'), '{:.0f}')} | {f(w.get('complete_wait_ms'), '{:.0f}')} | "
                     f"{a['path_drops']} / {b['path_drops']} |")
        t = doc["target"]
        met = {None: "not measured", True: "met", False: "not met"}[t["met"]]
        L += ["", f"Target: {t['name']}: {f(t['value'])}x, {met}.", "",
              "Raw figures: `s3.json`; per-run output and wirelens reports under `reports/bench/raw/s3/` (not committed)."]
        with open(path, "w") as fh:
            fh.write("\n".join(L) + "\n")


# The options: name and argparse's settings.
OPTIONS = [
    ("--quick", {"action": "store_true", "help": "a 16 MiB file, results under reports/bench/raw/quick"}),
    ("--wirelens", {"help": "wirelens binary (default .build/release/wirelens)"}),
    ("--pairs", {"type": int, "default": 3, "help": "pairs of runs (default 3, at most 10)"}),
    ("--mib", {"type": int, "help": "file size in MiB (default 64; 16 with --quick)"}),
    ("--timeout", {"type": float, "default": 120.0, "help": "per-command timeout in seconds (default 120)"}),
    ("--out", {"help": "where s3.json and S3.md go"}),
    ("--rounds", {"type": int, "help": "accepted for make's BENCH_ARGS, not used: --pairs sets the runs"}),
]


def main():
    ap = argparse.ArgumentParser(description="wirelens upload --preset aws-cli vs aws s3 cp to moto over a 40 ms path.")
    for name, settings in OPTIONS:
        ap.add_argument(name, **settings)
    args = ap.parse_args()
    if args.pairs < 1 or args.pairs > 10:
        ap.error("--pairs must be 1..10")
    if args.mib is not None and not 1 <= args.mib <= 1024:
        ap.error("--mib must be 1..1024")
    return bench.run_cleanly(lambda: S3Bench(args).run())


if __name__ == "__main__":
    sys.exit(main())
