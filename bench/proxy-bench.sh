#!/usr/bin/env bash
# wrk against nginx directly, through HAProxy and through Fairway's userspace data plane, for TCP
# and HTTP, in one run on this machine; prints requests/s, latency percentiles and Fairway's ratio
# to HAProxy. Bounded: about ROUNDS x 5 x (WARMUP + DURATION) seconds.
#
#   [ROUNDS=3] [WARMUP=3] [FAIRWAY_JAVA_OPTS=...] bench/proxy-bench.sh [DURATION_SECONDS=15] [CONNECTIONS=64]
#
# Both proxies get the same two nginx backends (one worker each), round robin, and two threads
# (HAProxy nbthread 2, Fairway two event loops); wrk runs two threads on the same 2-core machine.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-15}
CONNS=${2:-64}
WARMUP=${WARMUP:-3}
ROUNDS=${ROUNDS:-3}

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
run() { # label url -> appends "rps p50 p90 p99 errors" of one measured run
  wrk_run "$2" "$WARMUP" "$CONNS" >/dev/null
  R[$1]+="$(wrk_run "$2" "$DUR" "$CONNS")"$'\n'
}
# Rounds alternate the targets so that load from anything else on the machine hits all of them
# alike; the table reports each target's median over the rounds.
for ((round = 1; round <= ROUNDS; round++)); do
  run nginx "http://127.0.0.1:$N1/"
  run haproxy-tcp "http://127.0.0.1:$HT/"
  run fairway-tcp "http://127.0.0.1:$FT/"
  run haproxy-http "http://127.0.0.1:$HH/"
  run fairway-http "http://127.0.0.1:$FH/"
done
median() { # column
  awk -v c="$1" 'NF { print $c }' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
summary() { # label -> "rps p50 p90 p99 errors"
  local rows="${R[$1]}" errs
  errs=$(echo "$rows" | awk 'NF { e += $5 + $6 } END { print e + 0 }')
  echo "$(echo "$rows" | median 1) $(echo "$rows" | median 2) $(echo "$rows" | median 3) $(echo "$rows" | median 4) $errs"
}

echo
echo "wrk -t2 -c$CONNS -d${DUR}s --latency, median of $ROUNDS alternating rounds (each after a ${WARMUP}s warm-up), $(nproc) cores, $(date -u +%FT%TZ)"
printf '%-14s %12s %9s %9s %9s %7s %12s %12s\n' target "req/s" "p50 ms" "p90 ms" "p99 ms" errors "rps/haproxy" "p99/haproxy"
for t in nginx haproxy-tcp fairway-tcp haproxy-http fairway-http; do
  read -r rps p50 p90 p99 err <<<"$(summary "$t")"
  ratio="-"; pratio="-"; hr=""; hp=""
  case $t in
    fairway-tcp) read -r hr _ _ hp _ <<<"$(summary haproxy-tcp)" ;;
    fairway-http) read -r hr _ _ hp _ <<<"$(summary haproxy-http)" ;;
  esac
  if [[ -n $hr ]]; then
    ratio=$(awk -v a="$rps" -v b="$hr" 'BEGIN{printf "%.2f", a/b}')
    pratio=$(awk -v a="$p99" -v b="$hp" 'BEGIN{printf "%.2f", a/b}')
  fi
  printf '%-14s %12.0f %9.2f %9.2f %9.2f %7s %12s %12s\n' "$t" "$rps" "$p50" "$p90" "$p99" "$err" "$ratio" "$pratio"
done

if [[ ${VERBOSE:-0} == 1 ]]; then cat "$WORK/wrk.log"; fi
echo "quit" >&7 || true
echo "quit" >&8 || true
