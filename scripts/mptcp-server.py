#!/usr/bin/env python3
"""A small HTTP/1.1 server over Multipath TCP, for the tests of `wirelens --mptcp` (standard library only).

    scripts/mptcp-server.py PORT

Listens on 0.0.0.0:PORT with socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP) (262) and prints "ready" once it does.
Each GET /bytes/N is answered with N bytes ("x"), Content-Length and Connection: close, then one stdout line
"sent N" (the body bytes it wrote, all N once sendall returns); any other request with a 404.
One connection at a time, each read and write bounded by a 60 s timeout. Exits 1 with one line on stderr when the
kernel has no MPTCP (socket() fails).
"""
import socket
import sys

IPPROTO_MPTCP = 262
CHUNK = b"x" * 65536


def answer(conn):
    conn.settimeout(60)
    request = b""
    while b"\r\n\r\n" not in request and len(request) < 65536:
        data = conn.recv(4096)
        if not data:
            return
        request += data
    line = request.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
    if len(line) < 2 or line[0] != "GET" or not line[1].startswith("/bytes/") or not line[1][7:].isdigit():
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return
    size = int(line[1][7:])
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                 + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % size)
    left = size
    while left > 0:
        n = min(left, len(CHUNK))
        conn.sendall(CHUNK[:n])
        left -= n
    print("sent %d" % size, flush=True)


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: mptcp-server.py PORT")
    try:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
    except OSError as error:
        sys.exit(f"mptcp-server: this kernel refuses MPTCP sockets: {error}")
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", int(sys.argv[1])))
    server.listen(16)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        try:
            answer(conn)
        except OSError:
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    main()
