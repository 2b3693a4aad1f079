#!/usr/bin/env python3
"""s3-fault-proxy: a loopback HTTP/1.1 relay in front of an S3 server (moto) that answers chosen UploadParts itself
with an S3 error, and logs every request it sees, for tests of how a client takes S3's refusals.

Run as: python3 scripts/s3-fault-proxy.py --upstream PORT --log PATH [--fault PART:STATUS:CODE]... [--max-seconds S]
Binds 127.0.0.1 port 0 and prints "PORT=<n>" as its first stdout line. Each accepted connection is relayed to
127.0.0.1:UPSTREAM, the server's bytes as they come; the client's bytes are read request by request (a head, then
its Content-Length body), so that each request is known:

  --fault 3:503:SlowDown   the first UploadPart of part 3 (`PUT ...?partNumber=3&uploadId=...`) is answered here,
                           not passed on: HTTP 503 with S3's error document
                           `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`
                           and `Connection: close` (a client that sent `Expect: 100-continue` never sends the body;
                           one that sent it anyway has it read and dropped); later attempts of that part pass on.
                           Several --fault for several parts; the codes known by their message: SlowDown,
                           AccessDenied, InternalError, NoSuchUpload, ExpiredToken (any other code goes with an
                           empty message).
  --fault 0:404:NoSuchUpload  part 0 is the CompleteMultipartUpload (`POST ...?uploadId=...`): its first one is
                           answered here, the same way.
  --log PATH               one JSON line per request, written as it is seen: {"t": monotonic seconds, "connection": n,
                           "method": "PUT", "target": "/bucket/key?partNumber=3&uploadId=...", "answered": 503}, where
                           "answered" is the status this relay sent (null: passed on) and "t" is when the request's
                           head had come in, or for an answered one when the answer had gone out. Only the method and
                           the target are logged: S3 signs in the Authorization header, which is never written.

Standard library only, one thread per direction. A request with Transfer-Encoding is passed on with the rest of its
connection unread. It exits when its parent process goes away or after --max-seconds (default 600).
"""

import argparse
import importlib.util
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

# throttle-proxy.py's upstream connect, pump (server → client, as it comes) and parent watch, shared.
_spec = importlib.util.spec_from_file_location("throttle_proxy",
                                               os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "throttle-proxy.py"))
throttle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(throttle)

CHUNK = 64 * 1024
MAX_HEAD = 64 * 1024
DRAIN_SECONDS = 5
MESSAGES = {
    "SlowDown": "Please reduce your request rate.",
    "AccessDenied": "Access Denied",
    "InternalError": "We encountered an internal error. Please try again.",
    "NoSuchUpload": "The specified upload does not exist. The upload ID may be invalid, or the upload may have been "
                    "aborted or completed.",
    "ExpiredToken": "The provided token has expired.",
}
REASONS = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error",
           503: "Service Unavailable"}


class Faults:
    """The parts to answer with an error, each once (part 0: the CompleteMultipartUpload); thread-safe."""

    def __init__(self, specs):
        self.lock = threading.Lock()
        self.pending = {}
        for spec in specs:
            part, status, code = spec.split(":", 2)
            self.pending[int(part)] = (int(status), code)

    def take(self, method, target):
        """The (status, code) to answer this request with, once per part; None to pass it on."""
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query, keep_blank_values=True)
        if "uploadId" not in query:
            return None
        if method == "POST":
            part = 0
        elif method == "PUT" and "partNumber" in query:
            try:
                part = int(query["partNumber"][0])
            except ValueError:
                return None
        else:
            return None
        with self.lock:
            return self.pending.pop(part, None)


class Log:
    """The request log: one JSON line per request, flushed as written."""

    def __init__(self, path):
        self.lock = threading.Lock()
        self.file = open(path, "a", encoding="utf-8")

    def write(self, connection, method, target, answered):
        line = json.dumps({"t": time.monotonic(), "connection": connection, "method": method, "target": target,
                           "answered": answered})
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()


def read_head(client, buffered):
    """Reads until a request head is complete; returns (head bytes, the bytes after it), or None at the end."""
    while b"\r\n\r\n" not in buffered:
        if len(buffered) > MAX_HEAD:
            return None
        data = client.recv(CHUNK)
        if not data:
            return None
        buffered += data
    end = buffered.index(b"\r\n\r\n") + 4
    return buffered[:end], buffered[end:]


def parse_head(head):
    """The method, the target and the headers (lower-cased names) of a request head."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return (parts[0] if parts else ""), (parts[1] if len(parts) > 1 else ""), headers


def answer(client, status, code):
    """Sends S3's error document with `status` and closes the client's sending side."""
    body = (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code>"
            f"<Message>{MESSAGES.get(code, '')}</Message></Error>").encode()
    head = (f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: application/xml\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    client.sendall(head + body)


def drain(client, left):
    """Reads and drops what the client still sends (at most `left` bytes, for DRAIN_SECONDS at most)."""
    client.settimeout(DRAIN_SECONDS)
    deadline = time.monotonic() + DRAIN_SECONDS
    try:
        while left > 0 and time.monotonic() < deadline:
            data = client.recv(min(CHUNK, left))
            if not data:
                break
            left -= len(data)
    except OSError:
        pass


def close(*sockets):
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()


def requests(client, server, connection, faults, log):
    """Relays the client's requests to the server one by one, answering the faulted ones itself."""
    buffered = b""
    try:
        while True:
            read = read_head(client, buffered)
            if read is None:
                break
            head, buffered = read
            method, target, headers = parse_head(head)
            length = int(headers.get("content-length", "0") or "0")
            fault = faults.take(method, target)
            if fault:
                answer(client, *fault)
                log.write(connection, method, target, fault[0])
                # Without Expect: 100-continue the body comes anyway: read it, so the answer is not lost in a reset.
                expects = headers.get("expect", "").lower() == "100-continue"
                drain(client, 0 if expects else max(0, length - len(buffered)))
                break
            log.write(connection, method, target, None)
            server.sendall(head)
            if "transfer-encoding" in headers:
                server.sendall(buffered)
                throttle.pump(client, server, 0)
                return
            body, buffered = buffered[:length], buffered[length:]
            server.sendall(body)
            left = length - len(body)
            while left > 0:
                data = client.recv(min(CHUNK, left))
                if not data:
                    raise OSError("client closed mid-body")
                server.sendall(data)
                left -= len(data)
    except OSError:
        pass
    close(client, server)


def relay(client, upstream, connection, faults, log):
    server = throttle.connect(client, upstream)
    if server is None:
        return
    threading.Thread(target=requests, args=(client, server, connection, faults, log), daemon=True).start()
    threading.Thread(target=throttle.pump, args=(server, client, 0), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--fault", action="append", default=[], help="PART:STATUS:CODE, e.g. 3:503:SlowDown")
    parser.add_argument("--max-seconds", type=float, default=600)
    args = parser.parse_args()
    try:
        faults = Faults(args.fault)
    except ValueError:
        parser.error("--fault is PART:STATUS:CODE, e.g. 3:503:SlowDown")
    log = Log(args.log)
    threading.Thread(target=throttle.watch, args=(args.max_seconds,), daemon=True).start()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"PORT={listener.getsockname()[1]}", flush=True)
    connection = 0
    while True:
        client, _ = listener.accept()
        connection += 1
        relay(client, args.upstream, connection, faults, log)


if __name__ == "__main__":
    sys.exit(main())
