#!/usr/bin/env bash
# Memory that idle keep-alive connections hold in the data plane, per transport: N clients each
# make one request through the L4 relay (or FMODE=http) to nginx and then stay connected, silent.
# io_uring reads by handing the kernel a buffer in advance, so an idle connection could pin one;
# this measures whether it does. Bounded: about 20 s per transport.
#   [FMODE=tcp|http] [N=3000] bench/proxy-idle-memory.sh
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
build_fairway
N=${N:-3000}
ulimit -n "$(ulimit -Hn)" # the proxy holds two descriptors per L4 connection
((N <= 3500)) || { echo "N=$N: at most 3500 (nginx takes 4096 connections, and descriptors)" >&2; exit 1; }
B=$(free_port)
start_nginx n1 "$B"
mem() { # port -> "bytes buffers": Netty's pooled direct memory (whole chunks) and live buffers
  fairway_cmd mem
  sleep 0.5
  awk '/^MEM/ { v = $3 " " $5 } END { print v }' "$WORK/fairway-$1.out"
}
for tr in io_uring epoll; do
  FT=$(free_port)
  FAIRWAY_JAVA_OPTS="$(fairway_jvm_opts) -Dfairway.proxy.transport=$tr" start_fairway "${FMODE:-tcp}" "$FT" rr "127.0.0.1:$B"
  FP=$FAIRWAY_PID
  d0=$(mem "$FT"); r0=$(awk '/VmRSS/ { print $2 }' "/proc/$FP/status")
  python3 - "$FT" "$N" <<'PY' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    socks.append(s)
for s in socks:
    s.recv(4096)
time.sleep(10)
PY
  CLIENTS=$!
  sleep 7
  d1=$(mem "$FT"); r1=$(awk '/VmRSS/ { print $2 }' "/proc/$FP/status")
  printf '%-9s %s idle connections: %6d live buffers (before %d), Netty direct memory %5.1f MB (before %.1f), RSS %6.1f MB (before %.1f), %d descriptors\n' \
    "$tr" "$N" "${d1#* }" "${d0#* }" "$(echo "$d1" | awk '{ print $1 / 1048576 }')" "$(echo "$d0" | awk '{ print $1 / 1048576 }')" \
    "$(echo "$r1" | awk '{ print $1 / 1024 }')" "$(echo "$r0" | awk '{ print $1 / 1024 }')" "$(ls "/proc/$FP/fd" | wc -l)"
  wait "$CLIENTS"
  fairway_cmd quit
  wait "$FP" 2>/dev/null || true
done
