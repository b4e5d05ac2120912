#!/usr/bin/env python3
"""New-connection probe for the VRRP failover test and bench/vrrp-failover.sh.

Usage: probe.py HOST PORT SECONDS OUT
Every 20 ms, for SECONDS, starts a new TCP connection to HOST:PORT (200 ms to connect: the SYN
of an attempt that went to the dead machine is not retransmitted within it), sends one HTTP/1.0
GET and reads the answer (2 s for it, wrk's --timeout in the same runs). The attempts overlap:
one that hangs does not hold back the next, so the first success after a failover is seen within
20 ms of the service coming back, not up to one timeout later. Writes one line per attempt to
OUT as it ends: "EPOCH_MS ok|fail MS CONNECT_MS [why]", EPOCH_MS being when the attempt started
(wall clock, so the caller can line it up with its own clock), MS how long it took, CONNECT_MS
how long the connection took (-1 if it failed); lines are in the order the attempts ended, so
readers sort them. Bounded: stops starting attempts after SECONDS.
"""
import socket
import sys
import threading
import time

host, port, seconds, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
lock = threading.Lock()


def attempt(f):
    start = time.time()
    t0 = time.monotonic()
    why = ""
    ok = False
    connected = -1.0
    try:
        with socket.create_connection((host, port), timeout=0.2) as s:
            connected = (time.monotonic() - t0) * 1000
            s.settimeout(2.0)
            s.sendall(b"GET / HTTP/1.0\r\nHost: probe\r\n\r\n")
            data = b""
            while len(data) < 12:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            ok = data.startswith(b"HTTP/1.1 200") or data.startswith(b"HTTP/1.0 200")
            if not ok:
                why = "answer " + repr(data[:20])
    except OSError as e:
        why = type(e).__name__ + (" connecting" if connected < 0 else " awaiting the answer")
    ms = (time.monotonic() - t0) * 1000
    with lock:
        f.write("%d %s %.0f %.0f %s\n" % (start * 1000, "ok" if ok else "fail", ms, connected, why))


end = time.monotonic() + seconds
with open(out, "w", buffering=1) as f:
    threads = []
    due = time.monotonic()
    while due < end:
        t = threading.Thread(target=attempt, args=(f,), daemon=True)
        t.start()
        threads.append(t)
        threads = [t for t in threads if t.is_alive()]
        due += 0.02
        time.sleep(max(0.0, due - time.monotonic()))
    for t in threads:
        t.join()
