#!/usr/bin/env python3
"""slowpeer: a small HTTP/1.1 test server for what neither nginx nor the built-in target gives.

Delays, statuses, flaky answers (fail_first=N), byte streams (paused mid-body with
pause_after=N), late answers (stall=S) and upload faults are the
target's (`wirelens target`, README "Target server"); what stays here: an h2c Upgrade,
malformed HTTP, Python's own parsers as witnesses (/form, /echo-headers),
Expect ignored, presigned-style redirects.

Standard library only. Binds 127.0.0.1 (port 0 unless --port) and prints
"PORT=<n>" as its first stdout line. Keep-alive HTTP/1.1, one thread per
connection. It stops on SIGTERM/SIGINT, on EOF of stdin when stdin is a pipe
or socket (so a parent that holds the write end and dies takes it down), when
its parent process goes away, and after --max-seconds (default 600).

Endpoints (any request body is read fully first, so keep-alive survives):
  POST|PUT /ignore-expect/{ms}  read the whole body (Content-Length or chunked),
                                sleep ms, 200 {"bytes": n}, but never send
                                "100 Continue": a client that sent Expect waits for
                                its own timeout (curl: 1 s) before it sends the body.
                                (A body answered late: the target's ?stall=S.)
  GET  /status/{code}           that status (100-599 except 1xx; 204/304 bodiless):
                                where /presigned-redirect lands
  POST /form                    parse a multipart/form-data body (Content-Length,
                                up to 64 MiB) with the standard library's email
                                parser, the independent reference for the
                                probe's --form: 200, JSON list of parts, each
                                {name, filename, contentType, size, sha256};
                                400 when the parser finds no parts or a defect.
  GET  /h2c-upgrade/{n}         with "Upgrade: h2c": 101 Switching Protocols, then
                                HTTP/2 (RFC 7540 section 3.2) on the same
                                connection: the server's SETTINGS, and on stream 1
                                (the upgraded request) :status 200 and n bytes
                                (n <= 1 MiB); then it reads until the client
                                closes. nginx and nghttpd accept h2c only with prior
                                knowledge. Without the Upgrade header: 426.
  ANY  /echo-headers            200, JSON object of the request headers as
                                received (name case kept; repeated names joined
                                with ", "), plus nothing else.
  GET  /presigned-redirect      302 whose Location (an absolute URL back to this
                                server's /status/200), Content-Location (relative),
                                Link (two URLs in <...>) and Refresh (url=...) carry
                                presigned-style URLs: user info and secret query
                                values (X-Amz-Signature, X-Amz-Credential,
                                X-Amz-Security-Token, Signature, sig, token,
                                access_token, code, pwd, password). Every secret
                                value contains "SeKrit"; the harmless ones are
                                "visible-..." (see PRESIGNED_*).
  GET  /presigned-redirect/ftp  302 to an ftp:// URL with user info and a token:
                                a hop Wirelens refuses with an error message.
  GET  /broken/{kind}           a reply that breaks HTTP/1.1, then the connection
                                closes: chunk (an invalid chunk size), headers
                                (100 000 header lines, about 1.2 MB), status (a
                                malformed status line), http09 (no status line).
Anything else: 404.
"""

import argparse
import email.parser
import email.policy
import hashlib
import json
import os
import re
import signal
import stat
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_SLEEP_MS = 600_000          # no single sleep beyond 10 minutes
IDLE_TIMEOUT_S = 120            # idle keep-alive connections are dropped after this

# /presigned-redirect: {port} is this server's. Every secret contains "SeKrit".
PRESIGNED_LOCATION = ("http://AKIDSeKritUser:SeKrit-location-pass@127.0.0.1:{port}/status/200"
                      "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=SeKrit-credential"
                      "&X-Amz-Security-Token=SeKrit-security-token&X-Amz-Signature=SeKrit-amz-signature"
                      "&keep=visible-location")
PRESIGNED_CONTENT_LOCATION = "/objects/a.bin?Signature=SeKrit-signature&password=SeKrit-password&keep=visible-content"
PRESIGNED_LINK = ('<https://SeKrit-link-user:SeKrit-link-pass@cdn.example.invalid/a?token=SeKrit-link-token'
                  '&keep=visible-link>; rel="next", </b?sig=SeKrit-link-sig&code=SeKrit-link-code>; rel="prev"')
PRESIGNED_REFRESH = "0; url=http://127.0.0.1:{port}/c?access_token=SeKrit-refresh-token&pwd=SeKrit-pwd&keep=visible-refresh"
PRESIGNED_FTP = "ftp://SeKrit-ftp-user:SeKrit-ftp-pass@127.0.0.1:{port}/x?token=SeKrit-ftp-token&keep=visible-ftp"



def _ms(text):
    return min(int(text), MAX_SLEEP_MS) / 1000.0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "slowpeer/1"
    sys_version = ""
    timeout = IDLE_TIMEOUT_S

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

    # -- Expect: 100-continue -------------------------------------------------
    def handle_expect_100(self):
        if self.path.startswith("/ignore-expect/"):
            return True          # say nothing; the client has to give up waiting
        return super().handle_expect_100()

    # -- helpers ----------------------------------------------------------------
    def _read_body(self):
        """Read and discard the request body; return its length in bytes."""
        total = 0
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            while True:
                line = self.rfile.readline(65537)
                if not line:
                    raise ConnectionError("eof in chunk size")
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    # trailers until the empty line
                    for _ in range(1000):
                        t = self.rfile.readline(65537)
                        if t in (b"\r\n", b"\n", b""):
                            break
                    return total
                left = size
                while left > 0:
                    chunk = self.rfile.read(min(left, 1 << 20))
                    if not chunk:
                        raise ConnectionError("eof in chunk")
                    left -= len(chunk)
                    total += len(chunk)
                self.rfile.readline(3)  # CRLF after the chunk data
        length = self.headers.get("Content-Length")
        if length:
            left = int(length)
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 20))
                if not chunk:
                    raise ConnectionError("eof in body")
                left -= len(chunk)
                total += len(chunk)
        return total

    def _send(self, code, body=b"", ctype="text/plain", extra=None):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        bodiless = code in (204, 304) or 100 <= code < 200
        if not bodiless:
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not bodiless and self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def _json(self, code, obj):
        self._send(code, json.dumps(obj) + "\n", "application/json")

    # -- dispatch ---------------------------------------------------------------
    def _form(self):
        """Parse a multipart/form-data body with email.parser and answer its parts as JSON."""
        length = int(self.headers.get("Content-Length") or "0")
        if length > 64 << 20:
            self.close_connection = True
            return self._send(413, "form too large\n")
        body = self.rfile.read(length)
        head = f"Content-Type: {self.headers.get('Content-Type', '')}\r\nMIME-Version: 1.0\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
        if not message.is_multipart() or message.defects:
            return self._json(400, {"error": "not a valid multipart body",
                                    "defects": [type(d).__name__ for d in message.defects]})
        parts = []
        for part in message.iter_parts():
            if part.defects:
                return self._json(400, {"error": "defective part",
                                        "defects": [type(d).__name__ for d in part.defects]})
            data = part.get_payload(decode=True) or b""
            parts.append({
                "name": part.get_param("name", header="content-disposition"),
                "filename": part.get_filename(),
                "contentType": part.get("Content-Type"),
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            })
        return self._json(200, parts)

    def _dispatch(self):
        if self.path.split("?", 1)[0] == "/form" and self.command == "POST":
            try:
                return self._form()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
                return
        try:
            received = self._read_body()
        except (ValueError, ConnectionError):
            self.close_connection = True
            return
        path = self.path.split("?", 1)[0]
        m = self.command
        try:
            if path == "/echo-headers":
                heads = {}
                for k, v in self.headers.items():
                    heads[k] = f"{heads[k]}, {v}" if k in heads else v
                return self._json(200, heads)
            if path in ("/presigned-redirect", "/presigned-redirect/ftp") and m in ("GET", "HEAD"):
                return self._presigned(path.endswith("/ftp"))
            r = re.fullmatch(r"/broken/(chunk|headers|status|http09)", path)
            if r and m == "GET":
                return self._broken(r.group(1))
            r = re.fullmatch(r"/ignore-expect/(\d+)", path)
            if r and m in ("POST", "PUT"):
                time.sleep(_ms(r.group(1)))
                return self._json(200, {"bytes": received})
            r = re.fullmatch(r"/status/(\d{3})", path)
            if r and 200 <= int(r.group(1)) <= 599:
                code = int(r.group(1))
                return self._send(code, f"status {code}\n")
            r = re.fullmatch(r"/h2c-upgrade/(\d+)", path)
            if r and m == "GET":
                return self._h2c_upgrade(min(int(r.group(1)), 1 << 20))
            return self._send(404, "not found\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _presigned(self, ftp):
        port = self.server.server_address[1]
        if ftp:
            return self._send(302, "see elsewhere\n", extra={"Location": PRESIGNED_FTP.format(port=port)})
        return self._send(302, "see elsewhere\n", extra={
            "Location": PRESIGNED_LOCATION.format(port=port),
            "Content-Location": PRESIGNED_CONTENT_LOCATION,
            "Link": PRESIGNED_LINK,
            "Refresh": PRESIGNED_REFRESH.format(port=port),
        })

    def _broken(self, kind):
        self.close_connection = True
        out = self.wfile
        if kind == "chunk":
            out.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZZ\r\nxx\r\n0\r\n\r\n")
        elif kind == "headers":
            out.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n")
            for start in range(0, 100_000, 1000):
                out.write(b"".join(b"X-Filler-%d: v\r\n" % i for i in range(start, start + 1000)))
            out.write(b"\r\n")
        elif kind == "status":
            out.write(b"HTTP/1.1 2x0 Fine\r\nContent-Length: 2\r\n\r\nok")
        else:
            out.write(b"no status line here\r\n\r\n")
        out.flush()


    def _h2c_upgrade(self, n):
        if "h2c" not in self.headers.get("Upgrade", "").lower():
            return self._send(426, "send Upgrade: h2c\n", extra={"Upgrade": "h2c"})
        self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")

        def frame(kind, flags, stream, payload=b""):
            return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload

        # SETTINGS and the response's HEADERS at once; the DATA only once the client's preface arrived, so that
        # curl has taken in the 101 before the bulk comes (libcurl 7.88 refuses more than 32 KiB read with the 101).
        self.wfile.write(frame(4, 0, 0) + frame(1, 0x4, 1, b"\x88"))  # SETTINGS; HEADERS ":status: 200"
        self.wfile.flush()
        body = b"u" * n
        data = b""
        for start in range(0, len(body), 16384):  # DATA within the default maximum frame size
            chunk = body[start:start + 16384]
            data += frame(0, 0x1 if start + len(chunk) == len(body) else 0, 1, chunk)
        if not body:
            data += frame(0, 0x1, 1)
        # The client's preface and SETTINGS: acknowledge them, send the body, then wait for its GOAWAY or close.
        sent = False
        self.connection.settimeout(10)
        try:
            while True:
                received = self.connection.recv(65536)
                if not received:
                    break
                if not sent:
                    self.connection.sendall(frame(4, 0x1, 0) + data)  # SETTINGS ACK, then the DATA
                    sent = True
        except OSError:
            pass
        self.close_connection = True

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _dispatch


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free)")
    ap.add_argument("--max-seconds", type=float, default=600.0,
                    help="exit after this many seconds (default 600)")
    ap.add_argument("--no-stdin-watch", action="store_true",
                    help="do not exit on EOF of a piped stdin")
    ap.add_argument("--no-parent-watch", action="store_true",
                    help="do not exit when the parent process goes away")
    args = ap.parse_args()

    stop = threading.Event()
    server = Server(("127.0.0.1", args.port), Handler)
    print(f"PORT={server.server_address[1]}", flush=True)

    def on_signal(signum, frame):
        stop.set()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    if not args.no_stdin_watch:
        try:
            mode = os.fstat(sys.stdin.fileno()).st_mode
            watch = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        except (OSError, ValueError, AttributeError):
            watch = False
        if watch:
            def stdin_watch():
                try:
                    while os.read(sys.stdin.fileno(), 4096):
                        pass
                except OSError:
                    pass
                stop.set()
            threading.Thread(target=stdin_watch, daemon=True).start()

    parent = os.getppid()

    serve = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                             daemon=True)
    serve.start()
    deadline = time.monotonic() + max(args.max_seconds, 0.0)
    while not stop.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        stop.wait(min(left, 0.2))
        if not args.no_parent_watch and os.getppid() != parent:
            break
    server.shutdown()
    server.server_close()
    # Handler threads are daemons: in-flight requests end with the process.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
