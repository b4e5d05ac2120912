#!/usr/bin/env bash
# Memory that idle keep-alive connections hold in the L4 data plane, against HAProxy and nginx in
# the same run (issue 19: RSS and direct memory per 10,000 idle connections <= HAProxy's).
# N clients each make one request through the proxy to nginx and then stay connected, silent; the
# script reads each proxy's memory before and after and scales the growth to 10,000 connections.
# io_uring reads by handing the kernel a buffer in advance, so an idle connection could pin one;
# the live-buffer column says whether it does. Bounded: about 25 s per target.
#   [FMODE=tcp|http] [N=8000] [WARM=0] [TARGETS="fairway-io_uring fairway-epoll haproxy nginx"] bench/proxy-idle-memory.sh
# SETTLE=s (default 2) is how long the connections stay idle before the second reading: a JVM
# returns the heap that connection set-up touched only at its next collection (G1's periodic
# collection when it is idle), so a longer SETTLE reads what an idle connection keeps.
# WARM=n first opens and closes n connections (one request each) before the first reading, for
# every target alike: a JVM's first connections also grow its JIT's memory (compiler arenas,
# code cache), which is not memory per connection; WARM=0 (the default) is the cold reading.
# HISTO=PREFIX writes Fairway's class histogram (jcmd GC.class_histogram) with the N connections
# open to PREFIX-TARGET.txt: which objects the live heap per connection is made of.
# NMT=PREFIX runs Fairway with native memory tracking and writes what each JVM area (heap, code,
# compiler, threads, Netty's direct memory under "Other") grew by while the N connections opened
# to PREFIX-TARGET.txt: whether the growth is per connection or the JIT's one-time cost.
#
# PSS (proportional set size, /proc/PID/smaps_rollup) is the fair figure across the three: nginx
# runs a master and two workers that share pages, which RSS would count three times. It is summed
# over the proxy's processes. RSS is printed too. Netty's pooled direct memory is inside Fairway's
# RSS; it is printed on its own because it is what an idle connection could pin.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
N=${N:-8000}
SETTLE=${SETTLE:-2}
TARGETS=${TARGETS:-fairway-io_uring fairway-epoll haproxy nginx}
ulimit -n "$(ulimit -Hn)"
# The proxy holds two descriptors per L4 connection, and the client's side must fit in the same
# limit; the backends' connections are spread over two nginx processes.
((2 * N + 200 <= $(ulimit -n))) || { echo "N=$N: needs $((2 * N + 200)) descriptors, the limit is $(ulimit -n)" >&2; exit 1; }
((N <= 30000)) || { echo "N=$N: at most 30000 (loopback source ports)" >&2; exit 1; }
for b in haproxy /usr/sbin/nginx java python3; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
build_fairway
export NGINX_WORKER_CONNECTIONS=$((N + 100)) HAPROXY_MAXCONN=$((N + 100)) NGINX_PROXY_WORKER_CONNECTIONS=$((2 * N + 100))
B1=$(free_port); B2=$(free_port)
start_nginx n1 "$B1"; start_nginx n2 "$B2"

netty() { # fairway port -> "direct_bytes live_buffers" from the test main's `mem` command
  fairway_cmd mem
  local deadline=$((SECONDS + 5)) n0 n
  n0=$(grep -c '^MEM' "$WORK/fairway-$1.out" || true)
  until n=$(grep -c '^MEM' "$WORK/fairway-$1.out" || true); ((n > n0 || SECONDS >= deadline)); do sleep 0.1; done
  awk '/^MEM/ { v = $3 " " $5 } END { print v }' "$WORK/fairway-$1.out"
}
clients() { # port n -> opens n connections (source addresses spread over 127.0.1.0/24), one request each, then idle
  python3 - "$1" "$2" "$WORK/clients-$1.ready" "$((15 + SETTLE))" <<'PY'
import socket, sys, time
port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
socks = []
for i in range(n):
    s = socket.socket()
    s.bind(("127.0.1.%d" % (1 + i % 250), 0))
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    socks.append(s)
for s in socks:
    if not s.recv(4096):
        sys.exit("a connection closed before its response")
open(ready, "w").close()
time.sleep(float(sys.argv[4]))
PY
}

warm() { # port n -> n connections, one request each, then all closed
  python3 - "$1" "$2" <<'PY'
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
for start in range(0, n, 1000):
    socks = []
    for i in range(start, min(n, start + 1000)):
        s = socket.socket()
        s.bind(("127.0.1.%d" % (1 + i % 250), 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(s)
    for s in socks:
        s.recv(4096)
        s.close()
PY
}

printf '# %s, %s, N=%d idle %s connections, WARM=%d, SETTLE=%s, loadavg %s\n' "$(date -u +%FT%TZ)" "$(nproc) cores" "$N" "${FMODE:-tcp}" "${WARM:-0}" "$SETTLE" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-17s %10s %10s %10s %14s %14s %16s %s\n' target "PSS MB" "RSS MB" "+PSS MB" "+PSS/10k MB" "+RSS/10k MB" "+live heap/10k" "direct MB"
for t in $TARGETS; do
  P=$(free_port)
  case $t in
    fairway-*)
      FAIRWAY_JAVA_OPTS="$(fairway_jvm_opts)${NMT:+ -XX:NativeMemoryTracking=summary} -Dfairway.proxy.transport=${t#fairway-}" \
        start_fairway "${FMODE:-tcp}" "$P" rr "127.0.0.1:$B1" "127.0.0.1:$B2"
      PID=$FAIRWAY_PID ;;
    haproxy)
      { haproxy_globals; if [[ ${FMODE:-tcp} == http ]]; then haproxy_http_listen "$P" "$B1" "$B2"; else haproxy_tcp_listen "$P" "$B1" "$B2"; fi; } >"$WORK/haproxy-$P.cfg"
      haproxy -f "$WORK/haproxy-$P.cfg" -db &
      PID=$!; PIDS+=("$PID"); wait_port "$P" ;;
    nginx)
      start_nginx_proxy "p$P" "$P" "${FMODE:-tcp}" "$B1" "$B2"; PID=$NGINX_PID ;;
    *) echo "unknown target $t" >&2; exit 1 ;;
  esac
  # One request through it first, so that lazily allocated pools exist in both readings.
  curl -s -o /dev/null "http://127.0.0.1:$P/" || true
  ((${WARM:-0} > 0)) && warm "$P" "$WARM"
  sleep 1
  h0=-; [[ $t == fairway-* ]] && h0=$(live_heap "$PID")
  read -r -a procs <<<"$(pids_of "$PID")"
  p0=$(kb Pss "${procs[@]}"); r0=$(kb Rss "${procs[@]}")
  [[ -n ${NMT:-} && $t == fairway-* ]] && jcmd "$PID" VM.native_memory baseline >/dev/null
  clients "$P" "$N" &
  C=$!
  wait_clients "$WORK/clients-$P.ready" "$C" 60 "$t" "$N"
  sleep "$SETTLE" # let the proxy settle (buffers returned after the response)
  read -r -a procs <<<"$(pids_of "$PID")"
  p1=$(kb Pss "${procs[@]}"); r1=$(kb Rss "${procs[@]}")
  direct=- heap=-
  if [[ $t == fairway-* ]]; then
    heap=$(bc -l <<<"($(live_heap "$PID")-$h0)/1024*10000/$N" | xargs printf '%.1f MB')
    # What the live heap holds, with the connections open.
    [[ -n ${HISTO:-} ]] && jcmd "$PID" GC.class_histogram >"$HISTO-$t.txt"
    [[ -n ${NMT:-} ]] && jcmd "$PID" VM.native_memory summary.diff scale=KB >"$NMT-$t.txt"
    direct=$(netty "$P" | awk '{ printf "%.1f (%d live buffers)", $1 / 1048576, $2 }')
  fi
  printf '%-17s %10.1f %10.1f %10.1f %14.1f %14.1f %16s %s\n' "$t" "$(bc -l <<<"$p1/1024")" "$(bc -l <<<"$r1/1024")" \
    "$(bc -l <<<"($p1-$p0)/1024")" "$(bc -l <<<"($p1-$p0)/1024*10000/$N")" "$(bc -l <<<"($r1-$r0)/1024*10000/$N")" "$heap" "$direct"
  kill "$C" 2>/dev/null || true; wait "$C" 2>/dev/null || true
  case $t in
    fairway-*) fairway_cmd quit; wait "$PID" 2>/dev/null || true ;;
    *) kill "$PID"; wait "$PID" 2>/dev/null || true ;;
  esac
done
