#!/usr/bin/env python3
"""Diff the outputs of two wirelens binaries on a fixed set of runs ("behaviour unchanged" after a redesign).

  python3 scripts/output-diff.py --base OLD_BINARY --new NEW_BINARY [--out DIR]

Both binaries run the same fixed set, against the same servers, one after the other:
  probe    HTTP/1.1 GETs to nginx (2 connections), HTTP/2 over TLS to nginx (one connection), a PUT with a
           body; each as json and text live, and its json rendered as json, text, har and html
  upload   a 3 MiB file in 512 KiB segments, 3 at a time, to the built-in target (started from --base)
  compare  connection limits 1 and 2 over 8 GETs to nginx, json and text live, and rendered as json, text, html
  capture  `capture analyze` of the stored capture Tests/Fixtures/outputs/probe.pcap, json, text and html
and `render` turns each binary's probe JSON into text, har, html and json with each binary. A document of a
schema version the base binary does not read (the base refuses it) is rendered by the new binary alone and listed
as such: the change of version is the difference, documented with the schema.

Two kinds of check:
  exact    the same input gives the same bytes: `render` of one stored report, `capture analyze` of one
           stored capture (lines naming the analysis' own wall time are the only thing masked)
  masked   live runs differ in timestamps, durations, ports and the kernel's figures: JSON is compared
           with every number and every time/address-like string masked, keys and order kept; text, HAR and
           HTML with digit runs, units, bars and wrapping masked. What a live run decides for itself (the
           verdict on loopback, and its sentence) is masked too: VOLATILE_KEYS, VOLATILE_SUBTREES and the
           verdict lines of the text. HAR and HTML lanes follow live timing: they are checked through `render`.

Exit 0 when every check matches, 1 when one differs (a unified diff of the first lines of each difference
is printed; both sides are kept under DIR), 2 when a run could not be made. Traffic stays on 127.0.0.1.
"""

import argparse
import difflib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "Tests", "Fixtures", "outputs", "probe.pcap")
FORMATS = ["json", "text", "har", "html"]
# Keys whose string values a live run decides by itself (loopback timing), masked in the masked checks.
VOLATILE_KEYS = {"verdict", "kind", "leadingVerdict", "regime", "sentence", "why", "bottleneck", "evidence",
                 "reason", "date", "startedDateTime", "started", "generated", "host", "connection",
                 "serverIPAddress", "localAddress", "remoteAddress", "recommendation"}
# Keys whose whole value follows from the verdict a live run reached (the evidence differs by verdict).
VOLATILE_SUBTREES = {"explanation", "evidence", "basis", "verdicts", "example", "comment", "_diagnosis"}
TIME_LIKE = re.compile(r"^\d{4}-\d{2}-\d{2}T|^\[?[0-9a-f:.]+\]?:\d+$|^\d+(\.\d+)?\s*(ms|s|µs|us|MB/s|KB/s)$")


def fail(message):
    print(f"output-diff: {message}", file=sys.stderr)
    sys.exit(2)


def run(argv, timeout=120, check=True):
    proc = subprocess.run(argv, capture_output=True, timeout=timeout)
    if check and proc.returncode not in (0,):
        fail(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace').strip()[:400]}")
    return proc


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mask_json(value, key=None):
    """Masks numbers and time- or address-like strings; keeps keys, order, nesting and other strings."""
    if key in VOLATILE_SUBTREES:
        return "~"
    if isinstance(value, dict):
        return {k: mask_json(v, k) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(v, dict) and set(v) == {"task", "transaction"} for v in value):
            return "~"  # a connection's transactions: which connection a parallel run's task took is timing
        return [mask_json(v, key) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return "#"
    if isinstance(value, str):
        if key in VOLATILE_KEYS or TIME_LIKE.match(value):
            return "~"
        return re.sub(r"\d+([.,]\d+)*\s*(µs|ms|s|B/s|KB/s|MB/s|B|KiB|MiB|KB|MB)?", "#", value)
    return value


VERDICT_NAMES = ("server-think", "round-trips", "unknown", "network", "server-window", "send-buffer", "client",
                 "receive-window", "bandwidth", "handshakes", "client-window", "server-send")


def mask_text(data):
    """Live text: numbers with their units, bars and line wrapping masked; verdict lines and their sentences
    (what a live run decides by itself on loopback) left out."""
    text = data.decode("utf-8", errors="replace")
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    kept = []
    dropping = False
    for line in text.splitlines():
        words = line.split()
        first = words[0] if words else ""
        if first == "•":
            # A compare's recommendation: its regime and sentence follow the loopback timing; dropped to the
            # paragraph's end.
            dropping = "paragraph"
            continue
        if dropping == "paragraph" and line.strip():
            continue
        if first in ("Verdicts", "Why", "Verdict") or any(name in line for name in VERDICT_NAMES):
            dropping = True
            continue
        # The sentence's wrapped lines: lower-case words, or its closing "(the body came at …)." aside.
        if dropping is True and line[:1].isspace() and (first[:1].islower() or first[:1] == "("):
            continue
        dropping = False
        kept.append(line)
    text = " ".join(kept)
    text = re.sub(r"[█▏▎▍▌▋▊▉│]+", " ", text)
    text = re.sub(r"\d+([.,]\d+)*\s*(µs|ms|s|B/s|KB/s|MB/s|GB/s|B|KiB|MiB|GiB|KB|MB|GB)?(?![A-Za-z])", "#", text)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"(#\s*)+", "# ", text)
    return text.replace(" ", "\n")


def mask_exact(data):
    """Exact comparison but for the analysis' own wall-clock time, which no two runs share."""
    text = data.decode("utf-8", errors="replace")
    return re.sub(r'("analysisSeconds"|"elapsedSeconds"|analysed in)[^,\n]*', r"\1 ~", text)


class Checker:
    def __init__(self, out):
        self.out = out
        self.failures = []
        self.checked = 0
        # Renders of a document the base binary refuses (a newer schema version): made by the new binary alone.
        self.unread = []

    def compare(self, name, base, new, kind):
        self.checked += 1
        if kind in ("exact",):
            a, b = mask_exact(base), mask_exact(new)
        elif kind in ("json", "har"):
            try:
                a = json.dumps(mask_json(json.loads(base)), indent=1)
                b = json.dumps(mask_json(json.loads(new)), indent=1)
            except json.JSONDecodeError as error:
                self.failures.append(name)
                print(f"DIFF {name}: not JSON ({error})")
                return
        else:
            a, b = mask_text(base), mask_text(new)
        path = os.path.join(self.out, name.replace("/", "_"))
        with open(path + ".base", "wb") as f:
            f.write(base)
        with open(path + ".new", "wb") as f:
            f.write(new)
        if a == b:
            print(f"same {name} ({kind})")
            return
        self.failures.append(name)
        print(f"DIFF {name} ({kind}): {path}.base vs .new")
        diff = difflib.unified_diff(a.splitlines(), b.splitlines(), "base", "new", lineterm="", n=1)
        for line in list(diff)[:30]:
            print("    " + line)


def start_nginx(directory):
    proc = run(["bash", os.path.join(ROOT, "scripts", "nginx-up.sh"), directory])
    facts = dict(line.split("=", 1) for line in proc.stdout.decode().split() if "=" in line)
    return facts


def start_target(binary, data_dir):
    port = free_port()
    proc = subprocess.Popen([binary, "target", "--listen", f"127.0.0.1:{port}", "--data-dir", data_dir],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    line = proc.stdout.readline().decode()
    if "listening on" not in line or time.monotonic() > deadline:
        proc.kill()
        fail(f"target did not start: {line!r}")
    return proc, port


def probe_runs(nginx):
    http = f"http://127.0.0.1:{nginx['HTTP_PORT']}"
    https = f"https://localhost:{nginx['HTTPS_PORT']}"
    common = ["--tcp-sample", "off", "-q"]
    return {
        "probe-h1": ["probe", f"{http}/small.txt", "--repeat", "6", "--concurrency", "2",
                     "--max-host-connections", "2", "--http1.1"] + common,
        "probe-h2": ["probe", f"{https}/small.txt", "--repeat", "6", "--concurrency", "1", "--http2",
                     "--cacert", nginx["CERT"]] + common,
        "probe-put": ["probe", f"{http}/upload/output-diff.bin", "-X", "PUT", "--upload-size", "256KiB",
                      "--http1.1"] + common,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="the wirelens binary before the change")
    parser.add_argument("--new", required=True, help="the wirelens binary after the change")
    parser.add_argument("--out", help="where both sides of every output are kept (default: a temporary directory)")
    args = parser.parse_args()
    for binary in (args.base, args.new):
        if not os.access(binary, os.X_OK):
            fail(f"{binary} is not an executable: build it first (swift build -c release --product wirelens)")
    if not os.path.exists(FIXTURE):
        fail(f"{FIXTURE} is missing: the stored capture is part of the repository")
    out = args.out or tempfile.mkdtemp(prefix="output-diff-")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="output-diff-work-")
    checker = Checker(out)
    nginx = start_nginx(os.path.join(work, "nginx"))
    target = None
    try:
        def renders(name, documents, formats):
            """Each binary renders each stored document: the renderers alone, byte for byte. The new binary's
            document in a version the base does not read is rendered by the new binary alone."""
            for side, data in zip(("base", "new"), documents):
                stored = os.path.join(work, f"{name}-{side}.json")
                with open(stored, "wb") as f:
                    f.write(data)
                for fmt in formats:
                    base = run([args.base, "render", stored, "--format", fmt, "--no-color"], check=side == "base")
                    new = run([args.new, "render", stored, "--format", fmt, "--no-color"]).stdout
                    if base.returncode != 0:
                        reason = base.stderr.decode(errors="replace").strip().splitlines()[-1][:200]
                        checker.unread.append(f"render-{name}-{side}.{fmt}")
                        print(f"new only render-{name}-{side}.{fmt}: the base does not read it ({reason})")
                        continue
                    checker.compare(f"render-{name}-{side}.{fmt}", base.stdout, new, "exact")

        # Live probe runs, every format, base then new; the JSON of each rendered again by both.
        for name, argv in probe_runs(nginx).items():
            documents = []
            for fmt in FORMATS:
                outputs = []
                for binary in (args.base, args.new):
                    # A PUT answers 201 for a new file only: each run starts without it.
                    stale = os.path.join(nginx["DIR"], "www", "upload", "output-diff.bin")
                    if os.path.exists(stale):
                        os.remove(stale)
                    outputs.append(run([binary] + argv + ["--format", fmt]).stdout)
                if fmt in ("json", "text"):
                    # HAR and HTML of a live run: through render below (their lanes follow live timing).
                    checker.compare(f"{name}.{fmt}", outputs[0], outputs[1], fmt)
                if fmt == "json":
                    documents = outputs
            renders(name, documents, FORMATS)
        # The kernel's facts and the verdicts they lead to differ from run to run on loopback: one run with
        # them, compared through its renderings only.
        kernel = probe_runs(nginx)["probe-h1"]
        kernel = [a if a != "off" else "0" for a in kernel]
        renders("probe-kernel", [run([binary] + kernel + ["--format", "json"]).stdout
                                 for binary in (args.base, args.new)], FORMATS)

        # A segmented upload to the built-in target.
        target, port = start_target(args.base, os.path.join(work, "target-data"))
        payload = os.path.join(work, "payload.bin")
        with open(payload, "wb") as f:
            f.write(bytes((i * 7 + 3) % 251 for i in range(3 * 1024 * 1024)))
        for fmt in ("json", "text"):
            outputs = []
            for index, binary in enumerate((args.base, args.new)):
                outputs.append(run([binary, "upload", payload, f"http://127.0.0.1:{port}/upload/od-{fmt}-{index}",
                                    "--segment-size", "512KiB", "--parallel", "3", "--tcp-sample", "off", "-q",
                                    "--format", fmt]).stdout)
            checker.compare(f"upload.{fmt}", outputs[0], outputs[1], fmt if fmt != "html" else "text")
            if fmt == "json":
                renders("upload", outputs, FORMATS)

        # A compare over nginx.
        for fmt in ("json", "text"):
            outputs = []
            for binary in (args.base, args.new):
                outputs.append(run([binary, "compare", f"http://127.0.0.1:{nginx['HTTP_PORT']}/small.txt",
                                    "--limits", "1,2", "--modes", "h1", "--workload", "requests:8", "--repeat", "1",
                                    "--tcp-sample", "off", "-q", "--format", fmt]).stdout)
            checker.compare(f"compare.{fmt}", outputs[0], outputs[1], fmt if fmt != "html" else "text")
            if fmt == "json":
                renders("compare", outputs, ("json", "text", "html"))

        # The stored capture: deterministic input, exact output.
        for fmt in ("json", "text"):
            outputs = [run([binary, "capture", "analyze", FIXTURE, "--format", fmt, "--no-color"]).stdout
                       for binary in (args.base, args.new)]
            checker.compare(f"capture.{fmt}", outputs[0], outputs[1], "exact")
    finally:
        if target:
            target.terminate()
            target.wait(timeout=10)
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "nginx-down.sh"), os.path.join(work, "nginx")],
                       capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    unread = f", {len(checker.unread)} rendered by the new binary alone (a document the base does not read)" \
        if checker.unread else ""
    print(f"output-diff: {checker.checked} outputs compared, {len(checker.failures)} differ{unread}; "
          f"both sides under {out}")
    sys.exit(1 if checker.failures else 0)


if __name__ == "__main__":
    main()
