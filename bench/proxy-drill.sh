#!/usr/bin/env bash
# Fault drill under load, bounded in time (about 2 x DURATION seconds): wrk through Fairway's
# userspace data plane to three nginx backends while one backend is drained and restored, the
# table is changed ten times as a reload changes it, and a backend is killed (SIGKILL) and then
# removed, as the health checker would have it removed. Once for HTTP, once for L4 (TCP relay).
#
#   bench/proxy-drill.sh [DURATION_SECONDS=20] [CONNECTIONS=32]
#
# Expected: HTTP — zero failed requests (idempotent GETs are retried on a fresh connection to the
# next server). L4 — only the connections that were established to the killed nginx fail.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-20}
CONNS=${2:-32}
((DUR >= 12)) || { echo "DURATION must be at least 12 s" >&2; exit 2; }

build_fairway

drill() { # mode
  local mode=$1 ports=() pids=() i
  for i in 0 1 2; do
    ports[i]=$(free_port)
    start_nginx "$mode-n$i" "${ports[i]}"
    pids[i]=$NGINX_PID
  done
  local fp; fp=$(free_port)
  start_fairway "$mode" "$fp" wlc "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" "127.0.0.1:${ports[2]}"
  wrk_run "http://127.0.0.1:$fp/" 2 "$CONNS" >/dev/null # JIT warm-up, not counted
  (
    step=$(( (DUR - 4) / 4 ))
    sleep 2; fairway_cmd drain 0; echo "t+2s   drain n0" >&2
    sleep "$step"; fairway_cmd restore 0; echo "t+$((2 + step))s restore n0" >&2
    for i in $(seq 1 10); do fairway_cmd reload; sleep 0.2; done
    echo "t+$((2 + step + 2))s ten reloads done" >&2
    sleep "$step"
    workers=$(pgrep -P "${pids[2]}" || true)
    kill -9 "${pids[2]}" $workers 2>/dev/null || true
    echo "t+$((4 + 2 * step))s killed n2 (pids ${pids[2]} $workers)" >&2
    sleep 1; fairway_cmd remove 2; echo "t+$((5 + 2 * step))s removed n2 from the table" >&2
  ) &
  local timeline=$!
  local res; res=$(wrk_run "http://127.0.0.1:$fp/" "$DUR" "$CONNS")
  wait "$timeline" || true
  read -r rps _ _ p99 err non <<<"$res"
  local total; total=$(grep -E '^ +[0-9]+ requests in' "$WORK/wrk.log" | tail -1 | awk '{print $1}')
  echo "$mode: $total requests, $rps req/s, p99 ${p99} ms, socket errors $err, non-2xx $non"
  echo "quit" >&7 || true
  exec 7>&-
  for i in 0 1; do kill "${pids[i]}" 2>/dev/null || true; done
}

echo "wrk -t2 -c$CONNS -d${DUR}s through Fairway (wlc, 3 nginx), $(date -u +%FT%TZ)"
drill http
drill tcp
echo "wrk details: socket errors = connect+read+write+timeout; L4 failures are expected only for"
echo "connections that were established to the killed backend (at most its share of $CONNS)."
