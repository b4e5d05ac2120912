#!/usr/bin/env bash
# HTTPS termination (issue 32): wrk over TLS through HAProxy, nginx and Fairway (`fairway run
# --userspace` with a `tls { }` block, as operators run it), the same ECDSA P-256 certificate and
# the same two plain-HTTP nginx backends, in one run. Keep-alive (one handshake per connection,
# then requests) and a connection per request (a full TLS 1.3 handshake each: wrk does not resume
# sessions). Prints req/s, p99 and each proxy's CPU per request, and Fairway's ratios to both.
# Bounded: ROUNDS x 3 targets x 2 shapes x (WARMUP + DURATION) s, plus PREWARM per target.
#   [ROUNDS=2] [WARMUP=3] [PREWARM=10] [CONNS=64] bench/proxy-https.sh [DURATION_SECONDS=8]
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-8}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-3}
CONNS=${CONNS:-64}
for b in wrk haproxy /usr/sbin/nginx openssl java; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
ulimit -n "$(ulimit -Hn)"

# One certificate for all three, as a site would have: ECDSA P-256 (what most sites serve now).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench.test \
  -addext subjectAltName=DNS:bench.test -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
cat "$WORK/cert.pem" "$WORK/key.pem" >"$WORK/both.pem"

JAR="$ROOT/fairway-daemon/target/fairway.jar"
if [[ ! -f $JAR ]]; then (cd "$ROOT" && mvn -q -B -ntp -DskipTests package >&2); fi

B1=$(free_port); start_nginx b1 "$B1"
B2=$(free_port); start_nginx b2 "$B2"
declare -A PORT PID

P=$(free_port); PORT[haproxy]=$P
{
  haproxy_globals
  printf 'listen https\n  bind 127.0.0.1:%s ssl crt %s alpn http/1.1\n  mode http\n  option http-keep-alive\n  http-reuse safe\n  balance roundrobin\n' "$P" "$WORK/both.pem"
  printf '  server n1 127.0.0.1:%s\n  server n2 127.0.0.1:%s\n' "$B1" "$B2"
} >"$WORK/haproxy.cfg"
haproxy -f "$WORK/haproxy.cfg" -db 2>"$WORK/haproxy.err" &
PID[haproxy]=$!; PIDS+=("${PID[haproxy]}"); wait_port "$P"

P=$(free_port); PORT[nginx]=$P; dir="$WORK/nginx-tls"; mkdir -p "$dir/logs"
cat >"$dir/nginx.conf" <<CONF
worker_processes 2;
error_log $dir/logs/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fcgi; uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
  keepalive_requests 1000000;
  upstream b { server 127.0.0.1:$B1; server 127.0.0.1:$B2; keepalive 64; }
  server {
    listen 127.0.0.1:$P ssl;
    ssl_certificate $WORK/cert.pem; ssl_certificate_key $WORK/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { proxy_pass http://b; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
/usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' &
PID[nginx]=$!; PIDS+=("${PID[nginx]}"); wait_port "$P"

P=$(free_port); PORT[fairway]=$P
cat >"$WORK/keepalived.conf" <<CONF
virtual_server 127.0.0.1 $P {
    lb_algo rr
    lb_kind HTTP
    protocol TCP
    tls {
        certificate $WORK/cert.pem $WORK/key.pem
        alpn http/1.1
    }
    real_server 127.0.0.1 $B1 {
        weight 1
    }
    real_server 127.0.0.1 $B2 {
        weight 1
    }
}
CONF
# shellcheck disable=SC2046
FAIRWAY_RUNTIME_DIR="$WORK/run" java $(fairway_jvm_opts) -jar "$JAR" run --userspace -f "$WORK/keepalived.conf" \
  >"$WORK/fairway.out" 2>&1 &
PID[fairway]=$!; PIDS+=("${PID[fairway]}"); wait_port "$P" 60

TARGETS="haproxy nginx fairway"
declare -A R
measure() { # target shape -> appends "rps p99 cpu_us_per_request"
  local t=$1 shape=$2 url="https://127.0.0.1:${PORT[$1]}/" c0 c1 line
  if [[ $shape == close ]]; then export WRK_HEADER="Connection: close"; else unset WRK_HEADER; fi
  wrk_run "$url" "$WARMUP" "$CONNS" >/dev/null
  c0=$(cpu_ticks "${PID[$t]}")
  line=$(wrk_run "$url" "$DUR" "$CONNS")
  c1=$(cpu_ticks "${PID[$t]}")
  read -r rps _ _ p99 err non2xx reqs _ <<<"$line"
  ((err + non2xx == 0)) || echo "# $t $shape: $err socket errors, $non2xx non-2xx" >&2
  R[$t $shape]+="$rps $p99 $(awk -v c=$((c1 - c0)) -v r="$reqs" -v hz="$CLK_TCK" 'BEGIN { printf "%.1f", (r > 0) ? c / hz * 1e6 / r : 0 }')"$'\n'
}
for t in $TARGETS; do wrk_run "https://127.0.0.1:${PORT[$t]}/" "${PREWARM:-10}" "$CONNS" >/dev/null; done
for ((round = 1; round <= ROUNDS; round++)); do
  for shape in keepalive close; do
    for t in $TARGETS; do measure "$t" "$shape"; done
  done
done
median() {
  awk -v c="$1" 'NF { print $c }' | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
printf '# https: ECDSA P-256, wrk -t%s -c%d, %d s, median of %d rounds, %s, loadavg %s\n' \
  "${WRK_THREADS:-2}" "$CONNS" "$DUR" "$ROUNDS" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-10s %10s %10s %14s\n' target shape req/s p99-ms cpu-us/req
for shape in keepalive close; do
  for t in $TARGETS; do
    v=${R[$t $shape]}
    printf '%-10s %-10s %10.0f %10.2f %14.1f\n' "$t" "$shape" "$(median 1 <<<"$v")" "$(median 2 <<<"$v")" "$(median 3 <<<"$v")"
  done
  f=$(median 1 <<<"${R[fairway $shape]}")
  printf '# %s: fairway/haproxy %.2f x req/s, fairway/nginx %.2f x req/s\n' "$shape" \
    "$(bc -l <<<"$f / $(median 1 <<<"${R[haproxy $shape]}")")" "$(bc -l <<<"$f / $(median 1 <<<"${R[nginx $shape]}")")"
done
