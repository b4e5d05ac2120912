#!/usr/bin/env bash
# Fault drill under load, bounded in time (about 2 x (DURATION + 8) seconds): wrk through
# `fairway run --userspace` — the real daemon: keepalived.conf, TCP health checks, apply, the
# userspace data plane — to three nginx backends while
#   * one backend is drained (its weight set to 0 in the file, SIGHUP) and restored (SIGHUP),
#   * the configuration is reloaded ten times (SIGHUP; scheduler wlc<->wrr and a weight change),
#   * a backend is killed (SIGKILL); its health check fails and the daemon removes it.
# Once with lb_kind HTTP, once with lb_kind PROXY (L4).
#
#   bench/proxy-drill.sh [DURATION_SECONDS=20] [CONNECTIONS=32]
#
# Expected: HTTP — zero failed requests (idempotent GETs are retried). L4 — only the connections
# that were established to the killed nginx fail.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-20}
CONNS=${2:-32}
((DUR >= 12)) || { echo "DURATION must be at least 12 s" >&2; exit 2; }

JAR="$ROOT/fairway-daemon/target/fairway.jar"
(cd "$ROOT" && mvn -q -B -ntp -pl fairway-daemon -am package -DskipTests >&2)

write_conf() { # file kind vip sched w0 w1 ports...
  local f=$1 kind=$2 vip=$3 sched=$4 w0=$5 w1=$6; shift 6
  local ws=("$w0" "$w1" 1) i=0
  {
    echo "virtual_server 127.0.0.1 $vip {"
    echo "    delay_loop 1"
    echo "    lb_algo $sched"
    echo "    lb_kind $kind"
    for p in "$@"; do
      echo "    real_server 127.0.0.1 $p {"
      echo "        weight ${ws[i]}"
      echo "        TCP_CHECK {"
      echo "            connect_timeout 1"
      echo "        }"
      echo "    }"
      i=$((i + 1))
    done
    echo "}"
  } >"$f.tmp"
  mv "$f.tmp" "$f"
}

drill() { # HTTP|PROXY
  local kind=$1 ports=() pids=() i
  for i in 0 1 2; do
    ports[i]=$(free_port)
    start_nginx "$kind-n$i" "${ports[i]}"
    pids[i]=$NGINX_PID
  done
  local vip admin conf="$WORK/$kind.conf" log="$WORK/fairway-$kind.log"
  vip=$(free_port); admin=$(free_port)
  write_conf "$conf" "$kind" "$vip" wlc 1 1 "${ports[@]}"
  java $(fairway_jvm_opts) -jar "$JAR" \
    run --userspace -f "$conf" --admin "127.0.0.1:$admin" --drift-interval 0 2>"$log" &
  local fw=$!
  PIDS+=("$fw")
  wait_port "$vip"
  wrk_run "http://127.0.0.1:$vip/" 2 "$CONNS" >/dev/null # JIT warm-up, not counted
  (
    step=$(( (DUR - 6) / 3 ))
    sleep 2
    write_conf "$conf" "$kind" "$vip" wlc 0 1 "${ports[@]}"; kill -HUP "$fw"; echo "t+2s    n0 drained (weight 0, SIGHUP)"
    sleep "$step"
    write_conf "$conf" "$kind" "$vip" wlc 1 1 "${ports[@]}"; kill -HUP "$fw"; echo "t+$((2 + step))s    n0 restored (SIGHUP)"
    for i in $(seq 1 10); do
      if ((i % 2)); then write_conf "$conf" "$kind" "$vip" wrr 1 2 "${ports[@]}"; else write_conf "$conf" "$kind" "$vip" wlc 1 1 "${ports[@]}"; fi
      kill -HUP "$fw"; sleep 0.3
    done
    echo "t+$((5 + step))s    ten reloads done"
    sleep "$step"
    workers=$(pgrep -P "${pids[2]}" || true)
    kill -9 "${pids[2]}" $workers 2>/dev/null || true
    echo "t+$((5 + 2 * step))s    n2 killed (SIGKILL); the health check removes it"
  ) >"$WORK/timeline-$kind.txt" 2>&1 &
  local timeline=$!
  local res; res=$(wrk_run "http://127.0.0.1:$vip/" "$DUR" "$CONNS")
  wait "$timeline" || true
  read -r rps _ _ p99 err non <<<"$res"
  local total; total=$(grep -E '^ +[0-9]+ requests in' "$WORK/wrk.log" | tail -1 | awk '{print $1}')
  cat "$WORK/timeline-$kind.txt"
  echo "  daemon: $(grep -c 'reloaded ' "$log" || true) reloads done, $(grep -c 'reload refused\|table refused' "$log" || true) refused;" \
    "$(grep -E 'DOWN' "$log" | head -1 | sed 's/^[^ ]* //')"
  echo "lb_kind $kind: $total requests, $rps req/s, p99 ${p99} ms, socket errors $err, non-2xx $non"
  kill -TERM "$fw" 2>/dev/null || true
  wait "$fw" 2>/dev/null || true
  for i in 0 1; do kill "${pids[i]}" 2>/dev/null || true; done
}

echo "wrk -t2 -c$CONNS -d${DUR}s through fairway run --userspace (wlc, 3 nginx), $(date -u +%FT%TZ)"
drill HTTP
drill PROXY
echo "socket errors = connect+read+write+timeout; L4 failures are expected only for connections"
echo "that were established to the killed backend (about a third of $CONNS)."
