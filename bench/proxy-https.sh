#!/usr/bin/env bash
# HTTPS termination (issue 32): wrk over TLS through HAProxy, nginx and Fairway (`fairway run
# --userspace` with a `tls { }` block, as operators run it), the same ECDSA P-256 certificate and
# the same two plain-HTTP nginx backends, in one run. Keep-alive (one handshake per connection,
# then requests) and a connection per request (a full TLS 1.3 handshake each: wrk does not resume
# sessions). Prints req/s, p99 and each proxy's CPU per request, and Fairway's ratios to both.
# Bounded: ROUNDS x 3 targets x 2 shapes x (WARMUP + DURATION) s, plus PREWARM per target and shape.
#   [ROUNDS=2] [WARMUP=3] [PREWARM=10] [CONNS=64] [SHAPES="keepalive close"] [FAIRWAY_B=DIR] bench/proxy-https.sh [DURATION_SECONDS=8]
# FAIRWAY_B=DIR also runs that checkout's Fairway (tls-peers.sh): an A/B of two commits in one sitting.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
source "$(dirname "$0")/tls-peers.sh"
DUR=${1:-8}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-3}
CONNS=${CONNS:-64}
for b in wrk haproxy /usr/sbin/nginx openssl java; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
ulimit -n "$(ulimit -Hn)"

B1=$(free_port); start_nginx b1 "$B1"
B2=$(free_port); start_nginx b2 "$B2"
start_tls_peers http/1.1 "$B1" "$B2"

TARGETS=$(tls_targets)
SHAPES=${SHAPES:-keepalive close}
declare -A R
use_shape() { # shape -> wrk's header for it
  if [[ $1 == close ]]; then export WRK_HEADER="Connection: close"; else unset WRK_HEADER; fi
}
measure() { # target shape -> appends "rps p99" and round_end's figures
  local t=$1 shape=$2 url="https://127.0.0.1:${PORT[$1]}/" start line
  use_shape "$shape"
  wrk_run "$url" "$WARMUP" "$CONNS" >/dev/null
  start=$(round_start "${PID[$t]}")
  line=$(wrk_run "$url" "$DUR" "$CONNS")
  read -r rps _ _ p99 err non2xx reqs _ <<<"$line"
  ((err + non2xx == 0)) || echo "# $t $shape: $err socket errors, $non2xx non-2xx" >&2
  R[$t $shape]+="$rps $p99 $(round_end "$start" "${PID[$t]}" "$reqs" "$DUR")"$'\n'
}
# PREWARM runs each shape through each target before the first round: a connection per request
# takes code paths (handshakes, connection set-up and close) that keep-alive hardly runs, and
# Fairway's JIT compiles them only under that load.
for shape in $SHAPES; do
  use_shape "$shape"
  for t in $TARGETS; do wrk_run "https://127.0.0.1:${PORT[$t]}/" "${PREWARM:-10}" "$CONNS" >/dev/null; done
done
for ((round = 1; round <= ROUNDS; round++)); do
  for shape in $SHAPES; do
    for t in $TARGETS; do measure "$t" "$shape"; done
  done
done
printf '# https: ECDSA P-256, wrk -t%s -c%d, %d s, median of %d rounds, %s, loadavg %s\n' \
  "${WRK_THREADS:-2}" "$CONNS" "$DUR" "$ROUNDS" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)"
tls_report shape $SHAPES
