"""Gunicorn configuration for the httpbin conformance tests (Tests/WirelensTestSupport/HttpbinServer.swift).

Run as: /usr/bin/gunicorn -c scripts/httpbin-gunicorn.py httpbin:app
(Debian's python3-httpbin and gunicorn, both from scripts/deps.sh). Binds a free
port on 127.0.0.1 (gunicorn prints "Listening at: http://127.0.0.1:PORT" on
stderr). The master exits when its parent process goes away or after
HTTPBIN_MAX_SECONDS (default 300); its workers follow it, as gunicorn's do when
their master is gone.
"""

import os
import threading
import time

bind = "127.0.0.1:0"
workers = 3
worker_class = "sync"
timeout = 30
graceful_timeout = 2
accesslog = None
loglevel = "info"


def when_ready(server):
    parent = os.getppid()
    deadline = time.monotonic() + float(os.environ.get("HTTPBIN_MAX_SECONDS", "300"))

    def watch():
        while os.getppid() == parent and time.monotonic() < deadline:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
