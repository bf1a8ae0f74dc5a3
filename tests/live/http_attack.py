#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Two attacks on an HTTP server's connections, from one local user, for tests/live/16:
IDLE connections that never send a byte and SLOW ones that send a request's first bytes,
then one byte every half second; each reopened as soon as the server closes it, from
source addresses spread over 127.0.0.0/8, for SECONDS. Prints, as JSON: the connections
opened, how many slow ones the server closed and the longest a slow one lived.
    http_attack.py PORT IDLE SLOW SECONDS"""
import json
import resource
import selectors
import socket
import sys
import time

port, n_idle, n_slow, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
sel = selectors.DefaultSelector()
stats = {"opened": 0, "open_failed": 0, "slow_closed": 0, "slow_longest_s": 0.0, "idle_closed": 0}
seq = 0


def open_one(kind):
    global seq
    seq += 1
    s = socket.socket()
    s.setblocking(False)
    try:
        s.bind(("127.%d.%d.%d" % (1 + seq // 65536 % 250, seq // 256 % 256, 1 + seq % 250), 0))
        s.connect_ex(("127.0.0.1", port))
    except OSError:
        s.close()
        stats["open_failed"] += 1
        return
    stats["opened"] += 1
    sel.register(s, selectors.EVENT_READ, {"kind": kind, "born": time.monotonic(), "sent": 0})


def closed(key):
    d = key.data
    sel.unregister(key.fileobj)
    key.fileobj.close()
    if d["kind"] == "slow":
        stats["slow_closed"] += 1
        stats["slow_longest_s"] = max(stats["slow_longest_s"], time.monotonic() - d["born"])
    else:
        stats["idle_closed"] += 1
    open_one(d["kind"])


def main():
    request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100000
    for _ in range(n_slow):
        open_one("slow")
    for _ in range(n_idle):
        open_one("idle")
    end = time.monotonic() + secs
    next_byte = 0.0
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.1):
            try:
                if not key.fileobj.recv(4096):
                    closed(key)
            except OSError:
                closed(key)
        if time.monotonic() >= next_byte:
            next_byte = time.monotonic() + 0.5
            for key in list(sel.get_map().values()):
                d = key.data
                if d["kind"] != "slow":
                    continue
                try:
                    d["sent"] += key.fileobj.send(request[d["sent"]:d["sent"] + (8 if not d["sent"] else 1)])
                except BlockingIOError:
                    pass
                except OSError:
                    closed(key)
    for key in list(sel.get_map().values()):
        d = key.data
        if d["kind"] == "slow":
            stats["slow_longest_s"] = max(stats["slow_longest_s"], time.monotonic() - d["born"])
    print(json.dumps(stats))


main()
