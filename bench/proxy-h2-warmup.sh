#!/usr/bin/env bash
# How Fairway's HTTP/2 path warms up (docs/notes/http2-performance.md): Fairway alone (the
# configuration of proxy-h2.sh, two plain-HTTP/1.1 nginx backends), PREWARM seconds of h2load
# 10x10 split into BURSTS runs (each opens and closes its connections), IDLE seconds without load,
# then RUNS runs of DURATION seconds, each printed with its req/s and Fairway's CPU per request
# (user+system, and system alone). Bounded: PREWARM + IDLE + RUNS x DURATION seconds.
#   [PREWARM=30] [BURSTS=1] [IDLE=20] [RUNS=3] bench/proxy-h2-warmup.sh [DURATION_SECONDS=8]
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
source "$(dirname "$0")/tls-peers.sh"
DUR=${1:-8}
PREWARM=${PREWARM:-30}
BURSTS=${BURSTS:-1}
for b in h2load /usr/sbin/nginx openssl java; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
ulimit -n "$(ulimit -Hn)"

B1=$(free_port); start_nginx b1 "$B1"
B2=$(free_port); start_nginx b2 "$B2"
make_cert
fairway_jar
start_tls_fairway fairway h2,http/1.1 "$B1" "$B2"
url="https://127.0.0.1:${PORT[fairway]}/"
pid=${PID[fairway]}

for ((b = 0; b < BURSTS; b++)); do h2load -t2 -c10 -m10 -D"$((PREWARM / BURSTS))" "$url" >/dev/null 2>&1; done
sleep "${IDLE:-20}" # the idle period under test, not a synchronisation
printf '# Fairway alone, h2load -t2 -c10 -m10: %s s of prewarm in %s runs, %s s idle, %s, loadavg %s\n' \
  "$PREWARM" "$BURSTS" "${IDLE:-20}" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= ${RUNS:-3}; i++)); do
  start=$(round_start "$pid")
  out=$(h2load -t2 -c10 -m10 -D"$DUR" "$url" 2>&1)
  reqs=$(awk '/^requests:/ { gsub(",", ""); print $8 }' <<<"$out")
  read -r cpu _ _ sys <<<"$(round_end "$start" "$pid" "$reqs" "$DUR")"
  echo "run $i: $((reqs / DUR)) req/s, $cpu us CPU per request, $sys of it system"
done
