#!/usr/bin/env bash
# Overload (issue 19): more client connections than the backends can take, through HAProxy, nginx
# and Fairway in the same run. The two nginx backends accept at most BACKEND_CONNS connections each
# (worker_connections); wrk first runs at PEAK_CONNS (the proxies' peak), then at OVER_CONNS. The
# goal is no collapse: req/s under overload within 10 % of the peak, p99 bounded, and no failed
# request that HAProxy would not fail too. Bounded: ROUNDS x targets x 2 x (WARMUP + DURATION) s.
# SERVER_LIMIT=N tells every proxy what the backends take: HAProxy `maxconn N` per server (its
# queue), nginx `max_conns=N`, Fairway `max_conns N` (its queue, docs/proxy.md "Overload"), or
# Fairway `uthreshold N` with FAIRWAY_LIMIT=uthreshold.
#   [ROUNDS=3] [WARMUP=3] [PREWARM=20] [BACKEND_CONNS=256] [PEAK_CONNS=64] [OVER_CONNS=2048] [SERVER_LIMIT] \
#     [TARGETS="haproxy-tcp nginx-tcp fairway-tcp haproxy-http nginx-http fairway-http"] \
#     bench/proxy-overload.sh [DURATION_SECONDS=10]
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-10}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-3}
PEAK=${PEAK_CONNS:-64}
OVER=${OVER_CONNS:-2048}
TARGETS=${TARGETS:-haproxy-tcp nginx-tcp fairway-tcp haproxy-http nginx-http fairway-http}
for b in wrk haproxy /usr/sbin/nginx java; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
ulimit -n "$(ulimit -Hn)"
((3 * OVER + 200 <= $(ulimit -n))) || { echo "OVER_CONNS=$OVER needs $((3 * OVER + 200)) descriptors, the limit is $(ulimit -n)" >&2; exit 1; }
build_fairway
export NGINX_WORKER_CONNECTIONS=${BACKEND_CONNS:-256} HAPROXY_MAXCONN=$((OVER + 100)) NGINX_PROXY_WORKER_CONNECTIONS=$((2 * OVER + 100))
# Each target gets its own two backends: a proxy that pools idle backend connections (HAProxy's
# http-reuse, nginx's upstream keepalive, Fairway's pool) keeps them after its run, and on shared
# backends they would take the slots of the next target.
declare -A URL PID
HAPROXY_CFG="$WORK/haproxy.cfg"
haproxy_globals >"$HAPROXY_CFG"
for t in $TARGETS; do
  B1=$(free_port); start_nginx "b$B1" "$B1"
  B2=$(free_port); start_nginx "b$B2" "$B2"
  P=$(free_port)
  case $t in
    haproxy-tcp) haproxy_tcp_listen "$P" "$B1" "$B2" | sed "s/^listen tcp/listen $t/" >>"$HAPROXY_CFG" ;;
    haproxy-http) haproxy_http_listen "$P" "$B1" "$B2" | sed "s/^listen http/listen $t/" >>"$HAPROXY_CFG" ;;
    nginx-tcp | nginx-http) start_nginx_proxy "p$P" "$P" "${t#nginx-}" "$B1" "$B2"; PID[$t]=$NGINX_PID ;;
    fairway-tcp | fairway-http)
      start_fairway "${t#fairway-}" "$P" rr "127.0.0.1:$B1" "127.0.0.1:$B2"
      exec {fd}>&7
      PID[$t]=$FAIRWAY_PID ;;
    *) echo "unknown target $t" >&2; exit 1 ;;
  esac
  URL[$t]="http://127.0.0.1:$P"
done
unset NGINX_WORKER_CONNECTIONS
if grep -q '^listen' "$HAPROXY_CFG"; then
  haproxy -f "$HAPROXY_CFG" -db 2>"$WORK/haproxy.err" &
  PIDS+=($!)
  for t in $TARGETS; do [[ $t == haproxy-* ]] && wait_port "${URL[$t]##*:}"; done
fi

declare -A R
run() { # target conns -> appends "rps p50 p90 p99 errors non2xx requests"
  wrk_run "${URL[$1]}/" "$WARMUP" "$2" >/dev/null
  R[$1 $2]+="$(wrk_run "${URL[$1]}/" "$DUR" "$2")"$'\n'
}
# The JVM compiles the relay's path under load; without this the first rounds measure the
# interpreter (and on a loaded machine, a starved JIT).
for t in $TARGETS; do wrk_run "${URL[$t]}/" "${PREWARM:-20}" "$PEAK" >/dev/null; done
for ((round = 1; round <= ROUNDS; round++)); do
  for t in $TARGETS; do run "$t" "$PEAK"; run "$t" "$OVER"; done
done
median() {
  awk -v c="$1" 'NF { print $c }' | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
sum() { awk -v c="$1" 'NF { s += $c } END { print s + 0 }'; }

printf '# overload: backends take %d connections each (2 backends), server limit %s, wrk -t%s, %d s, median of %d rounds, %s, loadavg %s\n' \
  "${BACKEND_CONNS:-256}" "${SERVER_LIMIT:-none}${SERVER_LIMIT:+ (Fairway ${FAIRWAY_LIMIT:-maxConns})}" "${WRK_THREADS:-2}" "$DUR" "$ROUNDS" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-13s %10s %10s %8s %10s %10s %10s %12s %12s %10s\n' target "rps@$PEAK" "rps@$OVER" "ratio" "good@$OVER" "p99@$PEAK" "p99@$OVER" "failed@$PEAK" "failed@$OVER" "requests@$OVER"
for t in $TARGETS; do
  a=${R[$t $PEAK]} b=${R[$t $OVER]}
  ra=$(median 1 <<<"$a"); rb=$(median 1 <<<"$b")
  fa=$(($(sum 5 <<<"$a") + $(sum 6 <<<"$a"))); fb=$(($(sum 5 <<<"$b") + $(sum 6 <<<"$b")))
  # good: the 2xx answers per second (wrk's rate counts error pages too), median over the rounds
  gb=$(awk 'NF { print ($7 > 0 ? $1 * ($7 - $6) / $7 : 0) }' <<<"$b" | median 1)
  printf '%-13s %10.0f %10.0f %8s %10.0f %10.2f %10.2f %12d %12d %10d\n' "$t" "$ra" "$rb" "$(awk -v a="$ra" -v b="$rb" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }')" \
    "$gb" "$(median 4 <<<"$a")" "$(median 4 <<<"$b")" "$fa" "$fb" "$(sum 7 <<<"$b")"
done
echo "# failed = socket errors (connect, read, write, timeout) + non-2xx responses, summed over the rounds; good = 2xx/s"
