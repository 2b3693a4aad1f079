"""moto's S3 server for the tests (Tests/WirelensTestSupport/MotoServer.swift) and scripts/bench-s3.py.

Run as: .venv-s3/bin/python scripts/moto-server.py [HOST [PORT]]   (the venv is made by scripts/deps.sh)
Binds HOST (default 127.0.0.1) port PORT (default 0: a free one); werkzeug prints "Running on http://HOST:PORT" on
stderr. Exits when its parent process goes away or after MOTO_MAX_SECONDS (default 600), so a test that dies leaves
no server behind.
"""

import os
import sys
import threading
import time

from moto.server import main


def watch():
    parent = os.getppid()
    deadline = time.monotonic() + float(os.environ.get("MOTO_MAX_SECONDS", "600"))
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.5)
    os._exit(0)


if len(sys.argv) > 3:
    sys.exit("usage: moto-server.py [HOST [PORT]]")
host = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
port = sys.argv[2] if len(sys.argv) > 2 else "0"
threading.Thread(target=watch, daemon=True).start()
sys.exit(main(["-H", host, "-p", port]))
