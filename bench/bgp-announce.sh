#!/usr/bin/env bash
# Scale-out by BGP: how fast a router stops sending flows to a Fairway node that cannot serve or is
# stopping, and how many requests fail meanwhile (docs/scale-out.md, docs/benchmarks.md).
# In network namespaces only (root; never the host's network), with the shipped files and their
# timers: examples/bgp/bird-router.conf on the router, examples/bgp/bird-node.conf (its addresses
# and AS set per node) and examples/bgp/keepalived.conf with `fairway run --userspace` on NODES
# nodes, the three real servers on the router's loopback, and a client behind the router.
#
#   client 10.99.0.2 --- 10.99.0.1 router 10.98.N.1 --- 10.98.N.2 node N (192.0.2.10 local)
#                        10.97.0.1-3:8080 real servers (lo)
#
# Each round, with node 1 and from the client a load of THREADS loops of one request per new
# connection (GET /k/I, 2 s timeouts) running across the event:
#   fail: node 1's real servers become unreachable from it (a `prohibit` route to 10.97.0.0/24,
#         so its checks fail at once); measured from then to the router's route losing node 1's
#         next hop; then they come back and the round waits for three next hops again;
#   term: SIGTERM to node 1's fairway; measured from the signal to the router's route losing
#         node 1's next hop; node 1 then drains and exits and is started again.
# The router's route is polled (`ip route show`) every few milliseconds. Failed requests are
# those of the load that run across the event (from 1 s before it to 3 s after the route
# changed), by cause.
# Prints each round, then the median and maximum of each measure.
# KEEP=DIR keeps each event's requests (start_ms end_ms result) as DIR/fail1.txt, term1.txt, ...
# Usage: bench/bgp-announce.sh [ROUNDS=5] [THREADS=4]
set -euo pipefail
ROUNDS=${1:-5}
THREADS=${2:-4}
NODES=3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="${FAIRWAY_JAR:-$here/fairway-daemon/target/fairway.jar}"
[[ -f $jar ]] || (cd "$here" && mvn -q -B -DskipTests package)
for p in bird ip python3 java; do
  command -v $p >/dev/null || { echo "bgp-announce.sh: $p is missing" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/bgp-bench.XXXXXX)
P=fwbench
R=${P}r
C=${P}c
VIP=192.0.2.10

nodes() { seq 1 $NODES; }

cleanup() {
  disown -a 2>/dev/null || true # no "Killed" line per daemon
  for ns in $R $C $(for i in $(nodes); do echo $P$i; done); do
    pids=$(ip netns pids $ns 2>/dev/null || true)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null || true
    ip netns del $ns 2>/dev/null || true
  done
}
trap 'cleanup; rm -rf "$tmp"' EXIT

ms() { echo $(($(date +%s%N) / 1000000)); }

net() {
  cleanup
  for ns in $R $C $(for i in $(nodes); do echo $P$i; done); do
    ip netns add $ns
    ip -n $ns link set lo up
  done
  ip netns exec $R sysctl -q -w net.ipv4.ip_forward=1
  ip netns exec $R sysctl -q -w net.ipv4.fib_multipath_hash_policy=1
  for i in 1 2 3; do ip -n $R addr add 10.97.0.$i/32 dev lo; done
  ip link add ${P}rc netns $R type veth peer name eth0 netns $C
  ip -n $R addr add 10.99.0.1/24 dev ${P}rc
  ip -n $C addr add 10.99.0.2/24 dev eth0
  ip -n $R link set ${P}rc up
  ip -n $C link set eth0 up
  ip -n $C route add default via 10.99.0.1
  for i in $(nodes); do
    ip link add ${P}r$i netns $R type veth peer name eth0 netns $P$i
    ip -n $R addr add 10.98.$i.1/24 dev ${P}r$i
    ip -n $P$i addr add 10.98.$i.2/24 dev eth0
    # for the IPv6 sessions of the example files (nothing IPv6 is announced here)
    ip -n $R -6 addr add 2001:db8:98:$i::1/64 dev ${P}r$i nodad
    ip -n $P$i -6 addr add 2001:db8:98:$i::2/64 dev eth0 nodad
    ip -n $R link set ${P}r$i up
    ip -n $P$i link set eth0 up
    ip -n $P$i route add default via 10.98.$i.1
    # as examples/bgp/keepalived.conf says: the address local by a route, not on lo
    ip -n $P$i route add local $VIP/32 dev lo table local
  done
}

bird_in() { # ns conf
  ip netns exec "$1" bird -c "$2" -s "$tmp/$1.sock" -P "$tmp/$1.pid"
}

start_fairway() { # node
  ip netns exec $P$1 java -Xmx192m -jar "$jar" run --userspace -f "$here/examples/bgp/keepalived.conf" \
    --admin 127.0.0.1:9107 --admin-token-file "$tmp/token" >>"$tmp/fairway$1.log" 2>&1 &
  echo $! >"$tmp/fairway$1.pid"
}

hops() { # the node numbers the router's route to the VIP goes through, one line
  ip -n $R route show $VIP/32 | grep -o 'via 10\.98\.[0-9]*\.2' | cut -d. -f3 | sort | tr '\n' ' '
}

wait_hops() { # expected ("1 2 3 ") timeout-seconds
  local until=$(($(ms) + $2 * 1000))
  while [[ "$(hops)" != "$1" ]]; do
    if (($(ms) > until)); then
      echo "bgp-announce.sh: the router's next hops are '$(hops)', not '$1'" >&2
      tail -5 "$tmp"/fairway*.log >&2
      exit 1
    fi
    sleep 0.1
  done
}

wait_gone() { # node; prints the time (ms) its next hop went
  local until=$(($(ms) + 60000))
  while [[ " $(hops)" == *" $1 "* ]]; do
    if (($(ms) > until)); then
      echo "bgp-announce.sh: node $1 still a next hop after 60 s" >&2
      exit 1
    fi
    sleep 0.005
  done
  ms
}

cat >"$tmp/load.py" <<'EOF'
# THREADS loops of GET /k/I on a new connection each, until the file STOP exists; prints one
# line per request: start_ms end_ms result (ok:NODE, or the failure)
import socket, sys, threading, time, os
threads, stop, out = int(sys.argv[1]), sys.argv[2], open(sys.argv[3], "w")
lock = threading.Lock()
def loop(t):
    i = 0
    while not os.path.exists(stop):
        i += 1
        start = time.time()
        try:
            s = socket.create_connection(("192.0.2.10", 80), timeout=2)
            s.settimeout(2)
            s.sendall(b"GET /k/%d-%d HTTP/1.1\r\nHost: v\r\nConnection: close\r\n\r\n" % (t, i))
            data = b""
            while True:
                b = s.recv(4096)
                if not b:
                    break
                data += b
            s.close()
            # the body is "rsN 10.98.NODE.2": which node took the request
            result = ("ok:" + data.split(b".")[-2].decode() if data.startswith(b"HTTP/1.1 200")
                      else "status:" + data[:12].decode(errors="replace").replace(" ", "_"))
        except OSError as e:
            result = type(e).__name__
        with lock:
            out.write("%d %d %s\n" % (start * 1000, time.time() * 1000, result))
            out.flush()
for t in range(threads):
    threading.Thread(target=loop, args=(t,)).start()
EOF

load_start() { # name: the requests go to $tmp/load.txt, and to $KEEP/NAME.txt if KEEP is set
  rm -f "$tmp/stop"
  [[ -n ${KEEP:-} && -f $tmp/load.txt ]] && cp "$tmp/load.txt" "$KEEP/$lastload.txt"
  lastload=$1
  : >"$tmp/load.txt"
  ip netns exec $C python3 "$tmp/load.py" "$THREADS" "$tmp/stop" "$tmp/load.txt" &
  loadpid=$!
  # the event only once the load runs (python's start takes seconds on a loaded machine)
  until (($(wc -l <"$tmp/load.txt") >= 50)); do sleep 0.1; done
}

load_stop() {
  touch "$tmp/stop"
  wait $loadpid || true
}

counted() { # from-ms to-ms: "N F causes" for the requests that ran across [from, to]
  awk -v from="$1" -v to="$2" '$1 <= to && $2 >= from { n++; if ($3 !~ /^ok:/) { f++; c[$3]++ } }
    END { s = ""; for (k in c) s = s " " k "=" c[k]; printf "%d %d%s\n", n, f + 0, s }' "$tmp/load.txt"
}

stats() { # label values...: median and max
  local label=$1
  shift
  printf '%s\n' "$@" | sort -n | awk -v l="$label" '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%-34s median %s, max %s (n=%d)\n", l, m, v[NR], NR }'
}

net
printf 't%s\n' "$RANDOM$RANDOM" >"$tmp/token"
chmod 600 "$tmp/token"
ip netns exec $R python3 "$here/fairway-daemon/src/test/resources/bgp/realservers.py" 8080 \
  10.97.0.1 10.97.0.2 10.97.0.3 >"$tmp/realservers.log" 2>&1 &
bird_in $R "$here/examples/bgp/bird-router.conf"
for i in $(nodes); do
  sed -e "s/10\.98\.1\./10.98.$i./g" -e "s/2001:db8:98:1::/2001:db8:98:$i::/g" -e "s/65101/6510$i/g" \
    "$here/examples/bgp/bird-node.conf" >"$tmp/node$i.conf"
  bird_in $P$i "$tmp/node$i.conf"
  start_fairway $i
done
wait_hops "1 2 3 " 180
echo "# $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), Linux $(uname -r)," \
  "$(bird --version 2>&1 | head -1), load $(cut -d' ' -f1-3 /proc/loadavg); ROUNDS=$ROUNDS THREADS=$THREADS"
fail_ms=() term_ms=() fail_failed=() term_failed=()
for round in $(seq 1 "$ROUNDS"); do
  load_start fail$round
  t0=$(ms)
  echo "$t0 fail" >>"$tmp/events"
  ip -n ${P}1 route add prohibit 10.97.0.0/24
  t1=$(wait_gone 1)
  sleep 3
  load_stop
  read -r n f causes < <(counted $((t0 - 1000)) $((t1 + 3000)))
  fail_ms+=($((t1 - t0))) fail_failed+=("$f")
  echo "round $round fail: next hop gone after $((t1 - t0)) ms; $f of $n requests failed ${causes:-}"
  ip -n ${P}1 route del prohibit 10.97.0.0/24
  wait_hops "1 2 3 " 120

  load_start term$round
  t0=$(ms)
  echo "$t0 term" >>"$tmp/events"
  kill -TERM "$(cat "$tmp/fairway1.pid")"
  t1=$(wait_gone 1)
  sleep 3
  load_stop
  read -r n f causes < <(counted $((t0 - 1000)) $((t1 + 3000)))
  term_ms+=($((t1 - t0))) term_failed+=("$f")
  echo "round $round term: next hop gone after $((t1 - t0)) ms; $f of $n requests failed ${causes:-}"
  wait "$(cat "$tmp/fairway1.pid")" || echo "round $round: node 1's fairway exited $?"
  start_fairway 1
  wait_hops "1 2 3 " 180
done
[[ -n ${KEEP:-} ]] && cp "$tmp/load.txt" "$KEEP/$lastload.txt" && cp "$tmp/events" "$KEEP/events.txt"
stats "real servers failed -> withdrawn, ms" "${fail_ms[@]}"
stats "  failed requests" "${fail_failed[@]}"
stats "SIGTERM -> withdrawn, ms" "${term_ms[@]}"
stats "  failed requests" "${term_failed[@]}"
