#!/usr/bin/env python3
"""A delay line on a TUN device: every packet the kernel routes into the device comes back out of it DELAY later.

    delayline.py TUN DELAY_US [LIMIT]

scripts/netpath.sh --delay starts it inside the router namespace, on a TUN device it made (persistent, without
packet information: `ip tuntap add mode tun`). The router's policy rules send what arrives from the client's and the
server's veth into the device; this program reads each packet, keeps it in a queue in arrival order (one delay for
every packet, so arrival order is also release order: nothing is reordered) and writes it back into the device once
its time has come, where the kernel takes it as arriving on the device and forwards it on by the main table.

At most LIMIT packets (default 10000) wait at once; a packet arriving at a full queue is dropped, like a full router
buffer. SIGTERM (netpath.sh down) ends it; on exit it prints to stderr how many packets it delayed and dropped.
Standard library only (no new package): fcntl's ioctl attaches to the device, select waits for the next packet or
the next release, whichever comes first. It runs at real-time priority when allowed (SCHED_FIFO 10), so that a busy
machine does not add its scheduling delays to the line's.
"""
import collections
import fcntl
import os
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit("delayline: usage: delayline.py TUN DELAY_US [LIMIT]")
    name = argv[1]
    delay = int(argv[2]) / 1e6
    limit = int(argv[3]) if len(argv) == 4 else 10000
    if not 0 < delay <= 10 or limit < 1:
        sys.exit(f"delayline: DELAY_US must be 1 to 10000000 and LIMIT at least 1: {argv[2]} {limit}")
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    # Real-time priority (root has it): on a loaded machine an ordinary process wakes milliseconds late, and every
    # late wake-up is added to the delay. The program sleeps in select between packets, so it takes no CPU from others.
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (AttributeError, PermissionError, OSError):
        pass

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    signal.signal(signal.SIGINT, lambda *_: stop.append(True))
    queue = collections.deque()  # (release time, packet), in arrival order = release order
    delayed = dropped = 0
    clock = time.monotonic
    while not stop:
        timeout = max(0.0, queue[0][0] - clock()) if queue else 1.0
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        except InterruptedError:
            continue
        if ready:
            arrival = clock()
            for _ in range(1024):  # bounded: the releases below are not starved by a flood
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if len(queue) >= limit:
                    dropped += 1
                else:
                    queue.append((arrival + delay, packet))
        now = clock()
        while queue and queue[0][0] <= now:
            try:
                os.write(fd, queue.popleft()[1])
                delayed += 1
            except OSError:
                dropped += 1
    print(f"delayline: {name}: {delayed} packets delayed, {dropped} dropped", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
