"""The lifetime the loopback test peers share (redirect-peer.py, doh-server.py).

serve_until_stopped runs each server on a daemon thread and returns after SIGTERM or SIGINT, when the
parent process goes away, or after max_seconds, whichever comes first, with the servers shut down.
"""

import os
import signal
import threading
import time


def serve_until_stopped(servers, max_seconds):
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    parent = os.getppid()
    deadline = time.monotonic() + max_seconds
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.is_set() and time.monotonic() < deadline and os.getppid() == parent:
        stop.wait(0.2)
    for server in servers:
        server.shutdown()
