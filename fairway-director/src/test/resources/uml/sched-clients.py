# Opens one TCP connection (a SYN is enough: IPVS schedules on the first packet) per input line
# "MARK SRC SPORT DST DPORT", in order, and keeps them open until all are sent.
import socket, sys, time

IP_FREEBIND = 15
# Without IP_TRANSPARENT an IPv4 route lookup with a source address that is not local fails (ENETUNREACH).
IP_TRANSPARENT = 19
IPV6_TRANSPARENT = 75
SO_MARK = 36
socks = []
for line in open(sys.argv[1]):
    mark, src, sport, dst, dport = line.split()
    fam = socket.AF_INET6 if ':' in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
    if fam == socket.AF_INET:
        s.setsockopt(socket.SOL_IP, IP_TRANSPARENT, 1)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_TRANSPARENT, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if mark != '0':
        s.setsockopt(socket.SOL_SOCKET, SO_MARK, int(mark))
    s.bind((src, int(sport)))
    s.setblocking(False)
    err = s.connect_ex((dst, int(dport)))
    if err not in (0, 115):
        print("connect", src, sport, dst, dport, "failed:", err)
    socks.append(s)
time.sleep(0.5)
print("sent", len(socks))
