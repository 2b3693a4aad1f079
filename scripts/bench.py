#!/usr/bin/env python3
"""Wirelens benchmark against a local nginx: wirelens vs curl (libcurl's own CLI) vs h2load.

  python3 scripts/bench.py [--quick] [--wirelens PATH] [--rounds N] [--out DIR] [--parts get|upload|get,upload]

(a) N small GETs of /small.txt over HTTP/1.1, 16 at a time:
      wirelens probe URL --repeat N --concurrency 16 --max-host-connections 16 ...
      curl --parallel --parallel-max 16 -K CONFIG   (N "url"/"output = /dev/null" pairs)
      curl --parallel --parallel-max 16 -w '%{json}\n' -K CONFIG   (the same, a JSON record of every transfer)
      h2load --h1 -n N -c 16 URL
    requests/s from the wall time of the process (h2load's own req/s is kept too)
    and the peak RSS of the process (wait4 rusage ru_maxrss).
(b) one PUT of a large random file to nginx's WebDAV sink:
      wirelens probe URL -X PUT --upload FILE ...   vs   curl -sS -T FILE URL -o /dev/null
    throughput in MB/s (10^6 bytes per second) and peak RSS; the same wirelens PUT again with --tcp-sample 0
    (the kernel's facts at its start and end only): the paired ratio of their CPU times (user + system, wait4
    rusage) is what the samples every 100 ms cost (target: at most 1%).

Tools are interleaved (A B C A B C A B C) over --rounds rounds (default 5) and the
median is reported. The kernel facts' cost on the GET path is judged from pairs of their own: after the tools,
each round runs --facts-pairs pairs (default 8) of the text-summary probe with kernel facts and with
--tcp-sample off, back to back, the order alternating from pair to pair (on/off, off/on, ...); the target is
the median of the per-pair rate ratios. Full run: 20000 requests and a 1 GiB file; --quick: 2000
requests and a 64 MiB file, written to reports/bench/raw/quick/ unless --out is
given, so a smoke run never replaces the real results in reports/bench/.

Outputs: OUT/bench.json (every raw figure, tool versions, date, machine) and
OUT/RESULTS.md (medians, ratios, targets met / not met). Per-run stdout/stderr
and wirelens reports go to reports/bench/raw/ (gitignored).

A missing wirelens binary is not fatal: its runs are skipped, said so on
stderr and in the results, and the wirelens targets read "not measured".
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NGINX_UP = os.path.join(ROOT, "scripts", "nginx-up.sh")
NGINX_DOWN = os.path.join(ROOT, "scripts", "nginx-down.sh")

# Issue 30's targets for the GET run: the JSON report against curl's own JSON records and against bare curl, the
# text summary against h2load.
TARGET_JSON_VS_CURL_JSON = 1.5
TARGET_JSON_VS_CURL = 1.2
TARGET_TEXT_VS_H2LOAD = 0.6
TARGET_UPLOAD_VS_CURL = 0.9
TARGET_UPLOAD_RSS_MIB = 64.0
# The kernel's facts per transfer (TCP_INFO at start, every 100 ms and at the end) may cost at most 3% of the GET rate.
TARGET_KERNEL_FACTS_COST = 0.97
# An upload's samples (TCP_INFO every 100 ms while it runs) may cost at most 1% of its CPU time (vs --tcp-sample 0).
TARGET_UPLOAD_SAMPLING_CPU = 1.01

MIB = 1024 * 1024


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# running one measured process
# ---------------------------------------------------------------------------

# ru_maxrss of a process forked from this Python interpreter starts at the
# interpreter's own peak RSS (Linux records the old mm's high-water mark at
# exec), which would add ~15 MiB to every tool. So the measured tool is forked
# by a tiny C launcher instead; it reports the child's wait4 rusage and wall time.
LAUNCHER_C = r"""
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: launcher OUTFILE CMD [ARG...]\n"); return 125; }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 126; }
    if (pid == 0) { execvp(argv[2], argv + 2); perror("exec"); _exit(127); }
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) { perror("wait4"); return 126; }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    FILE *f = fopen(argv[1], "w");
    long long cpu_us = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL
                     + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    if (f) { fprintf(f, "%ld %lld %lld\n", ru.ru_maxrss, ns, cpu_us); fclose(f); }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 126;
}
"""


def build_launcher(tmpdir):
    """Compile the launcher; None (with a warning) when no C compiler exists."""
    cc = shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    if not cc:
        return None
    src = os.path.join(tmpdir, "launcher.c")
    exe = os.path.join(tmpdir, "launcher")
    with open(src, "w") as f:
        f.write(LAUNCHER_C)
    r = subprocess.run([cc, "-O2", "-o", exe, src], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        log(f"could not compile the RSS launcher with {cc}:\n{r.stderr}")
        return None
    return exe


def build_floor(tmpdir):
    """Compile scripts/libcurl-floor.c (libcurl's multi loop and nothing else); None when it cannot be built."""
    cc = shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    if not cc:
        return None
    exe = os.path.join(tmpdir, "libcurl-floor")
    r = subprocess.run([cc, "-O2", "-o", exe, os.path.join(ROOT, "scripts", "libcurl-floor.c"), "-lcurl"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        log(f"could not compile scripts/libcurl-floor.c:\n{r.stderr}")
        return None
    return exe


def measure(argv, stdout_path, stderr_path, timeout, launcher=None):
    """Run argv; return wall seconds, exit code, peak RSS (MiB), CPU seconds (user + system), timed_out."""
    stats_path = stdout_path + ".rusage"
    full = [launcher, stats_path] + list(argv) if launcher else list(argv)
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)   # launcher and tool share the group
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, rusage = os.wait4(proc.pid, 0)
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM): take the child down with us.
            kill()
            os.wait4(proc.pid, 0)
            proc.returncode = -9
            raise
        finally:
            timer.cancel()
        wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code          # reaped here; keep Popen from waiting again
    maxrss_kib = rusage.ru_maxrss
    cpu = rusage.ru_utime + rusage.ru_stime
    if launcher:
        try:
            with open(stats_path) as f:
                fields = f.read().split()
            maxrss_kib, wall = int(fields[0]), int(fields[1]) / 1e9
            if len(fields) > 2:
                cpu = int(fields[2]) / 1e6
            os.remove(stats_path)
        except (OSError, ValueError):
            pass                    # killed before it wrote: keep the outer figures
    return {
        "wall_s": wall,
        "exit": code,
        "peak_rss_mib": maxrss_kib / 1024.0,   # Linux: ru_maxrss is in KiB
        "cpu_s": cpu,                           # user + system time of the measured process (wait4 rusage)
        "timed_out": timed_out.is_set(),
    }


def tool_version(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        text = (r.stdout or r.stderr).strip()
        return text.splitlines()[0] if text else f"(no output, exit {r.returncode})"
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"(unavailable: {e})"


def function_addresses(binary):
    """The functions the binary's symbol table defines (`nm --defined-only`, text and weak symbols), by name: their
    addresses."""
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    return {f[2]: int(f[0], 16) for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] in "tTwW"}


def paths(args, raw_name):
    """Where a benchmark writes (OUT: reports/bench, or reports/bench/raw/quick with --quick, unless --out),
    its per-run files (reports/bench/raw/RAW_NAME[-quick]) and the wirelens binary it runs."""
    default_out = os.path.join(ROOT, "reports", "bench", "raw", "quick") if args.quick \
        else os.path.join(ROOT, "reports", "bench")
    out = os.path.abspath(args.out or default_out)
    raw = os.path.join(ROOT, "reports", "bench", "raw", raw_name + ("-quick" if args.quick else ""))
    wirelens = os.path.abspath(args.wirelens) if args.wirelens else os.path.join(ROOT, ".build", "release", "wirelens")
    return out, raw, wirelens


def fresh_dirs(out, raw, name):
    """Makes OUT, RAW afresh (the previous run's files gone) and a temporary directory named after NAME; returns the
    temporary directory (the caller removes it)."""
    os.makedirs(out, exist_ok=True)
    shutil.rmtree(raw, ignore_errors=True)
    os.makedirs(raw, exist_ok=True)
    return tempfile.mkdtemp(prefix=f"wirelens-{name}.")


def median_of(runs, key):
    vals = [r[key] for r in runs if r.get("ok") and r.get(key) is not None]
    return statistics.median(vals) if vals else None


def pair_ratios(runs_a, runs_b, key):
    """A's figure over B's for each pair (runs with the same "pair", else the same round; both ok), in order."""
    def pair(r):
        return r.get("pair", r["round"])
    b_by_pair = {pair(r): r for r in runs_b if r.get("ok") and r.get(key)}
    return [r[key] / b_by_pair[pair(r)][key] for r in runs_a
            if r.get("ok") and r.get(key) and pair(r) in b_by_pair]


def paired_ratio(runs_a, runs_b, key):
    """The median over pairs (or rounds) of A's figure over B's in the same pair: drift between pairs cancels."""
    ratios = pair_ratios(runs_a, runs_b, key)
    return statistics.median(ratios) if ratios else None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


# ---------------------------------------------------------------------------
# the benchmark
# ---------------------------------------------------------------------------

class Bench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.requests = args.requests or (2000 if args.quick else 20000)
        self.upload_bytes = (args.upload_mib or (64 if args.quick else 1024)) * MIB
        self.rounds = args.rounds
        self.facts_pairs = args.facts_pairs
        self.parts = set(args.parts.split(","))
        self.timeout = args.timeout
        default_out = os.path.join(ROOT, "reports", "bench", "raw", "quick") if args.quick \
            else os.path.join(ROOT, "reports", "bench")
        self.out = os.path.abspath(args.out or default_out)
        self.raw = os.path.join(ROOT, "reports", "bench", "raw",
                                "quick" if args.quick else "full")
        self.wirelens = os.path.abspath(args.wirelens) if args.wirelens else \
            os.path.join(ROOT, ".build", "release", "wirelens")
        self.tmp = None
        self.nginx_dir = None
        self.ports = {}
        self.notes = []
        self.launcher = None
        self.sampling = None

    # -- environment ----------------------------------------------------------
    def check_tools(self):
        self.have = {}
        self.have["wirelens"] = os.path.isfile(self.wirelens) and os.access(self.wirelens, os.X_OK)
        if not self.have["wirelens"]:
            msg = (f"wirelens binary not found at {self.wirelens} "
                   "(build it: swift build -c release --product wirelens); its runs are skipped")
            log(msg)
            self.notes.append(msg)
        for t in ("curl", "h2load", "nginx"):
            self.have[t] = shutil.which(t) is not None
            if not self.have[t]:
                msg = f"{t} not found on PATH (make deps installs it); its runs are skipped"
                log(msg)
                self.notes.append(msg)
        if not self.have["nginx"]:
            raise SystemExit("bench: nginx is required")

    def start_nginx(self):
        self.nginx_dir = os.path.join(self.tmp, "nginx")
        r = subprocess.run(["bash", NGINX_UP, self.nginx_dir], capture_output=True,
                           text=True, timeout=60)
        if r.returncode != 0:
            raise SystemExit(f"bench: nginx-up failed:\n{r.stderr}")
        for line in r.stdout.splitlines():
            k, _, v = line.partition("=")
            self.ports[k] = v
        self.base = f"http://127.0.0.1:{self.ports['HTTP_PORT']}"

    def stop_nginx(self):
        if self.nginx_dir:
            subprocess.run(["bash", NGINX_DOWN, self.nginx_dir], timeout=60)

    def versions(self):
        v = {
            "curl": tool_version(["curl", "--version"]),
            "h2load": tool_version(["h2load", "--version"]),
            "nginx": tool_version(["nginx", "-v"]),
            "python": sys.version.split()[0],
        }
        v["wirelens"] = tool_version([self.wirelens, "--version"]) if self.have["wirelens"] \
            else "(not built)"
        return v

    def machine(self):
        cpu = ""
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        cpu = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        mem = None
        try:
            with open("/proc/meminfo") as f:
                mem = int(f.readline().split()[1]) // 1024
        except (OSError, ValueError, IndexError):
            pass
        return {"nproc": os.cpu_count(), "cpu": cpu, "mem_mib": mem,
                "kernel": platform.release(), "machine": platform.machine()}

    # -- (a) small GETs -------------------------------------------------------
    def get_commands(self):
        url = f"{self.base}/small.txt"
        n = self.requests
        cfg = os.path.join(self.tmp, "curl-urls.cfg")
        with open(cfg, "w") as f:
            for _ in range(n):
                f.write(f'url = "{url}"\noutput = "/dev/null"\n')
        cmds = {}
        if self.have["wirelens"]:
            cmds["wirelens"] = lambda rnd: [
                self.wirelens, "probe", url, "--repeat", str(n), "--concurrency", "16",
                "--max-host-connections", "16", "--format", "json",
                "--report", os.path.join(self.raw, f"probe-r{rnd}.json"), "--quiet"]
            # The same probe writing only the text summary: the engine's cost without the per-transaction JSON.
            cmds["wirelens-summary"] = lambda rnd: [
                self.wirelens, "probe", url, "--repeat", str(n), "--concurrency", "16",
                "--max-host-connections", "16", "--format", "text",
                "--report", os.path.join(self.raw, f"probe-r{rnd}.txt"), "--quiet"]
        if self.have["curl"]:
            cmds["curl"] = lambda rnd: [
                "curl", "-sS", "--parallel", "--parallel-max", "16", "-K", cfg]
            # curl writing a JSON record of every transfer (its -w '%{json}'), the like of Wirelens' JSON report.
            cmds["curl-json"] = lambda rnd: [
                "curl", "-sS", "--parallel", "--parallel-max", "16", "-w", "%{json}\n", "-K", cfg]
        if self.have["h2load"]:
            cmds["h2load"] = lambda rnd: ["h2load", "--h1", "-n", str(n), "-c", "16", url]
        if getattr(self, "floor", None):
            cmds["libcurl-floor"] = lambda rnd: [self.floor, url, str(n), "16"]
            # The same loop with the libcurl options Wirelens sets (verbose text, callbacks, header list).
            cmds["libcurl-floor-instrumented"] = lambda rnd: [self.floor, url, str(n), "16", "instrumented"]
        return cmds

    @staticmethod
    def parse_h2load(text):
        out = {}
        m = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", text)
        if m:
            secs = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
            out["h2load_elapsed_s"] = secs
            out["h2load_rps"] = float(m.group(3))
        m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                      r"(\d+) failed, (\d+) errored, (\d+) timeout", text)
        if m:
            out["succeeded"] = int(m.group(4))
            out["failed"] = int(m.group(5)) + int(m.group(6)) + int(m.group(7))
        m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
        if m:
            out["status_2xx"] = int(m.group(1))
        return out

    def facts_pair_commands(self):
        """The text-summary probe with kernel facts (the default) and without (--tcp-sample off): the pairs whose
        rate ratio is what reading TCP_INFO costs on the GET path."""
        url = f"{self.base}/small.txt"
        n = self.requests

        def probe(name, extra):
            return lambda tag: [
                self.wirelens, "probe", url, "--repeat", str(n), "--concurrency", "16",
                "--max-host-connections", "16", "--format", "text", *extra,
                "--report", os.path.join(self.raw, f"probe-{name}-{tag}.txt"), "--quiet"]
        return {"wirelens-summary-kernel": probe("kernel", []),
                "wirelens-summary-nokernel": probe("nokernel", ["--tcp-sample", "off"])}

    def warm_up(self, argv, name):
        """One unmeasured run so the first measured tool does not pay for cold caches."""
        so = os.path.join(self.raw, f"warmup-{name}.out")
        se = os.path.join(self.raw, f"warmup-{name}.err")
        r = measure(argv, so, se, self.timeout, self.launcher)
        log(f"warm-up {name}: {r['wall_s']:.2f} s, exit {r['exit']}")

    def run_gets(self):
        cmds = self.get_commands()
        runs = {tool: [] for tool in cmds}
        if "curl" in cmds:
            self.warm_up(cmds["curl"](0), "get-curl")
        for rnd in range(1, self.rounds + 1):
            for tool, make in cmds.items():
                argv = make(rnd)
                so = os.path.join(self.raw, f"get-{tool}-r{rnd}.out")
                se = os.path.join(self.raw, f"get-{tool}-r{rnd}.err")
                r = measure(argv, so, se, self.timeout, self.launcher)
                r.update({"round": rnd, "argv": argv, "requests": self.requests})
                r["rps"] = self.requests / r["wall_s"] if r["wall_s"] > 0 else None
                r["ok"] = r["exit"] == 0 and not r["timed_out"]
                if tool == "h2load":
                    with open(so, errors="replace") as f:
                        r.update(self.parse_h2load(f.read()))
                    if r.get("succeeded") != self.requests:
                        r["ok"] = False
                runs[tool].append(r)
                self.say_run("GET", tool, rnd, r,
                             f"{r['rps']:.0f} req/s" if r["rps"] else "-")
            if self.have["wirelens"]:
                self.run_facts_pairs(rnd, runs)
        return runs

    def run_facts_pairs(self, rnd, runs):
        """The round's pairs of kernel facts on and off, back to back, the order alternating from pair to pair (and
        the first pair's from round to round), so that neither side always runs first or after the same tool."""
        cmds = self.facts_pair_commands()
        on, off = list(cmds)
        for slot in range(self.facts_pairs):
            pair = f"{rnd}.{slot + 1}"
            order = (on, off) if (rnd + slot) % 2 == 1 else (off, on)
            for tool in order:
                argv = cmds[tool](f"r{pair}")
                so = os.path.join(self.raw, f"get-{tool}-r{pair}.out")
                se = os.path.join(self.raw, f"get-{tool}-r{pair}.err")
                r = measure(argv, so, se, self.timeout, self.launcher)
                r.update({"round": rnd, "pair": pair, "first": tool == order[0], "argv": argv,
                          "requests": self.requests})
                r["rps"] = self.requests / r["wall_s"] if r["wall_s"] > 0 else None
                r["ok"] = r["exit"] == 0 and not r["timed_out"]
                runs.setdefault(tool, []).append(r)
                self.say_run("GET", tool, rnd, r, f"{r['rps']:.0f} req/s (pair {pair})" if r["rps"] else "-")

    # -- (b) upload -----------------------------------------------------------
    def make_upload_file(self):
        path = os.path.join(self.tmp, "upload.bin")
        chunk = 4 * MIB
        left = self.upload_bytes
        with open(path, "wb") as f:
            while left > 0:
                k = min(chunk, left)
                f.write(os.urandom(k))
                left -= k
        return path

    def run_uploads(self):
        src = self.make_upload_file()
        url = f"{self.base}/upload/bench.bin"
        dest = os.path.join(self.nginx_dir, "www", "upload", "bench.bin")
        cmds = {}
        if self.have["wirelens"]:
            # At --detail full, so that the report lists the kernel samples the table counts.
            cmds["wirelens"] = lambda rnd: [
                self.wirelens, "probe", url, "-X", "PUT", "--upload", src, "--format", "json", "--detail", "full",
                "--report", os.path.join(self.raw, f"upload-r{rnd}.json"), "--quiet"]
            # The same PUT with the kernel's facts read at its start and end only (--tcp-sample 0), right after it in
            # every round: the ratio of their CPU times is what the samples every 100 ms cost.
            cmds["wirelens-nosample"] = lambda rnd: [
                self.wirelens, "probe", url, "-X", "PUT", "--upload", src, "--format", "json", "--detail", "full",
                "--tcp-sample", "0", "--report", os.path.join(self.raw, f"upload-nosample-r{rnd}.json"), "--quiet"]
        if self.have["curl"]:
            cmds["curl"] = lambda rnd: ["curl", "-sS", "-T", src, url, "-o", "/dev/null"]
        runs = {tool: [] for tool in cmds}

        def fresh_start():
            # Same starting state for every run: no old file for nginx to replace,
            # and no dirty pages of the previous run left to write back.
            if os.path.exists(dest):
                os.remove(dest)
            os.sync()
        try:
            if "curl" in cmds:
                fresh_start()
                self.warm_up(cmds["curl"](0), "upload-curl")
            for rnd in range(1, self.rounds + 1):
                for tool, make in cmds.items():
                    fresh_start()
                    argv = make(rnd)
                    so = os.path.join(self.raw, f"upload-{tool}-r{rnd}.out")
                    se = os.path.join(self.raw, f"upload-{tool}-r{rnd}.err")
                    r = measure(argv, so, se, self.timeout, self.launcher)
                    r.update({"round": rnd, "argv": argv, "bytes": self.upload_bytes})
                    r["mb_per_s"] = self.upload_bytes / r["wall_s"] / 1e6 if r["wall_s"] > 0 else None
                    stored = os.path.getsize(dest) if os.path.exists(dest) else None
                    r["stored_bytes"] = stored
                    r["ok"] = r["exit"] == 0 and not r["timed_out"] and stored == self.upload_bytes
                    if tool.startswith("wirelens"):
                        r["tcp_samples"] = self.samples_in(argv[argv.index("--report") + 1])
                    runs[tool].append(r)
                    self.say_run("PUT", tool, rnd, r,
                                 f"{r['mb_per_s']:.0f} MB/s" if r["mb_per_s"] else "-")
            if self.have["wirelens"]:
                self.sampling = self.sampling_share(src, url)
                if self.sampling:
                    log(f"callgrind: the samples take {self.sampling['share'] * 100:.3f}% of the PUT's instructions "
                        f"({self.sampling['samples']} samples)")
        finally:
            os.remove(src)
            if os.path.exists(dest):
                os.remove(dest)
        return runs

    def sampling_share(self, src, url):
        """The share of a wirelens PUT's user-space instructions spent taking its kernel samples every 100 ms:
        callgrind's inclusive count of the engine's sampling pass (EngineLoop.sampleConnections: the look at every
        transfer in flight and the getsockopt(TCP_INFO) of each sample, its decoding and keeping) over the run's
        total. None (with a note) without valgrind. Under callgrind the upload runs slower, so it takes more samples
        than it would: the share is an upper bound for the same file."""
        if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
            self.notes.append("valgrind not found (make deps installs it): the samples' instruction share was not measured")
            return None
        # valgrind cannot read the debug info of the Swift release binary: a copy without it is measured.
        binary = os.path.join(self.tmp, "wirelens-nodebug")
        try:
            shutil.copy(self.wirelens, binary)
            subprocess.run(["strip", "--strip-debug", binary], check=True, capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            self.notes.append(f"could not make a copy of wirelens without debug info for callgrind: {e}")
            return None
        out = os.path.join(self.raw, "upload-callgrind.out")
        report = os.path.join(self.raw, "upload-callgrind.json")
        dest = os.path.join(self.nginx_dir, "www", "upload", "callgrind.bin")
        try:
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "probe",
                            url.replace("bench.bin", "callgrind.bin"), "-X", "PUT", "--upload", src, "--format",
                            "json", "--detail", "full", "--report", report, "--quiet"],
                           capture_output=True, timeout=self.timeout, check=True)
            text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                                  capture_output=True, text=True, timeout=120, check=True).stdout
        except (OSError, subprocess.SubprocessError) as e:
            self.notes.append(f"callgrind run of the upload failed: {e}")
            return None
        finally:
            if os.path.exists(dest):
                os.remove(dest)
        total = sampling = None
        for line in text.splitlines():
            m = re.match(r"\s*([\d,]+) \(", line)
            if not m:
                continue
            n = int(m.group(1).replace(",", ""))
            if "PROGRAM TOTALS" in line:
                total = n
            elif "sampleConnections" in line:
                sampling = max(sampling or 0, n)
        if not total or sampling is None:
            return None
        return {"share": sampling / total, "sampling_instructions": sampling, "total_instructions": total,
                "samples": self.samples_in(report)}

    @staticmethod
    def samples_in(report):
        """The kernel samples the report's transactions carry (None when it cannot be read, or the report was
        written at --detail standard, which leaves them out)."""
        try:
            with open(report) as f:
                doc = json.load(f)
            if doc.get("detail") == "standard":
                return None
            return sum(len((tx.get("tcp") or {}).get("samples") or [])
                       for t in doc.get("tasks", []) for tx in t.get("transactions", []))
        except (OSError, ValueError):
            return None

    def say_run(self, kind, tool, rnd, r, figure):
        state = "ok" if r["ok"] else ("TIMEOUT" if r["timed_out"] else f"FAILED exit {r['exit']}")
        log(f"{kind} {tool:8s} round {rnd}: {figure}, {r['wall_s']:.2f} s, "
            f"peak RSS {r['peak_rss_mib']:.1f} MiB, {state}")

    # -- results --------------------------------------------------------------
    def summarise(self, gets, uploads):
        med = {"get": {}, "upload": {}}
        for tool, runs in gets.items():
            med["get"][tool] = {
                "rps": median_of(runs, "rps"),
                "peak_rss_mib": median_of(runs, "peak_rss_mib"),
                "ok_runs": sum(1 for r in runs if r["ok"]),
                "runs": len(runs),
            }
            if tool == "h2load":
                med["get"][tool]["h2load_rps"] = median_of(runs, "h2load_rps")
        for tool, runs in uploads.items():
            med["upload"][tool] = {
                "mb_per_s": median_of(runs, "mb_per_s"),
                "peak_rss_mib": median_of(runs, "peak_rss_mib"),
                "max_peak_rss_mib": max((r["peak_rss_mib"] for r in runs if r["ok"]), default=None),
                "cpu_s": median_of(runs, "cpu_s"),
                "tcp_samples": median_of(runs, "tcp_samples"),
                "ok_runs": sum(1 for r in runs if r["ok"]),
                "runs": len(runs),
            }
        g = lambda t, k: med["get"].get(t, {}).get(k)          # noqa: E731
        u = lambda t, k: med["upload"].get(t, {}).get(k)       # noqa: E731
        ratios = {
            "rps_wirelens_vs_curl": ratio(g("wirelens", "rps"), g("curl", "rps")),
            "rps_wirelens_vs_curl_json": ratio(g("wirelens", "rps"), g("curl-json", "rps")),
            "rps_wirelens_vs_h2load": ratio(g("wirelens", "rps"), g("h2load", "rps")),
            "rps_wirelens_summary_vs_curl": ratio(g("wirelens-summary", "rps"), g("curl", "rps")),
            "rps_wirelens_summary_vs_h2load": ratio(g("wirelens-summary", "rps"), g("h2load", "rps")),
            "rps_wirelens_summary_vs_libcurl_floor": ratio(g("wirelens-summary", "rps"), g("libcurl-floor", "rps")),
            "rps_libcurl_floor_vs_h2load": ratio(g("libcurl-floor", "rps"), g("h2load", "rps")),
            "rps_instrumented_floor_vs_libcurl_floor": ratio(g("libcurl-floor-instrumented", "rps"),
                                                             g("libcurl-floor", "rps")),
            "rps_wirelens_summary_vs_instrumented_floor": ratio(g("wirelens-summary", "rps"),
                                                                g("libcurl-floor-instrumented", "rps")),
            "upload_wirelens_vs_curl": ratio(u("wirelens", "mb_per_s"), u("curl", "mb_per_s")),
            "rps_kernel_facts_on_vs_off": paired_ratio(gets.get("wirelens-summary-kernel", []),
                                                       gets.get("wirelens-summary-nokernel", []), "rps"),
            "upload_cpu_sampling_vs_start_end": paired_ratio(uploads.get("wirelens", []),
                                                             uploads.get("wirelens-nosample", []), "cpu_s"),
            "upload_sampling_instruction_share": (self.sampling or {}).get("share"),
            "cpu_kernel_facts_on_vs_off": paired_ratio(gets.get("wirelens-summary-kernel", []),
                                                       gets.get("wirelens-summary-nokernel", []), "cpu_s"),
        }
        # The spread of the per-pair rate ratios, and how the order within a pair moved them.
        on_runs = gets.get("wirelens-summary-kernel", [])
        off_runs = gets.get("wirelens-summary-nokernel", [])
        each = pair_ratios(on_runs, off_runs, "rps")
        firsts = {r["pair"] for r in on_runs if r.get("first")}
        on_first = pair_ratios([r for r in on_runs if r.get("pair") in firsts], off_runs, "rps")
        off_first = pair_ratios([r for r in on_runs if r.get("pair") not in firsts], off_runs, "rps")
        q = statistics.quantiles(each, n=4) if len(each) >= 2 else None
        ratios["kernel_facts_pairs"] = {
            "rps_ratios": each, "pairs": len(each), "quartiles": q,
            "median_on_first": statistics.median(on_first) if on_first else None,
            "median_off_first": statistics.median(off_first) if off_first else None,
        }
        rss = u("wirelens", "max_peak_rss_mib")

        def verdict(value, ok):
            return None if value is None else bool(ok)
        targets = [
            {"name": f"JSON report: requests/s >= {TARGET_JSON_VS_CURL_JSON}x curl --parallel -w '%{{json}}'",
             "value": ratios["rps_wirelens_vs_curl_json"],
             "met": verdict(ratios["rps_wirelens_vs_curl_json"],
                            (ratios["rps_wirelens_vs_curl_json"] or 0) >= TARGET_JSON_VS_CURL_JSON)},
            {"name": f"JSON report: requests/s >= {TARGET_JSON_VS_CURL}x curl --parallel",
             "value": ratios["rps_wirelens_vs_curl"],
             "met": verdict(ratios["rps_wirelens_vs_curl"],
                            (ratios["rps_wirelens_vs_curl"] or 0) >= TARGET_JSON_VS_CURL)},
            {"name": f"text summary: requests/s >= {TARGET_TEXT_VS_H2LOAD}x h2load --h1",
             "value": ratios["rps_wirelens_summary_vs_h2load"],
             "met": verdict(ratios["rps_wirelens_summary_vs_h2load"],
                            (ratios["rps_wirelens_summary_vs_h2load"] or 0) >= TARGET_TEXT_VS_H2LOAD)},
            {"name": "requests/s with kernel facts >= 0.97x without (--tcp-sample off; median of per-pair ratios, "
                     "order alternating)",
             "value": ratios["rps_kernel_facts_on_vs_off"],
             "met": verdict(ratios["rps_kernel_facts_on_vs_off"],
                            (ratios["rps_kernel_facts_on_vs_off"] or 0) >= TARGET_KERNEL_FACTS_COST)},
            {"name": "upload CPU time with samples every 100 ms <= 1.01x with start and end only (--tcp-sample 0; "
                     "median of per-round ratios)",
             "value": ratios["upload_cpu_sampling_vs_start_end"],
             "met": verdict(ratios["upload_cpu_sampling_vs_start_end"],
                            (ratios["upload_cpu_sampling_vs_start_end"] or 9) <= TARGET_UPLOAD_SAMPLING_CPU)},
            {"name": "upload: the samples' share of its user-space instructions < 1% (callgrind, one run)",
             "value": ratios["upload_sampling_instruction_share"],
             "met": verdict(ratios["upload_sampling_instruction_share"],
                            (ratios["upload_sampling_instruction_share"] if ratios["upload_sampling_instruction_share"]
                             is not None else 1) < TARGET_UPLOAD_SAMPLING_CPU - 1)},
            {"name": "upload MB/s >= 0.9x curl -T",
             "value": ratios["upload_wirelens_vs_curl"],
             "met": verdict(ratios["upload_wirelens_vs_curl"],
                            (ratios["upload_wirelens_vs_curl"] or 0) >= TARGET_UPLOAD_VS_CURL)},
            {"name": "upload peak RSS of wirelens < 64 MiB (worst run)",
             "value": rss,
             "met": verdict(rss, (rss if rss is not None else 1e9) < TARGET_UPLOAD_RSS_MIB)},
        ]
        return med, ratios, targets

    def write_markdown(self, path, meta, med, ratios, targets):
        def f(v, fmt="{:.0f}"):
            return "n/a" if v is None else fmt.format(v)

        def verdict(t):
            return "not measured" if t["met"] is None else ("met" if t["met"] else "not met")
        L = []
        L.append("# Wirelens benchmark results" + (" (quick smoke run)" if self.quick else ""))
        L.append("")
        L.append(f"Date: {meta['date']}  ")
        m = meta["machine"]
        L.append(f"Machine: {m['nproc']} CPUs ({m['cpu'] or 'unknown CPU'}), "
                 f"{f(m['mem_mib'])} MiB RAM, Linux {m['kernel']}  ")
        L.append(f"Server: {meta['versions']['nginx']}, 1 worker, loopback (127.0.0.1)  ")
        L.append(f"Method: {self.rounds} rounds, tools interleaved within each round; "
                 "medians shown. Rate from each process's wall time (start to exit); "
                 "peak RSS is the process's ru_maxrss (wait4), taken by a small C launcher so "
                 "the Python driver's own memory is not counted. One unmeasured curl run warms "
                 "up each part; before every upload the previous file is deleted and the "
                 "page cache synced (outside the timing).")
        L.append("")
        L.append("Tools:")
        for k in ("wirelens", "curl", "h2load"):
            L.append(f"- {k}: `{meta['versions'][k]}`")
        L.append("")
        L.append(f"## (a) {self.requests} GETs of /small.txt (14 bytes), HTTP/1.1, 16 in parallel")
        L.append("")
        L.append("| tool | command | requests/s (median) | peak RSS MiB (median) | ok runs |")
        L.append("|---|---|---:|---:|---:|")
        desc = {
            "wirelens": "`wirelens probe URL --repeat N --concurrency 16 --max-host-connections 16 --format json --report F`",
            "wirelens-summary": "the same with `--format text` (summary only, no per-transaction JSON)",
            "wirelens-summary-kernel": "wirelens-summary again, in the kernel-facts pairs (with each run below)",
            "wirelens-summary-nokernel": "the same with `--tcp-sample off` (no TCP_INFO read: the cost of the kernel's "
                                         "facts), paired with the one above, the order alternating",
            "curl": "`curl --parallel --parallel-max 16 -K urls.cfg`",
            "curl-json": "the same with `-w '%{json}\\n'` (a JSON record of every transfer, to a file)",
            "h2load": "`h2load --h1 -n N -c 16 URL`",
            "libcurl-floor": "scripts/libcurl-floor.c: libcurl's multi loop alone (no timing, no verbose, no report)",
            "libcurl-floor-instrumented": "the same loop with the libcurl options Wirelens sets (verbose text to a "
                                          "debug callback, header and prerequest callbacks, error buffer, header list)",
        }
        for tool in ("wirelens", "wirelens-summary", "wirelens-summary-kernel", "wirelens-summary-nokernel", "curl",
                     "curl-json", "h2load", "libcurl-floor", "libcurl-floor-instrumented"):
            d = med["get"].get(tool)
            if d is None:
                L.append(f"| {tool} | {desc[tool]} | not run | not run | 0/0 |")
                continue
            extra = ""
            if tool == "h2load" and d.get("h2load_rps") is not None:
                extra = f" (h2load's own: {f(d['h2load_rps'])})"
            L.append(f"| {tool} | {desc[tool]} | {f(d['rps'])}{extra} | "
                     f"{f(d['peak_rss_mib'], '{:.1f}')} | {d['ok_runs']}/{d['runs']} |")
        L.append("")
        size = self.upload_bytes
        size_txt = f"{size // (1024 * MIB)} GiB" if size >= 1024 * MIB else f"{size // MIB} MiB"
        L.append(f"## (b) PUT of a {size_txt} file to nginx (WebDAV), HTTP/1.1")
        L.append("")
        L.append("| tool | command | MB/s (median, 10^6 B/s) | CPU s (median) | kernel samples | peak RSS MiB (median) | ok runs |")
        L.append("|---|---|---:|---:|---:|---:|---:|")
        udesc = {
            "wirelens": "`wirelens probe URL -X PUT --upload FILE --detail full`",
            "wirelens-nosample": "the same with `--tcp-sample 0` (TCP_INFO at the start and end only)",
            "curl": "`curl -sS -T FILE URL -o /dev/null`",
        }
        for tool in ("wirelens", "wirelens-nosample", "curl"):
            d = med["upload"].get(tool)
            if d is None:
                L.append(f"| {tool} | {udesc[tool]} | not run | not run | | not run | 0/0 |")
                continue
            L.append(f"| {tool} | {udesc[tool]} | {f(d['mb_per_s'])} | {f(d.get('cpu_s'), '{:.3f}')} | "
                     f"{f(d.get('tcp_samples'))} | {f(d['peak_rss_mib'], '{:.1f}')} | {d['ok_runs']}/{d['runs']} |")
        L.append("")
        L.append("## Ratios and targets")
        L.append("")
        L.append("| target | measured | verdict |")
        L.append("|---|---:|---|")
        for t in targets:
            unit = " MiB" if "RSS" in t["name"] else ("" if "share" in t["name"] else "x")
            shown = f(t['value'] * 100, '{:.3f}') + "%" if "share" in t["name"] and t["value"] is not None \
                else f(t['value'], '{:.2f}') + (unit if t['value'] is not None else '')
            L.append(f"| {t['name']} | {shown} "
                     f"| {verdict(t)} |")
        L.append("")
        if meta["notes"]:
            L.append("Notes:")
            for n in meta["notes"]:
                L.append(f"- {n}")
            L.append("")
        L.append("")
        L.append("Context (not targets): wirelens (text summary) reaches "
                 f"{f(ratios.get('rps_wirelens_summary_vs_libcurl_floor'), '{:.2f}')}x of the libcurl floor, and the "
                 f"libcurl floor itself reaches {f(ratios.get('rps_libcurl_floor_vs_h2load'), '{:.2f}')}x of h2load: "
                 "the distance between Wirelens and the floor is Wirelens' own per-transfer work (timing callbacks, verbose parsing, records, report). "
                 "Of that distance, the libcurl options Wirelens needs (verbose text for connection numbers and TLS facts, "
                 "the callbacks, the header list) leave libcurl alone at "
                 f"{f(ratios.get('rps_instrumented_floor_vs_libcurl_floor'), '{:.2f}')}x of the bare floor; Wirelens reaches "
                 f"{f(ratios.get('rps_wirelens_summary_vs_instrumented_floor'), '{:.2f}')}x of that instrumented floor.")
        L.append("")
        kp = ratios.get("kernel_facts_pairs") or {}
        quart = kp.get("quartiles")
        L.append(f"The kernel's facts on the GET path: {kp.get('pairs', 0)} pairs ({self.facts_pairs} per round, "
                 "after the tools), each the text-summary probe with kernel facts and with `--tcp-sample off` back to "
                 "back, the order alternating from pair to pair; the target is the median of the per-pair rate "
                 "ratios (quartiles "
                 f"{'n/a' if not quart else f'{quart[0]:.3f} / {quart[2]:.3f}'}; median "
                 f"{f(kp.get('median_on_first'), '{:.3f}')} in the pairs that ran with facts first, "
                 f"{f(kp.get('median_off_first'), '{:.3f}')} in those that ran without first). Wall time moves by "
                 "tens of percent between runs on this shared machine; the same pairs' CPU time (user + system of "
                 "the process) moves less: with kernel facts it is "
                 f"{f(ratios.get('cpu_kernel_facts_on_vs_off'), '{:.3f}')}x the CPU time without (median of per-pair "
                 "ratios), i.e. the facts cost that share of Wirelens' own CPU per GET (one getsockopt(TCP_INFO) per "
                 "keep-alive transfer, its decoding, the facts and the diagnosis).")
        L.append("")
        if self.sampling:
            L.append(f"The kernel's samples of an upload: one callgrind run of the wirelens PUT took "
                     f"{self.sampling['samples']} samples (more than a run at full speed: callgrind slows it), and "
                     f"the engine's sampling pass (the look at each transfer in flight every pass, and each sample's "
                     f"getsockopt, decoding and keeping) took {self.sampling['sampling_instructions']:,} of its "
                     f"{self.sampling['total_instructions']:,} user-space instructions "
                     f"({self.sampling['share'] * 100:.3f}%). The kernel's side of a sample is one getsockopt "
                     "(about 0.5 µs here), a few µs per upload against its tenths of a second of CPU. The paired CPU "
                     "time ratio (`--tcp-sample 0` as the base) is the direct figure, but a 1 GiB PUT's CPU time "
                     "moves by ±20% between runs on this shared machine, far more than the cost it measures.")
            L.append("")
        L.append("Raw figures: `bench.json`; per-run output under `reports/bench/raw/` (not committed).")
        with open(path, "w") as fh:
            fh.write("\n".join(L) + "\n")

    def run(self):
        self.check_tools()
        os.makedirs(self.out, exist_ok=True)
        if os.path.isdir(self.raw):
            shutil.rmtree(self.raw)
        os.makedirs(self.raw, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="wirelens-bench.")
        started = datetime.datetime.now(datetime.timezone.utc)
        try:
            self.launcher = build_launcher(self.tmp)
            self.floor = build_floor(self.tmp)
            if self.launcher is None:
                msg = ("no C compiler for the RSS launcher: peak RSS figures include "
                       "this Python's own (~15 MiB too high)")
                log(msg)
                self.notes.append(msg)
            self.start_nginx()
            versions = self.versions()
            log(f"nginx on {self.base}; {self.requests} GETs x {self.rounds} rounds, "
                f"upload {self.upload_bytes // MIB} MiB x {self.rounds} rounds")
            gets = self.run_gets() if "get" in self.parts else {}
            uploads = self.run_uploads() if "upload" in self.parts else {}
        finally:
            self.stop_nginx()
            shutil.rmtree(self.tmp, ignore_errors=True)
        med, ratios, targets = self.summarise(gets, uploads)
        meta = {
            "date": started.isoformat(timespec="seconds"),
            "duration_s": round((datetime.datetime.now(datetime.timezone.utc) - started)
                                .total_seconds(), 1),
            "quick": self.quick,
            "machine": self.machine(),
            "versions": versions,
            "notes": self.notes,
            "config": {"requests": self.requests, "concurrency": 16,
                       "upload_bytes": self.upload_bytes, "rounds": self.rounds,
                       "timeout_s": self.timeout, "wirelens": self.wirelens},
        }
        doc = dict(meta)
        doc.update({"get_runs": gets, "upload_runs": uploads, "upload_sampling_callgrind": self.sampling, "medians": med,
                    "ratios": ratios, "targets": targets})
        jpath = os.path.join(self.out, "bench.json")
        with open(jpath, "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        mpath = os.path.join(self.out, "RESULTS.md")
        self.write_markdown(mpath, meta, med, ratios, targets)
        log(f"wrote {os.path.relpath(jpath, ROOT)} and {os.path.relpath(mpath, ROOT)}")
        failed = [f"{kind} {tool} round {r['round']}"
                  for kind, group in (("GET", gets), ("PUT", uploads))
                  for tool, runs in group.items() for r in runs if not r["ok"]]
        if failed:
            log("failed runs: " + ", ".join(failed))
            return 1
        return 0


def launcher_and_nginx(tmp, nginx_dir, name):
    """The RSS launcher compiled in TMP and a loopback nginx started in NGINX_DIR (scripts/nginx-up.sh): returns
    (launcher, the nginx's ports by name); a benchmark NAME that cannot have both ends with its reason."""
    launcher = build_launcher(tmp)
    if not launcher:
        raise SystemExit(f"{name}: no C compiler for the RSS launcher (peak RSS would include Python's)")
    r = subprocess.run(["bash", NGINX_UP, nginx_dir], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit(f"{name}: nginx-up failed:\n{r.stderr}")
    return launcher, dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


def single_run_main(doc, files, quick_help, timeout, more_arguments, job):
    """The main of a benchmark of one binary: its options (--quick, --wirelens, --out where FILES go, --timeout
    in seconds per run, TIMEOUT by default, --rounds accepted for make's BENCH_ARGS and not used, and those
    MORE_ARGUMENTS(parser) adds), then JOB(args).run() under run_cleanly; returns the exit code."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=quick_help + " (reports/bench/raw/quick)")
    parser.add_argument("--wirelens", help="the wirelens binary (default .build/release/wirelens)")
    parser.add_argument("--out", help=f"where {files} go")
    parser.add_argument("--timeout", type=float, default=timeout, help="seconds per run before it is killed")
    parser.add_argument("--rounds", type=int, help="accepted for make's BENCH_ARGS, not used")
    more_arguments(parser)
    args = parser.parse_args()
    return run_cleanly(lambda: job(args).run())


def write_lines(path, lines):
    """Writes LINES to PATH, one a line."""
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def run_cleanly(job):
    """Run job() with SIGTERM/SIGHUP turned into a normal exit, so its finally-blocks stop the servers;
    Ctrl-C ends it with 130."""
    def on_signal(signum, frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        return job()
    except KeyboardInterrupt:
        log("interrupted")
        return 130


def main():
    ap = argparse.ArgumentParser(description="Wirelens vs curl vs h2load on a local nginx.")
    ap.add_argument("--quick", action="store_true",
                    help="2000 requests and a 64 MiB upload (smoke test)")
    ap.add_argument("--wirelens", help="wirelens binary (default .build/release/wirelens)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--facts-pairs", type=int, default=8,
                    help="pairs of GET runs with and without kernel facts per round (default 8)")
    ap.add_argument("--parts", default="get,upload",
                    help="which parts to run: get, upload or both (default get,upload); with one part, write to "
                         "--out (the results of the other are not measured)")
    ap.add_argument("--requests", type=int, help="override the number of GETs")
    ap.add_argument("--upload-mib", type=int, help="override the upload size in MiB")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="per-command timeout in seconds (default 300)")
    ap.add_argument("--out", help="where bench.json and RESULTS.md go "
                    "(default reports/bench, or reports/bench/raw/quick with --quick)")
    args = ap.parse_args()
    if args.rounds < 1 or args.rounds > 20:
        ap.error("--rounds must be 1..20")

    return run_cleanly(lambda: Bench(args).run())


if __name__ == "__main__":
    sys.exit(main())
