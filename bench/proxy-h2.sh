#!/usr/bin/env bash
# HTTP/2 termination (issue 34): h2load over TLS (ALPN h2) through HAProxy, nginx and Fairway
# (`fairway run --userspace` with a `tls { }` block, its default `alpn h2 http/1.1`), the same
# ECDSA P-256 certificate and the same two plain-HTTP/1.1 nginx backends, in one run. Two shapes:
# 10 connections x 10 concurrent streams, and 100 connections x 1 stream. Prints req/s, p99 (from
# h2load's per-request log) and each proxy's CPU per request, and Fairway's ratios to both.
# Bounded: ROUNDS x 3 targets x 2 shapes x (WARMUP + DURATION) s, plus PREWARM per target.
#   [ROUNDS=2] [WARMUP=2] [PREWARM=30] [FAIRWAY_B=DIR] bench/proxy-h2.sh [DURATION_SECONDS=8]
# PREWARM runs 10x10 through each target first, long enough for Fairway's JIT to have compiled the
# h2 path before the first measured round (docs/benchmarks.md, HTTP/2), in runs of 10 s: h2load's
# connections close at the end of each, as they do after every measured round, and the JIT has
# seen that happen before the first round.
# FAIRWAY_B=DIR also runs that checkout's Fairway (tls-peers.sh): an A/B of two commits in one sitting.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
source "$(dirname "$0")/tls-peers.sh"
DUR=${1:-8}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-2}
for b in h2load haproxy /usr/sbin/nginx openssl java; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
ulimit -n "$(ulimit -Hn)"

B1=$(free_port); start_nginx b1 "$B1"
B2=$(free_port); start_nginx b2 "$B2"
start_tls_peers h2,http/1.1 "$B1" "$B2"

# h2load: one thread per core; the shape's clients and streams; a fixed duration after a warm-up.
h2_run() { # url seconds clients streams log -> "rps p99_ms errors requests"
  local out
  out=$(h2load -t2 -c"$3" -m"$4" -D"$2" --warm-up-time="$WARMUP" --log-file="$5" "$1" 2>&1)
  echo "$out" >>"$WORK/h2load.log"
  local rps reqs ok
  rps=$(awk '/^finished in/ { gsub(",", ""); print $4 }' <<<"$out")
  read -r reqs ok < <(awk '/^requests:/ { gsub(",", ""); print $2, $8 }' <<<"$out")
  # The log's third column is each request's time in microseconds.
  p99=$(awk '{ print $3 }' "$5" | sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; printf "%.3f", v[i] / 1000 }')
  echo "$rps $p99 $((reqs - ok)) $ok"
}

TARGETS=$(tls_targets)
SHAPES=${SHAPES:-10x10 100x1}
declare -A R
measure() { # target shape
  local t=$1 c=${2%x*} m=${2#*x} url="https://127.0.0.1:${PORT[$1]}/" start line
  start=$(round_start "${PID[$t]}")
  line=$(h2_run "$url" "$DUR" "$c" "$m" "$WORK/log-$t-$2")
  read -r rps p99 failed reqs <<<"$line"
  ((failed == 0)) || echo "# $t $2: $failed requests failed" >&2
  R[$t $2]+="$rps $p99 $(round_end "$start" "${PID[$t]}" "$reqs" "$DUR")"$'\n'
}
PREWARM=${PREWARM:-30}
for t in $TARGETS; do
  for ((s = 0; s < PREWARM; s += 10)); do
    h2_run "https://127.0.0.1:${PORT[$t]}/" "$((PREWARM - s < 10 ? PREWARM - s : 10))" 10 10 "$WORK/prewarm" >/dev/null
  done
done
for ((round = 1; round <= ROUNDS; round++)); do
  for shape in $SHAPES; do
    for t in $TARGETS; do measure "$t" "$shape"; done
  done
done
printf '# h2 over TLS (ALPN h2): ECDSA P-256, h2load -t2, %d s after %d s warm-up, median of %d rounds, %s, loadavg %s\n' \
  "$DUR" "$WARMUP" "$ROUNDS" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)"
tls_report 'conns×str' $SHAPES
