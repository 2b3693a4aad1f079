#!/usr/bin/env python3
"""redirect-peer: loopback listeners that redirect and record, for the redirect tests.

Standard library only. Listens on every --listen HOST[@PORT] (port 0, the
default, picks a free one; IPv6 without brackets) and prints one line per
listener, in order: "PORT=<n>" for the first, then "PORT2=<n>", "PORT3=<n>",
and so on. Every listener serves the same endpoints; each request that reaches
/record is appended to the --log file as one JSON line:
  {"listener": "HOST:PORT", "method": ..., "path": ..., "headers": [[name, value], ...]}
(headers in the order received, names as sent).

Endpoints (any request body is read fully first):
  ANY /redirect[/...]?to=URL[&status=302]  that status (default 302), Location: URL
  ANY /record/...[?status=N]          recorded as above; 200 "recorded\\n", or status N
  ANY /retry-after/VALUE              503 with Retry-After: VALUE (as given)
  GET /text/N                         N bytes of text ("wirelens 0\n", "wirelens 1\n", ...
                                      cut at N); gzip-encoded when the request's Accept-Encoding
                                      names gzip; logged as {"listener", "path", "sentBodyLength",
                                      "encoding"} with the body bytes written
Anything else: 404.
Recorded requests also carry "bodyLength" and "bodySHA256" of the body received.

It stops on SIGTERM/SIGINT, when its parent process goes away, and after
--max-seconds (default 120).
"""

import argparse
import gzip
import hashlib
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from peer_lifetime import serve_until_stopped

_log_lock = threading.Lock()


def _log(entry):
    with _log_lock, open(Handler.log_path, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "redirect-peer/1"
    sys_version = ""
    timeout = 30
    log_path = None

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

    def setup(self):
        super().setup()
        # Every connection accepted, before any request: proof of whether a client connected at all.
        host, port = self.server.server_address[:2]
        _log({"listener": f"{host}:{port}", "connection": True})

    def _read_body(self):
        body = bytearray()
        length = self.headers.get("Content-Length")
        if length is not None:
            remaining = int(length)
            while remaining > 0:
                chunk = self.rfile.read(min(remaining, 1 << 16))
                if not chunk:
                    break
                body += chunk
                remaining -= len(chunk)
        elif "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        return bytes(body)

    def _answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self):
        body = self._read_body()
        parts = urlsplit(self.path)
        path = parts.path
        if path.startswith("/redirect"):
            query = parse_qs(parts.query)
            target = query.get("to", [""])[0]
            status = int(query.get("status", ["302"])[0])
            self._answer(status, headers=[("Location", target)])
        elif path.startswith("/record"):
            host, port = self.server.server_address[:2]
            entry = {
                "listener": f"{host}:{port}",
                "method": self.command,
                "path": self.path,
                "headers": [[name, value] for name, value in self.headers.items()],
                "bodyLength": len(body),
                "bodySHA256": hashlib.sha256(body).hexdigest(),
            }
            _log(entry)
            status = int(parse_qs(parts.query).get("status", ["200"])[0])
            self._answer(status, b"recorded\n")
        elif path.startswith("/text/"):
            size = int(path[len("/text/"):])
            text = "".join(f"wirelens {i}\n" for i in range(size // 10 + 1)).encode()[:size]
            encoded = "gzip" in (self.headers.get("Accept-Encoding") or "").lower()
            body = gzip.compress(text, mtime=0) if encoded else text
            host, port = self.server.server_address[:2]
            _log({"listener": f"{host}:{port}", "path": self.path, "sentBodyLength": len(body),
                  "encoding": "gzip" if encoded else None})
            headers = [("Content-Type", "text/plain")] + ([("Content-Encoding", "gzip")] if encoded else [])
            self._answer(200, body, headers=headers)
        elif path.startswith("/retry-after/"):
            value = unquote(path[len("/retry-after/"):])
            self._answer(503, b"busy\n", headers=[("Retry-After", value)])
        else:
            self._answer(404, b"not found\n")

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _handle


class V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", action="append", required=True, help="HOST[@PORT]; IPv6 without brackets")
    parser.add_argument("--log", required=True)
    parser.add_argument("--max-seconds", type=float, default=120)
    args = parser.parse_args()
    Handler.log_path = args.log
    servers = []
    for i, spec in enumerate(args.listen):
        host, _, port_text = spec.partition("@")
        port = int(port_text or "0")
        cls = V6Server if ":" in host else ThreadingHTTPServer
        server = cls((host, port), Handler)
        server.daemon_threads = True
        servers.append(server)
        name = "PORT" if i == 0 else f"PORT{i + 1}"
        print(f"{name}={server.server_address[1]}", flush=True)
    serve_until_stopped(servers, args.max_seconds)
    sys.exit(0)


if __name__ == "__main__":
    main()
