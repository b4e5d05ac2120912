#!/usr/bin/env bash
# wrk against nginx directly, through HAProxy and through Fairway's userspace data plane, for TCP
# and HTTP, in one run on this machine; prints requests/s, latency percentiles and Fairway's ratio
# to HAProxy. Bounded: about 6 x (WARMUP + DURATION) seconds.
#
#   bench/proxy-bench.sh [DURATION_SECONDS=15] [CONNECTIONS=64]
#
# Both proxies get the same two nginx backends (one worker each), round robin, and two threads
# (HAProxy nbthread 2, Fairway two event loops); wrk runs two threads on the same 2-core machine.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-15}
CONNS=${2:-64}
WARMUP=${WARMUP:-5}

for b in wrk haproxy /usr/sbin/nginx java; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
build_fairway

N1=$(free_port); N2=$(free_port)
start_nginx n1 "$N1"; start_nginx n2 "$N2"

HT=$(free_port); HH=$(free_port)
cat >"$WORK/haproxy.cfg" <<CFG
global
  maxconn 4000
  nbthread 2
defaults
  timeout connect 3s
  timeout client 60s
  timeout server 60s
listen tcp
  bind 127.0.0.1:$HT
  mode tcp
  balance roundrobin
  server n1 127.0.0.1:$N1
  server n2 127.0.0.1:$N2
listen http
  bind 127.0.0.1:$HH
  mode http
  option http-keep-alive
  http-reuse safe
  balance roundrobin
  server n1 127.0.0.1:$N1
  server n2 127.0.0.1:$N2
CFG
haproxy -f "$WORK/haproxy.cfg" -db &
PIDS+=($!)
wait_port "$HT"; wait_port "$HH"

FT=$(free_port)
start_fairway tcp "$FT" rr "127.0.0.1:$N1" "127.0.0.1:$N2"
exec 8>&7
FH=$(free_port)
start_fairway http "$FH" rr "127.0.0.1:$N1" "127.0.0.1:$N2"

declare -A R
run() { # label url
  wrk_run "$2" "$WARMUP" "$CONNS" >/dev/null
  R[$1]=$(wrk_run "$2" "$DUR" "$CONNS")
}
run nginx "http://127.0.0.1:$N1/"
run haproxy-tcp "http://127.0.0.1:$HT/"
run fairway-tcp "http://127.0.0.1:$FT/"
run haproxy-http "http://127.0.0.1:$HH/"
run fairway-http "http://127.0.0.1:$FH/"

echo
echo "wrk -t2 -c$CONNS -d${DUR}s --latency (after ${WARMUP}s warm-up), $(nproc) cores, $(date -u +%FT%TZ)"
printf '%-14s %12s %9s %9s %9s %7s %12s %12s\n' target "req/s" "p50 ms" "p90 ms" "p99 ms" errors "rps/haproxy" "p99/haproxy"
for t in nginx haproxy-tcp fairway-tcp haproxy-http fairway-http; do
  read -r rps p50 p90 p99 err non <<<"${R[$t]}"
  ratio="-"; pratio="-"
  case $t in
    fairway-tcp) read -r hr _ _ hp _ _ <<<"${R[haproxy-tcp]}" ;;
    fairway-http) read -r hr _ _ hp _ _ <<<"${R[haproxy-http]}" ;;
    *) hr=""; hp="" ;;
  esac
  if [[ -n $hr ]]; then
    ratio=$(awk -v a="$rps" -v b="$hr" 'BEGIN{printf "%.2f", a/b}')
    pratio=$(awk -v a="$p99" -v b="$hp" 'BEGIN{printf "%.2f", a/b}')
  fi
  printf '%-14s %12s %9s %9s %9s %7s %12s %12s\n' "$t" "$rps" "$p50" "$p90" "$p99" "$((err + non))" "$ratio" "$pratio"
done
echo "quit" >&7 || true
echo "quit" >&8 || true
