"""Prints a destination's weight in the kernel's table each time it changes, with the time in ms
since it appeared, until it reaches TARGET (or LIMIT seconds pass). Reads /proc/net/ip_vs of this
namespace directly: spawning ipvsadm takes hundreds of ms in user-mode Linux.

usage: weights.py VIP:PORT DEST:PORT TARGET LIMIT_SECONDS
"""
import sys
import time


def hexep(ep):
    a, p = ep.split(":")
    n = 0
    for x in a.split("."):
        n = n * 256 + int(x)
    return "%08X:%04X" % (n, int(p))


vs, dest, target, limit = hexep(sys.argv[1]), hexep(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])


def weight():
    inside = False
    with open("/proc/net/ip_vs") as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] in ("TCP", "UDP"):
                inside = w[1] == vs
            elif inside and len(w) >= 4 and w[0] == "->" and w[1] == dest:
                return int(w[3])
    return None


start = time.monotonic()
first = None
last = None
while time.monotonic() - start < limit:
    w = weight()
    if w is not None and first is None:
        first = time.monotonic()
    if w is not None and w != last:
        print("%d %d" % ((time.monotonic() - first) * 1000, w), flush=True)
        last = w
        if w == target:
            break
    time.sleep(0.005)
