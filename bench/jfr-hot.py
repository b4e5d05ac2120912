#!/usr/bin/env python3
"""The hottest methods of a JFR recording: execution samples by top frame and by any frame.

Usage: bench/jfr-hot.py RECORDING.jfr [THREAD_SUBSTRING] [N=25]
Reads `jfr print --json --events jdk.ExecutionSample` (the JDK's jfr tool).
"""
import collections
import json
import subprocess
import sys

rec = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else ""
n = int(sys.argv[3]) if len(sys.argv) > 3 else 25
out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample", rec],
                     check=True, capture_output=True, text=True).stdout
events = json.loads(out)["recording"]["events"]
top = collections.Counter()
anyf = collections.Counter()
threads = collections.Counter()
total = 0
for e in events:
    v = e["values"]
    th = (v.get("sampledThread") or {}).get("javaName") or "?"
    if only and only not in th:
        continue
    frames = (v.get("stackTrace") or {}).get("frames") or []
    if not frames:
        continue
    total += 1
    threads[th] += 1
    names = [f["method"]["type"]["name"] + "." + f["method"]["name"] for f in frames]
    top[names[0]] += 1
    for m in set(names):
        anyf[m] += 1
print("%d samples" % total)
print("-- by thread")
for t, c in threads.most_common(10):
    print("%6d %5.1f%%  %s" % (c, 100.0 * c / total, t))
print("-- top frame")
for m, c in top.most_common(n):
    print("%6d %5.1f%%  %s" % (c, 100.0 * c / total, m))
print("-- anywhere on the stack (io.fairway and java.net)")
for m, c in anyf.most_common(400):
    if m.startswith("io.fairway") or m.startswith("java.net") or m.startswith("com.sun.jna"):
        print("%6d %5.1f%%  %s" % (c, 100.0 * c / total, m))
