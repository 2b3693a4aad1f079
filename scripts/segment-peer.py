#!/usr/bin/env python3
"""segment-peer: a stand-in for the Wirelens target's segment protocol, for tests until WirelensTarget lands.

Standard library only. Binds 127.0.0.1 (port 0 = any free port) and prints "PORT=<n>" as its first stdout line.
Parts are kept on disk under --dir (a temporary directory by default), one file per part. It stops on
SIGTERM/SIGINT, when its parent process goes away, and after --max-seconds (default 600).

  PUT  /upload/{id}/part/{index}   Content-Range: bytes a-b/total (b inclusive), body of b-a+1 bytes
       -> 200 {"id","index","offset","length","sha256"}; 400 on a bad Content-Range or length;
          503 for a seeded fraction of attempts (--fail-parts F --fail-seed S, per id, index and attempt)
  POST /upload/{id}/complete       -> 200 {"id","size","sha256","parts"}; 409 {"error","missing":[[a,b],...]}
  GET  /upload/{id}                -> 200 {"id","total","ranges":[[a,b],...],"parts":[{"index","offset","length"}]}
  anything else                    -> 404
--wrong-digest makes complete answer a wrong SHA-256 (to test the check).
--fail-complete N answers the first N complete calls of each upload with 503.
--part-delay MS sleeps before each part's answer (a slow server); --rate B/s reads part bodies at that rate.
"""

import argparse
import hashlib
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOCK = threading.Lock()
UPLOADS = {}     # id -> {"total": n, "parts": {index: (offset, length, path)}}
ATTEMPTS = {}    # (id, index) -> attempts so far
COMPLETES = {}   # id -> complete calls so far

PART = re.compile(r"^/upload/([A-Za-z0-9._-]+)/part/(\d+)$")
COMPLETE = re.compile(r"^/upload/([A-Za-z0-9._-]+)/complete$")
STATUS = re.compile(r"^/upload/([A-Za-z0-9._-]+)$")
RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+)$")


def fails(upload_id, index, attempt):
    if ARGS.fail_parts <= 0:
        return False
    digest = hashlib.sha256(f"{ARGS.fail_seed}/{upload_id}/{index}/{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < ARGS.fail_parts


def covered(parts):
    """Merged [a, b] inclusive ranges of the parts."""
    ranges = []
    for offset, length, _ in sorted(parts.values()):
        if length == 0:
            continue
        if ranges and offset <= ranges[-1][1] + 1:
            ranges[-1][1] = max(ranges[-1][1], offset + length - 1)
        else:
            ranges.append([offset, offset + length - 1])
    return ranges


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "segment-peer/1"
    sys_version = ""
    timeout = 120

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

    def _json(self, status, obj):
        body = (json.dumps(obj) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        chunks = []
        left = length
        while left > 0:
            chunk = self.rfile.read(min(left, 65536))
            if not chunk:
                raise ConnectionError("eof in body")
            chunks.append(chunk)
            left -= len(chunk)
            if ARGS.rate > 0:
                time.sleep(len(chunk) / ARGS.rate)
        return b"".join(chunks)

    def do_PUT(self):
        body = self._read_body()
        m = PART.match(self.path)
        if not m:
            return self._json(404, {"error": "not found"})
        upload_id, index = m.group(1), int(m.group(2))
        r = RANGE.match(self.headers.get("Content-Range") or "")
        if not r:
            return self._json(400, {"error": "Content-Range: bytes a-b/total expected"})
        a, b, total = int(r.group(1)), int(r.group(2)), int(r.group(3))
        if b < a or b >= total or len(body) != b - a + 1:
            return self._json(400, {"error": "Content-Range does not match the body"})
        with LOCK:
            attempt = ATTEMPTS.get((upload_id, index), 0) + 1
            ATTEMPTS[(upload_id, index)] = attempt
        if ARGS.part_delay > 0:
            time.sleep(ARGS.part_delay / 1000)
        if fails(upload_id, index, attempt):
            return self._json(503, {"error": "part failed on purpose"})
        path = os.path.join(ARGS.dir, f"{upload_id}.{index}.part")
        with open(path, "wb") as f:
            f.write(body)
        with LOCK:
            upload = UPLOADS.setdefault(upload_id, {"total": total, "parts": {}})
            upload["total"] = total
            upload["parts"][index] = (a, len(body), path)
        self._json(200, {"id": upload_id, "index": index, "offset": a, "length": len(body),
                         "sha256": hashlib.sha256(body).hexdigest()})

    def do_POST(self):
        self._read_body()
        m = COMPLETE.match(self.path)
        if not m:
            return self._json(404, {"error": "not found"})
        upload_id = m.group(1)
        with LOCK:
            COMPLETES[upload_id] = COMPLETES.get(upload_id, 0) + 1
            calls = COMPLETES[upload_id]
        if calls <= ARGS.fail_complete:
            return self._json(503, {"error": "complete failed on purpose"})
        with LOCK:
            upload = UPLOADS.get(upload_id)
            parts = dict(upload["parts"]) if upload else {}
            total = upload["total"] if upload else 0
        if not upload:
            return self._json(404, {"error": "unknown upload"})
        missing, cursor = [], 0
        for a, b in covered(parts):
            if a > cursor:
                missing.append([cursor, a - 1])
            cursor = b + 1
        if cursor < total:
            missing.append([cursor, total - 1])
        if missing:
            return self._json(409, {"error": "missing ranges", "missing": missing})
        digest, cursor = hashlib.sha256(), 0
        for offset, length, path in sorted(parts.values()):
            if offset + length <= cursor:
                continue
            with open(path, "rb") as f:
                f.seek(cursor - offset)
                data = f.read(offset + length - cursor)
            digest.update(data)
            cursor = offset + length
        answer = hashlib.sha256(digest.digest()).hexdigest() if ARGS.wrong_digest else digest.hexdigest()
        self._json(200, {"id": upload_id, "size": total, "sha256": answer, "parts": len(parts)})

    def do_GET(self):
        m = STATUS.match(self.path)
        with LOCK:
            upload = UPLOADS.get(m.group(1)) if m else None
            parts = dict(upload["parts"]) if upload else {}
        if not upload:
            return self._json(404, {"error": "unknown upload"})
        self._json(200, {"id": m.group(1), "total": upload["total"], "ranges": covered(parts),
                         "parts": [{"index": i, "offset": o, "length": n} for i, (o, n, _) in sorted(parts.items())]})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--dir", default=None, help="where parts are kept (default: a new temporary directory)")
    ap.add_argument("--fail-parts", type=float, default=0.0, help="fraction of part attempts answered 503")
    ap.add_argument("--fail-seed", type=int, default=1)
    ap.add_argument("--fail-complete", type=int, default=0, help="answer the first N complete calls of an upload with 503")
    ap.add_argument("--wrong-digest", action="store_true", help="complete answers a SHA-256 that is not the file's")
    ap.add_argument("--part-delay", type=float, default=0.0, help="ms to wait before each part's answer")
    ap.add_argument("--rate", type=float, default=0.0, help="read part bodies at this many bytes/s (0: at once)")
    ap.add_argument("--max-seconds", type=float, default=600.0)
    ARGS = ap.parse_args()
    if ARGS.dir is None:
        ARGS.dir = tempfile.mkdtemp(prefix="segment-peer-")
    os.makedirs(ARGS.dir, exist_ok=True)

    stop = threading.Event()
    server = Server(("127.0.0.1", ARGS.port), Handler)
    print(f"PORT={server.server_address[1]}", flush=True)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda signum, frame: stop.set())
    parent = os.getppid()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    deadline = time.monotonic() + ARGS.max_seconds
    while not stop.is_set() and time.monotonic() < deadline and os.getppid() == parent:
        stop.wait(0.2)
    server.shutdown()
    server.server_close()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
