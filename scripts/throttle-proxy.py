#!/usr/bin/env python3
"""throttle-proxy: a loopback TCP relay that slows what clients send, for tests that must catch an upload mid-way.

Run as: python3 scripts/throttle-proxy.py --upstream PORT --rate BYTES_PER_SECOND [--max-seconds S]
Binds 127.0.0.1 port 0 and prints "PORT=<n>" as its first stdout line. Each accepted connection is relayed to
127.0.0.1:UPSTREAM: the client's bytes at most RATE bytes a second on that connection (read 16 KiB at a time, each
read followed by the sleep that keeps the rate), the server's bytes as they come. Standard library only, one thread
per direction. It exits when its parent process goes away or after --max-seconds (default 600).
"""

import argparse
import os
import socket
import sys
import threading
import time

CHUNK = 16 * 1024


def pump(source, sink, rate):
    """Copies source to sink until either side closes; with a rate, no faster than rate bytes a second."""
    started = time.monotonic()
    moved = 0
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
            moved += len(data)
            if rate:
                ahead = moved / rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
    except OSError:
        pass
    for s in (source, sink):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def connect(client, upstream):
    """A connection to 127.0.0.1:UPSTREAM for an accepted client, or None (the client closed) when it fails."""
    try:
        server = socket.create_connection(("127.0.0.1", upstream), timeout=10)
        server.settimeout(None)
        return server
    except OSError:
        client.close()
        return None


def relay(client, upstream, rate):
    server = connect(client, upstream)
    if server is None:
        return
    threading.Thread(target=pump, args=(client, server, rate), daemon=True).start()
    threading.Thread(target=pump, args=(server, client, 0), daemon=True).start()


def watch(max_seconds):
    parent = os.getppid()
    deadline = time.monotonic() + max_seconds
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.5)
    os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", type=int, required=True)
    parser.add_argument("--rate", type=float, required=True)
    parser.add_argument("--max-seconds", type=float, default=600)
    args = parser.parse_args()
    threading.Thread(target=watch, args=(args.max_seconds,), daemon=True).start()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"PORT={listener.getsockname()[1]}", flush=True)
    while True:
        client, _ = listener.accept()
        relay(client, args.upstream, args.rate)


if __name__ == "__main__":
    sys.exit(main())
