#!/usr/bin/env python3
"""dying-keepalive: a loopback HTTP/1.1 server whose keep-alive connections die under their second request.

Standard library only, for the dead keep-alive connection tests. Listens on 127.0.0.1 (a free port) and prints
"PORT=<n>". Every connection answers its first request with 200 "ok\\n" and keeps the connection open; when the
second request arrives on a connection, the server holds it for --hold-ms, then closes the connection without an
answer: a FIN (--mode close) or a RST (--mode reset: SO_LINGER 0). Each request it reads is appended to the --log
file as one JSON line, in the order read:
  {"port": <client port>, "request": <n on that connection, from 1>, "method": ..., "path": ...,
   "action": "answered" | "closed" | "reset", "heldMs": <ms held before closing, or 0>}

It stops on SIGTERM/SIGINT, when its parent process goes away, and after --max-seconds (default 120).
"""

import argparse
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

_lock = threading.Lock()


def log(path, entry):
    with _lock, open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def read_head(conn, pending):
    """Reads one request head (up to the blank line); returns (head, rest) or (None, b"") at EOF."""
    while b"\r\n\r\n" not in pending:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        pending += chunk
        if len(pending) > 65536:
            return None, b""
    head, rest = pending.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


def serve(conn, args):
    port = conn.getpeername()[1]
    pending = b""
    count = 0
    try:
        while True:
            head, pending = read_head(conn, pending)
            if head is None:
                return
            count += 1
            parts = head.split("\r\n", 1)[0].split(" ")
            method, path = (parts + ["", ""])[:2]
            if count == 2:
                started = time.monotonic()
                time.sleep(args.hold_ms / 1000)
                held = round((time.monotonic() - started) * 1000, 3)
                action = "reset" if args.mode == "reset" else "closed"
                log(args.log, {"port": port, "request": count, "method": method, "path": path,
                               "action": action, "heldMs": held})
                if args.mode == "reset":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()
                return
            log(args.log, {"port": port, "request": count, "method": method, "path": path,
                           "action": "answered", "heldMs": 0})
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
    except OSError:
        return
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=["close", "reset"], default="close")
    parser.add_argument("--hold-ms", type=float, default=300)
    parser.add_argument("--log", required=True)
    parser.add_argument("--max-seconds", type=float, default=120)
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.5)
    print(f"PORT={listener.getsockname()[1]}", flush=True)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    parent = os.getppid()
    deadline = time.monotonic() + args.max_seconds
    while time.monotonic() < deadline and os.getppid() == parent:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        except KeyboardInterrupt:
            break
        conn.settimeout(30)
        threading.Thread(target=serve, args=(conn, args), daemon=True).start()


if __name__ == "__main__":
    main()
