"""Overflow switch benchmark: opens connections at a fixed rate past the pool's capacity and back.

Phase 1: connections at RATE/s, all held open, for FILL seconds: the pool (12 slots) fills, then
the sorry server should take the rest. Phase 2: every pool connection is reset; once the kernel
expires them (10 s for a reset connection) the pool has room again; connections go on at RATE/s
for BACK seconds, so the pool fills a second time.

usage: rate.py VIP PORT RATE FILL BACK SORRY TABLE_CMD OUT
Writes key=value lines: counts, and the switch windows in milliseconds.
"""
import socket
import struct
import subprocess
import sys
import concurrent.futures
import threading
import time

vip, port, rate, fill, back = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
sorry, table_cmd, out = sys.argv[6], sys.argv[7], sys.argv[8]
service = "%s:%d" % (vip, port)
T0 = time.monotonic()


def now_ms():
    return (time.monotonic() - T0) * 1000.0


def hex_endpoint(h):
    """0A110103:0050 -> 10.17.1.3:80 (the kernel's /proc/net/ip_vs spelling)."""
    a, p = h.split(":")
    n = int(a, 16)
    return "%d.%d.%d.%d:%d" % (n >> 24, n >> 16 & 255, n >> 8 & 255, n & 255, int(p, 16))


def proc_table():
    """The kernel's table read straight from the director's namespace, without spawning
    ipvsadm (which takes hundreds of ms in user-mode Linux): /proc/1/net is PID 1's namespace."""
    with open("/proc/1/net/ip_vs") as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        f = line.split()
        if len(f) >= 2 and f[0] in ("TCP", "UDP") and ":" in f[1]:
            out.append("%s  %s %s" % (f[0], hex_endpoint(f[1]), " ".join(f[2:])))
        elif len(f) >= 6 and f[0] == "->" and ":" in f[1] and f[1][0] != "R":
            out.append("  -> %s %s" % (hex_endpoint(f[1]), " ".join(f[2:])))
        else:
            out.append(line)
    return "\n".join(out)


def table():
    if table_cmd == "proc":
        text = proc_table()
    else:
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


samples = []  # (ms, {dest: (w, a, i)})
events = []  # (start_ms, end_ms, backend or None, outcome)
held = []  # (socket, backend)
lock = threading.Lock()
stop = threading.Event()


def poll():
    while not stop.is_set():
        samples.append((now_ms(), table()))
        time.sleep(0.002)


def attempt():
    start = now_ms()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # 3 s: a SYN the kernel dropped (no destination, and the ICMP rate limit spent) is retried by
    # TCP after 1 s; that connection is "delayed", not refused.
    s.settimeout(3)
    try:
        s.connect((vip, port))
        line = b""
        while not line.endswith(b"\n"):
            chunk = s.recv(100)
            if not chunk:
                break
            line += chunk
    except ConnectionRefusedError:
        s.close()
        with lock:
            events.append((start, now_ms(), None, "refused"))
        return
    except OSError as e:
        s.close()
        with lock:
            events.append((start, now_ms(), None, "timeout" if isinstance(e, socket.timeout) else "error"))
        return
    with lock:
        if line.endswith(b"\n"):
            backend = line.decode().strip()
            events.append((start, now_ms(), backend, "ok"))
            held.append((s, backend))
        else:
            s.close()
            events.append((start, now_ms(), None, "closed"))


def paced(seconds, pool):
    """One attempt every 1/RATE s, on worker threads, so one slow attempt does not stop the clock."""
    futures = []
    base = time.monotonic()
    for i in range(int(seconds * rate)):
        delay = base + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        futures.append(pool.submit(attempt))
    for f in futures:
        f.result()


poller = threading.Thread(target=poll, daemon=True)
poller.start()
with concurrent.futures.ThreadPoolExecutor(max_workers=64) as workers:
    paced(fill, workers)
    reset_ms = now_ms()
    with lock:
        for s, b in list(held):
            if b != sorry:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.close()
                held.remove((s, b))
    paced(back, workers)
stop.set()
poller.join()
events.sort()
r = {"rate": rate, "connections": len(events), "refused": sum(1 for e in events if e[2] is None)}
for outcome in ("refused", "timeout", "error", "closed"):
    r["failed_" + outcome] = sum(1 for e in events if e[3] == outcome)
# A SYN the kernel could not schedule is dropped; TCP retries it about 1 s later.
r["delayed_over_500ms"] = sum(1 for e in events if e[2] is not None and e[1] - e[0] > 500)
pool = [e for e in events if e[2] is not None and e[2] != sorry]
r["pool_connections"] = len(pool)
r["sorry_connections"] = sum(1 for e in events if e[2] == sorry)


def switch(name, full_ms, until_ms):
    """From the pool being full (answer of its 12th connection) to the first sorry answer."""
    first = min((e for e in events if e[2] == sorry and e[1] >= full_ms and e[0] < until_ms),
                key=lambda e: e[1], default=None)
    r[name + "_pool_full_ms"] = round(full_ms, 1)
    if first is None:
        r[name + "_window_ms"] = "never"
        return None
    r[name + "_window_ms"] = round(first[1] - full_ms, 1)
    raised = next((t for t, d in samples if t >= full_ms and d.get(sorry, (0,))[0] > 0), None)
    if raised is not None:
        r[name + "_kernel_sorry_weight_up_after_ms"] = round(raised - full_ms, 1)
    r[name + "_first_sorry_sent_after_ms"] = round(first[0] - full_ms, 1)
    r[name + "_delayed_in_window"] = sum(1 for e in events if e[2] is not None
                                         and full_ms <= e[0] <= first[0] and e[1] - e[0] > 500)
    r[name + "_refused_in_window"] = sum(1 for e in events if e[2] is None and full_ms <= e[0] <= first[0])
    return first


phase1 = [e for e in events if e[0] < reset_ms]
pool1 = [e for e in phase1 if e[2] is not None and e[2] != sorry]
if len(pool1) >= 12:
    first = switch("switch1", sorted(e[1] for e in pool1)[11], reset_ms)
    if first:
        r["refused_steady_overflow"] = sum(1 for e in phase1 if e[2] is None and e[0] > first[0])
# Back: the first sample after the reset in which a pool server has room (total <= 2 of 4).
room = next((t for t, d in samples if t > reset_ms and any(
    k != sorry and v[0] > 0 and v[1] + v[2] <= 2 for k, v in d.items())), None)
phase2 = [e for e in events if e[0] >= reset_ms]
back_first = min((e for e in phase2 if e[2] is not None and e[2] != sorry), key=lambda e: e[1],
                 default=None)
if room is not None and back_first is not None:
    r["back_room_seen_ms"] = round(room, 1)
    r["back_window_ms"] = round(back_first[1] - room, 1)
    lowered = next((t for t, d in samples if t >= room and d.get(sorry, (1,))[0] == 0), None)
    if lowered is not None:
        r["back_kernel_sorry_weight_down_after_ms"] = round(lowered - room, 1)
    r["back_sorry_after_room"] = sum(1 for e in phase2 if e[2] == sorry and room < e[0] < back_first[0])
    pool2 = [e for e in phase2 if e[2] is not None and e[2] != sorry]
    if len(pool2) >= 12:
        switch("switch2", sorted(e[1] for e in pool2)[11], 1e18)
r["refused_in_phase2"] = sum(1 for e in phase2 if e[2] is None)


def kernel_switches():
    """Both ends read from the kernel's own table, in the same sampling stream (so the client's
    own lag does not count): pool full (every real server at its uthreshold of 4) -> sorry server
    weight up; room (a real server at 2 or less) -> sorry server weight 0. Resolution: the
    sampling period."""
    ups, downs = [], []
    full_at = room_at = None
    state = "room"
    for t, d in samples:
        pool = {k: v for k, v in d.items() if k != sorry}
        if not pool or sorry not in d:
            continue
        w = d[sorry][0]
        full = all(v[1] + v[2] >= 4 or v[0] == 0 for v in pool.values())
        room = any(v[0] > 0 and v[1] + v[2] <= 2 for v in pool.values())
        if state == "room" and full:
            state, full_at = "full", t
        if state == "full" and w > 0:
            ups.append(round(t - full_at, 1))
            state = "overflowing"
        if state == "overflowing" and room:
            state, room_at = "back", t
        if state == "back" and w == 0:
            downs.append(round(t - room_at, 1))
            state = "room"
    r["kernel_full_to_sorry_up_ms"] = " ".join(map(str, ups)) or "none"
    r["kernel_room_to_sorry_down_ms"] = " ".join(map(str, downs)) or "none"


kernel_switches()
r["poll_samples"] = len(samples)
if len(samples) > 1:
    r["poll_period_ms"] = round((samples[-1][0] - samples[0][0]) / (len(samples) - 1), 1)
with open(out, "w") as f:
    for k, v in r.items():
        f.write("%s=%s\n" % (k, v))
with open(out + ".events.csv", "w") as f:
    f.write("start_ms,end_ms,backend,outcome\n")
    for e in events:
        f.write("%.1f,%.1f,%s,%s\n" % e)
for s, _ in held:
    s.close()
