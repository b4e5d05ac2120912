#!/usr/bin/env python3
"""Wire timestamps for the VRRP failover test and bench/vrrp-failover.sh (tcpdump is not needed).

Usage: capture.py IFACE SECONDS OUT [PORT[,PORT...]]
Listens on IFACE (AF_PACKET, every frame in and out) for SECONDS and writes one line per VRRP
advert, ARP packet and (with PORTs) TCP SYN or SYN-ACK to or from one of the PORTs, with the
kernel's receive (or, for our own frames, transmit) time, so a loaded machine delays nothing it
measures:
  "EPOCH_US in|out vrrp SRC VRID PRIO"
  "EPOCH_US in|out arp request|reply SENDER_IP TARGET_IP SENDER_MAC"
  "EPOCH_US in|out syn|synack SRC:SPORT DST:DPORT"
A classic BPF filter (arp, IP protocol 112, TCP with SYN set) keeps the rest of the traffic (a
wrk at full speed) in the kernel. Bounded: stops by itself after SECONDS. Needs root.
"""
import ctypes
import select
import socket
import struct
import sys
import time

iface, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
ports = {int(p) for p in sys.argv[4].split(",")} if len(sys.argv) > 4 else set()

ETH_P_ALL = 0x0003
SO_ATTACH_FILTER = 26
SO_TIMESTAMPNS = 35
PACKET_OUTGOING = 4

# ldh [12]; jeq ARP -> accept; jeq IP else drop; ldb [23]; jeq 112 -> accept; jeq 6 else drop;
# ldh [20]; jset 0x1fff (a fragment) -> drop; ldxb 4*([14]&0xf); ldb [x+27]; jset SYN else drop.
PROGRAM = [
    (0x28, 0, 0, 12),
    (0x15, 9, 0, 0x0806),
    (0x15, 0, 9, 0x0800),
    (0x30, 0, 0, 23),
    (0x15, 6, 0, 112),
    (0x15, 0, 6, 6),
    (0x28, 0, 0, 20),
    (0x45, 4, 0, 0x1FFF),
    (0xB1, 0, 0, 14),
    (0x50, 0, 0, 27),
    (0x45, 0, 1, 0x02),
    (0x06, 0, 0, 0x40000),
    (0x06, 0, 0, 0),
]


def attach_filter(s):
    code = b"".join(struct.pack("HBBI", *i) for i in PROGRAM)
    buf = ctypes.create_string_buffer(code)
    prog = struct.pack("HL", len(PROGRAM), ctypes.addressof(buf))
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, prog)
    return buf  # kept alive while the socket is open


def ip(b):
    return socket.inet_ntoa(b)


def describe(frame):
    if len(frame) < 14:
        return None
    ethertype = struct.unpack("!H", frame[12:14])[0]
    if ethertype == 0x0806 and len(frame) >= 42:
        op = struct.unpack("!H", frame[20:22])[0]
        kind = {1: "request", 2: "reply"}.get(op, "op%d" % op)
        mac = ":".join("%02x" % b for b in frame[22:28])
        return "arp %s %s %s %s" % (kind, ip(frame[28:32]), ip(frame[38:42]), mac)
    if ethertype != 0x0800 or len(frame) < 34:
        return None
    ihl = (frame[14] & 0x0F) * 4
    proto = frame[23]
    src, dst = ip(frame[26:30]), ip(frame[30:34])
    body = frame[14 + ihl :]
    if proto == 112 and len(body) >= 3:
        return "vrrp %s %d %d" % (src, body[1], body[2])
    if proto == 6 and len(body) >= 14:
        sport, dport = struct.unpack("!HH", body[0:4])
        flags = body[13]
        if ports and sport not in ports and dport not in ports:
            return None
        if flags & 0x02:
            kind = "synack" if flags & 0x10 else "syn"
            return "%s %s:%d %s:%d" % (kind, src, sport, dst, dport)
    return None


s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
keep = attach_filter(s)
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
s.bind((iface, 0))
end = time.monotonic() + seconds
with open(out, "w", buffering=1) as f:
    f.write("# listening on %s\n" % iface)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        if not select.select([s], [], [], left)[0]:
            continue
        frame, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(16))
        at = time.time()
        for level, typ, data in anc:
            if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS and len(data) >= 16:
                sec, nsec = struct.unpack("qq", data[:16])
                at = sec + nsec / 1e9
        what = describe(frame)
        if what:
            way = "out" if addr[2] == PACKET_OUTGOING else "in"
            f.write("%d %s %s\n" % (at * 1e6, way, what))
