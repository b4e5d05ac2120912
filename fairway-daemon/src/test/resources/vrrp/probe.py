#!/usr/bin/env python3
"""New-connection probe for the VRRP failover test and bench/vrrp-failover.sh.

Usage: probe.py HOST PORT SECONDS OUT
Every 20 ms, for SECONDS, opens a new TCP connection to HOST:PORT (200 ms connect and read
timeouts), sends one HTTP/1.0 GET and reads the answer. Writes one line per attempt to OUT:
"EPOCH_MS ok|fail MS [why]", EPOCH_MS being when the attempt started (wall clock, so the caller
can line it up with its own clock). Bounded: stops by itself after SECONDS.
"""
import socket
import sys
import time

host, port, seconds, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
end = time.monotonic() + seconds
with open(out, "w", buffering=1) as f:
    while time.monotonic() < end:
        start = time.time()
        t0 = time.monotonic()
        why = ""
        ok = False
        try:
            with socket.create_connection((host, port), timeout=0.2) as s:
                s.settimeout(0.2)
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
            why = type(e).__name__
        ms = (time.monotonic() - t0) * 1000
        f.write("%d %s %.0f %s\n" % (start * 1000, "ok" if ok else "fail", ms, why))
        time.sleep(max(0.0, 0.02 - (time.monotonic() - t0)))
