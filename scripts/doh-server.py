#!/usr/bin/env python3
"""doh-server: a DNS over HTTPS server (RFC 8484) on loopback, for the --doh-url tests.

Standard library only. Listens on 127.0.0.1 (port 0, the default, picks a free one) over TLS with
--cert/--key (plain HTTP with --plain) and prints "PORT=<n>" as its first stdout line. It answers
  GET  /dns-query?dns=BASE64URL        the query in the URL (base64url, no padding)
  POST /dns-query                      the query as the body, Content-Type application/dns-message
with an application/dns-message answer: the A and AAAA records of the names it knows
(--record NAME=ADDRESS, repeatable; by default wirelens.test and a.wirelens.test are 127.0.0.1
and ::1), an empty NOERROR answer for a known name without a record of the type asked, and
NXDOMAIN for any other name. A query it cannot parse gets 400, another path 404, another method 405.

Each query is appended to the --log file as one JSON line, before the answer is sent:
  {"name": "wirelens.test", "type": "A", "method": "POST", "id": 0, "rcode": 0,
   "answers": ["127.0.0.1"], "receivedAt": 1700000000.123456, "sentAt": ...}
(times: the server's wall clock, seconds since the epoch; sentAt after --delay-ms). Each TLS
connection accepted is logged as {"connection": true, "peerPort": N}.

--delay-ms MS holds every answer back that long (a slow resolver); --ttl the records' TTL.
It stops on SIGTERM/SIGINT, when its parent process goes away, and after --max-seconds
(default 300).
"""

import argparse
import base64
import ipaddress
import json
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from peer_lifetime import serve_until_stopped

TYPES = {1: "A", 28: "AAAA", 5: "CNAME", 65: "HTTPS", 64: "SVCB", 16: "TXT"}
MAX_QUERY = 4096

_log_lock = threading.Lock()


def log(path, entry):
    with _log_lock, open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


class BadQuery(Exception):
    pass


def parse_query(wire):
    """The (id, flags, name, qtype, qclass, end) of a DNS query's header and first question."""
    if len(wire) < 12:
        raise BadQuery("shorter than a DNS header")
    ident, flags, qdcount = struct.unpack("!HHH", wire[:6])
    if flags & 0x8000:
        raise BadQuery("a response, not a query")
    if qdcount != 1:
        raise BadQuery(f"{qdcount} questions")
    labels, offset = [], 12
    for _ in range(128):  # a name has at most 127 labels
        if offset >= len(wire):
            raise BadQuery("name runs past the message")
        length = wire[offset]
        offset += 1
        if length == 0:
            break
        if length & 0xC0:
            raise BadQuery("compressed name in a question")
        label = wire[offset:offset + length]
        if len(label) != length:
            raise BadQuery("label runs past the message")
        labels.append(label.decode("ascii", "replace"))
        offset += length
    else:
        raise BadQuery("too many labels")
    if offset + 4 > len(wire):
        raise BadQuery("question without type and class")
    qtype, qclass = struct.unpack("!HH", wire[offset:offset + 4])
    return ident, flags, ".".join(labels).lower(), qtype, qclass, offset + 4


def build_answer(wire, records, ttl):
    """The response to a query: (bytes, name, qtype, id, rcode, addresses)."""
    ident, flags, name, qtype, qclass, end = parse_query(wire)
    question = wire[12:end]
    known = records.get(name)
    addresses = []
    if known is None:
        rcode = 3  # NXDOMAIN
    else:
        rcode = 0
        if qclass == 1:
            addresses = [a for a in known if (a.version == 4 and qtype == 1) or (a.version == 6 and qtype == 28)]
    # QR, the query's opcode and RD, RA; AA: this server is the authority for its names.
    reply_flags = 0x8000 | (flags & 0x7900) | 0x0400 | 0x0080 | rcode
    header = struct.pack("!HHHHHH", ident, reply_flags, 1, len(addresses), 0, 0)
    body = bytearray(header + question)
    for address in addresses:
        data = address.packed
        # The name as a pointer to the question's (offset 12).
        body += struct.pack("!HHHIH", 0xC00C, qtype, 1, ttl, len(data)) + data
    return bytes(body), name, qtype, ident, rcode, [str(a) for a in addresses]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "doh-server/1"
    sys_version = ""
    timeout = 30
    log_path = None
    records = {}
    ttl = 60
    delay = 0.0

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

    def setup(self):
        super().setup()
        log(self.log_path, {"connection": True, "peerPort": self.client_address[1]})

    def _send(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", f"max-age={self.ttl}")
        self.end_headers()
        self.wfile.write(body)

    def _answer(self, wire, method):
        received = time.time()
        try:
            answer, name, qtype, ident, rcode, addresses = build_answer(wire, self.records, self.ttl)
        except BadQuery as problem:
            log(self.log_path, {"method": method, "error": str(problem), "receivedAt": received})
            return self._send(400, f"bad DNS query: {problem}\n".encode())
        if self.delay > 0:
            time.sleep(self.delay)
        log(self.log_path, {"name": name, "type": TYPES.get(qtype, str(qtype)), "method": method, "id": ident,
                            "rcode": rcode, "answers": addresses, "receivedAt": received, "sentAt": time.time()})
        self._send(200, answer, "application/dns-message")

    def do_GET(self):  # noqa: N802 - http.server's name
        parts = urlsplit(self.path)
        if parts.path != "/dns-query":
            return self._send(404, b"not found\n")
        values = parse_qs(parts.query).get("dns")
        if not values:
            return self._send(400, b"no dns parameter\n")
        text = values[0]
        try:
            wire = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except ValueError:
            return self._send(400, b"dns is not base64url\n")
        self._answer(wire, "GET")

    def do_POST(self):  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length") or "0")
        if length > MAX_QUERY:
            return self._send(413, b"query too large\n")
        wire = self.rfile.read(length)
        if urlsplit(self.path).path != "/dns-query":
            return self._send(404, b"not found\n")
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/dns-message":
            return self._send(415, b"Content-Type must be application/dns-message\n")
        self._answer(wire, "POST")

    def _refuse(self):
        self._send(405, b"GET or POST\n")

    do_PUT = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _refuse


def parse_records(specs):
    records = {}
    for spec in specs:
        name, _, address = spec.partition("=")
        records.setdefault(name.strip(".").lower(), []).append(ipaddress.ip_address(address))
    return records


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--plain", action="store_true", help="plain HTTP, no TLS")
    parser.add_argument("--log", required=True)
    parser.add_argument("--record", action="append", default=[], help="NAME=ADDRESS (A or AAAA by its family)")
    parser.add_argument("--ttl", type=int, default=60)
    parser.add_argument("--delay-ms", type=float, default=0)
    parser.add_argument("--max-seconds", type=float, default=300)
    args = parser.parse_args()
    if not args.plain and not (args.cert and args.key):
        parser.error("--cert and --key, or --plain")
    Handler.log_path = args.log
    Handler.records = parse_records(args.record or [
        "wirelens.test=127.0.0.1", "wirelens.test=::1", "a.wirelens.test=127.0.0.1", "a.wirelens.test=::1",
    ])
    Handler.ttl = args.ttl
    Handler.delay = args.delay_ms / 1000
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if not args.plain:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(["http/1.1"])
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=True)
    print(f"PORT={server.server_address[1]}", flush=True)
    serve_until_stopped([server], args.max_seconds)
    sys.exit(0)


if __name__ == "__main__":
    main()
