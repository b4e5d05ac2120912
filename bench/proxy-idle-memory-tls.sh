#!/usr/bin/env bash
# Memory that idle TLS connections hold (issues 32 and 34): HTTPS (HTTP/1.1 over TLS) or h2 (ALPN
# h2), through HAProxy, nginx and Fairway (`fairway run --userspace` with a `tls { }` block), the
# same ECDSA P-256 certificate and the same two nginx backends, in one run. N clients each complete
# a TLS 1.3 handshake and one request, then stay connected, silent; the script reads each proxy's
# PSS before and after and scales the growth to 10,000 connections (PSS, RSS and the live heap as
# bench/proxy-idle-memory.sh reads them). Every peer's idle and keep-alive timeouts are raised to
# 600 s so that none closes a connection while the others are opened. Bounded: N / 20 + 60 s at most
# per target (the clients' handshakes are the slow part).
#   [MODE=https|h2] [N=4000] [WARM=0] [TARGETS="haproxy nginx fairway"] bench/proxy-idle-memory-tls.sh
# WARM=n first opens and closes n connections (handshake and one request each) before the first
# reading, for every target alike (a JVM's first handshakes also grow its JIT's memory).
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
source "$(dirname "$0")/tls-peers.sh"
MODE=${MODE:-https}
N=${N:-4000}
TARGETS=${TARGETS:-haproxy nginx fairway}
case $MODE in https) ALPN=http/1.1 ;; h2) ALPN=h2,http/1.1 ;; *) echo "MODE=$MODE: https or h2" >&2; exit 1 ;; esac
ulimit -n "$(ulimit -Hn)"
((2 * N + 200 <= $(ulimit -n))) || { echo "N=$N: needs $((2 * N + 200)) descriptors, the limit is $(ulimit -n)" >&2; exit 1; }
((N <= 30000)) || { echo "N=$N: at most 30000 (loopback source ports)" >&2; exit 1; }
for b in haproxy /usr/sbin/nginx openssl java jcmd python3; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
export NGINX_WORKER_CONNECTIONS=$((N + 100)) HAPROXY_MAXCONN=$((N + 100)) NGINX_PROXY_WORKER_CONNECTIONS=$((2 * N + 100))
export TLS_IDLE=600
B1=$(free_port); start_nginx b1 "$B1"
B2=$(free_port); start_nginx b2 "$B2"
start_tls_peers "$ALPN" "$B1" "$B2"

# The client: python's ssl, one request per connection. For h2 the request is one HEADERS frame
# (HPACK static-table entries and one literal :authority), the answer read until its END_STREAM;
# the server's SETTINGS are acknowledged, as a browser does.
CLIENT=$(cat <<'PY'
import socket, ssl, struct, sys, time
port, n, mode, hold, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "hold", sys.argv[5]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
ctx.set_alpn_protocols(["h2"] if mode == "h2" else ["http/1.1"])

def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

def read_exact(s, k):
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            sys.exit("a connection closed before its response")
        b += c
    return b

def h2_request(s):
    if s.selected_alpn_protocol() != "h2":
        sys.exit("h2 was not negotiated")
    headers = b"\x82\x87\x84\x41\x0abench.test"  # GET, https, /, :authority bench.test
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0) + frame(1, 5, 1, headers))
    while True:
        head = read_exact(s, 9)
        length, kind, flags = int.from_bytes(head[:3], "big"), head[3], head[4]
        stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
        read_exact(s, length)
        if kind == 4 and not flags & 1:
            s.sendall(frame(4, 1, 0))
        if kind == 7 or kind == 3 and stream == 1:
            sys.exit("the proxy ended the request (GOAWAY or RST_STREAM)")
        if stream == 1 and kind in (0, 1) and flags & 1:
            return

def https_request(s):
    s.sendall(b"GET / HTTP/1.1\r\nHost: bench.test\r\n\r\n")
    if not s.recv(4096):
        sys.exit("a connection closed before its response")

socks = []
for i in range(n):
    raw = socket.socket()
    raw.bind(("127.0.1.%d" % (1 + i % 250), 0))
    raw.connect(("127.0.0.1", port))
    s = ctx.wrap_socket(raw, server_hostname="bench.test")
    h2_request(s) if mode == "h2" else https_request(s)
    if hold:
        socks.append(s)
    else:
        s.close()
if hold:
    open(ready, "w").close()
    time.sleep(600)
PY
)
clients() { # port n hold|close -> n connections, a handshake and one request each, then held idle or closed
  python3 -c "$CLIENT" "$1" "$2" "$MODE" "$3" "$WORK/clients-$1.ready"
}

printf '# %s, %s, N=%d idle %s connections (TLS 1.3, ECDSA P-256), WARM=%d, loadavg %s\n' "$(date -u +%FT%TZ)" \
  "$(nproc) cores" "$N" "$MODE" "${WARM:-0}" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %10s %10s %10s %14s %14s %16s\n' target "PSS MB" "RSS MB" "+PSS MB" "+PSS/10k MB" "+RSS/10k MB" "+live heap/10k"
for t in $TARGETS; do
  P=${PORT[$t]} PID_T=${PID[$t]}
  # One connection first, so that lazily allocated pools exist in both readings.
  clients "$P" 1 close
  ((${WARM:-0} > 0)) && clients "$P" "$WARM" close
  sleep 1
  h0=-; [[ $t == fairway ]] && h0=$(live_heap "$PID_T")
  read -r -a procs <<<"$(pids_of "$PID_T")"
  p0=$(kb Pss "${procs[@]}"); r0=$(kb Rss "${procs[@]}")
  # python itself in the background, so that killing $C ends the held connections
  python3 -c "$CLIENT" "$P" "$N" "$MODE" hold "$WORK/clients-$P.ready" &
  C=$!
  wait_clients "$WORK/clients-$P.ready" "$C" $((N / 20 + 60)) "$t" "$N"
  sleep 2 # let the proxy settle (buffers returned after the response)
  read -r -a procs <<<"$(pids_of "$PID_T")"
  p1=$(kb Pss "${procs[@]}"); r1=$(kb Rss "${procs[@]}")
  heap=-
  [[ $t == fairway ]] && heap=$(bc -l <<<"($(live_heap "$PID_T")-$h0)/1024*10000/$N" | xargs printf '%.1f MB')
  printf '%-10s %10.1f %10.1f %10.1f %14.1f %14.1f %16s\n' "$t" "$(bc -l <<<"$p1/1024")" "$(bc -l <<<"$r1/1024")" \
    "$(bc -l <<<"($p1-$p0)/1024")" "$(bc -l <<<"($p1-$p0)/1024*10000/$N")" "$(bc -l <<<"($r1-$r0)/1024*10000/$N")" "$heap"
  kill "$C" 2>/dev/null || true; wait "$C" 2>/dev/null || true
  kill "$PID_T"; wait "$PID_T" 2>/dev/null || true
done
