"""moto's S3 server for the tests (Tests/WirelensTestSupport/MotoServer.swift), on a free loopback port.

Run as: .venv-s3/bin/python scripts/moto-server.py   (the venv is made by scripts/deps.sh)
Binds 127.0.0.1 port 0; werkzeug prints "Running on http://127.0.0.1:PORT" on stderr. Exits when its parent
process goes away or after MOTO_MAX_SECONDS (default 600), so a test that dies leaves no server behind.
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


threading.Thread(target=watch, daemon=True).start()
sys.exit(main(["-H", "127.0.0.1", "-p", "0"]))
