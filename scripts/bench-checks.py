#!/usr/bin/env python3
"""Checks at scale (issue 19): `wirelens serve` with 2,000 checks every 10 s against a loopback nginx, against
Debian's prometheus-blackbox-exporter probing the same targets at the same rate.

  python3 scripts/bench-checks.py [--quick] [--wirelens PATH] [--out DIR] [--checks 2000] [--interval 10]
                                  [--duration 300]

Wirelens: `wirelens serve --config C --history DB` where C holds CHECKS checks of GET /small.txt on one nginx
(`every: INTERVAL`, `timeout: 5s`), for DURATION seconds (default 300; --quick: 60). Every 10 s the script samples
the process from /proc: CPU time (utime + stime), RSS, open file descriptors, threads. At the end: CPU per check
run (CPU seconds over the runs, counted in the history database by sqlite3 after serve stopped), peak RSS
(VmHWM), the most fds and threads seen, skipped runs (the sum of serve's own counters whose name says "skipped",
when /metrics has any), and whether memory stayed flat: the mean RSS of the last minute over the first minute's
(the samples after the start; for runs shorter than two minutes, the first and last third).

The peer: prometheus-blackbox-exporter (module http_2xx, timeout 5 s) driven by a bounded Python driver that
asks `/probe?target=URL&module=http_2xx` for each of the CHECKS targets once per INTERVAL, spread over it as
Wirelens spreads its checks, for the same DURATION, with kept-alive connections as Prometheus would. A probe
that could not start within one interval of its time is skipped and counted. Its CPU per probe is the exporter's
CPU time (from /proc, the driver's own not counted) over the probes answered with probe_success 1.

Target: Wirelens' CPU per check run at most 1.5 × blackbox_exporter's per probe (Wirelens records the whole
timeline and stores every run); memory flat: last-minute RSS at most 1.10 × the first minute's.

The history: `wirelens history --history DB --since 24h` (every check, no name given) over two histories made from
serve's database (its schema, copied with sqlite3's .backup) by sqlite3, CHECKS more checks with 100 and with 1,000
runs each, one a minute back from now (at 2,000 checks: 200,000 and 2,000,000 runs). Its peak RSS (wait4) must stay
under 64 MiB and flat: the larger history's at most 1.25 × the smaller's (the command reads one check at a time).

Writes OUT/checks.json and OUT/CHECKS.md (default reports/bench, or reports/bench/raw/quick with --quick).
"""

import argparse
import datetime
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (log, paths, tool_version, Bench.machine, run_cleanly, NGINX_UP/DOWN)

TARGET_CPU_VS_BLACKBOX = 1.5
TARGET_RSS_GROWTH = 1.10
# `wirelens history` over every check: peak RSS under this, and the larger history's at most HISTORY_FLAT × the smaller's.
TARGET_HISTORY_RSS_MIB = 64.0
HISTORY_FLAT = 1.25
HISTORY_RUNS_PER_CHECK = (100, 1000)
SAMPLE_EVERY = 10.0
TICKS = os.sysconf("SC_CLK_TCK")
BLACKBOX = "/usr/bin/prometheus-blackbox-exporter"


def proc_sample(pid):
    """CPU seconds, RSS and peak RSS (MiB), open fds and threads of a live process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS   # utime, stime (fields 14 and 15 of stat)
    threads = int(fields[17])
    rss = hwm = None
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return {"cpu_s": cpu, "rss_mib": rss, "hwm_mib": hwm, "fds": fds, "threads": threads}


def sample_for(pid, duration, started, stop_early=None):
    """Samples `pid` every SAMPLE_EVERY seconds from `started` for `duration` seconds (bounded by the count)."""
    samples = []
    for k in range(int(duration // SAMPLE_EVERY) + 1):
        delay = started + k * SAMPLE_EVERY - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        try:
            s = proc_sample(pid)
        except (OSError, ValueError, IndexError):
            break
        s["t_s"] = round(time.monotonic() - started, 2)
        samples.append(s)
        if stop_early and stop_early():
            break
    return samples


def terminate(proc, timeout):
    """SIGTERM to proc if it still runs, then its exit code, waiting at most timeout seconds before SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def flatness(samples, duration):
    """The mean RSS of the last minute over the first minute's (under two minutes: the first and last third, at
    least one sample each), leaving out the sample taken at the start."""
    later = [s for s in samples if s["t_s"] > 1]
    span = 60.0 if duration >= 120 else max(SAMPLE_EVERY, duration / 3)
    first = [s["rss_mib"] for s in later if s["t_s"] <= span + 1]
    last = [s["rss_mib"] for s in later if s["t_s"] >= duration - span - 1]
    if not first or not last:
        return None
    return (sum(last) / len(last)) / (sum(first) / len(first))


def summary(samples):
    """Peak RSS, the most fds and threads of any sample, and of the samples after the first 10 s (the first one
    sees serve start every check within its first tenth of an interval)."""
    later = [s for s in samples if s.get("t_s", 1e9) >= SAMPLE_EVERY] or samples
    return {"peak_rss_mib": max((s["hwm_mib"] or 0) for s in samples) if samples else None,
            "max_fds": max(s["fds"] for s in samples) if samples else None,
            "max_threads": max(s["threads"] for s in samples) if samples else None,
            "max_fds_after_10s": max(s["fds"] for s in later) if later else None,
            "max_threads_after_10s": max(s["threads"] for s in later) if later else None}


class ChecksBench:
    def __init__(self, args):
        self.quick = args.quick
        self.checks = args.checks
        self.interval = args.interval
        self.duration = args.duration or (60 if args.quick else 300)
        self.out, self.raw, self.wirelens = bench.paths(args, "checks")

    # -- Wirelens ------------------------------------------------------------------------------------------------
    def run_wirelens(self, tmp, url):
        config = os.path.join(tmp, "checks.yaml")
        with open(config, "w") as f:
            f.write("checks:\n")
            for i in range(self.checks):
                f.write(f"  - name: c{i:05d}\n    url: {url}\n    every: {self.interval}s\n    timeout: 5s\n")
        database = os.path.join(tmp, "history.sqlite")
        stderr_path = os.path.join(self.raw, "serve.stderr")
        argv = [self.wirelens, "serve", "--config", config, "--listen", "127.0.0.1:0", "--history", database]
        with open(stderr_path, "w") as err:
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        try:
            port = None
            for _ in range(300):   # bounded: 30 s to announce the port
                with open(stderr_path) as f:
                    m = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", f.read())
                if m:
                    port = int(m.group(1))
                    break
                if proc.poll() is not None:
                    break
                time.sleep(0.1)
            if port is None:
                raise SystemExit(f"bench-checks: serve did not start:\n{open(stderr_path).read()}")
            started = time.monotonic()
            bench.log(f"wirelens serve: {self.checks} checks every {self.interval} s for {self.duration} s")
            samples = sample_for(proc.pid, self.duration, started, stop_early=lambda: proc.poll() is not None)
            metrics = fetch(f"127.0.0.1:{port}", "/metrics")
            end = proc_sample(proc.pid) if proc.poll() is None else None
        finally:
            code = terminate(proc, timeout=60)
        runs = int(subprocess.run(["sqlite3", "-cmd", ".timeout 10000", database, "SELECT count(*) FROM check_result"],
                                  capture_output=True, text=True, timeout=120).stdout.strip() or 0)
        passed = int(subprocess.run(["sqlite3", "-cmd", ".timeout 10000", database,
                                     "SELECT count(*) FROM check_result WHERE passed = 1"],
                                    capture_output=True, text=True, timeout=120).stdout.strip() or 0)
        with open(os.path.join(self.raw, "metrics.txt"), "w") as f:
            f.write(metrics or "")
        skipped = skipped_runs(metrics)
        cpu = end["cpu_s"] if end else (samples[-1]["cpu_s"] if samples else None)
        db_mib = sum(os.path.getsize(database + s) for s in ("", "-wal") if os.path.exists(database + s)) / 2**20
        result = {"argv": argv, "exit": code, "runs": runs, "passed": passed, "cpu_s": cpu,
                  "cpu_ms_per_run": 1000 * cpu / runs if cpu and runs else None,
                  "skipped": skipped, "expected_runs": self.checks * self.duration / self.interval,
                  "rss_last_over_first_minute": flatness(samples, self.duration), "history_mib": db_mib,
                  "samples": samples, **summary(samples + ([end] if end else []))}
        bench.log(f"wirelens: {runs} runs ({passed} passed), CPU {fmt(result['cpu_ms_per_run'], '{:.3f}')} ms/run, "
                  f"peak RSS {fmt(result['peak_rss_mib'], '{:.1f}')} MiB, fds {result['max_fds']}, threads "
                  f"{result['max_threads']}, skipped {skipped}, RSS last/first minute "
                  f"{fmt(result['rss_last_over_first_minute'], '{:.3f}')}")
        return result

    # -- blackbox_exporter ---------------------------------------------------------------------------------------
    def run_blackbox(self, tmp, url):
        config = os.path.join(tmp, "blackbox.yml")
        with open(config, "w") as f:
            f.write("modules:\n  http_2xx:\n    prober: http\n    timeout: 5s\n"
                    "    http:\n      preferred_ip_protocol: ip4\n")
        port = free_port()
        address = f"127.0.0.1:{port}"
        argv = [BLACKBOX, f"--config.file={config}", f"--web.listen-address={address}"]
        stderr_path = os.path.join(self.raw, "blackbox.stderr")
        with open(stderr_path, "w") as err:
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        try:
            for _ in range(300):   # bounded: 30 s to answer
                if fetch(address, "/metrics") is not None or proc.poll() is not None:
                    break
                time.sleep(0.1)
            if proc.poll() is not None:
                raise SystemExit(f"bench-checks: blackbox_exporter did not start:\n{open(stderr_path).read()}")
            driver = ProbeDriver(address, url, self.checks, self.interval, self.duration)
            cpu0 = proc_sample(proc.pid)["cpu_s"]
            started = time.monotonic()
            bench.log(f"blackbox_exporter: {self.checks} targets every {self.interval} s for {self.duration} s")
            thread = threading.Thread(target=driver.run, args=(started,), daemon=True)
            thread.start()
            samples = sample_for(proc.pid, self.duration, started)
            thread.join(timeout=self.interval + 30)
            end = proc_sample(proc.pid)
        finally:
            code = terminate(proc, timeout=30)
        cpu = end["cpu_s"] - cpu0
        result = {"argv": argv, "exit": code, "runs": driver.succeeded + driver.failed, "passed": driver.succeeded,
                  "failed": driver.failed, "skipped": driver.skipped, "errors": driver.errors[:5], "cpu_s": cpu,
                  "cpu_ms_per_run": 1000 * cpu / driver.succeeded if driver.succeeded else None,
                  "expected_runs": self.checks * self.duration / self.interval,
                  "rss_last_over_first_minute": flatness(samples, self.duration),
                  "samples": samples, **summary(samples + [end])}
        bench.log(f"blackbox_exporter: {result['runs']} probes ({driver.succeeded} succeeded), CPU "
                  f"{fmt(result['cpu_ms_per_run'], '{:.3f}')} ms/probe, peak RSS {fmt(result['peak_rss_mib'], '{:.1f}')}"
                  f" MiB, fds {result['max_fds']}, threads {result['max_threads']}, skipped {driver.skipped}")
        return result

    # -- the history command over every check --------------------------------------------------------------------
    def run_history(self, tmp):
        """`wirelens history` (every check) over histories of CHECKS checks with each of HISTORY_RUNS_PER_CHECK
        runs, made by sqlite3 from serve's database (its schema): wall time, peak RSS, and the command's exit."""
        source = os.path.join(tmp, "history.sqlite")
        results = []
        for per_check in HISTORY_RUNS_PER_CHECK:
            database = os.path.join(tmp, f"history-{per_check}.sqlite")
            now_us = int(time.time()) * 1_000_000
            sql = (f".backup '{database}'\n.open '{database}'\n"
                   f"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < {self.checks}) "
                   "INSERT INTO check_name (name) SELECT printf('history-%05d', i) FROM c;\n"
                   f"WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < {per_check - 1}) "
                   "INSERT INTO check_result (checkId, startedAt, passed, statusCode, queue, dns, connect, send, wait, "
                   "receive, ttfb, total, retries, reused, downloadSpeed) "
                   f"SELECT n.id, {now_us} - k * 60000000, 1, 200, 10, 100 + k % 7, 200, 50, 1000 + (k * 37) % 500, "
                   "300, 1400, 2000 + (k * 53) % 900, 0, 1, 5000 FROM check_name n, r WHERE n.name LIKE 'history-%';\n")
            r = subprocess.run(["sqlite3", source], input=sql, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                raise SystemExit(f"bench-checks: could not make the {per_check}-run history:\n{r.stderr}")
            out = os.path.join(self.raw, f"history-{per_check}.out")
            m = bench.measure([self.wirelens, "history", "--history", database, "--since", "24h"], out,
                              os.path.join(self.raw, f"history-{per_check}.err"), 600)
            with open(out, errors="replace") as f:
                compared = sum(1 for line in f if line.startswith("history-"))
            m.update({"runs_per_check": per_check, "checks": self.checks, "checks_compared": compared,
                      "ok": m["exit"] in (0, 1) and not m["timed_out"] and compared == self.checks})
            results.append(m)
            os.remove(database)
            bench.log(f"wirelens history: {self.checks} checks x {per_check} runs: {m['wall_s']:.2f} s, peak RSS "
                      f"{m['peak_rss_mib']:.1f} MiB, {compared} checks compared, exit {m['exit']}")
        return results

    # -- the whole run -------------------------------------------------------------------------------------------
    def run(self):
        if not (os.path.isfile(self.wirelens) and os.access(self.wirelens, os.X_OK)):
            raise SystemExit(f"bench-checks: no wirelens binary at {self.wirelens}")
        if not os.access(BLACKBOX, os.X_OK):
            raise SystemExit(f"bench-checks: no {BLACKBOX} (make deps installs prometheus-blackbox-exporter)")
        os.makedirs(self.out, exist_ok=True)
        shutil.rmtree(self.raw, ignore_errors=True)
        os.makedirs(self.raw, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix="wirelens-bench-checks.")
        nginx_dir = os.path.join(tmp, "nginx")
        started = datetime.datetime.now(datetime.timezone.utc)
        load_before = os.getloadavg()[0]
        try:
            r = subprocess.run(["bash", bench.NGINX_UP, nginx_dir], capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                raise SystemExit(f"bench-checks: nginx-up failed:\n{r.stderr}")
            ports = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
            url = f"http://127.0.0.1:{ports['HTTP_PORT']}/small.txt"
            wirelens = self.run_wirelens(tmp, url)
            history = self.run_history(tmp)
            blackbox = self.run_blackbox(tmp, url)
            versions = {"wirelens": bench.tool_version([self.wirelens, "--version"]),
                        "blackbox_exporter": bench.tool_version([BLACKBOX, "--version"]),
                        "nginx": bench.tool_version(["nginx", "-v"])}
        finally:
            subprocess.run(["bash", bench.NGINX_DOWN, nginx_dir], timeout=60)
            shutil.rmtree(tmp, ignore_errors=True)

        ratio = bench.ratio(wirelens["cpu_ms_per_run"], blackbox["cpu_ms_per_run"])
        flat = wirelens["rss_last_over_first_minute"]
        targets = [
            {"name": f"wirelens CPU per check run ≤ {TARGET_CPU_VS_BLACKBOX}× blackbox_exporter's per probe",
             "value": ratio, "met": None if ratio is None else ratio <= TARGET_CPU_VS_BLACKBOX},
            {"name": f"wirelens memory flat: last-minute RSS ≤ {TARGET_RSS_GROWTH}× the first minute's",
             "value": flat, "met": None if flat is None else flat <= TARGET_RSS_GROWTH},
        ]
        small, large = history[0], history[-1]
        history_ok = all(h["ok"] for h in history)
        history_growth = bench.ratio(large["peak_rss_mib"], small["peak_rss_mib"])
        targets += [
            {"name": f"wirelens history over every check: peak RSS < {TARGET_HISTORY_RSS_MIB:g} MiB",
             "value": large["peak_rss_mib"], "met": history_ok and large["peak_rss_mib"] < TARGET_HISTORY_RSS_MIB},
            {"name": f"wirelens history over every check: peak RSS flat ({large['runs_per_check']:,} runs per check "
                     f"≤ {HISTORY_FLAT}× {small['runs_per_check']:,})",
             "value": history_growth, "met": history_ok and history_growth is not None and history_growth <= HISTORY_FLAT},
        ]
        doc = {"date": started.isoformat(timespec="seconds"), "quick": self.quick,
               "machine": bench.Bench.machine(self), "versions": versions, "load_average_1m_at_start": load_before,
               "checks": self.checks, "interval_s": self.interval, "duration_s": self.duration,
               "wirelens": wirelens, "blackbox_exporter": blackbox, "cpu_ratio": ratio, "history": history,
               "targets": targets}
        with open(os.path.join(self.out, "checks.json"), "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        self.write_markdown(os.path.join(self.out, "CHECKS.md"), doc)
        ok = wirelens["runs"] > 0 and blackbox["passed"] > 0 and wirelens["exit"] == 0 and history_ok
        return 0 if ok else 1

    def write_markdown(self, path, doc):
        mc = doc["machine"]
        w, b = doc["wirelens"], doc["blackbox_exporter"]

        def row(name, r):
            return (f"| {name} | {r['runs']:,} of {r['expected_runs']:,.0f} ({r['passed']:,} passed) | "
                    f"{fmt(r['cpu_s'], '{:.1f}')} s | {fmt(r['cpu_ms_per_run'], '{:.3f}')} | "
                    f"{fmt(r['peak_rss_mib'], '{:.1f}')} | {r['max_fds']} ({r.get('max_fds_after_10s')}) | "
                    f"{r['max_threads']} ({r.get('max_threads_after_10s')}) | "
                    f"{'not counted' if r['skipped'] is None else r['skipped']} | "
                    f"{fmt(r['rss_last_over_first_minute'], '{:.3f}')} |")

        def verdict(t):
            return "not measured" if t["met"] is None else ("met" if t["met"] else "not met")

        L = ["# Checks at scale" + (" (quick smoke run)" if self.quick else ""), "",
             f"Date: {doc['date']}  ",
             f"Machine: {mc['nproc']} CPUs ({mc['cpu'] or 'unknown CPU'}), Linux {mc['kernel']}; "
             f"1-minute load average at the start {doc['load_average_1m_at_start']:.1f}  ",
             f"Method: {doc['checks']:,} checks of GET /small.txt on a loopback nginx, each every "
             f"{doc['interval_s']:g} s, for {doc['duration_s']:g} s. Wirelens: `wirelens serve` with a history "
             "database, runs counted in it by sqlite3; blackbox_exporter: `/probe?target=URL&module=http_2xx` asked "
             "by a bounded driver at the same rate over kept-alive connections, probes counted by the driver. CPU, "
             "fds and threads from /proc every 10 s (in brackets: the most after the first 10 s, when serve starts every "
             "check within a tenth of the interval); peak RSS is VmHWM; flatness is the last minute's mean RSS over "
             "the first minute's. Skipped: serve's own counters of skipped runs (\"not counted\" when /metrics has "
             "none), the driver's probes that could not start within an interval of their time.  ",
             f"Tools: `{doc['versions']['wirelens']}`; `{doc['versions']['blackbox_exporter']}`; "
             f"`{doc['versions']['nginx']}`", "",
             "| | runs | CPU | CPU ms per run | peak RSS MiB | most fds (after 10 s) | most threads (after 10 s) | "
             "skipped | RSS last/first minute |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
             row("wirelens serve", w), row("blackbox_exporter", b), "",
             f"Wirelens' history after the run: {fmt(w.get('history_mib'), '{:.1f}')} MiB for {w['runs']:,} runs.", "",
             "`wirelens history --since 24h` over every check (no name given), on histories made by sqlite3 from "
             "serve's database:", "",
             "| checks | runs per check | runs | seconds | peak RSS MiB | checks compared | exit |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
        for h in doc["history"]:
            L.append(f"| {h['checks']:,} | {h['runs_per_check']:,} | {h['checks'] * h['runs_per_check']:,} | "
                     f"{h['wall_s']:.2f} | {h['peak_rss_mib']:.1f} | {h['checks_compared']:,} | {h['exit']} |")
        L.append("")
        for t in doc["targets"]:
            value = "n/a" if t["value"] is None else f"{t['value']:.2f}"
            L.append(f"Target: {t['name']}: {value}, {verdict(t)}.  ")
        L += ["", "Raw figures: `checks.json`; serve's stderr and last /metrics under `reports/bench/raw/checks/` "
              "(not committed)."]
        with open(path, "w") as fh:
            fh.write("\n".join(L) + "\n")


class ProbeDriver:
    """Asks blackbox_exporter to probe each of `count` targets once per `interval`, spread over it, for `duration`
    seconds: a bounded schedule (count × duration / interval probes) shared by a fixed pool of worker threads,
    each with its own kept-alive connection."""
    WORKERS = 48

    def __init__(self, address, url, count, interval, duration):
        self.address = address
        self.path = "/probe?module=http_2xx&target=" + url.replace(":", "%3A").replace("/", "%2F")
        self.count, self.interval, self.duration = count, interval, duration
        self.lock = threading.Lock()
        self.next = 0
        self.total = int(count * duration / interval)
        self.succeeded = self.failed = self.skipped = 0
        self.errors = []

    def take(self):
        with self.lock:
            if self.next >= self.total:
                return None
            k = self.next
            self.next += 1
            return k

    def run(self, started):
        workers = [threading.Thread(target=self.work, args=(started,), daemon=True) for _ in range(self.WORKERS)]
        for t in workers:
            t.start()
        for t in workers:
            t.join(timeout=self.duration + self.interval + 30)

    def work(self, started):
        conn = None
        while True:
            k = self.take()
            if k is None:
                break
            # Probe k is target k % count in round k // count, at its offset within the interval.
            at = started + (k // self.count) * self.interval + (k % self.count) * self.interval / self.count
            delay = at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif -delay > self.interval:
                with self.lock:
                    self.skipped += 1
                continue
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(self.address, timeout=10)
                conn.request("GET", self.path)
                body = conn.getresponse().read().decode("utf-8", "replace")
                ok = re.search(r"^probe_success 1$", body, re.M) is not None
                with self.lock:
                    if ok:
                        self.succeeded += 1
                    else:
                        self.failed += 1
                        if len(self.errors) < 5:
                            self.errors.append(body[-300:])
            except (OSError, http.client.HTTPException) as e:
                conn = None
                with self.lock:
                    self.failed += 1
                    if len(self.errors) < 5:
                        self.errors.append(repr(e))


def fetch(address, path):
    """The body of GET http://ADDRESS/PATH, None when it cannot be had."""
    try:
        conn = http.client.HTTPConnection(address, timeout=10)
        conn.request("GET", path)
        body = conn.getresponse().read().decode("utf-8", "replace")
        conn.close()
        return body
    except (OSError, http.client.HTTPException):
        return None


def skipped_runs(metrics):
    """The sum of serve's samples whose metric name says "skipped", None when it exposes none."""
    values = [float(m.group(1)) for m in re.finditer(r"^[a-z_:]*skipped[a-z_]*(?:\{[^}]*\})? (\S+)$",
                                                     metrics or "", re.M)]
    return int(sum(values)) if values else None


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fmt(value, pattern):
    return "n/a" if value is None else pattern.format(value)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="60 s instead of 300 (reports/bench/raw/quick)")
    p.add_argument("--wirelens", help="the wirelens binary (default .build/release/wirelens)")
    p.add_argument("--out", help="where checks.json and CHECKS.md go")
    p.add_argument("--checks", type=int, default=2000, help="how many checks (default 2000)")
    p.add_argument("--interval", type=float, default=10.0, help="seconds between two runs of a check (default 10)")
    p.add_argument("--duration", type=float, help="seconds each side runs (default 300; --quick: 60)")
    p.add_argument("--rounds", type=int, help="accepted for make's BENCH_ARGS, not used: one run per side")
    args = p.parse_args()
    return bench.run_cleanly(lambda: ChecksBench(args).run())


if __name__ == "__main__":
    sys.exit(main())
