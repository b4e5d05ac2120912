#!/usr/bin/env bash
# CPU cost per HTTP request of Fairway's data plane: process CPU seconds (utime+stime from
# /proc/PID/stat) divided by the requests wrk completed. On a shared machine wall-clock req/s
# swing with other load; CPU per request barely does, so it is how two builds are compared.
#
#   bench/proxy-http-cpu.sh [DURATION=10] [CONNECTIONS=64] [ROUNDS=3] [CLASSES_DIR|haproxy...]
#
# The word haproxy as a variant measures HAProxy (nbthread 2, mode http, keep-alive both sides)
# in front of the same backends, for a reference.
# Each CLASSES_DIR holds classes/ and test-classes/ of one build (copy them from
# fairway-proxy/target); none means this checkout. All variants run at once, each its own JVM on
# two event loops in front of the same two nginx backends, and the rounds alternate between them
# so that background load hits all alike.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-10}
CONNS=${2:-64}
ROUNDS=${3:-3}
shift $(($# < 3 ? $# : 3))
build_fairway
DEPS=$(cat "$ROOT/fairway-proxy/target/cp.txt")
VARIANTS=("$@")
((${#VARIANTS[@]})) || VARIANTS=("$ROOT/fairway-proxy/target")

N1=$(free_port); N2=$(free_port)
start_nginx n1 "$N1"; start_nginx n2 "$N2"

declare -a PORTS JPIDS
for i in "${!VARIANTS[@]}"; do
  v=${VARIANTS[$i]}
  port=$(free_port)
  if [[ $v == haproxy ]]; then
    { haproxy_globals; cat <<CFG; } >"$WORK/haproxy.cfg"
listen http
  bind 127.0.0.1:$port
  mode http
  option http-keep-alive
  http-reuse safe
  balance roundrobin
  server n1 127.0.0.1:$N1
  server n2 127.0.0.1:$N2
CFG
    haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.out" 2>&1 &
    JPIDS[$i]=$!
    PIDS+=($!)
    PORTS[$i]=$port
    wait_port "$port"
    continue
  fi
  mkfifo "$WORK/in-$i"
  java ${FAIRWAY_JAVA_OPTS:--Xms256m -Xmx512m} -Dio.netty.leakDetection.level=disabled -Dfairway.threads=2 \
    -cp "$v/test-classes:$v/classes:$DEPS" io.fairway.proxy.ProxyMain http "$port" rr "127.0.0.1:$N1" "127.0.0.1:$N2" \
    <"$WORK/in-$i" >"$WORK/fairway-$i.out" 2>&1 &
  JPIDS[$i]=$!
  PIDS+=($!)
  PORTS[$i]=$port
  exec {fd}>"$WORK/in-$i" # held open: ProxyMain runs until its stdin closes
  wait_port "$port"
done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
user_ticks() { awk '{ print $14 }' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)
for i in "${!VARIANTS[@]}"; do # warm up the JIT
  wrk -t2 -c"$CONNS" -d5s "http://127.0.0.1:${PORTS[$i]}/" >/dev/null
done
echo "variant round req/s requests cpu_s us_per_req user_us_per_req p99_ms loadavg"
for ((round = 1; round <= ROUNDS; round++)); do
  for i in "${!VARIANTS[@]}"; do
    before=$(cpu_ticks "${JPIDS[$i]}")
    ubefore=$(user_ticks "${JPIDS[$i]}")
    out=$(wrk -t2 -c"$CONNS" -d"$DUR"s --latency "http://127.0.0.1:${PORTS[$i]}/")
    after=$(cpu_ticks "${JPIDS[$i]}")
    uafter=$(user_ticks "${JPIDS[$i]}")
    reqs=$(echo "$out" | awk '/requests in/ { print $1 }')
    rps=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
    p99=$(echo "$out" | awk '/^ +99%/ { v=$2; if (v ~ /us$/) v=v/1000; else if (v ~ /ms$/) v=v+0; else if (v ~ /s$/) v=v*1000; print v }')
    bad=$(echo "$out" | awk '/Non-2xx|Socket errors/ { printf "%s ", $0 }')
    awk -v v="$i" -v r="$round" -v rps="$rps" -v n="$reqs" -v t=$((after - before)) -v u=$((uafter - ubefore)) -v hz="$HZ" -v p99="$p99" -v la="$(cut -d' ' -f1-3 /proc/loadavg)" -v bad="$bad" \
      'BEGIN { printf "%s %d %s %d %.2f %.2f %.2f %s %s %s\n", v, r, rps, n, t / hz, t / hz / n * 1e6, u / hz / n * 1e6, p99, la, bad }'
  done
done
