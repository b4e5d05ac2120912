#!/usr/bin/env python3
"""Sends VRRPv2 adverts with any IPv4 source, for the VRRP source-address tests.

Usage: advert.py IFACE SOURCE VRID PRIORITY PASSWORD VIP COUNT
Builds whole Ethernet frames on an AF_PACKET socket (a raw IP socket would have the kernel fill in
a 0.0.0.0 source with its own): to 224.0.0.18 from IFACE's MAC, TTL 255, protocol 112, advert
interval 1 s, simple-password authentication. Sends COUNT of them back to back and exits: bounded.
"""
import socket
import struct
import sys


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


iface, source, vrid, prio, password, vip, count = sys.argv[1:8]
vrrp = struct.pack("!BBBBBBH", 0x21, int(vrid), int(prio), 1, 1, 1, 0)
vrrp += socket.inet_aton(vip) + password.encode()[:8].ljust(8, b"\0")
vrrp = vrrp[:6] + struct.pack("!H", checksum(vrrp)) + vrrp[8:]
ip = struct.pack(
    "!BBHHHBBH4s4s", 0x45, 0xC0, 20 + len(vrrp), 0, 0, 255, 112, 0,
    socket.inet_aton(source), socket.inet_aton("224.0.0.18"))
ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
with open("/sys/class/net/%s/address" % iface) as f:
    mac = bytes.fromhex(f.read().strip().replace(":", ""))
frame = bytes.fromhex("01005e000012") + mac + b"\x08\x00" + ip + vrrp
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
for _ in range(int(count)):
    try:
        s.send(frame)
    except BlockingIOError:
        pass
s.close()
