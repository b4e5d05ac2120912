"""Runs the issue-17 sequence against one virtual service and writes what happened as
key=value lines (java.util.Properties).

12 connections held open (3 real servers at uthreshold 4), a 13th (the sorry server, or refused),
two connections of the first real server reset, then - once the table says that server has room
(and, on the kernel with overflow, that the sorry server is down to weight 0) - a 14th.

usage: driver.py VIP PORT OUT.properties TABLE_CMD [--sorry ADDR:PORT | --settle ADDR:PORT]
TABLE_CMD prints an ipvsadm -Ln style table (ipvsadm itself, or fairway's status).
--sorry: wait for the sorry server's weight to follow the pool (the kernel's overflow loop).
--settle: the userspace proxy's status counts a closed connection out at its expiry, but its
  scheduler expires closed connections in one-second batches, up to a second later: a 14th that
  lands on the sorry server (ADDR:PORT) or is refused in that second is retried, every 100 ms, up
  to 3 s; the attempts are reported.
"""
import socket
import struct
import subprocess
import sys
import time

vip, port, out, table_cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
sorry = sys.argv[6] if len(sys.argv) > 6 and sys.argv[5] == "--sorry" else None
settle = sys.argv[6] if len(sys.argv) > 6 and sys.argv[5] == "--settle" else None
service = "%s:%d" % (vip, port)
# How long the watch may take to raise the sorry server once the pool is full: milliseconds on an
# idle machine; OverflowUmlTest.RAISE_BOUND_S must stay above it.
RAISE_LIMIT_S = 60


def table():
    """{dest: (weight, active, inactive)} of our service."""
    text = subprocess.run(table_cmd, shell=True, capture_output=True, text=True).stdout
    dests, inside = {}, False
    for line in text.splitlines():
        if not line.startswith(" "):
            inside = line.split()[1:2] == [service] if line.split() else False
            continue
        f = line.split()
        if inside and f and f[0] == "->" and len(f) >= 6 and f[3].isdigit():
            dests[f[1]] = (int(f[3]), int(f[4]), int(f[5]))
    return dests


def wait_until(what, pred, limit):
    """Polls the table until pred holds (bounded); returns the seconds it took."""
    start = time.monotonic()
    while True:
        t = table()
        if pred(t):
            return time.monotonic() - start
        if time.monotonic() - start > limit:
            raise SystemExit("timed out waiting for %s; table: %r" % (what, t))
        time.sleep(0.05)


def connect():
    """(socket, backend, client port), backend None when refused or answered by nobody."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((vip, port))
        cport = s.getsockname()[1]
        line = b""
        while not line.endswith(b"\n"):
            chunk = s.recv(100)
            if not chunk:
                break
            line += chunk
        if not line.endswith(b"\n"):
            s.close()
            return None, None, cport
        return s, line.decode().strip(), cport
    except OSError:
        s.close()
        return None, None, None


def reset(s):
    # RST, not FIN: the kernel keeps a reset connection 10 s (CLOSE) instead of 2 min (TIME_WAIT).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


held = []
result = {"service": service, "first12": []}
for i in range(12):
    s, backend, cport = connect()
    if s is None:
        raise SystemExit("connection %d was refused; the pool has room for 12" % (i + 1))
    held.append((s, backend))
    result["first12"].append(backend)

if sorry:
    result["raised_after_s"] = wait_until("the sorry server at its weight",
                                          lambda t: t.get(sorry, (0,))[0] > 0, RAISE_LIMIT_S)
s, backend, cport = connect()
result["thirteenth"] = backend
result["thirteenth_client_port"] = cport
if s is not None:
    held.append((s, backend))

victim = result["first12"][0]
result["victim"] = victim
closed = 0
for i, (s, backend) in enumerate(list(held)):
    if backend == victim and closed < 2:
        reset(s)
        held.remove((s, backend))
        closed += 1
result["room_after_s"] = wait_until(
    victim + " below 3/4 of its uthreshold",
    lambda t: victim in t and t[victim][1] + t[victim][2] <= 2, 120)
if sorry:
    wait_until("the sorry server back at weight 0", lambda t: t.get(sorry, (1,))[0] == 0, 10)
s, backend, cport = connect()
attempts = 1
while settle and backend in (settle, None) and attempts < 30:
    if s is not None:  # None: refused in that second, nothing to close
        s.close()
    time.sleep(0.1)
    s, backend, cport = connect()
    attempts += 1
result["fourteenth"] = backend
result["fourteenth_attempts"] = attempts
if s is not None:
    held.append((s, backend))

with open(out, "w") as f:
    for k, v in result.items():
        f.write("%s=%s\n" % (k, ",".join(v) if isinstance(v, list) else v))
for s, _ in held:
    s.close()
